"""The strict pydantic base every wire model shares.

One configuration, so that every level of an entry follows the same rules:
no coercion, no unknown fields, no NaN/inf, camelCase on the wire and
snake_case in Python.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from types import UnionType
from typing import Annotated, Any, ClassVar, Literal, Self, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints, ValidationInfo
from pydantic.alias_generators import to_camel
from pydantic_core import core_schema

from .text_rules import JS_TRIM_WHITESPACE
from .wire import MAX_SAFE_INTEGER, copy_json_value

__all__ = [
    "CHECKED_JSON",
    "FiniteNumber",
    "JsonValue",
    "NonBlankStr",
    "NonNegativeNumber",
    "WireModel",
    "WireStr",
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


CHECKED_JSON: dict[str, bool] = {"course_lib.checked_json": True}
"""Validation context meaning: this value is fresh, checked JSON (no copy needed)."""


def _copy_unless_checked(value: Any, info: ValidationInfo) -> Any:
    return value if info.context is CHECKED_JSON else copy_json_value(value)


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

JsonValue = Annotated[Any, AfterValidator(_copy_unless_checked)]
"""Any plain JSON value, checked for finiteness and deep-copied on the way in."""


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
        """A deep copy without ``copy.deepcopy``'s bookkeeping (``model_copy(deep=True)`` uses it).

        A validated model holds only strings, numbers, lists, dicts and other
        models, and never shares a container between two fields, so a plain
        walk is a complete copy, several times faster than the generic one.
        """
        copied: Self = _copy_model(self)  # a new object of this model's own type
        return copied

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """``BaseModel.model_copy``; a plain deep copy goes straight to this type's copier.

        ``build_context`` deep-copies every message it returns, so pydantic's
        generic dispatch (update handling, memo) would be paid once per message.
        """
        if deep and not update:
            copied: Self = _copy_model(self)
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


# A copy of a validated model needs no validation: it is made as ``model_construct``
# makes one (a new object, its field values, its fields set), without checking. The
# four slots are set through their descriptors, which skips ``__setattr__``'s lookup.
_new_object = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__

_SCALARS = frozenset({str, int, float, bool, type(None)})

FieldCopier = Callable[[Any], Any]
"""Copies one field's value; chosen once per field from its annotation."""


class _CopierTable(dict[type, Callable[[Any], Any]]):
    """One copier per model type, made the first time a model of that type is copied.

    A value that is not a model where one was expected (only ``model_construct``
    can put one there) is copied as a free value, never shared.
    """

    def __missing__(self, kind: type) -> Callable[[Any], Any]:
        is_model = isinstance(kind, type) and issubclass(kind, WireModel)
        copier = self[kind] = _make_copier(kind) if is_model else _copy_value
        return copier


_COPIERS = _CopierTable()


def _copy_model(model: WireModel) -> Any:
    """A complete copy of one validated model, by the copier made once for its type."""
    return _COPIERS[type(model)](model)


def _make_copier(model_type: type[WireModel]) -> Callable[[Any], Any]:
    """Copy a model of ``model_type``: its scalar fields are shared, the rest copied.

    How each field is copied is read from its annotation once per type (a list
    of models, one model, a dict of strings, free JSON), so a copy walks only
    the fields that hold containers, each with the copier that fits it.
    """
    fields = tuple(
        (name, copier)
        for name, info in model_type.model_fields.items()
        if (copier := _field_copier(info.annotation)) is not None
    )

    def copy_one(model: Any) -> Any:
        state = model.__dict__.copy()
        for name, copy_field in fields:
            value = state[name]
            if value is not None:
                state[name] = copy_field(value)
        copied = _new_object(model_type)
        _set_dict(copied, state)
        _set_fields_set(copied, set(model.__pydantic_fields_set__))
        _set_extra(copied, None)
        private = model.__pydantic_private__
        _set_private(copied, None if private is None else dict(private))
        return copied

    return copy_one


def _field_copier(annotation: Any) -> FieldCopier | None:
    """The copier for a field annotated ``annotation``; ``None`` when it holds only scalars."""
    origin = get_origin(annotation)
    arguments = get_args(annotation)
    if origin is Annotated:
        return _field_copier(arguments[0])
    if origin is Literal or annotation in _SCALARS:
        return None
    if origin in (Union, UnionType):
        copiers = {_field_copier(argument) for argument in arguments}
        copiers.discard(None)  # a None value is never copied, nor is a scalar member
        if len(copiers) > 1:
            return _copy_value
        return copiers.pop() if copiers else None
    if origin is list and _is_model_type(arguments[0]):
        return _copy_models
    if origin in (list, dict) and _field_copier(arguments[-1]) is None:
        return _shallow_copy  # a list or dict of scalars
    if _is_model_type(annotation):
        return _copy_model
    return _copy_value  # free JSON (``Any``) and anything else: walked by value


def _is_model_type(annotation: Any) -> bool:
    """True for a model class, or a union of them (``Annotated`` or not)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _is_model_type(get_args(annotation)[0])
    if origin in (Union, UnionType):
        return all(_is_model_type(argument) for argument in get_args(annotation))
    return isinstance(annotation, type) and issubclass(annotation, WireModel)


def _copy_models(models: list[Any]) -> list[Any]:
    """A list of models (a message's blocks), each copied by its own type's copier."""
    copiers = _COPIERS
    return [copiers[type(model)](model) for model in models]


def _shallow_copy(value: Any) -> Any:
    """A list or dict of scalars: a new container, the immutable values shared."""
    return value.copy()


def _copy_value(value: Any) -> Any:
    """Copy a free value: lists, dicts and models are rebuilt, scalars shared."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list:
        return [_copy_value(item) for item in value]
    if kind is dict:
        if _SCALARS.issuperset(map(type, value.values())):
            return value.copy()  # most tool arguments: a flat object, copied at C speed
        return {key: _copy_value(item) for key, item in value.items()}
    if isinstance(value, WireModel):
        return _copy_model(value)
    return copy.deepcopy(value)  # not produced by validation; the generic copy is always right


def _to_wire_value(value: Any) -> Any:
    if isinstance(value, WireModel):
        return value.to_wire()
    if isinstance(value, list):
        return [_to_wire_value(item) for item in value]
    return copy_json_value(value)
