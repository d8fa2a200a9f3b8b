"""The two kinds of cell, and the cells every lab notebook shares (fixture, your turn, checks)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Cell:
    """One notebook cell: markdown prose or Python code."""

    kind: Literal["markdown", "code"]
    source: str


def md(text: str) -> Cell:
    """A markdown cell; the text may be indented like the code around it."""
    return Cell("markdown", textwrap.dedent(text).strip())


def code(text: str) -> Cell:
    """A code cell; ruff formats it before the notebook is executed."""
    return Cell("code", textwrap.dedent(text).strip())


def fixture_cells() -> list[Cell]:
    """Build the chapter's ten entries and show them, one colour per interaction group."""
    return [
        md(
            """
            ## The fixture

            The chapter's ten entries: one system message, then nine conversation
            messages. `tokens` is what the chapter's teaching estimator charges (not a
            real tokenizer). Notice the three colours: every budget decision keeps or
            drops a whole colour, and `sys` belongs to none of them.
            """
        ),
        code(
            """
            path = chapter_fixture()
            estimate = fixture_estimator()
            styled_fixture_frame(path, estimate)
            """
        ),
    ]


PRACTICE_HINT = (
    "No practice package yet: run `.venv/bin/course-lab practice 11` in the repository root, "
    "then run this cell again."
)


def your_turn_cells(lab: str, what: str) -> list[Cell]:
    """How to practise ``lab``: create the package, implement ``what``, run the checks on it."""
    return [
        md(
            f"""
            ## Your turn

            1. Create your practice package once, in a terminal in the repository
               root (where JupyterLab's *File → New → Terminal* opens):
               `.venv/bin/course-lab practice 11` creates `practice/ch11`, a copy of the
               chapter's modules in which every lab's code is replaced by
               `raise LabNotImplemented(...)`.
            2. For this lab, implement {what}.
            3. Check it: `.venv/bin/course-lab check {lab} --impl practice/ch11`, which runs the
               same checks as
               `.venv/bin/pytest tests/test_lab_{lab.replace(".", "_")}.py --impl practice/ch11`.

            The next cell runs the same check from here when `practice/ch11` exists.
            Its output depends on your code, so it is not compared with the stored
            notebook; the cell after it always runs the reference checks.
            """
        ),
        code(
            f"""
            # NBVAL_IGNORE_OUTPUT
            practice = Path("..") / "practice" / "ch11"
            if practice.is_dir():
                mine = run_lab_checks("{lab}", impl=practice)
                print(mine.summary_line())
                display(checks_frame(mine))
            else:
                print("{PRACTICE_HINT}")
            """
        ),
    ]


def checks_cells(lab: str) -> list[Cell]:
    """The lab's own checks against the reference, as a table with the course's count line."""
    return [
        md(
            f"""
            ## The lab's checks

            The checks CI runs for Lab {lab}, run here against the reference
            `course_lib` (each in a fresh interpreter). Your practice package
            passes the lab when its table looks like this one.
            """
        ),
        code(
            f"""
            report = run_lab_checks("{lab}")
            print(report.summary_line())
            checks_frame(report)
            """
        ),
    ]
