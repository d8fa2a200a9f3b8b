"""Lab 11.3 — budget projection over whole groups (3 checks)."""

from __future__ import annotations

from types import ModuleType

import pytest

pytestmark = pytest.mark.lab_11_3


def test_fixed_costs_are_deducted_before_any_message(impl: ModuleType) -> None:
    path = impl.chapter_fixture()
    result = impl.build_context(
        path,
        max_tokens=31,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )

    tokens = result.tokens
    assert (tokens.max_tokens, tokens.system, tokens.reserved_output, tokens.safety_margin) == (
        31,
        3,
        4,
        2,
    )
    assert tokens.available_for_messages == 31 - 3 - 4 - 2 == 22
    assert (tokens.messages, tokens.total) == (22, 31)
    assert result.messages[0].role == "system" and result.messages[0].content == "sys"
    assert "sys" not in result.kept_entry_ids

    without_system = [entry for entry in path if entry.id != "sys"]
    without_system[0].parent_id = None
    bare = impl.build_context(
        without_system,
        max_tokens=31,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )
    assert bare.tokens.system == 0 and bare.tokens.available_for_messages == 25
    assert all(message.role != "system" for message in bare.messages)

    squeezed = impl.build_context(
        path,
        max_tokens=5,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )
    assert squeezed.tokens.available_for_messages == 0  # never negative


def test_newest_group_is_kept_whole_even_when_it_overflows(impl: ModuleType) -> None:
    # 19 - 3 (system) - 4 - 2 = an allowance of 10, but the newest group costs 15.
    result = impl.build_context(
        impl.chapter_fixture(),
        max_tokens=19,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )

    assert result.tokens.available_for_messages == 10
    assert result.kept_entry_ids == ["u3", "calls", "r-test", "r-read", "a3"]
    assert result.reason == "single_group_overflow"
    assert result.tokens.messages == 15 and result.tokens.total == 24 > 19


def test_trimming_happens_only_at_group_boundaries_with_isolated_results(
    impl: ModuleType,
) -> None:
    path = impl.chapter_fixture()
    before = [entry.to_wire() for entry in path]
    result = impl.build_context(
        path,
        max_tokens=31,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )

    kept = ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]
    assert result.kept_entry_ids == kept
    assert result.reason == "trimmed"
    by_id = {entry.id: entry for entry in path}
    assert result.messages == [by_id[i].message for i in ["sys", *kept]]
    # The cut falls between a1 and u2: every kept tool call still has its result.
    assert result.kept_entry_ids[0] == "u2"

    within = impl.build_context(
        path,
        max_tokens=40,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )
    assert within.reason == "within_budget" and within.kept_entry_ids[0] == "u1"

    calls = result.messages[4]
    calls.content[0].arguments["path"] = "changed.ts"
    assert [entry.to_wire() for entry in path] == before
    by_id["calls"].message.content[1].arguments["command"] = "changed"
    assert result.messages[4].content[1].arguments == {"command": "npm test -- context"}
