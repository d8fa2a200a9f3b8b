"""The two kinds of cell, and the cells every lab notebook shares (fixture, your turn, checks).

A "predict first" question is three cells: the question (``md``), the cell
that computes the answer (``answer``: its stored outputs start folded, so
opening the notebook does not show them), and the explanation (``reveal``:
a ``<details>`` block that stays closed until the student opens it). An
exercise is ``exercise_cells``: the prompt, a cell the student fills in, and
the instant check.
"""

from __future__ import annotations

import copy
import textwrap
from dataclasses import dataclass
from typing import Any, Literal

HIDDEN_OUTPUTS: dict[str, Any] = {"collapsed": True, "jupyter": {"outputs_hidden": True}}
"""The cell metadata for "outputs folded": the only cell metadata a notebook carries.

``jupyter.outputs_hidden`` is JupyterLab's own key; ``collapsed`` is the older
name of the same setting, which JupyterLab keeps in step with it (and writes
back on save), so both are stored. JupyterLab shows such a cell's outputs as a
thin bar; clicking it, or running the cell, shows them. nbval ignores
metadata, so the folded outputs are still compared on every run.
"""

SHOW_THE_ANSWER = "Show the answer"
"""The label of every ``<details>`` block that holds an answer (a browser test clicks it)."""


@dataclass(frozen=True)
class Cell:
    """One notebook cell: markdown prose or Python code.

    ``outputs_hidden`` marks a code cell whose stored outputs are the answer to
    the question above it, so they start folded (``HIDDEN_OUTPUTS``).
    """

    kind: Literal["markdown", "code"]
    source: str
    outputs_hidden: bool = False

    @property
    def metadata(self) -> dict[str, Any]:
        """The cell metadata the stored notebook carries for this cell (usually none)."""
        return copy.deepcopy(HIDDEN_OUTPUTS) if self.outputs_hidden else {}


def md(text: str) -> Cell:
    """A markdown cell; the text may be indented like the code around it."""
    return Cell("markdown", textwrap.dedent(text).strip())


def code(text: str) -> Cell:
    """A code cell; ruff formats it before the notebook is executed."""
    return Cell("code", textwrap.dedent(text).strip())


def answer(text: str) -> Cell:
    """The code cell that answers a "predict first" question: its outputs start folded."""
    return Cell("code", textwrap.dedent(text).strip(), outputs_hidden=True)


def reveal(text: str) -> Cell:
    """A markdown explanation of an answer, closed until the student opens it.

    The blank lines around the text let JupyterLab render it as markdown
    inside the HTML block.
    """
    body = textwrap.dedent(text).strip()
    return Cell(
        "markdown",
        f"<details><summary>{SHOW_THE_ANSWER}</summary>\n\n{body}\n\n</details>",
    )


def exercise_cells(exercise: str, prompt: str, starter: str, *, name: str = "") -> list[Cell]:
    """An exercise in three cells: the prompt, the cell the student fills in, the instant check.

    ``starter`` is stored unanswered (``answer_q1 = ...``, or a function that
    returns ``...``), so the stored check says "not answered yet" on every
    run. ``name`` is what the check is given: by default ``answer_q1`` for
    exercise ``11.3-q1``; a function exercise passes the function's name. The
    code cells hold no prose, so a Chinese edition changes only the prompt.
    """
    given = name or "answer_" + exercise.rsplit("-", 1)[-1]
    return [
        md(prompt),
        code(starter),
        code(f'check("{exercise}", {given})'),
    ]


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
