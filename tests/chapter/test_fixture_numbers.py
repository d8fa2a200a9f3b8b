"""Every number the chapter's fixture promises, computed by the code that teaches it.

Students redo these sums by hand (7 / 7 / 15, 31 -> 28 -> 24 -> 22); if the
code and the spec's tables ever disagree, a notebook would teach a wrong
number. Each expectation below is taken from chapter11.md and checked against
what ``course_lib`` computes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from course_lib import (
    FIXTURE_TOKENS,
    AssistantMessage,
    BudgetError,
    BuildContextResult,
    CompactionEntry,
    CompactionError,
    InteractionError,
    MessageEntry,
    SessionEntry,
    SystemMessage,
    TokenProjection,
    ToolResultMessage,
    UserMessage,
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
    create_compaction_entry,
    current_system_message,
    current_system_prompt,
    fixture_estimator,
    fixture_summary,
    group_interactions,
    path_to,
    render_summary,
    summary_message,
    system_replay_fixture,
    text_of,
)

FIXTURE_IDS = ["sys", "u1", "a1", "u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]
CHAPTER_BUDGET: dict[str, Any] = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}


def by_id(entries: list[SessionEntry]) -> dict[str, Any]:
    return {entry.id: entry for entry in entries}


def chapter_build(path: list[SessionEntry], **options: Any) -> BuildContextResult:
    return build_context(path, **{**CHAPTER_BUDGET, **options}, estimate_tokens=fixture_estimator())


# --- the table --------------------------------------------------------------


def test_the_fixture_is_one_active_path_of_ten_entries() -> None:
    fixture = chapter_fixture()
    assert [entry.id for entry in fixture] == FIXTURE_IDS
    assert [entry.parent_id for entry in fixture] == [None, *FIXTURE_IDS[:-1]]
    assert path_to(fixture, "a3") == fixture
    assert chapter_fixture() == fixture and chapter_fixture()[0] is not fixture[0]


def test_the_roles_follow_the_table() -> None:
    roles = [entry.message.role for entry in chapter_fixture()]
    assert roles == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "assistant",
    ]


def test_read_is_declared_first_but_test_finishes_first() -> None:
    entries = by_id(chapter_fixture())
    calls = entries["calls"].message
    assert isinstance(calls, AssistantMessage)
    assert [call.id for call in calls.tool_calls] == ["read-1", "test-1"]
    assert calls.stop_reason == "toolUse"
    r_test, r_read = entries["r-test"].message, entries["r-read"].message
    assert isinstance(r_test, ToolResultMessage) and isinstance(r_read, ToolResultMessage)
    assert (r_test.tool_call_id, text_of(r_test)) == ("test-1", "14 tests passed")
    assert (r_read.tool_call_id, text_of(r_read)) == ("read-1", "context.ts loaded")
    assert FIXTURE_IDS.index("r-test") < FIXTURE_IDS.index("r-read")


def test_the_token_table_is_what_the_fixture_estimator_returns() -> None:
    assert FIXTURE_TOKENS == {
        "sys": 3,
        "u1": 3,
        "a1": 4,
        "u2": 3,
        "a2": 4,
        "u3": 3,
        "calls": 3,
        "r-test": 3,
        "r-read": 3,
        "a3": 3,
    }
    estimate = fixture_estimator()
    for entry in chapter_fixture():
        assert estimate(entry.message) == FIXTURE_TOKENS[entry.id], entry.id


def test_the_continuation_and_summary_prices() -> None:
    estimate = fixture_estimator()
    entries = by_id(chapter_fixture_after_compaction())
    assert estimate(entries["u4"].message) == 3
    assert estimate(entries["a4"].message) == 4
    compaction = entries["compact-1"]
    assert isinstance(compaction, CompactionEntry)
    assert estimate(summary_message(compaction)) == 5


def test_anything_else_costs_one_token_per_four_characters() -> None:
    estimate = fixture_estimator()
    assert estimate("") == 0
    assert estimate("abcd") == 1
    assert estimate("abcde") == 2
    other = chapter_fixture()[1].message.model_copy(deep=True)
    other.content[0].text = "x" * 9
    assert estimate(other) == math.ceil(9 / 4)


def test_messages_are_recognised_by_content_not_identity() -> None:
    estimate = fixture_estimator()
    a1 = by_id(chapter_fixture())["a1"].message
    assert estimate(a1.model_copy(deep=True)) == 4
    changed = a1.model_copy(deep=True)
    changed.timestamp = 99
    assert estimate(changed) == math.ceil(len(text_of(a1)) / 4)


# --- groups -----------------------------------------------------------------


def test_groups_are_7_7_15() -> None:
    estimate = fixture_estimator()
    groups = group_interactions(chapter_fixture())
    assert [group.entry_ids for group in groups] == [
        ["u1", "a1"],
        ["u2", "a2"],
        ["u3", "calls", "r-test", "r-read", "a3"],
    ]
    costs = [sum(estimate(entry.message) for entry in group.entries) for group in groups]
    assert costs == [7, 7, 15]
    assert costs == [sum(FIXTURE_TOKENS[i] for i in group.entry_ids) for group in groups]


def test_only_two_cuts_keep_every_tool_round_trip_whole() -> None:
    starts = [group.entry_ids[0] for group in group_interactions(chapter_fixture())]
    assert starts == ["u1", "u2", "u3"]


# --- Lab 11.3: the deduction table ------------------------------------------


def test_the_deduction_table_31_28_24_22() -> None:
    tokens = chapter_build(chapter_fixture()).tokens
    left = [tokens.max_tokens]
    for cost in (tokens.system, tokens.reserved_output, tokens.safety_margin):
        left.append(left[-1] - cost)
    assert (tokens.max_tokens, tokens.system, tokens.reserved_output, tokens.safety_margin) == (
        31,
        3,
        4,
        2,
    )
    assert left == [31, 28, 24, 22]
    assert tokens.available_for_messages == left[-1] == 22


def test_the_chapter_budget_keeps_u2_onwards() -> None:
    result = chapter_build(chapter_fixture())
    assert result.kept_entry_ids == ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]
    assert result.reason == "trimmed"
    assert result.tokens == TokenProjection(
        max_tokens=31,
        system=3,
        messages=22,
        reserved_output=4,
        safety_margin=2,
        available_for_messages=22,
        total=31,
    )
    entries = by_id(chapter_fixture())
    assert result.messages[0] == entries["sys"].message
    assert result.messages[1:] == [entries[i].message for i in result.kept_entry_ids]


def test_selection_stops_where_the_next_group_no_longer_fits() -> None:
    # Newest first: 15 fits, 15 + 7 = 22 fits, 22 + 7 = 29 > 22 does not.
    tokens = chapter_build(chapter_fixture()).tokens
    assert tokens.available_for_messages >= 15
    assert 15 + 7 == tokens.messages <= tokens.available_for_messages
    assert tokens.available_for_messages < 15 + 7 + 7


def test_a_larger_budget_keeps_everything() -> None:
    result = chapter_build(chapter_fixture(), max_tokens=38)
    assert result.reason == "within_budget"
    assert result.kept_entry_ids == FIXTURE_IDS[1:]
    assert result.tokens.messages == 29
    assert result.tokens.total == 38


def test_an_allowance_of_10_still_returns_the_newest_group_whole() -> None:
    result = chapter_build(chapter_fixture(), max_tokens=19)
    assert result.tokens.available_for_messages == 10
    assert result.reason == "single_group_overflow"
    assert result.kept_entry_ids == ["u3", "calls", "r-test", "r-read", "a3"]
    assert result.tokens.messages == 15
    assert result.tokens.total == 3 + 15 + 4 + 2 == 24
    assert result.tokens.total > result.tokens.max_tokens


def test_an_allowance_of_zero_clamps_and_overflows() -> None:
    result = chapter_build(chapter_fixture(), max_tokens=5)
    assert result.tokens.available_for_messages == 0
    assert result.reason == "single_group_overflow"
    assert result.kept_entry_ids == ["u3", "calls", "r-test", "r-read", "a3"]


def test_the_last_three_messages_would_orphan_tool_results() -> None:
    """The expected failure the chapter shows: cutting by message count, not by group."""
    fixture = chapter_fixture()
    last_three = fixture[-3:]
    assert [entry.id for entry in last_three] == ["r-test", "r-read", "a3"]
    assert isinstance(last_three[0].message, ToolResultMessage)
    declared = {
        call.id
        for entry in last_three
        if isinstance(entry.message, AssistantMessage)
        for call in entry.message.tool_calls
    }
    answered = {
        entry.message.tool_call_id
        for entry in last_three
        if isinstance(entry.message, ToolResultMessage)
    }
    assert answered == {"test-1", "read-1"}
    assert declared.isdisjoint(answered)
    with pytest.raises(InteractionError, match="r-test") as caught:
        group_interactions(last_three)
    assert "before the first user message" in str(caught.value)

    kept = chapter_build(chapter_fixture()).kept_entry_ids
    assert kept[-3:] == ["r-test", "r-read", "a3"]
    assert "calls" in kept


# --- no groups at all -------------------------------------------------------


def test_an_empty_path_builds_an_empty_context() -> None:
    result = chapter_build([])
    assert result.messages == []
    assert result.kept_entry_ids == []
    assert result.reason == "within_budget"
    assert result.tokens == TokenProjection(
        max_tokens=31,
        system=0,
        messages=0,
        reserved_output=4,
        safety_margin=2,
        available_for_messages=25,
        total=6,
    )


def test_a_path_of_only_system_messages_builds_only_the_system_message() -> None:
    result = chapter_build(chapter_fixture()[:1])
    assert result.messages == [chapter_fixture()[0].message]
    assert result.kept_entry_ids == []
    assert result.reason == "within_budget"
    assert result.tokens == TokenProjection(
        max_tokens=31,
        system=3,
        messages=0,
        reserved_output=4,
        safety_margin=2,
        available_for_messages=22,
        total=9,
    )


def test_no_system_message_costs_zero() -> None:
    path = chapter_fixture()[1:]
    path[0] = path[0].model_copy(update={"parent_id": None})
    result = chapter_build(path)
    assert result.tokens.system == 0
    assert result.tokens.available_for_messages == 25
    assert all(message.role != "system" for message in result.messages)
    assert result.kept_entry_ids == ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]


# --- Lab 11.4 and 11.5: compact-1 and the restore ---------------------------


def test_compact_1_hangs_after_a3() -> None:
    entry = create_compaction_entry(
        chapter_fixture(),
        id="compact-1",
        timestamp=100,
        summary=fixture_summary(),
        first_kept_entry_id="u2",
        tokens_before=29,
    )
    assert entry.parent_id == "a3"
    assert (entry.first_kept_entry_id, entry.timestamp, entry.tokens_before) == ("u2", 100, 29)
    assert entry == by_id(chapter_fixture_after_compaction())["compact-1"]


def test_tokens_before_is_the_cost_of_every_group_before_compaction() -> None:
    result = chapter_build(chapter_fixture(), max_tokens=1000)
    assert result.tokens.messages == 29 == 7 + 7 + 15


def test_the_restore_after_compact_1() -> None:
    path = chapter_fixture_after_compaction()
    assert [entry.id for entry in path] == [*FIXTURE_IDS, "compact-1", "u4", "a4"]
    result = chapter_build(path)
    entries = by_id(path)
    assert result.reason == "trimmed"
    assert result.kept_entry_ids == ["u4", "a4"]
    assert result.tokens.available_for_messages == 22
    assert result.tokens.messages == 5 + 7 == 12
    assert result.tokens.total == 3 + 12 + 4 + 2
    assert [message.role for message in result.messages] == ["system", "user", "user", "assistant"]
    assert result.messages[0] == entries["sys"].message
    summary = result.messages[1]
    assert isinstance(summary, UserMessage)
    assert text_of(summary) == render_summary(fixture_summary())
    assert summary.timestamp == 100
    assert result.messages[2:] == [entries["u4"].message, entries["a4"].message]


def test_the_summary_costs_room_the_next_group_needed() -> None:
    # 22 - 5 = 17 for groups: [u4, a4] = 7 fits; + [u3 ... a3] = 15 would be 22 > 17.
    path = chapter_fixture_after_compaction()
    estimate = fixture_estimator()
    compaction = by_id(path)["compact-1"]
    summary_cost = estimate(summary_message(compaction))
    suffix = [entry for entry in path[3:] if isinstance(entry, MessageEntry)]
    groups = group_interactions(suffix)
    costs = [sum(estimate(entry.message) for entry in group.entries) for group in groups]
    assert [group.entry_ids[0] for group in groups] == ["u2", "u3", "u4"]
    assert costs == [7, 15, 7]

    tokens = chapter_build(path).tokens
    for_groups = tokens.available_for_messages - summary_cost
    assert (tokens.available_for_messages, summary_cost, for_groups) == (22, 5, 17)
    assert costs[-1] <= for_groups < costs[-1] + costs[-2]
    assert tokens.messages == summary_cost + costs[-1] == 12


# --- the system replay fixture ----------------------------------------------


def test_system_replay_across_the_compaction() -> None:
    path = system_replay_fixture()
    assert [entry.id for entry in path] == [
        "sys",
        "u1",
        "a1",
        "patch-1",
        "u2",
        "a2",
        "compact-1",
        "patch-2",
        "u3",
        "a3",
    ]
    messages = [entry.message for entry in path if isinstance(entry, MessageEntry)]
    head = current_system_message(messages)
    assert head == SystemMessage(
        content="BASE\n\nPrefer small diffs.", sections={"rules": "RULE v2"}, timestamp=1
    )
    assert head.timestamp == by_id(path)["sys"].timestamp
    assert current_system_prompt(messages) == "BASE\n\nPrefer small diffs.\n\nRULE v2"

    result = build_context(path, max_tokens=1000, estimate_tokens=fixture_estimator())
    entries = by_id(path)
    assert result.messages[0] == head
    assert isinstance(result.messages[1], UserMessage)
    compaction = entries["compact-1"]
    assert text_of(result.messages[1]) == render_summary(compaction.summary)
    assert result.kept_entry_ids == ["u2", "a2", "u3", "a3"]
    assert result.messages[2:] == [entries[i].message for i in ["u2", "a2", "u3", "a3"]]
    assert sum(isinstance(message, SystemMessage) for message in result.messages) == 1


def test_patch_2_cannot_be_a_first_kept_id() -> None:
    with pytest.raises(CompactionError, match="patch-2"):
        create_compaction_entry(
            system_replay_fixture(),
            id="compact-2",
            timestamp=11,
            summary=fixture_summary(),
            first_kept_entry_id="patch-2",
            tokens_before=1,
        )


# --- the estimator contract -------------------------------------------------


class RecordingEstimator:
    """Wraps the fixture estimator and remembers every value it was given."""

    def __init__(self) -> None:
        self.inner = fixture_estimator()
        self.seen: list[Any] = []

    def __call__(self, value: Any) -> int:
        self.seen.append(value)
        return self.inner(value)


def test_the_estimator_is_called_once_per_priced_message() -> None:
    estimate = RecordingEstimator()
    path = chapter_fixture()
    build_context(path, **CHAPTER_BUDGET, estimate_tokens=estimate)
    assert len(estimate.seen) == 10  # replayed system + nine candidates
    assert estimate.seen == [entry.message for entry in path]

    estimate = RecordingEstimator()
    path = chapter_fixture_after_compaction()
    build_context(path, **CHAPTER_BUDGET, estimate_tokens=estimate)
    entries = by_id(path)
    candidates = ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3", "u4", "a4"]
    assert len(estimate.seen) == 1 + 1 + len(candidates)
    assert estimate.seen[0] == entries["sys"].message
    assert text_of(estimate.seen[1]).startswith("[Session compaction summary]")
    assert estimate.seen[2:] == [entries[i].message for i in candidates]


def all_objects(value: Any) -> list[Any]:
    """``value`` and every model, list and dict inside it."""
    found = [value]
    if isinstance(value, list):
        for item in value:
            found += all_objects(item)
    elif isinstance(value, dict):
        for item in value.values():
            found += all_objects(item)
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            found += all_objects(getattr(value, name))
    return [item for item in found if isinstance(item, list | dict | BaseModel)]


def test_the_estimator_never_receives_the_paths_own_objects() -> None:
    estimate = RecordingEstimator()
    path = chapter_fixture_after_compaction()
    build_context(path, **CHAPTER_BUDGET, estimate_tokens=estimate)
    on_path = {id(item) for entry in path for item in all_objects(entry)}
    given = [item for value in estimate.seen for item in all_objects(value)]
    assert given
    assert all(id(item) not in on_path for item in given)


def test_an_estimator_that_mutates_its_argument_changes_nothing() -> None:
    path = chapter_fixture()
    before = [entry.to_wire() for entry in path]
    inner = fixture_estimator()

    def vandal(value: Any) -> int:
        tokens = inner(value)
        if hasattr(value, "content") and isinstance(value.content, list):
            value.content.clear()
        return tokens

    result = build_context(path, **CHAPTER_BUDGET, estimate_tokens=vandal)
    assert [entry.to_wire() for entry in path] == before
    assert result == chapter_build(chapter_fixture())


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"max_tokens": -1}, "max_tokens"),
        ({"max_tokens": math.nan}, "max_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"max_tokens": "31"}, "max_tokens"),
        ({"reserved_output": math.inf}, "reserved_output"),
        ({"reserved_output": -4}, "reserved_output"),
        ({"safety_margin": -0.5}, "safety_margin"),
        ({"safety_margin": None}, "safety_margin"),
    ],
)
def test_bad_budget_numbers_are_budget_errors_naming_which(
    options: dict[str, Any], name: str
) -> None:
    with pytest.raises(BudgetError, match=f"^{name} "):
        chapter_build(chapter_fixture(), **options)


def estimator_returning(bad: Any, for_text: str) -> Callable[[Any], Any]:
    inner = fixture_estimator()

    def estimate(value: Any) -> Any:
        if not isinstance(value, str) and text_of(value).startswith(for_text):
            return bad
        return inner(value)

    return estimate


@pytest.mark.parametrize("bad", [-1, math.nan, math.inf, True, "3", None], ids=repr)
@pytest.mark.parametrize(
    ("path", "for_text", "label"),
    [
        (chapter_fixture, "sys", "system message"),
        (chapter_fixture, "Confirm the JSONL", "interaction 2 message 1"),
        (chapter_fixture, "14 tests", "interaction 3 message 3"),
        (chapter_fixture_after_compaction, "[Session", "compaction summary 1"),
    ],
    ids=["system", "u2", "r-test", "summary"],
)
def test_bad_estimator_results_are_budget_errors_naming_the_message(
    path: Callable[[], list[SessionEntry]], for_text: str, label: str, bad: Any
) -> None:
    with pytest.raises(BudgetError) as caught:
        build_context(path(), **CHAPTER_BUDGET, estimate_tokens=estimator_returning(bad, for_text))
    assert label in str(caught.value)
    assert "estimate_tokens" in str(caught.value)


@pytest.mark.parametrize(
    ("path", "for_text", "label"),
    [
        (chapter_fixture, "sys", "on system message:"),
        (chapter_fixture, "14 tests", "on interaction 3 message 3:"),
        (chapter_fixture_after_compaction, "[Session", "on compaction summary 1:"),
    ],
    ids=["system", "r-test", "summary"],
)
def test_an_estimator_that_raises_is_a_budget_error_naming_the_message_with_its_cause(
    path: Callable[[], list[SessionEntry]], for_text: str, label: str
) -> None:
    inner = fixture_estimator()

    def estimate(value: Any) -> Any:
        if not isinstance(value, str) and text_of(value).startswith(for_text):
            raise KeyError("no price for this")
        return inner(value)

    with pytest.raises(BudgetError) as caught:
        build_context(path(), **CHAPTER_BUDGET, estimate_tokens=estimate)
    assert label in str(caught.value) and "KeyError" in str(caught.value)
    assert isinstance(caught.value.__cause__, KeyError)


def test_float_estimates_are_accepted() -> None:
    def estimate(value: Any) -> float:
        return 0.5

    result = build_context(chapter_fixture(), max_tokens=5, estimate_tokens=estimate)
    assert result.tokens.system == 0.5
    assert result.tokens.messages == 4.5
    assert result.reason == "within_budget"
