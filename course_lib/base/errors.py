"""Every error the workbook raises, so a caller can catch one family at each boundary.

All of them subclass ``CourseError(ValueError)``: bad input is a value problem,
and the message always names the entry id, field path, line number or call id.
"""

from __future__ import annotations

from .text_rules import escape_controls

__all__ = [
    "BudgetError",
    "CompactionError",
    "CourseError",
    "InteractionError",
    "SessionEntryError",
    "SessionFileError",
    "SessionStoreError",
]


class CourseError(ValueError):
    """Base class: the input broke one of the chapter's rules.

    Messages repeat ids and text from files nobody checked, so control
    characters in them are escaped: an id holding a newline or a terminal
    escape sequence cannot split the message or recolour a terminal.
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*(escape_controls(arg) if isinstance(arg, str) else arg for arg in args))


class SessionEntryError(CourseError):
    """An entry failed the schema; the message starts with ``session entry <id>``."""


class SessionFileError(CourseError):
    """A committed JSONL line is not a valid entry; the message contains ``line N``."""


class SessionStoreError(CourseError):
    """A store refused an append or a path: duplicate id, unknown parent, unrepaired tail."""


class InteractionError(CourseError):
    """A path cannot be split into whole interactions (orphan, duplicate or missing result)."""


class BudgetError(CourseError):
    """A budget number or an estimator result is not a finite number >= 0."""


class CompactionError(CourseError):
    """A compaction entry cannot be created or restored from."""
