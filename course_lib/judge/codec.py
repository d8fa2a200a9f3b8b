"""What crosses the call channel: plain JSON, the course's types by name, shared objects kept.

Why not the wire format alone: a check also asks whether a rule *copied* —
whether its answer shares a list with the path it was given, or changed its
input. So the codec keeps the object graph of one call: every container the
judge sends gets a number, and an answer that hands back one of those objects
says ``["ref", n]`` instead of a copy, which the judge turns back into its
own object. Everything else is rebuilt through the course's own types
(``model_validate`` of the given models, the given dataclasses' constructors),
so an answer is read the way the course reads any value.

The forms (a JSON array always has a string head, so none is ambiguous)::

    null, true, 3, 2.5, NaN, "text"           itself
    ["list", n, [...]]  ["tuple", n, [...]]   ["dict", n, [[key, value], ...]]
    ["model", n, "MessageEntry", [[field, value], ...]]   a given pydantic model
    ["data", n, "Budget", [[field, value], ...]]          a given dataclass
    ["ref", n]                                            an object already sent
    ["ellipsis"]                                          ``...`` (an unanswered exercise)
    ["other", "TypeName", "its repr"]                     anything else (never equal)

A value of another type (a student's own class, an ``int`` whose ``__eq__``
always says yes) can cross only as ``other``: the judge compares what it
reads, never an object of the judged side.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import Any

from pydantic import BaseModel

__all__ = [
    "GIVEN_TYPE_MODULES",
    "MAX_DEPTH",
    "ChannelError",
    "Codec",
    "OtherValue",
    "adopt",
    "course_types",
    "given_types",
]

MAX_DEPTH = 64
"""The deepest value either side encodes or reads; the course's values are a dozen deep."""

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")

MAX_OBJECTS = 2_000_000
"""The most containers one call may send or answer with."""


class ChannelError(Exception):
    """A value that cannot cross, or an answer that cannot be read: that call fails, no other."""


class OtherValue:
    """What the judge reads for a value of no course type: its type's name and its repr.

    It equals nothing but itself, so an answer can never pass by being a
    strange object; its repr is the judged side's (without memory addresses,
    so a grade reads the same every run), so a failure still shows it.
    """

    __slots__ = ("text", "type_name")

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name = type_name
        self.text = text

    def __repr__(self) -> str:
        return self.text


def course_types(modules: Iterable[ModuleType]) -> dict[str, type]:
    """The pydantic models and dataclasses ``modules`` define, by class name."""
    found: dict[str, type] = {}
    for module in modules:
        for value in vars(module).values():
            is_type = isinstance(value, type) and value.__module__ == module.__name__
            if is_type and (issubclass(value, BaseModel) or dataclasses.is_dataclass(value)):
                found[value.__name__] = value
    return found


class Codec:
    """Both ends of one call: numbers every container it writes or reads, keeps them alive.

    One ``Codec`` serves one call on each side: the judge encodes the
    arguments, the rules' side decodes them and encodes the answer (and the
    arguments again, after the call), the judge decodes those. Numbers go on
    from side to side, so ``["ref", n]`` means the same object at both ends.
    """

    def __init__(self, types: Mapping[str, type], *, strict: bool = False) -> None:
        self.types = dict(types)
        self.strict = strict
        """The judge's side: a value of no course type is the sender's mistake, not ``other``."""
        self._by_type = {kind: name for name, kind in self.types.items()}
        self.objects: list[Any] = []
        self._numbers: dict[int, int] = {}

    def _number(self, value: object) -> int:
        if len(self.objects) >= MAX_OBJECTS:
            raise ChannelError(f"more than {MAX_OBJECTS:,} objects in one call")
        self._numbers[id(value)] = len(self.objects)
        self.objects.append(value)
        return len(self.objects) - 1

    # --- writing ------------------------------------------------------------------------------

    def encode(self, value: object, depth: int = 0) -> Any:
        """``value`` as plain JSON data; an object this call has seen already is a ``ref``."""
        if depth > MAX_DEPTH:
            raise ChannelError(f"a value nested deeper than {MAX_DEPTH} levels")
        kind = type(value)
        if value is None or kind is bool or kind is str or kind is int:
            return value
        if value is Ellipsis:  # a notebook exercise not answered yet
            return ["ellipsis"]
        if kind is float:
            return value
        known = self._numbers.get(id(value))
        if known is not None:
            return ["ref", known]
        if kind is list or kind is tuple:
            number = self._number(value)
            items = [self.encode(item, depth + 1) for item in value]  # type: ignore[attr-defined]
            return ["list" if kind is list else "tuple", number, items]
        if kind is dict:
            number = self._number(value)
            pairs = [
                [self.encode(key, depth + 1), self.encode(item, depth + 1)]
                for key, item in value.items()  # type: ignore[attr-defined]
            ]
            return ["dict", number, pairs]
        if isinstance(value, int | float | str):  # a subclass: its plain value, not its __eq__
            return _plain(value)
        name = self._by_type.get(kind)
        if name is not None and isinstance(value, BaseModel):
            number = self._number(value)
            given = value.model_fields_set  # a field left unset stays unset (and off the wire)
            fields = [
                [field, self.encode(value.__dict__[field], depth + 1)]
                for field in kind.model_fields  # type: ignore[attr-defined]
                if field in given
            ]
            return ["model", number, name, fields]
        if name is not None and dataclasses.is_dataclass(value):
            number = self._number(value)
            fields = [
                [field.name, self.encode(getattr(value, field.name), depth + 1)]
                for field in dataclasses.fields(value)
            ]
            return ["data", number, name, fields]
        return self._other(value)

    def _other(self, value: object) -> list[str]:
        """A value of no course type: named and shown, never rebuilt."""
        if self.strict:
            raise ChannelError(
                f"a {type(value).__name__} cannot be sent to the rules: only plain data, the "
                "course's types and the named estimators (NamedEstimator) cross"
            )
        try:
            text = repr(value)
        except Exception as error:  # a repr that raises is shown as what it raised
            text = f"<{type(value).__name__} whose repr raised {type(error).__name__}>"
        text = _ADDRESS.sub("", text)  # ``<Foo object at 0x7f...>``: the same every run
        shown = text if len(text) <= 300 else text[:297] + "..."
        return ["other", type(value).__name__[:100], shown]

    # --- reading ------------------------------------------------------------------------------

    def decode(self, data: Any, depth: int = 0) -> Any:
        """Rebuild what ``encode`` wrote; a malformed form is a ``ChannelError``."""
        if depth > MAX_DEPTH:
            raise ChannelError(f"a value nested deeper than {MAX_DEPTH} levels")
        if data is None or type(data) in (bool, int, float, str):
            return data
        if type(data) is not list or not data or type(data[0]) is not str:
            raise ChannelError(f"not a value form: {_short(data)}")
        head = data[0]
        if head == "ref" and len(data) == 2 and type(data[1]) is int:
            if not 0 <= data[1] < len(self.objects):
                raise ChannelError(f"a reference to object {data[1]}, which was never sent")
            return self.objects[data[1]]
        if head == "ellipsis" and len(data) == 1:
            return Ellipsis
        if head == "other" and len(data) == 3 and all(type(part) is str for part in data[1:]):
            return OtherValue(data[1], data[2])
        if len(data) < 3 or type(data[1]) is not int or data[1] != len(self.objects):
            raise ChannelError(f"a {head!r} form out of order: {_short(data)}")
        if head in ("list", "tuple") and len(data) == 3 and type(data[2]) is list:
            items: list[Any] = []
            self._number(items)
            items.extend(self.decode(item, depth + 1) for item in data[2])
            if head == "list":
                return items
            result = tuple(items)
            del self._numbers[id(items)]
            self.objects[data[1]] = result
            self._numbers[id(result)] = data[1]
            return result
        if head == "dict" and len(data) == 3 and type(data[2]) is list:
            mapping: dict[Any, Any] = {}
            self._number(mapping)
            for key, item in self._pairs(data[2]):
                mapping[self._key(self.decode(key, depth + 1))] = self.decode(item, depth + 1)
            return mapping
        if head in ("model", "data") and len(data) == 4 and type(data[3]) is list:
            return self._decode_typed(head, data, depth)
        raise ChannelError(f"not a value form: {_short(data)}")

    def _decode_typed(self, head: str, data: list[Any], depth: int) -> Any:
        kind = self.types.get(data[2]) if type(data[2]) is str else None
        if kind is None:
            raise ChannelError(f"{_short(data[2])} is no course type")
        is_model = issubclass(kind, BaseModel)
        if is_model != (head == "model"):
            raise ChannelError(f"{data[2]} sent as a {head!r}")
        number = len(self.objects)  # its place is held until the object exists
        self.objects.append(None)
        fields: dict[str, Any] = {}
        for name, item in self._pairs(data[3]):
            if type(name) is not str:
                raise ChannelError(f"a field name that is no string in a {data[2]}")
            fields[name] = self.decode(item, depth + 1)
        try:
            built = kind.model_validate(fields) if is_model else kind(**fields)  # type: ignore[attr-defined]
        except Exception as error:
            raise ChannelError(f"not a valid {data[2]}: {_first_line(error)}") from None
        if is_model:  # validation copied each list and dict: hold the numbered ones again
            for name, value in fields.items():
                held = built.__dict__.get(name)
                if type(value) in (list, dict) and type(held) is type(value) and held == value:
                    built.__dict__[name] = value
        self.objects[number] = built
        self._numbers[id(built)] = number
        return built

    @staticmethod
    def _pairs(items: list[Any]) -> Iterable[tuple[Any, Any]]:
        for pair in items:
            if type(pair) is not list or len(pair) != 2:
                raise ChannelError(f"not a [key, value] pair: {_short(pair)}")
            yield pair[0], pair[1]

    @staticmethod
    def _key(key: Any) -> Any:
        try:
            hash(key)
        except TypeError:
            raise ChannelError(f"a dict key that cannot be one: {_short(key)}") from None
        return key


def adopt(target: object, after: object) -> None:
    """Make ``target`` (an argument the judge sent) hold ``after``, what the rules left in it.

    A rule that changed its input changed the judge's copy the same way, so a
    check that looks at the input afterwards sees the change.
    """
    if type(target) is list and type(after) is list:
        target[:] = after
    elif type(target) is dict and type(after) is dict:
        target.clear()
        target.update(after)
    elif isinstance(target, BaseModel) and type(after) is type(target):
        target.__dict__.update(after.__dict__)


def _plain(value: int | float | str) -> int | float | str:
    """The plain value an ``int``, ``float`` or ``str`` subclass holds, by the base type's method."""
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return int.__int__(value)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return (lines[0] if lines else type(error).__name__)[:300]


GIVEN_TYPE_MODULES = (
    "course_lib.base.messages",
    "course_lib.chapter.models",
    "course_lib.chapter.fixture",
)
"""Where the types that may cross live: Chapter 3's messages, the chapter's types, the
named estimators. Both ends read the same modules, so a name means one class."""


def given_types() -> dict[str, type]:
    """The types of ``GIVEN_TYPE_MODULES``, by name."""
    import importlib

    return course_types(importlib.import_module(name) for name in GIVEN_TYPE_MODULES)
