"""What a confined process does to itself before any student code runs.

Shared by the rule server and the notebook worker (the grader starts both
inside the fence ``grading.sandbox`` chose): drop to the unprivileged user id
it was given, become a child subreaper so a detached process stays findable,
cap memory, file size, core dumps and processes, and write only under its
own ``home/``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import errno
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "LIMITS",
    "ImportTimeout",
    "add_confinement_options",
    "alarm",
    "confine",
    "drop_to",
    "limit_of",
    "limit_resources",
    "use_private_home",
]

PR_SET_CHILD_SUBREAPER = 36


def add_confinement_options(parser: argparse.ArgumentParser) -> None:
    """The options the grader passes every confined process (its limits and its user)."""
    parser.add_argument("--timeout", type=float, required=True)
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--file-mb", type=int, required=True)
    parser.add_argument("--processes", type=int, required=True)
    parser.add_argument("--copy-from", type=Path, default=None)
    parser.add_argument("--as-uid", type=int, default=None)
    parser.add_argument(
        "--private-home", action="store_true", help="HOME and TMPDIR under ./home (the grader)"
    )


def confine(args: argparse.Namespace, target: Path) -> None:
    """Everything above, in the order it must happen; ``target`` receives ``--copy-from``."""
    if args.as_uid is not None:
        drop_to(args.as_uid)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    become_subreaper()
    if args.copy_from is not None:  # bubblewrap: into the size-limited tmpfs
        shutil.copytree(args.copy_from, target)
    if args.private_home:
        use_private_home()
    os.environ.setdefault("MPLBACKEND", "Agg")
    limit_resources(args.memory_mb, args.file_mb, args.processes)


def drop_to(uid: int) -> None:
    """From root to an unprivileged id: every capability goes with it."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def become_subreaper() -> None:
    """Orphans of this process's descendants are re-parented here, not to init (Linux)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def limit_resources(memory_mb: int, file_mb: int, processes: int) -> None:
    """Cap this process's memory, file sizes and process count; its children inherit them.

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


def use_private_home() -> None:
    """``home/`` in the working folder as HOME, ``home/tmp`` as TMPDIR: a submission writes
    only where the grader cleans up."""
    home = Path("home")
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    os.environ.update(HOME=str(home.resolve()), TMPDIR=str((home / "tmp").resolve()))
    tempfile.tempdir = None  # an earlier call may have settled on /tmp: read TMPDIR again


class ImportTimeout(BaseException):
    """Raised into student code that runs past the limit (not an ``Exception``: not caught)."""


@contextlib.contextmanager
def alarm(seconds: float) -> Iterator[None]:
    """Raise ``ImportTimeout`` in this thread after ``seconds`` (POSIX; elsewhere the kill applies)."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise ImportTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


LIMITS: dict[int | None, str] = {
    errno.EFBIG: "file",
    errno.ENOSPC: "disk",
    errno.EAGAIN: "processes",
    None: "memory",
}
"""Which limit an error means: an ``OSError`` by its ``errno``, ``MemoryError`` (``None``)."""


def limit_of(error: BaseException | None) -> str | None:
    """The limit ``error`` (or the error it was raised from) says was reached, by its kind.

    Never by its text: a rule's own message may say anything.
    """
    while error is not None:
        if isinstance(error, MemoryError):
            return LIMITS[None]
        if isinstance(error, OSError) and error.errno in LIMITS:
            return LIMITS[error.errno]
        error = error.__cause__ or error.__context__
    return None
