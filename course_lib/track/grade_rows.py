"""A pytest plugin for the grader: each finished check is written at once, one JSON line each.

``plugin`` writes every row when the run ends; a run that dies on the way
(``os._exit``, a segfault, a kill at the time limit) would lose the checks that
had already passed. This one appends each row as it is decided and flushes
it, so the grader's worker can count them whatever happens next. It is
loaded through ``PYTEST_PLUGINS`` and does nothing without ``COURSE_GRADE_ROWS``.
"""

from __future__ import annotations

import json
import os

import pytest

from .plugin import failure_line

__all__ = ["ROWS_VARIABLE"]

ROWS_VARIABLE = "COURSE_GRADE_ROWS"
"""The environment variable naming the file the rows are appended to."""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    target = os.environ.get(ROWS_VARIABLE)
    if not target:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        detail: str = getattr(report, "course_detail", "")
        if not report.passed and not detail:
            lines = report.longreprtext.strip().splitlines()
            detail = failure_line(lines[-1] if lines else "")
        row = {
            "name": report.nodeid.split("::")[-1],
            "outcome": "passed" if report.passed else "failed",
            "detail": "" if report.passed else detail,
        }
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
