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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...base.text_rules import is_blank
from ...base.wire import (
    DEFAULT_LIMITS,
    JsonLimits,
    JsonValueError,
    check_line_limits,
    loads_fast,
    loads_strict,
)
from ._base import PiImportError

__all__ = [
    "CommittedLines",
    "RawRecord",
    "read_regular_file",
    "split_pi_bytes",
    "split_pi_text",
    "take_records",
]

_GROWTH = 8
"""How many objects, arrays and levels a course entry may add to its pi line (a content string
becomes a list of one block, a custom entry's fields move under ``value``, ...), at most."""


# Read-only; O_NONBLOCK keeps a FIFO from hanging the open, O_BINARY stops Windows
# from translating newlines.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


RawRecord = tuple[int, int, dict[str, Any]]
"""One committed, non-blank line: ``(line, index, record)``.

``line`` is its 1-based physical line (blank lines counted), ``index`` its 0-based
position among the non-blank records, header included (pi's entry index), and
``record`` its JSON object. A plain tuple: one is made for every line of a file,
and the reader unpacks it at once.
"""


@dataclass
class CommittedLines:
    """A file's committed lines, not yet decoded or parsed, and the tail that was left out.

    Why not parsed yet: ``take_records`` reads them one at a time and lets each
    line go once read, so a file's text never sits in memory beside its records.
    """

    lines: list[bytes] | list[str]  # in file order; emptied by ``take_records``
    count: int  # how many committed lines there were, blank ones included
    tail_chars: int  # characters of a non-blank unterminated tail (0: none)
    last_record_line: int  # the last non-blank committed line (0: none)
    near_limits: set[int] = field(default_factory=set)
    """Lines ``take_records`` read that are long or bracket-rich enough for their course entry
    to break the limits: only those entries are measured before they are returned."""

    @property
    def tail_line(self) -> int | None:
        """The line number of an ignored unterminated tail, if there is one."""
        return self.count + 1 if self.tail_chars else None


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


def split_pi_bytes(data: bytes) -> CommittedLines:
    """The committed lines of a file's bytes; only they must be valid UTF-8 (checked per line).

    A torn tail may stop inside a character (a newline byte never occurs inside
    one), so it is decoded leniently, with U+FFFD for the cut character, and
    only measured.
    """
    lines = data.split(b"\n")
    tail = lines.pop().decode("utf-8", errors="replace")
    return _committed(lines, tail)


def split_pi_text(text: str) -> CommittedLines:
    """The committed lines of a file's text (see ``split_pi_bytes``)."""
    lines = text.split("\n")
    tail = lines.pop()
    return _committed(lines, tail)


def _committed(lines: list[bytes] | list[str], tail: str) -> CommittedLines:
    last = len(lines)
    while last and is_blank(_lenient(lines[last - 1])):
        last -= 1
    return CommittedLines(lines, len(lines), 0 if is_blank(tail) else len(tail), last)


def _lenient(line: bytes | str) -> str:
    return line if isinstance(line, str) else line.decode("utf-8", errors="replace")


def take_records(
    committed: CommittedLines, limits: JsonLimits = DEFAULT_LIMITS
) -> Iterator[RawRecord]:
    """Decode and parse the committed lines in order, skipping blank ones, releasing each line.

    A line that is not valid UTF-8 or not a JSON object with a string ``type``
    is an error naming it, raised when the reading reaches it. A line long,
    deep or container-rich enough that its course entry might break ``limits``
    is noted in ``committed.near_limits``: the fast reader is given limits
    ``_GROWTH`` tighter, so such a line is read again by the careful reader
    (under ``limits`` themselves) and noted; every other line costs nothing more.
    """
    lines = committed.lines
    lines.reverse()  # popped from the end: each line is released as soon as it is read
    number = index = 0
    tight = JsonLimits(
        max_line_chars=limits.max_line_chars // 4,  # a course line is never 4 times its pi line
        max_depth=max(0, limits.max_depth - _GROWTH),
        max_containers=max(0, limits.max_containers - _GROWTH),
    )
    while lines:
        raw = lines.pop()
        number += 1
        record = None
        # Most lines: an object read from its bytes by ``loads_fast``, with a string ``type``.
        # Anything else (a blank line too) is read again as text, so every error names its
        # line in the usual words.
        if type(raw) is bytes and raw[:1] == b"{":
            try:
                value = loads_fast(raw, tight)
            except ValueError:
                pass
            else:
                if type(value) is dict and type(value.get("type")) is str:
                    record = value
        if record is None:
            text = raw if isinstance(raw, str) else _decode(raw, number)
            if text[:1] != "{" and is_blank(text):  # a line starting with a brace is never blank
                continue
            record = _parse_line(text, number, limits)
            if type(raw) is bytes or not _within(text, tight):
                committed.near_limits.add(number)
        yield number, index, record
        index += 1


def _within(text: str, limits: JsonLimits) -> bool:
    """Whether a line of text is within ``limits`` (the text path has no fast reader to ask)."""
    try:
        check_line_limits(text, limits)
    except JsonValueError:
        return False
    return True


def _decode(raw: bytes, number: int) -> str:
    """One committed line: a newline committed its bytes, so they must be valid UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PiImportError("not valid UTF-8", line=number) from error


def _parse_line(text: str, number: int, limits: JsonLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """One committed line as a JSON object with a string ``type``, or an error naming it.

    ``loads_strict`` refuses with a ``ValueError`` of some kind (bad syntax,
    nesting or size limits, lone surrogates, unsafe integers); a
    ``RecursionError`` is caught too, so no limit it might miss becomes a crash.
    """
    try:
        value = loads_strict(text, limits)
    except (ValueError, RecursionError) as error:
        raise PiImportError(f"not valid JSON ({error})", line=number) from error
    if not isinstance(value, dict):
        raise PiImportError(f"expected a JSON object, got {type(value).__name__}", line=number)
    if not isinstance(value.get("type"), str):
        raise PiImportError("entry has no string 'type'", line=number)
    return value
