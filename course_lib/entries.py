"""The three session entries and ``parse_session_entry``, the one boundary every entry crosses.

A compaction is not a special record: it is an ordinary, strict session fact
appended after the leaf, so the same parser guards it on every store write,
every JSONL read and every entry creation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal, cast

from pydantic import Field, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from .errors import SessionEntryError
from .messages import (
    AgentMessage,
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
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
    MAX_SAFE_INTEGER,
    JsonLimits,
    JsonValueError,
    check_line_limits,
    check_wire_number,
    copy_json_value,
    loads_strict,
    strings_in_json_text,
)

__all__ = [
    "CompactionEntry",
    "CompactionSummary",
    "MessageEntry",
    "MetadataEntry",
    "SessionEntry",
    "parse_entry_line",
    "parse_fresh_entry",
    "parse_session_entry",
    "require_session_entries",
]


class MessageEntry(WireModel):
    """An agent message placed on the session tree."""

    id: NonBlankStr
    parent_id: NonBlankStr | None
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
    constraints: list[WireStr]
    completed: list[WireStr]
    decisions: list[WireStr]
    changed_files: list[WireStr]
    unresolved: list[WireStr]
    next: list[WireStr]


class CompactionEntry(WireModel):
    """A summary appended after the leaf; restoring starts at ``first_kept_entry_id``."""

    id: NonBlankStr
    parent_id: NonBlankStr
    timestamp: FiniteNumber
    type: Literal["compaction"] = "compaction"  # a tag: required on the wire
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


def _field_path(loc: tuple[str | int, ...]) -> tuple[str, str | int | None]:
    """The camelCase field path of an error location, with tags and union members left out,
    and the role of the message it lies in (``None`` outside a message).

    A role tag follows ``message``; a block tag follows an index into ``content``.
    """
    parts: list[str | int] = []
    seen: list[str | int] = []  # the location so far, tags included
    role: str | int | None = None
    for part in loc:
        if _NOT_A_FIELD.match(str(part)):
            continue
        if seen[-1:] == ["message"] and role is None and part in _ROLE_TAGS:
            role = part
        elif not (
            len(seen) >= 2
            and isinstance(seen[-1], int)
            and seen[-2] == "content"
            and part in _BLOCK_TAGS
        ):
            parts.append(part)
        seen.append(part)
    return ".".join(str(part) for part in parts), role


def _problem(error: ErrorDetails, role: str | int | None) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "missing":
        return "missing field"
    if kind in _TAG_ERRORS:
        key = str(error["ctx"]["discriminator"]).strip("'")
        if key == "type" and role in _TEXT_ONLY_ROLES:  # a text block's type, as a field's
            return "missing field" if kind == "union_tag_not_found" else "Input should be 'text'"
        return f"missing or unknown (expected {_EXPECTED_TAGS.get(key, key)})"
    message = str(error["msg"]).removeprefix("Value error, ")
    value = error.get("input")
    if kind == "course_number" and (isinstance(value, bool) or not isinstance(value, int | float)):
        shown = "null" if value is None else type(value).__name__
        return f"{message}, not {shown}"  # "must be a finite number, not str"
    return message


# Messages whose content holds text blocks only: a block's ``type`` reads like any field.
_TEXT_ONLY_ROLES = frozenset({"user", "toolResult"})


def describe_validation_error(error: ValidationError) -> str:
    """One line per problem: ``path: problem``, tags and union members left out."""
    problems: list[str] = []
    for item in error.errors():
        path, role = _field_path(item["loc"])
        if item["type"] in _TAG_ERRORS:  # a missing or unknown ``role`` / block ``type``
            key = str(item["ctx"]["discriminator"]).strip("'")
            path = f"{path}.{key}" if path else key
        problem = _problem(item, role)
        line = f"{path}: {problem}" if path else problem
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


def parse_fresh_entry(value: dict[str, Any], *, schema_keys_only: bool = False) -> SessionEntry:
    """``parse_session_entry`` for a wire dict built from freshly parsed JSON, without the copy.

    Why: copying every value while checking it is most of what an import
    costs, and a dict an importer has just assembled from ``loads_strict``
    output is already plain JSON without lone surrogates. The entry takes over
    the dict's free JSON values (``arguments``, ``details``, ``value``), so the
    caller hands over a dict sharing no list or dict with anything it keeps.
    Their numbers and nesting are checked here; a compaction, or any problem,
    takes ``parse_session_entry``, which names it in the usual words.

    ``schema_keys_only``: the caller wrote every key of the dict from the schema's
    own names (the pi importer builds its drafts so), so pydantic's search for a
    key the schema lacks, a pass over every key of every object, has nothing to
    find and is skipped. Every rule on the values still runs.
    """
    kind = value.get("type") if type(value) is dict else None
    validator = _FRESH_VALIDATORS.get(kind) if isinstance(kind, str) else None
    if validator is not None:
        try:
            entry: MessageEntry | MetadataEntry = validator.validate_python(
                value,
                by_alias=True,
                by_name=False,
                context=CHECKED_JSON,
                extra="ignore" if schema_keys_only else None,
            )
        except ValidationError:
            pass
        else:
            if _free_json_is_plain(entry):
                return entry
    return parse_session_entry(value)


# A compaction always crosses Lab 11.1's parser. The models' own validators are called
# directly: ``model_validate`` only checks its arguments first, once per entry of a file.
_FRESH_VALIDATORS = {
    "message": MessageEntry.__pydantic_validator__,
    "metadata": MetadataEntry.__pydantic_validator__,
}


def _free_json_is_plain(entry: MessageEntry | MetadataEntry) -> bool:
    """True when the entry's free JSON values hold only numbers the course can hold, and are
    nested no deeper than ``copy_json_value`` allows (counted from the entry, as it counts)."""
    # Compared by exact type: the validators make exactly these classes, never a subclass,
    # and ``isinstance`` on a model class costs a call to the metaclass when it is not one.
    if type(entry) is MetadataEntry:
        return _plain_json(entry.value, 1)
    message = cast(MessageEntry, entry).message
    if type(message) is ToolResultMessage:
        return message.details is None or _plain_json(message.details, 2)  # null is plain
    if type(message) is AssistantMessage:
        for block in message.content:  # entry -> message -> content -> block -> arguments
            if type(block) is ToolCall and not _plain_json(block.arguments, 4):
                return False
    return True


def _plain_json(value: Any, depth: int, limits: JsonLimits = DEFAULT_LIMITS) -> bool:
    """True when ``value`` (at ``depth``) nests no deeper than the limit and holds only numbers
    the course can hold. Walked a level at a time: every item of a level shares its depth."""
    if (
        depth < limits.max_depth
        and type(value) is dict
        and _TEXT_TYPES.issuperset(map(type, value.values()))
    ):
        return True  # most tool arguments: a flat object of strings, judged at C speed
    level = [value]
    while level:
        if depth > limits.max_depth:
            return False
        below: list[Any] = []
        for item in level:
            kind = type(item)
            if kind is dict:
                below.extend(item.values())
            elif kind is list:
                below.extend(item)
            elif kind is int:  # most numbers: one comparison, no call
                if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    return False
            elif kind is float and not _plain_number(item):
                return False
        level = below
        depth += 1
    return True


_TEXT_TYPES = frozenset({str, bool, type(None)})
"""Values that hold no number and nest nothing: a dict of only these is plain JSON."""


def _plain_number(number: int | float) -> bool:
    """Whether the course can hold ``number`` (finite, and safe if integral)."""
    try:
        check_wire_number(number)
    except JsonValueError:
        return False
    return True


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

# How deep the fixed fields nest a free JSON value: entry { message { content [ block {
# arguments. A line whose free values hold fewer containers than the depth limit minus
# this cannot be nested too deeply, so it needs no bracket count of its own.
_FIXED_DEPTH = 4


def parse_entry_line(text: str, limits: JsonLimits = DEFAULT_LIMITS) -> SessionEntry:
    """One JSONL line to an entry: what ``parse_session_entry(loads_strict(text))`` returns.

    Most lines are validated straight from their text inside pydantic-core,
    several times faster. What that fast parse cannot judge is checked after
    it (a key given twice, numbers inside free JSON values, the size limits);
    a compaction, a line that fails, or one in doubt takes the careful path,
    so the result and every error are the same.
    """
    entry = _fast_parse(text, limits)
    if entry is not None:
        return entry
    try:
        value = loads_strict(text, limits)
    except JsonValueError as error:
        raise SessionEntryError(f"session entry (no id): {error}") from None
    return parse_session_entry(value)


def _fast_parse(text: str, limits: JsonLimits) -> MessageEntry | MetadataEntry | None:
    """The entry pydantic-core reads from the text, or ``None`` when the careful path must judge."""
    if len(text) > min(limits.max_line_chars, 2 * limits.max_containers):
        try:  # a shorter line cannot hold too many containers: each takes two characters
            check_line_limits(text, limits)
        except JsonValueError:
            return None  # the careful path names the limit
    try:
        entry = _MESSAGE_OR_METADATA.validate_json(
            text, by_alias=True, by_name=False, context=CHECKED_JSON
        )
    except ValidationError:
        return None  # a compaction, or a problem the careful path names in the usual words
    return entry if _fast_parse_holds(text, entry, limits) else None


def _fast_parse_holds(text: str, entry: MessageEntry | MetadataEntry, limits: JsonLimits) -> bool:
    """True when the fast parse kept every string of the text and broke no rule it cannot see.

    The fast parser keeps the last of two equal keys, and reads ``NaN`` or
    ``1e400`` inside ``arguments``, ``details`` or ``value`` without a word.
    A dropped key is a dropped string, so counting the text's strings against
    the entry's finds it; the numbers and the nesting of free JSON values are
    checked on the way.
    """
    try:
        strings, free_containers = _strings_in_entry(entry)
    except JsonValueError:
        return False
    if free_containers + _FIXED_DEPTH > limits.max_depth:
        return False  # possibly nested too deeply: the careful path counts the brackets
    if text.count('"') == 2 * strings:
        return True  # no more strings than two quotes each: none was dropped, none escaped
    return strings_in_json_text(text) == strings  # escaped quotes: count them too


def _strings_in_entry(entry: MessageEntry | MetadataEntry) -> tuple[int, int]:
    """The JSON strings (keys and values) the entry was validated from, and the containers
    of its free JSON values, checking their numbers on the way.

    Each model's required fields are always there; only optional ones and free
    JSON values vary, so the count needs no walk over the models themselves.
    """
    # id, type, their keys and the keys of parentId and timestamp; parentId may be a string
    strings = 6 + (entry.parent_id is not None)
    if isinstance(entry, MetadataEntry):
        found, containers = _strings_in_json(entry.value)
        return strings + 3 + found, containers  # the keys key and value, key's value
    message = entry.message
    strings += 1  # the key "message"
    if isinstance(message, UserMessage):
        return strings + 4 + 4 * len(message.content), 0  # role, its key, content, timestamp
    if isinstance(message, ToolResultMessage):
        strings += 9 + 4 * len(message.content)  # six keys, role, toolCallId, toolName
        if "details" not in message.model_fields_set:
            return strings, 0
        found, containers = _strings_in_json(message.details)
        return strings + 1 + found, containers
    if isinstance(message, SystemMessage):
        strings += 5  # role, content, timestamp and the values of role and content
        sections = message.sections
        if sections is None:
            return strings, 0
        values = sum(value is not None for value in sections.values())
        return strings + 1 + len(sections) + values, 0
    # Seven keys, usage's three, the values of role, provider, model and stopReason.
    strings += 14 + 2 * (message.error_message is not None)
    containers = 0
    for block in message.content:
        if block.type == "text":
            strings += 4
            continue
        # type, id, name, arguments (keys), and the values of type, id and name
        found, inside = _strings_in_json(block.arguments)
        strings += 7 + 2 * (block.raw_arguments is not None) + found
        containers += inside
    return strings, containers


def _strings_in_json(value: Any) -> tuple[int, int]:
    """The strings (keys included) and the objects and arrays of a free JSON value.

    Its numbers are checked on the way: the fast parser reads ``NaN``, ``1e400``
    and integers beyond 2**53 without a word.
    """
    strings = containers = 0
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str:
            strings += 1
        elif kind is dict:
            strings += len(item)
            containers += 1
            pending.extend(item.values())
        elif kind is list:
            containers += 1
            pending.extend(item)
        elif kind is int or kind is float:
            check_wire_number(item)
    return strings, containers


def _parse_compaction(value: dict[str, Any], label: str) -> CompactionEntry:
    """Lab 11.1: turn a compaction's wire dict into a fresh entry, or say exactly what is wrong.

    Every store write, JSONL read and ``create_compaction_entry`` passes here,
    so this one strict check guards all of them: an unknown or missing key, a
    non-finite or negative number, a non-string list item or a blank id is a
    ``SessionEntryError`` starting with ``label`` and naming the camelCase field
    path (``session entry compact-1: summary.files: unknown field``). The result
    shares nothing with ``value``; ``tokensBefore`` is kept exactly as given.

    What the Lab 11.1 checks hold you to: validate ``value`` against
    ``CompactionEntry`` by its wire (camelCase) names only, and turn pydantic's
    ``ValidationError`` into a ``SessionEntryError`` whose message is
    ``f"{label}: ..."``; ``describe_validation_error`` writes the field path
    and the problem in the course's words ("unknown field", "missing field",
    ">= 0", "finite number", "string", "blank"). ``value`` is a fresh copy
    already (``parse_session_entry`` made it), and a rejected input is never
    changed.
    """
    # --- Lab 11.1 compaction entry: begin ---
    try:
        return CompactionEntry.model_validate(value, by_alias=True, by_name=False)
    except ValidationError as error:
        raise SessionEntryError(f"{label}: {describe_validation_error(error)}") from None
    # --- Lab 11.1: end ---


def require_session_entries(entries: Sequence[Any]) -> set[type]:
    """Refuse anything that is not one of this package's entry objects; return the types found.

    Functions such as ``build_context`` tell entries apart with ``isinstance``;
    a dict or an entry made by another copy of the models would otherwise be
    silently ignored instead of reported. The types are returned so that a
    caller asking "is there a compaction?" need not walk the path again.
    """
    kinds = set(map(type, entries))  # one pass at C speed for the common case
    if kinds <= _ENTRY_TYPES:
        return kinds
    for position, entry in enumerate(entries):
        if not isinstance(entry, MessageEntry | MetadataEntry | CompactionEntry):
            entry_id = entry.get("id") if isinstance(entry, dict) else getattr(entry, "id", None)
            label = _entry_label(entry_id)
            raise SessionEntryError(
                f"{label}: item {position} of the path is a {type(entry).__name__}, "
                "not a session entry of this package; pass it through parse_session_entry first"
            )
    return kinds
