"""The three session entries and ``parse_session_entry``, the one boundary every entry crosses.

A compaction is not a special record: it is an ordinary, strict session fact
appended after the leaf, so the same parser guards it on every store write,
every JSONL read and every entry creation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import ValidationError

from .errors import SessionEntryError
from .messages import AgentMessage
from .schema import FiniteNumber, JsonValue, NonBlankStr, NonNegativeNumber, WireModel, WireStr
from .text_rules import is_blank

__all__ = [
    "CompactionEntry",
    "CompactionSummary",
    "MessageEntry",
    "MetadataEntry",
    "SessionEntry",
    "parse_session_entry",
    "require_session_entries",
]


class MessageEntry(WireModel):
    """An agent message placed on the session tree."""

    _default_tag: ClassVar = ("type", "message")
    id: NonBlankStr
    parent_id: NonBlankStr | None
    timestamp: FiniteNumber
    type: Literal["message"]
    message: AgentMessage


class MetadataEntry(WireModel):
    """A key/value fact about the session (never sent to the model)."""

    _default_tag: ClassVar = ("type", "metadata")
    id: NonBlankStr
    parent_id: NonBlankStr | None
    timestamp: FiniteNumber
    type: Literal["metadata"]
    key: NonBlankStr
    value: JsonValue


class CompactionSummary(WireModel):
    """The seven fields that let older facts survive once their messages leave the window."""

    goal: NonBlankStr
    constraints: list[WireStr]
    completed: list[WireStr]
    decisions: list[WireStr]
    changed_files: list[WireStr]
    unresolved: list[WireStr]
    next: list[WireStr]


class CompactionEntry(WireModel):
    """A summary appended after the leaf; restoring starts at ``first_kept_entry_id``."""

    _default_tag: ClassVar = ("type", "compaction")
    id: NonBlankStr
    parent_id: NonBlankStr
    timestamp: FiniteNumber
    type: Literal["compaction"]
    summary: CompactionSummary
    first_kept_entry_id: NonBlankStr
    tokens_before: NonNegativeNumber


SessionEntry = MessageEntry | MetadataEntry | CompactionEntry
"""Any of the three entries, told apart by ``type``."""

_ENTRY_MODELS: dict[str, type[WireModel]] = {
    "message": MessageEntry,
    "metadata": MetadataEntry,
    "compaction": CompactionEntry,
}

_ENTRY_TYPES = frozenset(_ENTRY_MODELS.values())

# Pydantic puts union members and discriminator tags into error locations;
# these are not field names, so the path a student reads leaves them out.
_NOT_A_FIELD = re.compile(r"^(<.*>|str|int|float|bool|none|.*\[.*\])$")


def _field_path(loc: tuple[str | int, ...]) -> str:
    return ".".join(str(part) for part in loc if not _NOT_A_FIELD.match(str(part)))


def _problem(error: dict[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "missing":
        return "missing field"
    message = str(error["msg"])
    return message.removeprefix("Value error, ")


def describe_validation_error(error: ValidationError) -> str:
    """One line per problem: ``path: problem``, tags and union members left out."""
    problems: list[str] = []
    for item in error.errors():
        path = _field_path(item["loc"])
        if item["type"] == "bad_tag":  # a missing or unknown ``role`` / block ``type``
            path = f"{path}.{item['ctx']['key']}" if path else item["ctx"]["key"]
        line = f"{path}: {_problem(item)}" if path else _problem(item)
        if line not in problems:
            problems.append(line)
    return "; ".join(problems)


def _entry_label(entry_id: Any) -> str:
    return (
        f"session entry {entry_id}"
        if isinstance(entry_id, str) and not is_blank(entry_id)
        else ("session entry (no id)")
    )


def parse_session_entry(value: Any) -> SessionEntry:
    """Validate a wire dict (or an entry object) and return a fresh, independent entry.

    Raises ``SessionEntryError`` naming the entry id and the camelCase field
    path, e.g. ``session entry compact-1: summary.files: unknown field``.
    """
    if isinstance(value, WireModel) or callable(getattr(value, "to_wire", None)):
        value = value.to_wire()  # an entry object, possibly from another copy of the models
    if not isinstance(value, dict):
        raise SessionEntryError(
            f"session entry (no id): expected a JSON object, got {type(value).__name__}"
        )
    label = _entry_label(value.get("id"))
    kind = value.get("type")
    if "type" not in value:
        raise SessionEntryError(f"{label}: type: missing field")
    model = _ENTRY_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        expected = ", ".join(_ENTRY_MODELS)
        raise SessionEntryError(f"{label}: type: unknown entry type {kind!r} (expected {expected})")
    if model is CompactionEntry:
        return _parse_compaction(value, label)
    try:
        return model.model_validate(value, by_alias=True, by_name=False)  # type: ignore[return-value]
    except ValidationError as error:
        raise SessionEntryError(f"{label}: {describe_validation_error(error)}") from None


def _parse_compaction(value: dict[str, Any], label: str) -> CompactionEntry:
    """Lab 11.1: turn a compaction's wire dict into a fresh entry, or say exactly what is wrong.

    Every store write, JSONL read and ``create_compaction_entry`` passes here,
    so this one strict check guards all of them: an unknown or missing key, a
    non-finite or negative number, a non-string list item or a blank id is a
    ``SessionEntryError`` starting with ``label`` and naming the camelCase field
    path (``session entry compact-1: summary.files: unknown field``). The result
    shares nothing with ``value``; ``tokensBefore`` is kept exactly as given.
    """
    # --- Lab 11.1 compaction entry: begin ---
    try:
        return CompactionEntry.model_validate(value, by_alias=True, by_name=False)
    except ValidationError as error:
        raise SessionEntryError(f"{label}: {describe_validation_error(error)}") from None
    # --- Lab 11.1: end ---


def require_session_entries(entries: Sequence[Any]) -> None:
    """Refuse anything that is not one of this package's entry objects.

    Functions such as ``build_context`` tell entries apart with ``isinstance``;
    a dict or an entry made by another copy of the models would otherwise be
    silently ignored instead of reported.
    """
    for position, entry in enumerate(entries):
        if type(entry) in _ENTRY_TYPES:
            continue  # the common case, without a (slower) isinstance check
        if not isinstance(entry, MessageEntry | MetadataEntry | CompactionEntry):
            entry_id = entry.get("id") if isinstance(entry, dict) else getattr(entry, "id", None)
            label = _entry_label(entry_id)
            raise SessionEntryError(
                f"{label}: item {position} of the path is a {type(entry).__name__}, "
                "not a session entry of this package; pass it through parse_session_entry first"
            )
