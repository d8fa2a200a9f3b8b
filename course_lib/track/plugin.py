"""A tiny pytest plugin: record each test's outcome for ``run_lab_checks`` as JSON.

A failure is recorded as one line, the one a student reads after the check's
name in ``course-lab check``: the first line of the exception, whole (never
cut), so a lab check's ``<case>: expected ..., got ...; hint: ...`` comes first.
The exception is named by its class alone: a practice package is imported
under a private module name a student should never see.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

__all__ = ["failure_detail", "failure_line"]

_FAILED = "Failed: "

_rows: list[dict[str, Any]] = []


def failure_line(text: str) -> str:
    """The first line of an exception's text, its white space collapsed; never cut.

    ``pytest.fail``'s ``Failed: `` prefix is dropped: a lab check's message
    starts with its case, and that is what the student should see first.
    """
    lines = text.strip().splitlines()
    return " ".join((lines[0] if lines else "").split()).removeprefix(_FAILED)


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside ``error`` (hypothesis groups several failures into one)."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def failure_detail(error: BaseException) -> str:
    """What a run records for a test that raised ``error`` (used in process by the track too).

    A group of failures is told by its first real failure; a group of
    unwritten labs only (``LabNotImplemented``, a ``NotImplementedError``) by
    the first of those, so the track can say the test waits for that lab.
    """
    leaves = _leaves(error)
    real = [leaf for leaf in leaves if not isinstance(leaf, NotImplementedError)]
    chosen = real[0] if real else leaves[0]
    message = str(chosen)
    text = f"{type(chosen).__name__}: {message}" if message else type(chosen).__name__
    return failure_line(text)


def _short(report: pytest.TestReport) -> str:
    """The exception line (or the assertion) of a failure, kept to one line."""
    detail: str = getattr(report, "course_detail", "")
    lines = report.longreprtext.strip().splitlines()
    return detail or failure_line(lines[-1] if lines else "")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if call.excinfo is not None:
        report.course_detail = failure_detail(call.excinfo.value)
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" or (report.when == "setup" and not report.passed):
        name = report.nodeid.split("::")[-1]
        outcome = "passed" if report.passed else "failed"
        _rows.append(
            {"name": name, "outcome": outcome, "detail": "" if report.passed else _short(report)}
        )


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get("COURSE_CHECK_RESULTS")
    if target:
        Path(target).write_text(json.dumps(_rows), encoding="utf-8")
