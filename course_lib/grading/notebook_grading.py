"""Grade the notebooks' own exercises: each student's ``.ipynb`` copies, run headless in the sandbox.

A submission's notebooks are the roster entry itself when it is a ``.ipynb``
file, or every ``.ipynb`` inside its folder (up to three folders deep, no
hidden folders or ``.ipynb_checkpoints``). They are staged like the packages,
before anything runs, and run by ``notebook_worker`` through the same
confined runner (``grader.run_confined``): the same sandbox, limits and
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
from functools import cache
from pathlib import Path
from typing import Any

from ..base.text_rules import spreadsheet_safe
from ..judge.codec import ChannelError, Codec, given_types
from ..judge.remote import RuleError
from ..track.exercises import EXERCISES, evaluate
from .grader import Limits, Submission, run_confined
from .notebook_worker import code_cells
from .sandbox import SandboxKind, workbook_root

__all__ = ["NotebookGrade", "grade_notebooks", "judged_answers", "notebook_sheet", "notebooks_of"]

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
            "course_lib.grading.notebook_worker", [], staged, limits, kind, Path(private)
        )
    results = judged_answers(run.rows, staged)
    if run.result is None:
        status = "timeout" if run.killed else "crashed"
    else:
        status = "timeout" if run.result.get("timed_out") else "ok"
    return NotebookGrade(student, count, status, results)


def _exercise_cells(staged: Path) -> dict[tuple[str, int], str]:
    """Each staged notebook's code cells by ``(file name, number)``, read by the grader itself."""
    return {
        (notebook.name, number): source
        for notebook in sorted(staged.glob("*.ipynb"))
        for number, source in enumerate(code_cells(notebook), start=1)
    }


@cache
def handed_out_check_cells() -> dict[str, frozenset[str]]:
    """Each exercise's check cell as the workbook's notebooks hand it out (both editions)."""
    found: dict[str, set[str]] = {}
    for notebook in sorted((workbook_root() / "notebooks").rglob("*.ipynb")):
        for source in code_cells(notebook):
            for exercise in EXERCISES:
                if _calls_check(source, exercise):
                    found.setdefault(exercise, set()).add(source.strip())
    return {exercise: frozenset(sources) for exercise, sources in found.items()}


def _calls_check(source: str, exercise_id: str) -> bool:
    """Whether a cell's source checks ``exercise_id`` and nothing else."""
    calls = source.count("check(")
    return calls == 1 and any(f"check({q}{exercise_id}{q}" in source for q in ('"', "'"))


def _is_check_cell(source: str, exercise_id: str) -> bool:
    """Whether a cell is ``exercise_id``'s own check cell: as handed out, when the notebooks
    are here to say so; else a cell that checks that exercise alone."""
    handed_out = handed_out_check_cells().get(exercise_id)
    if handed_out:
        return source.strip() in handed_out
    return _calls_check(source, exercise_id)


def judged_answers(rows: Sequence[dict[str, Any]], staged: Path) -> dict[str, str]:
    """Each exercise's status, judged here from the answers the worker sent.

    An answer counts only when it names a cell that, in the notebook the grader
    staged, is that exercise's own check cell as handed out, and only its first
    answer counts; its value is read as plain data (``judge.codec``) and judged
    by ``exercises.evaluate`` in this process. So a notebook that patches the
    exercises, writes verdicts of its own, checks every exercise from one cell
    or answers with an object equal to anything, earns nothing by it.
    """
    cells = _exercise_cells(staged)
    types = given_types()
    results: dict[str, str] = {}
    for row in rows:
        exercise = row.get("name")
        if exercise not in EXERCISES or exercise in results:
            continue
        cell = row.get("cell")
        where = tuple(cell) if isinstance(cell, list) and len(cell) == 2 else None
        source = cells.get(where) if where is not None else None
        if source is None or not _is_check_cell(source, str(exercise)):
            continue
        try:
            calls = row.get("calls")
            if isinstance(calls, list):
                answer: Any = Replay(calls, types)
            else:
                answer = Codec(types).decode(row.get("value"))
        except (ChannelError, RecursionError):
            results[str(exercise)] = "wrong"
            continue
        lang = row.get("lang") if row.get("lang") in ("en", "zh") else None
        results[str(exercise)] = evaluate(str(exercise), answer, lang=lang).status
    return results


class Replay:
    """A function answer as the grader meets it: each call answered as the notebook answered it.

    The worker called the student's function the way the exercise calls it and sent
    each call's arguments and outcome; here the exercise's own judge calls again, and
    a call the notebook never answered raises, so the verdict is the grader's.
    """

    def __init__(self, calls: list[Any], types: dict[str, type]) -> None:
        self._types = types
        self._calls = [call for call in calls if isinstance(call, list) and len(call) == 3]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        asked = Codec(self._types).encode((args, kwargs))
        for index, (recorded, value, error) in enumerate(self._calls):
            if recorded != asked:
                continue
            del self._calls[index]
            if isinstance(error, dict):
                name = str(error.get("type", "Exception"))
                raise RuleError(f"{name}: {str(error.get('message', ''))[:300]}")
            return Codec(self._types).decode(value)
        raise RuleError("the notebook's function was never called with these arguments")


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
