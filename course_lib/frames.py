"""Layer 6: the tables the notebooks show, as pandas DataFrames computed by course_lib.

Nothing here decides anything. Every number comes from the functions the labs
build (``group_interactions``, ``build_context``, ``budget_ledger``,
``create_compaction_entry``) and, for a real pi session, from the importer and
the estimators, so a table can never disagree with the rules it illustrates. pandas is imported here and in ``widgets`` only: the rules
themselves stay plain Python a student can run anywhere.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from .budget import BuildContextResult, Estimator, Number, TokenProjection, build_context
from .checks import LAB_CHECK_COUNTS, LAB_TOPICS, LabReport
from .compaction import create_compaction_entry
from .entries import CompactionEntry, CompactionSummary, MessageEntry, SessionEntry
from .errors import CompactionError, CourseError
from .fixture import chapter_fixture, chapter_fixture_after_compaction, fixture_summary
from .groups import InteractionGroup, group_interactions
from .importers.pi import ImportResult, PiSource
from .ledger import LedgerRow, budget_ledger
from .messages import (
    AssistantMessage,
    MessageModel,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    system_message_text,
    text_of,
)
from .stores import path_to
from .summary import SUMMARY_LABELS_EN, SUMMARY_LABELS_ZH, render_summary, summary_message
from .wire import MAX_SAFE_INTEGER

__all__ = [
    "GROUP_COLOURS",
    "LAB_MAP",
    "CompactionStep",
    "LabMapRow",
    "checks_frame",
    "compaction_steps",
    "cut_points_frame",
    "deduction_frame",
    "describe_entry",
    "describe_message",
    "entry_counts_frame",
    "entry_fields_frame",
    "errors_frame",
    "estimator_comparison_frame",
    "expected_failure",
    "first_kept_frame",
    "fixture_frame",
    "group_budget_frame",
    "group_colour",
    "group_labels",
    "groups_frame",
    "interaction_sizes_frame",
    "kept_range_frame",
    "lab_map_frame",
    "ledger_agreement_frame",
    "ledger_excerpt_frame",
    "ledger_frame",
    "message_kind",
    "message_tokens_frame",
    "messages_frame",
    "path_arrow",
    "pi_compactions_frame",
    "pi_source_frame",
    "projection_frame",
    "second_summary",
    "setup_notebook",
    "styled_fixture_frame",
    "summary_lines_frame",
    "system_frame",
    "untrimmed_message_tokens",
]

NO_VALUE = "—"
"""Shown where a column does not apply (a replayed or synthetic message has no entry id)."""

GROUP_COLOURS: tuple[str, ...] = ("#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#e0f2fe")
"""Background colours of groups 1, 2, 3, ... (the widgets' bar uses the same ones)."""

ROLE_COLOURS: dict[str, str] = {"system": "#e5e7eb", "compaction": "#ede9fe"}
"""Rows that belong to no group: replayed prompt state and compaction entries."""


# --- notebook set-up ---------------------------------------------------------


def _styler_as_text(styler: Styler, printer: Any, cycle: bool) -> None:
    printer.text(styler.data.to_string())


def setup_notebook() -> None:
    """Display options every lab notebook starts with, so stored outputs stay comparable.

    Long error messages are shown whole (pandas cuts cells at 50 characters by
    default), and a Styler's plain-text form is its table instead of its class
    name and memory address, which would differ on every run.
    """
    pd.set_option("display.max_colwidth", None)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 100)
    from IPython import get_ipython  # only present inside Jupyter / IPython

    shell = get_ipython()
    if shell is not None:
        plain = shell.display_formatter.formatters["text/plain"]
        plain.for_type(Styler, _styler_as_text)


# --- one line per entry ------------------------------------------------------


CONTENT_WIDTH = 100
"""Longer content (a rendered summary) is cut with an ellipsis so a table stays readable."""


def _one_line(value: str) -> str:
    """Non-blank lines joined by `` / ``, so a table row stays one row, cut at ``CONTENT_WIDTH``."""
    line = " / ".join(part.strip() for part in value.splitlines() if part.strip())
    return line if len(line) <= CONTENT_WIDTH else line[: CONTENT_WIDTH - 1] + "…"


def _call_text(name: str, arguments: Any) -> str:
    if isinstance(arguments, dict):
        inner = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items()
        )
    else:
        inner = json.dumps(arguments, ensure_ascii=False)
    return f"{name}({inner})"


def describe_message(message: MessageModel) -> str:
    """A short, readable line for a message; tool calls show as ``read-1: read(...)``."""
    if isinstance(message, AssistantMessage):
        parts = [
            block.text
            if isinstance(block, TextContent)
            else f"{block.id}: {_call_text(block.name, block.arguments)}"
            for block in message.content
        ]
        return _one_line("; ".join(parts))
    if isinstance(message, ToolResultMessage):
        return f"result for {message.tool_call_id}: {_one_line(text_of(message))}"
    return _one_line(text_of(message))


def describe_entry(entry: SessionEntry) -> str:
    """A short line for any entry: a message's text, a summary's goal, a metadata key."""
    if isinstance(entry, MessageEntry):
        return describe_message(entry.message)
    if isinstance(entry, CompactionEntry):
        return f"summary: {entry.summary.goal}; first kept {entry.first_kept_entry_id}"
    return f"{entry.key} = {json.dumps(entry.value, ensure_ascii=False)}"


def _role(entry: SessionEntry) -> str:
    return entry.message.role if isinstance(entry, MessageEntry) else entry.type


def path_arrow(path: Sequence[SessionEntry]) -> str:
    """The path as the chapter draws it: ``sys → u1 → ... → a3``."""
    return " → ".join(entry.id for entry in path)


# --- the fixture table ---------------------------------------------------------


def group_labels(path: Sequence[SessionEntry]) -> dict[str, str]:
    """Entry id -> ``group N`` (from ``group_interactions``), ``system`` or the entry type.

    The whole path's message entries are grouped, so a path whose tool ids do
    not pair up raises the same ``InteractionError`` the budget would.
    """
    messages = [entry for entry in path if isinstance(entry, MessageEntry)]
    labels = {
        entry_id: f"group {number}"
        for number, group in enumerate(group_interactions(messages), start=1)
        for entry_id in group.entry_ids
    }
    for entry in path:
        if entry.id not in labels:
            labels[entry.id] = "system" if _role(entry) == "system" else entry.type
    return labels


def _entry_tokens(entry: SessionEntry, estimate_tokens: Estimator) -> Number | None:
    """What the estimator charges for an entry when it is sent (a summary for a compaction)."""
    if isinstance(entry, MessageEntry):
        return estimate_tokens(entry.message.model_copy(deep=True))
    if isinstance(entry, CompactionEntry):
        return estimate_tokens(summary_message(entry))
    return None  # metadata is never sent to the model


def _token_column(values: list[Number | None]) -> pd.Series:
    """Whole numbers stay integers even when a row has no token count."""
    if all(value is None or isinstance(value, int) for value in values):
        return pd.Series(values, dtype="Int64")
    return pd.Series(values, dtype="Float64")


def fixture_frame(
    path: Sequence[SessionEntry],
    estimate_tokens: Estimator | None = None,
    *,
    groups: bool = True,
) -> pd.DataFrame:
    """One row per entry: entry id, parent, role, content, tokens, group.

    ``tokens`` needs an estimator; ``groups=False`` leaves out the group column
    for a path that cannot be grouped (the broken inputs the notebooks show).
    """
    frame = pd.DataFrame(
        {
            "entry id": [entry.id for entry in path],
            "parent": [entry.parent_id or "(root)" for entry in path],
            "role": [_role(entry) for entry in path],
            "content": [describe_entry(entry) for entry in path],
        }
    )
    if estimate_tokens is not None:
        frame["tokens"] = _token_column([_entry_tokens(e, estimate_tokens) for e in path])
    if groups:
        labels = group_labels(path)
        frame["group"] = [labels[entry.id] for entry in path]
    return frame


def group_colour(group: str) -> str:
    """The background colour of a ``group_labels`` label ("" for rows left white)."""
    if group.startswith("group "):
        number = int(group.removeprefix("group "))
        return GROUP_COLOURS[(number - 1) % len(GROUP_COLOURS)]
    return ROLE_COLOURS.get(group, "")


def _colour_rows(row: pd.Series) -> list[str]:
    colour = group_colour(str(row.get("group", "")))
    return [f"background-color: {colour}" if colour else "" for _ in row]


def styled_fixture_frame(
    path: Sequence[SessionEntry],
    estimate_tokens: Estimator | None = None,
    *,
    uuid: str = "fixture",
    caption: str | None = None,
) -> Styler:
    """``fixture_frame`` with each group in its own colour, so the groups show at a glance.

    The Styler gets a fixed ``uuid`` (pandas would pick a random one, and the
    stored notebook outputs would change on every run). Use a different
    ``uuid`` for each styled table of one notebook: the colours are CSS rules
    keyed by it.
    """
    styler = (
        fixture_frame(path, estimate_tokens)
        .style.set_uuid(uuid)
        .apply(_colour_rows, axis=1)
        .hide(axis="index")
        .set_properties(subset=["content"], **{"text-align": "left"})
    )
    return styler.set_caption(caption) if caption else styler


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _flatten(prefix: str, value: Any) -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [
            row
            for key, inner in value.items()
            for row in _flatten(f"{prefix}.{key}" if prefix else key, inner)
        ]
    return [(prefix, _value_text(value))]


def entry_fields_frame(entry: SessionEntry) -> pd.DataFrame:
    """An entry's wire form, one field per row (``summary.goal``, ``firstKeptEntryId``, ...)."""
    return pd.DataFrame(_flatten("", entry.to_wire()), columns=["field", "value"])


# --- Lab 11.2: groups and where a budget may cut ---------------------------------


def groups_frame(
    groups: Sequence[InteractionGroup], estimate_tokens: Estimator | None = None
) -> pd.DataFrame:
    """One row per interaction: its entries, the tool calls it declares and answers, its cost."""
    rows = []
    for number, group in enumerate(groups, start=1):
        messages = [entry.message for entry in group.entries]
        row: dict[str, Any] = {
            "group": number,
            "entry ids": ", ".join(group.entry_ids),
            "tool calls declared": ", ".join(
                call.id
                for message in messages
                if isinstance(message, AssistantMessage)
                for call in message.tool_calls
            ),
            "results, in path order": ", ".join(
                message.tool_call_id
                for message in messages
                if isinstance(message, ToolResultMessage)
            ),
        }
        if estimate_tokens is not None:
            row["tokens"] = sum(
                estimate_tokens(message.model_copy(deep=True)) for message in messages
            )
        rows.append(row)
    return pd.DataFrame(rows)


def cut_points_frame(path: Sequence[SessionEntry]) -> pd.DataFrame:
    """Every gap between two grouped messages, and whether a budget may cut there."""
    messages = [entry for entry in path if isinstance(entry, MessageEntry)]
    owner = {
        entry_id: number
        for number, group in enumerate(group_interactions(messages), start=1)
        for entry_id in group.entry_ids
    }
    grouped = [entry.id for entry in messages if entry.id in owner]
    rows = []
    for before, after in pairwise(grouped):
        allowed = owner[before] != owner[after]
        why = (
            f"between group {owner[before]} and group {owner[after]}"
            if allowed
            else f"inside group {owner[before]}"
        )
        rows.append({"cut": f"{before} | {after}", "allowed": allowed, "why": why})
    return pd.DataFrame(rows)


# --- Labs 11.3 and 11.5: the budget ------------------------------------------------


def _head_size(result: BuildContextResult) -> int:
    """How many synthetic messages (replayed system, summary) come before the kept entries."""
    return len(result.messages) - len(result.kept_entry_ids)


def _summary_in(result: BuildContextResult) -> MessageModel | None:
    head = result.messages[: _head_size(result)]
    return next((message for message in head if message.role == "user"), None)


def deduction_frame(
    result: BuildContextResult, estimate_tokens: Estimator | None = None
) -> pd.DataFrame:
    """The chapter's deduction table: fixed costs first, then (after a compaction) the summary.

    Each row subtracts one cost from what is left for messages; the allowance
    never goes below 0. Pass the estimator to add the summary's row.
    """
    tokens = result.tokens
    costs: list[tuple[str, Number]] = [
        ("replayed system message", tokens.system),
        ("reserved_output", tokens.reserved_output),
        ("safety_margin", tokens.safety_margin),
    ]
    summary = _summary_in(result)
    if summary is not None and estimate_tokens is not None:
        costs.append(("compaction summary", estimate_tokens(summary.model_copy(deep=True))))
    rows: list[tuple[str, Number, Number]] = [("max_tokens", tokens.max_tokens, tokens.max_tokens)]
    left = tokens.max_tokens
    for item, cost in costs:
        left = max(0, left - cost)
        rows.append((item, cost, left))
    return pd.DataFrame(rows, columns=["item", "tokens", "message allowance left"])


def group_budget_frame(
    path: Sequence[SessionEntry],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
) -> pd.DataFrame:
    """Groups newest first, as the budget walks them: cost, running total, and what happened.

    The status comes from ``budget_ledger`` (the same plan ``build_context``
    follows); this table only adds the running total a student computes by hand.
    """
    rows = budget_ledger(
        path,
        max_tokens=max_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        estimate_tokens=estimate_tokens,
    )
    records = []
    running: Number = 0
    for row in reversed(rows):
        running += row.tokens
        records.append(
            {
                "group": row.group,
                "entry ids": ", ".join(row.entry_ids),
                "tokens": row.tokens,
                "cumulative (newest first)": running,
                "status": row.status,
            }
        )
    return pd.DataFrame(
        records,
        columns=["group", "entry ids", "tokens", "cumulative (newest first)", "status"],
    )


def messages_frame(
    result: BuildContextResult, estimate_tokens: Estimator | None = None
) -> pd.DataFrame:
    """The messages ``build_context`` returned, in order, with where each one comes from."""
    head = _head_size(result)
    rows = []
    for position, message in enumerate(result.messages):
        if position < head:
            entry_id = NO_VALUE
            source = "replayed system message" if message.role == "system" else "compaction summary"
        else:
            entry_id = result.kept_entry_ids[position - head]
            source = "kept entry"
        row: dict[str, Any] = {
            "entry id": entry_id,
            "role": message.role,
            "source": source,
            "content": describe_message(message),
        }
        if estimate_tokens is not None:
            row["tokens"] = estimate_tokens(message.model_copy(deep=True))
        rows.append(row)
    return pd.DataFrame(rows)


_PROJECTION_FIELDS: tuple[tuple[str, str], ...] = (
    ("max_tokens", "maxTokens"),
    ("system", "system"),
    ("messages", "messages"),
    ("reserved_output", "reservedOutput"),
    ("safety_margin", "safetyMargin"),
    ("available_for_messages", "availableForMessages"),
    ("total", "total"),
)


def projection_frame(tokens: TokenProjection) -> pd.DataFrame:
    """``result.tokens`` as a table, with the chapter's camelCase name beside each field."""
    return pd.DataFrame(
        [(name, chapter, getattr(tokens, name)) for name, chapter in _PROJECTION_FIELDS],
        columns=["field", "chapter name", "tokens"],
    )


# --- Lab 11.4: first kept candidates ------------------------------------------------


def first_kept_frame(
    path: Sequence[SessionEntry],
    *,
    id: str,
    timestamp: Number,
    summary: Any,
    tokens_before: Number,
) -> pd.DataFrame:
    """Try every message entry as ``first_kept_entry_id``: which ones may start the kept suffix.

    Each row is a real ``create_compaction_entry`` call; a refused id shows
    the ``CompactionError`` message, which names it.
    """
    rows = []
    for entry in path:
        if not isinstance(entry, MessageEntry):
            continue
        try:
            created = create_compaction_entry(
                path,
                id=id,
                timestamp=timestamp,
                summary=summary,
                first_kept_entry_id=entry.id,
                tokens_before=tokens_before,
            )
            rows.append((entry.id, _role(entry), True, f"created, parent {created.parent_id}"))
        except CompactionError as error:
            rows.append((entry.id, _role(entry), False, str(error)))
    return pd.DataFrame(rows, columns=["first kept", "role", "accepted", "result"])


# --- Lab 11.5: the steps, the summary and the replayed system message -----------------


def untrimmed_message_tokens(path: Sequence[SessionEntry], estimate_tokens: Estimator) -> Number:
    """What the path's messages cost with nothing trimmed (summary included, system not).

    This is the figure a caller records as ``tokens_before`` when it compacts:
    ``build_context`` under a budget no path reaches keeps every group.
    """
    return build_context(
        path, max_tokens=MAX_SAFE_INTEGER, estimate_tokens=estimate_tokens
    ).tokens.messages


def second_summary() -> CompactionSummary:
    """The summary ``compact-2`` records when it keeps ``u3`` onwards (it also covers ``u2, a2``)."""
    return CompactionSummary(
        goal="Check the session recovery logic",
        constraints=["Restore only the selected branch of the session tree"],
        completed=[
            "Confirmed that the active path restores only the selected branch",
            "Confirmed the JSONL write boundary",
        ],
        decisions=[],
        changed_files=[],
        unresolved=[],
        next=["Continue with the context projection"],
    )


@dataclass(frozen=True)
class CompactionStep:
    """One moment of Lab 11.5's story: a label and the active path at that moment."""

    label: str
    path: list[SessionEntry]


def compaction_steps(estimate_tokens: Estimator) -> list[CompactionStep]:
    """no compaction -> compact-1 -> u4, a4 -> compact-2, each compaction made by the lab's function.

    ``compact-1`` keeps ``u2`` (as in the chapter), ``compact-2`` keeps ``u3``;
    each records ``untrimmed_message_tokens`` of the path it is appended to.
    """
    base = chapter_fixture()
    compact_1 = create_compaction_entry(
        base,
        id="compact-1",
        timestamp=100,
        summary=fixture_summary(),
        first_kept_entry_id="u2",
        tokens_before=untrimmed_message_tokens(base, estimate_tokens),
    )
    continued = [*base, compact_1, *chapter_fixture_after_compaction()[-2:]]
    compact_2 = create_compaction_entry(
        continued,
        id="compact-2",
        timestamp=200,
        summary=second_summary(),
        first_kept_entry_id="u3",
        tokens_before=untrimmed_message_tokens(continued, estimate_tokens),
    )
    return [
        CompactionStep("no compaction", base),
        CompactionStep("compact-1", [*base, compact_1]),
        CompactionStep("u4, a4", continued),
        CompactionStep("compact-2", [*continued, compact_2]),
    ]


def summary_lines_frame(summary: Any) -> pd.DataFrame:
    """The rendered summary with English and Chinese labels, line by line side by side."""
    english = render_summary(summary, SUMMARY_LABELS_EN).splitlines()
    chinese = render_summary(summary, SUMMARY_LABELS_ZH).splitlines()
    return pd.DataFrame({"English": english, "中文": chinese})


def system_frame(message: SystemMessage) -> pd.DataFrame:
    """A system message field by field; strings are JSON so ``\\n\\n`` stays visible."""
    rows = [
        ("role", message.role),
        ("content", json.dumps(message.content, ensure_ascii=False)),
        ("sections", json.dumps(message.sections, ensure_ascii=False)),
        ("timestamp", json.dumps(message.timestamp)),
        ("prompt text", json.dumps(system_message_text(message), ensure_ascii=False)),
    ]
    return pd.DataFrame(rows, columns=["field", "value"])


# --- the transfer exercise: the ledger ---------------------------------------------------


def ledger_frame(rows: Sequence[LedgerRow]) -> pd.DataFrame:
    """``budget_ledger`` rows as a table, oldest group first."""
    return pd.DataFrame(
        [(row.group, ", ".join(row.entry_ids), row.tokens, row.status) for row in rows],
        columns=["group", "entry ids", "tokens", "status"],
    )


def ledger_agreement_frame(
    path: Sequence[SessionEntry],
    max_tokens_values: Iterable[Number],
    *,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
    ledger_function: Callable[..., Sequence[LedgerRow]] = budget_ledger,
    build_function: Callable[..., BuildContextResult] = build_context,
) -> pd.DataFrame:
    """For each ``max_tokens``: the entries the ledger marks kept vs. ``build_context``'s.

    ``ledger_function`` and ``build_function`` let a student run the same sweep
    on a practice package (whose ``path`` and estimator must then come from
    that package too: its functions only know its own entry classes).
    """
    rows = []
    for max_tokens in max_tokens_values:
        options = {
            "max_tokens": max_tokens,
            "reserved_output": reserved_output,
            "safety_margin": safety_margin,
            "estimate_tokens": estimate_tokens,
        }
        ledger = ledger_function(path, **options)
        result = build_function(path, **options)
        from_ledger = [i for row in ledger if row.status != "trimmed" for i in row.entry_ids]
        rows.append(
            {
                "max_tokens": max_tokens,
                "statuses": ", ".join(row.status for row in ledger),
                "kept by the ledger": ", ".join(from_ledger),
                "build_context reason": result.reason,
                "agree": from_ledger == result.kept_entry_ids,
            }
        )
    return pd.DataFrame(rows)


# --- beyond the fixture: a real pi session ----------------------------------------------------

PI_ENTRY_TYPES: tuple[str, ...] = (
    "session",
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
)
"""Every entry type a pi session file may hold (its header line is counted as ``session``)."""

PI_KEEP_RECENT_TOKENS = 20_000
"""pi's default ``keepRecentTokens``: roughly how many tokens of recent messages its compaction keeps."""


def pi_source_frame(source: PiSource) -> pd.DataFrame:
    """What a pi file held before any mapping: lines per entry type, then messages per role.

    Every known pi entry type gets a row, so a type the file lacks shows as 0
    (``compaction 0`` says plainly that pi never compacted the session); a type
    pi does not document is listed after them.
    """
    counts = source.entry_counts
    rows = [("entry type", name, counts.get(name, 0)) for name in PI_ENTRY_TYPES]
    rows += [("entry type", name, n) for name, n in counts.items() if name not in PI_ENTRY_TYPES]
    rows += [("message role", name, n) for name, n in source.role_counts.items()]
    return pd.DataFrame(rows, columns=["counted", "name", "count"])


_ENTRY_TYPE_ORDER = {"message": 0, "compaction": 1, "metadata": 2}


def entry_counts_frame(entries: Iterable[SessionEntry]) -> pd.DataFrame:
    """Course entries by type: messages per role, metadata per key; most frequent first per type."""
    counts: Counter[tuple[str, str]] = Counter()
    for entry in entries:
        if isinstance(entry, MessageEntry):
            counts[("message", entry.message.role)] += 1
        elif isinstance(entry, CompactionEntry):
            counts[("compaction", NO_VALUE)] += 1
        else:
            counts[("metadata", entry.key)] += 1
    rows = sorted(counts.items(), key=lambda item: (_ENTRY_TYPE_ORDER[item[0][0]], -item[1]))
    return pd.DataFrame(
        [(kind, name, count) for (kind, name), count in rows],
        columns=["type", "role or key", "count"],
    )


def message_kind(message: MessageModel) -> str:
    """The role, with assistant turns split into ``assistant (tool calls)`` and ``assistant (text)``."""
    if isinstance(message, AssistantMessage):
        return "assistant (tool calls)" if message.tool_calls else "assistant (text)"
    return message.role


def message_tokens_frame(
    path: Sequence[SessionEntry], estimators: Mapping[str, Estimator]
) -> pd.DataFrame:
    """One row per message entry of the path: its id, kind and one column per estimator.

    Each estimator prices a copy of each message, as ``build_context`` does.
    """
    rows = []
    for entry in path:
        if not isinstance(entry, MessageEntry):
            continue
        row: dict[str, Any] = {"entry id": entry.id, "kind": message_kind(entry.message)}
        for name, estimate in estimators.items():
            row[name] = estimate(entry.message.model_copy(deep=True))
        rows.append(row)
    return pd.DataFrame(rows, columns=["entry id", "kind", *estimators])


def estimator_comparison_frame(
    per_message: pd.DataFrame, baseline: str, other: str, *, by: str = "kind"
) -> pd.DataFrame:
    """Two estimator columns of ``message_tokens_frame`` summed per ``by`` and in all, with their ratio.

    The ratio is ``other / baseline`` rounded to 3 places (``<NA>`` where the
    baseline sums to 0). Rows follow the first appearance of each ``by`` value.
    """
    grouped = per_message.groupby(by, sort=False).agg(
        messages=(baseline, "size"), **{baseline: (baseline, "sum"), other: (other, "sum")}
    )
    total = pd.DataFrame(
        {
            "messages": [len(per_message)],
            baseline: [per_message[baseline].sum()],
            other: [per_message[other].sum()],
        },
        index=["all messages"],
    )
    table = pd.concat([grouped, total]).rename_axis(by).reset_index()
    ratio = table[other].astype("Float64") / table[baseline].astype("Float64")
    table[f"{other} / {baseline}"] = ratio.where(table[baseline] > 0).round(3)
    return table


def _provider_tokens(message: AssistantMessage) -> Number | None:
    """The context size the provider reported for this turn (none for an aborted or failed turn)."""
    if message.stop_reason in ("aborted", "error") or message.usage.total_tokens <= 0:
        return None
    return message.usage.total_tokens


def interaction_sizes_frame(
    path: Sequence[SessionEntry], estimators: Mapping[str, Estimator]
) -> pd.DataFrame:
    """One row per interaction of the path: first and last id, size, tool calls, cost per estimator.

    Every message entry of the path is grouped (as ``group_labels`` does).
    ``provider tokens`` is the largest ``usage.total_tokens`` an assistant turn
    of the group reports, i.e. the context the provider counted for its
    biggest call (``<NA>`` when no turn reports one, e.g. aborted turns only).
    """
    messages = [entry for entry in path if isinstance(entry, MessageEntry)]
    columns = ["group", "first id", "last id", "messages", "tool calls", *estimators]
    rows = []
    provider: list[Number | None] = []
    for number, group in enumerate(group_interactions(messages), start=1):
        turns = [e.message for e in group.entries if isinstance(e.message, AssistantMessage)]
        row: dict[str, Any] = {
            "group": number,
            "first id": group.entry_ids[0],
            "last id": group.entry_ids[-1],
            "messages": len(group.entries),
            "tool calls": sum(len(turn.tool_calls) for turn in turns),
        }
        for name, estimate in estimators.items():
            row[name] = sum(estimate(e.message.model_copy(deep=True)) for e in group.entries)
        rows.append(row)
        reported = [tokens for turn in turns if (tokens := _provider_tokens(turn)) is not None]
        provider.append(max(reported) if reported else None)
    frame = pd.DataFrame(rows, columns=columns)
    frame["provider tokens"] = _token_column(provider)
    return frame


def ledger_excerpt_frame(
    rows: Sequence[LedgerRow], *, edge: int = 3, around_cut: int = 2
) -> pd.DataFrame:
    """A long ledger in short: the ``edge`` oldest and newest groups and both sides of the cut.

    The rows left out become one ``…`` row saying how many, and a ``cut`` row
    sits between the last group left out and the first group kept, as
    ``course-lab inspect`` prints its ledger.
    """
    count = len(rows)
    cut = next((index for index, row in enumerate(rows) if row.status != "trimmed"), count)
    shown = set(range(min(edge, count))) | set(range(max(0, count - edge), count))
    if 0 < cut < count:
        shown |= set(range(max(0, cut - around_cut), min(count, cut + around_cut)))
    blank = ("", "", "", "")
    records: list[tuple[Any, ...]] = []
    previous = -1
    for index in sorted(shown):
        if index > previous + 1:
            hidden = index - previous - 1
            records.append(("…", *blank, f"{hidden} more group{'s' * (hidden != 1)}"))
        if index == cut and cut > 0:
            records.append(("cut", *blank, "groups above are left out, groups below are kept"))
        row = rows[index]
        records.append(
            (
                row.group,
                len(row.entry_ids),
                row.entry_ids[0],
                row.entry_ids[-1],
                row.tokens,
                row.status,
            )
        )
        previous = index
    return pd.DataFrame(
        records, columns=["group", "entries", "first id", "last id", "tokens", "status"]
    )


def kept_range_frame(
    path: Sequence[SessionEntry],
    max_tokens_values: Iterable[Number],
    *,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimators: Mapping[str, Estimator],
) -> pd.DataFrame:
    """For each estimator and window: what ``build_context`` keeps, as one row.

    Every figure is ``build_context``'s. ``groups kept`` counts the user
    messages among the kept messages: each interaction holds exactly one, its
    first (Lab 11.2), so this needs no second pricing pass over the path.
    """
    windows = list(max_tokens_values)
    rows = []
    for name, estimate in estimators.items():
        for max_tokens in windows:
            result = build_context(
                path,
                max_tokens=max_tokens,
                reserved_output=reserved_output,
                safety_margin=safety_margin,
                estimate_tokens=estimate,
            )
            kept = result.kept_entry_ids
            kept_messages = result.messages[_head_size(result) :]
            rows.append(
                {
                    "estimator": name,
                    "max_tokens": max_tokens,
                    "available_for_messages": result.tokens.available_for_messages,
                    "tokens.messages": result.tokens.messages,
                    "groups kept": sum(message.role == "user" for message in kept_messages),
                    "first kept": kept[0] if kept else NO_VALUE,
                    "last kept": kept[-1] if kept else NO_VALUE,
                    "entries kept": len(kept),
                    "reason": result.reason,
                }
            )
    return pd.DataFrame(rows)


def pi_compactions_frame(
    imported: ImportResult,
    *,
    estimate_tokens: Estimator,
    keep_recent_tokens: Number = PI_KEEP_RECENT_TOKENS,
) -> pd.DataFrame:
    """Each pi compaction on the imported active path beside what ``build_context`` would keep.

    ``pi's first kept`` is the entry as imported: where pi cut inside an
    interaction the importer moved it back to the user message that starts
    it, and ``moved`` quotes that note. The comparison projects the path pi
    summarised (up to the compaction's parent) with ``keep_recent_tokens``
    for messages, the amount of recent history pi's compaction aims to keep,
    and no reserve. An empty frame means there is no compaction on the active path.
    """
    path = imported.active_path()
    moved = {
        note.entry_id: note.detail for note in imported.notes if note.kind == "first_kept_moved"
    }
    columns = [
        "compaction",
        "tokens before (pi)",
        "pi's first kept",
        "moved",
        "build_context first kept",
        "same",
    ]
    rows = []
    for entry in path:
        if not isinstance(entry, CompactionEntry):
            continue
        try:
            result = build_context(
                path_to(imported.entries, entry.parent_id),
                max_tokens=keep_recent_tokens,
                estimate_tokens=estimate_tokens,
            )
            ours = result.kept_entry_ids[0] if result.kept_entry_ids else NO_VALUE
        except CourseError as error:
            ours = f"({error})"
        rows.append(
            (
                entry.id,
                entry.tokens_before,
                entry.first_kept_entry_id,
                moved.get(entry.id, NO_VALUE),
                ours,
                ours == entry.first_kept_entry_id,
            )
        )
    return pd.DataFrame(rows, columns=columns)


# --- expected failures and checks ----------------------------------------------------------


def expected_failure(call: Callable[[], object]) -> pd.DataFrame:
    """Run ``call``, which must break one of the chapter's rules, and show the error it raises.

    Only ``CourseError`` is caught: any other exception is a real bug and
    propagates. A call that does not fail raises ``AssertionError``, so a
    notebook can never silently show a failure that did not happen.
    """
    try:
        value = call()
    except CourseError as error:
        return pd.DataFrame([(type(error).__name__, str(error))], columns=["error", "message"])
    raise AssertionError(f"expected a CourseError, but the call returned {value!r}")


def errors_frame(cases: Mapping[str, Callable[[], object]]) -> pd.DataFrame:
    """Several expected failures at once: one row per named case (error class, message)."""
    frames = [expected_failure(call).assign(case=name) for name, call in cases.items()]
    return pd.concat(frames, ignore_index=True)[["case", "error", "message"]]


def checks_frame(report: LabReport) -> pd.DataFrame:
    """One row per check of a lab; ``report.summary_line()`` gives the count below it."""
    return pd.DataFrame(
        [(check.name, check.outcome, check.detail) for check in report.outcomes],
        columns=["test", "outcome", "detail"],
    )


# --- the lab map ----------------------------------------------------------------------------


@dataclass(frozen=True)
class LabMapRow:
    """Where one lab lives: its notebook, its checks and the module it builds.

    ``topic`` names a notebook that is not a numbered lab; a lab's topic is
    ``LAB_TOPICS[lab]``.
    """

    lab: str
    chapter_section: str
    notebook: str
    checks: str
    modules: str
    topic: str = ""


LAB_MAP: tuple[LabMapRow, ...] = (
    LabMapRow(
        "11.1",
        "摘要先成为 session 中的一条普通事实",
        "notebooks/01-lab-11.1-compaction-entry.ipynb",
        "tests/test_lab_11_1.py",
        "entries.py, stores.py",
    ),
    LabMapRow(
        "11.2",
        "两个 tool result 仍属于 u3 开始的同一组",
        "notebooks/02-lab-11.2-interaction-groups.ipynb",
        "tests/test_lab_11_2.py",
        "groups.py",
    ),
    LabMapRow(
        "11.3",
        "31 个 token 怎样留下第二、三组",
        "notebooks/03-lab-11.3-budget-projection.ipynb",
        "tests/test_lab_11_3.py",
        "budget.py",
    ),
    LabMapRow(
        "11.4",
        "compact-1 记录摘要与保留起点",
        "notebooks/04-lab-11.4-create-compaction.ipynb",
        "tests/test_lab_11_4.py",
        "compaction.py",
    ),
    LabMapRow(
        "11.5",
        "恢复时把最新摘要接在保留后缀前面 / system 状态跨过 compaction 边界",
        "notebooks/05-lab-11.5-resume-compaction.ipynb",
        "tests/test_lab_11_5.py",
        "budget.py, summary.py",
    ),
    LabMapRow(
        "transfer",
        "可选迁移练习",
        "notebooks/06-transfer-budget-ledger.ipynb",
        "tests/test_ledger.py",
        "ledger.py",
        topic="budget ledger",
    ),
    LabMapRow(
        "real session",
        "—",
        "notebooks/07-beyond-the-fixture-real-session.ipynb",
        "tests/test_import_pi.py",
        "importers/pi.py, estimators.py, inspect_cli.py",
        topic="a real pi session",
    ),
)
"""Every notebook after ``00-start-here``, in the order students read them.

The transfer exercise is not a numbered lab, and the real session goes beyond
the chapter (it has no section of its own), so neither has a count of checks.
"""


def lab_map_frame() -> pd.DataFrame:
    """The lab map: lab, topic, the chapter's section title, notebook, checks, module."""
    rows = [
        {
            "lab": row.lab,
            "topic": LAB_TOPICS.get(row.lab, row.topic),
            "chapter section": row.chapter_section,
            "notebook": row.notebook,
            "checks": row.checks,
            "number of checks": LAB_CHECK_COUNTS.get(row.lab),
            "course_lib module": row.modules,
        }
        for row in LAB_MAP
    ]
    frame = pd.DataFrame(rows)
    # none for the transfer exercise and the real session
    frame["number of checks"] = frame["number of checks"].astype("Int64")
    return frame
