"""Token numbers compare up to float rounding: a check judges the rule, not the order of the sums.

The reference adds costs in the TypeScript course's order, so its files are
byte-identical to the course's; a student who writes ``summary_tokens +
sum(kept_costs)``, or adds the fixed costs before subtracting them, follows
the same rule and may land one bit away (``25.299999999999997`` for
``25.3``). The spec (``shared/spec/api.md``, "Token numbers and floats") says
a check compares token numbers with ``math.isclose(rel_tol=1e-9)`` and
everything else exactly, so every judge of a student's answer (the lab
checks' helpers, the hidden cases, the notebook exercises) compares through
``same_value`` or ``same_number`` here, the one definition of "equal".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import TypeGuard

__all__ = ["REL_TOL", "is_number", "same_number", "same_value"]

REL_TOL = 1e-9
"""The relative tolerance the spec gives for token numbers (no absolute one: 0 is only 0)."""


def is_number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is a real number here: an int or a float, never a bool (``True`` is no token)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def same_number(expected: float, actual: float) -> bool:
    """Whether two token numbers agree up to rounding, so any order of adding the same costs passes."""
    return expected == actual or math.isclose(expected, actual, rel_tol=REL_TOL, abs_tol=0.0)


def same_value(expected: object, actual: object) -> bool:
    """Whether ``actual`` equals ``expected``, numbers anywhere inside compared with ``same_number``.

    Lists, tuples, mappings and dataclass instances are compared item by item
    (a list never equals a tuple, a dataclass only an instance of its own
    class, as ``==`` has it); strings, bools, ids and reasons stay exact, and a
    bool never equals a number. Anything else (pydantic messages and entries,
    whose kept copies the spec wants exactly) compares with its own ``==``.
    """
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if is_number(expected) and is_number(actual):
        return same_number(expected, actual)
    if isinstance(expected, list) and isinstance(actual, list):
        return _same_items(expected, actual)
    if isinstance(expected, tuple) and isinstance(actual, tuple):
        return _same_items(list(expected), list(actual))
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return expected.keys() == actual.keys() and all(
            same_value(expected[key], actual[key]) for key in expected
        )
    if is_dataclass(expected) and not isinstance(expected, type):
        # A dataclass instance (TokenProjection, LedgerRow ...): field by field, as its == does.
        return type(expected) is type(actual) and all(
            same_value(getattr(expected, item.name), getattr(actual, item.name))
            for item in fields(expected)
            if item.compare
        )
    return bool(actual == expected)


def _same_items(expected: list[object], actual: list[object]) -> bool:
    """Whether two sequences have the same length and pairwise the same values."""
    return len(expected) == len(actual) and all(
        same_value(want, got) for want, got in zip(expected, actual, strict=True)
    )
