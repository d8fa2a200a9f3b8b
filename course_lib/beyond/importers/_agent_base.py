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

import functools
import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import Any, TypeGuard, get_args

from ...base.collector import CollectorPaused
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
    measure_json,
)
from ...chapter.entries import parse_session_entry
from ...chapter.models import SessionEntry
from ...chapter.sessions import parse_fresh_entry, path_to, validate_fresh_entry
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
    "LineBounds",
    "Record",
    "collector_paused",
    "entry_timestamp",
    "finish_drafts",
    "is_number",
    "line_bounds",
    "read_records",
    "text_block",
]

Record = tuple[int, dict[str, Any]]
"""One committed, non-blank line: its 1-based physical line and its JSON object."""

_SURROGATE = re.compile("[\ud800-\udfff]")

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


@dataclass(frozen=True)
class LineBounds:
    """What a file's committed lines say about the entries they can make, counted before reading.

    ``blocks_fitting``: an entry of at most this many content blocks cannot
    break the limits the lines were counted for (-1: any entry might).
    ``careful``: a line of text holds a lone surrogate, which only the
    checking copy finds, so every entry is copied and checked.
    """

    blocks_fitting: int
    careful: bool


def line_bounds(committed: CommittedLines, limits: JsonLimits = DEFAULT_LIMITS) -> LineBounds:
    """How large an entry the file's lines can make; taken before ``read_records`` lets them go.

    Why: measuring every entry as a store does before writing costs more than
    reading the file, and nearly every entry is far too small to matter. An
    entry takes text from the records its content blocks came from (a merged
    assistant turn: one per block) and from at most ``_OTHER_RECORDS`` more;
    that text comes out no longer than the records wrote it (the course escapes
    no character a record did not), numbers aside; and each object or array
    takes two characters of the line it came from (``{}``, inside a call's
    argument text too) unless the importer added it. So unless the longest
    lines could add up to a course line the limits refuse, an entry needs no
    measuring.
    """
    lines = committed.lines
    longest = [0, *accumulate(sorted(map(len, lines), reverse=True))]  # bytes >= characters

    def fits(blocks: int) -> bool:
        text = longest[min(blocks + _OTHER_RECORDS, len(lines))]
        parts = blocks + _OTHER_RECORDS
        return (
            _GROWTH * text + _CHARS_PER_PART * parts <= limits.max_line_chars
            and text // 2 + _CONTAINERS_PER_PART * parts <= limits.max_containers
        )

    most = limits.max_containers // _CONTAINERS_PER_PART  # no entry of more blocks fits
    first_too_many = bisect_left(range(most + 1), True, key=lambda blocks: not fits(blocks))
    return LineBounds(blocks_fitting=first_too_many - 1, careful=_holds_surrogate(lines))


def finish_drafts(
    drafts: list[Draft], limits: JsonLimits = DEFAULT_LIMITS, lines: LineBounds | None = None
) -> list[SessionEntry]:
    """Every draft crosses the course boundary; a refusal names the agent's line.

    Each entry is also held to the limits a store writes under
    (``check_wire_limits``), so whatever the import returns can be appended to
    a ``JsonlSessionStore`` and read back: an entry that merges several records
    or parses a call's argument text can be larger or deeper than any line.
    The list is emptied as its drafts become entries, so the two are not both
    held whole (once the importer lets its own references go).

    Given ``lines`` (``line_bounds`` of the file), only the entries its lines
    could make too large are measured, and the drafts are taken as both
    importers build them: fresh from parsed JSON, every key outside a free
    JSON value one of the course schema's names, no list or dict in two
    places. Each entry then takes its draft's values over instead of copying
    them and skips pydantic's search for unknown keys, as the pi importer's
    do; a value nested too deep is refused all the same. Without ``lines``
    every entry is copied, checked and measured.
    """
    fresh = lines is not None and not lines.careful and limits is DEFAULT_LIMITS
    fitting = -1 if lines is None else lines.blocks_fitting
    entries: list[SessionEntry] = []
    seen: set[str] = set()
    drafts.reverse()  # popped from the end: each draft is let go once it is an entry
    with limits_in_force(limits):
        while drafts:
            draft = drafts.pop()
            wire, where = draft.wire, draft.line
            entry_id = str(wire.get("id"))
            if entry_id in seen:
                raise AgentImportError(f"entry id {shown(entry_id)} is used twice", line=where)
            seen.add(entry_id)
            try:
                entry = _fresh_entry(wire) if fresh else parse_session_entry(wire)
                if _needs_measuring(wire, fitting):
                    _check_writable(entry, wire, limits)
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


def _fresh_entry(wire: dict[str, Any]) -> SessionEntry:
    """A draft built fresh from parsed JSON, validated without a copy (``finish_drafts``).

    A message or metadata entry is read as a store reads its lines; a
    compaction (which holds no free JSON) by its model directly, and should
    that fail, by ``parse_session_entry`` again, which names the problem in
    its usual words.
    """
    if wire.get("type") != "compaction":
        return parse_fresh_entry(wire, schema_keys_only=True)
    try:
        return validate_fresh_entry(wire)
    except SessionEntryError:
        return parse_session_entry(wire)


def _check_writable(entry: SessionEntry, wire: dict[str, Any], limits: JsonLimits) -> None:
    """Refuse an entry whose course line a store would refuse to write.

    The draft is measured first: the entry holds its values, and writes them
    with at most a few fields the schema fills in, so a draft clear of the
    limits by ``_MARGIN`` per part is an entry clear of them. Only a draft
    nearer than that has its entry written out and measured exactly.
    """
    draft = measure_json(wire)
    margin = _MARGIN * (_content_blocks(wire) + _OTHER_RECORDS)
    if (
        draft.chars_at_most + margin * _CHARS_PER_PART <= limits.max_line_chars
        and draft.containers + margin <= limits.max_containers
        and draft.depth + 1 <= limits.max_depth
    ):
        return
    check_wire_limits(entry.to_wire(), limits)


# How far an entry's course line can outgrow the lines it came from (``line_bounds``).
_OTHER_RECORDS = 4  # its own record, its parent's, the call a result answers, the model's turn
_GROWTH = 4  # a number written longer than its record wrote it (9e15 is 9000000000000000)
_CHARS_PER_PART = 256  # keys, punctuation, numbers and placeholder text: per block and record
_CONTAINERS_PER_PART = 4  # the block itself, a call's arguments object, ...
_MARGIN = 4  # fields the schema may fill in when an entry is written, per block and record


def _needs_measuring(wire: dict[str, Any], blocks_fitting: int) -> bool:
    """Whether an entry might break the limits for all ``line_bounds`` says: more content blocks
    than fit, or one of two rare kinds always measured: a compaction (the agent's summary
    rearranged into fields) and an error message (the message's text repeated)."""
    message = wire.get("message")
    if type(message) is not dict:
        return blocks_fitting < 0 or wire.get("type") == "compaction"
    content = message.get("content")
    blocks = len(content) if type(content) is list else 0
    return blocks > blocks_fitting or "errorMessage" in message


def _content_blocks(wire: dict[str, Any]) -> int:
    message = wire.get("message")
    content = message.get("content") if type(message) is dict else None
    return len(content) if type(content) is list else 0


def _holds_surrogate(lines: list[bytes] | list[str]) -> bool:
    """Whether a line of text holds a lone surrogate (decoded bytes never do)."""
    if not lines or isinstance(lines[0], bytes):
        return False
    return any(not line.isascii() and _SURROGATE.search(line) for line in lines)


ImportStep = Callable[[CommittedLines, MissingResultPolicy, JsonLimits], AgentImportResult]
"""An importer's whole run over a file's committed lines: (lines, policy, limits) -> result."""


def collector_paused(run: ImportStep) -> ImportStep:
    """``run`` with the cycle collector paused (``base.collector``), as the store's reader runs.

    Why: every object an import builds is kept by its result or freed by its
    count, so a collection during it frees nothing and walks the whole heap.
    """

    @functools.wraps(run)
    def paused_run(
        committed: CommittedLines, on_missing_result: MissingResultPolicy, limits: JsonLimits
    ) -> AgentImportResult:
        with CollectorPaused() as paused:
            imported = run(committed, on_missing_result, limits)
            paused.kept = len(imported.entries)
            return imported

    return paused_run


def counted(counts: Counter[str]) -> dict[str, int]:
    """Counts, most frequent first."""
    return dict(counts.most_common())
