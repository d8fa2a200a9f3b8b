"""Grade a class: stage every submission, then judge each copy, its rules in a sandbox of their own.

A roster is a folder with one entry per student: a practice folder (what
``course-lab practice 11`` wrote) or a ``.zip`` of one. Before any code runs,
every entry is staged: copied (or safely unpacked) into the grader's private
folder, so a submission that runs cannot change one graded later.

Each staged copy is then judged (``course_lib.judge``): the checks, the hidden
cases, the reference and the seed stay in the grader's process, and the
submission's rules run in a rule server that

* runs inside the fence ``sandbox`` chose: bubblewrap namespaces where they
  work, else a private copy and, when the grader is root, a user id of its
  own (``sandbox.GUARANTEES`` says exactly what each level holds);
* can import only the given layer of ``course_lib`` (``judge.given_tree``):
  no rule, check, hidden case or grader is there to borrow or patch;
* limits its memory (``RLIMIT_AS``), the size of any file it writes
  (``RLIMIT_FSIZE``), its processes (``RLIMIT_NPROC``) and, in bubblewrap,
  its disk (a size-limited tmpfs), before it imports any student code;
* answers the judge's calls as plain data, which the judge reads back with the
  course's own types; nothing it prints or writes can become a result.

At the time limit the rule server is killed with every process it started,
and the checks not finished fail with ``Timeout``. The grades are sorted by
student and hold no times, so grading the same roster twice gives the same
gradebook (see ``grade_report``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..base.errors import CourseError
from ..base.i18n import N_
from ..base.text_rules import visible_name
from ..judge.given_tree import build_given_tree
from ..judge.remote import RemotePackage, RuleServerError
from ..track.checks import check_names, judge_checks, reports_as_json
from ..track.starters import chapter_exports
from .hidden_checks import (  # the instructor's seeded cases (--hidden-seed)
    HiddenPlan,
    HiddenResult,
    hidden_from_json,
    judge_hidden_cases,
)
from .rule_origin import borrowed_rules
from .sandbox import (
    INSIDE,
    MARKER,
    SUBMISSION_INSIDE,
    Fence,
    SandboxKind,
    bwrap_command,
    choose,
    end_everything,
    process_cap,
    wait_for,
    workbook_root,
    worker_uid,
)
from .similarity import lab_work, reference_work, same_as_reference
from .submission_facts import SubmissionFacts, read_facts

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
    "ok": N_("every check ran"),
    "timeout": N_("stopped at the time limit; the checks that finished count"),
    "error": N_("could not be checked: the package does not import, or exits while importing"),
    "crashed": N_(
        "the rules' process died during a call (a signal, os._exit); those checks failed"
    ),
    "invalid": N_(
        "not a practice package: an empty, unsafe or too large zip, or not a folder or zip"
    ),
}
"""What each gradebook status means, for the report and the instructor guide (in English;
a student's feedback translates it, ``tr(lang, meaning)``)."""

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
    processes: int = 64
    """The most processes one submission may run at once (``RLIMIT_NPROC``)."""
    disk_mb: int = 64
    """Everything one submission may write, in MiB (bubblewrap's tmpfs; per file otherwise)."""


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
    limits: tuple[str, ...] = field(default=(), compare=False)
    """The limits the rules reached during this check (from the errors' kinds)."""


@dataclass(frozen=True)
class Grade:
    """Everything the gradebook says about one student; ``seconds`` is left out of it."""

    student: str
    status: Status
    checks: tuple[CheckResult, ...]
    note: str = ""
    identical_labs: tuple[str, ...] = ()
    hidden: tuple[HiddenResult, ...] = ()
    """The hidden cases' results (``--hidden-seed``), beside the checks; empty when not asked."""
    facts: SubmissionFacts = field(default_factory=SubmissionFacts)
    """The student's language and normalised lab work, read before any of its code ran."""
    seconds: float = field(default=0.0, compare=False)
    import_limits: tuple[str, ...] = field(default=(), compare=False)
    """The limit the package reached while importing, if that is why it was not checked."""

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


NOTES_SUFFIXES = frozenset({".txt", ".md", ".rst", ".csv", ".tsv", ".json", ".html", ".log"})
"""Files in a roster that are the instructor's notes, not a student's entry: skipped, no row."""


def find_submissions(roster: Path) -> tuple[list[Submission], list[str]]:
    """One submission per entry in ``roster``, sorted by student, and the notes files skipped.

    A student is named after the folder, or the file without ``.zip``; when a
    folder and a zip share a name, the zip keeps its full file name. An entry
    that is neither a folder nor a zip (a notebook, a single ``.py`` file, a
    symbolic link) is a submission too, graded ``invalid`` with the reason, so
    every student gets a row; only the instructor's own notes
    (``NOTES_SUFFIXES``) and hidden entries are skipped. Names are shown
    escaped (``visible_name``), whatever bytes they hold.
    """
    if not roster.exists():
        raise CourseError(
            f"roster {roster} does not exist; give a folder with one practice folder "
            "or .zip per student"
        )
    if not roster.is_dir():
        raise CourseError(f"roster {roster} is not a folder; give a folder of submissions")
    entries = sorted((p for p in roster.iterdir() if not _is_hidden(p)), key=lambda path: path.name)
    folders = [p for p in entries if p.is_dir() and not p.is_symlink()]
    skipped = [
        p.name
        for p in entries
        if p.is_file() and not p.is_symlink() and p.suffix.lower() in NOTES_SUFFIXES
    ]
    files = [p for p in entries if p not in folders and p.name not in skipped]
    submissions = [Submission(student=visible_name(folder.name), path=folder) for folder in folders]
    taken = {submission.student for submission in submissions}
    for file in files:
        is_zip = file.suffix.lower() == ".zip" and not file.is_symlink()
        name = visible_name(file.stem if is_zip else file.name)
        if name in taken:
            name = visible_name(file.name)
        taken.add(name)
        submissions.append(Submission(student=name, path=file))
    if not submissions:
        raise CourseError(
            f"no submissions in {roster}; expected one practice folder or .zip per student"
        )
    return sorted(submissions, key=lambda s: (s.student.casefold(), s.student)), [
        visible_name(name) for name in skipped
    ]


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


_NOT_A_PACKAGE = {
    ".ipynb": "a notebook",
    ".py": "a single Python file",
    ".tar": "a tar archive",
    ".gz": "a compressed archive",
    ".tgz": "a compressed archive",
    ".rar": "a RAR archive",
    ".7z": "a 7-Zip archive",
}


def _prepare(submission: Submission, scratch: Path, limits: Limits) -> Path:
    """Put the submission's package into ``scratch/ch11`` and return that folder."""
    target = scratch / PACKAGE
    if submission.path.is_symlink():
        raise InvalidSubmission(
            "a symbolic link, not followed: put the practice folder or its .zip in the roster"
        )
    if submission.path.is_dir():
        _copy_package(_package_root(submission.path), target, limits)
        return target
    if submission.path.suffix.lower() != ".zip":
        what = _NOT_A_PACKAGE.get(submission.path.suffix.lower(), "not a folder or a .zip")
        raise InvalidSubmission(
            f"{what}, not a practice package: hand in the folder `course-lab practice 11` "
            "wrote, or a .zip of it"
        )
    if submission.path.stat().st_size == 0:
        raise InvalidSubmission("the zip file is empty (0 bytes): nothing was handed in")
    unpacked = scratch / "unpacked"
    unpacked.mkdir()
    _unpack(submission.path, unpacked, limits)
    if not any(unpacked.iterdir()):
        raise InvalidSubmission("the zip is empty: it holds no files")
    shutil.move(_package_root(unpacked), target)
    return target


@dataclass(frozen=True)
class StagedSubmission:
    """A submission copied into the grader's private staging folder, or why it could not be."""

    submission: Submission
    package: Path | None
    problem: str = ""
    note: str = ""
    """What staging left out and the student should know (a module handed in as a link)."""


def _links_left_out(submission: Submission) -> str:
    """A note naming the Python files of a handed-in folder that are symbolic links.

    Why: links are never followed (one could point at another student's work), so
    such a module is missing from the copy and its import fails; the note says why.
    """
    if not submission.path.is_dir() or submission.path.is_symlink():
        return ""
    root = _package_root(submission.path)
    links = sorted(
        path.relative_to(root).as_posix() for path in root.rglob("*.py") if path.is_symlink()
    )
    if not links:
        return ""
    return (
        f"left out {', '.join(links)}: a symbolic link is never followed; hand in the file itself"
    )


def stage(submission: Submission, folder: Path, limits: Limits) -> StagedSubmission:
    """Copy (or safely unpack) ``submission`` into ``folder`` before any submission's code runs.

    The grader stages the whole roster first, so a submission that runs
    cannot change one that is graded later. The copy is made readable (not
    writable) for everyone: the worker's own user id reads it, and only the
    grader can reach the private folder it sits in.
    """
    folder.mkdir(parents=True)
    try:
        package = _prepare(submission, folder, limits)
    except InvalidSubmission as error:
        return StagedSubmission(submission, None, str(error))
    except OSError as error:
        why = error.strerror or str(error)
        return StagedSubmission(submission, None, f"could not be read ({why})")
    for parent, names, files in os.walk(package):
        for name in names:
            (Path(parent) / name).chmod(0o755)
        for name in files:
            (Path(parent) / name).chmod(0o644)
    package.chmod(0o755)
    return StagedSubmission(submission, package, note=_links_left_out(submission))


# --- copied solutions ----------------------------------------------------------------------


def identical_labs(package: Path, labs: Sequence[str]) -> tuple[str, ...]:
    """The labs whose work in ``package`` is substantial and the reference after normalisation.

    Comments, layout and the names of local variables do not matter
    (``similarity``); a lab too small to be written more than a few ways is
    never flagged. A lab filled by ``course-lab solution`` is identical too:
    a flag is a question for the instructor, not a verdict.
    """
    return same_as_reference(lab_work(package, labs), reference_work(labs))


# --- running one submission ----------------------------------------------------------------

_PARSING = threading.Lock()
"""Python 3.11's ``ast.parse`` is not safe in several threads at once; graders parse one at a time."""


def _check_names(lab: str) -> list[str]:
    with _PARSING:
        return check_names(lab)


_PRIVATE_NAME = re.compile(r"\bpractice_(?:check_)?[0-9a-f]{12}\b")


def _cleaned(text: str, folders: Sequence[Path]) -> str:
    """A message without this run's temporary paths or module names, on one line."""
    for scratch in folders:
        for folder in {str(scratch.resolve()), str(scratch)}:
            text = text.replace(folder + os.sep, "").replace(folder, ".")
    return " ".join(_PRIVATE_NAME.sub("practice", text).split())  # whole, never cut


def _not_run(student: str, status: Status, note: str, labs: Sequence[str]) -> Grade:
    checks = tuple(CheckResult(lab, name, "not run") for lab in labs for name in _check_names(lab))
    return Grade(student=student, status=status, checks=checks, note=note)


_running: dict[subprocess.Popen[bytes], Fence] = {}
_running_lock = threading.Lock()


def _channel(path: Path, cap: int) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The worker's report: its final result (``None`` if it never sent one) and the rows it sent.

    Read at most ``cap`` bytes: the file is capped by the worker's own file-size limit anyway.
    """
    result: dict[str, Any] | None = None
    rows: list[dict[str, Any]] = []
    try:
        with path.open("rb") as handle:
            data = handle.read(cap)
    except OSError:
        return None, []
    for line in data.splitlines():
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):  # garbage, or nesting deeper than the parser goes
            continue
        if isinstance(item, dict) and isinstance(item.get("row"), dict):
            rows.append(item["row"])
        elif isinstance(item, dict) and isinstance(item.get("result"), dict):
            result = item["result"]
    return result, rows


def _last_line(output: Path) -> str:
    """The last non-blank line a dead worker printed (read from the end only)."""
    with output.open("rb") as handle:
        handle.seek(max(0, output.stat().st_size - 4096))
        lines = handle.read().decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else ""


def _environment(fence: Fence, home: Path | None, library: Path | None = None) -> dict[str, str]:
    """What the worker sees: a small, fixed environment (no grader secrets, same every run).

    ``library`` holds the ``course_lib`` it imports (the given tree for a rule server).
    """
    environment = {
        "PATH": os.environ.get("PATH", os.defpath),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(library or workbook_root()),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUTF8": "1",
        "MPLBACKEND": "Agg",
        MARKER: fence.marker,
    }
    if home is not None:
        environment.update(HOME=str(home), TMPDIR=str(home / "tmp"))
    if os.name == "nt":  # pragma: no cover - the interpreter needs it to start at all
        environment["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
    return environment


@dataclass(frozen=True)
class _WorkerRun:
    """What one worker left: its result, the rows it sent, whether it was killed, how it ended."""

    result: dict[str, Any] | None
    rows: list[dict[str, Any]]
    killed: bool
    status: int | None
    last: str
    folders: tuple[Path, ...]
    """Where the submission ran, to be left out of messages."""


def _run_worker(
    staged: Path,
    labs: Sequence[str],
    limits: Limits,
    kind: SandboxKind,
    private: Path,
    hidden: HiddenPlan | None,
    library: Path,
) -> _WorkerRun:
    """Judge the staged copy ``staged``: the checks and hidden cases here, its rules confined.

    The submission's rules run in a rule server inside the fence (``judge.rule_server``,
    importing only ``judge.given_tree``); the checks, the hidden cases, the reference
    and the seed stay in this process and call the rules through the channel. The
    report is the object ``course-lab check --format json`` prints, computed here:
    nothing the submission prints, writes or sends but its answers can change it.
    """
    rules = [name for names in chapter_exports().values() for name in names]
    deadline = time.monotonic() + limits.timeout
    output = private / "output.txt"
    launched: list[subprocess.Popen[bytes]] = []
    with worker_uid(kind) as uid:
        fence = Fence(kind=kind, uid=uid, marker=uuid.uuid4().hex)
        scratch: Path | None = None
        if kind != "bwrap":
            scratch = Path(tempfile.mkdtemp(prefix="course-lab-grade-"))
            _copy_tree(staged, scratch / PACKAGE)
            (scratch / "home" / "tmp").mkdir(parents=True)
            if uid is not None:
                _give_to(scratch, uid)

        def launch(calls: int, answers: int) -> subprocess.Popen[bytes]:
            server = [sys.executable, "-P", "-m", "course_lib.judge.rule_server", PACKAGE]
            server += ["--rules", ",".join(rules), "--in-fd", str(calls), "--out-fd", str(answers)]
            server += ["--private-home", "--timeout", f"{limits.timeout:g}"]
            server += ["--memory-mb", str(limits.memory_mb), "--file-mb", str(limits.file_mb)]
            server += ["--processes", str(process_cap(limits.processes, uid))]
            home: Path | None = None
            if scratch is None:
                server += ["--copy-from", str(SUBMISSION_INSIDE)]
                server += ["--as-uid", str(uid)] if uid is not None else []
                command = bwrap_command(
                    server, staged, disk_mb=limits.disk_mb, uid=uid, library=library
                )
                cwd = private
            else:
                command, cwd, home = server, scratch, scratch / "home"
            with output.open("ab") as sink:
                process: subprocess.Popen[bytes] = subprocess.Popen(
                    command,
                    cwd=cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    env=_environment(fence, home, library=library),
                    pass_fds=(calls, answers),
                    **fence.popen_options(),  # type: ignore[call-overload]
                )
            launched.append(process)
            with _running_lock:
                _running[process] = fence
            return process

        try:
            with RemotePackage(launch, rules, deadline=deadline, name=PACKAGE) as package:
                result = _judged(package, labs, hidden, private)
        finally:
            for process in launched:
                end_everything(process, fence)  # also whatever it left running, detached or not
                with _running_lock:
                    _running.pop(process, None)
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
    folders = (INSIDE,) if scratch is None else (scratch,)
    last = _last_line(output) if output.exists() else ""
    status = launched[-1].returncode if launched else None
    return _WorkerRun(result, [], False, status, last, folders)


def _judged(
    package: RemotePackage, labs: Sequence[str], hidden: HiddenPlan | None, private: Path
) -> dict[str, Any]:
    """The checks (and the hidden cases) of ``labs`` against ``package``, as one report."""
    try:
        package.start()
    except RuleServerError as error:
        return {"status": error.status, "error": str(error), "limit": error.limit}
    scratch = private / "checks"
    scratch.mkdir()
    try:
        reports = judge_checks(labs, package, scratch)
        cases = (
            [] if hidden is None else judge_hidden_cases(package, labs, hidden.seed, hidden.cases)
        )
    except Exception as error:  # the judge's own failure: this student's row, never the run's
        why = f"the grader could not judge this submission ({type(error).__name__}: {error})"
        return {"status": "crashed", "error": why}
    result = reports_as_json(",".join(labs), reports, target=PACKAGE)
    result["crashes"] = list(package.crashes)
    if hidden is not None:
        result["hidden"] = [
            {"lab": r.lab, "name": r.name, "outcome": r.outcome, "message": r.message}
            for r in cases
        ]
    return result


def run_confined(
    module: str,
    arguments: Sequence[str],
    staged: Path,
    limits: Limits,
    kind: SandboxKind,
    private: Path,
) -> _WorkerRun:
    """Run ``python -m module ch11 ARGUMENTS`` on a copy of ``staged``, confined, and collect its report.

    The worker gets the limits as options (``--timeout``, ``--memory-mb``,
    ``--file-mb``, ``--processes``) and reports on ``--channel-fd``; with
    bubblewrap it copies ``staged`` itself (``--copy-from``) and drops to
    ``--as-uid``. ``private`` is the grader's own folder for this run (the
    worker's output and report files); the worker never sees it. Everything
    the worker started is killed before this returns, whatever happened.
    """
    with worker_uid(kind) as uid:
        fence = Fence(kind=kind, uid=uid, marker=uuid.uuid4().hex)
        worker = [sys.executable, "-P", "-m", module, PACKAGE, *arguments]
        worker += ["--timeout", f"{limits.timeout:g}"]
        worker += ["--memory-mb", str(limits.memory_mb), "--file-mb", str(limits.file_mb)]
        worker += ["--processes", str(process_cap(limits.processes, uid))]
        channel_path = private / "channel.jsonl"
        output = private / "output.txt"
        scratch: Path | None = None
        try:
            if kind == "bwrap":
                worker += ["--copy-from", str(SUBMISSION_INSIDE)]
                worker += ["--as-uid", str(uid)] if uid is not None else []
                home = None
                cwd = private
            else:
                scratch = Path(tempfile.mkdtemp(prefix="course-lab-grade-"))
                _copy_tree(staged, scratch / PACKAGE)
                (scratch / "home" / "tmp").mkdir(parents=True)
                if uid is not None:
                    _give_to(scratch, uid)
                home, cwd = scratch / "home", scratch
            with channel_path.open("wb") as channel, output.open("wb") as sink:
                fd = channel.fileno()
                if kind == "bwrap":
                    command = bwrap_command(
                        worker, staged, disk_mb=limits.disk_mb, uid=uid, channel_fd=fd
                    )
                else:
                    command = [*worker, "--channel-fd", str(fd)]
                process = subprocess.Popen(
                    command,
                    cwd=cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    env=_environment(fence, home),
                    pass_fds=(fd,),
                    **fence.popen_options(),  # type: ignore[call-overload]
                )
                with _running_lock:
                    _running[process] = fence
                try:
                    killed = not wait_for(process, limits.timeout + HARD_GRACE_SECONDS)
                finally:
                    end_everything(process, fence)  # also whatever it left running, detached or not
                    with _running_lock:
                        _running.pop(process, None)
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
    result, rows = _channel(channel_path, (limits.file_mb + 1) * 2**20)
    folders = (INSIDE,) if scratch is None else (scratch,)
    return _WorkerRun(result, rows, killed, process.returncode, _last_line(output), folders)


def _copy_tree(source: Path, target: Path) -> None:
    shutil.copytree(source, target, symlinks=False)


def _give_to(folder: Path, uid: int) -> None:
    """Make ``folder`` and everything in it belong to ``uid`` (the worker's own user id)."""
    os.chown(folder, uid, uid)
    for parent, names, files in os.walk(folder):
        for name in [*names, *files]:
            os.chown(Path(parent) / name, uid, uid, follow_symlinks=False)


def _exit_reason(status: int | None) -> str:
    if status is not None and status < 0:
        try:
            return f"stopped by {signal.Signals(-status).name}"
        except ValueError:
            return f"stopped by signal {-status}"
    return f"ended with exit status {status}"


def _from_result(
    student: str,
    result: dict[str, Any],
    labs: Sequence[str],
    folders: Sequence[Path],
    limits: Limits,
) -> Grade:
    """A grade from the worker's JSON (the object ``course-lab check --format json`` prints)."""
    if "error" in result:
        reported_status = result.get("status")
        status: Status = reported_status if reported_status in ("crashed", "timeout") else "error"
        grade = _not_run(student, status, _cleaned(str(result["error"]), folders), labs)
        limit = result.get("limit")
        return replace(grade, import_limits=(limit,)) if isinstance(limit, str) else grade
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
            reached = tuple(str(limit) for limit in row.get("limits") or ())
            checks.append(CheckResult(lab, name, outcome, _cleaned(message, folders), reached))
    timed_out = bool(result.get("timed_out"))
    note = (
        f"stopped after {limits.timeout:g} s; the checks that finished count" if timed_out else ""
    )
    hidden = hidden_from_json(result.get("hidden"))
    crashes = [str(why) for why in result.get("crashes") or []]
    if crashes and not timed_out:  # the calls it ended failed; every other call counted
        many = f" ({len(crashes)} times)" if len(crashes) > 1 else ""
        note = f"the process running the rules {crashes[0]}{many}; the checks it ended failed"
        return Grade(student, "crashed", tuple(checks), note, hidden=hidden)
    return Grade(student, "timeout" if timed_out else "ok", tuple(checks), note, hidden=hidden)


def _from_run(student: str, run: _WorkerRun, labs: Sequence[str], limits: Limits) -> Grade:
    """The grade of one rule-server run: its report when it sent one, else why it sent none.

    A rule server that hangs or crashes while judging is reported in the result
    (``timed_out``, ``crashes``); no result at all means the process itself died.
    """
    if run.result is not None:
        return _from_result(student, run.result, labs, run.folders, limits)
    if run.killed:
        note = (
            f"did not finish within {limits.timeout:g} s "
            "(hanging while importing, or ignoring the stop)"
        )
        return _not_run(student, "timeout", note, labs)
    why = f"the checks process {_exit_reason(run.status)}"
    why += f": {_cleaned(run.last, run.folders)}" if run.last else ""
    return _not_run(student, "crashed", why, labs)


def grade_of_run(student: str, run: _WorkerRun, labs: Sequence[str], limits: Limits) -> Grade:
    """``_from_run``, but a report the grader cannot read is this student's row, never a crash.

    Why: the worker's channel is written by a process that ran the submission; whatever
    it holds must end that student's grading only, so every other student is graded and
    every export is written.
    """
    try:
        return _from_run(student, run, labs, limits)
    except Exception as error:  # anything a forged or torn report can make the reading raise
        note = (
            "the checks process sent a report the grader could not read "
            f"({type(error).__name__}); nothing it sent counts"
        )
        return _not_run(student, "crashed", note, labs)


_LIMIT_MESSAGES: tuple[tuple[str, str], ...] = (
    (
        "file",
        "{count} went over the file-size limit of {file_mb} MiB (--file-size): one file "
        "may hold at most {file_mb} MiB",
    ),
    (
        "disk",
        "{count} ran out of disk space: a submission may write at most {disk_mb} MiB in all",
    ),
    (
        "memory",
        "{count} ran out of memory: each process may use at most {memory_mb} MiB (--memory)",
    ),
    (
        "processes",
        "{count} could not start a process: a submission may run at most {processes} at once",
    ),
)
"""Each limit (as ``judge.remote.LIMIT_ERRORS`` names it) and what the note says of it."""


def _limits_note(grade: Grade, limits: Limits) -> Grade:
    """Add to the note which limit a failing check hit, and how much that limit is."""
    notes: list[str] = []
    for limit, text in _LIMIT_MESSAGES:
        count = sum(limit in check.limits for check in grade.checks if check.outcome == "failed")
        if count:
            what = "1 check" if count == 1 else f"{count} checks"
            notes.append(text.format(count=what, **asdict(limits)))
        elif limit in grade.import_limits:  # hit before any check ran: while importing
            notes.append(text.format(count="importing the package", **asdict(limits)))
    if not notes:
        return grade
    return replace(grade, note="; ".join(filter(None, [grade.note, *notes])))


_FORCE_ADVICE = re.compile(
    r"(?:fix that, or )?regenerate it with `course-lab practice 11 [^`]*--force`"
)


def _safe_advice(note: str) -> str:
    """Never advise ``practice --force`` on a graded package: it would overwrite the student's edits."""
    return _FORCE_ADVICE.sub(
        "fix that line, then check again with `course-lab check 11 --impl <your practice folder>`",
        note,
    )


NO_RULE = "no rule, no marks"
"""How a check of a lab whose rules are not the submission's own begins its message."""


def borrowed_labs(grade: Grade) -> list[str]:
    """The labs of ``grade`` that scored 0 because their rules were not the student's own."""
    labs = dict.fromkeys(check.lab for check in grade.checks)
    return [
        lab
        for lab in labs
        if all(check.message.startswith(NO_RULE) for check in grade.checks if check.lab == lab)
    ]


def no_rule_no_marks(grade: Grade, borrowed: dict[str, str]) -> Grade:
    """``grade`` with every check and hidden case of a lab whose rules are borrowed failed.

    ``borrowed`` is ``borrowed_rules``: lab -> why its functions are not the
    submission's own. Its checks passed on someone else's code, so they score 0,
    and the note says why.
    """
    if not borrowed:
        return grade
    checks = tuple(
        replace(check, outcome="failed", message=f"{NO_RULE}: {borrowed[check.lab]}")
        if check.lab in borrowed
        else check
        for check in grade.checks
    )
    hidden = tuple(
        replace(case, outcome="failed", message=NO_RULE) if case.lab in borrowed else case
        for case in grade.hidden
    )
    notes = [
        f"Lab {lab} scores 0: its rules are not the submission's own ({why})"
        for lab, why in borrowed.items()
    ]
    return replace(
        grade, checks=checks, hidden=hidden, note="; ".join(filter(None, [grade.note, *notes]))
    )


def _grade_staged(
    staged: StagedSubmission,
    labs: Sequence[str],
    limits: Limits,
    kind: SandboxKind,
    hidden: HiddenPlan | None,
    library: Path,
) -> Grade:
    """Grade one staged submission: its rules run in a fresh rule server importing ``library``
    (``judge.given_tree``); nothing here raises for it."""
    start = time.monotonic()
    student = staged.submission.student
    if staged.package is None:
        grade = _not_run(student, "invalid", staged.problem, labs)
        return replace(grade, seconds=time.monotonic() - start)
    with _PARSING:
        facts = read_facts(staged.package, labs)
        identical = same_as_reference(facts.work, reference_work(labs))
        borrowed = borrowed_rules(staged.package, labs)
    with tempfile.TemporaryDirectory(prefix="course-lab-run-") as folder:
        run = _run_worker(staged.package, labs, limits, kind, Path(folder), hidden, library)
    grade = grade_of_run(student, run, labs, limits)
    grade = replace(grade, note=_safe_advice(grade.note), identical_labs=identical, facts=facts)
    grade = no_rule_no_marks(grade, borrowed)
    if staged.note:
        grade = replace(grade, note="; ".join(filter(None, [staged.note, grade.note])))
    return replace(_limits_note(grade, limits), seconds=time.monotonic() - start)


@contextlib.contextmanager
def _given_library() -> Iterator[Path]:
    """The given part of ``course_lib`` for one grading run, readable by a worker's own user id
    (``judge.given_tree``), in a temporary folder of its own removed at the end."""
    with tempfile.TemporaryDirectory(prefix="course-lab-given-") as folder:
        Path(folder).chmod(0o755)
        yield build_given_tree(Path(folder))


def grade_submission(
    submission: Submission,
    labs: Sequence[str],
    limits: Limits = Limits(),
    hidden: HiddenPlan | None = None,
    *,
    sandbox: str = "auto",
) -> Grade:
    """Stage one submission, check its copy in a fresh sandboxed worker and return its grade.

    Never raises for anything the submission does: every problem becomes the
    grade's ``status`` and ``note``.
    """
    kind = choose(sandbox)
    with tempfile.TemporaryDirectory(prefix="course-lab-stage-") as folder:
        staged = stage(submission, Path(folder) / "0", limits)
        with _given_library() as library:
            return _grade_staged(staged, labs, limits, kind, hidden, library)


def _sorted(grades: Sequence[Grade]) -> list[Grade]:
    return sorted(grades, key=lambda grade: (grade.student.casefold(), grade.student))


def grade_roster(
    submissions: Sequence[Submission],
    labs: Sequence[str],
    *,
    limits: Limits = Limits(),
    jobs: int = 1,
    on_grade: Callable[[Grade], None] | None = None,
    hidden: HiddenPlan | None = None,
    sandbox: str = "auto",
) -> list[Grade]:
    """Grade every submission, ``jobs`` at a time; the grades come back sorted by student.

    Every submission is staged (copied, or safely unpacked) into a private
    folder before any code runs, so nothing a submission does while it runs
    can change another's files. ``on_grade`` is called as each submission
    finishes (the progress bar and the gradebook written so far).
    Interrupting the grader (Ctrl-C) kills every submission still running,
    with everything they started, and raises ``KeyboardInterrupt``.
    """
    kind = choose(sandbox)
    grades: list[Grade] = []
    with (
        tempfile.TemporaryDirectory(prefix="course-lab-stage-") as folder,
        _given_library() as library,  # the course_lib the submissions may import
    ):
        staged = [stage(s, Path(folder) / str(i), limits) for i, s in enumerate(submissions)]
        pool = ThreadPoolExecutor(max_workers=max(1, jobs))
        try:
            futures = [
                pool.submit(_grade_staged, s, labs, limits, kind, hidden, library) for s in staged
            ]
            for future in as_completed(futures):
                grade = future.result()
                grades.append(grade)
                if on_grade is not None:
                    on_grade(grade)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            with _running_lock:
                running = list(_running.items())
            for process, fence in running:
                end_everything(process, fence)
            raise
        pool.shutdown()
    return _sorted(grades)
