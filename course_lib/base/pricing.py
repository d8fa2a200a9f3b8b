"""Budget numbers and estimators: the checks every token figure passes, behind plain names.

The chapter prices a message with ``price(estimate_tokens, message, *which)``
and checks a budget number with ``check_budget_number(name, value)``. What
those guard against lives here: an estimator that returns ``NaN``, a negative
number, a bool or a huge int; an estimator that could change the path it is
shown (it gets a copy unless marked ``reads_only``); float sums that must add
in the TypeScript course's order to give the same bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from pydantic import BaseModel

from .errors import BudgetError
from .wire import MAX_SAFE_INTEGER

__all__ = [
    "Estimator",
    "Number",
    "add_in_order",
    "check_budget_number",
    "is_read_only",
    "price",
    "reads_only",
    "require_estimator",
]

Number = int | float
"""A token count or budget number: an int stays an int, a float a float."""

Estimator = Callable[[Any], Number]
"""``estimate_tokens(value) -> number``: prices a plain string or a course message."""

_READS_ONLY = "__course_reads_only__"
_Function = TypeVar("_Function", bound=Callable[..., Any])


def reads_only(estimate: _Function) -> _Function:
    """Declare that ``estimate`` never mutates its argument, so it may be given the message itself.

    Only mark a function you have read: a marked estimator that mutates a
    message would change the caller's path.
    """
    setattr(estimate, _READS_ONLY, True)
    return estimate


def is_read_only(estimate: Callable[..., Any]) -> bool:
    """True for an estimator marked with ``reads_only``."""
    return getattr(estimate, _READS_ONLY, False) is True


def check_budget_number(name: str, value: object) -> Number:
    """Return ``value`` if it is a finite number >= 0 the course can hold; else a ``BudgetError``.

    ``name`` says which number it is (``max_tokens``, ``estimate_tokens result
    for interaction 3 message 3``), so the error points at it.
    """
    if type(value) is int and 0 <= value <= MAX_SAFE_INTEGER:
        return value  # the common case, decided without the checks below
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BudgetError(f"{name} must be a finite number >= 0, got {_shown(value)}")
    if isinstance(value, int) and value > MAX_SAFE_INTEGER:
        raise BudgetError(f"{name} must be at most 2**53 - 1 (9007199254740991), got a larger int")
    if isinstance(value, int):  # negative: compared as an int (math.isfinite(-10**400) overflows)
        raise BudgetError(f"{name} must be a finite number >= 0, got {_shown(value)}")
    if not math.isfinite(value) or value < 0:
        raise BudgetError(f"{name} must be a finite number >= 0, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    """The value as a short repr: a huge int or a long string must not flood the message."""
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 200 else "a huge int"
    return text if len(text) <= 80 else text[:77] + "..."


def require_estimator(estimate_tokens: object) -> None:
    """Refuse an ``estimate_tokens`` that is not a function, before anything is priced."""
    if not callable(estimate_tokens):
        raise BudgetError(
            "estimate_tokens must be a function (str | message) -> number, "
            f"got {_shown(estimate_tokens)}"
        )


def price(estimate_tokens: Estimator, message: BaseModel, *which: str | int) -> Number:
    """What ``estimate_tokens`` says ``message`` costs, checked; the estimator never sees the path.

    ``which`` names the message as the course does, joined by spaces only when
    something goes wrong (this runs once per message of the path):
    ``price(estimate, message, "interaction", 2, "message", 3)``. An estimator
    that raises becomes a ``BudgetError`` naming the message, its error kept as
    the ``__cause__``; one that returns anything but a finite number >= 0 too.
    An estimator marked ``reads_only`` (the ones this package ships) is given
    the message itself; any other gets a deep copy, so it can never change the
    caller's path.
    """
    reads_only_ = getattr(estimate_tokens, _READS_ONLY, False) is True  # is_read_only, inlined
    try:
        tokens = estimate_tokens(message if reads_only_ else message.model_copy(deep=True))
    except Exception as error:
        name = " ".join(map(str, which))
        raise BudgetError(
            f"estimate_tokens failed on {name}: {type(error).__name__}: {error}"
        ) from error
    if type(tokens) is int and 0 <= tokens <= MAX_SAFE_INTEGER:
        return tokens
    name = " ".join(map(str, which))
    return check_budget_number(f"estimate_tokens result for {name}", tokens)


def add_in_order(costs: Iterable[Number]) -> Number:
    """Add ``costs`` left to right from 0, as the TypeScript course's ``reduce`` does.

    Python's ``sum`` may compensate float rounding (3.12+), which gives other
    bits than the course for costs such as 0.1 + 0.2 + 0.3.
    """
    total: Number = 0
    for cost in costs:
        total += cost
    return total
