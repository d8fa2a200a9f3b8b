"""What an unwritten lab region raises, so a check can tell "not written yet" from "wrong".

Every function that a lab of Chapter 11 §2–§8 asks for starts, in a fresh practice package, as
``raise LabNotImplemented("Lab 11.3 budget projection is not implemented yet")``.
It is a ``NotImplementedError``, Python's own "not written yet", and never a
``ValueError`` (a ``CourseError``): the parser, the stores and the checks catch
those as refused input, and an unwritten lab must never pass for a refused input.
"""

from __future__ import annotations

__all__ = ["LabNotImplemented"]


class LabNotImplemented(NotImplementedError):
    """Raised by a lab region you have not written yet."""
