"""Write Gradescope's ``results.json`` for one submission, from the judge's data alone.

The tests (one per check, per lab's hidden cases, per notebook exercise), the summary the
student reads, and the file written whole and renamed into place.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...base.i18n import Lang, tr
from ...base.text_rules import escape_controls_by_line
from ...track.exercises import NOT_ANSWERED
from ...track.language import hint_in_language
from ..grader import STATUS_MEANING, Grade
from ..hidden_checks import HiddenResult, hidden_case_lines
from .settings import Settings, hidden_labs, rounded_points

RESULTS_FILE = "results.json"
"""What Gradescope reads from ``/autograder/results``."""

Visibility = Literal["hidden", "after_due_date", "after_published", "visible"]
VISIBILITIES: tuple[Visibility, ...] = ("hidden", "after_due_date", "after_published", "visible")
"""The visibility values Gradescope accepts, for the whole result and for each test."""

HIDDEN_VISIBILITY: Visibility = "after_published"
"""The hidden cases' tests: shown once the instructor publishes the grades, as ``grade``
hands its feedback back after grading, never while students can still resubmit."""


@dataclass(frozen=True)
class _Test:
    """One entry of ``tests``: ``passed`` is the judge's verdict, whatever the points."""

    name: str
    passed: bool
    score: float
    max_score: float
    output: str
    visibility: Visibility

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "score": rounded_points(self.score),
            "max_score": rounded_points(self.max_score),
            "status": "passed" if self.passed else "failed",
            "output": escape_controls_by_line(self.output),
            "visibility": self.visibility,
        }


def _check_tests(grade: Grade, settings: Settings, lang: Lang) -> list[_Test]:
    """One test per public check: its points when passed, its message when not."""
    tests: list[_Test] = []
    for check in grade.checks:
        worth = settings.weights.of_check(check.name)
        if check.outcome == "passed":
            output = ""
        elif check.outcome == "failed":
            output = hint_in_language(check.message, lang)
        else:
            output = tr(lang, "Not run: see the status at the top.")
        name = tr(lang, "Lab {lab}: {check}", lab=check.lab, check=check.name)
        passed = check.outcome == "passed"
        tests.append(_Test(name, passed, worth if passed else 0.0, worth, output, "visible"))
    return tests


def _hidden_tests(grade: Grade, settings: Settings, lang: Lang) -> list[_Test]:
    """One test per lab's hidden cases, showing what ``grade``'s feedback shows of them.

    That is the count that agrees and the names of the first two that do not
    (their inputs and expected values only with ``--hidden-feedback``), so a
    reused seed gives no answers away.
    """
    tests: list[_Test] = []
    for lab in hidden_labs(settings):
        worth = settings.weights.of_hidden(lab)
        cases: list[HiddenResult] = [case for case in grade.hidden if case.lab == lab]
        name = tr(lang, "Lab {lab}: hidden cases", lab=lab)
        if not cases:
            output = tr(lang, "Not run: see the status at the top.")
            tests.append(_Test(name, False, 0.0, worth, output, HIDDEN_VISIBILITY))
            continue
        lines = hidden_case_lines(lab, cases, lang, show_inputs=settings.hidden_feedback)
        agree = sum(case.outcome == "passed" for case in cases)
        passed, score = agree == len(cases), worth * agree / len(cases)
        tests.append(_Test(name, passed, score, worth, "\n".join(lines), HIDDEN_VISIBILITY))
    return tests


def _exercise_output(status: str, lang: Lang) -> str:
    if status == "correct":
        return ""
    if status == "wrong":
        return tr(
            lang, "Wrong: check this exercise's answer in the notebook and run its cell again."
        )
    if status == "unanswered":
        return tr(lang, NOT_ANSWERED)
    return tr(lang, "Not reached: no notebook you handed in ran this exercise's check cell.")


def _notebook_tests(exercises: dict[str, str], settings: Settings, lang: Lang) -> list[_Test]:
    """One test per notebook exercise of the chosen labs: 1 point when ``correct``."""
    tests: list[_Test] = []
    for exercise in settings.exercises():
        status = exercises.get(exercise, "")
        name = tr(lang, "Notebook exercise {exercise}", exercise=exercise)
        passed = status == "correct"
        output = _exercise_output(status, lang)
        tests.append(_Test(name, passed, 1.0 if passed else 0.0, 1.0, output, "visible"))
    return tests


def _summary(grade: Grade, settings: Settings, lang: Lang, notebook_status: str) -> str:
    """The whole submission's ``output``: the count, why checks did not run, where to rerun."""
    lines = [
        tr(
            lang,
            "Chapter 11 checks: {passed}/{total} passed",
            passed=grade.passed,
            total=grade.total,
        )
    ]
    if grade.status != "ok":
        meaning = tr(lang, STATUS_MEANING[grade.status])
        lines.append(tr(lang, "Status: {status} ({meaning})", status=grade.status, meaning=meaning))
        if grade.note:
            lines.append(f"  {grade.note}")
    if settings.notebooks and notebook_status not in ("ok", "no notebook"):
        lines.append(tr(lang, "Notebooks: {status}", status=notebook_status))
    if settings.hidden is not None:
        lines.append(
            tr(lang, "The hidden cases are shown once your instructor publishes the grades.")
        )
    lines.append(tr(lang, "Run them yourself: course-lab check 11 --impl <your practice folder>"))
    return "\n".join(lines)


def results_for(
    grade: Grade,
    settings: Settings,
    *,
    exercises: dict[str, str] | None = None,
    notebook_status: str = "",
    seconds: float = 0.0,
    sandbox: str = "",
) -> dict[str, Any]:
    """Gradescope's ``results.json`` for one graded submission, from the judge's data alone.

    The total is the sum of the tests' scores, so what Gradescope adds up and
    what it shows as the score agree; ``extra_data`` keeps what only the
    instructor needs (status, labs identical to the reference, the fence).
    """
    lang = grade.facts.lang
    tests = [
        *_check_tests(grade, settings, lang),
        *_hidden_tests(grade, settings, lang),
        *_notebook_tests(exercises or {}, settings, lang),
    ]
    rows = [test.to_json() for test in tests]
    return {
        "score": rounded_points(sum(row["score"] for row in rows)),
        "execution_time": round(seconds),
        "output": escape_controls_by_line(_summary(grade, settings, lang, notebook_status)),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": rows,
        "extra_data": {
            "status": grade.status,
            "identical_to_reference": list(grade.identical_labs),
            "notebooks": notebook_status,
            "sandbox": sandbox,
            "workbook": settings.version,
        },
    }


def failure_results(why: str) -> dict[str, Any]:
    """The results when the autograder itself could not grade: 0, and a word for the student."""
    output = (
        "The autograder could not grade this submission; nothing of it was scored. "
        "Your instructor sees why in the autograder's log."
    )
    return {
        "score": 0.0,
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [],
        "extra_data": {"status": "autograder error", "error": why},
    }


def write_results(folder: Path, results: dict[str, Any]) -> Path:
    """Write ``results.json`` whole and rename it into place: never a torn or mixed file."""
    text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
    handle, temporary = tempfile.mkstemp(prefix=".results-", suffix=".json", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as writer:
            writer.write(text)
            writer.flush()
            os.fsync(writer.fileno())
        os.chmod(temporary, 0o644)
        target = folder / RESULTS_FILE
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return target
