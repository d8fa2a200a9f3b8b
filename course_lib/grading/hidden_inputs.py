"""Seeded inputs for the hidden grading cases: random paths, budgets, compactions and bad entries.

The public checks are fixed, so a package could special-case their inputs
and still pass. The grader's hidden cases are drawn here from a seed that
only the instructor gives (``course-lab grade --hidden-seed N``), so the
only way to agree with the reference on them is to implement the rule.

Every generator takes the package to build with (``impl``: the reference
``course_lib`` or a student's practice package) and a ``random.Random``; the
same seed gives the same input in both packages (which share one set of types).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = [
    "RandomPath",
    "bad_compaction_wire",
    "compaction_wire",
    "corrupted",
    "random_path",
    "with_compactions",
]

Estimate = Callable[[Any], int | float]


@dataclass(frozen=True)
class RandomPath:
    """A valid active path with a budget and an estimator, and the words that describe it."""

    entries: list[Any]
    budget: dict[str, int | float]
    estimate: Estimate
    description: str


def _words(rng: random.Random) -> str:
    return " ".join("w" * rng.randint(1, 9) for _ in range(rng.randint(1, 8)))


HALF_A_TENTH = 0.05
"""Added to the safety margin beside the float estimator, whose costs are tenths.

Why: every allowance then lies half a tenth away from every sum of costs, so
no group fits *exactly*. At an exact fit the decision would hang on the last
bit of a float sum, which depends on the order of adding (and on the Python:
3.12's ``sum()`` rounds more accurately), not on the rule being tested.
"""


def _float_estimator(impl: ModuleType) -> Estimate:
    """Tenths of a token per character, plus 0.1: sums whose bits depend on the order they are added."""
    estimate: Estimate = impl.NamedEstimator("tenths")
    return estimate


def random_path(impl: ModuleType, rng: random.Random, label: str) -> RandomPath:
    """An optional system message, then 0-6 interactions (answers, tool calls whose results
    arrive in any order, questions left open, metadata notes), with a budget around its cost."""
    entries: list[Any] = []

    def add(message: Any) -> None:
        parent = entries[-1].id if entries else None
        entry_id = f"{label}-e{len(entries)}"
        entries.append(
            impl.MessageEntry(
                id=entry_id, parent_id=parent, timestamp=len(entries), message=message
            )
        )

    def note() -> None:
        parent = entries[-1].id if entries else None
        entries.append(
            impl.MetadataEntry(
                id=f"{label}-e{len(entries)}",
                parent_id=parent,
                timestamp=len(entries),
                key="model",
                value={"name": _words(rng)},
            )
        )  # built directly, so that these paths do not depend on Lab 11.1's parser

    has_system = rng.random() < 0.5
    if has_system:
        add(impl.SystemMessage(content=_words(rng), timestamp=0))
    groups = rng.randint(0, 6)
    for group in range(groups):
        add(impl.user_message(_words(rng), timestamp=group))
        shape = rng.choice(["answer", "tools", "text then tools", "question only"])
        if shape in ("tools", "text then tools"):
            calls = [
                impl.ToolCall(id=f"{label}-c{group}-{k}", name="read", arguments={"p": _words(rng)})
                for k in range(rng.randint(1, 3))
            ]
            blocks = [impl.text(_words(rng)), *calls] if shape == "text then tools" else calls
            add(impl.assistant_message(blocks, stop_reason="toolUse", timestamp=group))
            for call in rng.sample(calls, len(calls)):  # results in any order
                add(impl.tool_result(call, _words(rng), timestamp=group))
            add(impl.assistant_message(_words(rng), timestamp=group))
        elif shape == "answer":
            add(impl.assistant_message(_words(rng), timestamp=group))
        if rng.random() < 0.2:
            note()  # on the path, never sent
    integer = rng.random() < 0.5
    estimate: Estimate = impl.fixture_estimator() if integer else _float_estimator(impl)
    total = sum(estimate(entry.message) for entry in entries if entry.type == "message")
    budget: dict[str, int | float] = {
        "max_tokens": rng.randint(0, int(total) + 12),
        "reserved_output": rng.randint(0, 6),
        "safety_margin": rng.randint(0, 4) + (0 if integer else HALF_A_TENTH),
    }
    shown = ", ".join(f"{key}={value}" for key, value in budget.items())
    what = "fixture_estimator() (characters/4)" if integer else "characters/10 + 0.1 (floats)"
    description = (
        f"{label}: {len(entries)} entries, {groups} interactions"
        f"{', a system message' if has_system else ''}; {shown}; estimator {what}"
    )
    return RandomPath(entries, budget, estimate, description)


def corrupted(path: list[Any], rng: random.Random) -> tuple[list[Any], str]:
    """A copy of ``path`` with one thing made wrong (or left right), and what was done."""
    copied = [entry.model_copy(deep=True) for entry in path]
    if len(copied) < 2:
        return copied, "unchanged"
    choice = rng.randrange(5)
    index = rng.randrange(len(copied))
    if choice == 0:
        removed = copied.pop(index)
        return copied, f"entry {removed.id} removed"
    if choice == 1:
        twin = copied[rng.randrange(len(copied))].model_copy(deep=True)
        copied.insert(index, twin)
        return copied, f"entry {twin.id} repeated at position {index}"
    if choice == 2:
        rng.shuffle(copied)
        return copied, "entries shuffled"
    return copied, "unchanged"


def compaction_wire(
    first_kept: str, parent: str, rng: random.Random, number: int = 0
) -> dict[str, Any]:
    """A valid compaction as the wire writes it, with random text in its seven fields."""
    alphabet = 'abcxyz -_.:/\u00e9\u4e2d\U0001f600\t"\\'

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))

    def some() -> list[str]:
        return [text() for _ in range(rng.randint(0, 3))]

    return {
        "id": f"compact-{number}",
        "parentId": parent,
        "timestamp": rng.choice([0, 7, 1.5, 10**12]),
        "type": "compaction",
        "summary": {
            "goal": "goal " + text(),
            "constraints": some(),
            "completed": some(),
            "decisions": some(),
            "changedFiles": some(),
            "unresolved": some(),
            "next": some(),
        },
        "firstKeptEntryId": first_kept,
        "tokensBefore": rng.choice([0, 29, 0.5, 10**6]),
    }


_BAD_EDITS: tuple[tuple[str, Callable[[dict[str, Any]], object]], ...] = (
    ("left valid", lambda wire: None),
    ("summary.changedFiles renamed files", lambda w: w["summary"].update(files=w["summary"].pop("changedFiles"))),
    ("firstKeptEntryId written first_kept_entry_id", lambda w: w.update(first_kept_entry_id=w.pop("firstKeptEntryId"))),
    ("tokensBefore -1", lambda w: w.update(tokensBefore=-1)),
    ("tokensBefore true", lambda w: w.update(tokensBefore=True)),
    ("timestamp as text", lambda w: w.update(timestamp="1")),
    ("summary.goal removed", lambda w: w["summary"].pop("goal")),
    ("summary.goal blank", lambda w: w["summary"].update(goal=" \t")),
    ("a number in summary.next", lambda w: w["summary"]["next"].append(7)),
    ("an extra field", lambda w: w.update(extra=1)),
    ("parentId null", lambda w: w.update(parentId=None)),
    ("summary.decisions as text", lambda w: w["summary"].update(decisions="d")),
)  # fmt: skip


def bad_compaction_wire(rng: random.Random, number: int) -> tuple[dict[str, Any], str]:
    """A compaction wire dict, valid or with one classic mistake, and which one."""
    wire = compaction_wire(f"u{number}", f"leaf-{number}", rng, number)
    # Valid wires are as telling as broken ones (numbers kept as given, every field copied).
    what, edit = _BAD_EDITS[0] if rng.random() < 0.4 else rng.choice(_BAD_EDITS[1:])
    edit(wire)
    return wire, what


def with_compactions(
    impl: ModuleType, path: RandomPath, rng: random.Random
) -> tuple[list[Any], str]:
    """``path`` with one or two compactions appended (any first kept id, a user turn after each)."""
    entries = list(path.entries)
    chosen: list[str] = []
    for number in range(rng.randint(1, 2)):
        if not entries:
            break
        users = [
            entry.id
            for entry in entries
            if entry.type == "message" and entry.message.role == "user"
        ]
        # Mostly a valid first kept entry (a user message before it), sometimes any entry.
        first = rng.choice(users if users and rng.random() < 0.75 else [e.id for e in entries])
        wire = compaction_wire(first, entries[-1].id, rng, len(entries))
        entries.append(impl.CompactionEntry.model_validate(wire, by_alias=True, by_name=False))
        chosen.append(f"{wire['id']} keeping from {first}")
        tail = impl.user_message(f"more {number}", timestamp=200 + number)
        entries.append(
            impl.MessageEntry(
                id=f"u-after-{len(entries)}",
                parent_id=entries[-1].id,
                timestamp=200 + number,
                message=tail,
            )
        )
    return entries, ", ".join(chosen) or "no compaction (empty path)"
