"""Run one lab's checks (the chapter's 15) and report them as rows a student can read.

The checks are the very pytest functions CI runs, executed in a fresh
interpreter so a student's edited practice package is always re-imported.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .errors import CourseError

__all__ = [
    "CHECK_TIMEOUT_SECONDS",
    "EXTENDED_TEST_MODULES",
    "LAB_CHECK_COUNTS",
    "LAB_TOPICS",
    "CheckOutcome",
    "ExtendedSelection",
    "LabReport",
    "extended_test_files",
    "lab_test_file",
    "resolve_labs",
    "run_checks",
    "run_extended_checks",
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

EXTENDED_TEST_MODULES: dict[str, tuple[str, ...]] = {
    "11.1": ("test_entries.py", "test_stores.py"),
    "11.2": ("test_groups.py",),
    "11.3": ("test_budget.py",),
    "11.4": ("test_compaction.py",),
    "11.5": ("test_summary.py", "test_ledger.py"),
}
"""The wider suite's modules for each lab's functions (``check --extended``).

Against a practice package only the modules whose tests take the ``impl``
fixture run: the others import ``course_lib`` directly and would test the
reference instead of the student's code, so they are listed as left out.
Against the reference every module that exists runs.
"""

CHECK_TIMEOUT_SECONDS = 300
"""A run that takes longer is stopped (an endless loop in a lab, most likely)."""

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


def resolve_labs(text: str) -> list[str]:
    """``"11.3"`` -> ``["11.3"]``; ``"11"`` -> every lab of the chapter, in order."""
    value = text.strip()
    if value == "11":
        return list(LAB_TOPICS)
    if value in LAB_TOPICS:
        return [value]
    known = ", ".join(LAB_TOPICS)
    raise CourseError(f"unknown lab {text!r}; choose one of {known}, or 11 for the whole chapter")


_PLUGIN = "course_lib._check_plugin"


def _run_pytest(files: Sequence[Path], *, impl: Path | None, what: str) -> list[dict[str, str]]:
    """Run ``files`` in a fresh interpreter and return the plugin's rows, in run order.

    Installed pytest plugins (the notebook runner and the like) are not loaded:
    the tests need none of them, and starting them costs seconds per run.
    """
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "results.json"
        command = [sys.executable, "-m", "pytest", *map(str, files), "-p", _PLUGIN]
        command += ["-q", "--no-header", "-p", "no:cacheprovider"]
        if impl is not None:
            command += ["--impl", str(Path(impl).resolve())]
        environment = {
            **os.environ,
            "COURSE_CHECK_RESULTS": str(results),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }
        try:
            completed = subprocess.run(
                command,
                capture_output=True,
                text=True,
                env=environment,
                check=False,
                timeout=CHECK_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            raise CourseError(
                f"the checks for {what} did not finish within {CHECK_TIMEOUT_SECONDS} s; "
                "look for an endless loop in your code"
            ) from None
        if not results.exists():
            last = (completed.stdout + completed.stderr).strip().splitlines()[-1:] or ["no output"]
            raise CourseError(f"the checks for {what} could not run: {last[0]}")
        return json.loads(results.read_text(encoding="utf-8"))


def run_lab_checks(
    lab: str, *, impl: Path | None = None, extra_files: list[Path] | None = None
) -> LabReport:
    """Run ``lab``'s checks against ``impl`` (a practice package) or the reference.

    ``extra_files`` adds more test files (the extended suite) to the same run.
    """
    files = [lab_test_file(lab), *(extra_files or [])]
    rows = _run_pytest(files, impl=impl, what=f"Lab {lab}")
    return LabReport(
        lab=lab,
        outcomes=[CheckOutcome(lab=lab, **row) for row in rows],
    )


def _test_names(path: Path) -> set[str]:
    """The test functions a file defines (module level and in ``Test`` classes)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            names.add(node.name)
    return names


def run_checks(labs: Sequence[str], *, impl: Path | None = None) -> list[LabReport]:
    """Run several labs' checks in one interpreter and report them lab by lab.

    One run instead of one per lab keeps ``check 11`` quick; each row is put
    back under its lab by the test function's name.
    """
    files = [lab_test_file(lab) for lab in labs]
    owner = {name: lab for lab, file in zip(labs, files, strict=True) for name in _test_names(file)}
    what = f"Lab {labs[0]}" if len(labs) == 1 else "Chapter 11"
    rows = _run_pytest(files, impl=impl, what=what)
    outcomes: dict[str, list[CheckOutcome]] = {lab: [] for lab in labs}
    for row in rows:
        lab = owner.get(row["name"].split("[")[0], labs[0])
        outcomes[lab].append(CheckOutcome(lab=lab, **row))
    return [LabReport(lab=lab, outcomes=outcomes[lab]) for lab in labs]


_TAKES_IMPL = re.compile(r"def test\w*\([^)]*\bimpl\b")


@dataclass(frozen=True)
class ExtendedSelection:
    """The wider suite for one lab: what runs, and what was left out and why."""

    files: list[Path] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    not_written: list[str] = field(default_factory=list)


def extended_test_files(lab: str, *, for_practice: bool) -> ExtendedSelection:
    """The existing modules of ``EXTENDED_TEST_MODULES[lab]`` that can test the target.

    For a practice package a module counts only when its tests take ``impl``.
    """
    lab_test_file(lab)  # validates ``lab``
    selection = ExtendedSelection()
    for name in EXTENDED_TEST_MODULES.get(lab, ()):
        path = tests_directory() / name
        if not path.is_file():
            selection.not_written.append(f"tests/{name}")
            continue
        if for_practice and not _TAKES_IMPL.search(path.read_text(encoding="utf-8")):
            selection.left_out.append(
                f"tests/{name} (tests course_lib directly, not the impl fixture)"
            )
            continue
        selection.files.append(path)
    return selection


def run_extended_checks(lab: str, files: Sequence[Path], *, impl: Path | None = None) -> LabReport:
    """Run the wider suite's ``files`` for ``lab``; the report lists every test."""
    if not files:
        return LabReport(lab=lab, outcomes=[])
    rows = _run_pytest(files, impl=impl, what=f"the extended suite of Lab {lab}")
    return LabReport(lab=lab, outcomes=[CheckOutcome(lab=lab, **row) for row in rows])
