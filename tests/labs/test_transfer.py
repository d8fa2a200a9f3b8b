"""The transfer exercise — a per-group budget ledger that agrees with ``build_context`` (3 checks).

``course-lab check transfer --impl DIR`` runs these against the practice
package's ``ledger.py``; they are not part of the chapter's 15 checks.
``tests/chapter/test_ledger.py`` is the wider suite (``check transfer --extended``).
Chapter section 8 asks for the fixture's three groups, the newest tool group
overflowing and a single group with no tools; the last check also covers a
path after a compaction, and compares every row with the build it describes.
"""

from __future__ import annotations

from functools import partial
from types import ModuleType
from typing import Any

import pytest
from lab_checks import N_, expect, expect_equal, expect_no_error, same_value, shown
from path_oracle import groups_of, matching, newest_first_answers, random_paths

pytestmark = pytest.mark.transfer

BUDGET = "reserved_output=4, safety_margin=2"
STATUS_RULE = N_(
    "status: trimmed before plan.first_kept_group, kept from it on, and overflow for the kept "
    "group of a single_group_overflow plan"
)
GROUP_3 = ["u3", "calls", "r-test", "r-read", "a3"]


def ledger(impl: ModuleType, path: list, max_tokens: int) -> Any:
    return impl.budget_ledger(
        path,
        max_tokens=max_tokens,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )


def build(impl: ModuleType, path: list, max_tokens: int) -> Any:
    return impl.build_context(
        path,
        max_tokens=max_tokens,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )


def as_tuples(rows: list) -> list[tuple[int, list[str], Any, str]]:
    """Rows as ``(group, entry_ids, tokens, status)``: what a message shows of each."""
    return [(row.group, row.entry_ids, row.tokens, row.status) for row in rows]


def row_text(row: tuple[Any, ...]) -> str:
    """``(1, [u1, a1], 7, trimmed)``: one row, without the quotes of its repr."""
    return "(" + ", ".join(shown(value) for value in row) + ")"


def expect_rows(
    case: str, expected: list[tuple[Any, ...]], actual: list[tuple[Any, ...]], *, hint: str
) -> None:
    """Compare ledger rows one by one; the message names the first row that differs."""
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        expect(
            f"{case}: row {index + 1}",
            same_value(want, got),
            expected=row_text(want),
            got=row_text(got),
            hint=hint,
        )
    expect_equal(f"{case}: number of rows", len(expected), len(actual), hint=hint)


def two_message_path(impl: ModuleType) -> list:
    """A single interaction with no tools: a system message, one question, one answer."""
    system, question = impl.chapter_fixture()[:2]
    answer = impl.MessageEntry(
        id="answer",
        parent_id=question.id,
        timestamp=3,
        message=impl.assistant_message("Only the selected branch is restored.", timestamp=3),
    )
    return [system, question, answer]


def test_ledger_reports_each_fixture_group_with_its_cost_and_status(impl: ModuleType) -> None:
    path = impl.chapter_fixture()
    case = f"budget_ledger(fixture, max_tokens=31, {BUDGET})"
    rows = expect_no_error(case, lambda: ledger(impl, path, 31), expected="three rows")
    expect_rows(
        f"{case}: (group, entry_ids, tokens, status)",
        [
            (1, ["u1", "a1"], 7, "trimmed"),
            (2, ["u2", "a2"], 7, "kept"),
            (3, GROUP_3, 15, "kept"),
        ],
        as_tuples(rows),
        hint=N_(
            "status: trimmed before plan.first_kept_group, kept from it on, and overflow for "
            "the kept group of a single_group_overflow plan; build_context keeps u2 onwards "
            "here"
        ),
    )

    case = f"budget_ledger(fixture, max_tokens=40, {BUDGET})"
    rows = expect_no_error(case, lambda: ledger(impl, path, 40), expected="three rows")
    expect_equal(
        f"{case}: statuses",
        ["kept", "kept", "kept"],
        [row.status for row in rows],
        hint=N_("every group fits 40 - 3 - 4 - 2 = 31, so every row is kept"),
    )


def test_an_overflowing_newest_group_and_a_group_without_tools(impl: ModuleType) -> None:
    case = f"budget_ledger(fixture, max_tokens=19, {BUDGET})"
    rows = expect_no_error(case, lambda: ledger(impl, impl.chapter_fixture(), 19))
    expect_rows(
        f"{case}: (group, entry_ids, tokens, status)",
        [
            (1, ["u1", "a1"], 7, "trimmed"),
            (2, ["u2", "a2"], 7, "trimmed"),
            (3, GROUP_3, 15, "overflow"),
        ],
        as_tuples(rows),
        hint=N_(
            "the newest group (15) is kept alone over the allowance of 10: "
            "build_context says single_group_overflow, so its row is overflow"
        ),
    )

    path = two_message_path(impl)
    for max_tokens, status in [(100, "kept"), (8, "overflow")]:
        case = f"budget_ledger(sys, u1, answer: one group, no tools, max_tokens={max_tokens})"
        rows = expect_no_error(case, lambda m=max_tokens: ledger(impl, path, m))
        expect_rows(
            f"{case}: (group, entry_ids, status)",
            [(1, ["u1", "answer"], status)],
            [(row.group, row.entry_ids, row.status) for row in rows],
            hint=STATUS_RULE,
        )


def test_ledger_agrees_with_build_context_also_after_a_compaction(impl: ModuleType) -> None:
    path = impl.chapter_fixture_after_compaction()
    case = f"budget_ledger(fixture after compact-1, max_tokens=31, {BUDGET})"
    rows = expect_no_error(case, lambda: ledger(impl, path, 31), expected="three rows")
    expect_rows(
        f"{case}: (group, entry_ids, tokens, status)",
        [
            (2, ["u2", "a2"], 7, "trimmed"),
            (3, GROUP_3, 15, "trimmed"),
            (4, ["u4", "a4"], 7, "kept"),
        ],
        as_tuples(rows),
        hint=N_(
            "after a compaction the rows are the groups from its first kept entry (u2) on, "
            "numbered as the chapter counts them over the whole path (u2 opens group 2, "
            "plan.first_group_number); the summary (5) is paid first and is not a row"
        ),
    )

    for name, path in [
        ("fixture", impl.chapter_fixture()),
        ("fixture after compact-1", impl.chapter_fixture_after_compaction()),
    ]:
        for max_tokens in range(0, 45):
            case = f"budget_ledger and build_context({name}, max_tokens={max_tokens}, {BUDGET})"
            rows = expect_no_error(case, lambda m=max_tokens, p=path: ledger(impl, p, m))
            result = build(impl, path, max_tokens)
            kept = [
                entry_id for row in rows if row.status != "trimmed" for entry_id in row.entry_ids
            ]
            expect_equal(
                f"{case}: ids of the rows not trimmed",
                result.kept_entry_ids,
                kept,
                hint=N_("the ledger reads the plan build_context follows; it never re-decides"),
            )
            overflow = [index for index, row in enumerate(rows, 1) if row.status == "overflow"]
            expect_equal(
                f"{case}: overflow rows (build_context's reason: {result.reason})",
                [len(rows)] if result.reason == "single_group_overflow" else [],
                overflow,
                hint=STATUS_RULE,
            )

    plan = impl.plan_budget(path, impl.Budget(31, 4, 2), impl.fixture_estimator())
    expect_rows(
        "ledger_from_plan(plan_budget(fixture after compact-1, Budget(31, 4, 2), ...))",
        as_tuples(ledger(impl, path, 31)),
        as_tuples(impl.ledger_from_plan(plan)),
        hint=N_(
            "budget_ledger is ledger_from_plan of the same plan; one row per plan group, "
            "oldest first, numbered as the chapter counts groups (from "
            "plan.first_group_number: 1, or 2 after compact-1), with its ids and its cost"
        ),
    )
    _random_paths_ledger_as_the_oracle_says(impl)


def _random_paths_ledger_as_the_oracle_says(impl: ModuleType) -> None:
    """Beyond the fixture: one row per group of a seeded path, status by suffix sums."""
    for number, (path, budget, estimate) in enumerate(random_paths(impl, count=60)):
        case = f"budget_ledger(random path {number}, {budget})"
        rows = expect_no_error(
            case, partial(impl.budget_ledger, path, **budget, estimate_tokens=estimate)
        )
        groups = groups_of(path)
        got = [(row.group, row.entry_ids, row.status) for row in rows]
        choices = [
            [
                (
                    index + 1,
                    [entry.id for entry in group],
                    "trimmed"
                    if group[0].id not in answer.kept_entry_ids
                    else ("overflow" if answer.overflow else "kept"),
                )
                for index, group in enumerate(groups)
            ]
            for answer in newest_first_answers(impl, path, budget, estimate)
        ]
        expect_rows(
            f"{case}: (group, entry_ids, status)",
            matching(choices, lambda expected, got=got: expected == got),
            got,
            hint=STATUS_RULE,
        )
