"""Every notebook is a lesson: objectives and minutes first, key points last, the chapter's terms.

A student opens a notebook and should see, before any code, how long it takes
and what they will be able to do; they should leave with its key points; and the
Chinese edition should call each thing by the chapter's own name. The build
refuses a notebook that lacks any of these (``frame_problems``,
``glossary_problems``); these tests keep the sources that way and pin the
checks themselves.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "notebook_tools"))

from notebook_sources import NOTEBOOKS, SOURCES  # noqa: E402
from notebook_sources.cells import (  # noqa: E402
    Cell,
    Lesson,
    code,
    frame_problems,
    key_points_cell,
    lesson_cell,
    md,
)
from notebook_sources.glossary import TERMS, glossary_problems  # noqa: E402

IMPORT_LINES_LIMIT = 20
"""The longest first code cell a student scrolls past before the lesson starts."""


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_every_notebook_opens_with_its_minutes_and_objectives_and_ends_with_key_points(
    name: str,
) -> None:
    assert frame_problems(NOTEBOOKS[name]) == [], name
    lesson = SOURCES[name].LESSON
    assert isinstance(lesson, Lesson)
    assert lesson.minutes > 0
    assert len(lesson.objectives) == len(lesson.objectives_zh) >= 2, name
    assert len(lesson.key_points) == len(lesson.key_points_zh) >= 2, name
    assert lesson_cell(lesson) in NOTEBOOKS[name][:4]
    assert NOTEBOOKS[name][-1] == key_points_cell(lesson)


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_the_chinese_edition_uses_the_glossarys_terms(name: str) -> None:
    assert glossary_problems(NOTEBOOKS[name]) == [], name


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_the_first_code_cell_is_short(name: str) -> None:
    first = next(cell for cell in NOTEBOOKS[name] if cell.kind == "code")
    lines = first.source.splitlines()
    assert len(lines) <= IMPORT_LINES_LIMIT, f"{name}: {len(lines)} lines before the lesson"


def test_a_frameless_notebook_is_named() -> None:
    bare = [md("# A title"), md("Some text.")]
    assert frame_problems(bare) == [
        "no **Time:** and objectives among the first three markdown cells",
        "the last cell is not the '## Key points' cell",
    ]


def test_the_glossary_refuses_another_name_and_a_missing_term() -> None:
    cells: list[Cell] = [
        code("x = 1"),
        md(
            "The first kept entry is `u2`; the test estimator prices it.",
            zh="`u2` 是保留部分的起点；测试估算器为它计价。",
        ),
    ]
    assert glossary_problems(cells) == [
        "the English edition says 'first kept entry'; the Chinese never '保留起点'",
        "the Chinese edition says '保留部分的起点'; the glossary's word is '保留起点'",
    ]
    # Identifiers are code, not terms: inline code never counts.
    assert glossary_problems([code("x = 1"), md("`first kept entry`", zh="`保留部分的起点`")]) == []


def test_each_term_has_one_chinese_name() -> None:
    chinese = [term.zh for term in TERMS]
    assert len(set(chinese)) == len(chinese)
    for term in TERMS:
        assert term.source in {"chapter", "workbook"}
        assert term.zh not in term.avoid
        assert not set(term.avoid) & set(chinese), term.en  # an avoided name is no other term
