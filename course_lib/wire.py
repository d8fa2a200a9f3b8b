"""The JSON wire rules shared by every layer: strict parsing and the one line format.

Python's ``json`` module accepts ``NaN``, ``Infinity`` and duplicate keys by
default; the course's files must not, so every read goes through ``loads_strict``
and every write through ``dumps_line``.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["JsonValueError", "copy_json_value", "dumps_line", "loads_strict"]


class JsonValueError(ValueError):
    """A value is not plain, finite JSON; ``path`` says where inside it."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{problem} at {path}" if path else problem)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r} in one JSON object")
        result[key] = value
    return result


def loads_strict(text: str) -> Any:
    """Parse JSON text, refusing NaN/Infinity literals and duplicate keys."""
    return json.loads(
        text, parse_constant=_reject_constant, object_pairs_hook=_reject_duplicate_keys
    )


def dumps_line(wire: dict[str, Any]) -> str:
    """Serialise one wire dict as a committed JSONL line (the newline commits it)."""
    return json.dumps(wire, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


def copy_json_value(value: Any, path: str = "") -> Any:
    """Return a deep copy of ``value`` after checking it is plain, finite JSON.

    Copying while checking means a parsed entry never shares a list or dict
    with the caller's input, in either direction.
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise JsonValueError(path, "non-finite number")
        return float(value)
    if isinstance(value, list | tuple):
        return [copy_json_value(item, _join(path, index)) for index, item in enumerate(value)]
    if isinstance(value, dict):
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise JsonValueError(path, f"non-string key {key!r}")
            copied[key] = copy_json_value(item, _join(path, key))
        return copied
    raise JsonValueError(path, f"{type(value).__name__} is not a JSON value")
