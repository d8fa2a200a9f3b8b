"""What the Claude Code and Codex importers share: their result, their notes, their reader.

Both agents keep a session as JSONL with records of their own. Their importers
follow the pi importer's contract (strict course entries, a note for every
change, a ``CourseError`` naming the line for whatever cannot be read) and reuse
its repair step; this module holds the parts that are the same for both: the
result types a notebook reads (entries, notes, the agent's own usage per
assistant turn, where each compaction cut), the error class, the line reader
with the course's JSON limits, and the last step that turns drafts into entries.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, TypeGuard, get_args

from ...base.errors import CourseError, SessionEntryError
from ...base.text_rules import is_blank
from ...base.wire import (
    DEFAULT_LIMITS,
    JsonLimits,
    JsonValueError,
    check_wire_limits,
    limits_in_force,
    loads_fast,
    loads_strict,
)
from ...chapter.entries import parse_session_entry
from ...chapter.models import SessionEntry
from ...chapter.sessions import path_to
from ._base import ImportNote, NoteKind, NoteLog, PiImportError, count_kinds, shown
from ._pi_convert import Draft, iso_to_millis
from ._pi_read import CommittedLines
from ._pi_repair import MissingResultPolicy, repair_tree

__all__ = [
    "AgentCompaction",
    "AgentImportError",
    "AgentImportResult",
    "AgentNoteKind",
    "AgentSource",
    "AgentUsage",
    "Record",
    "entry_timestamp",
    "finish_drafts",
    "is_number",
    "read_records",
    "text_block",
]

Record = tuple[int, dict[str, Any]]
"""One committed, non-blank line: its 1-based physical line and its JSON object."""

FORMAT_LABELS = {"pi": "pi", "claude-code": "Claude Code", "codex": "Codex CLI"}
"""The formats ``import_session`` recognises, as a sentence names them."""


class AgentImportError(CourseError):
    """A Claude Code or Codex session line cannot be imported; starts with ``line N`` when known."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)

    @classmethod
    def from_pi(cls, error: PiImportError) -> AgentImportError:
        """The same problem, found by a helper the pi importer shares (its message already names the line)."""
        converted = cls(str(error))
        converted.line = error.line
        return converted


class AgentNoteKind:
    """The note kinds only these two importers write (the shared ones are in ``NoteKind``)."""

    RECORDS_MERGED = "records_merged"  # several records of one assistant turn became one message
    RECORD_SKIPPED = "record_skipped"  # aggregated: a record type never sent to a model
    SIDECHAIN_SKIPPED = "sidechain_skipped"  # aggregated: subagent work, kept off the main path
    DUPLICATE_RECORD = "duplicate_record"  # a uuid seen before: the later record left out
    PARENT_NOT_IN_FILE = "parent_not_in_file"  # a resumed session's first record: made a root
    COMPACTION_REPARENTED = "compaction_reparented"  # a boundary hung under its logical parent
    COMPACT_SUMMARY_MERGED = (
        "compact_summary_merged"  # the summary record became the entry's fields
    )
    SUMMARY_MISSING = "summary_missing"  # a compaction with no summary text
    AGENT_KEPT_NOTHING = "agent_kept_nothing"  # first kept entry chosen by the chapter's rule
    FIRST_KEPT_WIDENED = (
        "first_kept_widened"  # the agent kept parts of interactions: whole ones kept
    )
    KEPT_NOT_ON_PATH = "kept_not_on_path"  # the agent named kept records the path does not hold
    COMPACTION_UNRESTORABLE = "compaction_unrestorable"  # no user message before it: metadata
    TURN_INTERRUPTED = "turn_interrupted"  # the user stopped a turn
    REWOUND = "rewound"  # Codex rolled turns back: later records hang further up
    USAGE_MAPPED = "usage_mapped"  # aggregated: the agent's token counts read as the course's three
    USAGE_MISSING = "usage_missing"  # aggregated: an assistant turn without token counts
    STOP_REASON_INFERRED = "stop_reason_inferred"  # aggregated: no stop reason, read from content
    ARGUMENTS_UNPARSED = "arguments_unparsed"  # a call's argument text is not JSON: kept raw
    TOKENS_BEFORE_UNKNOWN = "tokens_before_unknown"  # the compaction recorded no token count
    EVENT_TEXT_USED = "event_text_used"  # a user_message event's text no item carries: a message
    FORKED_HISTORY = "forked_history"  # a fork's copied history; the parent's spawn call in it
    LEGACY_LAYOUT = "legacy_layout"  # once per file: Codex's early layout, bare items
    INJECTED_CONTEXT = "injected_context"  # a user message Codex wrote itself (its context)
    PARENT_LINKED_LATER = "parent_linked_later"  # Claude Code: the parent is on a later line
    CHAINED_BY_FILE_ORDER = "chained_by_file_order"  # no parent links: each under the one before
    PARENT_CYCLE = "parent_cycle"  # links that form a cycle: the earliest record starts a root
    PRESERVED_SEGMENT_KEPT = (
        "preserved_segment_kept"  # a partial compaction: what it kept stays before it
    )


@dataclass(frozen=True)
class AgentUsage:
    """The token counts the agent itself recorded for one assistant turn (one model call).

    ``prompt`` is every input token the model read for the call, cached or not
    (Claude Code: ``input_tokens + cache_read_input_tokens +
    cache_creation_input_tokens``; Codex: ``input_tokens``): the figure to set
    beside the chapter's estimate of the context. The course message's
    ``usage`` holds ``input = prompt``, ``output`` and ``totalTokens = prompt +
    output``.
    """

    entry_id: str
    line: int | None  # the record that gave the counts (None: a pi file without line ids)
    prompt: int | float
    output: int | float
    cache_read: int | float
    cache_write: int | float


@dataclass(frozen=True)
class AgentCompaction:
    """One compaction the agent made, and what the import made of it.

    ``after_entry_id`` is the entry the compaction hangs under: where the
    agent's compaction fell on the path (``None``: nowhere, it starts a root).
    ``agent_kept`` lists the entries the agent said it kept (empty: it kept
    nothing, its summary replaced the whole history). ``first_kept_entry_id``
    is the course entry's ``firstKeptEntryId``, a user message chosen by the
    chapter's rule (``None`` when no user message lies before the compaction,
    so it became a metadata entry). ``fields_filled`` names the course summary
    fields (wire names) the agent's text filled; ``unmapped_items`` counts the
    items that fit no field and were kept in ``unresolved`` with their heading.
    """

    entry_id: str
    line: int | None  # the record of the compaction (None: a pi file without line ids)
    after_entry_id: str | None
    trigger: str | None
    tokens_before: int | float
    tokens_after: int | float | None
    agent_kept: tuple[str, ...]
    first_kept_entry_id: str | None
    fields_filled: tuple[str, ...]
    unmapped_items: int


@dataclass(frozen=True)
class AgentSource:
    """What the file held, before any mapping."""

    format: str  # "claude-code" or "codex"
    session_id: str | None
    records: int  # committed, non-blank lines
    record_counts: dict[str, int]  # record type (Codex: type/payload type) -> count
    sidechain_records: int = 0  # Claude Code subagent records kept off the main path
    sidechain_runs: int = 0  # how many subagent runs they belong to
    subagent_files: int = 0  # newer Claude Code: <session>/subagents/*.jsonl beside it (not read)

    @property
    def label(self) -> str:
        """The agent's name as a sentence writes it (``Claude Code``, ``Codex CLI``)."""
        return FORMAT_LABELS[self.format]


@dataclass(frozen=True)
class AgentImportResult:
    """Course entries (parents before children), the leaf, every change made, and the agent's own figures."""

    entries: list[SessionEntry]
    leaf_id: str
    notes: list[ImportNote]
    source: AgentSource
    usage: dict[str, AgentUsage]  # assistant entry id -> the agent's counts for that turn
    compactions: list[AgentCompaction]

    @property
    def format(self) -> str:
        """``"claude-code"`` or ``"codex"``."""
        return self.source.format

    def active_path(self, leaf_id: str | None = None) -> list[SessionEntry]:
        """The path from the root to ``leaf_id`` (default: the imported leaf), as copies."""
        return path_to(self.entries, leaf_id or self.leaf_id)

    def note_counts(self) -> dict[str, int]:
        """How many notes of each kind, most frequent first."""
        return count_kinds(self.notes)

    def notes_about(self, entry_id: str) -> list[ImportNote]:
        """The notes that name ``entry_id``."""
        return [note for note in self.notes if note.entry_id == entry_id]


# --- small checks -----------------------------------------------------------------


def is_number(value: Any) -> TypeGuard[int | float]:
    """A finite JSON number, never a bool (which Python counts as an int)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and (isinstance(value, int) or math.isfinite(value))
    )


def text_block(value: str) -> dict[str, Any]:
    """A course text block."""
    return {"type": "text", "text": value}


def entry_timestamp(value: Any, *, line: int, entry_id: str, notes: NoteLog) -> int | float:
    """An ISO timestamp as Unix milliseconds (the pi importer's rule), errors naming the line."""
    try:
        return iso_to_millis(value, line=line, entry_id=entry_id, notes=notes)
    except PiImportError as error:
        raise AgentImportError.from_pi(error) from None


def non_blank(value: Any) -> TypeGuard[str]:
    """A string with something in it besides JavaScript's blank characters."""
    return isinstance(value, str) and not is_blank(value)


# --- reading lines ------------------------------------------------------------------


def require_missing_policy(on_missing_result: object) -> None:
    """Refuse an unknown ``on_missing_result`` before any line is read (both agent importers)."""
    if on_missing_result not in get_args(MissingResultPolicy):
        raise AgentImportError(
            f"on_missing_result must be 'repair', 'drop' or 'error', got {on_missing_result!r}"
        )


def read_records(
    committed: CommittedLines, limits: JsonLimits = DEFAULT_LIMITS, *, require_type: bool = True
) -> Iterator[Record]:
    """The committed, non-blank lines as JSON objects with a string ``type``, within ``limits``.

    The pi reader's line rule (a torn last line was left out by the split), with
    the caller's limits; each line is let go once read. Any other line is an
    error naming it: guessing what a broken line meant would change the session.
    ``require_type=False`` lets through objects without a string ``type`` (Codex's
    legacy header and its ``record_type`` state lines), for the caller to judge.
    """
    lines = committed.lines
    lines.reverse()  # popped from the end: each line is released as soon as it is read
    number = 0
    while lines:
        raw = lines.pop()
        number += 1
        record = None
        if type(raw) is bytes and raw[:1] == b"{":
            try:
                value = loads_fast(raw, limits)
            except ValueError:
                pass
            else:
                if type(value) is dict and (type(value.get("type")) is str or not require_type):
                    record = value
        if record is None:
            if isinstance(raw, bytes):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise AgentImportError("not valid UTF-8", line=number) from None
            else:
                text = raw
            if text[:1] != "{" and is_blank(text):
                continue
            record = _parse_line(text, number, limits, require_type=require_type)
        yield number, record


def _parse_line(
    text: str, number: int, limits: JsonLimits, *, require_type: bool = True
) -> dict[str, Any]:
    """One line as a JSON object (with a string ``type`` unless told), or an error naming it."""
    try:
        value = loads_strict(text, limits)
    except (ValueError, RecursionError) as error:
        raise AgentImportError(f"not valid JSON ({error})", line=number) from None
    if not isinstance(value, dict):
        raise AgentImportError(f"expected a JSON object, got {type(value).__name__}", line=number)
    if require_type and not isinstance(value.get("type"), str):
        raise AgentImportError("record has no string 'type'", line=number)
    return value


def tail_note(committed: CommittedLines, notes: NoteLog) -> None:
    """Note an unterminated last line, left out as Chapter 10 reads files."""
    if committed.tail_line is not None:
        notes.add(
            NoteKind.UNTERMINATED_TAIL,
            committed.tail_line,
            None,
            f"the last line ({committed.tail_chars:,} characters) has no newline: a write that "
            "never committed, left out as Chapter 10 reads files",
        )


# --- the last step --------------------------------------------------------------------


_DEMOTED_KEYS = ("pi.unpaired_tool_result", "pi.duplicate_tool_result")


def repair(
    drafts: list[Draft], leaf_id: str, policy: MissingResultPolicy, notes: NoteLog, prefix: str
) -> tuple[list[Draft], str]:
    """The pi importer's repair (missing results, results without a call, a turn with no user).

    Its demoted results carry the key ``pi.…``; here they take the agent's
    prefix, in the entries and in the notes that name them.
    """
    try:
        outcome = repair_tree(drafts, leaf_id, policy, notes)
    except PiImportError as error:
        raise AgentImportError.from_pi(error) from None
    for draft in outcome.drafts:
        wire = draft.wire
        if wire["type"] == "metadata" and wire["key"] in _DEMOTED_KEYS:
            wire["key"] = prefix + wire["key"][2:]
    notes.notes[:] = [
        replace(note, detail=note.detail.replace("metadata pi.", f"metadata {prefix}."))
        if note.kind in (NoteKind.UNPAIRED_RESULT, NoteKind.DUPLICATE_RESULT)
        else note
        for note in notes.notes
    ]
    return outcome.drafts, outcome.leaf_id


def finish_drafts(drafts: list[Draft], limits: JsonLimits = DEFAULT_LIMITS) -> list[SessionEntry]:
    """Every draft crosses the course boundary; a refusal names the agent's line.

    Each entry is also held to the limits a store writes under
    (``check_wire_limits``), so whatever the import returns can be appended to
    a ``JsonlSessionStore`` and read back: an entry that merges several records
    or parses a call's argument text can be larger or deeper than any line.
    """
    entries: list[SessionEntry] = []
    seen: set[str] = set()
    with limits_in_force(limits):
        for draft in drafts:
            where = draft.line
            entry_id = str(draft.wire.get("id"))
            if entry_id in seen:
                raise AgentImportError(f"entry id {shown(entry_id)} is used twice", line=where)
            seen.add(entry_id)
            try:
                entry = parse_session_entry(draft.wire)
                check_wire_limits(entry.to_wire(), limits)
            except (SessionEntryError, JsonValueError) as error:
                problem = str(error)
                if isinstance(error, JsonValueError):
                    problem = (
                        f"entry {entry_id}: as a course line it would break the limits every "
                        f"reader applies ({error}), so no store could write it and read it back"
                    )
                if where is None:
                    raise AgentImportError(f"an entry the importer added: {problem}") from None
                raise AgentImportError(problem, line=where) from None
            entries.append(entry)
    return entries


def counted(counts: Counter[str]) -> dict[str, int]:
    """Counts, most frequent first."""
    return dict(counts.most_common())
