"""Which agent wrote a session file, from its first record, and its import.

pi starts a file with a ``{"type": "session"}`` header; Claude Code writes
records of its own types (``user``, ``assistant``, ``summary``,
``file-history-snapshot``, ...) carrying a ``uuid`` or a ``sessionId``; Codex
writes ``{timestamp, type, payload}`` records. Looking at the first committed,
non-blank line is enough, and the answer is never a guess: anything else is
an ``AgentImportError`` saying what the first line held.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...base.text_rules import is_blank
from ...base.wire import loads_strict
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
from .claude_code import import_claude_code_bytes, is_claude_code_record
from .codex import import_codex_bytes, is_codex_record
from .pi import ImportResult, import_pi_bytes, is_pi_session_header

__all__ = [
    "SESSION_FORMATS",
    "DetectedImport",
    "detect_format",
    "import_session",
    "import_session_bytes",
]

SESSION_FORMATS = tuple(FORMAT_LABELS)
"""The formats ``import_session`` reads: ``"pi"``, ``"claude-code"``, ``"codex"``."""

_COURSE_TYPES = ("message", "metadata", "compaction")


def detect_format(record: Any) -> str | None:
    """``"pi"``, ``"claude-code"`` or ``"codex"`` for a file's first record; ``None`` for anything else."""
    if is_pi_session_header(record):
        return "pi"
    if is_codex_record(record):
        return "codex"
    if is_claude_code_record(record):
        return "claude-code"
    return None


def first_record(data: bytes) -> tuple[int, Any] | None:
    """The first committed, non-blank line (number, JSON value or ``None`` when not JSON)."""
    start = number = 0
    while start < len(data):
        end = data.find(b"\n", start)
        if end < 0:
            return None  # an unterminated line never committed
        number += 1
        line = data[start:end].decode("utf-8", errors="replace")
        if not is_blank(line):
            try:
                return number, loads_strict(line)
            except (ValueError, RecursionError):
                return number, None
        start = end + 1
    return None


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
    """Read a pi, Claude Code or Codex session file (read-only) and import it as its format."""
    file = Path(path)
    try:
        data = read_regular_file(file)
    except OSError as error:
        raise AgentImportError(f"cannot read {file.name}: {error.strerror or error}") from None
    return import_session_bytes(data, name=file.name)


def import_session_bytes(data: bytes, *, name: str = "the file") -> DetectedImport:
    """Import the bytes of a session file as the format its first record shows."""
    found = first_record(data)
    if found is None:
        raise AgentImportError(f"{name}: no committed line, so no session format to recognise")
    line, record = found
    kind = detect_format(record)
    if kind == "pi":
        try:
            return DetectedImport("pi", import_pi_bytes(data))
        except PiImportError as error:
            raise AgentImportError.from_pi(error) from None
    if kind == "claude-code":
        return DetectedImport(kind, import_claude_code_bytes(data))
    if kind == "codex":
        return DetectedImport(kind, import_codex_bytes(data))
    raise AgentImportError(f"{name}: {_not_a_session(record)}", line=line)


def _not_a_session(record: Any) -> str:
    """Why the first record belongs to none of the three formats, in words."""
    expected = "expected a pi, Claude Code or Codex CLI session"
    if record is None:
        return f"the first line is not JSON; {expected}"
    if not isinstance(record, dict):
        return f"the first line is a JSON {type(record).__name__}, not an object; {expected}"
    kind = record.get("type")
    if kind in _COURSE_TYPES and "id" in record:
        return (
            "a course session file (its first entry has type "
            f"{kind!r}); open it with JsonlSessionStore or read_session_file, it needs no import"
        )
    return f"the first record (type {shown(kind)}) is none of them; {expected}"
