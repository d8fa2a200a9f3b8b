"""Grade a class: check every submission in its own limited subprocess, so none can break the run.

A roster is a folder with one entry per student: a practice folder (what
``course-lab practice 11`` wrote) or a ``.zip`` of one. Each submission is
copied (or safely unpacked) into a fresh temporary folder and checked there
by a new interpreter (``python -m course_lib.track.grading --worker``) that

* runs in its own process group, killed whole at the time limit;
* limits its own memory (``RLIMIT_AS``) and the size of any file it writes,
  its captured output included (``RLIMIT_FSIZE``), before it imports any
  student code; the pytest run it starts inherits both (POSIX only);
* works in the temporary folder (also its ``HOME`` and ``TMPDIR``), so
  writing files can touch neither the roster nor another submission.

The checks are the ones ``course-lab check`` runs (``run_checks``); at the
time limit pytest is interrupted, the checks that finished still count and
the others fail with a ``Timeout:`` message. The grades are sorted by
student and hold no times, so grading the same roster twice gives the same
gradebook (see ``grade_report``).

This isolates accidents (an endless loop, ``sys.exit``, a crash, huge
output, stray files), not a determined attacker: student code runs with the
grader's user rights. Grade untrusted code inside a container.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..base.errors import CourseError
from .checks import check_names, reports_as_json, run_checks
from .starters import LabMarkError, find_regions, lab_modules, solution_bodies

__all__ = [
    "STATUS_MEANING",
    "CheckResult",
    "Grade",
    "InvalidSubmission",
    "Limits",
    "Submission",
    "find_submissions",
    "grade_roster",
    "grade_submission",
    "identical_labs",
]

Status = Literal["ok", "timeout", "error", "crashed", "invalid"]

STATUS_MEANING: dict[Status, str] = {
    "ok": "every check ran",
    "timeout": "stopped at the time limit; the checks that finished count",
    "error": "could not be checked: the package does not import, or exits while importing",
    "crashed": "the checks process died (memory, a signal, os._exit) before it reported",
    "invalid": "not a practice package, or an unsafe or too large folder or zip",
}
"""What each gradebook status means, for the report and the instructor guide."""

PACKAGE = "ch11"
"""The name of a submission's copy in its temporary folder (so messages read ``ch11: ...``)."""

HARD_GRACE_SECONDS = 10.0
"""How long past ``--timeout`` a worker may take (start-up, interrupting pytest) before it is killed."""


@dataclass(frozen=True)
class Limits:
    """What one submission may use; every limit applies to each submission on its own."""

    timeout: float = 60.0
    """Seconds for one submission: importing it and running its checks."""
    memory_mb: int = 1024
    """Address space of each of its processes (``RLIMIT_AS``), in MiB."""
    file_mb: int = 16
    """The largest file it may write, its printed output included (``RLIMIT_FSIZE``), in MiB."""
    submission_mb: int = 20
    """The largest submission, as a folder or unpacked from its zip, in MiB."""
    max_files: int = 2000
    """The most files one submission may hold."""


@dataclass(frozen=True)
class Submission:
    """One student's work: a practice folder or a ``.zip`` of one, named after the student."""

    student: str
    path: Path


CheckOutcomeName = Literal["passed", "failed", "not run"]


@dataclass(frozen=True)
class CheckResult:
    """One check of one submission; ``not run`` when the submission could not be checked."""

    lab: str
    name: str
    outcome: CheckOutcomeName
    message: str = ""


@dataclass(frozen=True)
class Grade:
    """Everything the gradebook says about one student; ``seconds`` is left out of it."""

    student: str
    status: Status
    checks: tuple[CheckResult, ...]
    note: str = ""
    identical_labs: tuple[str, ...] = ()
    seconds: float = field(default=0.0, compare=False)

    def score(self, lab: str) -> tuple[int, int]:
        """``(passed, total)`` for one lab; a check that did not run counts as not passed."""
        checks = [check for check in self.checks if check.lab == lab]
        return sum(check.outcome == "passed" for check in checks), len(checks)

    @property
    def passed(self) -> int:
        return sum(check.outcome == "passed" for check in self.checks)

    @property
    def total(self) -> int:
        return len(self.checks)


class InvalidSubmission(CourseError):
    """A submission the grader refuses before running anything (status ``invalid``)."""


# --- the roster ----------------------------------------------------------------------------


def _is_hidden(path: Path) -> bool:
    return path.name.startswith((".", "__"))


def find_submissions(roster: Path) -> tuple[list[Submission], list[str]]:
    """One submission per folder or ``.zip`` in ``roster``, sorted by student, and what was skipped.

    A student is named after the folder, or the zip without ``.zip``; when a
    folder and a zip share a name, the zip keeps its full file name.
    """
    if not roster.exists():
        raise CourseError(
            f"roster {roster} does not exist; give a folder with one practice folder "
            "or .zip per student"
        )
    if not roster.is_dir():
        raise CourseError(f"roster {roster} is not a folder; give a folder of submissions")
    entries = sorted(roster.iterdir(), key=lambda path: path.name)
    folders = [p for p in entries if p.is_dir() and not p.is_symlink() and not _is_hidden(p)]
    zips = [p for p in entries if p.is_file() and p.suffix.lower() == ".zip" and not _is_hidden(p)]
    skipped = [p.name for p in entries if p not in folders and p not in zips and not _is_hidden(p)]
    submissions = [Submission(student=folder.name, path=folder) for folder in folders]
    taken = {folder.name for folder in folders}
    for archive in zips:
        name = archive.stem if archive.stem not in taken else archive.name
        taken.add(name)
        submissions.append(Submission(student=name, path=archive))
    if not submissions:
        raise CourseError(
            f"no submissions in {roster}; expected one practice folder or .zip per student"
        )
    return sorted(submissions, key=lambda s: (s.student.casefold(), s.student)), skipped


def _package_root(directory: Path, depth: int = 3) -> Path:
    """The shallowest folder holding ``__init__.py``: the package itself or one nested in it."""
    level = [directory]
    for _ in range(depth + 1):
        found = [folder for folder in level if (folder / "__init__.py").is_file()]
        if len(found) > 1:
            names = ", ".join(str(folder.relative_to(directory)) for folder in found)
            raise InvalidSubmission(f"several practice packages ({names}); submit only one")
        if found:
            return found[0]
        level = [
            child
            for folder in level
            for child in sorted(folder.iterdir())
            if child.is_dir() and not child.is_symlink() and not _is_hidden(child)
        ]
    raise InvalidSubmission(
        "no practice package found (no __init__.py); submit the folder "
        "`course-lab practice 11` wrote"
    )


def _copy_package(source: Path, target: Path, limits: Limits) -> None:
    """Copy the package's regular files (no symlinks, no caches), refusing one over the limits."""
    files: list[Path] = []
    size = 0
    for folder, names, file_names in os.walk(source):
        names[:] = sorted(n for n in names if not n.startswith(".") and n != "__pycache__")
        for name in sorted(file_names):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            files.append(path)
            size += path.stat().st_size
            if len(files) > limits.max_files or size > limits.submission_mb * 2**20:
                raise InvalidSubmission(
                    f"the submission is larger than {limits.submission_mb} MiB "
                    f"or {limits.max_files} files"
                )
    for path in files:
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)


def _safe_member(name: str) -> Path | None:
    """The relative path a zip member may be written to, or ``None`` for an unsafe name."""
    parts = Path(name.replace("\\", "/")).parts
    if not parts or name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
        return None
    return Path(*parts)


def _unpack(archive: Path, target: Path, limits: Limits) -> None:
    """Unpack ``archive`` into ``target``, refusing unsafe paths, links and zip bombs."""
    budget = limits.submission_mb * 2**20
    try:
        with zipfile.ZipFile(archive) as opened:
            members = [info for info in opened.infolist() if not info.is_dir()]
            if len(members) > limits.max_files:
                raise InvalidSubmission(f"the zip holds more than {limits.max_files} files")
            for info in members:
                relative = _safe_member(info.filename)
                if relative is None:
                    raise InvalidSubmission(f"the zip holds an unsafe path {info.filename!r}")
                if (info.external_attr >> 16) & 0o170000 == 0o120000:
                    raise InvalidSubmission(f"the zip holds a symbolic link {info.filename!r}")
                if relative.parts[0] == "__MACOSX":
                    continue
                destination = target / relative
                destination.parent.mkdir(parents=True, exist_ok=True)
                with opened.open(info) as reader, destination.open("wb") as writer:
                    while chunk := reader.read(1 << 16):
                        budget -= len(chunk)
                        if budget < 0:
                            raise InvalidSubmission(
                                f"the zip unpacks to more than {limits.submission_mb} MiB"
                            )
                        writer.write(chunk)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as error:
        raise InvalidSubmission(f"not a readable zip file ({error})") from None


def _prepare(submission: Submission, scratch: Path, limits: Limits) -> Path:
    """Put the submission's package into ``scratch/ch11`` and return that folder."""
    target = scratch / PACKAGE
    if submission.path.is_dir():
        _copy_package(_package_root(submission.path), target, limits)
        return target
    unpacked = scratch / "unpacked"
    _unpack(submission.path, unpacked, limits)
    shutil.move(_package_root(unpacked), target)
    return target


# --- copied solutions ----------------------------------------------------------------------


def _normalised(lines: Sequence[str]) -> str:
    """Code compared as a syntax tree, so that layout does not matter but the code does.

    ``ast.dump`` ignores indentation, blank lines, comments, line breaks,
    quote style and redundant parentheses; names, literals, docstrings and the
    order of statements all count. A fragment that does not parse is compared
    line by line, with whitespace collapsed and comment lines dropped.
    """
    source = textwrap.dedent("\n".join(lines))
    try:
        return ast.dump(ast.parse(source))
    except SyntaxError:
        kept = [" ".join(line.split()) for line in source.splitlines()]
        return "\n".join(line for line in kept if line and not line.startswith("#"))


def identical_labs(package: Path, labs: Sequence[str]) -> tuple[str, ...]:
    """The labs whose every region in ``package`` is the reference solution, up to layout.

    A lab filled by ``course-lab solution`` is identical too: a flag is a
    question for the instructor, not a verdict.
    """
    same: list[str] = []
    for lab in labs:
        for module in lab_modules(lab):
            path = package / f"{module}.py"
            try:
                text = path.read_text(encoding="utf-8")
                regions = [r for r in find_regions(text, path.name) if r.lab == lab]
            except (OSError, UnicodeDecodeError, LabMarkError):
                break
            lines = text.splitlines()
            theirs = [_normalised(region.body(lines)) for region in regions]
            if theirs != [_normalised(body) for body in solution_bodies(module, lab)]:
                break
        else:
            same.append(lab)
    return tuple(same)


# --- running one submission ----------------------------------------------------------------

_PARSING = threading.Lock()
"""Python 3.11's ``ast.parse`` is not safe in several threads at once; graders parse one at a time."""


def _check_names(lab: str) -> list[str]:
    with _PARSING:
        return check_names(lab)


_PRIVATE_NAME = re.compile(r"\bpractice_(?:check_)?[0-9a-f]{12}\b")


def _cleaned(text: str, scratch: Path) -> str:
    """A message without this run's temporary paths or module names, on one line."""
    for folder in {str(scratch.resolve()), str(scratch)}:
        text = text.replace(folder + os.sep, "").replace(folder, ".")
    return " ".join(_PRIVATE_NAME.sub("practice", text).split())  # whole, never cut


def _not_run(student: str, status: Status, note: str, labs: Sequence[str]) -> Grade:
    checks = tuple(CheckResult(lab, name, "not run") for lab in labs for name in _check_names(lab))
    return Grade(student=student, status=status, checks=checks, note=note)


_running: set[subprocess.Popen[bytes]] = set()
_running_lock = threading.Lock()


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the worker and everything it started (its process group)."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _last_line(output: Path) -> str:
    """The last non-blank line a dead worker printed (read from the end only)."""
    with output.open("rb") as handle:
        handle.seek(max(0, output.stat().st_size - 4096))
        lines = handle.read().decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else ""


def _run_worker(
    scratch: Path, labs: Sequence[str], limits: Limits
) -> tuple[dict[str, Any] | None, bool, int | None, str]:
    """Check ``scratch/ch11`` in a new, limited interpreter: (result, killed, exit status, last line)."""
    result = scratch / f"result-{uuid.uuid4().hex}.json"
    home = scratch / "home"
    (home / "tmp").mkdir(parents=True)
    # -P: the temporary folder is not on sys.path; PYTHONPATH: the grader's own course_lib.
    command = [
        sys.executable,
        "-P",
        "-m",
        "course_lib.track.grading",
        "--worker",
        PACKAGE,
        str(result),
    ]
    command += ["--labs", ",".join(labs), "--timeout", f"{limits.timeout:g}"]
    command += ["--memory-mb", str(limits.memory_mb), "--file-mb", str(limits.file_mb)]
    here = str(Path(__file__).resolve().parents[2])
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])),
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
    }
    output = scratch / "output.txt"
    killed = False
    with output.open("wb") as sink:
        process = subprocess.Popen(
            command,
            cwd=scratch,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=os.name == "posix",
        )
        with _running_lock:
            _running.add(process)
        try:
            process.wait(timeout=limits.timeout + HARD_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            killed = True
        finally:
            _kill_group(process)  # also whatever it left running
            process.wait()
            with _running_lock:
                _running.discard(process)
    try:
        found = json.loads(result.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        found = None
    return (
        found if isinstance(found, dict) else None,
        killed,
        process.returncode,
        _last_line(output),
    )


def _exit_reason(status: int | None) -> str:
    if status is not None and status < 0:
        try:
            return f"stopped by {signal.Signals(-status).name}"
        except ValueError:
            return f"stopped by signal {-status}"
    return f"ended with exit status {status}"


def _from_result(
    student: str, result: dict[str, Any], labs: Sequence[str], scratch: Path, limits: Limits
) -> Grade:
    """A grade from the worker's JSON (the object ``course-lab check --format json`` prints)."""
    if "error" in result:
        reported_status = result.get("status")
        status: Status = reported_status if reported_status in ("crashed", "timeout") else "error"
        return _not_run(student, status, _cleaned(str(result["error"]), scratch), labs)
    reported = {
        (row.get("lab"), row.get("name")): row
        for row in result.get("checks", [])
        if isinstance(row, dict) and row.get("suite") == "lab"
    }
    checks: list[CheckResult] = []
    for lab in labs:
        for name in _check_names(lab):
            row = reported.get((lab, name), {})
            outcome: CheckOutcomeName = "passed" if row.get("outcome") == "passed" else "failed"
            message = "" if outcome == "passed" else str(row.get("message") or "not reported")
            checks.append(CheckResult(lab, name, outcome, _cleaned(message, scratch)))
    timed_out = bool(result.get("timed_out"))
    note = (
        f"stopped after {limits.timeout:g} s; the checks that finished count" if timed_out else ""
    )
    return Grade(student, "timeout" if timed_out else "ok", tuple(checks), note)


def grade_submission(
    submission: Submission, labs: Sequence[str], limits: Limits = Limits()
) -> Grade:
    """Check one submission in a temporary folder of its own and return its grade.

    Never raises for anything the submission does: every problem becomes the
    grade's ``status`` and ``note``.
    """
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="course-lab-grade-") as folder:
        scratch = Path(folder)
        try:
            package = _prepare(submission, scratch, limits)
        except InvalidSubmission as error:
            grade = _not_run(submission.student, "invalid", str(error), labs)
        except OSError as error:
            note = f"could not be read: {type(error).__name__}: {error.strerror or error}"
            grade = _not_run(submission.student, "invalid", note, labs)
        else:
            with _PARSING:
                identical = identical_labs(package, labs)
            result, killed, status, last = _run_worker(scratch, labs, limits)
            if result is not None:
                grade = _from_result(submission.student, result, labs, scratch, limits)
            elif killed:
                note = (
                    f"did not finish within {limits.timeout:g} s "
                    "(hanging while importing, or ignoring the stop)"
                )
                grade = _not_run(submission.student, "timeout", note, labs)
            else:
                note = f"the checks process {_exit_reason(status)}"
                note += f": {_cleaned(last, scratch)}" if last else ""
                grade = _not_run(submission.student, "crashed", note, labs)
            grade = replace(grade, identical_labs=identical)
    return replace(grade, seconds=time.monotonic() - start)


def grade_roster(
    submissions: Sequence[Submission],
    labs: Sequence[str],
    *,
    limits: Limits = Limits(),
    jobs: int = 1,
    on_grade: Callable[[Grade], None] | None = None,
) -> list[Grade]:
    """Grade every submission, ``jobs`` at a time; the grades come back sorted by student.

    ``on_grade`` is called as each submission finishes (the progress bar).
    Interrupting the grader (Ctrl-C) kills every submission still running.
    """
    grades: list[Grade] = []
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = [pool.submit(grade_submission, s, labs, limits) for s in submissions]
        for future in as_completed(futures):
            grade = future.result()
            grades.append(grade)
            if on_grade is not None:
                on_grade(grade)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        with _running_lock:
            for process in list(_running):
                _kill_group(process)
        raise
    pool.shutdown()
    return sorted(grades, key=lambda grade: (grade.student.casefold(), grade.student))


# --- the worker: runs inside the limited subprocess ----------------------------------------


def _limit_resources(memory_mb: int, file_mb: int) -> None:
    """Cap this process's memory and file sizes; the pytest run it starts inherits the caps."""
    try:
        import resource
    except ImportError:  # not POSIX: only the time limit applies
        return
    for limit, value in (
        (resource.RLIMIT_AS, memory_mb * 2**20),
        (resource.RLIMIT_FSIZE, file_mb * 2**20),
        (resource.RLIMIT_CORE, 0),
    ):
        _soft, hard = resource.getrlimit(limit)
        wanted = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(limit, (wanted, hard))


class _ImportTimeout(BaseException):
    """Raised into a student's import that runs past the limit (not an ``Exception``: not caught)."""


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """Raise ``_ImportTimeout`` in this thread after ``seconds`` (POSIX; elsewhere the kill applies)."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _ImportTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _worker(argv: Sequence[str]) -> int:
    """Check one package and write the ``check --format json`` object (or an error) to a file."""
    from .practice import PracticePackageError, check_practice_package
    from .starters import chapter_exports

    parser = argparse.ArgumentParser(prog="python -m course_lib.track.grading --worker")
    parser.add_argument("package", type=Path)
    parser.add_argument("result", type=Path)
    parser.add_argument("--labs", required=True)
    parser.add_argument("--timeout", type=float, required=True)
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--file-mb", type=int, required=True)
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.timeout
    _limit_resources(args.memory_mb, args.file_mb)
    labs = args.labs.split(",")
    package: Path = args.package
    result: dict[str, Any]
    try:
        required = [name for names in chapter_exports().values() for name in names]
        with _alarm(args.timeout):
            check_practice_package(package, required=required)
        remaining = max(1.0, deadline - time.monotonic())
        reports = run_checks(labs, impl=package, timeout=remaining)
        result = reports_as_json(",".join(labs), reports, target=str(package))
    except _ImportTimeout:
        result = {
            "status": "timeout",
            "error": f"{package}: importing the package did not finish within "
            f"{args.timeout:g} s; look for an endless loop at module level",
        }
    except SystemExit as stop:
        result = {
            "status": "error",
            "error": f"{package}: the practice package calls sys.exit({stop.code!r}) "
            "while importing",
        }
    except PracticePackageError as error:
        result = {"status": "error", "error": str(error)}
    except CourseError as error:
        result = {"status": "crashed", "error": str(error)}
    except MemoryError:
        result = {"status": "crashed", "error": f"out of memory ({args.memory_mb} MiB)"}
    args.result.write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] != ["--worker"]:
        raise SystemExit("usage: python -m course_lib.track.grading --worker PACKAGE RESULT ...")
    sys.exit(_worker(sys.argv[2:]))
