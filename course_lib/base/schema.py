"""The strict pydantic base every wire model shares.

One configuration, so that every level of an entry follows the same rules:
no coercion, no unknown fields, no NaN/inf, camelCase on the wire and
snake_case in Python.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    StringConstraints,
    ValidationInfo,
)
from pydantic.alias_generators import to_camel
from pydantic_core import core_schema

from .copier import copy_model
from .text_rules import JS_TRIM_WHITESPACE
from .wire import MAX_SAFE_INTEGER, check_json_numbers, copy_json_value

__all__ = [
    "CHECKED_JSON",
    "NOT_NULL",
    "FiniteNumber",
    "JsonValue",
    "NonBlankStr",
    "NonNegativeNumber",
    "WireModel",
    "WireStr",
    "fresh_json",
    "is_free_json",
    "tag_required",
]


# The rules below run inside pydantic-core (a Python call only for a float), so
# reading a long session file costs little more than parsing its JSON. Lone
# surrogates are the one rule left to the boundary (``copy_json_value`` for
# Python values; JSON text with one fails to parse).

_FINITE = "must be a finite number"
_SAFE = "integer outside JavaScript's safe range (|n| <= 2**53 - 1)"
_NON_NEGATIVE = "must be >= 0"
_NOT_BLANK = "must not be blank"

# A character JavaScript's ``trim`` would keep: a string holding one is not blank.
_NOT_TRIM_WHITESPACE = (
    "[^" + "".join(f"\\u{ord(char):04x}" for char in sorted(JS_TRIM_WHITESPACE)) + "]"
)


def _finite_float(value: Any) -> float:
    # Only a float reaches this branch of the union when it is not an int.
    if not isinstance(value, float) or not math.isfinite(value):
        raise ValueError(_FINITE)
    return value


def _safe_float(value: Any) -> float:
    # An int that failed the safe-range rule must not pass as a float either (JSON
    # parsers turn any number into a float on request), nor a float that would be
    # written as an integer literal beyond the safe range.
    if not isinstance(value, float) or MAX_SAFE_INTEGER < abs(value) < 1e21:
        raise ValueError(_SAFE)
    return value


_FINITE_FLOAT = core_schema.no_info_plain_validator_function(_finite_float)
_SAFE_FLOAT = core_schema.no_info_plain_validator_function(_safe_float)


def _numbers(
    int_rule: core_schema.CoreSchema, float_rule: core_schema.CoreSchema, message: str
) -> core_schema.CoreSchema:
    return core_schema.custom_error_schema(
        core_schema.union_schema([int_rule, float_rule]),
        custom_error_type="course_number",
        custom_error_message=message,
    )


_FINITE_NUMBER = core_schema.chain_schema(
    [
        _numbers(core_schema.int_schema(strict=True), _FINITE_FLOAT, _FINITE),
        _numbers(
            core_schema.int_schema(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER), _SAFE_FLOAT, _SAFE
        ),
    ]
)
_NON_NEGATIVE_NUMBER = core_schema.chain_schema(
    [
        _FINITE_NUMBER,
        _numbers(core_schema.int_schema(ge=0), core_schema.float_schema(ge=0), _NON_NEGATIVE),
    ]
)
_NON_BLANK_STRING = core_schema.chain_schema(
    [
        core_schema.str_schema(strict=True),
        core_schema.custom_error_schema(
            core_schema.str_schema(pattern=_NOT_TRIM_WHITESPACE),
            custom_error_type="course_blank",
            custom_error_message=_NOT_BLANK,
        ),
    ]
)


class _Rule:
    """An annotation whose whole validation is one pydantic-core schema."""

    def __init__(self, schema: core_schema.CoreSchema) -> None:
        self.schema = schema

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        return self.schema


CHECKED_JSON: dict[str, bool] = {"course_lib.checked_json": True}  # the same key as _CHECKED
"""Validation context meaning: this value is fresh, checked JSON (no copy needed)."""


def fresh_json(max_free_depth: int) -> dict[str, Any]:
    """Validation context meaning: fresh JSON, no copy needed, whose free values have not been
    measured yet: refuse one nested deeper than ``max_free_depth`` (the fast line reader)."""
    return {_CHECKED: True, _MAX_FREE_DEPTH: max_free_depth}


_CHECKED = "course_lib.checked_json"
_MAX_FREE_DEPTH = "course_lib.max_free_depth"


def _copy_unless_checked(value: Any, info: ValidationInfo) -> Any:
    """A free JSON value is copied and checked; one a reader just parsed only has its numbers
    checked (the reader refused everything else, and nothing else holds it)."""
    context = info.context
    if context is CHECKED_JSON:
        return check_json_numbers(value)
    if type(context) is dict and context.get(_CHECKED):
        return check_json_numbers(value, context.get(_MAX_FREE_DEPTH))
    return copy_json_value(value)


def _reject_explicit_null(value: Any) -> Any:
    if value is None:
        raise ValueError("must be omitted when absent, not null")
    return value


NOT_NULL = BeforeValidator(_reject_explicit_null)
"""For an optional wire field: absent on the wire when unset, never an explicit ``null``."""


class tag_required:
    """Annotation for a model that stands alone in a list: its tag is still required on the wire.

    ``Annotated[TextContent, tag_required("type", "text")]`` validates the model
    as a tagged union of one member, natively: a missing or unknown ``type`` is
    refused as it would be among several kinds, while Python constructors,
    which pass a model, keep the default.
    """

    def __init__(self, key: str, tag: str) -> None:
        self.key = key
        self.tag = tag

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.tagged_union_schema({self.tag: handler(source)}, discriminator=self.key)


WireStr = Annotated[str, StringConstraints(strict=True)]
"""A string (the boundary refuses lone surrogates, which UTF-8 cannot write)."""

NonBlankStr = Annotated[str, _Rule(_NON_BLANK_STRING)]
"""A string that is not empty after JavaScript's ``trim`` (``"   "`` and ``"\\ufeff"`` are blank)."""

FiniteNumber = Annotated[int | float, _Rule(_FINITE_NUMBER)]
"""A finite int or float the course can hold; an int stays an int and ``True`` is refused.

Integers beyond JavaScript's safe range (|n| > 2**53 - 1) are refused too.
"""

NonNegativeNumber = Annotated[int | float, _Rule(_NON_NEGATIVE_NUMBER)]
"""A finite number >= 0 (token counts, ``tokensBefore``)."""

_FREE_JSON = AfterValidator(_copy_unless_checked)

JsonValue = Annotated[Any, _FREE_JSON]
"""Any plain JSON value (tool arguments, details, metadata): checked and deep-copied on the way in."""


class WireModel(BaseModel):
    """Base of every message, block and entry: strict, closed, camelCase on the wire.

    A tag (an entry's ``type``, a message's ``role``, a block's ``type``) has a
    default, so Python constructors fill it in, yet it is required on the wire:
    every parser tells the kinds apart by it (a discriminated union, or
    ``tag_required`` where a list holds only one kind), and a union whose tag
    is missing is an error.
    """

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        allow_inf_nan=False,
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=True,
    )

    # Optional wire fields that are omitted when absent (never written as null).
    _omit_when_none: ClassVar[tuple[str, ...]] = ()

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        """``copy.deepcopy`` goes to the fast copier (``base.copier``): same result, less work."""
        copied: Self = copy_model(self)  # a new object of this model's own type
        return copied

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """``BaseModel.model_copy``; a plain deep copy goes straight to the fast copier."""
        if deep and not update:
            copied: Self = copy_model(self)
            return copied
        return super().model_copy(update=update, deep=deep)

    def to_wire(self) -> dict[str, Any]:
        """Return a fresh camelCase, JSON-ready dict in the course's key order."""
        wire: dict[str, Any] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if self._omitted(name, value):
                continue
            wire[field.alias or name] = _to_wire_value(value)
        return wire

    def _omitted(self, name: str, value: Any) -> bool:
        return name in self._omit_when_none and value is None


def _to_wire_value(value: Any) -> Any:
    if isinstance(value, WireModel):
        return value.to_wire()
    if isinstance(value, list):
        return [_to_wire_value(item) for item in value]
    return copy_json_value(value)


def is_free_json(metadata: list[Any]) -> bool:
    """Whether a field's pydantic metadata marks it as ``JsonValue`` (free JSON)."""
    return any(item is _FREE_JSON for item in metadata)
