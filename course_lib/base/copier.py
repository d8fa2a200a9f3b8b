"""The fast deep copier behind ``model_copy(deep=True)`` for the course's wire models.

Why it exists: ``build_context`` returns a deep copy of every kept message,
and pydantic's generic ``deepcopy`` (memo, dispatch, ``__deepcopy__`` lookups)
costs about as much as pricing them. A validated model holds only strings,
numbers, lists, dicts and other models and never shares a container between
fields, so a copier written once per model type from its annotations is a
complete copy at a fraction of the cost. The chapter never calls this module:
it calls ``model_copy(deep=True)``, which ``WireModel`` routes here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

__all__ = ["copy_model"]


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
        is_model = isinstance(kind, type) and issubclass(kind, BaseModel)
        copier = self[kind] = _make_copier(kind) if is_model else _copy_value
        return copier


_COPIERS = _CopierTable()


def copy_model(model: BaseModel) -> Any:
    """A complete copy of one validated model, by the copier made once for its type."""
    return _COPIERS[type(model)](model)


def _make_copier(model_type: type[BaseModel]) -> Callable[[Any], Any]:
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
        _set_fields_set(copied, model.__pydantic_fields_set__.copy())
        _set_extra(copied, None)
        private = model.__pydantic_private__
        _set_private(copied, None if private is None else dict(private))
        return copied

    def copy_scalars_only(model: Any) -> Any:
        """A model with no container field (a text block): its dict copied, nothing walked."""
        copied = _new_object(model_type)
        _set_dict(copied, model.__dict__.copy())
        _set_fields_set(copied, model.__pydantic_fields_set__.copy())
        _set_extra(copied, None)
        private = model.__pydantic_private__
        _set_private(copied, None if private is None else dict(private))
        return copied

    return copy_one if fields else copy_scalars_only


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
        return copy_model
    return _copy_value  # free JSON (``Any``) and anything else: walked by value


def _is_model_type(annotation: Any) -> bool:
    """True for a model class, or a union of them (``Annotated`` or not)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _is_model_type(get_args(annotation)[0])
    if origin in (Union, UnionType):
        return all(_is_model_type(argument) for argument in get_args(annotation))
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


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
    if isinstance(value, BaseModel):
        return copy_model(value)
    return copy.deepcopy(value)  # not produced by validation; the generic copy is always right
