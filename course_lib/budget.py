"""Labs 11.3 and 11.5: project an append-only path into a bounded model input.

Fixed costs come first (replayed system message, reserved output, safety
margin); what is left is the message allowance. A compaction's summary is
paid from that allowance, and the rest goes to whole interaction groups,
newest first. History is never changed: the result is a fresh view of it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from .entries import CompactionEntry, MessageEntry, SessionEntry, require_session_entries
from .errors import BudgetError, CompactionError
from .groups import InteractionGroup, split_interactions
from .messages import MessageModel, SystemMessage, UserMessage, current_system_message
from .pricing import Estimator, Number, is_read_only
from .summary import summary_message
from .wire import MAX_SAFE_INTEGER

__all__ = [
    "Budget",
    "BudgetPlan",
    "BuildContextResult",
    "Estimator",
    "Reason",
    "TokenProjection",
    "add_in_order",
    "build_context",
    "context_from_plan",
    "plan_budget",
    "plan_for",
]

Reason = Literal["within_budget", "trimmed", "single_group_overflow"]


@dataclass(frozen=True)
class Budget:
    """The three numbers of one model call's window, as one value a view can pass around.

    ``build_context`` keeps its keyword API (``max_tokens=…``); tools and
    explorers that plan many times carry a ``Budget`` instead of three loose
    numbers. The numbers are checked where they are used, by ``plan_budget``.
    """

    max_tokens: Number
    reserved_output: Number = 0
    safety_margin: Number = 0

    def keywords(self) -> dict[str, Number]:
        """``{"max_tokens": …, "reserved_output": …, "safety_margin": …}`` for the keyword API."""
        return {
            "max_tokens": self.max_tokens,
            "reserved_output": self.reserved_output,
            "safety_margin": self.safety_margin,
        }


@dataclass(frozen=True)
class TokenProjection:
    """Where the window goes: ``total = system + messages + reserved_output + safety_margin``."""

    max_tokens: Number
    system: Number
    messages: Number
    reserved_output: Number
    safety_margin: Number
    available_for_messages: Number
    total: Number


@dataclass(frozen=True)
class BuildContextResult:
    """The model input for one call, which entries it kept, and why."""

    messages: list[MessageModel]
    kept_entry_ids: list[str]
    reason: Reason
    tokens: TokenProjection


@dataclass(frozen=True)
class BudgetPlan:
    """Every decision ``build_context`` makes, so views (the ledger) never re-decide them.

    Plan once, then derive: ``context_from_plan(plan)`` is the model input and
    ``ledger_from_plan(plan)`` the ledger, so a tool that shows both prices
    every message once.

    ``groups`` hold the path's own entries (nothing is copied to decide): read
    them, never change them; ``build_context`` copies what it returns.
    """

    system_message: SystemMessage | None
    summary: UserMessage | None
    summary_tokens: Number
    groups: list[InteractionGroup]
    group_tokens: list[Number]
    first_kept_group: int  # index into ``groups``; == len(groups) when none is kept
    reason: Reason
    tokens: TokenProjection

    @property
    def kept_groups(self) -> list[InteractionGroup]:
        return self.groups[self.first_kept_group :]


def _check_budget_number(name: str, value: object) -> Number:
    """A budget number or estimate must be finite, >= 0 and, if an int, within 2**53 - 1."""
    if type(value) is int and 0 <= value <= MAX_SAFE_INTEGER:
        return value  # the common case, decided without the checks below
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BudgetError(f"{name} must be a finite number >= 0, got {_shown(value)}")
    if isinstance(value, int) and value > MAX_SAFE_INTEGER:
        raise BudgetError(f"{name} must be at most 2**53 - 1 (9007199254740991), got a larger int")
    if not math.isfinite(value) or value < 0:
        raise BudgetError(f"{name} must be a finite number >= 0, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    """The value as a short repr: a huge int or a long string must not flood the message."""
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 200 else "a huge int"
    return text if len(text) <= 80 else text[:77] + "..."


def add_in_order(costs: Iterable[Number]) -> Number:
    """Add ``costs`` left to right from 0, as the TypeScript course's ``reduce`` does.

    Python's ``sum`` may compensate float rounding (3.12+), which gives other
    bits than the course for costs such as 0.1 + 0.2 + 0.3.
    """
    total: Number = 0
    for cost in costs:
        total += cost
    return total


def _price(estimate_tokens: Estimator, message: MessageModel, label: str) -> Number:
    """Ask the estimator about a copy of ``message``, so it can never change the path.

    An estimator marked ``reads_only`` (the ones this package ships) is given
    the message itself: it cannot change it, and the copy would cost as much
    as the pricing.
    """
    priced = message if is_read_only(estimate_tokens) else message.model_copy(deep=True)
    return _check_budget_number(f"estimate_tokens result for {label}", estimate_tokens(priced))


def _group_costs(estimate_tokens: Estimator, groups: list[InteractionGroup]) -> list[Number]:
    """Each group costs the sum of its messages, added in path order as the course adds them.

    The same rule as ``_price``, unrolled: this loop runs once per message of
    the path, so the label of an error is only written when there is one.
    """
    read_only = is_read_only(estimate_tokens)
    costs: list[Number] = []
    for group in groups:
        cost: Number = 0
        for entry in group.entries:
            message = entry.message
            tokens = estimate_tokens(message if read_only else message.model_copy(deep=True))
            if type(tokens) is not int or not 0 <= tokens <= MAX_SAFE_INTEGER:
                _check_budget_number(f"estimate_tokens result for message entry {entry.id}", tokens)
            cost += tokens
        if type(cost) is not int or cost > MAX_SAFE_INTEGER:
            _check_budget_number(f"the cost of the group starting at {group.entries[0].id}", cost)
        costs.append(cost)
    return costs


def _system_messages(
    entries: Sequence[SessionEntry], count: int | None = None
) -> list[SystemMessage]:
    """The system messages among ``entries``, in path order; the search stops after ``count``.

    Why a count: ``split_interactions`` skips system messages, so the message
    entries no group holds are exactly the system messages. Knowing how many
    there are, the search stops at the last one (on a real path, near its
    start) instead of walking a long path a second time.
    """
    found: list[SystemMessage] = []
    if count == 0:
        return found
    for entry in entries:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, SystemMessage):
            found.append(entry.message)
            if len(found) == count:
                break
    return found


def _newest_compaction(active_path: Sequence[SessionEntry]) -> CompactionEntry | None:
    """The last compaction on the path: older summaries are never sent again."""
    # --- Lab 11.5 resume compaction: begin ---
    for entry in reversed(active_path):
        if isinstance(entry, CompactionEntry):
            return entry
    return None
    # --- Lab 11.5: end ---


def _restored_suffix(
    active_path: Sequence[SessionEntry], compaction: CompactionEntry
) -> Sequence[SessionEntry]:
    """The path from the compaction's first kept entry on (that entry must be a user message).

    The rule the Lab 11.5 checks hold you to: the first kept id must name a
    *user message entry* lying *before the compaction* on the path. An id not
    on the path, an assistant or system message (``a2``, ``sys``), a metadata
    entry or an entry after the compaction (``u4``) is a ``CompactionError``
    naming the compaction and the first kept id:
    ``compaction compact-1: first kept entry 'a2' is not a user message entry
    before it on the path``. Checking only that the id exists is not enough.
    """
    # --- Lab 11.5 resume compaction: begin ---
    position = {entry.id: index for index, entry in enumerate(active_path)}
    first_kept = compaction.first_kept_entry_id
    index = position.get(first_kept)
    first = None if index is None else active_path[index]
    if (
        index is None
        or index > position[compaction.id]
        or not isinstance(first, MessageEntry)
        or not isinstance(first.message, UserMessage)
    ):
        raise CompactionError(
            f"compaction {compaction.id}: first kept entry {first_kept!r} "
            "is not a user message entry before it on the path"
        )
    return active_path[index:]
    # --- Lab 11.5: end ---


def _resume_from_newest_compaction(
    active_path: Sequence[SessionEntry],
) -> tuple[Sequence[SessionEntry], CompactionEntry | None]:
    """Lab 11.5: the part of the path to group, and the compaction that stands in for the rest.

    Only the part of the path from the newest compaction's first kept entry on
    is grouped, so a prefix that was already summarised can never break the
    build. Nothing is priced here: the summary is priced by ``_priced_summary``
    once the path has grouped cleanly.

    Returns ``(active_path, None)`` when the path holds no compaction.
    Otherwise the suffix from the newest compaction's (``_newest_compaction``)
    first kept entry (``_restored_suffix``), and that compaction.
    """
    # --- Lab 11.5 resume compaction: begin ---
    compaction = _newest_compaction(active_path)
    if compaction is None:
        return active_path, None
    return _restored_suffix(active_path, compaction), compaction
    # --- Lab 11.5: end ---


def _priced_summary(
    compaction: CompactionEntry, estimate_tokens: Estimator
) -> tuple[UserMessage, Number]:
    """Lab 11.5: the summary message that replaces what ``compaction`` summarised, and its cost.

    Priced once, after the replayed system message and before any group (the
    course's order), with ``_price(estimate_tokens, summary, f"summary message
    of {compaction.id}")`` so a bad estimate names it.
    """
    # --- Lab 11.5 resume compaction: begin ---
    summary = summary_message(compaction)
    return summary, _price(estimate_tokens, summary, f"summary message of {compaction.id}")
    # --- Lab 11.5: end ---


def _select_newest_groups(costs: list[Number], allowance: Number) -> tuple[int, Reason]:
    """Take whole groups from the newest backwards while they fit.

    The newest group is always taken, even alone over the allowance.
    Returns the index of the first kept group and the reason.

    The rules the Lab 11.3 checks hold you to: ``costs`` are oldest first,
    so walk from the end; a group is kept while ``used + cost <= allowance``
    (a group that fits exactly is kept: with 22 left, 15 + 7 = 22 keeps two
    groups); stop at the first group that does not fit, never skipping one
    to take an older one. Reasons: ``"single_group_overflow"`` when the newest
    group alone is over the allowance (it is still kept, whole),
    ``"trimmed"`` when an older group was left out, else ``"within_budget"``
    (also for no groups at all: ``(0, "within_budget")``).
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


def plan_budget(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
) -> BudgetPlan:
    """Decide what a model call keeps; ``build_context`` and ``budget_ledger`` both read this.

    Lab 11.3 writes the fixed costs and the selection; Lab 11.5 plugs in
    between them, so a path with a compaction reuses the same selection.
    The path is grouped, then priced: nothing is priced until it has grouped
    cleanly, and then in the course's order (the replayed system message, the
    summary, every candidate message in path order).
    """
    kinds = require_session_entries(active_path)
    # Part 1: the four numbers of the deduction table must each be finite and >= 0.
    # Check the three you are given (max_tokens, reserved_output, safety_margin)
    # with ``_check_budget_number(name, value)``, whose BudgetError names the number.
    # --- Lab 11.3 budget projection: begin ---
    _check_budget_number("max_tokens", max_tokens)
    _check_budget_number("reserved_output", reserved_output)
    _check_budget_number("safety_margin", safety_margin)
    # --- Lab 11.3: end ---

    # Lab 11.5 takes part only when the path holds a compaction: it returns the
    # entries to group (from its first kept entry on) and the compaction itself.
    if any(issubclass(kind, CompactionEntry) for kind in kinds):
        candidates, compaction = _resume_from_newest_compaction(active_path)
    else:
        candidates, compaction = active_path, None

    # Part 2: group first. Group the message entries of ``candidates`` (skip metadata
    # and compaction entries) with ``split_interactions``. System messages are prompt
    # state of the *whole* path: those before ``candidates`` (none without a compaction)
    # and those among the message entries, which are the ones no group holds, so count
    # them and let ``_system_messages`` stop at the last. Then price: replay them into
    # ``system`` (``current_system_message``) and price it as ``system_tokens``, the
    # fourth number, with ``_price(estimate_tokens, system, "replayed system message")``,
    # which checks the estimate and names that message; 0 without one.
    # --- Lab 11.3 budget projection: begin ---
    if kinds == {MessageEntry}:  # a path of messages only: nothing to leave out
        message_entries = candidates
    else:
        message_entries = [entry for entry in candidates if isinstance(entry, MessageEntry)]
    groups = split_interactions(message_entries)  # the path's own entries: nothing copied yet
    not_grouped = len(message_entries) - sum(len(group.entries) for group in groups)
    summarised = active_path[: len(active_path) - len(candidates)]  # empty without a compaction
    system_messages = _system_messages(summarised) + _system_messages(message_entries, not_grouped)
    system = current_system_message(system_messages)
    system_tokens = _price(estimate_tokens, system, "replayed system message") if system else 0
    # --- Lab 11.3: end ---

    # Lab 11.5 again: the summary is priced after the system message, before any group.
    summary: UserMessage | None = None
    summary_tokens: Number = 0
    if compaction is not None:
        summary, summary_tokens = _priced_summary(compaction, estimate_tokens)

    # Part 3: cost each group with ``_group_costs`` (a bad estimate names "message
    # entry <id>"), then:
    #   available_for_messages = max(0, max_tokens - system_tokens - reserved_output
    #                                - safety_margin)   (never negative)
    #   allowance = max(0, available_for_messages - summary_tokens)   (summary paid first)
    # keep whole groups newest first (``_select_newest_groups``); tokens.messages =
    # summary_tokens + the kept groups' costs added newest group first
    # (``add_in_order``, the course's order, so float costs give the same bits);
    # total = system + messages + reserved_output + safety_margin, checked with
    # ``_check_budget_number``. Return the ``BudgetPlan`` (groups hold the path's
    # own entries: nothing is copied to decide).
    # --- Lab 11.3 budget projection: begin ---
    group_tokens = _group_costs(estimate_tokens, groups)

    available = max(0, max_tokens - system_tokens - reserved_output - safety_margin)
    allowance = max(0, available - summary_tokens)  # the summary is paid first, never below 0
    first_kept, reason = _select_newest_groups(group_tokens, allowance)
    # Summary first, then the kept groups newest first: the course's order, so floats agree.
    messages_tokens = summary_tokens + add_in_order(reversed(group_tokens[first_kept:]))
    tokens = TokenProjection(
        max_tokens=max_tokens,
        system=system_tokens,
        messages=messages_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        available_for_messages=available,
        total=system_tokens + messages_tokens + reserved_output + safety_margin,
    )
    _check_budget_number("the total of the projection", tokens.total)  # huge floats reach inf
    return BudgetPlan(
        system_message=system,
        summary=summary,
        summary_tokens=summary_tokens,
        groups=groups,
        group_tokens=group_tokens,
        first_kept_group=first_kept,
        reason=reason,
        tokens=tokens,
    )
    # --- Lab 11.3: end ---


def plan_for(
    active_path: Sequence[SessionEntry], budget: Budget, estimate_tokens: Estimator
) -> BudgetPlan:
    """``plan_budget`` with the three numbers taken from one ``Budget`` value."""
    return plan_budget(active_path, **budget.keywords(), estimate_tokens=estimate_tokens)


def build_context(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
) -> BuildContextResult:
    """Project ``active_path`` into ``[system?, summary?, ...kept messages]`` within the budget.

    The caller gets ``active_path`` from ``path_to``. Messages are deep copies;
    ``kept_entry_ids`` names only original message entries.
    """
    plan = plan_budget(
        active_path,
        max_tokens=max_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        estimate_tokens=estimate_tokens,
    )
    return context_from_plan(plan)


def context_from_plan(plan: BudgetPlan) -> BuildContextResult:
    """The model input a plan decided: ``[system?, summary?, ...kept messages]``, all fresh copies.

    The rules the checks hold you to: ``messages`` starts with the replayed
    system message and the summary when the plan has them, then every entry
    of the kept groups in path order, each message a deep copy
    (``model_copy(deep=True)``) so that changing the result never changes the
    path, nor the other way round; ``kept_entry_ids`` names only those kept
    entries (never the system message, never the summary).
    """
    # --- Lab 11.3 budget projection: begin ---
    head = [message for message in (plan.system_message, plan.summary) if message is not None]
    kept = [entry for group in plan.kept_groups for entry in group.entries]
    return BuildContextResult(
        # The head is built fresh for this call; kept messages are copied here, once.
        messages=[*head, *(entry.message.model_copy(deep=True) for entry in kept)],
        kept_entry_ids=[entry.id for entry in kept],
        reason=plan.reason,
        tokens=plan.tokens,
    )
    # --- Lab 11.3: end ---
