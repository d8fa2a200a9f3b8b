"""The Chinese edition's charts draw Chinese with a font that arrives with ``pip install``.

Why a font in the package: matplotlib's own font (DejaVu Sans) has no Chinese
characters, and a system font differs from machine to machine (or is missing),
so a chart's title would be empty boxes on one student's machine and its
picture would change with every machine. ``fonts/`` holds Noto Sans CJK SC
Regular limited to the GB 2312 characters (``notebook_tools/subset_cjk_font.py``
made it; SIL OFL 1.1, ``fonts/OFL.txt``).
"""

from __future__ import annotations

from importlib.resources import as_file, files

from matplotlib import font_manager, rcParams

__all__ = [
    "CHINESE_FONT_FAMILY",
    "CHINESE_FONT_FILE",
    "chinese_font_family",
    "chinese_font_path",
    "use_chart_font",
]

CHINESE_FONT_FILE = "NotoSansCJKsc-Regular-GB2312.otf"
CHINESE_FONT_FAMILY = "Noto Sans CJK SC"


def chinese_font_path() -> str:
    """The packaged font's file (a real file: the package is installed as files)."""
    with as_file(files("course_lib.views").joinpath("fonts", CHINESE_FONT_FILE)) as path:
        return str(path)


def chinese_font_family() -> str:
    """The packaged font's family name, registered with matplotlib from its file.

    Registered by file, never looked up among the system's fonts: matplotlib
    lists those in a cache built the first time it runs, so a kernel with
    another cache (another ``HOME`` or ``MPLCONFIGDIR``) could pick another
    Chinese font and Run All would change a stored picture.
    """
    path = chinese_font_path()
    if path not in {font.fname for font in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(path)
    return CHINESE_FONT_FAMILY


def use_chart_font(lang: str) -> None:
    """Draw every later chart with the edition's font: Noto Sans CJK SC for ``"zh"``.

    English charts keep matplotlib's default font, so their pictures do not change.
    """
    if lang != "zh":
        return
    rcParams["font.family"] = "sans-serif"
    rcParams["font.sans-serif"] = [chinese_font_family(), "DejaVu Sans"]
