"""``course-lab grade --notebooks``: the notebooks' own exercises, run headless in the sandbox.

Three students hand in a copy of notebook 03 (Lab 11.3): one answers its
first exercise right, one wrong (and has a cell that raises before the next
exercise), and one loops forever in the cell of the second exercise. Each
``check(...)`` the notebooks reach must become a cell of ``notebooks.csv``;
the loop must cost only its own time limit, keep the exercise answered
before it, and leave no process behind.
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
    out = tmp_path / "grades"
    printed, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
        options = ["--notebooks", "--jobs", "2", "--timeout", TIMEOUT, "--out", str(out)]
        status = main(["grade", str(roster), *options])
    assert status == 0, errors.getvalue()
    assert f"Ran the notebooks of 3 students: wrote {out / 'notebooks.csv'}." in printed.getvalue()
    with (out / "notebooks.csv").open(encoding="utf-8", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    lab_11_3 = ("11.3-q1", "11.3-q2", "11.3-q3")
    seen = {
        student: (row["notebooks"], row["status"], *(row[e] for e in lab_11_3))
        for student, row in rows.items()
    }
    assert seen == {
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
