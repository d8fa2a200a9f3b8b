"""Properties of the budget over generated valid paths, not just the chapter's fixture.

The fixture shows one cut; these tests generate many valid histories (tool
results in any order, system messages and metadata anywhere, compactions at
group boundaries) with random token costs and budgets, and check the rules
that must hold for all of them: whole groups only, the newest always kept,
no orphaned tool result, the allowance respected unless the newest group
overflows, the ledger in agreement, and the input never changed.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import (
    AssistantMessage,
    BuildContextResult,
    CompactionEntry,
    CompactionError,
    CompactionSummary,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    assistant_message,
    budget_ledger,
    build_context,
    create_compaction_entry,
    current_system_message,
    parse_session_entry,
    recover_jsonl,
    render_summary,
    text,
    text_of,
    tool_result,
    user_message,
)
from course_lib.base.wire import dumps_line, loads_strict

SETTINGS = settings(max_examples=100, deadline=None)


@dataclass
class GeneratedPath:
    """A valid active path, plus what the generator knows about it."""

    entries: list[SessionEntry]
    groups: list[list[str]]  # message entry ids of each interaction, oldest first
    costs: dict[str, int]  # message text -> tokens
    cost_by_id: dict[str, int]  # message entry id -> tokens

    def estimate(self, value: Any) -> int:
        """Price by content: the generated cost of a message, a fixed rule otherwise."""
        key = value if isinstance(value, str) else text_of(value)
        return self.costs.get(key, len(key) % 7)

    def newest_compaction(self) -> CompactionEntry | None:
        compactions = [e for e in self.entries if isinstance(e, CompactionEntry)]
        return compactions[-1] if compactions else None

    def summary_cost(self) -> int:
        """What the estimator charges for the newest compaction's summary (0 without one)."""
        compaction = self.newest_compaction()
        return 0 if compaction is None else self.estimate(render_summary(compaction.summary))

    def considered_groups(self) -> list[list[str]]:
        """The groups ``build_context`` must consider: from the newest first kept on."""
        compaction = self.newest_compaction()
        if compaction is None:
            return self.groups
        starts = [group[0] for group in self.groups]
        return self.groups[starts.index(compaction.first_kept_entry_id) :]


SECTION_VALUES = st.none() | st.sampled_from(["v1", "v2", ""])


@st.composite
def valid_paths(draw: st.DrawFn) -> GeneratedPath:
    numbers = itertools.count()
    costs: dict[str, int] = {}
    cost_by_id: dict[str, int] = {}

    # Costs and tool arguments come from one seeded generator: cheap to draw, and
    # shrinking the structure (groups, order, positions) matters more than the numbers.
    rng = draw(st.randoms(use_true_random=False))

    def labelled(prefix: str) -> str:
        label = f"{prefix} {next(numbers)}"
        costs[label] = rng.randint(0, 12)
        return label

    def message_item(message: Any) -> tuple[str, Any]:
        entry_id = f"m{next(numbers)}"
        cost_by_id[entry_id] = costs[text_of(message)]
        return entry_id, message

    # Interactions: a user message, then assistants and results in any order.
    groups: list[list[tuple[str, Any]]] = []
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        user = message_item(user_message(labelled("user"), timestamp=0))
        rest: list[tuple[str, Any]] = []
        for _ in range(draw(st.integers(min_value=0, max_value=3))):
            calls = [
                ToolCall(
                    id=f"call-{next(numbers)}",
                    name=rng.choice(["read", "test", "edit"]),
                    arguments={"n": rng.randint(0, 9), "nested": [1.5, None]},
                )
                for _ in range(draw(st.integers(min_value=0, max_value=2)))
            ]
            assistant = assistant_message(
                [text(labelled("assistant")), *calls],
                stop_reason="toolUse" if calls else "stop",
                timestamp=0,
            )
            rest.append(message_item(assistant))
            rest.extend(
                message_item(tool_result(c, labelled("result"), timestamp=0)) for c in calls
            )
        order = draw(st.permutations(range(len(rest))))
        groups.append([user, *(rest[index] for index in order)])

    items: list[tuple[str, Any]] = [item for group in groups for item in group]

    # Compactions at group boundaries, each keeping from a user message before it.
    if groups:
        for _ in range(draw(st.integers(min_value=0, max_value=2))):
            after = draw(st.integers(min_value=1, max_value=len(groups)))
            first_kept = draw(st.sampled_from([group[0][0] for group in groups[:after]]))
            boundary = items.index(groups[after][0]) if after < len(groups) else len(items)
            summary = CompactionSummary(
                goal=f"goal {next(numbers)}",
                constraints=[],
                completed=draw(st.lists(st.sampled_from(["done", "also done"]), max_size=2)),
                decisions=[],
                changed_files=[],
                unresolved=[],
                next=["continue"],
            )
            items.insert(boundary, (f"c{next(numbers)}", (summary, first_kept)))

    # System messages and metadata anywhere.
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        sections = draw(
            st.dictionaries(st.sampled_from(["rules", "style"]), SECTION_VALUES, max_size=2)
        )
        system = SystemMessage(
            content=draw(st.sampled_from(["", "BASE", "Be brief."])),
            timestamp=0,
            **({"sections": sections} if sections else {}),
        )
        position = draw(st.integers(min_value=0, max_value=len(items)))
        items.insert(position, (f"s{next(numbers)}", system))
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        position = draw(st.integers(min_value=0, max_value=len(items)))
        items.insert(position, (f"k{next(numbers)}", {"value": [position]}))

    entries: list[SessionEntry] = []
    parent: str | None = None
    for time, (entry_id, payload) in enumerate(items, start=1):
        if isinstance(payload, tuple):
            summary, first_kept = payload
            assert parent is not None
            entries.append(
                CompactionEntry(
                    id=entry_id,
                    parent_id=parent,
                    timestamp=time,
                    summary=summary,
                    first_kept_entry_id=first_kept,
                    tokens_before=time,
                )
            )
        elif isinstance(payload, dict):
            entries.append(
                MetadataEntry(
                    id=entry_id, parent_id=parent, timestamp=time, key="note", value=payload
                )
            )
        else:
            entries.append(
                MessageEntry(id=entry_id, parent_id=parent, timestamp=time, message=payload)
            )
        parent = entry_id

    return GeneratedPath(
        entries=entries,
        groups=[[entry_id for entry_id, _ in group] for group in groups],
        costs=costs,
        cost_by_id=cost_by_id,
    )


BUDGETS = st.fixed_dictionaries(
    {
        "max_tokens": st.integers(min_value=0, max_value=150),
        "reserved_output": st.integers(min_value=0, max_value=20),
        "safety_margin": st.integers(min_value=0, max_value=10),
    }
)


def build(path: GeneratedPath, budget: dict[str, int]) -> BuildContextResult:
    return build_context(path.entries, **budget, estimate_tokens=path.estimate)


def first_kept_group(path: GeneratedPath, result: BuildContextResult) -> int:
    """Index of the first kept group, asserting the kept ids are a suffix of whole groups."""
    groups = path.considered_groups()
    for start in range(len(groups) + 1):
        if [i for group in groups[start:] for i in group] == result.kept_entry_ids:
            return start
    raise AssertionError(f"kept ids {result.kept_entry_ids} are not a suffix of whole groups")


def check_kept_ids_are_a_suffix_of_whole_groups_with_the_newest_always_kept(
    path: GeneratedPath, budget: dict[str, int], result: BuildContextResult
) -> None:
    groups = path.considered_groups()
    start = first_kept_group(path, result)
    if groups:
        assert start < len(groups), "the newest group is always kept"
        assert result.kept_entry_ids[-len(groups[-1]) :] == groups[-1]
    else:
        assert result.kept_entry_ids == []
        assert result.reason == "within_budget"


def check_every_kept_call_has_its_result(
    path: GeneratedPath, budget: dict[str, int], result: BuildContextResult
) -> None:
    declared = [
        call.id
        for message in result.messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    ]
    answered = [
        message.tool_call_id
        for message in result.messages
        if isinstance(message, ToolResultMessage)
    ]
    assert sorted(declared) == sorted(answered)
    assert len(set(declared)) == len(declared)


def check_the_messages_are_system_summary_then_the_kept_entries(
    path: GeneratedPath, budget: dict[str, int], result: BuildContextResult
) -> None:
    by_id = {entry.id: entry for entry in path.entries}
    has_system = any(
        isinstance(e, MessageEntry) and isinstance(e.message, SystemMessage) for e in path.entries
    )
    compaction = path.newest_compaction()
    head = int(has_system) + int(compaction is not None)
    assert len(result.messages) == head + len(result.kept_entry_ids)
    if has_system:
        # Every system message of the whole path is replayed, wherever it stands.
        systems = [
            e.message
            for e in path.entries
            if isinstance(e, MessageEntry) and isinstance(e.message, SystemMessage)
        ]
        assert result.messages[0] == current_system_message(systems)
    if compaction is not None:
        summary = result.messages[head - 1]
        assert isinstance(summary, UserMessage)
        assert summary.timestamp == compaction.timestamp
        assert text_of(summary).startswith("[Session compaction summary]")
    kept = result.messages[head:]
    assert kept == [by_id[entry_id].message for entry_id in result.kept_entry_ids]
    assert not any(isinstance(message, SystemMessage) for message in kept)


def check_the_allowance_is_exceeded_only_by_a_single_group_overflow(
    path: GeneratedPath, budget: dict[str, int], result: BuildContextResult
) -> None:
    tokens = result.tokens
    groups = path.considered_groups()
    start = first_kept_group(path, result)
    cost = [sum(path.cost_by_id[i] for i in group) for group in groups]
    summary = tokens.messages - sum(cost[start:])

    assert tokens.available_for_messages == max(
        0,
        budget["max_tokens"] - tokens.system - budget["reserved_output"] - budget["safety_margin"],
    )
    assert tokens.total == (
        tokens.system + tokens.messages + budget["reserved_output"] + budget["safety_margin"]
    )
    assert summary == path.summary_cost()

    # The summary is paid first; whole groups share what is left, never below 0.
    allowance = max(0, tokens.available_for_messages - summary)
    kept_cost = sum(cost[start:])
    if result.reason == "single_group_overflow":
        assert start == len(groups) - 1
        assert cost[-1] > allowance
    else:
        assert kept_cost <= allowance
        if start > 0:
            assert kept_cost + cost[start - 1] > allowance
        assert result.reason == ("trimmed" if start > 0 else "within_budget")


@SETTINGS
@given(valid_paths(), BUDGETS)
def test_every_build_follows_the_selection_rules(
    path: GeneratedPath, budget: dict[str, int]
) -> None:
    """One generated build, checked against each rule above (one function per rule)."""
    result = build(path, budget)
    check_kept_ids_are_a_suffix_of_whole_groups_with_the_newest_always_kept(path, budget, result)
    check_every_kept_call_has_its_result(path, budget, result)
    check_the_messages_are_system_summary_then_the_kept_entries(path, budget, result)
    check_the_allowance_is_exceeded_only_by_a_single_group_overflow(path, budget, result)


@SETTINGS
@given(valid_paths(), BUDGETS)
def test_the_ledger_agrees_with_build_context(path: GeneratedPath, budget: dict[str, int]) -> None:
    result = build(path, budget)
    rows = budget_ledger(path.entries, **budget, estimate_tokens=path.estimate)
    groups = path.considered_groups()
    assert [row.entry_ids for row in rows] == groups
    # Numbered over the whole path, as the chapter counts groups: after a compaction the
    # first row is the group its first kept entry opens.
    first = len(path.groups) - len(groups) + 1
    assert [row.group for row in rows] == list(range(first, len(path.groups) + 1))
    assert [row.tokens for row in rows] == [sum(path.cost_by_id[i] for i in g) for g in groups]
    kept_rows = [row for row in rows if row.status != "trimmed"]
    assert [i for row in kept_rows for i in row.entry_ids] == result.kept_entry_ids
    overflow = [row.status for row in rows].count("overflow")
    assert overflow == (1 if result.reason == "single_group_overflow" else 0)
    assert result.tokens.messages == path.summary_cost() + sum(row.tokens for row in kept_rows)


@SETTINGS
@given(valid_paths(), BUDGETS)
def test_the_input_is_never_changed_and_builds_are_equal_and_independent(
    path: GeneratedPath, budget: dict[str, int]
) -> None:
    before = [entry.to_wire() for entry in path.entries]
    first = build(path, budget)
    second = build(path, budget)
    budget_ledger(path.entries, **budget, estimate_tokens=path.estimate)
    assert [entry.to_wire() for entry in path.entries] == before
    assert first == second
    for one, other in zip(first.messages, second.messages, strict=True):
        assert one is not other
    for message in first.messages:
        if isinstance(message, SystemMessage):
            message.content = "changed"
        else:
            message.content.clear()
    assert [entry.to_wire() for entry in path.entries] == before
    assert build(path, budget) == second


@SETTINGS
@given(valid_paths())
def test_generated_paths_round_trip_through_jsonl(path: GeneratedPath) -> None:
    lines = [dumps_line(entry.to_wire()) for entry in path.entries]
    for line in lines:
        assert dumps_line(parse_session_entry(loads_strict(line)).to_wire()) == line
    read = recover_jsonl("".join(lines))
    assert read.entries == path.entries
    assert read.warnings == []


@SETTINGS
@given(valid_paths())
def test_only_group_starts_can_be_first_kept(path: GeneratedPath) -> None:
    starts = {group[0] for group in path.groups}
    summary = CompactionSummary(
        goal="g",
        constraints=[],
        completed=[],
        decisions=[],
        changed_files=[],
        unresolved=[],
        next=[],
    )
    for entry in path.entries:
        if not isinstance(entry, MessageEntry):
            continue
        options: dict[str, Any] = {
            "id": "new-compaction",
            "timestamp": 0,
            "summary": summary,
            "first_kept_entry_id": entry.id,
            "tokens_before": 0,
        }
        if entry.id in starts:
            created = create_compaction_entry(path.entries, **options)
            assert created.parent_id == path.entries[-1].id
        else:
            with pytest.raises(CompactionError, match=re.escape(repr(entry.id))):
                create_compaction_entry(path.entries, **options)
