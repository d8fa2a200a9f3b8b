"""Seeded random paths and a plain oracle for the budget: what the checks beyond the fixture use.

The oracle is written differently from the chapter's walk on purpose: it
groups by user messages, prices each group in path order, and keeps the
shortest *suffix* of groups whose sum fits (suffix sums), so a mistake in the
newest-first walk cannot be repeated in the oracle.

With the float estimator a run of groups can cost the allowance exactly in
one order of adding and one bit more in another (``28.5`` and
``28.500000000000004``). Such a tie is the rule's to decide either way, so
the oracle gives every right answer (``walk_choices``), the course's order
first, and a check takes the one the student's answer matches (``matching``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypeVar

from course_lib.grading.hidden_inputs import random_path
from course_lib.track.tolerance import same_number

SEED = 20261205

T = TypeVar("T")


def random_paths(
    impl: ModuleType, count: int, seed: int = SEED
) -> Iterator[tuple[list[Any], dict[str, int | float], Callable[[Any], int | float]]]:
    """``count`` valid paths, each with a budget and an estimator, from the grader's own
    generator (``hidden_inputs.random_path``: an optional system message, then 0-6
    interactions, tool calls whose results arrive in any order, metadata notes), so the
    checks and the hidden cases draw from one generator, with this module's seed."""
    rng = random.Random(seed)
    for number in range(count):
        path = random_path(impl, rng, f"p{number}")
        yield path.entries, dict(path.budget), path.estimate


def _newest_first_sum(costs: list[int | float]) -> int | float:
    total: int | float = 0
    for cost in reversed(costs):
        total += cost
    return total


def available_for_messages(
    path: list[Any], budget: dict[str, int], estimate: Callable[[Any], int | float]
) -> int | float:
    """What the fixed costs leave for messages: the path's one system message (at most), the
    reserved output and the safety margin come off ``max_tokens``; never below 0."""
    systems = [e for e in path if e.type == "message" and e.message.role == "system"]
    system_cost = estimate(systems[0].message) if systems else 0
    room = budget["max_tokens"] - system_cost - budget["reserved_output"] - budget["safety_margin"]
    return max(0, room)


@dataclass(frozen=True)
class Choice:
    """One right outcome of the newest-first walk over group costs."""

    first: int
    """The index of the oldest kept group."""
    messages: int | float
    """What the kept groups cost, added newest group first (the course's order)."""
    overflow: bool
    """Whether the newest group is kept alone over the allowance (``single_group_overflow``)."""


@dataclass(frozen=True)
class Answer:
    """One right answer for a path: the ids it keeps, ``tokens.messages``, and whether it overflows."""

    kept_entry_ids: list[str]
    messages: int | float
    overflow: bool


def group_costs(
    groups: Sequence[Sequence[Any]], estimate: Callable[[Any], int | float]
) -> list[int | float]:
    """Each group's cost, its messages added in path order, as the course adds them."""
    costs: list[int | float] = []
    for group in groups:
        cost: int | float = 0
        for entry in group:
            cost += estimate(entry.message)
        costs.append(cost)
    return costs


def walk_choices(
    costs: list[int | float], allowance: int | float, *, exact: bool = False
) -> list[Choice]:
    """Every outcome a right walk may give, the course's order's first.

    A run of groups whose cost is the allowance up to rounding fits when added
    in one order and not in another: the oldest kept group may then be either
    side of it, and a newest group that costs the allowance may or may not
    overflow. With ``exact`` (every message costs a whole number, see
    ``whole_costs``) every order gives the same sums, so a tie is a tie and
    only the course's outcome (``<=``: a run that fits exactly is kept) is right.
    """
    if not costs:
        return [Choice(0, 0, False)]

    def tie(total: int | float) -> bool:
        return not exact and same_number(total, allowance)

    course = first_kept(costs, allowance)
    loose = _first_fitting(costs, lambda total: total <= allowance or tie(total))
    tight = _first_fitting(costs, lambda total: total <= allowance and not tie(total))
    newest = costs[-1]
    choices: list[Choice] = []
    for first in [course, *(i for i in range(loose, tight + 1) if i != course)]:
        alone = first == len(costs) - 1
        overflows = [alone and newest > allowance]
        if alone and tie(newest):
            overflows.append(not overflows[0])
        choices += [Choice(first, _newest_first_sum(costs[first:]), over) for over in overflows]
    return choices


def whole_costs(path: Sequence[Any], estimate: Callable[[Any], int | float]) -> bool:
    """Whether every message of ``path`` costs a whole number, so its sums are exact in any order."""
    costs = [estimate(entry.message) for entry in path if entry.type == "message"]
    return all(float(cost).is_integer() for cost in costs) and sum(costs) < 2**53


def _first_fitting(costs: list[int | float], fits: Callable[[int | float], bool]) -> int:
    """The oldest group whose suffix (added newest first) ``fits``; the newest is always kept."""
    fitting = [i for i in range(len(costs)) if fits(_newest_first_sum(costs[i:]))]
    return min(fitting) if fitting else max(0, len(costs) - 1)


def newest_first_answers(
    impl: ModuleType,
    path: list[Any],
    budget: dict[str, int],
    estimate: Callable[[Any], int | float],
) -> list[Answer]:
    """Every right answer for a path without compaction, by suffix sums; the course's first."""
    groups = groups_of(path)
    allowance = available_for_messages(path, budget, estimate)
    choices = walk_choices(
        group_costs(groups, estimate), allowance, exact=whole_costs(path, estimate)
    )
    return [
        Answer(
            [entry.id for group in groups[choice.first :] for entry in group],
            choice.messages,
            choice.overflow,
        )
        for choice in choices
    ]


def matching(choices: Sequence[T], agrees: Callable[[T], bool]) -> T:
    """The right answer the student's agrees with, else the course's (the first), to show as expected."""
    return next((choice for choice in choices if agrees(choice)), choices[0])


def groups_of(path: list[Any]) -> list[list[Any]]:
    """The interactions of a valid path, plainly: a user message opens one; system messages
    and entries that are not messages belong to none."""
    groups: list[list[Any]] = []
    for entry in path:
        if entry.type != "message" or entry.message.role == "system":
            continue
        if entry.message.role == "user":
            groups.append([entry])
        else:
            groups[-1].append(entry)
    return groups


def first_kept(costs: list[int | float], allowance: int | float) -> int:
    """The oldest kept group by suffix sums (added newest first); the newest is always kept."""
    fitting = [i for i in range(len(costs)) if _newest_first_sum(costs[i:]) <= allowance]
    return min(fitting) if fitting else max(0, len(costs) - 1)


def random_compaction_wires(count: int, seed: int = SEED) -> Iterator[dict[str, Any]]:
    """Valid compaction wire dicts: any non-blank ids, seven fields of any strings, numbers."""
    rng = random.Random(seed)
    alphabet = 'abcxyz -_.:/\u00e9\u4e2d\U0001f600\t\n"\\'

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))

    def some() -> list[str]:
        return [text() for _ in range(rng.randint(0, 3))]

    for number in range(count):
        yield {
            "id": f"compact-{number}{text().strip() or 'x'}",
            "parentId": f"leaf-{number}",
            "timestamp": rng.choice([0, -5, 1.5, 10**15, 2**53 - 1]),
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
            "firstKeptEntryId": f"u{number}",
            "tokensBefore": rng.choice([0, 29, 0.5, 1e21]),
        }
