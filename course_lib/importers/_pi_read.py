"""Read a pi session file into numbered JSON records, by Chapter 10's line rule.

A line counts only once its newline committed it: an unterminated last line is
a torn write and is left out (the caller notes it), even when the write stopped
in the middle of a multi-byte character. Any committed line that is not a JSON
object with a string ``type`` is an error naming its line, because guessing
what a broken line meant would silently change the session.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..text_rules import is_blank
from ..wire import loads_strict
from ._base import PiImportError

__all__ = ["RawFile", "RawRecord", "decode_pi_bytes", "read_pi_records", "read_regular_file"]

# Read-only; O_NONBLOCK keeps a FIFO from hanging the open, O_BINARY stops Windows
# from translating newlines.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


@dataclass(frozen=True)
class RawRecord:
    """One committed, non-blank line: its physical line number, its index and its JSON."""

    line: int  # 1-based physical line (blank lines counted)
    index: int  # 0-based among non-blank records, header included (pi's entry index)
    record: dict[str, Any]


@dataclass(frozen=True)
class RawFile:
    """The committed records of a file, and the unterminated tail that was left out."""

    records: list[RawRecord]
    tail_line: int | None  # line number of an ignored unterminated tail
    tail_chars: int


def read_regular_file(path: Path) -> bytes:
    """The bytes of ``path``, opened read-only; a directory, FIFO or device is an ``OSError``.

    Why check: reading a FIFO can wait forever and ``/dev/zero`` never ends, and
    a viewer must never create, lock or change the file it reads.
    """
    fd = os.open(path, _READ_FLAGS)
    with os.fdopen(fd, "rb", buffering=0) as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return handle.read()


def decode_pi_bytes(data: bytes) -> str:
    """UTF-8 text of a file's committed lines; a bad byte there is an error naming its line.

    Only the bytes up to the last newline must be valid: a torn tail may stop
    inside a character (a newline byte never occurs inside one), so it is
    decoded leniently, with U+FFFD for the cut character, and later left out.
    """
    committed = data.rfind(b"\n") + 1
    try:
        text = data[:committed].decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PiImportError("not valid UTF-8", line=line) from error
    return text + data[committed:].decode("utf-8", errors="replace")


def _parse_line(text: str, number: int) -> dict[str, Any]:
    """One committed line as a JSON object with a string ``type``, or an error naming it.

    ``loads_strict`` refuses with a ``ValueError`` of some kind (bad syntax,
    nesting or size limits, lone surrogates, unsafe integers); a
    ``RecursionError`` is caught too, so no limit it might miss becomes a crash.
    """
    try:
        value = loads_strict(text)
    except (ValueError, RecursionError) as error:
        raise PiImportError(f"not valid JSON ({error})", line=number) from error
    if not isinstance(value, dict):
        raise PiImportError(f"expected a JSON object, got {type(value).__name__}", line=number)
    if not isinstance(value.get("type"), str):
        raise PiImportError("entry has no string 'type'", line=number)
    return value


def read_pi_records(text: str) -> RawFile:
    """Split ``text`` into committed records; blank lines are skipped, the tail is left out."""
    *committed, tail = text.split("\n")
    records: list[RawRecord] = []
    for number, line in enumerate(committed, start=1):
        if is_blank(line):
            continue
        records.append(RawRecord(line=number, index=len(records), record=_parse_line(line, number)))
    has_tail = not is_blank(tail)
    return RawFile(
        records=records,
        tail_line=len(committed) + 1 if has_tail else None,
        tail_chars=len(tail) if has_tail else 0,
    )
