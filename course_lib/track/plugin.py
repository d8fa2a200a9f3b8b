"""A tiny pytest plugin: record each test's outcome for ``run_lab_checks`` as JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

_rows: list[dict[str, Any]] = []


def _short(report: pytest.TestReport) -> str:
    """The exception line (or the assertion) of a failure, kept to one short line."""
    text = getattr(report, "course_detail", "") or report.longreprtext.strip().splitlines()[-1]
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157] + "..."


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if call.excinfo is not None:
        report.course_detail = call.excinfo.exconly().splitlines()[0]
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
