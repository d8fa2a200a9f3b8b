"""The transfer exercise: a per-group budget ledger that agrees with ``build_context``.

Chapter 11 §8 「可选迁移练习」 (the optional transfer exercise). The ledger
re-decides nothing: it reads the plan ``build_context`` follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from course_lib.base.pricing import Estimator, Number

from .budget import BudgetPlan, plan_budget
from .entries import SessionEntry

LedgerStatus = Literal["kept", "trimmed", "overflow"]


@dataclass(frozen=True)
class LedgerRow:
    """One interaction group: its ids, its cost and whether the budget kept it."""

    group: int  # 1-based, oldest first
    entry_ids: list[str]
    tokens: Number
    status: LedgerStatus


def budget_ledger(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
) -> list[LedgerRow]:
    """One row per group ``build_context`` considers, so a reader sees why each was kept."""
    plan = plan_budget(
        active_path,
        max_tokens=max_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        estimate_tokens=estimate_tokens,
    )
    return ledger_from_plan(plan)


def ledger_from_plan(plan: BudgetPlan) -> list[LedgerRow]:
    """The ledger of a plan already made: nothing is priced or decided again.

    Chapter 11 §8 「可选迁移练习」 (the optional transfer exercise) · transfer.
    One ``LedgerRow`` per group of ``plan.groups`` (after a compaction: those
    from the first kept entry on; the summary is not a row), numbered from 1:
    the group's ids, its cost from ``plan.group_tokens`` (call no estimator),
    and ``"trimmed"`` before ``plan.first_kept_group``, else ``"kept"``, or
    ``"overflow"`` for the kept group of a ``"single_group_overflow"`` plan.

    Returns:
        The rows, oldest group first.

    >>> from course_lib.chapter.fixture import chapter_fixture, fixture_estimator
    >>> plan = plan_budget(chapter_fixture(), max_tokens=31, reserved_output=4, safety_margin=2,
    ...                    estimate_tokens=fixture_estimator())
    >>> [(row.group, row.tokens, row.status) for row in ledger_from_plan(plan)]
    [(1, 7, 'trimmed'), (2, 7, 'kept'), (3, 15, 'kept')]
    """
    # --- Lab transfer budget ledger: begin ---
    rows: list[LedgerRow] = []
    for index, (group, tokens) in enumerate(zip(plan.groups, plan.group_tokens, strict=True)):
        status: LedgerStatus = "kept" if index >= plan.first_kept_group else "trimmed"
        if status == "kept" and plan.reason == "single_group_overflow":
            status = "overflow"
        rows.append(
            LedgerRow(group=index + 1, entry_ids=group.entry_ids, tokens=tokens, status=status)
        )
    return rows
    # --- Lab transfer: end ---
