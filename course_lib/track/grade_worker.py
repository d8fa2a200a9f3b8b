"""The grader's worker: checks one submission inside its sandbox and reports on an inherited file.

Started by ``grading`` as ``python -P -m course_lib.track.grade_worker``, once
per submission, inside the fence ``sandbox`` chose. Before any student code
runs it

* drops to the unprivileged user id it was given (``--as-uid``, bubblewrap
  as root), keeping no capability;
* sets its own SIGINT handler, so the pytest run it starts can be interrupted
  at the time limit whatever dispositions the grader inherited (a background
  job or a CI runner starts with SIGINT ignored, and an ignored signal stays
  ignored across ``exec``);
* becomes a child subreaper, so a process a submission detaches stays below
  it and can be found and killed;
* caps memory, file size, core dumps and process count (``RLIMIT_*``).

It reports on a file descriptor the grader opened (``--channel-fd``), one
JSON object per line: each check as it finishes (``{"row": ...}``, read from
the ``grade_rows`` plugin's file), then the whole result (``{"result": ...}``).
A worker that dies on the way leaves the rows it had sent, so the checks that
finished still count. A watchdog thread kills the pytest run's leftovers as
soon as pytest itself has ended (a spawned process holding its output pipe
would otherwise keep the run waiting) and at the time limit.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..base.errors import CourseError
from .checks import INTERRUPT_GRACE_SECONDS, reports_as_json, run_checks
from .grade_rows import ROWS_VARIABLE
from .hidden_checks import add_hidden_options, run_hidden
from .sandbox import descendants

__all__: list[str] = []

PR_SET_CHILD_SUBREAPER = 36


def _drop_to(uid: int) -> None:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)  # from root to an unprivileged id: every capability goes with it


def _become_subreaper() -> None:
    """Orphans of this worker's descendants are re-parented here, not to init (Linux)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _limit_resources(memory_mb: int, file_mb: int, processes: int) -> None:
    """Cap this process's memory, file sizes and process count; the pytest run inherits them.

    ``RLIMIT_NPROC`` counts every process of the real user id; the grader
    gives the cap already counted from what that user runs (``sandbox``).
    """
    try:
        import resource
    except ImportError:  # not POSIX: only the time limit applies
        return
    for limit, value in (
        (resource.RLIMIT_AS, memory_mb * 2**20),
        (resource.RLIMIT_FSIZE, file_mb * 2**20),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NPROC, processes),
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


class _Channel:
    """The report file: whole JSON lines, written with one ``write`` each."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()

    def send(self, kind: str, value: Any) -> None:
        data = (json.dumps({kind: value}) + "\n").encode("utf-8")
        with self.lock, contextlib.suppress(OSError):
            os.write(self.fd, data)


def _watch(
    rows: Path,
    channel: _Channel,
    deadline: float,
    stop: threading.Event,
    checks_done: threading.Event,
) -> None:
    """Forward each finished check; kill the run's leftovers once pytest ended or time is up.

    A check's child that keeps pytest's output pipe open would make the run
    wait for it forever; a process whose parent is gone is re-parented here
    (subreaper), so ``descendants`` finds it either way.
    """
    sent = 0
    me = os.getpid()
    runs: set[int] = set()
    while True:
        with contextlib.suppress(OSError):
            with rows.open("rb") as handle:
                handle.seek(sent)
                data = handle.read()
            complete = data[: data.rfind(b"\n") + 1]
            for line in complete.splitlines():
                with contextlib.suppress(ValueError):
                    channel.send("row", json.loads(line))
            sent += len(complete)
        if stop.is_set():
            return
        below = descendants(me)
        runs |= {pid for pid in below if pid not in runs and _is_pytest_run(pid, me)}
        late = time.monotonic() > deadline + INTERRUPT_GRACE_SECONDS
        ended = not checks_done.is_set() and any(_state(pid) in ("Z", "?") for pid in runs)
        if late or ended:
            _kill([pid for pid in below if pid not in runs or late])
        stop.wait(0.2)


def _is_pytest_run(pid: int, parent: int) -> bool:
    """The pytest run ``run_checks`` started: a child of this worker loading the track's plugin."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]) == parent and b"course_lib.track.plugin" in command


def _kill(pids: Sequence[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _state(pid: int) -> str:
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "?"
    return text[text.rindex(")") + 2 :].split()[0]


def _run(args: argparse.Namespace, channel: _Channel) -> dict[str, Any]:
    """Import the package once, then run the checks; every outcome is a JSON object."""
    from .practice import PracticePackageError, check_practice_package
    from .starters import chapter_exports

    labs = args.labs.split(",")
    package: Path = args.package
    deadline = time.monotonic() + args.timeout
    rows = Path("rows.jsonl").resolve()
    rows.touch()
    os.environ[ROWS_VARIABLE] = str(rows)
    os.environ["PYTEST_PLUGINS"] = "course_lib.track.grade_rows"
    stop, checks_done = threading.Event(), threading.Event()
    watcher = threading.Thread(
        target=_watch, args=(rows, channel, deadline, stop, checks_done), daemon=True
    )
    watcher.start()
    try:
        required = [name for names in chapter_exports().values() for name in names]
        with _alarm(args.timeout):
            check_practice_package(package, required=required)
        _kill(descendants(os.getpid()))  # what its import started must not crowd out pytest
        remaining = max(1.0, deadline - time.monotonic())
        reports = run_checks(labs, impl=package, timeout=remaining)
        checks_done.set()
        result = reports_as_json(",".join(labs), reports, target=str(package))
        if args.hidden_seed is not None:  # the hidden cases, in a runner of their own
            seconds = deadline - time.monotonic()
            result["hidden"] = run_hidden(
                package, labs, args.hidden_seed, seconds=seconds, count=args.hidden_cases
            )
        return result
    except _ImportTimeout:
        return {
            "status": "timeout",
            "error": f"{package}: importing the package did not finish within "
            f"{args.timeout:g} s; look for an endless loop at module level",
        }
    except SystemExit as stopped:
        return {
            "status": "error",
            "error": f"{package}: the practice package calls sys.exit({stopped.code!r}) "
            "while importing",
        }
    except PracticePackageError as error:
        return {"status": "error", "error": str(error)}
    except CourseError as error:  # the pytest run died or would not stop: the rows tell
        timed_out = time.monotonic() >= deadline
        return {"status": "timeout" if timed_out else "crashed", "error": str(error)}
    except MemoryError:
        return {"status": "crashed", "error": f"out of memory ({args.memory_mb} MiB)"}
    finally:
        stop.set()
        watcher.join()


def _use_private_home() -> None:
    """``home/`` in the working folder as HOME, ``home/tmp`` as TMPDIR: a submission writes
    only where the grader cleans up (both workers call this)."""
    home = Path("home")
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    os.environ.update(HOME=str(home.resolve()), TMPDIR=str((home / "tmp").resolve()))
    tempfile.tempdir = None  # an earlier call may have settled on /tmp: read TMPDIR again


def main(argv: Sequence[str]) -> int:
    """Check one package and send its rows and result on ``--channel-fd``."""
    parser = argparse.ArgumentParser(prog="python -m course_lib.track.grade_worker")
    parser.add_argument("package", type=Path)
    parser.add_argument("--labs", required=True)
    parser.add_argument("--timeout", type=float, required=True)
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--file-mb", type=int, required=True)
    parser.add_argument("--processes", type=int, required=True)
    parser.add_argument("--copy-from", type=Path, default=None)
    parser.add_argument("--as-uid", type=int, default=None)
    parser.add_argument("--channel-fd", type=int, required=True)
    add_hidden_options(parser)
    args = parser.parse_args(argv)
    if args.as_uid is not None:
        _drop_to(args.as_uid)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _become_subreaper()
    if args.copy_from is not None:  # bubblewrap: into the size-limited tmpfs
        shutil.copytree(args.copy_from, args.package)
    _use_private_home()
    _limit_resources(args.memory_mb, args.file_mb, args.processes)
    channel = _Channel(args.channel_fd)
    channel.send("result", _run(args, channel))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
