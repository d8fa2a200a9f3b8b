"""The Chinese charts' font ships with the package and holds every character they draw."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from matplotlib import rcParams
from matplotlib.figure import Figure

from course_lib.base.i18n import translation
from course_lib.views.chart_font import (
    CHINESE_FONT_FAMILY,
    chinese_font_family,
    chinese_font_path,
    use_chart_font,
)

ROOT = Path(__file__).resolve().parents[2]
CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def font_characters() -> set[str]:
    return {chr(code) for code in TTFont(chinese_font_path()).getBestCmap()}


def test_the_font_and_its_licence_are_package_files() -> None:
    path = Path(chinese_font_path())
    assert path.is_file() and path.parent == ROOT / "course_lib" / "views" / "fonts"
    assert "SIL Open Font License" in (path.parent / "OFL.txt").read_text("utf-8")
    assert chinese_font_family() == CHINESE_FONT_FAMILY


def test_every_chinese_character_the_workbook_writes_is_in_the_font() -> None:
    catalog = translation("zh")._catalog  # type: ignore[attr-defined]  # gettext's own dict
    texts = [str(text) for text in catalog.values()]
    sources = ROOT / "notebook_tools" / "notebook_sources"
    texts += [path.read_text("utf-8") for path in sources.glob("*.py")]
    used = {char for text in texts for char in CHINESE.findall(text)}
    missing = sorted(used - font_characters())
    assert missing == [], f"not in the packaged font (remake it with more characters): {missing}"


@pytest.mark.filterwarnings("error:Glyph .* missing from font")
def test_a_chinese_chart_draws_with_it_and_an_english_one_is_unchanged() -> None:
    before, family = list(rcParams["font.sans-serif"]), rcParams["font.family"]
    try:
        use_chart_font("en")
        assert rcParams["font.sans-serif"] == before
        use_chart_font("zh")
        assert rcParams["font.sans-serif"][0] == CHINESE_FONT_FAMILY
        figure = Figure()
        figure.add_subplot().set_title("每次交互的 token 数（chars / 4）")
        figure.savefig(io.BytesIO(), format="png")  # every glyph found, or the warning fails it
    finally:
        rcParams["font.sans-serif"] = before
        rcParams["font.family"] = family
