"""``build_context`` in one walk over a long path, for a pure estimator: the package's own.

Why it exists: ``course_lib.chapter.budget.plan_budget`` reads like the chapter, one step at a
time, and each step (the system replay, the split, the pricing) is a pass over the whole path.
At 100,000 entries a pass costs what touching 100,000 scattered objects costs, whatever it does
with them. So ``course_lib.build_context`` and ``course_lib.plan_budget`` are the two below:
the chapter's steps with the chapter's rule functions (``record_tool_facts``,
``check_tool_pairs``, ``price``, ``current_system_message``, ``select_newest_groups``,
``token_projection``), except that each message is grouped and priced in one walk, while it is
at hand. The chapter's module stays the one to read, the way ``bisect`` swaps in its C version.

Pricing as it groups calls the estimator before the path is known to group cleanly, and again
when the chapter's steps must name an error. That is invisible only for a pure function of the
message, which is what marking an estimator read-only declares (chapter §4 rule 1; the shipped
estimators and the fixture's are). Any other estimator, one that counts its calls or asks a
server, gets the chapter's steps as they are: called once per priced message, never on a path
that does not group. On any error the chapter's steps run from the start, so the error raised is
the chapter's, in the chapter's order. ``tests/beyond/test_one_pass.py`` checks that both give
equal plans and equal errors on generated paths, broken ones and failing estimators included.
A practice package and the judge never see this module.
"""

from collections.abc import Sequence

from ..base.messages import MessageModel
from ..base.pricing import Estimator, Number, is_read_only, price
from ..chapter import budget as chapter
from ..chapter.budget import (
    context_from_plan,
    message_allowances,
    select_newest_groups,
    token_projection,
)
from ..chapter.groups import check_tool_pairs, record_tool_facts
from ..chapter.messages import current_system_message
from ..chapter.models import (
    SUMMARY_LABELS_EN,
    Budget,
    BudgetPlan,
    BuildContextResult,
    InteractionGroup,
    MessageEntry,
    SessionEntry,
    SummaryLabels,
    compactions_on,
    require_budget_inputs,
    user_turns,
)
from ..chapter.restoring import newest_compaction, restored_suffix, summary_message

__all__ = ["build_context", "plan_budget"]


def build_context(
    active_path: Sequence[SessionEntry],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
    summary_labels: SummaryLabels = SUMMARY_LABELS_EN,
) -> BuildContextResult:
    """``course_lib.chapter.budget.build_context``, planned in one walk (read the chapter's).

    >>> from course_lib.chapter.fixture import chapter_fixture, fixture_estimator
    >>> result = build_context(
    ...     chapter_fixture(), max_tokens=31, reserved_output=4, safety_margin=2,
    ...     estimate_tokens=fixture_estimator())
    >>> result.kept_entry_ids, result.reason, result.tokens.total
    (['u2', 'a2', 'u3', 'calls', 'r-test', 'r-read', 'a3'], 'trimmed', 31)
    """
    budget = Budget(max_tokens, reserved_output, safety_margin)
    return context_from_plan(plan_budget(active_path, budget, estimate_tokens, summary_labels))


def plan_budget(
    active_path: Sequence[SessionEntry],
    budget: Budget,
    estimate_tokens: Estimator,
    summary_labels: SummaryLabels = SUMMARY_LABELS_EN,
) -> BudgetPlan:
    """``course_lib.chapter.budget.plan_budget``'s plan or error; one walk for a pure estimator."""
    if not is_read_only(estimate_tokens):  # its calls may be seen: the chapter's steps, exactly
        return chapter.plan_budget(active_path, budget, estimate_tokens, summary_labels)
    try:
        return _plan_in_one_walk(active_path, budget, estimate_tokens, summary_labels)
    except Exception:  # not swallowed: the chapter's steps raise it again, in their order
        return chapter.plan_budget(active_path, budget, estimate_tokens, summary_labels)


def _plan_in_one_walk(
    active_path: Sequence[SessionEntry],
    budget: Budget,
    estimate_tokens: Estimator,
    summary_labels: SummaryLabels,
) -> BudgetPlan:
    """The chapter's steps in its order, except that the groups are priced as they are found."""
    require_budget_inputs(active_path, estimate_tokens)
    compactions = compactions_on(active_path)
    compaction = newest_compaction(active_path) if compactions else None
    candidates = active_path if compaction is None else restored_suffix(active_path, compaction)
    before = active_path[: len(active_path) - len(candidates)]
    systems = _system_messages(before)  # the replay reads the whole path (§4 rule 2)
    groups, group_tokens = _groups_priced(candidates, estimate_tokens, systems)

    system = current_system_message(systems)
    system_tokens = 0 if system is None else price(estimate_tokens, system, "system message")
    summary = None if compaction is None else summary_message(compaction, summary_labels)
    summary_tokens = (
        0 if summary is None else price(estimate_tokens, summary, "compaction summary", compactions)
    )
    available, allowance = message_allowances(budget, system_tokens, summary_tokens)
    first_kept, reason = select_newest_groups(group_tokens, allowance)
    kept_costs = group_tokens[first_kept:]
    tokens = token_projection(budget, system_tokens, summary_tokens, kept_costs, available)
    start = 1 + user_turns(before)
    return BudgetPlan(
        system, summary, summary_tokens, groups, group_tokens, first_kept, reason, tokens, start
    )


def _system_messages(entries: Sequence[SessionEntry]) -> list[MessageModel]:
    """The system messages of ``entries`` in order (the part of the path before the groups)."""
    return [
        entry.message
        for entry in entries
        if isinstance(entry, MessageEntry) and entry.message.role == "system"
    ]


def _groups_priced(
    entries: Sequence[SessionEntry], estimate_tokens: Estimator, systems: list[MessageModel]
) -> tuple[list[InteractionGroup], list[Number]]:
    """``split_interactions`` and ``group_costs`` in one walk; system messages go to ``systems``.

    Any message before the first user message is an error here; the chapter's steps, run
    again by ``plan_budget``, then name it.
    """
    groups: list[InteractionGroup] = []
    costs: list[Number] = []
    current: list[MessageEntry] = []
    calls: dict[str, str] = {}
    results: dict[str, str] = {}
    cost: Number = 0
    for entry in entries:
        if not isinstance(entry, MessageEntry):
            continue  # metadata is never grouped
        message = entry.message
        role = message.role
        if role == "system":
            systems.append(message)
            continue
        if role == "user":
            if current:
                check_tool_pairs(calls, results)
                groups.append(InteractionGroup(entries=current))
                costs.append(cost)
            current, calls, results, cost = [entry], {}, {}, 0
        elif not current:
            raise ValueError(f"entry {entry.id}: {role} message before the first user message")
        else:
            record_tool_facts(entry, calls, results)
            current.append(entry)
        cost += price(estimate_tokens, message)  # no name: an error is the chapter's to name
    if current:
        check_tool_pairs(calls, results)
        groups.append(InteractionGroup(entries=current))
        costs.append(cost)
    return groups, costs
