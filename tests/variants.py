"""Right answers written differently from the reference: every one must pass every check.

Each lab region has at least two, written the way students write them
(comprehensions, early returns, ``isinstance``, ``sum()``, one pass or two,
their own small helpers, their own wording of an error). The checks judge the
rule, not the reference's float addition order or its phrasing, so none of
these may fail a public or a hidden check (``tests/track/test_variants.py``).

A variant is the region's whole new body, at column zero, keyed by the
function that holds the region (``module.function``, as ``region_function``
names it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    """One correct body for one region: where, how it differs, and the code."""

    function: str
    description: str
    body: str


VARIANTS: list[Variant] = [
    # --- Lab 11.1 ------------------------------------------------------------------------
    Variant(
        "entries.parse_compaction",
        "the message joined with +, re-raised `from error`",
        """\
try:
    entry = CompactionEntry.model_validate(value, by_alias=True, by_name=False)
except ValidationError as error:
    problem = describe_validation_error(error)
    raise SessionEntryError(label + ": " + problem) from error
return entry
""",
    ),
    Variant(
        "entries.parse_compaction",
        "a strict alias-only validation through a local helper",
        """\
def check(wire):
    return CompactionEntry.model_validate(wire, by_alias=True, by_name=False)

try:
    return check(value)
except ValidationError as error:
    raise SessionEntryError(f"{label}: {describe_validation_error(error)}") from None
""",
    ),
    # --- Lab 11.2 ------------------------------------------------------------------------
    Variant(
        "groups.record_tool_facts",
        "isinstance on the message and a comprehension over the call blocks",
        """\
message = entry.message
if message.role == "toolResult":
    if message.tool_call_id in results:
        raise InteractionError(
            f"entry {entry.id}: duplicate result for call {message.tool_call_id!r}"
        )
    results[message.tool_call_id] = entry.id
    return
if message.role != "assistant":
    return
for call_id in [block.id for block in message.content if block.type == "toolCall"]:
    if call_id in calls:
        raise InteractionError(f"duplicate tool call id {call_id!r} in entry {entry.id}")
    calls[call_id] = entry.id
""",
    ),
    Variant(
        "groups.record_tool_facts",
        "getattr on the blocks, one error helper",
        """\
def duplicate(what, call_id):
    return InteractionError(f"entry {entry.id}: duplicate {what} {call_id!r}")

if entry.message.role == "assistant":
    for block in entry.message.content:
        if getattr(block, "type", None) == "toolCall":
            if block.id in calls:
                raise duplicate("tool call id", block.id)
            calls[block.id] = entry.id
elif entry.message.role == "toolResult":
    call_id = entry.message.tool_call_id
    if call_id in results:
        raise duplicate("result for call", call_id)
    results[call_id] = entry.id
""",
    ),
    Variant(
        "groups.check_tool_pairs",
        "set differences, sorted for a stable first error",
        """\
unknown = [call_id for call_id in results if call_id not in calls]
if unknown:
    raise InteractionError(
        f"entry {results[unknown[0]]}: result for unknown call {unknown[0]!r}"
    )
missing = [call_id for call_id in calls if call_id not in results]
if missing:
    raise InteractionError(
        f"missing result for call {missing[0]!r} declared by entry {calls[missing[0]]}"
    )
""",
    ),
    Variant(
        "groups.check_tool_pairs",
        "one loop per rule with early raise, other words",
        """\
for call_id in results:
    if call_id not in calls:
        raise InteractionError(
            f"unknown call {call_id!r}: entry {results[call_id]} answers a call this "
            "interaction never made"
        )
for call_id in calls:
    if call_id not in results:
        raise InteractionError(
            f"missing result for call {call_id!r} (entry {calls[call_id]} made it)"
        )
""",
    ),
    Variant(
        "groups.split_interactions",
        "indices of the user messages first, then slices",
        """\
kept = [entry for entry in entries if entry.message.role != "system"]
starts = [i for i, entry in enumerate(kept) if entry.message.role == "user"]
if kept and (not starts or starts[0] != 0):
    first = kept[0]
    raise InteractionError(
        f"entry {first.id}: {first.message.role} message before the first user message"
    )
groups = []
for start, end in zip(starts, [*starts[1:], len(kept)]):
    calls, results = {}, {}
    for entry in kept[start + 1 : end]:
        record_tool_facts(entry, calls, results)
    check_tool_pairs(calls, results)
    groups.append(InteractionGroup(entries=kept[start:end]))
return groups
""",
    ),
    Variant(
        "groups.split_interactions",
        "tuples of (members, calls, results), each closed when the next opens",
        """\
closed = []
open_group = None
for entry in entries:
    role = entry.message.role
    if role == "system":
        continue
    if role == "user":
        if open_group:
            check_tool_pairs(open_group[1], open_group[2])
            closed.append(InteractionGroup(open_group[0]))
        open_group = ([entry], {}, {})
    elif open_group is None:
        raise InteractionError(f"entry {entry.id}: a {role} message before the first user message")
    else:
        record_tool_facts(entry, open_group[1], open_group[2])
        open_group[0].append(entry)
if open_group:
    check_tool_pairs(open_group[1], open_group[2])
    closed.append(InteractionGroup(open_group[0]))
return closed
""",
    ),
    # --- Lab 11.3 ------------------------------------------------------------------------
    Variant(
        "budget.replay_system",
        "isinstance on the message as well, a generator",
        """\
return current_system_message(
    [
        entry.message
        for entry in active_path
        if isinstance(entry, MessageEntry) and entry.message.role == "system"
    ]
)
""",
    ),
    Variant(
        "budget.replay_system",
        "a loop collecting the system messages",
        """\
systems = []
for entry in active_path:
    if entry.type == "message" and entry.message.role == "system":
        systems.append(entry.message)
return current_system_message(systems)
""",
    ),
    Variant(
        "budget.group_costs",
        "sum() over a generator for each group",
        """\
return [
    sum(
        price(estimate_tokens, entry.message, "interaction", n, "message", m)
        for m, entry in enumerate(group.entries, start=1)
    )
    for n, group in enumerate(groups, start=1)
]
""",
    ),
    Variant(
        "budget.group_costs",
        "prices first, then sum() of each group's list",
        """\
costs = []
for n, group in enumerate(groups, start=1):
    prices = [
        price(estimate_tokens, entry.message, "interaction", n, "message", m)
        for m, entry in enumerate(group.entries, start=1)
    ]
    costs.append(sum(prices))
return costs
""",
    ),
    Variant(
        "budget.message_allowances",
        "the fixed costs summed before subtracting",
        """\
fixed = system_tokens + budget.reserved_output + budget.safety_margin
available = max(0, budget.max_tokens - fixed)
allowance = available - summary_tokens
return available, allowance if allowance > 0 else 0
""",
    ),
    Variant(
        "budget.message_allowances",
        "sum() of the deductions and an early return",
        """\
left = budget.max_tokens - sum([system_tokens, budget.reserved_output, budget.safety_margin])
if left <= 0:
    return 0, 0
return left, max(0, left - summary_tokens)
""",
    ),
    Variant(
        "budget.select_newest_groups",
        "a for loop over reversed indices with break",
        """\
if not costs:
    return 0, "within_budget"
newest = len(costs) - 1
if costs[newest] > allowance:
    return newest, "single_group_overflow"
used = 0
first = len(costs)
for index in reversed(range(len(costs))):
    if used + costs[index] > allowance:
        break
    used += costs[index]
    first = index
return first, ("trimmed" if first else "within_budget")
""",
    ),
    Variant(
        "budget.select_newest_groups",
        "sum() of each newest suffix (two passes)",
        """\
if len(costs) == 0:
    return 0, "within_budget"
if costs[-1] > allowance:
    return len(costs) - 1, "single_group_overflow"
first = len(costs) - 1
while first > 0 and sum(costs[first - 1 :]) <= allowance:
    first -= 1
reason = "within_budget" if first == 0 else "trimmed"
return first, reason
""",
    ),
    Variant(
        "budget.token_projection",
        "summary_tokens + sum(kept_costs)",
        """\
messages = summary_tokens + sum(kept_costs)
total = system_tokens + messages + budget.reserved_output + budget.safety_margin
check_budget_number("the total of the projection", total)
return TokenProjection(
    budget.max_tokens, system_tokens, messages, budget.reserved_output, budget.safety_margin,
    available_for_messages, total,
)
""",
    ),
    Variant(
        "budget.token_projection",
        "a running total that starts at the summary, the total added in another order",
        """\
messages = summary_tokens
for cost in kept_costs:
    messages += cost
total = budget.reserved_output + budget.safety_margin + system_tokens + messages
return TokenProjection(
    max_tokens=budget.max_tokens,
    system=system_tokens,
    messages=messages,
    reserved_output=budget.reserved_output,
    safety_margin=budget.safety_margin,
    available_for_messages=available_for_messages,
    total=check_budget_number("the total of the projection", total),
)
""",
    ),
    Variant(
        "budget.token_projection",
        "sum(reversed(kept_costs)), the reference's own order through sum()",
        """\
messages = summary_tokens + sum(reversed(kept_costs))
max_tokens, reserved_output, safety_margin = (
    budget.max_tokens, budget.reserved_output, budget.safety_margin
)
total = check_budget_number(
    "the total of the projection", system_tokens + messages + reserved_output + safety_margin
)
return TokenProjection(max_tokens, system_tokens, messages, reserved_output, safety_margin,
                       available_for_messages, total)
""",
    ),
    Variant(
        "budget.context_from_plan",
        "a loop that appends, copies taken with model_copy",
        """\
messages = []
if plan.system_message is not None:
    messages.append(plan.system_message)
if plan.summary is not None:
    messages.append(plan.summary)
ids = []
for group in plan.groups[plan.first_kept_group :]:
    for entry in group.entries:
        messages.append(entry.message.model_copy(deep=True))
        ids.append(entry.id)
return BuildContextResult(messages, ids, plan.reason, plan.tokens)
""",
    ),
    Variant(
        "budget.context_from_plan",
        "copies through the wire format and back",
        """\
kept = [entry for group in plan.kept_groups for entry in group.entries]
copies = [
    type(entry.message).model_validate(entry.message.to_wire(), by_alias=True, by_name=False)
    for entry in kept
]
head = [m for m in [plan.system_message, plan.summary] if m]
return BuildContextResult(
    messages=head + copies,
    kept_entry_ids=[entry.id for entry in kept],
    reason=plan.reason,
    tokens=plan.tokens,
)
""",
    ),
    # --- Lab 11.4 ------------------------------------------------------------------------
    Variant(
        "compaction.create_compaction_entry",
        "groups of all message entries through a comprehension, the summary dumped by alias",
        """\
require_session_entries(active_path)
if len(active_path) == 0:
    raise CompactionError(f"compaction {id}: empty active path")
if id in {entry.id for entry in active_path}:
    raise CompactionError(f"compaction {id}: duplicate id {id!r}")
messages = [entry for entry in active_path if entry.type == "message"]
starts = [group.entries[0].id for group in group_interactions(messages)]
if first_kept_entry_id not in starts:
    raise CompactionError(
        f"compaction {id}: {first_kept_entry_id!r} is not the first message of a "
        "complete interaction"
    )
if isinstance(summary, CompactionSummary):
    summary = summary.model_dump(by_alias=True)
entry = parse_session_entry(
    {
        "type": "compaction",
        "id": id,
        "parentId": active_path[-1].id,
        "timestamp": timestamp,
        "summary": summary,
        "firstKeptEntryId": first_kept_entry_id,
        "tokensBefore": tokens_before,
    }
)
assert isinstance(entry, CompactionEntry)
return entry
""",
    ),
    Variant(
        "compaction.create_compaction_entry",
        "checks in another order, the leaf taken by a loop",
        """\
require_session_entries(active_path)
leaf = None
for entry in active_path:
    if entry.id == id:
        raise CompactionError(f"duplicate id {id!r}: compaction {id} is already on the path")
    leaf = entry
if leaf is None:
    raise CompactionError(f"compaction {id}: empty active path")
groups = group_interactions([e for e in active_path if isinstance(e, MessageEntry)])
if all(group.entry_ids[0] != first_kept_entry_id for group in groups):
    raise CompactionError(
        f"compaction {id}: {first_kept_entry_id!r} is not the first message of a complete "
        "interaction"
    )
wire = {"id": id, "parentId": leaf.id, "timestamp": timestamp, "type": "compaction",
        "firstKeptEntryId": first_kept_entry_id, "tokensBefore": tokens_before,
        "summary": summary if isinstance(summary, dict) else summary.to_wire()}
return parse_session_entry(wire)
""",
    ),
    # --- Lab 11.5 ------------------------------------------------------------------------
    Variant(
        "restoring.newest_compaction",
        "a comprehension, the last one",
        """\
compactions = [entry for entry in active_path if isinstance(entry, CompactionEntry)]
return compactions[-1] if compactions else None
""",
    ),
    Variant(
        "restoring.newest_compaction",
        "next() over the reversed path",
        """\
return next((e for e in reversed(active_path) if e.type == "compaction"), None)
""",
    ),
    Variant(
        "restoring.restored_suffix",
        "a loop that stops at the compaction, other words in the error",
        """\
for index, entry in enumerate(active_path):
    if entry.id == compaction.id:
        break
    if entry.id == compaction.first_kept_entry_id:
        if isinstance(entry, MessageEntry) and entry.message.role == "user":
            return active_path[index:]
        break
raise CompactionError(
    f"compaction {compaction.id}: the first kept entry "
    f"{compaction.first_kept_entry_id!r} must be a user turn"
)
""",
    ),
    Variant(
        "restoring.restored_suffix",
        "ids first, then one check",
        """\
ids = [entry.id for entry in active_path]
wanted = compaction.first_kept_entry_id
ok = wanted in ids and compaction.id in ids and ids.index(wanted) < ids.index(compaction.id)
if ok:
    first = active_path[ids.index(wanted)]
    ok = first.type == "message" and isinstance(first.message, UserMessage)
if not ok:
    raise CompactionError(f"cannot restore {compaction.id} from {wanted!r}")
return active_path[ids.index(wanted) :]
""",
    ),
    Variant(
        "restoring.render_summary",
        "one list built by a comprehension per field",
        """\
fields = as_summary(summary)
lines = [labels.title, labels.goal + fields.goal]
for name in LIST_FIELDS:
    items = getattr(fields, name)
    lines += [getattr(labels, name)] + ([f"- {item}" for item in items] or [f"- {labels.none}"])
return "\\n".join(lines)
""",
    ),
    Variant(
        "restoring.render_summary",
        "string concatenation with the wire dict read by the model",
        """\
if isinstance(summary, dict):
    summary = as_summary(summary)
text = labels.title + "\\n" + labels.goal + summary.goal
for name in LIST_FIELDS:
    text += "\\n" + getattr(labels, name)
    values = getattr(summary, name)
    if not values:
        values = [labels.none]
    for value in values:
        text += "\\n- " + value
return text
""",
    ),
    Variant(
        "restoring.summary_message",
        "the model built from its wire dict",
        """\
rendered = render_summary(compaction_entry.summary, labels)
return UserMessage.model_validate(
    {"role": "user", "content": [{"type": "text", "text": rendered}],
     "timestamp": compaction_entry.timestamp}
)
""",
    ),
    Variant(
        "restoring.summary_message",
        "keywords in another order",
        """\
timestamp = compaction_entry.timestamp
body = text(render_summary(compaction_entry.summary, labels=labels))
return UserMessage(timestamp=timestamp, content=[body])
""",
    ),
    # --- transfer ------------------------------------------------------------------------
    Variant(
        "ledger.ledger_from_plan",
        "a comprehension with a small status helper",
        """\
def status(index):
    if index < plan.first_kept_group:
        return "trimmed"
    return "overflow" if plan.reason == "single_group_overflow" else "kept"

return [
    LedgerRow(plan.first_group_number + index, group.entry_ids, plan.group_tokens[index],
              status(index))
    for index, group in enumerate(plan.groups)
]
""",
    ),
    Variant(
        "ledger.ledger_from_plan",
        "enumerate from the plan's first number and sum() nothing: costs read from the plan",
        """\
rows = []
overflow = plan.reason == "single_group_overflow"
start = plan.first_group_number
for number, (group, cost) in enumerate(zip(plan.groups, plan.group_tokens), start=start):
    kept = number - start >= plan.first_kept_group
    status = ("overflow" if overflow else "kept") if kept else "trimmed"
    rows.append(LedgerRow(group=number, entry_ids=list(group.entry_ids), tokens=cost,
                          status=status))
return rows
""",
    ),
]
