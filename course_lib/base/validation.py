"""Pydantic's validation errors in the course's words: ``<entry>: <field.path>: <problem>``.

Why: a student reads ``session entry compact-1: summary.files: unknown field``,
never pydantic's locations with union members and tags in them. The chapter
calls ``validate_wire``; the wording rules live here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from .errors import SessionEntryError
from .schema import CHECKED_JSON, WireModel
from .text_rules import is_blank
from .wire import JsonValueError, copy_json_value

__all__ = [
    "count_of_type",
    "describe_validation_error",
    "entry_label",
    "fresh_wire_dict",
    "only_instances_of",
    "require_models",
    "validate_checked",
    "validate_wire",
]

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


def entry_label(entry_id: Any) -> str:
    """``session entry <id>``, or ``session entry (no id)`` when the id is missing or blank."""
    return (
        f"session entry {entry_id}"
        if isinstance(entry_id, str) and not is_blank(entry_id)
        else ("session entry (no id)")
    )


class Validator(Protocol):
    """A model's pydantic-core validator (``Model.__pydantic_validator__``)."""

    def validate_python(
        self,
        input: Any,
        *,
        by_alias: bool | None = ...,
        by_name: bool | None = ...,
        context: Any = ...,
        extra: Literal["allow", "forbid", "ignore"] | None = ...,
    ) -> Any: ...


def validate_wire(
    validator: Validator,
    value: Any,
    *,
    context: Any = None,
    extra: Literal["allow", "forbid", "ignore"] | None = None,
) -> Any:
    """Validate a wire dict by its camelCase names only; a failure is one ``SessionEntryError``.

    The message starts with the entry's label (``session entry compact-1``),
    worked out only when there is an error; ``context`` and ``extra`` go to
    pydantic-core (the readers' shortcuts).
    """
    try:
        return validator.validate_python(
            value, by_alias=True, by_name=False, context=context, extra=extra
        )
    except ValidationError as error:
        label = entry_label(value.get("id") if isinstance(value, dict) else None)
        raise SessionEntryError(f"{label}: {describe_validation_error(error)}") from None


def fresh_wire_dict(value: Any) -> dict[str, Any]:
    """A checked deep copy of an entry's wire dict (an entry object gives its ``to_wire()``).

    Why: a parsed entry must share nothing with its input, and what the
    course cannot hold (NaN, unsafe integers, runaway depth) must be refused,
    naming the entry, before any model sees it.
    """
    if isinstance(value, WireModel):
        value = value.to_wire()  # an entry object: its wire dict is what is copied
    if not isinstance(value, dict):
        raise SessionEntryError(
            f"session entry (no id): expected a JSON object, got {type(value).__name__}"
        )
    try:
        copied: dict[str, Any] = copy_json_value(value)
    except JsonValueError as error:
        raise SessionEntryError(
            f"{entry_label(value.get('id'))}: {error.path}: {error.problem}"
        ) from None
    return copied


def validate_checked(model: Any, value: dict[str, Any], *, schema_keys_only: bool = False) -> Any:
    """``validate_wire`` for fresh, checked JSON (``fresh_wire_dict``'s or a reader's): no copy.

    ``schema_keys_only``: the caller (the pi importer) wrote every key from the
    schema's own names, so pydantic's search for unknown keys is skipped.
    """
    extra: Literal["ignore"] | None = "ignore" if schema_keys_only else None
    return validate_wire(model.__pydantic_validator__, value, context=CHECKED_JSON, extra=extra)


def only_instances_of(items: Sequence[Any], kind: type) -> bool:
    """Whether every item's type is exactly ``kind``: one pass at C speed, for a shortcut."""
    return set(map(type, items)) <= {kind}


def count_of_type(items: Sequence[Any], kind: type) -> int:
    """How many items are exactly of type ``kind``, counted at C speed (no subclasses)."""
    return list(map(type, items)).count(kind)


def require_models(items: Sequence[Any], kinds: tuple[type, ...], hint: str) -> None:
    """Refuse any item that is not an instance of ``kinds``, naming it and its position.

    Why: rule functions tell entries apart with ``isinstance``, so a wire dict
    would otherwise be skipped silently instead of reported.
    """
    if set(map(type, items)) <= set(kinds):  # one pass at C speed for the common case
        return
    for position, item in enumerate(items):
        if not isinstance(item, kinds):
            item_id = item.get("id") if isinstance(item, dict) else getattr(item, "id", None)
            raise SessionEntryError(
                f"{entry_label(item_id)}: item {position} of the path is a "
                f"{type(item).__name__}, {hint}"
            )
