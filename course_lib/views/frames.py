"""Layer 6: the tables the notebooks show, as pandas DataFrames computed by course_lib.

Nothing here decides anything. Every number comes from the functions the labs
build (``group_interactions``, ``build_context``, ``budget_ledger``,
``create_compaction_entry``) and, for a real pi session, from the importer and
the estimators, so a table can never disagree with the rules it illustrates. pandas is imported here and in ``widgets`` only: the rules
themselves stay plain Python a student can run anywhere.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from ..base.errors import CompactionError
from ..base.i18n import Lang
from ..base.messages import (
    AssistantMessage,
    MessageModel,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    system_message_text,
    text_of,
)
from ..base.pricing import Estimator, Number, reads_only
from ..chapter.budget import build_context, plan_budget
from ..chapter.compaction import create_compaction_entry
from ..chapter.entries import parse_session_entry
from ..chapter.groups import group_interactions
from ..chapter.ledger import budget_ledger
from ..chapter.models import (
    SUMMARY_LABELS_EN,
    SUMMARY_LABELS_ZH,
    Budget,
    BuildContextResult,
    CompactionEntry,
    InteractionGroup,
    LedgerRow,
    MessageEntry,
    SessionEntry,
    SummaryLabels,
    TokenProjection,
)
from ..chapter.restoring import render_summary, summary_message
from .chart_font import use_chart_font
from .failures import errors_frame
from .tables import styled, styler_html, table_html
from .translated import set_notebook_language, shown

__all__ = [
    "COMPACTION_DRIFTS",
    "CONTENT_WIDTH",
    "GROUP_COLOURS",
    "NO_VALUE",
    "ROLE_COLOURS",
    "SUMMARISED",
    "WireEdit",
    "cut_points_frame",
    "deduction_frame",
    "describe_entry",
    "describe_message",
    "entry_fields_frame",
    "first_kept_frame",
    "fixture_frame",
    "group_budget_frame",
    "group_colour",
    "group_labels",
    "groups_frame",
    "head_size",
    "ledger_agreement_frame",
    "ledger_frame",
    "messages_frame",
    "parser_refusals_frame",
    "path_arrow",
    "projection_frame",
    "setup_notebook",
    "styled_fixture_frame",
    "summary_labels",
    "summary_lines_frame",
    "system_frame",
    "token_column",
    "workbook_root",
]

NO_VALUE = "—"
"""Shown where a column does not apply (a replayed or synthetic message has no entry id)."""

GROUP_COLOURS: tuple[str, ...] = ("#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#e0f2fe")
"""Background colours of groups 1, 2, 3, ... (the widgets' bar uses the same ones)."""

ROLE_COLOURS: dict[str, str] = {
    "system": "#e5e7eb",
    "compaction": "#ede9fe",
    "summarised": "#f3f4f6",
}
"""Rows that belong to no group: prompt state, compactions, and what a summary stands in for."""


# --- notebook set-up ---------------------------------------------------------


def _styler_as_text(styler: Styler, printer: Any, cycle: bool) -> None:
    printer.text(styler.data.to_string())  # type: ignore[attr-defined]  # not in pandas-stubs


def setup_notebook(lang: Lang = "en") -> None:
    """Display options every lab notebook starts with, so stored outputs stay comparable.

    Long error messages are shown whole (pandas cuts cells at 50 characters by
    default), a Styler's plain-text form is its table instead of its class
    name and memory address, which would differ on every run, and every
    table is drawn by ``table_html`` (left-aligned, no 0..n index) with its
    headers in the edition's language (``lang``: the notebook's ``LANG``).
    The library's messages the views show (``errors_frame``, import notes)
    and the charts' font follow ``lang`` too.
    """
    if lang not in ("en", "zh"):
        raise ValueError(f"unknown notebook language {lang!r}; choose 'en' or 'zh'")
    set_notebook_language(lang)
    use_chart_font(lang)
    pd.set_option("display.max_colwidth", None)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 100)
    from IPython import get_ipython  # only present inside Jupyter / IPython

    shell = get_ipython()
    if shell is not None:
        plain = shell.display_formatter.formatters["text/plain"]
        plain.for_type(Styler, _styler_as_text)
        html = shell.display_formatter.formatters["text/html"]
        html.for_type(pd.DataFrame, lambda frame: table_html(frame, lang))
        html.for_type(Styler, lambda styler: styler_html(styler, lang))


def workbook_root() -> Path:
    """The repository folder, relative to where the notebook runs: ``..`` or ``../..``.

    A notebook's kernel starts in the notebook's own folder, and the Chinese
    edition (``notebooks/zh/``) lives one folder deeper than the English one
    (``notebooks/``). So that both editions run the same code,
    ``workbook_root() / "data"`` finds the data and ``workbook_root() /
    "practice"`` the practice package from either: the nearest folder, the
    current one or above it, that holds ``notebooks/``. The path is relative,
    so nothing machine-specific is printed; ``..`` when none is found.
    """
    here = Path.cwd()
    for depth, folder in enumerate((here, *here.parents)):
        if (folder / "notebooks").is_dir():
            return Path(*[".."] * depth) if depth else Path(".")
    return Path("..")


SUMMARY_LABELS: dict[str, SummaryLabels] = {"en": SUMMARY_LABELS_EN, "zh": SUMMARY_LABELS_ZH}


def summary_labels(lang: str) -> SummaryLabels:
    """The summary's labels in a notebook edition's language (``LANG``: ``"en"`` or ``"zh"``)."""
    return SUMMARY_LABELS[lang]


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


@reads_only
def _free(value: object) -> int:
    """An estimator that charges nothing: grouping a path needs no prices."""
    return 0


SUMMARISED = "summarised"
"""The label of a message entry before the newest compaction's first kept entry."""


def group_labels(path: Sequence[SessionEntry]) -> dict[str, str]:
    """Entry id -> ``group N``, ``summarised``, ``system`` or the entry type.

    Groups are the ones ``build_context`` considers, numbered as the chapter
    counts them over the whole path (the ledger numbers them the same way):
    after a compaction only the part from its first kept entry on, which opens
    group 2 when it is ``u2``. The messages before
    that entry are ``summarised``: the compaction's summary stands in for
    them. The budget's own plan decides, so a path whose tool ids do not pair
    up raises the same ``InteractionError`` the budget would.
    """
    plan = plan_budget(path, Budget(0), _free)
    labels = {
        entry_id: f"group {number}"
        for number, group in enumerate(plan.groups, start=plan.first_group_number)
        for entry_id in group.entry_ids
    }
    for entry in path:
        if entry.id in labels:
            continue
        role = _role(entry)
        if role == "system":
            labels[entry.id] = "system"
        elif isinstance(entry, MessageEntry):
            labels[entry.id] = SUMMARISED
        else:
            labels[entry.id] = entry.type
    return labels


def _entry_tokens(entry: SessionEntry, estimate_tokens: Estimator) -> Number | None:
    """What the estimator charges for an entry when it is sent (a summary for a compaction)."""
    if isinstance(entry, MessageEntry):
        return estimate_tokens(entry.message.model_copy(deep=True))
    if isinstance(entry, CompactionEntry):
        return estimate_tokens(summary_message(entry))
    return None  # metadata is never sent to the model


def token_column(values: list[Number | None]) -> pd.Series:
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
        frame["tokens"] = token_column([_entry_tokens(e, estimate_tokens) for e in path])
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
    stored notebook outputs would change on every run). A notebook draws it
    with ``styler_html``, which writes each colour on its cell, so the colours
    survive JupyterLab's sanitizer in a notebook that is not trusted yet.
    """
    styler = styled(fixture_frame(path, estimate_tokens), uuid).apply(_colour_rows, axis=1)
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


# --- Lab 11.1: what the parser refuses --------------------------------------------------


@dataclass(frozen=True)
class WireEdit:
    """One change to an entry's wire dict: ``field`` (dotted: ``summary.goal``) set or removed.

    Why: a table of bad inputs is a list of data (the case's name, the field,
    the value put there), not a list of lambdas a student has to read as code.
    """

    case: str
    """The row's name in the table (``"tokensBefore -1"``, ``"no constraints"`` ...)."""
    field: str
    value: Any = None
    removed: bool = False
    """``True``: the field is taken out instead of set (a missing key)."""

    def applied(self, wire: Mapping[str, Any]) -> dict[str, Any]:
        """A deep copy of ``wire`` with this change made; ``wire`` itself is never touched."""
        edited = copy.deepcopy(dict(wire))
        *parents, last = self.field.split(".")
        target = edited
        for key in parents:
            target = target[key]
        if self.removed:
            del target[last]
        else:
            target[last] = copy.deepcopy(self.value)
        return edited


COMPACTION_DRIFTS: tuple[WireEdit, ...] = (
    WireEdit("summary.nextSteps (old name)", "summary.nextSteps", []),
    WireEdit("summary.invariants (old field)", "summary.invariants", []),
    WireEdit("compactedEntryIds (old field)", "compactedEntryIds", ["u1"]),
    WireEdit("no constraints", "summary.constraints", removed=True),
    WireEdit("no firstKeptEntryId", "firstKeptEntryId", removed=True),
    WireEdit("tokensBefore -1", "tokensBefore", -1),
    WireEdit("tokensBefore infinity", "tokensBefore", float("inf")),
    WireEdit("tokensBefore true", "tokensBefore", True),
    WireEdit('timestamp "100"', "timestamp", "100"),
    WireEdit('completed ["valid", 7]', "summary.completed", ["valid", 7]),
    WireEdit('goal "   "', "summary.goal", "   "),
    WireEdit("parentId null", "parentId", None),
)
"""The drifts of a compaction's wire dict the contract lists: old names, missing keys, bad values.

Each is one change to ``compact-1``'s wire dict that the parser must refuse
(Lab 11.1's table, ``parser_refusals_frame``).
"""


def parser_refusals_frame(
    wire: Mapping[str, Any], edits: Sequence[WireEdit] = COMPACTION_DRIFTS
) -> pd.DataFrame:
    """Parse ``wire`` once per edit, each on a fresh copy: one row per case (error, message).

    Why a named helper: Lab 11.1 shows a dozen bad inputs at once, and a
    notebook cell should read as the rule (every drift is refused, the message
    names the entry and the field), not as a list of lambdas. An edit the
    parser accepts raises ``AssertionError`` (``expected_failure``), so the
    table can never show a refusal that did not happen.
    """
    return errors_frame(
        {edit.case: partial(parse_session_entry, edit.applied(wire)) for edit in edits}
    )


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
    """Every gap between two grouped messages, and whether a budget may cut there (``why`` in
    the notebook's language)."""
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
        rows.append({"cut": f"{before} | {after}", "allowed": allowed, "why": shown(why)})
    return pd.DataFrame(rows)


# --- Labs 11.3 and 11.5: the budget ------------------------------------------------


def head_size(result: BuildContextResult) -> int:
    """How many synthetic messages (replayed system, summary) come before the kept entries."""
    return len(result.messages) - len(result.kept_entry_ids)


def _summary_in(result: BuildContextResult) -> MessageModel | None:
    head = result.messages[: head_size(result)]
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
    head = head_size(result)
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
    the ``CompactionError`` message, which names it (in the notebook's language).
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
            result = f"created, parent {created.parent_id}"
            rows.append((entry.id, _role(entry), True, shown(result)))
        except CompactionError as error:
            rows.append((entry.id, _role(entry), False, shown(str(error))))
    return pd.DataFrame(rows, columns=["first kept", "role", "accepted", "result"])


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
    on a practice package (it shares the workbook's entry types, so any path works).
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
