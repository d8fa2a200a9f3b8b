"""What every part of the pi importer shares: its notes and its errors.

An importer that repairs real files must say what it changed. Every change
becomes an ``ImportNote`` naming the line and entry it concerns; whatever
cannot be mapped or repaired raises ``PiImportError`` naming the line, so a
problem is never a crash from deep inside and never a silent skip.
"""

from __future__ import annotations

import reprlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ...base.errors import CourseError, InteractionError

__all__ = [
    "INFO",
    "SEVERITIES",
    "WARNING",
    "WARNING_KINDS",
    "ImportNote",
    "NoteKind",
    "NoteLog",
    "PiImportError",
    "PiMissingResultError",
    "Severity",
    "Tally",
    "by_severity",
    "severity_of",
    "shown",
]

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlevel = _SHORT.maxlist = _SHORT.maxdict = 3
SHOWN_CHARS = 100  # the most of one value a message repeats


def shown(value: Any) -> str:
    """A short repr of a value from the file, for messages: a 10 MB list must not become the message."""
    text = _SHORT.repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


class PiImportError(CourseError):
    """A pi session line cannot be imported; the message starts with ``line N`` when known."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class PiMissingResultError(PiImportError, InteractionError):
    """A tool call has no result and the caller asked for ``on_missing_result="error"``.

    It is also an ``InteractionError``: it is the "missing result" that
    ``group_interactions`` would report, found at import time with its line.
    """

    def __init__(self, *, line: int, call_id: str, entry_id: str, tool_name: str) -> None:
        self.call_id = call_id
        self.entry_id = entry_id
        super().__init__(
            f"missing result for tool call {call_id!r} ({tool_name}) declared by entry "
            f"{entry_id}; import with on_missing_result='repair' or 'drop'",
            line=line,
        )


class NoteKind:
    """The note kinds the importer writes (plain strings, listed here once).

    One note per change, except the routine drops marked "aggregated": those
    are one note per file and subject, counting every occurrence.
    """

    UNTERMINATED_TAIL = "unterminated_tail"  # last line had no newline: left out
    ROOT_REPARENTED = "root_reparented"  # v2/v3 root entry hung under the header entry
    FIELD_DROPPED = "field_dropped"  # aggregated: a field the course schema lacks
    USAGE_TOTAL_COMPUTED = "usage_total_computed"  # aggregated: totalTokens absent, summed
    TIMESTAMP_ASSUMED_UTC = "timestamp_assumed_utc"  # aggregated: ISO time without a zone
    TIMESTAMP_FROM_ENTRY = "timestamp_from_entry"  # aggregated: message had no timestamp
    THINKING_DROPPED = "thinking_dropped"  # per entry: thinking blocks and their size
    BLOCK_DROPPED = "block_dropped"  # an assistant block that is not text or toolCall
    BLOCK_PLACEHOLDER = "block_placeholder"  # a user/tool block replaced by a text marker
    IMAGE_PLACEHOLDER = "image_placeholder"  # per entry: images replaced by text markers
    PARTIAL_ARGUMENTS = "partial_arguments"  # streamed partial JSON kept as rawArguments
    STOP_REASON_MAPPED = "stop_reason_mapped"  # e.g. "end_turn" read as "stop"
    UNKNOWN_ENTRY_TYPE = "unknown_entry_type"  # kept as metadata pi.<type>
    UNKNOWN_ROLE = "unknown_role"  # kept as metadata pi.message.<role>
    EMPTY_BRANCH_SUMMARY = "empty_branch_summary"  # pi sends nothing: kept as metadata
    MISSING_RESULT_REPAIRED = "missing_result_repaired"  # synthetic error result added
    MISSING_RESULT_DROPPED = "missing_result_dropped"  # unanswered call block removed
    SYNTHETIC_USER_INSERTED = "synthetic_user_inserted"  # before a message with no user turn
    UNPAIRED_RESULT = "unpaired_result"  # result for no call: kept as metadata
    DUPLICATE_RESULT = "duplicate_result"  # second result for a call: kept as metadata
    LEAF_MOVED = "leaf_moved"  # synthetic results appended after the leaf
    FIRST_KEPT_MOVED = "first_kept_moved"  # compaction now keeps from a user message
    SUMMARY_SECTION_UNMAPPED = "summary_section_unmapped"  # text kept in unresolved, prefixed
    SUMMARY_GOAL_FALLBACK = "summary_goal_fallback"  # goal from the title or a marker


Severity = Literal["warning", "info"]
WARNING: Severity = "warning"
INFO: Severity = "info"
SEVERITIES: tuple[Severity, ...] = (WARNING, INFO)
"""The two severities, in the order a reader is shown them: warnings first."""

WARNING_KINDS: frozenset[str] = frozenset(
    {
        # The rule: a note is a warning when the import changed what the model is sent
        # beyond the course schema's trimming: it changed the active path (or may have),
        # dropped or moved a summary or the range a compaction keeps, or invented a message.
        # Every other kind is info, and why: a field, block, image or thinking the schema has
        # no place for (field_dropped, block_dropped, block_placeholder, thinking_dropped,
        # partial_arguments, arguments_unparsed: the text is kept raw); a record or role the
        # course has no form for, kept as metadata as pi would not send it either
        # (unknown_entry_type, unknown_role) or never sent to a model (record_skipped,
        # sidechain_skipped); a figure or a time filled in (usage_*, timestamp_*,
        # tokens_before_unknown, stop_reason_*); records put together whole
        # (records_merged, compact_summary_merged, summary_section_unmapped: nothing lost,
        # summary_goal_fallback: the goal line says so); and the agent's own history read
        # as it wrote it (root_reparented, compaction_reparented to its logical parent,
        # parent_linked_later, preserved_segment_kept, rewound, turn_interrupted,
        # injected_context, forked_history, legacy_layout). A kind not listed here is info.
        NoteKind.UNTERMINATED_TAIL,  # the newest record is left out: the path may end earlier
        NoteKind.MISSING_RESULT_REPAIRED,  # invents a message: a synthetic error result
        NoteKind.MISSING_RESULT_DROPPED,  # a call the agent made is no longer on the path
        NoteKind.SYNTHETIC_USER_INSERTED,  # invents a message: a user turn nobody wrote
        NoteKind.LEAF_MOVED,  # the active path ends at another entry than the file's
        NoteKind.FIRST_KEPT_MOVED,  # the compaction keeps from another entry than pi's
        NoteKind.EMPTY_BRANCH_SUMMARY,  # a summary dropped: kept as metadata, never sent
        NoteKind.UNPAIRED_RESULT,  # a result taken off the path (kept as metadata)
        NoteKind.DUPLICATE_RESULT,  # a result taken off the path (kept as metadata)
        "duplicate_record",  # a record the file holds is left out
        "parent_not_in_file",  # a record starts a root: the history above it is missing
        "parent_cycle",  # the file's links are broken: a root chosen to break the cycle
        "chained_by_file_order",  # no links: the path is guessed from the order of lines
        "summary_missing",  # a compaction with no summary text, or a summary with no compaction
        "kept_not_on_path",  # what the agent kept is not on the path: the kept range differs
        "first_kept_widened",  # the compaction keeps from another entry than the agent's
        "agent_kept_nothing",  # the chapter keeps an interaction the agent's summary replaced
        "compaction_unrestorable",  # a summary dropped: kept as metadata, never restored from
        "event_text_used",  # invents a message from an interface event's copy of it
    }
)
"""Note kinds that are warnings (``ImportNote.severity``); the comment on each says why."""


def severity_of(kind: str) -> Severity:
    """``"warning"`` for a kind in ``WARNING_KINDS``, ``"info"`` for any other."""
    return WARNING if kind in WARNING_KINDS else INFO


@dataclass(frozen=True)
class ImportNote:
    """One change the importer made (or one thing it left out), and where.

    ``line`` is the 1-based physical line of the pi file (``None`` for a fact
    about the whole file); ``entry_id`` is the course entry it concerns.
    Aggregated notes (``field_dropped``, ``usage_total_computed``,
    ``timestamp_assumed_utc``) name their first occurrence and count the rest.
    """

    kind: str
    line: int | None
    entry_id: str | None
    detail: str

    @property
    def severity(self) -> Severity:
        """``"warning"`` when the note changed what the model is sent (``WARNING_KINDS``
        says which kinds, and why), ``"info"`` for trimming and bookkeeping."""
        return severity_of(self.kind)


@dataclass(slots=True)
class _Aggregate:
    """A routine drop seen on many lines: reported once, with a count and a line range.

    Slotted: its count and last line are written once for every record that drops the field.
    """

    first_line: int | None
    first_entry: str | None
    last_line: int | None
    count: int = 0


@dataclass(slots=True)
class Tally:
    """Counts occurrences of several routine drops at once (see ``NoteLog.tally``).

    Why a count of its own: a tally is counted for nearly every record of a file, so
    counting is two assignments, and ``settle`` adds the count to each aggregate once.
    """

    aggregates: tuple[_Aggregate, ...]
    times: int = 0
    last_line: int = 0  # of the latest occurrence counted (once ``times`` is not 0)

    def count(self, line: int) -> None:
        """One more occurrence of each, on ``line`` (lines are counted in file order)."""
        self.times += 1
        self.last_line = line

    def settle(self) -> None:
        """Add the occurrences counted so far to the aggregates, and start again from none.

        Several tallies may share an aggregate: as lines are counted in file order, its
        last line is the largest any of them saw.
        """
        if not self.times:
            return
        for entry in self.aggregates:
            entry.count += self.times
            if entry.last_line is None or self.last_line > entry.last_line:
                entry.last_line = self.last_line
        self.times = 0


@dataclass
class NoteLog:
    """Collects notes in the order they happen; routine drops are aggregated per kind and subject.

    Why aggregate: every assistant message of a real session carries fields
    the course schema lacks (``api``, ``usage.cost``, ...). One note per
    message would bury the notes that matter (repairs) under hundreds of
    identical ones, so those become one note per field with a count.
    """

    notes: list[ImportNote] = field(default_factory=list)
    _aggregates: dict[tuple[str, str], _Aggregate] = field(default_factory=dict)
    _tallies: list[Tally] = field(default_factory=list)  # settled by ``finish``
    # (the fields used, the subject, a value's keys) -> the tally of the fields it drops
    _dropped: dict[tuple[Any, ...], Tally] = field(default_factory=dict)

    def add(self, kind: str, line: int | None, entry_id: str | None, detail: str) -> None:
        """Record one specific change."""
        self.notes.append(ImportNote(kind=kind, line=line, entry_id=entry_id, detail=detail))

    def aggregate(self, kind: str, subject: str, line: int | None, entry_id: str | None) -> None:
        """Count one more occurrence of a routine drop (reported by ``finish``)."""
        entry = self._aggregates.get((kind, subject))  # already started: the usual case, no call
        if entry is None:
            entry = self._aggregate_of(kind, subject, line, entry_id)
        entry.count += 1
        entry.last_line = line

    def tally(
        self, subjects: Iterable[tuple[str, str]], line: int | None, entry_id: str | None
    ) -> Tally:
        """The aggregates of ``subjects`` (``(kind, subject)`` pairs), started here (this line
        first) where they are new, to be counted together.

        Why a handle: a file's records mostly drop the same fields, so the caller
        keeps one ``Tally`` per set of fields and counts each record with one call.
        """
        tally = Tally(tuple(self._aggregate_of(kind, s, line, entry_id) for kind, s in subjects))
        self._tallies.append(tally)
        return tally

    def fields_dropped(
        self, value: dict[str, Any], used: frozenset[str], subject: str, line: int, entry_id: str
    ) -> None:
        """Note (aggregated) every field of ``value`` outside ``used``: ``field_dropped``, one
        per ``subject`` and field.

        A file's records mostly carry the same keys, so each set of them is worked
        out once and counted by one ``Tally``; a value with no field to drop costs
        one set comparison (callers running for nearly every record may make that
        comparison themselves and call only when there is a field to note).
        """
        if value.keys() <= used:
            return
        keys = (used, subject, *value)
        tally = self._dropped.get(keys)
        if tally is None:
            dropped = [
                (NoteKind.FIELD_DROPPED, f"{subject} '{key}'") for key in value if key not in used
            ]
            tally = self._dropped[keys] = self.tally(dropped, line, entry_id)
        tally.count(line)

    def _aggregate_of(
        self, kind: str, subject: str, line: int | None, entry_id: str | None
    ) -> _Aggregate:
        """The aggregate of one subject, started here (this line first) when it is new."""
        key = (kind, subject)
        entry = self._aggregates.get(key)
        if entry is None:
            entry = self._aggregates[key] = _Aggregate(line, entry_id, line)
        return entry

    def finish(self) -> list[ImportNote]:
        """All notes: specific ones in order, then one per aggregated subject."""
        for tally in self._tallies:
            tally.settle()
        aggregated = [
            ImportNote(
                kind=kind,
                line=agg.first_line,
                entry_id=agg.first_entry,
                detail=_aggregate_detail(kind, subject, agg),
            )
            for (kind, subject), agg in self._aggregates.items()
        ]
        return [*self.notes, *aggregated]


def _aggregate_detail(kind: str, subject: str, agg: _Aggregate) -> str:
    times = "once" if agg.count == 1 else f"{agg.count:,} times"
    where = (
        f"line {agg.first_line}"
        if agg.first_line == agg.last_line
        else f"lines {agg.first_line}-{agg.last_line}"
    )
    if kind == NoteKind.FIELD_DROPPED:
        return f"{subject}: not in the course schema, dropped {times} ({where})"
    return f"{subject}: {times} ({where})"


def count_kinds(notes: list[ImportNote]) -> dict[str, int]:
    """How many notes of each kind, most frequent first (ties in first-seen order)."""
    return dict(Counter(note.kind for note in notes).most_common())


def by_severity(notes: Iterable[ImportNote]) -> list[ImportNote]:
    """The notes, warnings first, each severity in its original order (a stable sort).

    Why: a reader of a long list of notes should meet the changes to what the
    model is sent before the routine trimming, whatever order they happened in.
    """
    return sorted(notes, key=lambda note: SEVERITIES.index(note.severity))
