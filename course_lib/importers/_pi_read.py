"""Read a pi session file into numbered JSON records, by Chapter 10's line rule.

A line counts only once its newline committed it: an unterminated last line is
a torn write and is left out (the caller notes it). Any committed line that is
not a JSON object with a string ``type`` is an error naming its line, because
guessing what a broken line meant would silently change the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..wire import loads_strict
from ._base import PiImportError

__all__ = ["RawFile", "RawRecord", "decode_pi_bytes", "read_pi_records"]


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


def decode_pi_bytes(data: bytes) -> str:
    """UTF-8 text of a file; a bad byte is an error naming its line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PiImportError("not valid UTF-8", line=line) from error


def _parse_line(text: str, number: int) -> dict[str, Any]:
    """One committed line as a JSON object with a string ``type``, or an error naming it."""
    try:
        value = loads_strict(text)
    except ValueError as error:
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
        if not line.strip():
            continue
        records.append(RawRecord(line=number, index=len(records), record=_parse_line(line, number)))
    has_tail = bool(tail.strip())
    return RawFile(
        records=records,
        tail_line=len(committed) + 1 if has_tail else None,
        tail_chars=len(tail) if has_tail else 0,
    )
