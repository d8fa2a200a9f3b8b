"""The JSON wire rules shared by every layer: strict parsing and the one line format.

Python's ``json`` module accepts ``NaN``, ``Infinity``, duplicate keys, lone
surrogates and any nesting depth, and writes numbers its own way (``2.0``,
``1e-05``); the course's files must not, so every read goes through
``loads_strict`` and every write through ``dumps_line``, which writes numbers
exactly as JavaScript's ``JSON.stringify`` does. A line written here is the
line the TypeScript course writes for the same entry, byte for byte.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from itertools import accumulate
from typing import Any

from jiter import from_json as _fast_json

__all__ = [
    "DEFAULT_LIMITS",
    "MAX_SAFE_INTEGER",
    "JsonLimits",
    "JsonMeasure",
    "JsonValueError",
    "check_json_numbers",
    "check_line_limits",
    "check_wire_limits",
    "check_wire_number",
    "check_wire_string",
    "copy_json_value",
    "current_limits",
    "dumps_line",
    "js_number_text",
    "limits_in_force",
    "loads_fast",
    "loads_strict",
    "measure_json",
    "nesting_depth",
]

MAX_SAFE_INTEGER = 2**53 - 1
"""JavaScript's ``Number.MAX_SAFE_INTEGER``: the course cannot hold a larger integer exactly."""


class JsonValueError(ValueError):
    """A value is not plain, finite JSON; ``path`` says where inside it."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{problem} at {path}" if path else problem)


# --- limits -----------------------------------------------------------------


@dataclass(frozen=True)
class JsonLimits:
    """How large one JSONL line may be, so a hostile file cannot exhaust the stack or memory.

    ``max_depth`` bounds nesting (Python's parser recurses, and the limit must
    not depend on how deep the caller's own stack already is);
    ``max_containers`` bounds the objects and arrays one line may hold, since
    each empty ``{}`` costs about 65 bytes of memory for 3 bytes of text.
    """

    max_line_chars: int = 16 * 1024 * 1024
    max_depth: int = 64
    max_containers: int = 100_000


DEFAULT_LIMITS = JsonLimits()
"""The limits every reader and writer uses unless told otherwise (documented in the README)."""

_LIMITS_IN_FORCE: ContextVar[JsonLimits] = ContextVar(
    "course_lib_json_limits", default=DEFAULT_LIMITS
)


def current_limits() -> JsonLimits:
    """The limits in force here: ``DEFAULT_LIMITS`` unless ``limits_in_force`` says otherwise."""
    return _LIMITS_IN_FORCE.get()


@contextmanager
def limits_in_force(limits: JsonLimits) -> Iterator[None]:
    """Let ``copy_json_value`` (and so every entry parser) apply ``limits`` within the block.

    Why a context: a store opened with other limits parses entries through the
    chapter's ``parse_session_entry``, whose signature knows nothing of limits;
    the store sets them here around the call, for this thread and task only.
    """
    token = _LIMITS_IN_FORCE.set(limits)
    try:
        yield
    finally:
        _LIMITS_IN_FORCE.reset(token)


# A JSON string token, then the brackets outside strings (linear: no nested quantifiers).
_STRING_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_line_limits(text: str, limits: JsonLimits = DEFAULT_LIMITS) -> None:
    """Refuse a line too long, too deeply nested or holding too many containers to parse safely.

    ``text`` is the line without its newline. The three counts, their order and
    their words are the ones ``check_wire_limits`` applies before a line is
    written, so whatever a store writes its reader reads back.
    """
    _check_chars(len(text), limits)
    opening = text.count("{") + text.count("[")
    if opening <= min(limits.max_depth, limits.max_containers):
        return  # cannot nest deeper, nor hold more, than it has brackets: two counts suffice
    outside_strings = _STRING_TOKEN.sub("", text)
    _check_containers(outside_strings.count("{") + outside_strings.count("["), limits)
    steps = (1 if bracket in "[{" else -1 for bracket in _BRACKET.findall(outside_strings))
    _check_depth(max(accumulate(steps, initial=0)), limits)


@dataclass(frozen=True)
class JsonMeasure:
    """What the limits count in a parsed value: nesting depth, containers, and a length bound.

    ``chars_at_most`` bounds the characters ``dumps_line`` writes for the value
    (each string as if every character needed a six-character escape), so a
    writer serialises only a value that might be too long to tell.
    """

    depth: int
    containers: int
    chars_at_most: int


_SCALAR_CHARS = 25  # the longest number JSON.stringify writes (-1.2345678901234567e-308), or null


def measure_json(value: Any) -> JsonMeasure:
    """Count, a level at a time (no recursion), what ``check_line_limits`` counts in the text.

    Depth is the most objects and arrays open at once, as in the text; every
    object and array is one container. Walking the value is what a writer can
    do without parsing its own line again.
    """
    depth = containers = 0
    chars = 0
    level = [value]
    while level:
        below: list[Any] = []
        opened = 0
        for item in level:
            kind = type(item)
            if kind is str:
                chars += 6 * len(item) + 3  # quotes and a comma
            elif kind is dict:
                opened += 1
                chars += 2 + sum(6 * len(key) + 4 for key in item)
                below.extend(item.values())
            elif kind is list:
                opened += 1
                chars += 2
                below.extend(item)
            else:
                chars += _SCALAR_CHARS
        if opened:
            depth += 1
            containers += opened
        level = below
    return JsonMeasure(depth=depth, containers=containers, chars_at_most=chars)


def check_wire_limits(
    value: Any, limits: JsonLimits = DEFAULT_LIMITS, *, line: str | None = None
) -> None:
    """Refuse a value whose JSONL line the readers would refuse: one definition of the limits.

    Why: a store must never commit a line that it, ``read_session_file`` or
    ``course-lab inspect`` then refuses (every later open of the file would
    fail). The counts are the readers' own (characters of the line without its
    newline, objects and arrays, nesting depth), checked in the readers' order
    and refused in their words. ``line``: the line as it will be written (with
    or without its newline), when the caller has it; otherwise the value is
    serialised only when its length bound says it might be too long.
    """
    measure = measure_json(value)
    if line is not None:
        _check_chars(len(line.removesuffix("\n")), limits)
    elif measure.chars_at_most > limits.max_line_chars:
        _check_chars(len(dumps_line(value)) - 1, limits)
    _check_containers(measure.containers, limits)
    _check_depth(measure.depth, limits)


def _check_chars(chars: int, limits: JsonLimits) -> None:
    if chars > limits.max_line_chars:
        raise JsonValueError(
            "", f"line is {chars} characters long (the limit is {limits.max_line_chars})"
        )


def _check_containers(containers: int, limits: JsonLimits) -> None:
    if containers > limits.max_containers:
        raise JsonValueError(
            "", f"line holds {containers} objects and arrays (the limit is {limits.max_containers})"
        )


# --- reading ----------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r} in one JSON object")
            seen.add(key)
    return result


def loads_strict(text: str, limits: JsonLimits = DEFAULT_LIMITS) -> Any:
    """Parse JSON text, refusing NaN/Infinity, duplicate keys, lone surrogates and huge lines.

    Integers outside JavaScript's safe range are refused later, by the schema,
    which can name the field; lone surrogates are found here, where their
    escape (``\\ud800``) is still visible in the text.

    Two readers, one result: ``jiter`` (pydantic's JSON parser) reads a line
    two to three times as fast as ``json`` and refuses what the course refuses
    (a key given twice, NaN, Infinity, a lone surrogate); whenever it refuses a
    line, the ``json`` reader reads it again and names the problem in its
    usual words.
    """
    opening = text.count("{") + text.count("[")
    if len(text) <= limits.max_line_chars and opening <= limits.max_containers:
        # Small enough for jiter, whose own nesting limit keeps its stack safe: the
        # course's depth is measured on what it read, never by scanning the text.
        try:
            value = _jiter_loads(text.encode("utf-8"))
        except ValueError:  # UnicodeEncodeError too: a lone surrogate in the text itself
            pass
        else:
            if opening > limits.max_depth:
                _check_depth(nesting_depth(value), limits)
            return value
    check_line_limits(text, limits)  # before the json module, whose reader recurses
    value = _careful_loads(text)
    if "\\u" in text and _ESCAPED_SURROGATE.search(text):
        _reject_lone_surrogates(value, "")
    return value


def loads_fast(data: bytes, limits: JsonLimits = DEFAULT_LIMITS) -> Any:
    """One JSON line's UTF-8 bytes, read as they are by ``jiter``; ``ValueError`` when in doubt.

    Why bytes: a file is read as bytes, and ``jiter`` checks their UTF-8 while
    it parses, so a line it accepts is never decoded to text first. It refuses
    what ``loads_strict`` refuses (bytes that are not UTF-8, a key given twice,
    NaN, a lone surrogate); a line over the size limits is not handed to it,
    and one it reads nested too deep is refused after. On any ``ValueError``
    the caller reads the line with ``loads_strict``, which names the problem.
    """
    if len(data) > limits.max_line_chars:  # as many bytes as characters at least
        raise ValueError("long line: counted by loads_strict")
    opening = data.count(b"{") + data.count(b"[")
    if opening > limits.max_containers:
        raise ValueError("many brackets: counted by loads_strict")
    value = _jiter_loads(data)
    if opening > limits.max_depth:
        _check_depth(nesting_depth(value), limits)
    return value


def nesting_depth(value: Any) -> int:
    """How many objects and arrays deep a parsed JSON value nests (a scalar: 0).

    Why measure the value: a line with more brackets than the depth limit
    mostly has them inside strings (code, logs), and walking the few
    containers a parser built is far cheaper than scanning the text around
    every string. Walked a level at a time, so the depth is the text's: the
    most brackets open at once.
    """
    depth = 0
    level = [value]
    while level := [item for item in level if type(item) is dict or type(item) is list]:
        depth += 1
        level = [
            child for item in level for child in (item.values() if type(item) is dict else item)
        ]
    return depth


def _check_depth(depth: int, limits: JsonLimits) -> None:
    if depth > limits.max_depth:
        raise JsonValueError("", f"nested {depth} levels deep (the limit is {limits.max_depth})")


def _jiter_loads(data: bytes) -> Any:
    """``jiter``'s reading with the course's refusals: NaN, Infinity and a key given twice."""
    return _fast_json(data, allow_inf_nan=False, catch_duplicate_keys=True)


def _careful_loads(text: str) -> Any:
    """The ``json`` module's reading, with every problem named (a key given twice, NaN, ...)."""
    if text.startswith("\ufeff"):  # json.loads names a byte order mark; a bare decoder does not
        return json.loads(
            text, parse_constant=_reject_constant, object_pairs_hook=_reject_duplicate_keys
        )
    return _STRICT_DECODER.decode(text)


# What json.loads builds on every call given these options, built once.
_STRICT_DECODER = json.JSONDecoder(
    parse_constant=_reject_constant, object_pairs_hook=_reject_duplicate_keys
)


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


def _reject_lone_surrogates(value: Any, path: str) -> None:
    """Walk a parsed value iteratively and name the first string holding a lone surrogate."""
    pending: list[tuple[Any, str]] = [(value, path)]
    while pending:
        item, where = pending.pop()
        if isinstance(item, str):
            check_wire_string(item, where)
        elif isinstance(item, list):
            pending.extend((child, _join(where, index)) for index, child in enumerate(item))
        elif isinstance(item, dict):
            for key, child in item.items():
                check_wire_string(key, _join(where, key))
                pending.append((child, _join(where, key)))


def check_wire_string(value: str, path: str = "") -> str:
    """Refuse a lone surrogate: UTF-8 cannot encode it, so the line could never be written."""
    if not value.isascii() and _SURROGATE.search(value):
        raise JsonValueError(path, "lone surrogate in a string (not valid Unicode text)")
    return value


def check_wire_number(value: int | float, path: str = "") -> int | float:
    """Refuse numbers the course cannot hold: non-finite, or an integer beyond 2**53 - 1.

    A float with an integral value below ``1e21`` is written as an integer
    literal (``JSON.stringify`` does so), so it obeys the integer bound too.
    """
    if isinstance(value, int):
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return value
        raise JsonValueError(path, "integer outside JavaScript's safe range (|n| <= 2**53 - 1)")
    if not math.isfinite(value):
        raise JsonValueError(path, "must be a finite number, not NaN or infinity")
    if MAX_SAFE_INTEGER < abs(value) < 1e21 and value.is_integer():
        raise JsonValueError(path, "integer outside JavaScript's safe range (|n| <= 2**53 - 1)")
    return value


_NUMBERLESS = frozenset({str, bool, type(None)})
"""Values that hold no number and nest nothing: a dict of only these needs no walk."""


def check_json_numbers(value: Any, max_depth: int | None = None) -> Any:
    """Return ``value`` after refusing the numbers a parser lets through but the course cannot hold.

    Why: a fast JSON reader accepts ``1e400`` (as infinity) and integers beyond
    2**53 - 1 inside free values (tool arguments, details, metadata), which the
    schema's number types never see. Walked a level at a time, at C speed for
    the common flat object of strings. ``max_depth``: also refuse a value
    nested deeper than that many objects and arrays.
    """
    if type(value) is dict and _NUMBERLESS.issuperset(map(type, value.values())):
        return value
    level = [value]
    depth = 0
    while level:
        below: list[Any] = []
        for item in level:
            kind = type(item)
            if kind is dict:
                below.extend(item.values())
            elif kind is list:
                below.extend(item)
            elif kind is int:  # most numbers: one comparison, no call
                if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    check_wire_number(item)
            elif kind is float:
                check_wire_number(item)
        if below or any(type(item) in (dict, list) for item in level):
            depth += 1
            if max_depth is not None and depth > max_depth:
                raise JsonValueError("", f"nested deeper than {max_depth} levels")
        level = below
    return value


# --- writing ----------------------------------------------------------------


def js_number_text(value: float) -> str:
    """Write a finite float as ECMAScript's ``Number::toString`` does (``2``, ``1e-7``, ``1e+21``)."""
    if value == 0:
        return "0"  # also -0.0, which JSON.stringify writes as 0
    sign = "-" if value < 0 else ""
    # repr gives the shortest digits that round-trip: the digits JavaScript picks too.
    exact = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, exact.digits))
    count = len(digits)
    point = int(exact.exponent) + count  # value = 0.<digits> * 10**point
    if count <= point <= 21:
        return sign + digits + "0" * (point - count)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    shift = point - 1
    mantissa = digits if count == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{sign}{mantissa}e{'+' if shift > 0 else '-'}{abs(shift)}"


# A float token as ``repr`` writes it that JavaScript writes differently: an
# integral value (``2.0``, ``-0.0``) or a small exponent (``1e-05``).
_PYTHON_ONLY_FLOAT = re.compile(r"\.0[,\]}]|e-0")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:e[-+]\d+)?')


def _javascript_token(match: re.Match[str]) -> str:
    token = match.group(0)
    if token.startswith('"') or not any(mark in token for mark in ".e"):
        return token
    return js_number_text(float(token))


def dumps_line(wire: dict[str, Any]) -> str:
    """Serialise one wire dict as a committed JSONL line, numbers as ``JSON.stringify`` writes them."""
    line = json.dumps(wire, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    if _PYTHON_ONLY_FLOAT.search(line):
        line = _TOKEN.sub(_javascript_token, line)
    return line + "\n"


# --- copying ----------------------------------------------------------------


def copy_json_value(value: Any, path: str = "", limits: JsonLimits | None = None) -> Any:
    """Return a deep copy of ``value`` after checking it is plain JSON the course can hold.

    Copying while checking means a parsed entry never shares a list or dict
    with the caller's input, in either direction. The walk is iterative and
    bounded by ``limits.max_depth`` (default: ``current_limits()``), so a deeply
    nested value can neither exhaust the stack here nor later, when it is
    written. Depth is counted as the readers count it: the objects and arrays
    open at once, ``value`` itself the first when it is one.
    """
    max_depth = (current_limits() if limits is None else limits).max_depth
    root: list[Any] = [None]
    pending: list[_Pending] = [(value, path, root, 0, 0)]
    while pending:
        item, where, parent, slot, depth = pending.pop()
        if depth >= max_depth and isinstance(item, list | tuple | dict):
            raise JsonValueError(where, f"nested deeper than {max_depth} levels")
        parent[slot] = _copy_leaf_or_shell(item, where, depth, pending)
    return root[0]


# What is left to copy: the item, its path, the container and slot it goes to, its depth.
_Pending = tuple[Any, str, Any, Any, int]


def _copy_leaf_or_shell(item: Any, where: str, depth: int, pending: list[_Pending]) -> Any:
    """Copy a leaf, or return an empty container and queue its children to fill it."""
    if item is None or isinstance(item, bool):
        return item
    if isinstance(item, str):
        return check_wire_string(item, where)
    if isinstance(item, int | float):
        return check_wire_number(item if type(item) in (int, float) else _plain(item), where)
    if isinstance(item, list | tuple):
        shell: list[Any] = [None] * len(item)
        children = [(child, _join(where, i), shell, i, depth + 1) for i, child in enumerate(item)]
        pending.extend(reversed(children))  # depth first, in order: the first problem is named
        return shell
    if isinstance(item, dict):
        copied: dict[str, Any] = {}
        entries: list[_Pending] = []
        for key, child in item.items():
            if not isinstance(key, str):
                raise JsonValueError(where, f"non-string key {key!r}")
            check_wire_string(key, _join(where, key))
            copied[key] = None  # keeps the key order while the values are filled in
            entries.append((child, _join(where, key), copied, key, depth + 1))
        pending.extend(reversed(entries))
        return copied
    raise JsonValueError(where, f"{type(item).__name__} is not a JSON value")


def _plain(number: int | float) -> int | float:
    """A subclass of int or float (an ``IntEnum``, say) becomes the plain number it stands for."""
    return int(number) if isinstance(number, int) else float(number)
