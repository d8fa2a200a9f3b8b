"""Grade the notebooks' own exercises: each student's ``.ipynb`` copies, run headless in the sandbox.

A submission's notebooks are the roster entry itself when it is a ``.ipynb``
file, or every ``.ipynb`` inside its folder (up to three folders deep, no
hidden folders or ``.ipynb_checkpoints``). They are staged like the packages,
before anything runs, and run by ``notebook_worker`` through the same
confined runner (``grading.run_confined``): the same sandbox, limits and
time limit, every process killed at the end.

Each exercise the notebooks ``check(...)`` becomes a column of
``notebooks.csv``, in the order of ``exercises.EXERCISES``: ``correct``,
``wrong``, ``unanswered`` (still ``...``), or empty when no notebook of that
student reached it. The file is written whole and renamed into place, like
the gradebook, and a student with no notebook gets a row of empty cells.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..base.text_rules import spreadsheet_safe
from .exercises import EXERCISES
from .grading import Limits, Submission, run_confined
from .sandbox import SandboxKind

__all__ = ["NotebookGrade", "grade_notebooks", "notebook_sheet", "notebooks_of"]

NOTEBOOK_COLUMNS = ["student", "notebooks", "status", *EXERCISES]
"""``notebooks.csv``'s header: the student, how many notebooks ran, how the run ended, each exercise."""


@dataclass(frozen=True)
class NotebookGrade:
    """One student's notebook exercises: exercise id -> status, and how the run ended."""

    student: str
    notebooks: int
    status: str
    exercises: dict[str, str]


def notebooks_of(submission: Submission, depth: int = 3) -> list[Path]:
    """The notebooks a submission holds: the entry itself, or those in its folder."""
    path = submission.path
    if path.is_symlink():
        return []
    if path.is_file():
        return [path] if path.suffix.lower() == ".ipynb" else []
    found: list[Path] = []
    for folder, names, files in os.walk(path):
        here = Path(folder)
        names[:] = sorted(
            name
            for name in names
            if not name.startswith((".", "__")) and not name.endswith("_checkpoints")
        )
        if len(here.relative_to(path).parts) >= depth:
            names[:] = []
        found += [here / name for name in sorted(files) if name.lower().endswith(".ipynb")]
    return [file for file in found if file.is_file() and not file.is_symlink()]


def _stage(submission: Submission, folder: Path) -> int:
    """Copy the submission's notebooks into ``folder/ch11`` (before anything runs); how many."""
    notebooks = notebooks_of(submission)
    staged = folder / "ch11"
    staged.mkdir(parents=True)
    for number, notebook in enumerate(notebooks, start=1):
        shutil.copyfile(notebook, staged / f"{number:02d}-{notebook.name}")
    for file in [staged, *staged.iterdir()]:  # readable by the worker's own user id
        file.chmod(0o755 if file.is_dir() else 0o644)
    return len(notebooks)


def _grade_one(
    student: str, staged: Path, count: int, limits: Limits, kind: SandboxKind
) -> NotebookGrade:
    if not count:
        return NotebookGrade(student, 0, "no notebook", {})
    with tempfile.TemporaryDirectory(prefix="course-lab-run-") as private:
        run = run_confined(
            "course_lib.track.notebook_worker", [], staged, limits, kind, Path(private)
        )
    results = {
        str(row.get("name")): str(row.get("outcome"))
        for row in run.rows
        if row.get("name") in EXERCISES
    }
    if run.result is None:
        status = "timeout" if run.killed else "crashed"
    else:
        status = "timeout" if run.result.get("timed_out") else "ok"
    return NotebookGrade(student, count, status, results)


def grade_notebooks(
    submissions: Sequence[Submission],
    *,
    limits: Limits,
    kind: SandboxKind,
    jobs: int = 1,
    on_grade: Callable[[NotebookGrade], None] | None = None,
) -> list[NotebookGrade]:
    """Run every submission's notebooks (all staged first, ``jobs`` at a time), sorted by student."""
    with tempfile.TemporaryDirectory(prefix="course-lab-stage-") as folder:
        staged: list[tuple[str, Path, int]] = []
        for number, submission in enumerate(submissions):
            copy = Path(folder) / str(number)
            try:
                count = _stage(submission, copy)
            except OSError:
                count = 0
            staged.append((submission.student, copy / "ch11", count))
        grades: list[NotebookGrade] = []
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            jobs_done = pool.map(
                lambda item: _grade_one(item[0], item[1], item[2], limits, kind), staged
            )
            for grade in jobs_done:
                grades.append(grade)
                if on_grade is not None:
                    on_grade(grade)
    return sorted(grades, key=lambda grade: (grade.student.casefold(), grade.student))


def notebook_sheet(grades: Sequence[NotebookGrade]) -> str:
    """``notebooks.csv``: one row per student, one column per exercise."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(NOTEBOOK_COLUMNS)
    for grade in grades:
        cells = [grade.exercises.get(exercise, "") for exercise in EXERCISES]
        row = [grade.student, grade.notebooks, grade.status, *cells]
        writer.writerow([spreadsheet_safe(cell) for cell in row])
    return buffer.getvalue()
