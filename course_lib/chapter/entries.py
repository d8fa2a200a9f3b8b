"""Lab 11.1: the three session entries, and the one parser every entry crosses.

Chapter 11 §2 「摘要先成为 session 中的一条普通事实」 (the summary first becomes
an ordinary fact of the session). A compaction is not a special record: it is
a strict entry appended after the leaf, so the same parser guards it on every
store write, every JSONL read and every entry creation (Lab 11.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ValidationError

from course_lib.base.errors import SessionEntryError
from course_lib.base.schema import (
    CHECKED_JSON,
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
    require_models,
    validate_wire,
)
from course_lib.base.wire import JsonValueError, copy_json_value

from .messages import AgentMessage


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

_ENTRY_MODELS: dict[str, type[MessageEntry | MetadataEntry]] = {
    "message": MessageEntry,
    "metadata": MetadataEntry,
}


def parse_session_entry(value: Any) -> SessionEntry:
    """Validate a wire dict (or an entry object) and return a fresh, independent entry.

    Chapter 11 §2 「摘要先成为 session 中的一条普通事实」: the one boundary for
    store writes, JSONL reads and entry creation.

    Args:
        value: a camelCase wire dict, or an entry object (its ``to_wire()`` is read).

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
    if isinstance(value, WireModel) or callable(getattr(value, "to_wire", None)):
        value = value.to_wire()  # an entry object, possibly from another copy of the models
    if not isinstance(value, dict):
        raise SessionEntryError(
            f"session entry (no id): expected a JSON object, got {type(value).__name__}"
        )
    label = entry_label(value.get("id"))
    try:  # plain JSON the course can hold (finite, safe numbers; bounded depth), copied
        checked = copy_json_value(value)
    except JsonValueError as error:
        raise SessionEntryError(f"{label}: {error.path}: {error.problem}") from None
    return validate_entry(checked)


def validate_entry(value: dict[str, Any], *, schema_keys_only: bool = False) -> SessionEntry:
    """Validate a dict of fresh, checked JSON against the entry model its ``type`` names.

    The entry takes over ``value``'s containers, so the caller hands over a
    dict that nothing else holds (``parse_session_entry`` copies first; a
    reader passes what it has just parsed). ``schema_keys_only`` is for a
    caller that wrote every key from the schema's own names (the pi importer):
    pydantic's search for unknown keys is skipped, every other rule still runs.
    """
    kind = value.get("type")
    model = _ENTRY_MODELS.get(kind) if isinstance(kind, str) else None
    if model is not None:  # a message or metadata entry: the models' own rules
        extra: Literal["ignore"] | None = "ignore" if schema_keys_only else None
        entry: MessageEntry | MetadataEntry = validate_wire(
            model.__pydantic_validator__, value, context=CHECKED_JSON, extra=extra
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

    Every store write, JSONL read and ``create_compaction_entry`` passes here,
    so this one strict check guards all of them. Validate ``value`` against
    ``CompactionEntry`` by its wire (camelCase) names only: a snake_case key
    such as ``first_kept_entry_id`` is an unknown field, as is an old draft's
    ``summary.files``. Turn pydantic's ``ValidationError`` into a
    ``SessionEntryError`` whose message is ``f"{label}: ..."``, with
    ``describe_validation_error(error)`` after the colon (it writes the field
    path and the problem: "unknown field", "missing field", ">= 0", ...).

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
    """Refuse anything that is not one of this package's entries; return the entry types found.

    Rules below tell entries apart with ``isinstance``, so a wire dict on the
    path must be an error, never silently skipped.
    """
    return require_models(
        entries,
        (MessageEntry, MetadataEntry, CompactionEntry),
        "not a session entry of this package; pass it through parse_session_entry first",
    )
