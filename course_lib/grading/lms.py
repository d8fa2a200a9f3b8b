"""From a gradebook to a learning management system: student ids, points per check, exports.

An LMS knows students by an id, not by the folder a submission came in,
and weighs work in points, not in checks passed. The instructor can give

* a roster CSV (``course-lab grade --students FILE``) with the columns
  ``folder`` and ``student_id`` (``name`` and ``email`` too, when known): the
  folder or zip name in the roster, and the id the LMS uses. Without one, a
  student's id is their folder's name;
* a weights file (``--weights FILE``): points per check, as JSON
  (``{"test_name": 2, "hidden 11.3": 3}``) or as a CSV with the columns
  ``check`` and ``points``. A check not listed is worth 1 point; the hidden
  cases of a lab (``hidden 11.3``) are worth nothing unless listed, and
  earn their points in proportion to the cases that agree.

The exports are plain CSV a gradebook import accepts: Canvas's columns
(``Student, ID, SIS User ID, SIS Login ID, Section``, then the assignment,
with a ``Points Possible`` row; the id goes to ``SIS User ID``) and
Gradescope's (``Name, SID, Email, Total Score``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.errors import CourseError
from ..base.text_rules import spreadsheet_safe

if TYPE_CHECKING:
    from .grader import Grade

__all__ = [
    "DEFAULT_ASSIGNMENT",
    "StudentRecord",
    "Weights",
    "canvas_csv",
    "gradescope_csv",
    "points",
    "possible_points",
    "read_students",
    "read_weights",
    "student_ids",
]

DEFAULT_ASSIGNMENT = "Chapter 11 labs"
"""The assignment's column name in the LMS exports (``--assignment``)."""


@dataclass(frozen=True)
class StudentRecord:
    """One row of the instructor's roster: which folder is whose."""

    folder: str
    student_id: str
    name: str = ""
    email: str = ""


def _header(row: Sequence[str]) -> list[str]:
    return [cell.strip().casefold() for cell in row]


def read_students(path: Path) -> dict[str, StudentRecord]:
    """The roster CSV as ``folder -> record``; a missing column or a repeated folder or id is an
    error naming the file and the line."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a spreadsheet's byte order mark is fine
    except (OSError, UnicodeDecodeError) as error:
        raise CourseError(f"--students {path}: cannot be read ({error})") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise CourseError(f"--students {path}: empty; expected the columns folder,student_id")
    header = _header(rows[0])
    missing = [name for name in ("folder", "student_id") if name not in header]
    if missing:
        raise CourseError(
            f"--students {path}: line 1 lacks the column(s) {', '.join(missing)}; "
            "expected a header such as folder,student_id,name,email"
        )
    records: dict[str, StudentRecord] = {}
    ids: dict[str, int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        values = dict(zip(header, (cell.strip() for cell in row), strict=False))
        folder, student_id = values.get("folder", ""), values.get("student_id", "")
        if not folder or not student_id:
            raise CourseError(
                f"--students {path}: line {number}: folder and student_id are both needed"
            )
        if folder in records:
            raise CourseError(
                f"--students {path}: line {number}: folder {folder!r} is listed twice"
            )
        if student_id in ids:
            raise CourseError(
                f"--students {path}: line {number}: student_id {student_id!r} is already "
                f"given on line {ids[student_id]}"
            )
        ids[student_id] = number
        records[folder] = StudentRecord(
            folder, student_id, values.get("name", ""), values.get("email", "")
        )
    return records


def student_ids(
    grades: Iterable[Grade], students: Mapping[str, StudentRecord] | None
) -> dict[str, str]:
    """Each graded student's id: from the roster when one is given (empty when it lacks them),
    else the folder's name."""
    if students is None:
        return {grade.student: grade.student for grade in grades}
    return {
        grade.student: students[grade.student].student_id if grade.student in students else ""
        for grade in grades
    }


# --- weights ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Weights:
    """Points per check (1 unless listed) and per lab's hidden cases (0 unless listed)."""

    checks: dict[str, float] = field(default_factory=dict)
    hidden: dict[str, float] = field(default_factory=dict)

    def of_check(self, name: str) -> float:
        return self.checks.get(name, 1.0)

    def of_hidden(self, lab: str) -> float:
        return self.hidden.get(lab, 0.0)

    @property
    def plain(self) -> bool:
        """Every check worth 1 and no hidden points: points are checks passed."""
        return all(v == 1 for v in self.checks.values()) and not any(self.hidden.values())


def _weight_rows(path: Path) -> list[tuple[str, object, str]]:
    """``(name, points, where)`` from a JSON object or a ``check,points`` CSV."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise CourseError(f"--weights {path}: cannot be read ({error})") from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError as error:
            raise CourseError(f"--weights {path}: not JSON ({error})") from None
        if not isinstance(data, dict):
            raise CourseError(f'--weights {path}: expected an object such as {{"test_name": 2}}')
        return [(str(key), value, f"key {key!r}") for key, value in data.items()]
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or _header(rows[0])[:2] != ["check", "points"]:
        raise CourseError(f"--weights {path}: line 1 must be the header check,points")
    return [
        (row[0].strip(), row[1].strip() if len(row) > 1 else "", f"line {number}")
        for number, row in enumerate(rows[1:], start=2)
        if any(cell.strip() for cell in row)
    ]


def read_weights(path: Path, checks: Sequence[str], labs: Sequence[str]) -> Weights:
    """Read ``path``; every name must be one of ``checks`` or ``hidden LAB`` for one of ``labs``,
    and every value a finite number of at least 0."""
    by_check: dict[str, float] = {}
    by_hidden: dict[str, float] = {}
    for name, value, where in _weight_rows(path):
        number = math.nan
        if isinstance(value, int | float | str) and not isinstance(value, bool):
            with contextlib.suppress(ValueError):
                number = float(value)
        if not math.isfinite(number) or number < 0:
            raise CourseError(
                f"--weights {path}: {where}: points must be a number >= 0, not {value!r}"
            )
        lab = name.removeprefix("hidden ").strip() if name.startswith("hidden ") else None
        if lab is not None and lab in labs:
            by_hidden[lab] = number
        elif name in checks:
            by_check[name] = number
        else:
            known = ", ".join([*checks, *(f"hidden {lab}" for lab in labs)])
            raise CourseError(f"--weights {path}: {where}: unknown check {name!r}; known: {known}")
    return Weights(checks=by_check, hidden=by_hidden)


def possible_points(grades: Sequence[Grade], weights: Weights, labs: Sequence[str]) -> float:
    """What a student who passed everything earns (every grade lists the same checks)."""
    names = [check.name for check in grades[0].checks] if grades else []
    return round(sum(map(weights.of_check, names)) + sum(map(weights.of_hidden, labs)), 2)


def points(grade: Grade, weights: Weights, labs: Sequence[str]) -> float:
    """What ``grade`` earns: each passed check's points, and each lab's hidden points in
    proportion to its cases that agree with the reference."""
    earned = sum(weights.of_check(c.name) for c in grade.checks if c.outcome == "passed")
    for lab in labs:
        cases = [case for case in grade.hidden if case.lab == lab]
        if cases:
            passed = sum(case.outcome == "passed" for case in cases)
            earned += weights.of_hidden(lab) * passed / len(cases)
    return round(earned, 2)


def _number(value: float) -> str:
    return f"{value:g}" if value == round(value, 2) else f"{value:.2f}"


# --- exports ---------------------------------------------------------------------------------


def _csv(rows: Iterable[Sequence[str]]) -> str:
    buffer = io.StringIO()
    safe = ([spreadsheet_safe(cell) for cell in row] for row in rows)
    csv.writer(buffer, lineterminator="\n").writerows(safe)
    return buffer.getvalue()


def canvas_csv(
    grades: Sequence[Grade],
    ids: Mapping[str, str],
    students: Mapping[str, StudentRecord] | None,
    weights: Weights,
    labs: Sequence[str],
    assignment: str = DEFAULT_ASSIGNMENT,
) -> str:
    """A Canvas gradebook import: one assignment column, a ``Points Possible`` row, one row per
    student with an id (the id in ``SIS User ID``)."""
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment]]
    rows.append(
        ["Points Possible", "", "", "", "", _number(possible_points(grades, weights, labs))]
    )
    for grade in grades:
        if not ids.get(grade.student):
            continue
        record = (students or {}).get(grade.student)
        name = record.name if record is not None and record.name else grade.student
        earned = _number(points(grade, weights, labs))
        rows.append([name, "", ids[grade.student], "", "", earned])
    return _csv(rows)


def gradescope_csv(
    grades: Sequence[Grade],
    ids: Mapping[str, str],
    students: Mapping[str, StudentRecord] | None,
    weights: Weights,
    labs: Sequence[str],
) -> str:
    """A Gradescope score upload: ``Name, SID, Email, Total Score`` per student with an id."""
    rows = [["Name", "SID", "Email", "Total Score"]]
    for grade in grades:
        if not ids.get(grade.student):
            continue
        record = (students or {}).get(grade.student)
        name = record.name if record is not None and record.name else grade.student
        email = record.email if record is not None else ""
        rows.append([name, ids[grade.student], email, _number(points(grade, weights, labs))])
    return _csv(rows)
