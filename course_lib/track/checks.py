"""Run one lab's checks (the chapter's 15) and report them as rows a student can read.

The checks are the very pytest functions CI runs, executed in a fresh
interpreter so a student's edited practice package is always re-imported.

``check --extended`` adds the wider suite for a lab's functions
(``EXTENDED_TEST_MODULES``). Those modules import ``course_lib`` as any user
would; with ``--impl DIR``, ``tests/conftest.py`` points the chapter's names
at the practice package before they are imported, so they test the
student's code. A wider test that stops in a *later* lab's unwritten region
(``LabNotImplemented`` for that lab) cannot judge this lab yet: it is
reported as waiting for that lab, not as a failure.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..base.errors import CourseError
from .catalogue import CHAPTER_LABS, LAB_TOPICS
from .language import DEFAULT_LANGUAGE, Lang, hint_in_language, tr_shown

__all__ = [
    "CHECK_TIMEOUT_SECONDS",
    "EXTENDED_KEYWORDS",
    "EXTENDED_TEST_MODULES",
    "INTERRUPT_GRACE_SECONDS",
    "JSON_SCHEMA",
    "CheckOutcome",
    "ExtendedSelection",
    "LabReport",
    "check_names",
    "extended_test_files",
    "judge_checks",
    "lab_test_file",
    "reports_as_json",
    "resolve_labs",
    "run_checks",
    "run_checks_in_process",
    "run_extended_checks",
    "run_lab_checks",
    "short_message",
    "tests_directory",
    "workbook_path",
]


EXTENDED_TEST_MODULES: dict[str, tuple[str, ...]] = {
    "11.1": ("chapter/test_entries.py", "chapter/test_stores.py"),
    "11.2": ("chapter/test_fixture_numbers.py", "chapter/test_bad_inputs.py"),
    "11.3": ("chapter/test_fixture_numbers.py", "chapter/test_properties.py"),
    "11.4": ("chapter/test_bad_inputs.py",),
    "11.5": ("chapter/test_summary.py",),
    "transfer": ("chapter/test_ledger.py",),
}
"""The wider suite's modules for each lab's functions (``check --extended``).

Paths are relative to ``tests_directory()``: the chapter layer's tests live
in ``tests/chapter/``, next to the layer they test.

* 11.1 (compaction entry): the wire boundary every entry crosses, and the two
  stores, which validate with the same parser.
* 11.2 (interaction groups): no module of its own; the groups of the fixture
  table and the grouping errors of section 7, picked by ``EXTENDED_KEYWORDS``.
* 11.3 (budget projection): every number of the fixture, and the selection
  rules over generated paths.
* 11.4 (create compaction): bad input at the boundary, above all the
  compaction errors.
* 11.5 (resume compaction): the rendered summary.
* transfer (budget ledger): the ledger over generated paths and budgets,
  which must agree with ``build_context``, also after a compaction.

``chapter/test_messages.py`` tests the Chapter 3 carry-over, which no lab writes.
"""

EXTENDED_KEYWORDS: dict[str, str] = {
    "11.2": "groups_are or two_cuts or unknown_call or r_test_moved or InteractionError",
}
"""A ``pytest -k`` selection within a lab's modules, when only some of their tests are its."""

CHECK_TIMEOUT_SECONDS = 300
"""A run that takes longer is stopped (an endless loop in a lab, most likely)."""

INTERRUPT_GRACE_SECONDS = 5
"""After a timeout, how long pytest may take to write the results it already has."""

Outcome = Literal["passed", "failed", "waiting"]


@dataclass(frozen=True)
class CheckOutcome:
    """One check: its test name, whether it passed, and a short reason when it did not.

    ``waiting`` (extended suite only): the test reached a later lab's
    unwritten region, so it cannot judge this lab yet; ``detail`` names that lab.
    ``duration`` is the test's time in seconds (setup, call and teardown); it
    differs from run to run, so it takes no part in comparing two outcomes.
    """

    lab: str
    name: str
    outcome: Outcome
    detail: str = ""
    duration: float = field(default=0.0, compare=False)
    limits: tuple[str, ...] = ()
    """The limits the judged rules reached during the check (``file``, ``memory`` …),
    told by the errors' kinds, never by their text."""


@dataclass(frozen=True)
class LabReport:
    """Every check of one lab, in file order."""

    lab: str
    outcomes: list[CheckOutcome]
    timed_out: bool = False
    """The run was stopped at its time limit; checks it did not finish count as failed."""

    @property
    def passed(self) -> int:
        return sum(outcome.outcome == "passed" for outcome in self.outcomes)

    @property
    def waiting(self) -> int:
        """Tests that wait for a later lab (extended suite only); not in ``total``."""
        return sum(outcome.outcome == "waiting" for outcome in self.outcomes)

    @property
    def total(self) -> int:
        """The tests that judged this lab: passed or failed."""
        return len(self.outcomes) - self.waiting

    @property
    def ok(self) -> bool:
        return self.total > 0 and self.passed == self.total

    def summary_line(self, lang: Lang = DEFAULT_LANGUAGE) -> str:
        """The line the course prints last, e.g. ``Lab 11.3: 2/3 passed`` (``Lab 11.3：2/3 项通过``)."""
        return tr_shown(
            lang,
            "Lab {lab}: {passed}/{total} passed",
            lab=self.lab,
            passed=self.passed,
            total=self.total,
        )


_QUALIFIED_NAME = re.compile(r"^(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_]\w*: )")


def short_message(detail: str) -> str:
    """A failure's one-line reason, without the private module path of the exception.

    ``course_lib.chapter.labs.LabNotImplemented: ...`` -> ``LabNotImplemented: ...``.
    """
    return _QUALIFIED_NAME.sub("", detail)


JSON_SCHEMA = "course-lab-check/1"
"""The ``schema`` field of ``course-lab check --format json``; bumped on any incompatible change."""


def _check_json(outcome: CheckOutcome, suite: str, lang: str = "en") -> dict[str, Any]:
    row = {
        "lab": outcome.lab,
        "suite": suite,
        "name": outcome.name,
        "outcome": outcome.outcome,
        "message": hint_in_language(short_message(outcome.detail), lang),
        "duration": round(outcome.duration, 3),
    }
    if outcome.limits:  # only when the rules reached one (the grader's notes)
        row["limits"] = list(outcome.limits)
    return row


def reports_as_json(
    lab: str,
    reports: Sequence[LabReport],
    *,
    target: str,
    extended: dict[str, LabReport | None] | None = None,
    lang: str = "en",
) -> dict[str, Any]:
    """One check run as one JSON object (``course-lab check --format json``, the grader).

    ``lab`` is what was asked for (``11.3``, or ``11`` for the chapter);
    ``checks`` lists every check in run order with its outcome, its one-line
    message (empty when it passed) and its duration in seconds. With
    ``extended`` (``--extended``), each lab's wider suite follows its own
    checks with ``suite: "extended"`` and is counted apart, in ``labs``.
    """
    labs: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    ok = all(report.ok for report in reports)
    for report in reports:
        item: dict[str, Any] = {
            "lab": report.lab,
            "topic": LAB_TOPICS[report.lab],
            "passed": report.passed,
            "total": report.total,
        }
        checks.extend(_check_json(outcome, "lab", lang) for outcome in report.outcomes)
        if extended is not None:
            wider = extended.get(report.lab)
            item["extended"] = None
            if wider is not None:
                item["extended"] = {
                    "passed": wider.passed,
                    "total": wider.total,
                    "waiting": wider.waiting,
                }
                checks.extend(_check_json(outcome, "extended", lang) for outcome in wider.outcomes)
                ok = ok and wider.ok
        labs.append(item)
    return {
        "schema": JSON_SCHEMA,
        "lab": lab,
        "target": target,
        "passed": sum(report.passed for report in reports),
        "total": sum(report.total for report in reports),
        "ok": ok,
        "timed_out": any(report.timed_out for report in reports),
        "labs": labs,
        "checks": checks,
    }


def tests_directory() -> Path:
    """The workbook's ``tests/`` folder, next to the installed ``course_lib``."""
    directory = Path(__file__).resolve().parents[2] / "tests"
    if not (directory / "conftest.py").is_file():
        raise CourseError(
            "the lab checks were not found next to course_lib; "
            "run from a clone of the workbook installed with `make lab` or `make test`"
        )
    return directory


def lab_test_file(lab: str) -> Path:
    """The file holding ``lab``'s checks: ``tests/labs/test_lab_11_3.py``.

    The transfer exercise's are ``tests/labs/test_transfer.py``; the helpers the
    checks import (``lab_checks``) stay in ``tests/`` itself.
    """
    if lab not in LAB_TOPICS:
        known = ", ".join(LAB_TOPICS)
        raise CourseError(f"unknown lab {lab!r}; choose one of {known} (or 11 for all)")
    name = f"test_lab_{lab.replace('.', '_')}.py" if lab in CHAPTER_LABS else f"test_{lab}.py"
    return tests_directory() / "labs" / name


def workbook_path(path: Path) -> str:
    """A test file as a student reads it: ``tests/chapter/test_entries.py``.

    A file outside ``tests_directory()`` is named by its file name alone.
    """
    try:
        return "tests/" + path.relative_to(tests_directory()).as_posix()
    except ValueError:
        return path.name


def resolve_labs(text: str) -> list[str]:
    """``"11.3"`` -> ``["11.3"]``; ``"11"`` -> the chapter's five labs; ``"transfer"`` -> itself.

    ``11`` means the chapter's 15 checks only: the transfer exercise is
    checked on its own (``check transfer``), so it never changes ``15/15``.
    """
    value = text.strip()
    if value == "11":
        return list(CHAPTER_LABS)
    if value in LAB_TOPICS:
        return [value]
    known = ", ".join(LAB_TOPICS)
    raise CourseError(f"unknown lab {text!r}; choose one of {known}, or 11 for the whole chapter")


_PLUGIN = "course_lib.track.plugin"


@dataclass(frozen=True)
class _Run:
    """What one pytest run reported: its rows in run order, and whether it was stopped."""

    rows: list[dict[str, Any]]
    timed_out: bool = False


def _run_pytest(
    files: Sequence[Path],
    *,
    impl: Path | None,
    what: str,
    options: Sequence[str] = (),
    timeout: float | None = None,
) -> _Run:
    """Run ``files`` in a fresh interpreter and return the plugin's rows, in run order.

    Installed pytest plugins (the notebook runner and the like) are not loaded:
    the tests need none of them, and starting them costs seconds per run. A run
    pytest could not complete (a test module that fails to import, a bad
    option) is an error, never a short list of rows that all passed.

    Without ``timeout`` a run over ``CHECK_TIMEOUT_SECONDS`` is an error. With
    it (the grader), pytest is interrupted at the limit like Ctrl-C would, so
    the rows of the tests that finished are kept and the run is marked
    ``timed_out``. Captured output is never printed (``--show-capture=no``):
    a test that prints megabytes cannot fill this process's memory.
    """
    limit = CHECK_TIMEOUT_SECONDS if timeout is None else timeout
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "results.json"
        junit = Path(scratch) / "junit.xml"
        command = [sys.executable, "-m", "pytest", *map(str, files), "-p", _PLUGIN]
        command += ["-q", "--no-header", "-p", "no:cacheprovider", "--show-capture=no"]
        command += [f"--junit-xml={junit}", *options]
        if impl is not None:
            command += ["--impl", str(Path(impl).resolve())]
        environment = {
            **os.environ,
            "COURSE_CHECK_RESULTS": str(results),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            errors="backslashreplace",  # a folder name's stray bytes are shown, not fatal
            env=environment,
        )
        timed_out = False
        try:
            stdout, stderr = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            stdout, stderr = _interrupt(process)
        except BaseException:  # Ctrl-C: never leave the run behind
            process.kill()
            raise
        completed = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
        if timed_out and (timeout is None or not results.exists()):
            raise CourseError(
                f"the checks for {what} did not finish within {limit:g} s; "
                "look for an endless loop in your code"
            )
        if not timed_out and (not results.exists() or completed.returncode in _DID_NOT_RUN):
            raise CourseError(f"the checks for {what} could not run: {_why(completed)}")
        rows = json.loads(results.read_text(encoding="utf-8"))
        return _Run(rows=_with_durations(rows, junit), timed_out=timed_out)


def _interrupt(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Stop a pytest run that is over its limit, giving it a moment to write its results.

    SIGINT makes pytest end the session as Ctrl-C does (the rows of the
    finished tests are written); a run that ignores it is killed.
    """
    if os.name == "posix":
        process.send_signal(signal.SIGINT)
        try:
            return process.communicate(timeout=INTERRUPT_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            pass
    process.kill()
    return process.communicate()


def _with_durations(rows: list[dict[str, Any]], junit: Path) -> list[dict[str, Any]]:
    """Add each test's time from pytest's JUnit XML report (0.0 when it has none)."""
    times: dict[str, list[float]] = {}
    if junit.is_file():
        try:
            for case in ElementTree.parse(junit).getroot().iter("testcase"):
                if case.get("name"):
                    times.setdefault(case.get("name", ""), []).append(float(case.get("time", 0)))
        except (ElementTree.ParseError, ValueError):
            times = {}
    return [{**row, "duration": (times.get(row["name"]) or [0.0]).pop(0)} for row in rows]


_DID_NOT_RUN = (2, 3, 4)  # pytest's exit codes: interrupted, internal error, usage error


def _why(completed: subprocess.CompletedProcess[str]) -> str:
    """The first error line pytest printed (``E   ...``), else its last line."""
    if completed.returncode < 0:
        try:
            name = signal.Signals(-completed.returncode).name
        except ValueError:
            name = f"signal {-completed.returncode}"
        return f"pytest was stopped by {name} before it wrote its results"
    lines = (completed.stdout + completed.stderr).strip().splitlines()
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    found = (errors or lines[-1:])[:1]
    if not found:
        return f"pytest ended with exit status {completed.returncode} and wrote no results"
    return found[0] if len(found[0]) <= 300 else found[0][:297] + "..."


def run_lab_checks(
    lab: str, *, impl: Path | None = None, extra_files: list[Path] | None = None
) -> LabReport:
    """Run ``lab``'s checks against ``impl`` (a practice package) or the reference.

    ``extra_files`` adds more test files (the extended suite) to the same run.
    """
    files = [lab_test_file(lab), *(extra_files or [])]
    wider = ["--switch-course-lib"] if extra_files and impl is not None else []
    run = _run_pytest(files, impl=impl, what=f"Lab {lab}", options=wider)
    return LabReport(
        lab=lab,
        outcomes=[CheckOutcome(lab=lab, **row) for row in run.rows],
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


def check_names(lab: str) -> list[str]:
    """The names of ``lab``'s checks in file order, read from its test file."""
    tree = ast.parse(lab_test_file(lab).read_text(encoding="utf-8"))
    nodes = [
        child
        for node in tree.body
        for child in (node.body if isinstance(node, ast.ClassDef) else [node])
    ]
    return [
        node.name
        for node in nodes
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    ]


def _add_unfinished(outcomes: dict[str, list[CheckOutcome]]) -> None:
    """Add every check a stopped run never reported, failed with a message saying why.

    Tests run in file order, lab after lab, so the first check missing is the
    one that was running when the run was stopped.
    """
    running = True
    for lab, reported in outcomes.items():
        seen = {outcome.name.split("[")[0] for outcome in reported}
        for name in check_names(lab):
            if name in seen:
                continue
            detail = (
                "Timeout: did not finish within the time limit; look for an endless loop"
                if running
                else "Timeout: not run, the checks were stopped at the time limit"
            )
            running = False
            reported.append(CheckOutcome(lab=lab, name=name, outcome="failed", detail=detail))


def run_checks(
    labs: Sequence[str], *, impl: Path | None = None, timeout: float | None = None
) -> list[LabReport]:
    """Run several labs' checks in one interpreter and report them lab by lab.

    One run instead of one per lab keeps ``check 11`` quick; each row is put
    back under its lab by the test function's name.

    ``timeout`` (the grader's mode): stop the run after that many seconds and
    keep what finished; every check it did not finish is failed with a
    ``Timeout:`` message, so each lab still reports all of its checks.
    Without it, a run over ``CHECK_TIMEOUT_SECONDS`` is a ``CourseError``.
    """
    files = [lab_test_file(lab) for lab in labs]
    owner = {name: lab for lab, file in zip(labs, files, strict=True) for name in _test_names(file)}
    what = f"Lab {labs[0]}" if len(labs) == 1 else "Chapter 11"
    run = _run_pytest(files, impl=impl, what=what, timeout=timeout)
    outcomes: dict[str, list[CheckOutcome]] = {lab: [] for lab in labs}
    for row in run.rows:
        lab = owner.get(row["name"].split("[")[0], labs[0])
        outcomes[lab].append(CheckOutcome(lab=lab, **row))
    if run.timed_out and timeout is not None:
        _add_unfinished(outcomes)
    return [LabReport(lab=lab, outcomes=outcomes[lab], timed_out=run.timed_out) for lab in labs]


_loaded_checks: dict[str, Any] = {}
"""Each lab's test module, imported once by ``run_checks_in_process``."""


def _lab_check_functions(lab: str) -> list[tuple[str, Callable[..., object]]]:
    """``lab``'s check functions in file order, from its test module imported in this process."""
    path = lab_test_file(lab)
    module = _loaded_checks.get(lab)
    if module is None:
        folder = str(tests_directory())
        if folder not in sys.path:  # the checks import their helpers (lab_checks) from there
            sys.path.insert(0, folder)
        spec = importlib.util.spec_from_file_location(f"course_lab_checks_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise CourseError(f"{path.name}: cannot be imported")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded_checks[lab] = module
    return [(name, getattr(module, name)) for name in check_names(lab)]


def run_checks_in_process(labs: Sequence[str], *, impl: Path, scratch: Path) -> list[LabReport]:
    """Judge the practice package in ``impl`` with ``judge_checks``, its rules in a local child.

    This is for testing the checks themselves (the mutation tests build many
    slightly wrong packages): no pytest run is started, so a package costs
    its rules' process and nothing more.
    """
    from ..judge.remote import RemotePackage, local_launcher
    from .starters import chapter_exports

    rules = [name for names in chapter_exports().values() for name in names]
    with RemotePackage(local_launcher(impl.resolve(), rules), rules) as package:
        return judge_checks(labs, package, scratch)


def judge_checks(labs: Sequence[str], impl: object, scratch: Path) -> list[LabReport]:
    """Run ``labs``' checks in this interpreter against ``impl``, a judged package.

    Each check is called with the fixtures the checks use, ``impl`` and
    ``tmp_path`` (a new folder under ``scratch``), and a failure is recorded
    with exactly the line a pytest run records (``plugin.failure_detail``),
    so the messages are the ones ``course-lab check`` prints. ``impl`` is a
    ``judge.remote.RemotePackage``: the rules answer from their own process,
    so nothing they do can reach a check. A rule that ran past the time limit
    (``Timeout``) fails its check, and every later check fails at once.
    """
    import pytest

    from ..judge.remote import Timeout
    from .plugin import failure_detail

    reports: list[LabReport] = []
    stopped = False
    for lab in labs:
        outcomes: list[CheckOutcome] = []
        for name, check in _lab_check_functions(lab):
            fixtures: dict[str, object] = {}
            for parameter in inspect.signature(check).parameters:
                if parameter == "impl":
                    fixtures[parameter] = impl
                elif parameter == "tmp_path":
                    fixtures[parameter] = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=scratch))
                else:
                    raise CourseError(f"{name} needs the fixture {parameter!r}; run it with pytest")
            start = time.perf_counter()
            before = dict(getattr(impl, "limit_hits", {}))
            outcome: Outcome = "passed"
            detail = ""
            try:
                check(**fixtures)
            except Timeout as error:
                stopped = True
                outcome, detail = "failed", failure_detail(error)
            except (Exception, pytest.fail.Exception) as error:
                outcome, detail = "failed", failure_detail(error)
            duration = time.perf_counter() - start
            after = getattr(impl, "limit_hits", {})
            limits = tuple(sorted(k for k, n in after.items() if n > before.get(k, 0)))
            outcomes.append(CheckOutcome(lab, name, outcome, detail, duration, limits))
        reports.append(LabReport(lab=lab, outcomes=outcomes, timed_out=stopped))
    return reports


@dataclass(frozen=True)
class ExtendedSelection:
    """The wider suite for one lab: what runs, and what was left out and why."""

    files: list[Path] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    not_written: list[str] = field(default_factory=list)
    keyword: str | None = None


def _imported_course_lib_names(path: Path) -> set[str]:
    """What ``path`` takes from ``course_lib``: ``course_lib.X`` names and submodules."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "course_lib":
                names.update(f"course_lib.{alias.name}" for alias in node.names)
            elif node.module.startswith("course_lib."):
                names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("course_lib."))
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "course_lib"
        ):
            names.add(f"course_lib.{node.attr}")
    return names


def _not_in_practice_package(path: Path) -> list[str]:
    """The ``course_lib`` names ``path`` uses that would not test a practice package's rules.

    The base layer, the errors, the chapter's given modules (types, fixture,
    stores) and the chapter's rule modules are either shared or switched to the
    practice package (see ``tests/conftest.py``); anything else (an importer, a
    view) would still run the reference's rules under ``--impl``.
    """
    from .starters import GIVEN_CHAPTER_MODULES, practice_modules, reference_source

    modules = {*practice_modules(), *GIVEN_CHAPTER_MODULES}
    top_level = {"base", "chapter", "errors"}  # and the names course_lib takes from those
    init = ast.parse(reference_source("../__init__"))
    for node in init.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            ("base.", "chapter.")
        ):
            top_level.update(alias.name for alias in node.names)
    outside: list[str] = []
    for name in sorted(_imported_course_lib_names(path)):
        parts = name.split(".")
        if len(parts) == 2:
            provided = parts[1] in top_level
        elif parts[1] in ("base", "errors"):
            provided = True
        else:
            provided = parts[1] == "chapter" and parts[2] in modules
        if not provided:
            outside.append(name)
    return outside


def extended_test_files(lab: str, *, for_practice: bool) -> ExtendedSelection:
    """The existing modules of ``EXTENDED_TEST_MODULES[lab]`` that can test the target.

    For a practice package a module counts only when every ``course_lib`` name
    it uses is one the practice package provides, so that it really tests the
    student's code.
    """
    lab_test_file(lab)  # validates ``lab``
    selection = ExtendedSelection(keyword=EXTENDED_KEYWORDS.get(lab))
    for name in EXTENDED_TEST_MODULES.get(lab, ()):
        path = tests_directory() / name
        if not path.is_file():
            selection.not_written.append(f"tests/{name}")
            continue
        outside = _not_in_practice_package(path) if for_practice else []
        if outside:
            selection.left_out.append(
                f"tests/{name} (uses {', '.join(outside)}, which the practice package lacks)"
            )
            continue
        selection.files.append(path)
    return selection


_NOT_IMPLEMENTED = re.compile(  # either language's message (starters.not_implemented_message)
    r"\bLabNotImplemented: Lab (?P<lab>\d+\.\d+|transfer) .*(?: is not implemented yet| 尚未实现)"
)


def _waits_for(lab: str, detail: str) -> str | None:
    """The later lab a failure stopped in (``LabNotImplemented``), or ``None``."""
    found = _NOT_IMPLEMENTED.search(detail)
    if found is None or found["lab"] not in LAB_TOPICS:
        return None
    order = list(LAB_TOPICS)
    return found["lab"] if order.index(found["lab"]) > order.index(lab) else None


def run_extended_checks(
    lab: str, files: Sequence[Path], *, impl: Path | None = None, keyword: str | None = None
) -> LabReport:
    """Run the wider suite's ``files`` for ``lab`` (``keyword``: a ``-k`` selection).

    The report lists every test; one that stopped in a later lab's unwritten
    region is ``waiting`` for that lab rather than failed.
    """
    if not files:
        return LabReport(lab=lab, outcomes=[])
    options = ["-k", keyword] if keyword else []
    options += ["--switch-course-lib"] if impl is not None else []  # it imports course_lib's rules
    run = _run_pytest(files, impl=impl, what=f"the extended suite of Lab {lab}", options=options)
    outcomes: list[CheckOutcome] = []
    for row in run.rows:
        later = _waits_for(lab, row["detail"]) if row["outcome"] == "failed" else None
        if later is not None:
            row = {**row, "outcome": "waiting", "detail": f"Lab {later} {LAB_TOPICS[later]}"}
        outcomes.append(CheckOutcome(lab=lab, **row))
    return LabReport(lab=lab, outcomes=outcomes)
