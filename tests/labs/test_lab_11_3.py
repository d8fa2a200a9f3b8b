"""Lab 11.3 — budget projection over whole groups (3 checks)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from lab_checks import N_, expect, expect_equal, expect_error, expect_no_error, expect_values, shown
from path_oracle import matching, newest_first_answers, random_paths

pytestmark = pytest.mark.lab_11_3

BUDGET = "reserved_output=4, safety_margin=2"
CHAPTER = f"fixture, max_tokens=31, {BUDGET}"
DEDUCTION_RULE = N_(
    "fixed costs first: available_for_messages = max(0, max_tokens - system - "
    "reserved_output - safety_margin) = 31 - 3 - 4 - 2 = 22 (system: the replayed "
    "system message's estimate)"
)
COPY_RULE = N_("the returned messages are deep copies that share nothing with the path")
KEPT_AT_31 = ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]


def build(impl: ModuleType, path: list, max_tokens: int = 31) -> Any:
    return impl.build_context(
        path,
        max_tokens=max_tokens,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )


def token_values(result: Any, *names: str) -> dict[str, Any]:
    """``{"tokens.<name>": value}`` for each of ``names``: the labels a message shows."""
    return {f"tokens.{name}": getattr(result.tokens, name) for name in names}


def message_difference(impl: ModuleType, expected: list, actual: list) -> str:
    """The first message that differs, as role and the start of its text."""

    def label(message: Any) -> str:
        return f"{message.role} {impl.text_of(message)[:30]!r}"

    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            return f"messages[{index}] {label(got)} where {label(want)} belongs"
    return f"{len(actual)} messages instead of {len(expected)}"


def test_fixed_costs_are_deducted_before_any_message(impl: ModuleType) -> None:
    path = impl.chapter_fixture()
    case = f"build_context({CHAPTER})"
    result = expect_no_error(case, lambda: build(impl, path), expected="a result")

    expect_values(
        case,
        {
            "tokens.max_tokens": 31,
            "tokens.system": 3,
            "tokens.reserved_output": 4,
            "tokens.safety_margin": 2,
            "tokens.available_for_messages": 22,
        },
        token_values(
            result,
            "max_tokens",
            "system",
            "reserved_output",
            "safety_margin",
            "available_for_messages",
        ),
        hint=DEDUCTION_RULE,
    )
    expect_values(
        case,
        {"tokens.messages": 22, "tokens.total": 31},
        token_values(result, "messages", "total"),
        hint=N_(
            "tokens.messages is what the kept groups cost; whole groups newest first while "
            "they fit 22: [u3 ... a3] 15 fits, + [u2, a2] 7 = 22 fits exactly (<=), + [u1, "
            "a1] 7 = 29 does not"
        ),
    )
    first = result.messages[0] if result.messages else None
    expect(
        case,
        first is not None and first.role == "system" and first.content == "sys",
        expected="messages[0] the replayed system message with content 'sys'",
        got="no messages" if first is None else f"messages[0] a {first.role} message",
        hint=N_("the result starts with the system message replayed from the whole path"),
    )
    expect(
        case,
        "sys" not in result.kept_entry_ids,
        expected="kept_entry_ids without sys",
        got=f"kept_entry_ids {shown(result.kept_entry_ids)}",
        hint=N_(
            "kept_entry_ids names only the kept conversation entries, never the system message"
        ),
    )

    without_system = [entry for entry in path if entry.id != "sys"]
    without_system[0].parent_id = None
    case = f"build_context(fixture without sys, max_tokens=31, {BUDGET})"
    bare = expect_no_error(case, lambda: build(impl, without_system), expected="a result")
    expect_values(
        case,
        {"tokens.system": 0, "tokens.available_for_messages": 25},
        token_values(bare, "system", "available_for_messages"),
        hint=N_("a path without system messages costs 0 for system: 31 - 0 - 4 - 2 = 25"),
    )
    roles = [message.role for message in bare.messages]
    expect(
        case,
        "system" not in roles,
        expected="no system message in messages",
        got=f"the roles {shown(roles)}",
    )

    case = f"build_context(fixture, max_tokens=5, {BUDGET})"
    squeezed = expect_no_error(case, lambda: build(impl, path, max_tokens=5), expected="a result")
    expect_values(
        case,
        {"tokens.available_for_messages": 0},
        token_values(squeezed, "available_for_messages"),
        hint=N_("the allowance is never negative: max(0, 5 - 3 - 4 - 2) = 0"),
    )

    # A one-token group when nothing is left: the allowance is 0, not 1, so it overflows.
    tiny = [impl.MessageEntry(id="u1", parent_id=None, timestamp=1,
                              message=impl.user_message("hi", timestamp=1))]  # fmt: skip
    case = f"build_context([u1 'hi' (1 token)], max_tokens=6, {BUDGET})"
    one = expect_no_error(case, lambda: build(impl, tiny, max_tokens=6), expected="a result")
    expect_values(
        case,
        {"tokens.available_for_messages": 0, "reason": "single_group_overflow"},
        {"tokens.available_for_messages": one.tokens.available_for_messages, "reason": one.reason},
        hint=N_(
            "6 - 0 - 4 - 2 leaves 0 for messages (never less, never more): a group of 1 is over it"
        ),
    )

    # A metadata entry is on the path but never sent: it changes nothing in the result.
    noted = [*path[:3], impl.MetadataEntry(id="note", parent_id="a1", timestamp=3.5,
             key="model", value={"name": "scripted"}), *path[3:]]  # fmt: skip
    case = f"build_context(fixture with a metadata entry after a1, max_tokens=31, {BUDGET})"
    with_note = expect_no_error(case, lambda: build(impl, noted), expected="a result")
    expect_values(
        case,
        {"kept_entry_ids": result.kept_entry_ids, "tokens": result.tokens},
        {"kept_entry_ids": with_note.kept_entry_ids, "tokens": with_note.tokens},
        hint=N_(
            "the same as without it: metadata entries are skipped everywhere (never replayed "
            "as system state, never grouped, never sent)"
        ),
    )

    # After a compaction (Lab 11.5) the summary is paid from the allowance first.
    case = "message_allowances(Budget(31, 4, 2), 3, summary_tokens=5)"
    allowances = expect_no_error(
        case, lambda: impl.message_allowances(impl.Budget(31, 4, 2), 3, summary_tokens=5)
    )
    expect_equal(
        case,
        (22, 17),
        allowances,
        hint=N_(
            "available_for_messages = max(0, 31 - 3 - 4 - 2) = 22, and the groups get what the "
            "summary leaves: max(0, 22 - 5) = 17 (never below 0: max(0, 3 - 5) = 0)"
        ),
    )
    expect_equal(
        "message_allowances(Budget(12, 4, 2), 3, summary_tokens=5)",
        (3, 0),
        expect_no_error(
            "message_allowances(Budget(12, 4, 2), ...)",
            lambda: impl.message_allowances(impl.Budget(12, 4, 2), 3, summary_tokens=5),
        ),
        hint=N_("max(0, 12 - 3 - 4 - 2) = 3, and max(0, 3 - 5) = 0: never negative"),
    )

    for name in ("max_tokens", "reserved_output", "safety_margin"):
        numbers = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2, name: -1}
        shown_numbers = ", ".join(f"{key}={value}" for key, value in numbers.items())
        expect_error(
            f"build_context(fixture, {shown_numbers})",
            impl.BudgetError,
            lambda numbers=numbers: impl.build_context(
                path, **numbers, estimate_tokens=impl.fixture_estimator()
            ),
            words=[name],
            hint=N_(
                "each of the three budget numbers must be a finite number >= 0; the error names it"
            ),
        )

    # An estimate that is no finite number >= 0 names the message it priced, as the course
    # does: r-test is message 3 of interaction 3 (both counted from 1).
    nan_for_r_test = impl.NamedEstimator("nan_for_text", text_prefix="14 tests")

    expect_error(
        f"build_context({CHAPTER}, an estimator returning NaN for r-test)",
        impl.BudgetError,
        lambda: impl.build_context(
            path, max_tokens=31, reserved_output=4, safety_margin=2, estimate_tokens=nan_for_r_test
        ),
        words=["interaction 3 message 3"],
        hint=N_(
            "price each message with price(estimate_tokens, message, 'interaction', n, "
            "'message', m), n and m counted from 1: its BudgetError names the message"
        ),
    )


def test_newest_group_is_kept_whole_even_when_it_overflows(impl: ModuleType) -> None:
    # 19 - 3 (system) - 4 - 2 = an allowance of 10, but the newest group costs 15.
    case = f"build_context(fixture, max_tokens=19, {BUDGET})"
    result = expect_no_error(case, lambda: build(impl, impl.chapter_fixture(), max_tokens=19))
    overflow_rule = N_(
        "the newest group [u3 ... a3] (15) is always kept whole, even alone over the "
        "allowance of 10: reason single_group_overflow"
    )

    expect_values(
        case,
        {"tokens.available_for_messages": 10},
        token_values(result, "available_for_messages"),
        hint=N_("19 - 3 (system) - 4 - 2 = 10"),
    )
    expect_equal(
        f"{case}: kept_entry_ids",
        ["u3", "calls", "r-test", "r-read", "a3"],
        result.kept_entry_ids,
        hint=overflow_rule,
    )
    expect_equal(f"{case}: reason", "single_group_overflow", result.reason, hint=overflow_rule)
    expect_values(
        case,
        {"tokens.messages": 15, "tokens.total": 24},
        token_values(result, "messages", "total"),
        hint=N_(
            "the total may exceed max_tokens when the newest group overflows; total = system "
            "+ messages + reserved_output + safety_margin"
        ),
    )

    case = f"build_context(fixture, max_tokens=24, {BUDGET})"
    exact = expect_no_error(case, lambda: build(impl, impl.chapter_fixture(), max_tokens=24))
    expect_values(
        case,
        {"reason": "trimmed", "kept_entry_ids": ["u3", "calls", "r-test", "r-read", "a3"]},
        {"reason": exact.reason, "kept_entry_ids": exact.kept_entry_ids},
        hint=(
            N_(
                "24 - 3 - 4 - 2 = 15: the newest group (15) fits exactly, so it is no overflow "
                "(only a cost greater than the allowance overflows); [u2, a2] does not fit"
            )
        ),
    )


def test_trimming_happens_only_at_group_boundaries_with_isolated_results(
    impl: ModuleType,
) -> None:
    path = impl.chapter_fixture()
    before = [entry.to_wire() for entry in path]
    case = f"build_context({CHAPTER})"
    result = expect_no_error(case, lambda: build(impl, path), expected="a result")

    expect_equal(
        f"{case}: kept_entry_ids",
        KEPT_AT_31,
        result.kept_entry_ids,
        hint=N_(
            "whole groups newest first while they fit 22: [u3 ... a3] 15 fits, + [u2, a2] 7 "
            "= 22 fits exactly (<=), + [u1, a1] 7 = 29 does not; a cut inside a group leaves "
            "tool results without their call"
        ),
    )
    expect_equal(
        f"{case}: reason",
        "trimmed",
        result.reason,
        hint=N_("trimmed when a group was left out, within_budget when every group fits"),
    )
    by_id = {entry.id: entry for entry in path}
    expected_messages = [by_id[i].message for i in ["sys", *KEPT_AT_31]]
    expect(
        f"{case}: messages",
        result.messages == expected_messages,
        expected="the system message, then the kept entries' messages in path order",
        got=message_difference(impl, expected_messages, result.messages),
    )

    everything = [entry.id for entry in path if entry.id != "sys"]
    for room, hint in (
        (40, N_("an allowance of 40 - 3 - 4 - 2 = 31 holds all three groups (7 + 7 + 15 = 29)")),
        (1000, N_("the walk stops at the oldest group, however much room is left after it")),
    ):
        case = f"build_context(fixture, max_tokens={room}, {BUDGET})"
        within = expect_no_error(case, lambda room=room: build(impl, path, max_tokens=room))
        expect_values(
            case,
            {"reason": "within_budget", "kept_entry_ids": everything},
            {"reason": within.reason, "kept_entry_ids": within.kept_entry_ids},
            hint=hint,
        )

    for name, edge in (("an empty path", []), ("only the system message sys", path[:1])):
        case = f"build_context({name}, max_tokens=31, {BUDGET})"
        nothing = expect_no_error(case, lambda edge=edge: build(impl, edge))
        expect_values(
            case,
            {"kept_entry_ids": [], "reason": "within_budget", "tokens.messages": 0},
            {
                "kept_entry_ids": nothing.kept_entry_ids,
                "reason": nothing.reason,
                "tokens.messages": nothing.tokens.messages,
            },
            hint=N_("no groups at all: nothing is left out, so the reason is within_budget"),
        )

    case = f"build_context(fixture, max_tokens=30, {BUDGET})"
    short = expect_no_error(case, lambda: build(impl, path, max_tokens=30))
    expect_values(
        case,
        {"kept_entry_ids": ["u3", "calls", "r-test", "r-read", "a3"], "tokens.messages": 15},
        {"kept_entry_ids": short.kept_entry_ids, "tokens.messages": short.tokens.messages},
        hint=(
            N_(
                "one token short: an allowance of 21 keeps [u3 ... a3] (15), and + [u2, a2] 7 = 22 "
                "does not fit; walk from the newest group, stop at the first that does not fit"
            )
        ),
    )

    for seed, (random_path, budget, estimate) in enumerate(random_paths(impl, count=60)):
        case = f"build_context(random path {seed} of {len(random_path)} entries, {budget})"
        got = expect_no_error(case, lambda p=random_path, b=budget, e=estimate: impl.build_context(
            p, **b, estimate_tokens=e))  # fmt: skip
        answers = newest_first_answers(impl, random_path, budget, estimate)
        want = matching(
            answers, lambda answer, got=got: answer.kept_entry_ids == got.kept_entry_ids
        )
        expect_values(
            case,
            {"kept_entry_ids": want.kept_entry_ids, "tokens.messages": want.messages},
            {"kept_entry_ids": got.kept_entry_ids, "tokens.messages": got.tokens.messages},
            hint=(
                N_(
                    "the kept groups are the longest run of newest groups whose costs add up to "
                    "at most the allowance (the newest always kept), summed newest group first"
                )
            ),
        )

    calls = result.messages[4]
    calls.content[0].arguments["path"] = "changed.ts"
    changed = [w["id"] for w, e in zip(before, path, strict=True) if e.to_wire() != w]
    expect(
        "after changing read-1's arguments in the returned calls message: the path",
        not changed,
        expected="the path unchanged",
        got=f"entry {shown(changed)} changed",
        hint=COPY_RULE,
    )
    by_id["calls"].message.content[1].arguments["command"] = "changed"
    expect_equal(
        "after changing test-1's arguments on the path: the returned calls message's arguments",
        {"command": "npm test -- context"},
        result.messages[4].content[1].arguments,
        hint=COPY_RULE,
    )
