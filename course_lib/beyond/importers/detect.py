"""Which agent wrote a session file, read from its first records, and its import.

pi starts a file with a ``{"type": "session"}`` header; Codex writes
``{timestamp, type, payload}`` records (its legacy layout starts with a
``{"id", "timestamp"}`` line and no type); Claude Code writes records of its own
types carrying a ``uuid``, a ``sessionId`` or a ``parentUuid``. Claude Code may
open a file with bookkeeping records that carry none of these (a permission
mode, a title), so ``recognise_format`` reads the first committed records, a
bounded number, and the first one that carries a format's mark decides. The
answer is never a guess: a file none of them recognises, or a line that cannot
be read, is an ``AgentImportError`` that says so in one sentence, naming the line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...base.text_rules import is_blank
from ...base.wire import JsonValueError, loads_strict
from ...chapter.models import SessionEntry
from ._agent_base import (
    FORMAT_LABELS,
    AgentCompaction,
    AgentImportError,
    AgentImportResult,
    AgentUsage,
)
from ._base import ImportNote, PiImportError, count_kinds, shown
from ._pi_figures import pi_compactions, pi_usage
from ._pi_read import read_regular_file
from .claude_code import _subagent_files, import_claude_code_bytes, is_claude_code_record
from .codex import import_codex_bytes, is_codex_record, is_legacy_codex_header
from .pi import ImportResult, import_pi_bytes, is_pi_session_header

__all__ = [
    "COURSE_FORMAT",
    "SCAN_BYTES",
    "SCAN_RECORDS",
    "SESSION_FORMATS",
    "DetectedImport",
    "RecognisedFormat",
    "detect_format",
    "import_session",
    "import_session_bytes",
    "recognise_format",
]

SESSION_FORMATS = tuple(FORMAT_LABELS)
"""The formats ``import_session`` reads: ``"pi"``, ``"claude-code"``, ``"codex"``."""

COURSE_FORMAT = "course"
"""What ``recognise_format`` calls a course session file (read it, it needs no import)."""

SCAN_RECORDS = 64
"""At most this many committed, non-blank records are read to recognise a file.

Why a bound, and why this one: Claude Code may write a few bookkeeping records
before its first message (a permission mode, a title, a file snapshot, a queued
prompt), some without a uuid; real files hold a handful, never dozens. A file
whose first 64 records carry no format's mark is not one of them."""

SCAN_BYTES = 4 * 1024 * 1024
"""No new record is read to recognise a file once this many bytes were read.

Why: a line may hold up to the reader's 16 MB, so 64 records could be a gigabyte
of a file that is no session at all; 4 MB is far more than the bookkeeping
records before a first message take. The line that crosses the bound is read
whole: a line is the smallest thing a reader reads."""

EXPECTED = "a pi, Claude Code or Codex CLI session"
_COURSE_TYPES = ("message", "metadata", "compaction")


def _claude_code_mark(record: Any) -> bool:
    """A Claude Code record: one of its types with one of its ids (``is_claude_code_record``),
    or any record linked into its tree.

    A record with both ``uuid`` and ``parentUuid`` is linked into Claude Code's
    tree whatever its type (no other format writes the two), so a type the
    importer does not know yet still counts.
    """
    if is_claude_code_record(record):
        return True
    return (
        isinstance(record, dict)
        and isinstance(record.get("type"), str)
        and "uuid" in record
        and "parentUuid" in record
    )


def _is_course_entry(record: Any) -> bool:
    """A course session entry: one of the course's three types, with an id."""
    return isinstance(record, dict) and record.get("type") in _COURSE_TYPES and "id" in record


def detect_format(record: Any) -> str | None:
    """``"pi"``, ``"claude-code"`` or ``"codex"`` for a file's first record; ``None`` for anything else.

    One record only: a Claude Code file may open with records that carry no
    mark of it (``recognise_format`` reads on, within bounds).
    """
    if is_pi_session_header(record):
        return "pi"
    if is_codex_record(record) or is_legacy_codex_header(record):
        return "codex"
    if _claude_code_mark(record):
        return "claude-code"
    return None


@dataclass(frozen=True)
class RecognisedFormat:
    """What a file is (``SESSION_FORMATS`` or ``COURSE_FORMAT``) and the line whose record said so."""

    format: str
    line: int


def _refusal(message: str, line: int | None) -> AgentImportError:
    """An error whose message names its line itself (after the file's name), with ``line`` set."""
    error = AgentImportError(message)
    error.line = line
    return error


def _record_of(raw: bytes, number: int, name: str) -> Any:
    """One committed line as JSON, or the reader's own reason why it is none, naming the line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _refusal(f"{name}: line {number} is not valid UTF-8", number) from None
    try:
        return loads_strict(text)
    except JsonValueError as error:  # a limit every reader applies, or text no reader takes
        raise _refusal(f"{name}: the JSON reader refuses line {number}: {error}", number) from None
    except (ValueError, RecursionError) as error:
        raise _refusal(
            f"{name}: line {number} is not valid JSON ({error}); expected {EXPECTED}", number
        ) from None


def _committed_lines(data: bytes) -> list[tuple[int, bytes]]:
    """The first committed, non-blank lines (number, bytes), within ``SCAN_RECORDS`` and ``SCAN_BYTES``."""
    found: list[tuple[int, bytes]] = []
    start = number = 0
    while start < len(data) and start < SCAN_BYTES and len(found) < SCAN_RECORDS:
        end = data.find(b"\n", start)
        if end < 0:
            break  # an unterminated line never committed
        number += 1
        raw = data[start:end]
        if raw[:1] == b"{" or not is_blank(raw.decode("utf-8", errors="replace")):
            found.append((number, raw))
        start = end + 1
    return found


def recognise_format(data: bytes, *, name: str = "the file") -> RecognisedFormat:
    """Which format a file's bytes are in, from its first committed records.

    The first record decides when it is a pi header, the first line of Codex's
    legacy layout or a course entry (each is only ever first); otherwise the
    first record that carries Codex's or Claude Code's mark does. Records
    before it that carry none (Claude Code's bookkeeping) are passed over; a
    line that is not a JSON object stops the reading with its reason.
    """
    lines = _committed_lines(data)
    if not lines:
        raise AgentImportError(f"{name}: no committed line, so no session format to recognise")
    passed: list[tuple[int, dict[str, Any]]] = []
    for number, raw in lines:
        record = _record_of(raw, number, name)
        if not isinstance(record, dict):
            kind = type(record).__name__
            raise _refusal(
                f"{name}: line {number} is a JSON {kind}, not an object; expected {EXPECTED}",
                number,
            )
        if not passed:
            if is_pi_session_header(record):
                return RecognisedFormat("pi", number)
            if is_legacy_codex_header(record):
                return RecognisedFormat("codex", number)
            if _is_course_entry(record):
                return RecognisedFormat(COURSE_FORMAT, number)
        if is_codex_record(record):
            return RecognisedFormat("codex", number)
        if _claude_code_mark(record):
            return RecognisedFormat("claude-code", number)
        passed.append((number, record))
    raise _refusal(_not_a_session(name, passed), passed[0][0])


def _not_a_session(name: str, passed: list[tuple[int, dict[str, Any]]]) -> str:
    """Why the records read belong to none of the three formats, in one sentence."""
    first_line, first = passed[0]
    what = f"type {shown(first['type'])}" if "type" in first else "no type"
    if len(passed) == 1:
        return (
            f"{name} is not {EXPECTED}: its first record (line {first_line}, {what}) belongs "
            "to none of them"
        )
    return (
        f"{name} is not {EXPECTED}: none of its first {len(passed)} records (lines "
        f"{first_line}-{passed[-1][0]}) belongs to one of them; line {first_line} has {what}"
    )


@dataclass(frozen=True)
class DetectedImport:
    """An import and the format it was read as, asked the same questions whatever the format.

    ``entries``, ``leaf_id``, ``notes`` and ``active_path()`` as every import
    has them; ``usage`` and ``compactions`` in the Claude Code and Codex form,
    read out of a pi import too, so three agents can be set side by side.
    """

    format: str  # one of SESSION_FORMATS
    result: ImportResult | AgentImportResult

    @property
    def label(self) -> str:
        """The agent's name as a sentence writes it: ``pi``, ``Claude Code``, ``Codex CLI``."""
        return FORMAT_LABELS[self.format]

    @property
    def entries(self) -> list[SessionEntry]:
        return self.result.entries

    @property
    def leaf_id(self) -> str:
        return self.result.leaf_id

    @property
    def notes(self) -> list[ImportNote]:
        return self.result.notes

    @property
    def usage(self) -> dict[str, AgentUsage]:
        """The agent's own token counts per assistant entry, for every format."""
        result = self.result
        return result.usage if isinstance(result, AgentImportResult) else pi_usage(result)

    @property
    def compactions(self) -> list[AgentCompaction]:
        """Where the agent's compactions fell and what they kept and filled, for every format."""
        result = self.result
        return (
            result.compactions if isinstance(result, AgentImportResult) else pi_compactions(result)
        )

    def active_path(self, leaf_id: str | None = None) -> list[SessionEntry]:
        """The path to ``leaf_id`` (default: the imported leaf), as copies."""
        return self.result.active_path(leaf_id)

    def note_counts(self) -> dict[str, int]:
        """How many notes of each kind, most frequent first."""
        return count_kinds(self.result.notes)


def import_session(path: str | os.PathLike[str]) -> DetectedImport:
    """Read a pi, Claude Code or Codex session file (read-only) and import it as its format.

    A Claude Code import counts the subagent transcripts beside the file
    (``source.subagent_files``), as ``import_claude_code_session`` does.
    """
    file = Path(path)
    try:
        data = read_regular_file(file)
    except OSError as error:
        raise AgentImportError(f"cannot read {file.name}: {error.strerror or error}") from None
    detected = import_session_bytes(data, name=file.name)
    result = detected.result
    if isinstance(result, AgentImportResult) and detected.format == "claude-code":
        count = _subagent_files(file)
        if count:
            source = replace(result.source, subagent_files=count)
            return DetectedImport(detected.format, replace(result, source=source))
    return detected


def import_session_bytes(data: bytes, *, name: str = "the file") -> DetectedImport:
    """Import the bytes of a session file as the format its first records show."""
    found = recognise_format(data, name=name)
    kind = found.format
    if kind == "pi":
        try:
            return DetectedImport("pi", import_pi_bytes(data))
        except PiImportError as error:
            raise AgentImportError.from_pi(error) from None
    if kind == "claude-code":
        return DetectedImport(kind, import_claude_code_bytes(data))
    if kind == "codex":
        return DetectedImport(kind, import_codex_bytes(data))
    raise _refusal(
        f"{name} is a course session file (line {found.line} is a course entry); open it with "
        "JsonlSessionStore or read_session_file, it needs no import",
        found.line,
    )
