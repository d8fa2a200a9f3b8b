"""Lab 11.1: the three session entries, and the one parser every entry crosses.

Chapter 11 §2 「摘要先成为 session 中的一条普通事实」 (the summary first becomes
an ordinary fact of the session): a compaction is a strict entry appended after
the leaf, so one parser guards it on every store write, JSONL read and creation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ValidationError

from course_lib.base.errors import InteractionError, SessionEntryError
from course_lib.base.messages import AgentMessage
from course_lib.base.schema import (
    FiniteNumber,
    JsonValue,
    NonBlankStr,
    NonNegativeNumber,
    WireModel,
    WireStr,
)
from course_lib.base.validation import (
    describe_validation_error,
    entry_label,
    fresh_wire_dict,
    require_models,
    validate_checked,
)


class MessageEntry(WireModel):
    """An agent message placed on the session tree."""

    id: NonBlankStr
    parent_id: NonBlankStr | None
    """The entry before it on its branch; ``None`` only for a root."""
    timestamp: FiniteNumber
    type: Literal["message"] = "message"  # a tag: required on the wire
    message: AgentMessage


class MetadataEntry(WireModel):
    """A key/value fact about the session (never sent to the model)."""

    id: NonBlankStr
    parent_id: NonBlankStr | None
    timestamp: FiniteNumber
    type: Literal["metadata"] = "metadata"  # a tag: required on the wire
    key: NonBlankStr
    value: JsonValue


class CompactionSummary(WireModel):
    """The seven fields that let older facts survive once their messages leave the window."""

    goal: NonBlankStr
    """What the session is for: the one field that may never be empty."""
    constraints: list[WireStr]
    """Rules the work must keep to (an old draft called them ``invariants``)."""
    completed: list[WireStr]
    decisions: list[WireStr]
    changed_files: list[WireStr]
    """``changedFiles`` on the wire (an old draft's ``files`` is an unknown field)."""
    unresolved: list[WireStr]
    next: list[WireStr]
    """What to do next (an old draft's ``nextSteps`` is an unknown field)."""


class CompactionEntry(WireModel):
    """A summary appended after the leaf; restoring starts at ``first_kept_entry_id``."""

    id: NonBlankStr
    parent_id: NonBlankStr
    """Always the path's leaf when it was created: never ``None``."""
    timestamp: FiniteNumber
    type: Literal["compaction"] = "compaction"  # a tag: required on the wire
    summary: CompactionSummary
    first_kept_entry_id: NonBlankStr
    """The user message the kept suffix starts from (Lab 11.4 chooses it, Lab 11.5 reads it)."""
    tokens_before: NonNegativeNumber
    """What the path cost before compacting, as the caller measured it: never recomputed."""


SessionEntry = MessageEntry | MetadataEntry | CompactionEntry
"""Any of the three entries, told apart by ``type``."""


def parse_session_entry(value: Any) -> SessionEntry:
    """Validate a camelCase wire dict (or an entry object) into a fresh, independent entry.

    Chapter 11 §2 「摘要先成为 session 中的一条普通事实」: the one boundary for
    store writes, JSONL reads and entry creation.

    Returns:
        A new entry sharing nothing with ``value``, in either direction.

    Raises:
        SessionEntryError: naming the entry id and the camelCase field path.

    >>> bad = {"id": "compact-1", "parentId": "a3", "timestamp": 100, "type": "compaction",
    ...        "summary": {"goal": "g", "constraints": [], "completed": [], "decisions": [],
    ...                    "files": [], "unresolved": [], "next": []},
    ...        "firstKeptEntryId": "u2", "tokensBefore": 29}
    >>> parse_session_entry(bad)
    Traceback (most recent call last):
    course_lib.base.errors.SessionEntryError: session entry compact-1: summary.changedFiles: missing field; summary.files: unknown field
    """
    return validate_entry(fresh_wire_dict(value))  # copied and checked as plain JSON first


def validate_entry(value: dict[str, Any], *, schema_keys_only: bool = False) -> SessionEntry:
    """Validate fresh, checked JSON (a dict nothing else holds) by the model its ``type`` names.

    Messages and metadata by their models' own rules, a compaction by Lab
    11.1's ``parse_compaction``; ``schema_keys_only`` is ``validate_checked``'s.
    """
    kind = value.get("type")
    if kind in ("message", "metadata"):
        model = MessageEntry if kind == "message" else MetadataEntry
        entry: MessageEntry | MetadataEntry = validate_checked(
            model, value, schema_keys_only=schema_keys_only
        )
        return entry
    label = entry_label(value.get("id"))
    if kind == "compaction":
        return parse_compaction(value, label)  # Lab 11.1
    if "type" not in value:
        raise SessionEntryError(f"{label}: type: missing field")
    expected = "message, metadata, compaction"
    raise SessionEntryError(f"{label}: type: unknown entry type {kind!r} (expected {expected})")


def parse_compaction(value: dict[str, Any], label: str) -> CompactionEntry:
    """Turn a compaction's wire dict into a ``CompactionEntry``, or say exactly what is wrong.

    Chapter 11 §2 「摘要先成为 session 中的一条普通事实」 (the summary first becomes
    an ordinary fact of the session) · Lab 11.1.

    Every store write, JSONL read and ``create_compaction_entry`` passes here.
    Validate ``value`` against ``CompactionEntry`` by its wire (camelCase) names
    only: a snake_case key such as ``first_kept_entry_id`` is an unknown field,
    as is an old draft's ``summary.files``. Turn pydantic's ``ValidationError``
    into a ``SessionEntryError`` ``f"{label}: ..."`` with
    ``describe_validation_error(error)`` (field path and problem) after the colon.

    Args:
        value: a fresh wire dict (already copied: the entry may keep it).
        label: how the message starts, e.g. ``session entry compact-1``.

    Returns:
        The validated entry; ``tokensBefore`` exactly as given.

    Raises:
        SessionEntryError: ``session entry compact-1: summary.files: unknown field``.
    """
    # --- Lab 11.1 compaction entry: begin ---
    try:
        return CompactionEntry.model_validate(value, by_alias=True, by_name=False)
    except ValidationError as error:
        raise SessionEntryError(f"{label}: {describe_validation_error(error)}") from None
    # --- Lab 11.1: end ---


def require_session_entries(entries: Sequence[Any]) -> set[type]:
    """Refuse anything but this package's entries (a wire dict is never skipped silently).

    Returns:
        The entry types found, so a caller can skip work a path does not need.
    """
    return require_models(
        entries,
        (MessageEntry, MetadataEntry, CompactionEntry),
        "not a session entry of this package; pass it through parse_session_entry first",
    )


def require_message_entry(entry: object, entries: object) -> MessageEntry:
    """``entry`` when it is a message entry; otherwise why it cannot be grouped.

    Another kind of entry is an ``InteractionError`` naming it; anything else
    is refused by ``require_session_entries``, with its position in ``entries``.
    """
    if isinstance(entry, MessageEntry):
        return entry
    if isinstance(entry, MetadataEntry | CompactionEntry):
        raise InteractionError(
            f"entry {entry.id}: a {entry.type} entry is not a message; "
            "group only the message entries of a path"
        )
    if isinstance(entries, Sequence):
        require_session_entries(entries)  # names the first foreign item and its position
    require_session_entries([entry])  # a one-pass iterable: refused without its position
    raise AssertionError(f"{entry!r} passed the entry check without being a session entry")
