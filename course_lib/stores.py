"""Chapter 10 carry-over: two session stores, JSONL recovery and the active path.

Both stores keep what ``parse_session_entry`` returns, so a compaction needs no
store code of its own. In a JSONL file a line is committed by its newline: an
unterminated last line is a torn write, ignored with a warning and never
appended after until ``repair()`` moved it aside.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .entries import MessageEntry, SessionEntry, parse_session_entry
from .errors import CourseError, SessionFileError, SessionStoreError
from .messages import MessageModel
from .wire import dumps_line, loads_strict

__all__ = [
    "InMemorySessionStore",
    "JsonlSessionStore",
    "RepairResult",
    "SessionReadResult",
    "UnterminatedTailWarning",
    "messages_on_path",
    "path_to",
    "recover_jsonl",
]


@dataclass(frozen=True)
class UnterminatedTailWarning:
    """The file ends in a line with no newline: a write that never committed."""

    line: int
    code: Literal["unterminated_tail"] = "unterminated_tail"


@dataclass(frozen=True)
class SessionReadResult:
    """The committed entries of a JSONL text, plus warnings about what was ignored."""

    entries: list[SessionEntry]
    warnings: list[UnterminatedTailWarning] = field(default_factory=list)


@dataclass(frozen=True)
class RepairResult:
    """What ``repair()`` moved aside: the sidecar file and how many bytes it holds."""

    sidecar_path: Path | None
    bytes_moved: int


def _check_append(known_ids: set[str], entry: SessionEntry) -> str | None:
    """Why ``entry`` cannot follow the entries in ``known_ids`` (``None`` when it can)."""
    if entry.id in known_ids:
        return f"duplicate entry id {entry.id!r}"
    if entry.parent_id is not None and entry.parent_id not in known_ids:
        return f"entry {entry.id}: unknown parent {entry.parent_id!r}"
    return None


class InMemorySessionStore:
    """An append-only list of parsed entries; the reference for the JSONL store."""

    def __init__(self) -> None:
        self._entries: list[SessionEntry] = []
        self._ids: set[str] = set()
        self._lock = threading.Lock()

    def append(self, entry: Any) -> None:
        """Parse ``entry`` and append a snapshot of it; the caller keeps its own object."""
        snapshot = parse_session_entry(entry)
        with self._lock:
            problem = _check_append(self._ids, snapshot)
            if problem:
                raise SessionStoreError(problem)
            self._entries.append(snapshot)
            self._ids.add(snapshot.id)

    def entries(self) -> list[SessionEntry]:
        """Copies of every entry, in append order."""
        with self._lock:
            return [parse_session_entry(entry) for entry in self._entries]


def _parse_line(text: str, number: int) -> SessionEntry:
    try:
        return parse_session_entry(loads_strict(text))
    except (CourseError, ValueError) as error:
        raise SessionFileError(f"line {number}: {error}") from error


def recover_jsonl(text: str) -> SessionReadResult:
    """Read JSONL text by Chapter 10's rule: only newline-terminated lines count.

    Blank lines are skipped; an unterminated, non-blank last line is ignored with
    an ``unterminated_tail`` warning. A committed line that is not a valid entry,
    repeats an id or names an unknown parent raises ``SessionFileError`` (``line N``).
    """
    *committed, tail = text.split("\n")
    entries: list[SessionEntry] = []
    ids: set[str] = set()
    for number, line in enumerate(committed, start=1):
        if not line.strip():
            continue
        entry = _parse_line(line, number)
        problem = _check_append(ids, entry)
        if problem:
            raise SessionFileError(f"line {number}: {problem}")
        entries.append(entry)
        ids.add(entry.id)
    warnings = [UnterminatedTailWarning(line=len(committed) + 1)] if tail.strip() else []
    return SessionReadResult(entries=entries, warnings=warnings)


class JsonlSessionStore:
    """A session kept as one JSON entry per line; every append is one committed line."""

    def __init__(self, path: Path, result: SessionReadResult) -> None:
        self.path = path
        self._entries = result.entries
        self._ids = {entry.id for entry in result.entries}
        self._warnings = result.warnings
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> JsonlSessionStore:
        """Open (creating the file and its folders when missing) and validate the whole file."""
        file = Path(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.touch(exist_ok=True)
        return cls(file, recover_jsonl(_read_text(file)))

    def read(self) -> SessionReadResult:
        """Re-read the file: its committed entries and any tail warning."""
        return recover_jsonl(_read_text(self.path))

    def entries(self) -> list[SessionEntry]:
        """Copies of every committed entry, in file order."""
        with self._lock:
            return [parse_session_entry(entry) for entry in self._entries]

    def append(self, entry: Any) -> None:
        """Parse, then commit ``entry`` as one line; on any failure the file is left as it was."""
        snapshot = parse_session_entry(entry)
        with self._lock:
            if self._warnings:
                line = self._warnings[0].line
                raise SessionStoreError(
                    f"{self.path.name}: line {line} is an unterminated tail; "
                    "call repair() before appending"
                )
            problem = _check_append(self._ids, snapshot)
            if problem:
                raise SessionStoreError(problem)
            _append_committed(self.path, dumps_line(snapshot.to_wire()).encode("utf-8"))
            self._entries.append(snapshot)
            self._ids.add(snapshot.id)

    def repair(self) -> RepairResult:
        """Move an unterminated tail, byte for byte, into a sidecar file and truncate after it."""
        with self._lock:
            data = self.path.read_bytes()
            cut = data.rfind(b"\n") + 1
            tail = data[cut:]
            if not tail:
                return RepairResult(sidecar_path=None, bytes_moved=0)
            sidecar = _free_sidecar(self.path)
            sidecar.write_bytes(tail)
            with self.path.open("r+b") as handle:
                handle.truncate(cut)
                handle.flush()
                os.fsync(handle.fileno())
            self._warnings = []
            return RepairResult(sidecar_path=sidecar, bytes_moved=len(tail))


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise SessionFileError(f"line {line}: not valid UTF-8") from error


def _append_committed(path: Path, line: bytes) -> None:
    """Append one line; if writing fails part-way, truncate back to the old size.

    Unbuffered, so a failed write leaves no bytes in a buffer to be flushed later
    (by the truncate or the close). A whitespace-only tail, which reading ignores,
    is closed by a newline first, so the new line is never glued onto it.
    """
    with path.open("a+b", buffering=0) as handle:
        size = handle.seek(0, os.SEEK_END)
        if size:
            handle.seek(size - 1)
            if handle.read(1) != b"\n":
                line = b"\n" + line
        try:
            written = 0
            while written < len(line):
                written += handle.write(line[written:]) or 0
            os.fsync(handle.fileno())
        except BaseException:
            handle.truncate(size)
            raise


def _free_sidecar(path: Path) -> Path:
    candidate = path.with_name(path.name + ".tail")
    number = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.tail.{number}")
        number += 1
    return candidate


def path_to(entries: Iterable[SessionEntry], leaf_id: str) -> list[SessionEntry]:
    """The active path from the root to ``leaf_id``, root first, as copies."""
    by_id: dict[str, SessionEntry] = {}
    for entry in entries:
        if entry.id in by_id:
            raise SessionStoreError(f"duplicate entry id {entry.id!r}")
        by_id[entry.id] = entry
    if leaf_id not in by_id:
        raise SessionStoreError(f"unknown leaf id {leaf_id!r}")
    path: list[SessionEntry] = []
    seen: set[str] = set()
    current: str | None = leaf_id
    while current is not None:
        if current in seen:
            raise SessionStoreError(f"cycle in parent chain at entry {current!r}")
        entry = by_id.get(current)
        if entry is None:
            raise SessionStoreError(f"entry {path[-1].id}: missing parent {current!r}")
        seen.add(current)
        path.append(entry)
        current = entry.parent_id
    return [parse_session_entry(entry) for entry in reversed(path)]


def messages_on_path(entries: Sequence[SessionEntry], leaf_id: str) -> list[MessageModel]:
    """The agent messages on the active path to ``leaf_id``, in order, as copies."""
    return [entry.message for entry in path_to(entries, leaf_id) if isinstance(entry, MessageEntry)]
