"""The transfer exercise: a per-group budget ledger that agrees with ``build_context``.

Chapter 11 §8 「可选迁移练习」 (the optional transfer exercise): it re-decides nothing.
"""

from collections.abc import Sequence

from course_lib.base.pricing import Estimator, Number
from course_lib.chapter.models import Budget, BudgetPlan, LedgerRow, LedgerStatus, SessionEntry

from .budget import plan_budget


def budget_ledger(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
) -> list[LedgerRow]:
    """One row per group ``build_context`` considers, so a reader sees why each was kept."""
    budget = Budget(max_tokens, reserved_output, safety_margin)
    return ledger_from_plan(plan_budget(active_path, budget, estimate_tokens))


def ledger_from_plan(plan: BudgetPlan) -> list[LedgerRow]:
    """The ledger of a plan already made: nothing is priced or decided again.

    §8 · transfer. One ``LedgerRow`` per group of ``plan.groups``, oldest first, numbered as
    the chapter counts groups (the first is ``plan.first_group_number``), its cost read from
    ``plan.group_tokens``. Its status (``"kept"``, ``"trimmed"`` or ``"overflow"``) must agree
    with what ``context_from_plan`` keeps of the same plan: find the fields that decide it.

    >>> from course_lib.chapter.fixture import chapter_fixture, fixture_estimator
    >>> plan = plan_budget(chapter_fixture(), Budget(31, 4, 2), fixture_estimator())
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
            LedgerRow(
                group=plan.first_group_number + index,
                entry_ids=group.entry_ids,
                tokens=tokens,
                status=status,
            )
        )
    return rows
    # --- Lab transfer: end ---
