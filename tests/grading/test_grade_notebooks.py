"""``course-lab grade --notebooks``: the notebooks' own exercises, run headless in the sandbox.

Three students hand in a copy of notebook 03 (Lab 11.3): one answers its
first exercise right, one wrong (and has a cell that raises before the next
exercise), and one loops forever in the cell of the second exercise. Each
``check(...)`` the notebooks reach must become a cell of ``notebooks.csv``;
the loop must cost only its own time limit, keep the exercise answered
before it, and leave no process behind.

Three more try to score without answering: a one-cell notebook that checks
every exercise with the right values, a notebook that replaces the exercises'
judge and writes verdicts on every descriptor, and an answer equal to anything.
The grader judges answers itself, outside the sandbox, so none of them scores.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from pathlib import Path

from course_lib.tools.cli import main
from course_lib.track.starters import write_practice_package

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "03-lab-11.3-budget-projection.ipynb"

FORGES_VERDICTS = """\
import json, os
import course_lib.track.exercises as exercises

class Correct:
    status = "correct"

exercises.evaluate = lambda *args, **kwargs: Correct()
for fd in range(3, 64):
    for name in ("11.3-q1", "11.3-q2", "11.3-q3"):
        row = {"row": {"name": name, "outcome": "correct"}}
        try:
            os.write(fd, (json.dumps(row) + "\\n").encode())
        except OSError:
            pass
"""
"""A first cell that replaces the judge and writes made-up verdicts; every answer left ``...``."""


def one_cell(target: Path, source: str) -> None:
    """A notebook of one code cell."""
    cell = {"cell_type": "code", "metadata": {}, "source": [source], "outputs": []}
    cell["execution_count"] = None
    data = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data), encoding="utf-8")


def with_first_cell(target: Path, source: str) -> None:
    """A copy of notebook 03 with one more code cell before all the others."""
    data = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cell = {"cell_type": "code", "metadata": {}, "source": [source], "outputs": []}
    cell["execution_count"] = None
    data["cells"].insert(0, cell)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data), encoding="utf-8")


TIMEOUT = "25"  # notebook 03 runs in 7-10 s here (it imports pandas, matplotlib and LangChain)


def answered(target: Path, replacements: dict[str, str]) -> None:
    """A copy of notebook 03 with some cells' sources replaced, as a student would save it."""
    data = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    for cell in data["cells"]:
        source = "".join(cell["source"]).strip()
        if source in replacements:
            cell["source"] = [replacements[source]]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data), encoding="utf-8")


def test_each_notebook_exercise_becomes_a_column(tmp_path: Path) -> None:
    roster = tmp_path / "roster"
    answered(roster / "nora.ipynb", {"answer_q1 = ...": "answer_q1 = 26\n"})
    write_practice_package(roster / "ben" / "ch11")
    answered(
        roster / "ben" / "my work.ipynb",
        {"answer_q1 = ...": "answer_q1 = 22\n", "answer_q2 = ...": "raise ValueError('oops')\n"},
    )
    answered(
        roster / "loopy.ipynb",
        {"answer_q1 = ...": "answer_q1 = 26\n", "answer_q2 = ...": "while True:\n    pass\n"},
    )
    one_cell(
        roster / "one_cell.ipynb",
        "from course_lib.track.exercises import check\n"
        'check("11.3-q1", 26)\ncheck("11.3-q2", 22)\n'
        'check("11.3-q3", lambda m, s, r, f: max(0, m - s - r - f))\n',
    )
    with_first_cell(roster / "forger.ipynb", FORGES_VERDICTS)
    answered(
        roster / "always_equal.ipynb",
        {
            "answer_q1 = ...": (
                "class Yes(int):\n    def __eq__(self, other):\n        return True\n"
                "    __hash__ = int.__hash__\n\nanswer_q1 = Yes(5)\n"
            )
        },
    )
    out = tmp_path / "grades"
    printed, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
        options = ["--notebooks", "--jobs", "2", "--timeout", TIMEOUT, "--out", str(out)]
        status = main(["grade", str(roster), *options])
    assert status == 0, errors.getvalue()
    assert f"Ran the notebooks of 6 students: wrote {out / 'notebooks.csv'}." in printed.getvalue()
    with (out / "notebooks.csv").open(encoding="utf-8", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    lab_11_3 = ("11.3-q1", "11.3-q2", "11.3-q3")
    seen = {
        student: (row["notebooks"], row["status"], *(row[e] for e in lab_11_3))
        for student, row in rows.items()
    }
    assert seen == {
        "always_equal.ipynb": ("1", "ok", "wrong", "unanswered", "unanswered"),
        "forger.ipynb": ("1", "ok", "unanswered", "unanswered", "unanswered"),
        "one_cell.ipynb": ("1", "ok", "", "", ""),
        "ben": ("1", "ok", "wrong", "", "unanswered"),
        "loopy.ipynb": ("1", "timeout", "correct", "", ""),
        "nora.ipynb": ("1", "ok", "correct", "unanswered", "unanswered"),
    }
    for row in rows.values():  # exercises of other notebooks were never reached
        assert {row[e] for e in row if e.startswith("11.1-")} == {""}
    marker = str(tmp_path).encode()
    for name in os.listdir("/proc"):  # nothing of this run is still running
        if name.isdigit():
            with contextlib.suppress(OSError):
                assert marker not in Path("/proc", name, "cmdline").read_bytes()
