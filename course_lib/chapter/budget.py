"""Lab 11.3: project an append-only path into a bounded model input, whole groups newest first.

Chapter 11 §4 「31 个 token 怎样留下第二、三组」 (how 31 tokens keep groups two and three).
``plan_budget`` is the course's ``buildContext`` step by step; the steps follow it.
"""

from collections.abc import Sequence

from course_lib.base.messages import SystemMessage
from course_lib.base.pricing import Estimator, Number, add_in_order, check_budget_number, price
from course_lib.chapter.messages import current_system_message
from course_lib.chapter.models import (
    SUMMARY_LABELS_EN,
    Budget,
    BudgetPlan,
    BuildContextResult,
    InteractionGroup,
    MessageEntry,
    Reason,
    SessionEntry,
    SummaryLabels,
    TokenProjection,
    compactions_on,
    message_entries,
    require_budget_inputs,
    user_turns,
)

from .groups import split_interactions
from .restoring import newest_compaction, restored_suffix, summary_message


def plan_budget(
    active_path: Sequence[SessionEntry],
    budget: Budget,
    estimate_tokens: Estimator,
    summary_labels: SummaryLabels = SUMMARY_LABELS_EN,
) -> BudgetPlan:
    """Every decision of one model call, in the chapter's order (§4, §6): each step is below."""
    require_budget_inputs(active_path, estimate_tokens)  # rule 1 checked the numbers (Budget)
    system = replay_system(active_path)  # rule 2: from the whole path, before a compaction too
    compactions = compactions_on(active_path)  # Lab 11.5 restores a path that holds one
    compaction = newest_compaction(active_path) if compactions else None
    candidates = active_path if compaction is None else restored_suffix(active_path, compaction)
    groups = split_interactions(message_entries(candidates))  # metadata is never grouped

    system_tokens = 0 if system is None else price(estimate_tokens, system, "system message")
    summary = None if compaction is None else summary_message(compaction, summary_labels)
    summary_tokens = (
        0 if summary is None else price(estimate_tokens, summary, "compaction summary", compactions)
    )
    group_tokens = group_costs(groups, estimate_tokens)

    available, allowance = message_allowances(budget, system_tokens, summary_tokens)
    first_kept, reason = select_newest_groups(group_tokens, allowance)
    kept_costs = group_tokens[first_kept:]
    tokens = token_projection(budget, system_tokens, summary_tokens, kept_costs, available)
    before = active_path[: len(active_path) - len(candidates)]  # what the summary stands for
    start = 1 + user_turns(before)  # groups are numbered over the whole path, as the chapter does
    return BudgetPlan(
        system, summary, summary_tokens, groups, group_tokens, first_kept, reason, tokens, start
    )


def replay_system(active_path: Sequence[SessionEntry]) -> SystemMessage | None:
    """The one system message the model sees, replayed from the *whole* path (or ``None``).

    §4 rule 2 · Lab 11.3: every system message of the path, in order, through
    ``current_system_message``.

    >>> from course_lib.chapter.fixture import chapter_fixture
    >>> replay_system(chapter_fixture()).content
    'sys'
    """
    # --- Lab 11.3 budget projection: begin ---
    return current_system_message(
        [
            entry.message
            for entry in active_path
            if isinstance(entry, MessageEntry) and isinstance(entry.message, SystemMessage)
        ]
    )
    # --- Lab 11.3: end ---


def group_costs(groups: Sequence[InteractionGroup], estimate_tokens: Estimator) -> list[Number]:
    """Each group's cost: the sum of its messages' estimates.

    §4 rule 4 · Lab 11.3. ``price(estimate_tokens, message, "interaction", n, "message", m)``
    (n, m from 1) checks each estimate and names the message in a ``BudgetError``.

    >>> from course_lib.chapter.fixture import chapter_fixture, fixture_estimator
    >>> group_costs(split_interactions(message_entries(chapter_fixture())), fixture_estimator())
    [7, 7, 15]
    """
    # --- Lab 11.3 budget projection: begin ---
    costs: list[Number] = []
    for n, group in enumerate(groups, start=1):
        cost: Number = 0
        for m, entry in enumerate(group.entries, start=1):
            cost += price(estimate_tokens, entry.message, "interaction", n, "message", m)
        costs.append(cost)
    return costs
    # --- Lab 11.3: end ---


def message_allowances(
    budget: Budget, system_tokens: Number, summary_tokens: Number = 0
) -> tuple[Number, Number]:
    """The deduction table's last column: what messages, and then groups, may use.

    §4 rule 3, §6 step 3 · Lab 11.3. ``(available_for_messages, allowance)``, never below 0:
    ``max_tokens - system - reserved_output - safety_margin``, then what the summary leaves.
    The summary is Lab 11.5's; until a compaction exists its cost is 0 (the chapter's
    ``fixedMessages`` slot, 「留给后文的压缩摘要」, is there from the start too).

    >>> message_allowances(Budget(31, 4, 2), 3)   # the chapter's table: 31 -> 28 -> 24 -> 22
    (22, 22)
    >>> message_allowances(Budget(31, 4, 2), 3, summary_tokens=5)   # after compact-1
    (22, 17)
    """
    # --- Lab 11.3 budget projection: begin ---
    available = max(
        0, budget.max_tokens - system_tokens - budget.reserved_output - budget.safety_margin
    )
    return available, max(0, available - summary_tokens)
    # --- Lab 11.3: end ---


def select_newest_groups(costs: Sequence[Number], allowance: Number) -> tuple[int, Reason]:
    """``(index of the oldest kept group, reason)``: whole groups, newest first, while they fit.

    §4 rule 4 · Lab 11.3. Stop at the first group that does not fit (``used + cost <=
    allowance`` fits). The reason: ``"single_group_overflow"`` when the newest alone is over
    (kept anyway), ``"trimmed"`` when an older group was left out, else ``"within_budget"``.

    >>> select_newest_groups([7, 7, 15], 22)   # 15 fits, +7 = 22 fits, +7 = 29 does not
    (1, 'trimmed')
    >>> select_newest_groups([7, 7, 15], 10)   # the newest group alone is over: kept whole
    (2, 'single_group_overflow')
    """
    # --- Lab 11.3 budget projection: begin ---
    if not costs:
        return 0, "within_budget"
    if costs[-1] > allowance:
        return len(costs) - 1, "single_group_overflow"
    used: Number = 0
    first = len(costs)
    while first > 0 and used + costs[first - 1] <= allowance:
        used += costs[first - 1]
        first -= 1
    return first, "trimmed" if first > 0 else "within_budget"
    # --- Lab 11.3: end ---


def token_projection(
    budget: Budget,
    system_tokens: Number,
    summary_tokens: Number,
    kept_costs: Sequence[Number],
    available_for_messages: Number,
) -> TokenProjection:
    """Where the window went: ``messages`` (the summary and the kept groups) and ``total``.

    §4 rules 4, 5 · Lab 11.3. ``total = system + messages + reserved_output + safety_margin``,
    checked with ``check_budget_number("the total of the projection", total)``.
    """
    # --- Lab 11.3 budget projection: begin ---
    messages = summary_tokens + add_in_order(reversed(kept_costs))
    total = system_tokens + messages + budget.reserved_output + budget.safety_margin
    return TokenProjection(
        max_tokens=budget.max_tokens,
        system=system_tokens,
        messages=messages,
        reserved_output=budget.reserved_output,
        safety_margin=budget.safety_margin,
        available_for_messages=available_for_messages,
        total=check_budget_number("the total of the projection", total),
    )
    # --- Lab 11.3: end ---


def context_from_plan(plan: BudgetPlan) -> BuildContextResult:
    """The model input a plan decided: ``[system?, summary?, ...kept messages]``.

    §4 rule 5 · Lab 11.3. Each kept message is a deep copy (``model_copy(deep=True)``);
    ``kept_entry_ids`` names only the kept entries.
    """
    # --- Lab 11.3 budget projection: begin ---
    head = [message for message in (plan.system_message, plan.summary) if message is not None]
    kept = [entry for group in plan.kept_groups for entry in group.entries]
    return BuildContextResult(
        messages=[*head, *(entry.message.model_copy(deep=True) for entry in kept)],
        kept_entry_ids=[entry.id for entry in kept],
        reason=plan.reason,
        tokens=plan.tokens,
    )
    # --- Lab 11.3: end ---


def build_context(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
    summary_labels: SummaryLabels = SUMMARY_LABELS_EN,
) -> BuildContextResult:
    """Project ``active_path`` (from ``path_to``) into ``[system?, summary?, ...kept messages]``.

    §4: 31 / 4 / 2 keeps 7 + 15 of 22. After ``compact-1`` (the workbook's own numbers) the
    summary's 5 is paid first and leaves 17 for the groups.

    >>> from course_lib.chapter.fixture import *
    >>> budget = dict(max_tokens=31, reserved_output=4, safety_margin=2)
    >>> result = build_context(chapter_fixture(), **budget, estimate_tokens=fixture_estimator())
    >>> result.kept_entry_ids, result.reason, result.tokens.messages, result.tokens.total
    (['u2', 'a2', 'u3', 'calls', 'r-test', 'r-read', 'a3'], 'trimmed', 22, 31)
    >>> path = chapter_fixture_after_compaction()
    >>> build_context(path, **budget, estimate_tokens=fixture_estimator()).kept_entry_ids
    ['u4', 'a4']
    """
    budget = Budget(max_tokens, reserved_output, safety_margin)  # §4 rule 1: each one checked
    return context_from_plan(plan_budget(active_path, budget, estimate_tokens, summary_labels))
