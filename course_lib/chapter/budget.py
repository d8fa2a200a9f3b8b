"""Lab 11.3: project an append-only path into a bounded model input, whole groups newest first.

Chapter 11 §4 「31 个 token 怎样留下第二、三组」 (how 31 tokens keep groups two and
three). Fixed costs come first (the replayed system message, reserved output,
safety margin); whole interaction groups fill what is left from the newest
backwards; after a compaction (Lab 11.5) its summary is paid first. History is
never changed. ``plan_budget`` is the course's ``buildContext`` step by step;
each step is a small function below it, in the order it runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from course_lib.base.messages import MessageModel, SystemMessage, UserMessage
from course_lib.base.pricing import (
    Estimator,
    Number,
    add_in_order,
    check_budget_number,
    price,
    require_estimator,
)

from .entries import CompactionEntry, MessageEntry, SessionEntry, require_session_entries
from .groups import InteractionGroup, split_interactions
from .messages import current_system_message
from .restoring import (
    SUMMARY_LABELS_EN,
    SummaryLabels,
    newest_compaction,
    restored_suffix,
    summary_message,
)

Reason = Literal["within_budget", "trimmed", "single_group_overflow"]


@dataclass(frozen=True)
class TokenProjection:
    """Where the window goes: ``total = system + messages + reserved_output + safety_margin``."""

    max_tokens: Number
    system: Number
    messages: Number
    """The summary's cost (after a compaction) plus the kept groups' costs."""
    reserved_output: Number
    safety_margin: Number
    available_for_messages: Number
    """``max(0, max_tokens - system - reserved_output - safety_margin)``, before the summary."""
    total: Number


@dataclass(frozen=True)
class BuildContextResult:
    """The model input for one call, which entries it kept, and why."""

    messages: list[MessageModel]
    """``[system?, summary?, ...kept messages]``, each a fresh copy."""
    kept_entry_ids: list[str]
    """Only original message entries: never the replayed system message or the summary."""
    reason: Reason
    tokens: TokenProjection


@dataclass(frozen=True)
class BudgetPlan:
    """Every decision ``build_context`` makes, so a view (the ledger) never re-decides one."""

    system_message: SystemMessage | None
    summary: UserMessage | None
    summary_tokens: Number
    groups: list[InteractionGroup]
    """The path's own entries: read them, never change them."""
    group_tokens: list[Number]
    first_kept_group: int
    """Index into ``groups`` of the oldest kept group; ``len(groups)`` when none is kept."""
    reason: Reason
    tokens: TokenProjection

    @property
    def kept_groups(self) -> list[InteractionGroup]:
        """The groups the model input keeps, oldest first."""
        return self.groups[self.first_kept_group :]


def plan_budget(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
    summary_labels: SummaryLabels = SUMMARY_LABELS_EN,
) -> BudgetPlan:
    """Decide what one model call keeps (given code; ``build_context``'s arguments).

    Chapter 11 §4 and §6 「恢复时把最新摘要接在保留后缀前面」. The path is grouped
    before anything is priced, then priced in the course's order: the
    replayed system message, the summary, every candidate message.
    """
    kinds = require_session_entries(active_path)
    check_budget_numbers(max_tokens, reserved_output, safety_margin)
    require_estimator(estimate_tokens)

    # Lab 11.5: the newest compaction stands in for the path before its first kept entry.
    has_compaction = any(issubclass(kind, CompactionEntry) for kind in kinds)
    compaction = newest_compaction(active_path) if has_compaction else None
    candidates = active_path if compaction is None else restored_suffix(active_path, compaction)

    # Lab 11.2: whole interactions of the candidate message entries (metadata left out).
    if kinds != {MessageEntry}:  # (a path of messages only has nothing to leave out)
        candidates = [entry for entry in candidates if isinstance(entry, MessageEntry)]
    groups = split_interactions(candidates)

    # Price: the system state of the whole path, the summary, then every group.
    system = replay_system(active_path)
    system_tokens = (
        0 if system is None else price(estimate_tokens, system, "replayed system message")
    )
    summary: UserMessage | None = None
    summary_tokens: Number = 0
    if compaction is not None:  # Lab 11.5: the summary is priced after the system message
        summary = summary_message(compaction, summary_labels)
        summary_tokens = price(estimate_tokens, summary, f"summary message of {compaction.id}")
    group_tokens = group_costs(groups, estimate_tokens)

    # Deduct, then select whole groups newest first.
    available, allowance = message_allowances(
        max_tokens, system_tokens, reserved_output, safety_margin, summary_tokens
    )
    first_kept, reason = select_newest_groups(group_tokens, allowance)
    tokens = token_projection(
        max_tokens=max_tokens,
        system_tokens=system_tokens,
        summary_tokens=summary_tokens,
        kept_costs=group_tokens[first_kept:],
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        available_for_messages=available,
    )
    return BudgetPlan(
        system, summary, summary_tokens, groups, group_tokens, first_kept, reason, tokens
    )


def check_budget_numbers(
    max_tokens: Number, reserved_output: Number, safety_margin: Number
) -> None:
    """Refuse a budget number that is not a finite number >= 0, naming it.

    Chapter 11 §4 「31 个 token 怎样留下第二、三组」, rule 1 · Lab 11.3.
    Check each with ``check_budget_number(name, value)`` (base layer).

    Raises:
        BudgetError: ``max_tokens must be a finite number >= 0, got -1``.
    """
    # --- Lab 11.3 budget projection: begin ---
    check_budget_number("max_tokens", max_tokens)
    check_budget_number("reserved_output", reserved_output)
    check_budget_number("safety_margin", safety_margin)
    # --- Lab 11.3: end ---


def replay_system(active_path: Sequence[SessionEntry]) -> SystemMessage | None:
    """The one system message the model sees, replayed from the *whole* path.

    Chapter 11 §4 「31 个 token 怎样留下第二、三组」, rule 2 · Lab 11.3.
    System messages are prompt state, not conversation: pass the message of
    every message entry whose role is ``"system"``, in path order and from the
    whole path (after a compaction, the part before it too), to
    ``current_system_message``.

    Returns:
        The replayed system message, or ``None`` without one.

    >>> from course_lib.chapter.fixture import chapter_fixture
    >>> replay_system(chapter_fixture()).content
    'sys'
    """
    # --- Lab 11.3 budget projection: begin ---
    return current_system_message(
        [
            entry.message
            for entry in active_path
            if type(entry) is MessageEntry and type(entry.message) is SystemMessage
        ]
    )
    # --- Lab 11.3: end ---


def group_costs(groups: Sequence[InteractionGroup], estimate_tokens: Estimator) -> list[Number]:
    """Each group's cost: its messages' estimates, added left to right in path order from 0.

    Chapter 11 §4 「31 个 token 怎样留下第二、三组」, rule 4 · Lab 11.3.
    Price each message with ``price(estimate_tokens, entry.message, "message
    entry", entry.id)`` (base layer: it checks the estimate, names the entry in
    an error and never lets the estimator change the path). Adding in the
    course's order gives float costs the same bits.

    Returns:
        One cost per group, oldest first.

    Raises:
        BudgetError: an estimate that is not a finite number >= 0.

    >>> from course_lib.chapter.fixture import chapter_fixture, fixture_estimator
    >>> from course_lib.chapter.groups import split_interactions
    >>> group_costs(split_interactions(chapter_fixture()), fixture_estimator())
    [7, 7, 15]
    """
    # --- Lab 11.3 budget projection: begin ---
    costs: list[Number] = []
    for group in groups:
        cost: Number = 0
        for entry in group.entries:
            cost += price(estimate_tokens, entry.message, "message entry", entry.id)
        costs.append(cost)
    return costs
    # --- Lab 11.3: end ---


def message_allowances(
    max_tokens: Number,
    system_tokens: Number,
    reserved_output: Number,
    safety_margin: Number,
    summary_tokens: Number = 0,
) -> tuple[Number, Number]:
    """The deduction table's last column: what messages, and then groups, may use.

    Chapter 11 §4 「31 个 token 怎样留下第二、三组」, rule 3, and §6 step 3 · Lab 11.3.

    Returns:
        ``(available_for_messages, allowance)``, never below 0:
        ``max_tokens - system - reserved_output - safety_margin``, and what is
        left of it for the groups once the summary (after a compaction) is paid.

    >>> message_allowances(31, 3, 4, 2)   # the chapter's deduction table: 31 -> 28 -> 24 -> 22
    (22, 22)
    >>> message_allowances(31, 3, 4, 2, summary_tokens=5)   # after compact-1
    (22, 17)
    """
    # --- Lab 11.3 budget projection: begin ---
    available = max(0, max_tokens - system_tokens - reserved_output - safety_margin)
    return available, max(0, available - summary_tokens)
    # --- Lab 11.3: end ---


def select_newest_groups(costs: Sequence[Number], allowance: Number) -> tuple[int, Reason]:
    """Take whole groups from the newest backwards while they fit; the newest is always taken.

    Chapter 11 §4 「31 个 token 怎样留下第二、三组」, rule 4 · Lab 11.3.
    ``costs`` are oldest first. A group is kept while ``used + cost <=
    allowance`` (an exact fit is kept); stop at the first that does not fit,
    never skipping it to take an older one.

    Returns:
        ``(index of the oldest kept group, reason)``: ``"single_group_overflow"``
        when the newest group alone is over (still kept, whole), ``"trimmed"``
        when an older group was left out, else ``"within_budget"`` (also for no groups).

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
    *,
    max_tokens: Number,
    system_tokens: Number,
    summary_tokens: Number,
    kept_costs: Sequence[Number],
    reserved_output: Number,
    safety_margin: Number,
    available_for_messages: Number,
) -> TokenProjection:
    """Where the window went: the ``tokens`` of the result.

    Chapter 11 §4 「31 个 token 怎样留下第二、三组」, rules 4 and 5 · Lab 11.3.
    ``messages`` is the summary's cost plus the kept groups' costs added
    newest first (``add_in_order(reversed(kept_costs))``, the course's order);
    ``total = system + messages + reserved_output + safety_margin``.

    Raises:
        BudgetError: a total that reaches infinity, from
            ``check_budget_number("the total of the projection", total)``.
    """
    # --- Lab 11.3 budget projection: begin ---
    messages = summary_tokens + add_in_order(reversed(kept_costs))
    total = system_tokens + messages + reserved_output + safety_margin
    return TokenProjection(
        max_tokens=max_tokens,
        system=system_tokens,
        messages=messages,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        available_for_messages=available_for_messages,
        total=check_budget_number("the total of the projection", total),
    )
    # --- Lab 11.3: end ---


def context_from_plan(plan: BudgetPlan) -> BuildContextResult:
    """The model input a plan decided: ``[system?, summary?, ...kept messages]``, all fresh.

    Chapter 11 §4 「31 个 token 怎样留下第二、三组」, rule 5 · Lab 11.3.
    After the plan's system message and summary (when it has them) comes the
    message of every entry of the kept groups, in path order, each a deep copy
    (``model_copy(deep=True)``): changing the result never changes the path.
    ``kept_entry_ids`` names only those entries.
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

    Chapter 11 §4 「31 个 token 怎样留下第二、三组」 (how 31 tokens keep groups two and three).

    Args:
        max_tokens, reserved_output, safety_margin: the window; finite and >= 0.
        estimate_tokens: ``(str | message) -> number``; it sees copies, never the
            path's own objects, unless marked ``reads_only``.
        summary_labels: the summary's labels after a compaction (``SUMMARY_LABELS_ZH``).

    Raises:
        BudgetError, InteractionError, CompactionError, SessionEntryError.

    The chapter's worked example, 31 / 4 / 2 on the ten-entry fixture:

    >>> from course_lib.chapter.fixture import chapter_fixture, fixture_estimator
    >>> result = build_context(chapter_fixture(), max_tokens=31, reserved_output=4,
    ...                        safety_margin=2, estimate_tokens=fixture_estimator())
    >>> result.kept_entry_ids, result.reason
    (['u2', 'a2', 'u3', 'calls', 'r-test', 'r-read', 'a3'], 'trimmed')
    >>> result.tokens.available_for_messages, result.tokens.messages, result.tokens.total
    (22, 22, 31)
    """
    plan = plan_budget(
        active_path,
        max_tokens=max_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        estimate_tokens=estimate_tokens,
        summary_labels=summary_labels,
    )
    return context_from_plan(plan)
