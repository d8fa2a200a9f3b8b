"""Seeded random paths and a plain oracle for the budget: what the checks beyond the fixture use.

The oracle is written differently from the chapter's walk on purpose: it
groups by user messages, prices each group in path order, and keeps the
shortest *suffix* of groups whose sum fits (suffix sums), so a mistake in the
newest-first walk cannot be repeated in the oracle.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

SEED = 20261205


def random_paths(
    impl: ModuleType, count: int, seed: int = SEED
) -> Iterator[tuple[list[Any], dict[str, int], Callable[[Any], int | float]]]:
    """``count`` valid paths (an optional system message, then 0-5 interactions, some with tool
    calls whose results arrive in any order), each with a budget and an estimator."""
    rng = random.Random(seed)
    for number in range(count):
        entries: list[Any] = []

        def add(message: Any, entries: list[Any] = entries, number: int = number) -> None:
            parent = entries[-1].id if entries else None
            entry_id = f"p{number}-e{len(entries)}"
            entries.append(
                impl.MessageEntry(
                    id=entry_id, parent_id=parent, timestamp=len(entries), message=message
                )
            )

        def words() -> str:
            return " ".join("w" * rng.randint(1, 9) for _ in range(rng.randint(1, 8)))

        def note(entries: list[Any] = entries, number: int = number) -> None:
            parent = entries[-1].id if entries else None
            entry_id = f"p{number}-e{len(entries)}"
            entries.append(
                impl.parse_session_entry(
                    {"id": entry_id, "parentId": parent, "timestamp": len(entries),
                     "type": "metadata", "key": "model", "value": {"name": words()}}
                )
            )  # fmt: skip

        if rng.random() < 0.5:
            add(impl.SystemMessage(content=words(), timestamp=0))
        for group in range(rng.randint(0, 5)):
            add(impl.user_message(words(), timestamp=group))
            shape = rng.choice(["answer", "tools", "text then tools", "question only"])
            if shape in ("tools", "text then tools"):
                calls = [
                    impl.ToolCall(
                        id=f"c{number}-{group}-{k}", name="read", arguments={"p": words()}
                    )
                    for k in range(rng.randint(1, 3))
                ]
                blocks = [impl.text(words()), *calls] if shape == "text then tools" else calls
                add(impl.assistant_message(blocks, stop_reason="toolUse", timestamp=group))
                for call in rng.sample(calls, len(calls)):  # results in any order
                    add(impl.tool_result(call, words(), timestamp=group))
                add(impl.assistant_message(words(), timestamp=group))
            elif shape == "answer":
                add(impl.assistant_message(words(), timestamp=group))
            if rng.random() < 0.2:
                note()  # a metadata entry: on the path, never sent
        estimate = impl.fixture_estimator() if number % 2 else _float_estimator(impl)
        total = sum(estimate(entry.message) for entry in entries if entry.type == "message")
        budget = {
            "max_tokens": rng.randint(0, int(total) + 12),
            "reserved_output": rng.randint(0, 4),
            "safety_margin": rng.randint(0, 3),
        }
        yield entries, budget, estimate


def _float_estimator(impl: ModuleType) -> Callable[[Any], float]:
    """Tenths of a token per character: sums whose bits depend on the order they are added."""

    def estimate(value: Any) -> float:
        text = value if isinstance(value, str) else impl.text_of(value)
        return len(text) / 10 + 0.1

    return estimate


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


def newest_first_oracle(
    impl: ModuleType,
    path: list[Any],
    budget: dict[str, int],
    estimate: Callable[[Any], int | float],
) -> tuple[list[str], int | float]:
    """``(kept_entry_ids, tokens.messages)`` for a path without compaction, by suffix sums."""
    groups = groups_of(path)
    costs: list[int | float] = []
    for group in groups:
        cost: int | float = 0
        for entry in group:  # path order, as the course adds them
            cost += estimate(entry.message)
        costs.append(cost)
    first = first_kept(costs, available_for_messages(path, budget, estimate))
    return [entry.id for group in groups[first:] for entry in group], _newest_first_sum(
        costs[first:]
    )


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
