"""The strict pydantic base every wire model shares.

One configuration, so that every level of an entry follows the same rules:
no coercion, no unknown fields, no NaN/inf, camelCase on the wire and
snake_case in Python.
"""

from __future__ import annotations

import copy
from types import UnionType
from typing import Annotated, Any, ClassVar, Literal, Self, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, PlainValidator, StringConstraints
from pydantic.alias_generators import to_camel

from .text_rules import is_blank
from .wire import JsonValueError, check_wire_number, check_wire_string, copy_json_value

__all__ = [
    "FiniteNumber",
    "JsonValue",
    "NonBlankStr",
    "NonNegativeNumber",
    "WireModel",
    "WireStr",
]


def _require_encodable(value: str) -> str:
    try:
        return check_wire_string(value)
    except JsonValueError as error:
        raise ValueError(error.problem) from None


def _require_non_blank(value: str) -> str:
    if is_blank(value):
        raise ValueError("must not be blank")
    return _require_encodable(value)


def _require_finite_number(value: Any) -> int | float:
    # Checked by hand: a union ``int | float`` would report two errors per bad value,
    # and ``True`` must never count as the number 1.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a finite number, not {type(value).__name__}")
    try:
        return check_wire_number(value)
    except JsonValueError as error:
        problem = "must be a finite number, not NaN or infinity"
        raise ValueError(
            problem if error.problem == "non-finite number" else error.problem
        ) from None


def _require_non_negative(value: int | float) -> int | float:
    if value < 0:
        raise ValueError("must be >= 0")
    return value


WireStr = Annotated[str, StringConstraints(strict=True), AfterValidator(_require_encodable)]
"""A string that UTF-8 can encode (no lone surrogate), so every entry can be written."""

NonBlankStr = Annotated[str, StringConstraints(strict=True), AfterValidator(_require_non_blank)]
"""A string that is not empty after JavaScript's ``trim`` (``"   "`` and ``"\\ufeff"`` are blank)."""

FiniteNumber = Annotated[int | float, PlainValidator(_require_finite_number)]
"""A finite int or float the course can hold; an int stays an int and ``True`` is refused.

Integers beyond JavaScript's safe range (|n| > 2**53 - 1) are refused too.
"""

NonNegativeNumber = Annotated[FiniteNumber, AfterValidator(_require_non_negative)]
"""A finite number >= 0 (token counts, ``tokensBefore``)."""

JsonValue = Annotated[Any, AfterValidator(copy_json_value)]
"""Any plain JSON value, checked for finiteness and deep-copied on the way in."""


class WireModel(BaseModel):
    """Base of every message, block and entry: strict, closed, camelCase on the wire."""

    model_config = ConfigDict(
        strict=True,
        extra="forbid",
        allow_inf_nan=False,
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=True,
    )

    # The discriminator a Python constructor fills in, e.g. ("role", "user").
    # On the wire it is required: validating a dict never calls ``__init__``.
    _default_tag: ClassVar[tuple[str, str] | None] = None
    # Optional wire fields that are omitted when absent (never written as null).
    _omit_when_none: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **data: Any) -> None:
        if self._default_tag is not None:
            key, tag = self._default_tag
            data.setdefault(key, tag)
        super().__init__(**data)

    # Pydantic calls a custom ``__init__`` from ``model_validate`` too, which would
    # fill the tag in on the wire and drop ``by_name=False`` (accepting snake_case
    # keys). Marking it as a base ``__init__`` keeps it for Python constructors only.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        """A deep copy without ``copy.deepcopy``'s bookkeeping (``model_copy(deep=True)`` uses it).

        A validated model holds only strings, numbers, lists, dicts and other
        models, and never shares a container between two fields, so a plain
        walk is a complete copy, several times faster than the generic one.
        """
        return _copy_model(self)

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


# The slots every pydantic model has, written directly: ``BaseModel.__setattr__``
# validates assignments, and a copy of a validated model needs none of that.
_new_object = object.__new__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _copy_model(model: WireModel) -> Any:
    copied = _new_object(type(model))
    state = copied.__dict__
    state.update(model.__dict__)
    for name in _container_fields(type(model)):
        value = state[name]
        if value is not None:
            state[name] = _copy_value(value)
    _set_fields_set(copied, model.__pydantic_fields_set__.copy())
    _set_extra(copied, None)
    _set_private(copied, None)
    return copied


_SCALARS = (str, int, float, bool, type(None))
_CONTAINER_FIELDS: dict[type, tuple[str, ...]] = {}


def _container_fields(model_type: type[WireModel]) -> tuple[str, ...]:
    """The fields whose values may hold a list, dict or model (the rest are shared as they are)."""
    fields = _CONTAINER_FIELDS.get(model_type)
    if fields is None:
        fields = tuple(
            name
            for name, info in model_type.model_fields.items()
            if not _holds_only_scalars(info.annotation)
        )
        _CONTAINER_FIELDS[model_type] = fields
    return fields


def _holds_only_scalars(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _holds_only_scalars(get_args(annotation)[0])
    if origin is Literal:
        return True
    if origin in (Union, UnionType):
        return all(_holds_only_scalars(arg) for arg in get_args(annotation))
    return annotation in _SCALARS


def _copy_value(value: Any) -> Any:
    kind = type(value)
    if kind is list:
        return [item if type(item) in _SCALARS else _copy_value(item) for item in value]
    if kind is dict:
        return {
            key: item if type(item) in _SCALARS else _copy_value(item)
            for key, item in value.items()
        }
    if kind in _SCALARS:
        return value
    if isinstance(value, WireModel):
        return _copy_model(value)
    return copy.deepcopy(value)  # not produced by validation; the generic copy is always right


def _to_wire_value(value: Any) -> Any:
    if isinstance(value, WireModel):
        return value.to_wire()
    if isinstance(value, list):
        return [_to_wire_value(item) for item in value]
    return copy_json_value(value)
