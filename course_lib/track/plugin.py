"""A tiny pytest plugin: record each test's outcome for ``run_lab_checks`` as JSON.

A failure is recorded as one line, the one a student reads after the check's
name in ``course-lab check``: the first line of the exception, so a lab
check's ``<case>: expected ..., got ...`` comes first and whole.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

__all__ = ["MESSAGE_LIMIT", "failure_detail", "failure_line"]

MESSAGE_LIMIT = 400
"""The longest failure line kept: a case, an expected and an actual value, and a hint fit."""

_FAILED = "Failed: "

_rows: list[dict[str, Any]] = []


def failure_line(text: str) -> str:
    """The first line of an exception's text, on one line and at most ``MESSAGE_LIMIT`` long.

    ``pytest.fail``'s ``Failed: `` prefix is dropped: a lab check's message
    starts with its case, and that is what the student should see first.
    """
    lines = text.strip().splitlines()
    line = " ".join((lines[0] if lines else "").split()).removeprefix(_FAILED)
    return line if len(line) <= MESSAGE_LIMIT else line[: MESSAGE_LIMIT - 3] + "..."


def failure_detail(error: BaseException) -> str:
    """What a run records for a test that raised ``error`` (used in process by the track too)."""
    return failure_line(pytest.ExceptionInfo.from_exception(error).exconly())


def _short(report: pytest.TestReport) -> str:
    """The exception line (or the assertion) of a failure, kept to one line."""
    detail: str = getattr(report, "course_detail", "")
    lines = report.longreprtext.strip().splitlines()
    return detail or failure_line(lines[-1] if lines else "")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if call.excinfo is not None:
        report.course_detail = failure_line(call.excinfo.exconly())
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
