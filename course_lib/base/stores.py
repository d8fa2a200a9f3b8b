"""The two session stores' machinery (Chapter 10 carry-over): JSONL recovery, locking, the path walk.

The stores know entries only through an ``EntryCodec``: a function that
parses any value into a fresh entry, and one that parses a committed line.
The chapter binds them to ``parse_session_entry`` (``course_lib.chapter.sessions``),
so a compaction needs no store code of its own. In a JSONL file a line is
committed by its newline: an unterminated last line is a torn write, ignored
with a warning and never appended after until ``repair()`` moved it aside.

Several ``JsonlSessionStore`` objects (in one process or in several) may share
one file: every append and every repair holds an advisory lock on
``<file>.lock`` and on the session file itself, and first reads the lines the
others committed meanwhile. The lock on the file itself is what serialises
writers: deleting or replacing ``<file>.lock`` (a cleanup of stale lock files
does) cannot let two of them in.

What a store writes, every reader reads back: an append is refused (nothing
written) when its line breaks the limits the readers apply (``JsonLimits``:
characters, containers, nesting depth, counted the same way on both sides),
and every reader and writer takes ``limits=``. An append is committed or not,
and the store's memory always agrees with the file: a Ctrl-C landing while
the line is written or remembered is handled once the append is complete.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence, Set
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import count, repeat
from pathlib import Path
from types import FrameType
from typing import Any, BinaryIO, Generic, Literal, Protocol, Self, TypeVar, cast

from filelock import FileLock, Timeout

from .collector import CollectorPaused
from .errors import (
    CourseError,
    SessionEntryError,
    SessionFileError,
    SessionStoreError,
)
from .fast_reading import FastLineReader
from .text_rules import is_blank
from .wire import (
    DEFAULT_LIMITS,
    JsonLimits,
    JsonValueError,
    check_wire_limits,
    dumps_line,
    limits_in_force,
    loads_fast,
    loads_strict,
    nesting_depth,
)

if sys.platform != "win32":
    import fcntl

__all__ = [
    "EntryCodec",
    "InMemoryStore",
    "JsonlStore",
    "RepairResult",
    "SessionReadResult",
    "SessionStoreIOError",
    "StoredEntry",
    "UnterminatedTailWarning",
    "active_path",
    "read_jsonl_file",
    "read_jsonl_text",
]


class SessionStoreIOError(SessionStoreError, OSError):
    """The operating system refused a store's write (a full disk, a read-only file, ...).

    The message names the file and the operation and says whether the file is as
    it was. It is an ``OSError`` too (``errno`` kept), so code written to catch
    the raw error still catches it.
    """

    def __init__(self, message: str, *, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno


class StoredEntry(Protocol):
    """What a store needs of an entry: its id, its parent's id, its wire form and a copy."""

    @property
    def id(self) -> str: ...

    @property
    def parent_id(self) -> str | None: ...

    def to_wire(self) -> dict[str, Any]: ...

    def model_copy(self, *, deep: bool = ...) -> Self: ...


E = TypeVar("E", bound=StoredEntry)


@dataclass(frozen=True)
class EntryCodec(Generic[E]):
    """How a store turns values and lines into entries: the chapter's parser, bound once."""

    parse: Callable[[Any], E]
    """Any value (a wire dict, an entry) -> a fresh, validated entry sharing nothing with it."""
    validate_fresh: Callable[..., E]
    """``(dict, *, schema_keys_only)`` -> the entry, for a dict just parsed from JSON: no copy."""
    read_fast: FastLineReader | None = None
    """Optional: a line or fresh dict straight to its entry, or ``None`` when not sure."""

    def parse_line(self, line: str | bytes, limits: JsonLimits = DEFAULT_LIMITS) -> E:
        """One committed JSONL line (its text, or its UTF-8 bytes) -> the entry ``parse`` gives.

        Why not ``parse(loads_strict(text))``: the dict a reader has just parsed
        is held by nothing else, so the copy ``parse`` makes would only cost
        time (most of what opening a file costs). A problem takes ``parse``,
        which names it in the usual words. This runs once per line of a file.
        """
        if self.read_fast is not None:
            entry = self.read_fast(line, limits)
            if entry is not None:
                return cast(E, entry)
        return self.parse_line_carefully(line, limits)

    def parse_line_carefully(self, line: str | bytes, limits: JsonLimits = DEFAULT_LIMITS) -> E:
        """``parse_line`` without the fast reader: every problem named in the usual words."""
        try:
            value = _read_json_line(line, limits)  # depth and size limits checked here
        except JsonValueError as error:
            raise SessionEntryError(f"session entry (no id): {error}") from None
        return self._fresh_or_careful(value, limits=limits)

    def parse_within(self, value: Any, limits: JsonLimits = DEFAULT_LIMITS) -> E:
        """``parse`` with ``limits`` in force: the depth a free value may nest is theirs."""
        if limits is DEFAULT_LIMITS:
            return self.parse(value)
        with limits_in_force(limits):
            return self.parse(value)

    def parse_fresh(
        self, value: Any, *, schema_keys_only: bool = False, limits: JsonLimits = DEFAULT_LIMITS
    ) -> E:
        """``parse`` for a dict just built from parsed JSON (an importer's draft), without the copy.

        ``schema_keys_only``: the caller wrote every key from the schema's own
        names, so pydantic's search for unknown keys is skipped.
        """
        if self.read_fast is not None and type(value) is dict and limits is DEFAULT_LIMITS:
            entry = self.read_fast.validate(value, schema_keys_only=schema_keys_only)
            if entry is not None:
                return cast(E, entry)
        elif type(value) is dict and nesting_depth(value) <= limits.max_depth:
            return self._fresh_or_careful(value, schema_keys_only, limits)
        return self.parse_within(value, limits)  # names any problem

    def _fresh_or_careful(
        self, value: Any, schema_keys_only: bool = False, limits: JsonLimits = DEFAULT_LIMITS
    ) -> E:
        if type(value) is dict:
            try:
                return self.validate_fresh(value, schema_keys_only=schema_keys_only)
            except SessionEntryError:
                pass  # named by the careful path below, exactly as it always names it
        return self.parse_within(value, limits)


LOCK_TIMEOUT_SECONDS = 60.0
"""How long an append or a repair waits for another writer's lock before giving up."""

_LOCK_POLL_SECONDS = (0.0005, 0.02)
"""The first and the longest pause between two tries of a held lock (doubling in between)."""

_ANCHOR_BYTES = 1024
"""How many committed bytes a store compares again before each append, to notice a rewrite."""

# Flags for os.open: O_BINARY stops Windows from translating newlines, O_NONBLOCK
# keeps a FIFO swapped in after the check from hanging the open, and O_EXCL (with
# O_NOFOLLOW where it exists) makes sure a created file is new, never a link's target.
_BINARY = getattr(os, "O_BINARY", 0)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _BINARY
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | _BINARY


@dataclass(frozen=True)
class UnterminatedTailWarning:
    """The file ends in a line with no newline: a write that never committed."""

    line: int
    code: Literal["unterminated_tail"] = "unterminated_tail"


@dataclass(frozen=True)
class SessionReadResult(Generic[E]):
    """The committed entries of a JSONL text, plus warnings about what was ignored."""

    entries: list[E]
    warnings: list[UnterminatedTailWarning] = field(default_factory=list)


@dataclass(frozen=True)
class RepairResult:
    """What ``repair()`` moved aside: the sidecar file and how many bytes it holds."""

    sidecar_path: Path | None
    bytes_moved: int


def _check_append(entry: StoredEntry, *known: Set[str]) -> str | None:
    """Why ``entry`` cannot follow the entries whose ids are in ``known`` (``None`` when it can)."""
    parent_known = entry.parent_id is None
    for ids in known:
        if entry.id in ids:
            return f"duplicate entry id {entry.id!r}"
        parent_known = parent_known or entry.parent_id in ids
    return None if parent_known else f"entry {entry.id}: unknown parent {entry.parent_id!r}"


def _line_for(entry: StoredEntry, limits: JsonLimits) -> str:
    """The line ``entry`` is written as, refused unless every reader under ``limits`` reads it back.

    Why here and not only in the JSONL store: the in-memory store is the
    reference for the JSONL one, so both accept exactly the same entries.
    """
    try:
        with limits_in_force(limits):
            wire = entry.to_wire()
        line = dumps_line(wire)
        check_wire_limits(wire, limits, line=line)
    except JsonValueError as error:
        raise SessionStoreError(
            f"entry {entry.id}: not appended, nothing written: its line would be refused by "
            f"every reader ({error})"
        ) from None
    except RecursionError:  # limits deeper than the serialiser's stack allows
        raise SessionStoreError(
            f"entry {entry.id}: not appended, nothing written: nested too deep to serialise"
        ) from None
    return line


class InMemoryStore(Generic[E]):
    """An append-only list of parsed entries; the reference for the JSONL store.

    ``limits``: the entries it accepts are the ones whose JSONL line the readers
    accept under the same limits, so moving them to a file never fails.
    """

    def __init__(self, codec: EntryCodec[E], *, limits: JsonLimits = DEFAULT_LIMITS) -> None:
        self._codec = codec
        self.limits = limits
        self._entries: list[E] = []
        self._ids: set[str] = set()
        self._lock = threading.Lock()

    def append(self, entry: Any) -> None:
        """Parse ``entry`` and append a snapshot of it; the caller keeps its own object."""
        snapshot = self._codec.parse_within(entry, self.limits)
        _line_for(snapshot, self.limits)
        with _InterruptGuard() as guard, self._lock:
            problem = _check_append(snapshot, self._ids)
            if problem:
                raise SessionStoreError(problem)
            with guard.holding():  # a Ctrl-C between the two would leave an id without its entry
                self._entries.append(snapshot)
                self._ids.add(snapshot.id)

    def entries(self) -> list[E]:
        """Copies of every entry, in append order."""
        with self._lock:
            return [
                entry.model_copy(deep=True) for entry in self._entries
            ]  # valid snapshots: copy, no re-parse


# --- reading JSONL ----------------------------------------------------------


def _read_json_line(line: str | bytes, limits: JsonLimits) -> Any:
    """A line's JSON: bytes straight to the fast reader (it checks their UTF-8 as it reads);
    on any refusal, the text through ``loads_strict``, which names the problem."""
    if type(line) is bytes:
        try:
            return loads_fast(line, limits)
        except ValueError:
            line = _decoded(line)
    return loads_strict(cast(str, line), limits)


def _decoded(line: bytes) -> str:
    """A committed line's text: a newline commits its bytes, so they must be valid UTF-8."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not valid UTF-8") from None


_BRACES = ("{", b"{")


def _parse_lines(
    lines: Sequence[str | bytes],
    first_line: int,
    known: Set[str],
    codec: EntryCodec[E],
    limits: JsonLimits = DEFAULT_LIMITS,
) -> _Parsed[E]:
    """Parse committed lines (the first is ``first_line``), skipping blank ones; ``known`` holds
    the ids read before them.

    The garbage collector is paused while the lines are read (and restored, as
    it was, in a ``finally``): every object built here is kept by an entry, so
    a collection can free nothing, yet each full one would walk the whole heap,
    the caller's own objects included (a notebook holding a large path pays
    that on every pass). Measured in ``benchmarks/bench_store_open.py``.
    """
    with CollectorPaused() as paused:
        parsed = _parse_lines_collector_paused(lines, first_line, known, codec, limits)
        paused.kept = len(parsed.entries)
        return parsed


_CHUNK_LINES = 1024
"""How many lines the fast reader reads in one call: few calls, yet an early bad line is
reported without reading the rest of a large file first."""


def _read_fast(
    lines: Sequence[str | bytes], fast: FastLineReader | None, limits: JsonLimits
) -> Iterator[Any | None]:
    """Each line's entry from the fast reader, in order (``None``: not sure, or no fast reader)."""
    if fast is None:
        yield from repeat(None, len(lines))
        return
    for start in range(0, len(lines), _CHUNK_LINES):
        yield from fast.read_lines(lines[start : start + _CHUNK_LINES], limits)


def _parse_lines_collector_paused(
    lines: Sequence[str | bytes],
    first_line: int,
    known: Set[str],
    codec: EntryCodec[E],
    limits: JsonLimits,
) -> _Parsed[E]:
    entries: list[E] = []
    new_ids: set[str] = set()
    read = _read_fast(lines, codec.read_fast, limits)  # most lines: straight to the entry
    for number, line, entry in zip(count(first_line), lines, read):
        if line[:1] not in _BRACES and _is_blank_line(line, number):  # "{..." is never blank
            continue
        if entry is None:
            try:
                entry = codec.parse_line_carefully(line, limits)
            except (CourseError, ValueError) as error:
                raise SessionFileError(f"line {number}: {error}") from error
        entry_id, parent_id = entry.id, entry.parent_id
        if (
            entry_id in new_ids
            or entry_id in known
            or (parent_id is not None and parent_id not in new_ids and parent_id not in known)
        ):
            raise SessionFileError(f"line {number}: {_check_append(entry, known, new_ids)}")
        entries.append(entry)
        new_ids.add(entry_id)
    return _Parsed(entries, new_ids)


@dataclass(frozen=True)
class _Parsed(Generic[E]):
    """Entries read from committed lines, and their ids (so no one collects them again)."""

    entries: list[E]
    ids: set[str]


def _tail_warnings(tail_is_blank: bool, line: int) -> list[UnterminatedTailWarning]:
    """A whitespace-only tail is ignored silently; any other tail gets one warning."""
    return [] if tail_is_blank else [UnterminatedTailWarning(line=line)]


def read_jsonl_text(
    text: str, codec: EntryCodec[E], limits: JsonLimits = DEFAULT_LIMITS
) -> SessionReadResult[E]:
    """Read JSONL text by Chapter 10's rule: only newline-terminated lines count.

    Blank lines are skipped; an unterminated, non-blank last line is ignored with
    an ``unterminated_tail`` warning. A committed line that is not a valid entry,
    repeats an id or names an unknown parent raises ``SessionFileError`` (``line N``).
    """
    *committed, tail = text.split("\n")
    parsed = _parse_lines(committed, 1, set(), codec, limits)
    return SessionReadResult(parsed.entries, _tail_warnings(is_blank(tail), len(committed) + 1))


def _is_blank_line(line: str | bytes, number: int) -> bool:
    """Whether a committed line is blank (JavaScript's trim); its bytes must be UTF-8."""
    if isinstance(line, bytes):
        try:
            line = _decoded(line)
        except ValueError as error:
            raise SessionFileError(f"line {number}: {error}") from error
    return is_blank(line)


def _is_blank_tail(tail: bytes) -> bool:
    """A tail may end inside a character, so it is decoded leniently: U+FFFD is not blank."""
    return is_blank(tail.decode("utf-8", errors="replace"))


@dataclass(frozen=True)
class _Scan(Generic[E]):
    """The committed part of some bytes: its entries and their ids, its line count and length."""

    entries: list[E]
    ids: set[str]
    lines: int
    length: int


def _scan_committed(
    data: bytes,
    first_line: int,
    known: Set[str],
    codec: EntryCodec[E],
    limits: JsonLimits = DEFAULT_LIMITS,
) -> _Scan[E]:
    """Parse only the newline-terminated lines: a torn tail may cut a character."""
    length = data.rfind(b"\n") + 1
    raw_lines = data.split(b"\n")
    del raw_lines[-1]  # the tail after the last newline: not committed
    parsed = _parse_lines(raw_lines, first_line, known, codec, limits)
    return _Scan(parsed.entries, parsed.ids, len(raw_lines), length)


def _read_result(
    data: bytes, codec: EntryCodec[E], limits: JsonLimits = DEFAULT_LIMITS
) -> SessionReadResult[E]:
    """Chapter 10's rule applied to a file's bytes, so a tail cut mid-character still opens."""
    scan = _scan_committed(data, 1, set(), codec, limits)
    tail = data[scan.length :]
    return SessionReadResult(scan.entries, _tail_warnings(_is_blank_tail(tail), scan.lines + 1))


# --- the file system --------------------------------------------------------


def _file_error(path: Path, problem: str, error: OSError | None = None) -> SessionFileError:
    """Name only the file, not its folders, and say what went wrong."""
    reason = f" ({error.strerror or type(error).__name__})" if error is not None else ""
    return SessionFileError(f"{path.name}: {problem}{reason}")


_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def _require_regular_file(path: Path, info: os.stat_result) -> None:
    """Only a regular file can hold a session: a FIFO could hang a read, /dev/zero never ends."""
    if not stat.S_ISREG(info.st_mode):
        kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise _file_error(path, f"is {kind}, not a session file")


def _stat(path: Path) -> os.stat_result:
    """``os.stat`` (following a link, as opening would) with errors that name the file."""
    try:
        return os.stat(path)
    except FileNotFoundError as error:
        raise _file_error(path, "no such session file", error) from error
    except OSError as error:
        raise _file_error(path, "cannot be read", error) from error


@contextmanager
def _open_for_read(path: Path) -> Iterator[BinaryIO]:
    """Open ``path`` for reading once it is known to be a regular file (checked twice)."""
    _require_regular_file(path, _stat(path))
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as error:
        raise _file_error(path, "cannot be read", error) from error
    with os.fdopen(fd, "rb", buffering=0) as handle:
        _require_regular_file(path, os.fstat(fd))  # it may have been swapped since the check
        yield handle


def _read_bytes(path: Path) -> tuple[bytes, os.stat_result]:
    """The whole file and its identity, read from one open handle so both describe one file."""
    with _open_for_read(path) as handle:
        try:
            data = handle.read()
        except OSError as error:
            raise _file_error(path, "cannot be read", error) from error
        return data, os.fstat(handle.fileno())


def read_jsonl_file(
    path: str | os.PathLike[str], codec: EntryCodec[E], limits: JsonLimits = DEFAULT_LIMITS
) -> SessionReadResult[E]:
    """Read a session file without creating, touching or locking it (for viewers and reports)."""
    data, _ = _read_bytes(Path(path))
    return _read_result(data, codec, limits)


def _create_if_missing(path: Path) -> None:
    """Create an empty file and its folders, leaving an existing one (even a FIFO) untouched."""
    if os.path.lexists(path):
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _file_error(path, "its folder cannot be created", error) from error
    try:
        os.close(os.open(path, _CREATE_FLAGS, 0o666))
    except FileExistsError:
        return  # another process created it first
    except OSError as error:
        raise _file_error(path, "cannot be created", error) from error


def _write_all(handle: BinaryIO, data: bytes) -> None:
    """Write every byte (a write may take only part) and sync, so a return means committed."""
    written = 0
    while written < len(data):
        written += handle.write(data[written:]) or 0
    os.fsync(handle.fileno())


def _io_error(path: Path, operation: str, error: OSError, outcome: str) -> SessionStoreIOError:
    """A store's OS error in the course's words: the file, what was being done, what is left."""
    reason = error.strerror or str(error) or type(error).__name__
    return SessionStoreIOError(
        f"{path.name}: {operation} failed ({reason}); {outcome}", errno=error.errno
    )


def _append_or_undo(handle: BinaryIO, size: int, data: bytes, path: Path, entry_id: str) -> None:
    """Append ``data``; if that fails part-way, cut the file back to ``size`` (seen under the lock).

    The handle is unbuffered, so a failed write leaves no bytes in a buffer to be
    flushed later. ``size`` was measured while holding the lock, so the cut can
    only remove this append's own bytes, never a line another writer committed.
    An ``OSError`` (a full disk, a read-only file) becomes a ``SessionStoreIOError``
    naming the file and saying whether the file is as it was.
    """
    operation = f"appending entry {entry_id}"
    try:
        handle.seek(0, os.SEEK_END)  # appended at the end, as an append-mode handle would
        _write_all(handle, data)
    except BaseException as error:
        try:
            handle.truncate(size)
        except OSError as undo:
            if isinstance(error, OSError):
                raise _io_error(
                    path,
                    operation,
                    error,
                    f"cutting its partial line off failed too "
                    f"({undo.strerror or undo}): call repair() before appending again",
                ) from error
            raise
        if isinstance(error, OSError):
            raise _io_error(path, operation, error, "nothing was written") from error
        raise


def _sidecar_name(path: Path, number: int) -> Path:
    """``<file>.tail``, then ``<file>.tail.1``, ...: numbered so no earlier tail is replaced."""
    suffix = ".tail" if number == 0 else f".tail.{number}"
    return path.with_name(path.name + suffix)


def _write_sidecar(path: Path, data: bytes, mode: int) -> Path:
    """Write ``data`` to a new sidecar; ``O_EXCL`` never reuses a name, even a dangling link's."""
    number = 0
    while True:
        candidate = _sidecar_name(path, number)
        number += 1
        if os.path.lexists(candidate):
            continue
        try:
            fd = os.open(candidate, _CREATE_FLAGS, mode)
        except FileExistsError:
            continue  # taken between the check and the open
        except OSError as error:
            raise _io_error(path, "repair: creating the sidecar " + candidate.name, error,
                            "nothing was moved or cut") from error  # fmt: skip
        try:
            with os.fdopen(fd, "wb", buffering=0) as handle:
                _write_all(handle, data)
        except BaseException as error:
            candidate.unlink(missing_ok=True)  # created exclusively above, so it is ours
            if isinstance(error, OSError):
                raise _io_error(path, "repair: writing the sidecar " + candidate.name, error,
                                "nothing was moved or cut") from error  # fmt: skip
            raise
        return candidate


def _ends_committed(path: Path) -> bool:
    """True when the file is empty or ends in a newline: there is no tail to move."""
    with _open_for_read(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            return True
        handle.seek(size - 1)
        return handle.read(1) == b"\n"


# --- interrupts ---------------------------------------------------------------


_Handler = Callable[[int, FrameType | None], Any]


class _InterruptGuard:
    """Holds a Ctrl-C back while a store changes its file or its memory, and raises it after.

    Why: Python raises ``KeyboardInterrupt`` between any two bytecodes. Landing
    between the write of a line and the store's note of it, it would report a
    committed append as failed and leave the store's memory behind its file
    (later appends then read the store's own line as a duplicate); landing
    while a descriptor is opened or closed, it would leak a held lock. Inside
    ``holding()`` the signal is only recorded; it is raised, by the handler
    that was in place, as soon as the held section ends. Waiting for a lock is
    not held, so Ctrl-C still stops a wait. Only the main thread receives
    signals, so elsewhere this does nothing. Plain methods, no generators:
    each step between "not held" and "held" is a single statement.
    """

    def __init__(self) -> None:
        self._previous: _Handler | None = None
        self._holding = 0
        self._held: tuple[int, FrameType | None] | None = None

    def __enter__(self) -> Self:
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if callable(previous):  # SIG_DFL and SIG_IGN raise nothing in Python: nothing to hold
                self._previous = previous
                self._holding = 1  # until the with statement holds us: record, never raise
                signal.signal(signal.SIGINT, self._on_signal)
                self._holding = 0
        return self

    def __exit__(self, *exc_info: object) -> None:
        previous = self._previous
        if previous is not None:
            # ``signal.signal`` runs pending handlers before it swaps: held, so ours is
            # never left installed behind a raise.
            self._holding += 1
            signal.signal(signal.SIGINT, previous)
            self._previous = None
            self._holding -= 1
            self._deliver(previous)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        previous = self._previous
        if self._holding or previous is None:
            if self._held is None:
                self._held = (signum, frame)
            return
        previous(signum, frame)

    def _deliver(self, previous: _Handler | None) -> None:
        held = self._held
        if held is not None and previous is not None:
            self._held = None
            previous(*held)

    def holding(self) -> _Holding:
        """Record a Ctrl-C instead of raising it until the block ends (then raise it)."""
        return _Holding(self)


class _Holding:
    """The ``with`` block of ``_InterruptGuard.holding()``: a counter, so blocks may nest."""

    __slots__ = ("_guard",)

    def __init__(self, guard: _InterruptGuard) -> None:
        self._guard = guard

    def __enter__(self) -> None:
        self._guard._holding += 1

    def __exit__(self, *exc_info: object) -> None:
        guard = self._guard
        guard._holding -= 1
        if not guard._holding:
            guard._deliver(guard._previous)


# --- locking ------------------------------------------------------------------------

# Flags for the lock file: never follow a link, never wait on a FIFO, never leak to a child.
_LOCK_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | _BINARY
)


def _what_is(path: Path) -> str:
    """What stands at ``path`` (not following a link), in words for an error message."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return "missing"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return _KINDS.get(stat.S_IFMT(mode), "a regular file")


def _open_lock_file(path: Path) -> int:
    """Open (creating it when missing) the lock file; anything but a regular file is refused."""
    try:
        fd = os.open(path, _LOCK_FLAGS, 0o666)
    except OSError as error:
        kind = _what_is(path)
        if kind in ("missing", "a regular file"):
            raise _io_error(path, "opening the lock file", error, "nothing was written") from None
        raise SessionStoreError(
            f"{path.name}: the lock path is {kind}, not a lock file; remove it (nothing was written)"
        ) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise SessionStoreError(
            f"{path.name}: the lock path is {kind}, not a lock file; remove it (nothing was written)"
        )
    return fd


def _flock_until(fd: int, deadline: float) -> bool:
    """Take an exclusive ``flock`` on ``fd``, trying until ``deadline``; ``False`` when it passed.

    Polled (doubling pauses, at most 20 ms) so that a wait can time out and
    Ctrl-C can stop it.
    """
    pause, longest = _LOCK_POLL_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                raise
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(2 * pause, longest)


# --- the JSONL store --------------------------------------------------------


@dataclass(frozen=True)
class _FileView:
    """How far a store has read its file, and enough to notice the file changed under it."""

    identity: tuple[int, int]  # (device, inode): a replaced file is a different file
    committed: int  # bytes up to and including the last newline read
    lines: int  # physical lines in those bytes, blank ones included
    anchor: bytes  # the last committed bytes, compared again before each append
    tail: bytes  # the bytes after the last newline: nothing, blank, or a torn write
    count: int  # how many entries those committed bytes hold: the store's memory is these

    @property
    def size(self) -> int:
        """The file's size as last seen: where an append starts, and where a failed one cuts."""
        return self.committed + len(self.tail)


def _identity(info: os.stat_result) -> tuple[int, int]:
    """Device and inode: a file renamed over the path keeps the name but not these."""
    return (info.st_dev, info.st_ino)


class JsonlStore(Generic[E]):
    """A session kept as one JSON entry per line; every append is one committed line.

    ``limits`` govern both directions: the lines this store reads, and the
    lines it agrees to write (refusing, with nothing written, a line its
    readers would refuse).
    """

    def __init__(
        self,
        codec: EntryCodec[E],
        path: Path,
        entries: list[E],
        view: _FileView,
        *,
        ids: set[str] | None = None,
        limits: JsonLimits = DEFAULT_LIMITS,
    ) -> None:
        self._codec = codec
        self.path = path
        self.limits = limits
        self._entries = entries
        self._ids = {entry.id for entry in entries} if ids is None else ids
        self._view = view
        self._lock = threading.Lock()  # one thread of this store at a time
        self._lock_path = path.with_name(path.name + ".lock")

    @classmethod
    def open_with(
        cls,
        path: str | os.PathLike[str],
        codec: EntryCodec[E],
        *,
        limits: JsonLimits = DEFAULT_LIMITS,
    ) -> Self:
        """Open (creating the file and its folders when missing) and validate the whole file."""
        file = Path(path)
        _create_if_missing(file)
        data, info = _read_bytes(file)
        scan = _scan_committed(data, 1, set(), codec, limits)
        view = _FileView(
            identity=_identity(info),
            committed=scan.length,
            lines=scan.lines,
            anchor=data[max(0, scan.length - _ANCHOR_BYTES) : scan.length],
            tail=data[scan.length :],
            count=len(scan.entries),
        )
        return cls(codec, file, scan.entries, view, ids=scan.ids, limits=limits)

    def read(self) -> SessionReadResult[E]:
        """Re-read the file: its committed entries and any tail warning."""
        return read_jsonl_file(self.path, self._codec, self.limits)

    def entries(self) -> list[E]:
        """Copies of every committed entry this store has read or written, in file order."""
        with self._lock:
            return [  # valid snapshots: copy, no re-parse
                entry.model_copy(deep=True) for entry in self._entries[: self._view.count]
            ]

    def append(self, entry: Any) -> None:
        """Parse, then commit ``entry`` as one line; on any failure the file is left as it was.

        Committed or not, never half, and the store's memory always agrees with
        its file. Once the locks are held, a Ctrl-C waits until the line is
        written and remembered (or refused) and is raised after. Should any
        exception still cut the append short, the store reads its file again
        before letting it go: a line that did commit is then remembered, and
        the exception carries a note saying the entry was committed.
        """
        snapshot = self._codec.parse_within(entry, self.limits)
        line = _line_for(snapshot, self.limits).encode("utf-8")
        committed = False
        try:
            with _InterruptGuard() as guard, self._lock, self._locked_file(guard) as handle:
                before: int | None = None  # entries held when this store's line was written
                try:
                    self._heal()
                    self._catch_up(handle)
                    self._refuse_torn_tail()
                    problem = _check_append(snapshot, self._ids)
                    if problem:
                        raise SessionStoreError(problem)
                    # A whitespace-only tail, which reading ignores, is closed by a newline
                    # first, so the new line is never glued onto it.
                    data = (b"\n" if self._view.tail else b"") + line
                    before = self._view.count
                    _append_or_undo(handle, self._view.size, data, self.path, snapshot.id)
                    self._remember_appended(snapshot, data)
                    committed = True
                except BaseException:
                    with guard.holding():
                        committed = before is not None and self._settle(handle, snapshot, before)
                    raise
        except BaseException as error:
            if committed:
                error.add_note(f"entry {snapshot.id} was committed before this was raised")
            raise

    def _settle(self, handle: BinaryIO, snapshot: E, before: int) -> bool:
        """After an append failed part-way: memory back to the view, then the lines committed
        since read again. Still under the lock, the only new line can be this store's own;
        returns whether it is there (the append committed after all)."""
        self._heal()
        try:
            self._catch_up(handle)
        except (CourseError, OSError):
            return False  # memory is the view's: a prefix of the file, as always
        return self._view.count == before + 1 and self._entries[before].id == snapshot.id

    def repair(self) -> RepairResult:
        """Move an unterminated tail, byte for byte, into a sidecar file and truncate after it."""
        with _InterruptGuard() as guard, self._lock:
            if _ends_committed(self.path):  # no tail right now: nothing to move, nothing to lock
                return RepairResult(sidecar_path=None, bytes_moved=0)
            with self._locked_file(guard) as handle:
                self._heal()
                self._catch_up(handle)  # the "tail" may be a line another writer has finished
                tail = self._view.tail
                if not tail:
                    return RepairResult(sidecar_path=None, bytes_moved=0)
                mode = stat.S_IMODE(os.fstat(handle.fileno()).st_mode)
                sidecar = _write_sidecar(self.path, tail, mode)  # saved before anything is cut
                try:
                    handle.truncate(self._view.committed)
                    os.fsync(handle.fileno())
                except OSError as error:
                    raise _io_error(
                        self.path, "repair: cutting the tail", error,
                        f"its bytes are saved in {sidecar.name}; the file still ends in them",
                    ) from error  # fmt: skip
                self._view = replace(self._view, tail=b"")
                return RepairResult(sidecar_path=sidecar, bytes_moved=len(tail))

    @contextmanager
    def _locked_file(self, guard: _InterruptGuard) -> Iterator[BinaryIO]:
        """Hold both locks, then yield the file open for writing; no cooperating writer runs meanwhile.

        ``<file>.lock`` first (what other tools know of), then the session file
        itself: that second lock lives on the file's own inode, so deleting or
        replacing the lock file lets no second writer in. Once both are held,
        Ctrl-C is held back (``guard``) until they are released again.
        """
        if sys.platform == "win32":  # no flock: the lock file alone, through filelock
            with self._lock_file_alone(guard) as handle:
                yield handle
            return
        deadline = time.monotonic() + LOCK_TIMEOUT_SECONDS
        lock_fd = -1
        handle: BinaryIO | None = None
        try:
            with guard.holding():  # an interrupt here would leak the descriptor
                lock_fd = _open_lock_file(self._lock_path)
            if not _flock_until(lock_fd, deadline):
                raise self._timeout(self._lock_path.name)
            with guard.holding():
                handle = self._open_for_writing()
            if not _flock_until(handle.fileno(), deadline):
                raise self._timeout(self.path.name)
            with guard.holding():
                self._check_still_at_path(handle)
                yield handle
        finally:  # closing releases both locks; nested, so an interrupt skips neither close
            try:
                if handle is not None:
                    handle.close()
            finally:
                if lock_fd >= 0:
                    os.close(lock_fd)

    @contextmanager
    def _lock_file_alone(self, guard: _InterruptGuard) -> Iterator[BinaryIO]:
        """Windows: the lock file through ``filelock`` (``msvcrt``), then the file."""
        lock = FileLock(str(self._lock_path), thread_local=False)
        try:
            lock.acquire(timeout=LOCK_TIMEOUT_SECONDS)
        except Timeout:
            raise self._timeout(self._lock_path.name) from None
        try:
            with guard.holding(), self._open_for_writing() as handle:
                yield handle
        finally:
            lock.release()

    def _timeout(self, held: str) -> SessionStoreError:
        return SessionStoreError(
            f"{self.path.name}: another writer has held {held} "
            f"for more than {LOCK_TIMEOUT_SECONDS:g} s (nothing was written)"
        )

    def _open_for_writing(self) -> BinaryIO:
        """The session file, unbuffered, for reading and writing; never created here.

        A session removed since it was opened (or a link whose target is gone)
        stays removed, and the append is refused.
        """
        try:
            return cast(BinaryIO, self.path.open("r+b", buffering=0))
        except FileNotFoundError:
            raise SessionStoreError(
                f"{self.path.name}: the file was removed since it was opened; open it again"
            ) from None
        except OSError as error:
            raise SessionStoreIOError(
                f"{self.path.name}: cannot open it for writing: {error.strerror or error} "
                "(nothing was written)",
                errno=error.errno,
            ) from None

    def _check_still_at_path(self, handle: BinaryIO) -> None:
        """The locked file must still be the one at the path: a file renamed over it is not."""
        try:
            at_path = _identity(os.stat(self.path))
        except OSError:
            at_path = None
        if at_path != _identity(os.fstat(handle.fileno())):
            raise SessionStoreError(
                f"{self.path.name}: the file was replaced or removed since it was opened; "
                "open it again"
            )

    def _heal(self) -> None:
        """Forget entries remembered past the view: what an exception mid-update could leave.

        The view is assigned last, in one step, so it is the truth; entries and
        ids beyond its count were never committed to memory and are dropped (the
        next catch-up reads them again from the file if they are there).
        """
        count = self._view.count
        if len(self._entries) > count:
            for extra in self._entries[count:]:
                self._ids.discard(extra.id)
            del self._entries[count:]

    def _catch_up(self, handle: BinaryIO) -> None:
        """Read the lines other writers committed since this store last looked (only new bytes)."""
        view = self._view
        info = os.fstat(handle.fileno())
        if _identity(info) != view.identity:
            raise SessionStoreError(
                f"{self.path.name}: the file was replaced or removed since it was opened; "
                "open it again"
            )
        if info.st_size < view.committed:
            raise SessionStoreError(
                f"{self.path.name}: the file shrank from {view.committed} to {info.st_size} "
                "bytes since this store read it; open it again"
            )
        start = view.committed - len(view.anchor)
        try:
            handle.seek(start)
            data = handle.read()
        except OSError as error:
            raise _io_error(self.path, "reading what other writers added", error,
                            "nothing was written") from error  # fmt: skip
        if not data.startswith(view.anchor):
            raise SessionStoreError(
                f"{self.path.name}: bytes before offset {view.committed} changed since this "
                "store read them; open it again"
            )
        fresh = data[len(view.anchor) :]
        scan = _scan_committed(fresh, view.lines + 1, self._ids, self._codec, self.limits)
        self._entries.extend(scan.entries)
        self._ids.update(scan.ids)
        self._view = replace(
            view,
            committed=view.committed + scan.length,
            lines=view.lines + scan.lines,
            anchor=(view.anchor + fresh[: scan.length])[-_ANCHOR_BYTES:],
            tail=fresh[scan.length :],
            count=view.count + len(scan.entries),
        )

    def _refuse_torn_tail(self) -> None:
        """A line glued onto a torn write would corrupt both, so appends wait for ``repair()``."""
        if self._view.tail and not _is_blank_tail(self._view.tail):
            raise SessionStoreError(
                f"{self.path.name}: line {self._view.lines + 1} is an unterminated tail; "
                "call repair() before appending"
            )

    def _remember_appended(self, entry: E, data: bytes) -> None:
        """Advance the view past this store's own line, so the next catch-up skips it."""
        view = self._view
        written = view.tail + data  # a closed blank tail became a committed line too
        self._entries.append(entry)
        self._ids.add(entry.id)
        self._view = replace(
            view,
            committed=view.size + len(data),
            lines=view.lines + written.count(b"\n"),
            anchor=(view.anchor + written)[-_ANCHOR_BYTES:],
            tail=b"",
            count=view.count + 1,
        )


# --- the active path --------------------------------------------------------


def active_path(entries: Iterable[E], leaf_id: str) -> list[E]:
    """The entries from the root to ``leaf_id``, root first (the entries themselves, no copies).

    Refuses what makes the path ambiguous or endless: a duplicate id, an
    unknown leaf, a missing parent, a cycle (``SessionStoreError`` naming it).
    """
    by_id: dict[str, E] = {}
    for entry in entries:
        if entry.id in by_id:
            raise SessionStoreError(f"duplicate entry id {entry.id!r}")
        by_id[entry.id] = entry
    if leaf_id not in by_id:
        raise SessionStoreError(f"unknown leaf id {leaf_id!r}")
    path: list[E] = []
    seen: set[str] = set()
    current: str | None = leaf_id
    while current is not None:
        if current in seen:
            raise SessionStoreError(f"cycle in parent chain at entry {current!r}")
        step = by_id.get(current)
        if step is None:
            raise SessionStoreError(f"entry {path[-1].id}: missing parent {current!r}")
        seen.add(current)
        path.append(step)
        current = step.parent_id
    path.reverse()
    return path
