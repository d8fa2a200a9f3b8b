"""The class in numbers: which rules students broke, and how the scores are spread.

Counting whole failure messages says little: every message names its own
case and values, and the most frequent one is ``LabNotImplemented`` (the
lab was not attempted), which hides the mistakes worth discussing. So a
failure is grouped by its check and its *rule*: the hint the check gives
(the text after ``; hint: ``), or the kind of error when there is no hint.
A lab not attempted is counted apart, never as a rule.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .grader import Grade

__all__ = [
    "NOT_ATTEMPTED",
    "Distribution",
    "FailureGroup",
    "distribution",
    "failure_groups",
    "failure_rule",
    "not_attempted",
    "not_attempted_counts",
]

NOT_ATTEMPTED = "LabNotImplemented"
"""A check that reached a starter region still raising this: the lab was not attempted."""

_HINT = "; hint: "
_ERROR_NAME = re.compile(r"\b(?:got )?([A-Z][A-Za-z]*(?:Error|Exception|Timeout|Exit)|Timeout)\b")


def failure_rule(message: str) -> str:
    """The rule a failure message is about: its hint, else the error's kind, else the message."""
    if _HINT in message:
        return message.rsplit(_HINT, 1)[1].strip()
    found = _ERROR_NAME.search(message)
    return found.group(1) if found else message.strip()


def not_attempted(message: str) -> bool:
    """Whether a failure is a lab left unwritten (its starter's ``LabNotImplemented``)."""
    return NOT_ATTEMPTED in message and ("not implemented yet" in message or "尚未实现" in message)


@dataclass(frozen=True)
class FailureGroup:
    """One rule broken in one check: how many students, and who (for the instructor only)."""

    lab: str
    check: str
    rule: str
    count: int
    students: tuple[str, ...]


def failure_groups(grades: Sequence[Grade], labs: Sequence[str]) -> list[FailureGroup]:
    """Failures by check and rule, most students first (then lab order, check, rule); the
    failures that only say a lab was not attempted are left out."""
    who: dict[tuple[str, str, str], list[str]] = {}
    for grade in grades:
        for check in grade.checks:
            if check.outcome != "failed" or not_attempted(check.message):
                continue
            key = (check.lab, check.name, failure_rule(check.message))
            who.setdefault(key, []).append(grade.student)
    order = {lab: index for index, lab in enumerate(labs)}
    groups = [
        FailureGroup(lab, name, rule, len(students), tuple(students))
        for (lab, name, rule), students in who.items()
    ]
    groups.sort(key=lambda g: (-g.count, order.get(g.lab, len(order)), g.check, g.rule))
    return groups


def not_attempted_counts(grades: Sequence[Grade], labs: Sequence[str]) -> dict[str, int]:
    """Per lab, how many students left it unwritten (at least one check says so)."""
    counts: Counter[str] = Counter()
    for grade in grades:
        for lab in {
            c.lab for c in grade.checks if c.outcome == "failed" and not_attempted(c.message)
        }:
            counts[lab] += 1
    return {lab: counts.get(lab, 0) for lab in labs}


@dataclass(frozen=True)
class Distribution:
    """Scores of the class: a count per whole score from 0 to the most possible, mean, median."""

    possible: float
    counts: tuple[int, ...]
    """``counts[k]``: students whose score rounds down to ``k``."""
    mean: float
    median: float


def distribution(scores: Sequence[float], possible: float) -> Distribution:
    """The histogram (one bin per whole point), mean and median of ``scores`` out of ``possible``."""
    bins = [0] * (int(possible) + 1)
    for score in scores:
        bins[min(len(bins) - 1, max(0, int(score)))] += 1
    mean = round(statistics.fmean(scores), 2) if scores else 0.0
    median = round(float(statistics.median(scores)), 2) if scores else 0.0
    return Distribution(possible=possible, counts=tuple(bins), mean=mean, median=median)
