"""What the grader reads from a staged submission before any of its code runs.

Two facts the gradebook needs besides the checks: the language the
student's practice folder recorded (``course-lab practice 11 DIR --lang zh``
writes ``.course-lab.json``), so feedback is given in it, and each lab's
regions normalised, so the report can compare students with each other
(``similarity``). Both are read from the grader's private copy before the
package is imported, so nothing the package does while it is checked can
change them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..base.errors import CourseError
from ..track.language import DEFAULT_LANGUAGE, Lang, folder_language
from .similarity import LabWork, lab_work

__all__ = ["SubmissionFacts", "read_facts"]


@dataclass(frozen=True)
class SubmissionFacts:
    """The student's language and normalised lab work (empty for a submission never staged)."""

    lang: Lang = DEFAULT_LANGUAGE
    work: dict[str, LabWork] = field(default_factory=dict)


def read_facts(package: Path, labs: Sequence[str]) -> SubmissionFacts:
    """Read both facts from the staged ``package``; a broken language file means English."""
    try:
        lang = folder_language(package)
    except (CourseError, OSError, UnicodeDecodeError):
        lang = DEFAULT_LANGUAGE
    return SubmissionFacts(lang=lang, work=lab_work(package, labs))
