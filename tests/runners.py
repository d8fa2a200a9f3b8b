"""The type of conftest's ``course_lab`` fixture, for the tests that take it."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Runner"]

Runner = Callable[..., tuple[int, str, str]]
"""``course_lab(*argv)``: runs ``course-lab inspect *argv`` and returns (status, out, err)."""
