"""The transfer exercise's wider suite: a per-group ledger that must agree with ``build_context``.

Its three checks are ``tests/labs/test_transfer.py`` (``course-lab check transfer``);
this module is what ``check transfer --extended`` adds.

A view that re-decided the selection could drift from what the model is
actually sent; so every case here checks the ledger's rows against the
build it describes, on the chapter's fixture and on the cases section 8 asks
for (three groups, an overflowing tool group, a single group with no tools,
and a path after a compaction).
"""

from __future__ import annotations

from typing import Any

import pytest

from course_lib import (
    BudgetError,
    BuildContextResult,
    LedgerRow,
    MessageEntry,
    SessionEntry,
    assistant_message,
    budget_ledger,
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_estimator,
    system_replay_fixture,
    user_message,
)

CHAPTER_BUDGET: dict[str, Any] = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
GROUP_3 = ["u3", "calls", "r-test", "r-read", "a3"]


def ledger_and_build(
    path: list[SessionEntry], **options: Any
) -> tuple[list[LedgerRow], BuildContextResult]:
    rows = budget_ledger(path, **options, estimate_tokens=fixture_estimator())
    result = build_context(path, **options, estimate_tokens=fixture_estimator())
    return rows, result


def assert_agrees(
    rows: list[LedgerRow], result: BuildContextResult, summary_tokens: int, first: int = 1
) -> None:
    """The rows describe exactly the selection ``build_context`` made, numbered from ``first``."""
    kept = [row for row in rows if row.status != "trimmed"]
    assert [entry_id for row in kept for entry_id in row.entry_ids] == result.kept_entry_ids
    assert summary_tokens + sum(row.tokens for row in kept) == result.tokens.messages
    assert [row.group for row in rows] == list(range(first, first + len(rows)))
    statuses = [row.status for row in rows]
    assert statuses == sorted(statuses, key=lambda status: status != "trimmed")
    assert ("overflow" in statuses) == (result.reason == "single_group_overflow")
    if result.reason == "trimmed":
        assert "trimmed" in statuses
    if result.reason == "within_budget":
        assert set(statuses) <= {"kept"}


def two_message_path() -> list[SessionEntry]:
    """A single interaction with no tools: one question, one answer."""
    return [
        MessageEntry(
            id="q", parent_id=None, timestamp=1, message=user_message("Hello there.", timestamp=1)
        ),
        MessageEntry(
            id="a",
            parent_id="q",
            timestamp=2,
            message=assistant_message("Hello! What shall we do?", timestamp=2),
        ),
    ]


def test_the_fixtures_three_groups() -> None:
    rows, result = ledger_and_build(chapter_fixture(), **CHAPTER_BUDGET)
    assert rows == [
        LedgerRow(group=1, entry_ids=["u1", "a1"], tokens=7, status="trimmed"),
        LedgerRow(group=2, entry_ids=["u2", "a2"], tokens=7, status="kept"),
        LedgerRow(group=3, entry_ids=GROUP_3, tokens=15, status="kept"),
    ]
    assert result.reason == "trimmed"
    assert_agrees(rows, result, summary_tokens=0)


def test_all_groups_kept_within_budget() -> None:
    rows, result = ledger_and_build(chapter_fixture(), max_tokens=100)
    assert [row.status for row in rows] == ["kept", "kept", "kept"]
    assert [row.tokens for row in rows] == [7, 7, 15]
    assert result.reason == "within_budget"
    assert_agrees(rows, result, summary_tokens=0)


@pytest.mark.parametrize("max_tokens", [0, 6, 19, 23])
def test_the_newest_tool_group_overflowing(max_tokens: int) -> None:
    rows, result = ledger_and_build(
        chapter_fixture(), max_tokens=max_tokens, reserved_output=4, safety_margin=2
    )
    assert [row.status for row in rows] == ["trimmed", "trimmed", "overflow"]
    assert rows[-1] == LedgerRow(group=3, entry_ids=GROUP_3, tokens=15, status="overflow")
    assert result.reason == "single_group_overflow"
    assert_agrees(rows, result, summary_tokens=0)


def test_a_tool_group_that_fits_exactly_is_kept() -> None:
    rows, result = ledger_and_build(
        chapter_fixture(), max_tokens=24, reserved_output=4, safety_margin=2
    )
    assert result.tokens.available_for_messages == 15
    assert [row.status for row in rows] == ["trimmed", "trimmed", "kept"]
    assert result.reason == "trimmed"
    assert_agrees(rows, result, summary_tokens=0)


def test_a_single_group_with_no_tools() -> None:
    path = two_message_path()
    estimate = fixture_estimator()
    cost = sum(estimate(entry.message) for entry in path)
    assert cost == 3 + 6

    rows, result = ledger_and_build(path, max_tokens=100)
    assert rows == [LedgerRow(group=1, entry_ids=["q", "a"], tokens=cost, status="kept")]
    assert result.reason == "within_budget"
    assert_agrees(rows, result, summary_tokens=0)

    rows, result = ledger_and_build(path, max_tokens=cost - 1)
    assert rows == [LedgerRow(group=1, entry_ids=["q", "a"], tokens=cost, status="overflow")]
    assert result.reason == "single_group_overflow"
    assert_agrees(rows, result, summary_tokens=0)


def test_after_a_compaction_only_groups_from_first_kept_on() -> None:
    rows, result = ledger_and_build(chapter_fixture_after_compaction(), **CHAPTER_BUDGET)
    assert rows == [
        LedgerRow(group=2, entry_ids=["u2", "a2"], tokens=7, status="trimmed"),
        LedgerRow(group=3, entry_ids=GROUP_3, tokens=15, status="trimmed"),
        LedgerRow(group=4, entry_ids=["u4", "a4"], tokens=7, status="kept"),
    ]  # 「firstKeptEntryId: "u2" 表示恢复时从第二组开始保留原消息」: u2 opens group 2
    assert all("u1" not in row.entry_ids for row in rows)
    assert result.reason == "trimmed"
    assert_agrees(rows, result, summary_tokens=5, first=2)


def test_the_summary_is_not_a_row_but_still_costs_room() -> None:
    path = chapter_fixture_after_compaction()
    rows, result = ledger_and_build(path, max_tokens=38, reserved_output=4, safety_margin=2)
    # 38 - 3 - 4 - 2 = 29 for messages; 29 - 5 (summary) = 24: 7 + 15 = 22 fits, + 7 does not.
    assert result.tokens.available_for_messages == 29
    assert [row.status for row in rows] == ["trimmed", "kept", "kept"]
    assert sum(row.tokens for row in rows) == 29
    assert_agrees(rows, result, summary_tokens=5, first=2)


def test_a_summary_that_uses_up_the_allowance_overflows_the_newest_group() -> None:
    rows, result = ledger_and_build(
        chapter_fixture_after_compaction(), max_tokens=13, reserved_output=4, safety_margin=2
    )
    assert result.tokens.available_for_messages == 4
    assert [row.status for row in rows] == ["trimmed", "trimmed", "overflow"]
    assert result.reason == "single_group_overflow"
    assert_agrees(rows, result, summary_tokens=5, first=2)


def test_the_system_replay_path() -> None:
    rows, result = ledger_and_build(system_replay_fixture(), max_tokens=1000)
    assert [row.entry_ids for row in rows] == [["u2", "a2"], ["u3", "a3"]]
    assert [row.status for row in rows] == ["kept", "kept"]
    assert_agrees(rows, result, summary_tokens=5, first=2)


def test_no_groups_no_rows() -> None:
    assert budget_ledger([], max_tokens=10, estimate_tokens=fixture_estimator()) == []
    assert (
        budget_ledger(chapter_fixture()[:1], max_tokens=0, estimate_tokens=fixture_estimator())
        == []
    )


def test_the_ledger_refuses_what_build_context_refuses() -> None:
    with pytest.raises(BudgetError, match="safety_margin"):
        budget_ledger(
            chapter_fixture(), max_tokens=31, safety_margin=-2, estimate_tokens=fixture_estimator()
        )


def test_the_ledger_is_pure_and_repeatable() -> None:
    path = chapter_fixture_after_compaction()
    before = [entry.to_wire() for entry in path]
    first = budget_ledger(path, **CHAPTER_BUDGET, estimate_tokens=fixture_estimator())
    first[0].entry_ids.append("changed")
    second = budget_ledger(path, **CHAPTER_BUDGET, estimate_tokens=fixture_estimator())
    assert second[0].entry_ids == ["u2", "a2"]
    assert [entry.to_wire() for entry in path] == before
