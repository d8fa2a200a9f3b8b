"""INSTRUCTOR.md's tables give each notebook's cell count and minutes: they must be the real ones.

An instructor plans a class from that table; a count that drifted (it once said
27 cells for a notebook of 29) sends them looking for cells that are not there.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "notebook_tools"))

from notebook_sources import SOURCES  # noqa: E402

ROW = re.compile(r"^\| `(?P<name>\d\d[ab]?-[^`]+)` \| (?P<cells>\d+) \|", re.MULTILINE)


def test_the_guides_cell_counts_are_the_stored_notebooks() -> None:
    guide = (ROOT / "INSTRUCTOR.md").read_text(encoding="utf-8")
    rows = {match["name"]: int(match["cells"]) for match in ROW.finditer(guide)}
    stored = sorted(path.stem for path in (ROOT / "notebooks").glob("*.ipynb"))
    assert sorted(rows) == stored
    for name, cells in rows.items():
        notebook = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
        assert len(notebook.cells) == cells, (
            f"INSTRUCTOR.md: {name} has {len(notebook.cells)} cells"
        )


def test_the_guides_minutes_are_each_notebooks_own() -> None:
    """The guide's "a student alone" column is the *Time* each notebook's frame states."""
    guide = (ROOT / "INSTRUCTOR.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\d\d[ab]?)`[^|]*\|[^|]*\|[^|]*\| (\d+) \|$", guide, re.MULTILINE)
    stated = {number: int(minutes) for number, minutes in rows}
    own = {name.split("-")[0]: module.LESSON.minutes for name, module in SOURCES.items()}
    assert stated == own
