"""What an estimator is, and how one says it only reads what it prices.

``build_context`` promises that the estimator can never change the path, so it
hands an estimator a deep copy of every message. Copying costs about as much
as pricing; the estimators this package ships never change their argument, so
they say so with ``reads_only`` and are given the message itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .messages import MessageModel

__all__ = ["Estimator", "Number", "is_read_only", "reads_only"]

Number = int | float
"""A token count or budget number: an int stays an int, a float a float."""

Estimator = Callable[[str | MessageModel], Number]
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
