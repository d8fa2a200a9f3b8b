"""The three session entries and ``parse_session_entry``, the one boundary every entry crosses.

A compaction is not a special record: it is an ordinary, strict session fact
appended after the leaf, so the same parser guards it on every store write,
every JSONL read and every entry creation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, TypeAdapter, ValidationError

from .errors import SessionEntryError
from .messages import AgentMessage, SystemMessage, ToolResultMessage, UserMessage
from .schema import (
    CHECKED_JSON,
    FiniteNumber,
    JsonValue,
    NonBlankStr,
    NonNegativeNumber,
    WireModel,
    WireStr,
)
from .text_rules import is_blank
from .wire import (
    DEFAULT_LIMITS,
    JsonLimits,
    JsonValueError,
    check_line_limits,
    check_wire_number,
    copy_json_value,
    loads_strict,
)

__all__ = [
    "CompactionEntry",
    "CompactionSummary",
    "MessageEntry",
    "MetadataEntry",
    "SessionEntry",
    "parse_entry_line",
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
_ROLE_TAGS = frozenset({"user", "assistant", "toolResult", "system"})
_BLOCK_TAGS = frozenset({"text", "toolCall"})
_TAG_ERRORS = {"union_tag_not_found", "union_tag_invalid"}
_EXPECTED_TAGS = {"role": "user, assistant, toolResult or system", "type": "text or toolCall"}


def _field_path(loc: tuple[str | int, ...]) -> str:
    """The camelCase field path of an error location, with tags and union members left out.

    A role tag follows ``message``; a block tag follows an index into an
    assistant message's ``content`` (a user message's blocks are not a union).
    """
    parts: list[str | int] = []
    role: str | int | None = None
    for part in loc:
        if _NOT_A_FIELD.match(str(part)):
            continue
        if parts and parts[-1] == "message" and role is None and part in _ROLE_TAGS:
            role = part
            continue
        after_index = len(parts) >= 2 and isinstance(parts[-1], int) and parts[-2] == "content"
        if role == "assistant" and after_index and part in _BLOCK_TAGS:
            continue
        parts.append(part)
    return ".".join(str(part) for part in parts)


def _problem(error: dict[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "missing":
        return "missing field"
    if kind in _TAG_ERRORS:
        key = str(error["ctx"]["discriminator"]).strip("'")
        return f"missing or unknown (expected {_EXPECTED_TAGS.get(key, key)})"
    message = str(error["msg"]).removeprefix("Value error, ")
    value = error.get("input")
    if kind == "course_number" and (isinstance(value, bool) or not isinstance(value, int | float)):
        shown = "null" if value is None else type(value).__name__
        return f"{message}, not {shown}"  # "must be a finite number, not str"
    return message


def describe_validation_error(error: ValidationError) -> str:
    """One line per problem: ``path: problem``, tags and union members left out."""
    problems: list[str] = []
    for item in error.errors():
        path = _field_path(item["loc"])
        if item["type"] in _TAG_ERRORS:  # a missing or unknown ``role`` / block ``type``
            key = str(item["ctx"]["discriminator"]).strip("'")
            path = f"{path}.{key}" if path else key
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
    try:
        # One walk copies the value and checks what the schema cannot: plain JSON,
        # finite and safe numbers, no lone surrogates, a bounded depth.
        checked = copy_json_value(value)
    except JsonValueError as error:
        raise SessionEntryError(f"{label}: {error.path}: {error.problem}") from None
    return _validate_checked(checked, label)


def _validate_checked(value: dict[str, Any], label: str) -> SessionEntry:
    """Validate a fresh, checked wire dict against the model its ``type`` names."""
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
        return model.model_validate(  # type: ignore[return-value]
            value, by_alias=True, by_name=False, context=CHECKED_JSON
        )
    except ValidationError as error:
        raise SessionEntryError(f"{label}: {describe_validation_error(error)}") from None


# --- reading one JSONL line -------------------------------------------------------

_MESSAGE_OR_METADATA: TypeAdapter[MessageEntry | MetadataEntry] = TypeAdapter(
    Annotated[MessageEntry | MetadataEntry, Field(discriminator="type")]
)
# A JSON string, then a colon if it is a key (an unrolled loop: linear, no backtracking).
_STRING_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?')


def parse_entry_line(text: str, limits: JsonLimits = DEFAULT_LIMITS) -> SessionEntry:
    """One JSONL line to an entry: what ``parse_session_entry(loads_strict(text))`` returns.

    Most lines are validated straight from their text inside pydantic-core,
    several times faster. What that fast parse cannot judge is checked after
    it (a key given twice, numbers inside free JSON values); a compaction, a
    line that fails, or one in doubt takes the careful path, so the result and
    every error are the same.
    """
    check_line_limits(text, limits)
    if '"compaction"' not in text:  # a compaction always crosses Lab 11.1's parser
        try:
            entry = _MESSAGE_OR_METADATA.validate_json(
                text, by_alias=True, by_name=False, context=CHECKED_JSON
            )
        except ValidationError:
            pass  # the careful path names the problem in the usual words
        else:
            if _fast_parse_holds(text, entry):
                return entry
    try:
        value = loads_strict(text, limits)
    except JsonValueError as error:
        raise SessionEntryError(f"session entry (no id): {error}") from None
    return parse_session_entry(value)


def _fast_parse_holds(text: str, entry: MessageEntry | MetadataEntry) -> bool:
    """True when the fast parse kept every key of the text and every free JSON number is one
    the course can hold (the fast parser keeps the last of two equal keys, and reads
    ``NaN`` or ``1e400`` inside ``arguments``, ``details`` or ``value`` without a word)."""
    try:
        return _keys_in_text(text) == _keys_in_entry(entry)
    except JsonValueError:
        return False


def _keys_in_text(text: str) -> int:
    """How many object keys the JSON text holds (strings followed by a colon)."""
    if '\\"' not in text and '" ' not in text and '"\t' not in text and '"\r' not in text:
        # No escaped quote, and no white space after a quote (a key may be followed by
        # " :"): every quote delimits a string, so each '":' ends a key, or starts a string beginning with ':' (an overcount, which only
        # sends the line down the careful path).
        return text.count('":')
    colons = _STRING_TOKEN.findall(text)
    return len(colons) - colons.count("")


def _keys_in_entry(entry: MessageEntry | MetadataEntry) -> int:
    """How many keys the entry was validated from: its fields, given or required, and JSON keys.

    Each model's required fields are always there; only optional ones and free
    JSON values vary, so the count needs no walk over the models themselves.
    """
    if isinstance(entry, MetadataEntry):
        return 6 + _keys_in_json(entry.value)
    message = entry.message
    keys = 5 + 2 * len(message.content) if message.role != "system" else 5
    if isinstance(message, UserMessage):
        return keys + 3
    if isinstance(message, ToolResultMessage):
        given = "details" in message.__pydantic_fields_set__
        return keys + 6 + (1 + _keys_in_json(message.details) if given else 0)
    if isinstance(message, SystemMessage):
        sections = message.sections
        return keys + 3 + (1 + len(sections) if sections is not None else 0)
    keys += 7 + 3 + (message.error_message is not None)  # the fields, usage's three
    for block in message.content:
        if block.type == "toolCall":  # 2 counted with the blocks; id, name, arguments
            keys += 2 + (block.raw_arguments is not None) + _keys_in_json(block.arguments)
    return keys


def _keys_in_json(value: Any) -> int:
    """The object keys inside a free JSON value, checking its numbers on the way."""
    keys = 0
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is dict:
            keys += len(item)
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
        elif kind is int or kind is float:
            check_wire_number(item)
    return keys


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
