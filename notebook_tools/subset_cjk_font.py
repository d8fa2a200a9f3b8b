"""Make the Chinese edition's chart font: Noto Sans CJK SC Regular, cut down to GB 2312.

Why: the Chinese notebooks draw charts with Chinese titles, axes and legends,
and a font must arrive with ``pip install`` (no system package). The whole
Noto Sans CJK collection is about 20 MB per weight; its Simplified Chinese
face limited to the GB 2312 characters (the 6,763 hanzi in everyday use, with
their punctuation), ASCII, Latin-1 and the arrows and dashes the notebooks
print is about 1.6 MB. Its licence (SIL OFL 1.1) allows a modified copy under
the same licence; ``course_lib/views/fonts/OFL.txt`` ships with it.

Run it with the collection ``NotoSansCJK-Regular.ttc`` (Debian's
``fonts-noto-cjk`` package, or the upstream release) to remake the file:

    .venv/bin/python notebook_tools/subset_cjk_font.py NotoSansCJK-Regular.ttc
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

FONT = (
    Path(__file__).resolve().parents[1] / "course_lib/views/fonts/NotoSansCJKsc-Regular-GB2312.otf"
)
FACE = "Noto Sans CJK SC"

RANGES = (
    (0x0020, 0x007E),  # ASCII
    (0x00A0, 0x00FF),  # Latin-1: ×, ·, °
    (0x2000, 0x206F),  # general punctuation: dashes, …, ‰
    (0x2190, 0x21FF),  # arrows: the path's →
    (0x2200, 0x22FF),  # maths: ≤, ≥, ≈
    (0x3000, 0x303F),  # CJK punctuation: 、。「」
    (0xFF00, 0xFFEF),  # full-width forms: ，：（）
)


def gb2312_characters() -> set[int]:
    """Every character GB 2312 encodes (its two-byte rows), as code points."""
    found = set()
    for high in range(0xA1, 0xF8):
        for low in range(0xA1, 0xFF):
            try:
                found.add(ord(bytes([high, low]).decode("gb2312")))
            except UnicodeDecodeError:
                continue
    return found


def wanted_characters() -> set[int]:
    """GB 2312 and the ranges above."""
    characters = gb2312_characters()
    for first, last in RANGES:
        characters.update(range(first, last + 1))
    return characters


def simplified_chinese_face(collection: Path) -> TTFont:
    """The Simplified Chinese face of a Noto Sans CJK collection (or the file itself)."""
    if collection.suffix.lower() != ".ttc":
        return TTFont(collection)
    for number, face in enumerate(TTCollection(collection).fonts):
        if face["name"].getDebugName(4) == FACE:
            return TTFont(collection, fontNumber=number)
    raise SystemExit(f"{collection.name}: no face named {FACE!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("collection", type=Path, help="NotoSansCJK-Regular.ttc or a SC .otf")
    parser.add_argument("--output", type=Path, default=FONT)
    arguments = parser.parse_args()
    font = simplified_chinese_face(arguments.collection)
    options = subset.Options()
    options.layout_features = []  # horizontal text only: no vertical forms, no ligatures
    options.name_IDs = ["*"]  # keep the copyright, licence and name records
    options.hinting = False
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted_characters())
    subsetter.subset(font)
    font.save(arguments.output)
    print(f"wrote {arguments.output.name}: {arguments.output.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
