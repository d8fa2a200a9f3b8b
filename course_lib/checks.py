"""Run one lab's checks (the chapter's 15) and report them as rows a student can read.

The checks are the very pytest functions CI runs, executed in a fresh
interpreter so a student's edited practice package is always re-imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .errors import CourseError

__all__ = [
    "LAB_CHECK_COUNTS",
    "LAB_TOPICS",
    "CheckOutcome",
    "LabReport",
    "lab_test_file",
    "run_lab_checks",
    "tests_directory",
]

LAB_TOPICS: dict[str, str] = {
    "11.1": "compaction entry",
    "11.2": "interaction groups",
    "11.3": "budget projection",
    "11.4": "create compaction",
    "11.5": "resume compaction",
}
"""Each lab of Chapter 11 and the part of the chapter it builds."""

LAB_CHECK_COUNTS: dict[str, int] = {"11.1": 3, "11.2": 3, "11.3": 3, "11.4": 2, "11.5": 4}
"""How many checks the course gives each lab (15 in all)."""

Outcome = Literal["passed", "failed"]


@dataclass(frozen=True)
class CheckOutcome:
    """One check: its test name, whether it passed, and a short reason when it did not."""

    lab: str
    name: str
    outcome: Outcome
    detail: str = ""


@dataclass(frozen=True)
class LabReport:
    """Every check of one lab, in file order."""

    lab: str
    outcomes: list[CheckOutcome]

    @property
    def passed(self) -> int:
        return sum(outcome.outcome == "passed" for outcome in self.outcomes)

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def ok(self) -> bool:
        return self.total > 0 and self.passed == self.total

    def summary_line(self) -> str:
        """The line the course prints last, e.g. ``Lab 11.3: 2/3 passed``."""
        return f"Lab {self.lab}: {self.passed}/{self.total} passed"


def tests_directory() -> Path:
    """The workbook's ``tests/`` folder, next to the installed ``course_lib``."""
    directory = Path(__file__).resolve().parent.parent / "tests"
    if not (directory / "conftest.py").is_file():
        raise CourseError(
            "the lab checks were not found next to course_lib; "
            "run from a clone of the workbook installed with `make lab` or `make test`"
        )
    return directory


def lab_test_file(lab: str) -> Path:
    """The file holding ``lab``'s checks, e.g. ``tests/test_lab_11_3.py``."""
    if lab not in LAB_TOPICS:
        known = ", ".join(LAB_TOPICS)
        raise CourseError(f"unknown lab {lab!r}; choose one of {known} (or 11 for all)")
    return tests_directory() / f"test_lab_{lab.replace('.', '_')}.py"


_PLUGIN = "course_lib._check_plugin"


def run_lab_checks(
    lab: str, *, impl: Path | None = None, extra_files: list[Path] | None = None
) -> LabReport:
    """Run ``lab``'s checks against ``impl`` (a practice package) or the reference.

    ``extra_files`` adds more test files (the extended suite) to the same run.
    """
    files = [lab_test_file(lab), *(extra_files or [])]
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "results.json"
        command = [
            sys.executable, "-m", "pytest", *map(str, files),
            "-p", _PLUGIN, "-q", "--no-header", "-p", "no:cacheprovider",
        ]  # fmt: skip
        if impl is not None:
            command += ["--impl", str(Path(impl).resolve())]
        environment = {**os.environ, "COURSE_CHECK_RESULTS": str(results)}
        completed = subprocess.run(
            command, capture_output=True, text=True, env=environment, check=False
        )
        if not results.exists():
            last = (completed.stdout + completed.stderr).strip().splitlines()[-1:] or ["no output"]
            raise CourseError(f"the checks for Lab {lab} could not run: {last[0]}")
        rows = json.loads(results.read_text(encoding="utf-8"))
    return LabReport(
        lab=lab,
        outcomes=[CheckOutcome(lab=lab, **row) for row in rows],
    )
