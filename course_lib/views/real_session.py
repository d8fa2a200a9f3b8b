"""Tables of a real pi session: what the importer kept, what the estimators say, where a budget cuts.

Notebook 07 goes beyond the ten-entry fixture with these; every number comes
from the importer, the estimators and ``build_context``. The words a table
adds (an import note, a kind of message, the ledger's markers) are in the
notebook's language (``views.setup_notebook``); ids, numbers, kinds of note
and column names are as the code writes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ..base.errors import CourseError
from ..base.i18n import N_, tr
from ..base.messages import AssistantMessage, MessageModel
from ..base.pricing import Estimator, Number
from ..beyond.importers import DetectedImport
from ..beyond.importers._base import by_severity
from ..beyond.importers.pi import ImportResult, PiSource
from ..chapter.budget import build_context
from ..chapter.groups import group_interactions
from ..chapter.models import CompactionEntry, LedgerRow, MessageEntry, SessionEntry
from ..chapter.sessions import path_to
from .frames import NO_VALUE, head_size, token_column
from .translated import notebook_language, shown

__all__ = [
    "PI_ENTRY_TYPES",
    "PI_KEEP_RECENT_TOKENS",
    "entry_counts_frame",
    "estimator_comparison_frame",
    "import_notes_frame",
    "interaction_sizes_frame",
    "kept_range_frame",
    "ledger_excerpt_frame",
    "message_kind",
    "message_tokens_frame",
    "pi_compactions_frame",
    "pi_source_frame",
]

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


def import_notes_frame(result: ImportResult | DetectedImport) -> pd.DataFrame:
    """What the importer repaired or skipped, one row per note (severity, kind, line, entry_id,
    detail), warnings first.

    A warning changed what the model is sent (``ImportNote.severity``), so it
    leads; each severity keeps the order the notes were made in. ``detail`` is
    in the notebook's language; its lines and ids are the note's own.
    """
    frame = pd.DataFrame(
        [
            (n.severity, n.kind, n.line, n.entry_id, shown(n.detail))
            for n in by_severity(result.notes)
        ],
        columns=["severity", "kind", "line", "entry_id", "detail"],
    )
    frame["line"] = frame["line"].astype("Int64")
    return frame


def pi_source_frame(source: PiSource) -> pd.DataFrame:
    """What a pi file held before any mapping: lines per entry type, then messages per role.

    Every known pi entry type gets a row, so a type the file lacks shows as 0
    (``compaction 0`` says plainly that pi never compacted the session); a type
    pi does not document is listed after them.
    """
    counts = source.entry_counts
    lang = notebook_language()
    entry_type, message_role = tr(lang, "entry type"), tr(lang, "message role")
    rows = [(entry_type, name, counts.get(name, 0)) for name in PI_ENTRY_TYPES]
    rows += [(entry_type, name, n) for name, n in counts.items() if name not in PI_ENTRY_TYPES]
    rows += [(message_role, name, n) for name, n in source.role_counts.items()]
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


_ASSISTANT_KINDS = (N_("assistant (tool calls)"), N_("assistant (text)"))


def message_kind(message: MessageModel) -> str:
    """The role, with assistant turns split into ``assistant (tool calls)`` and ``assistant (text)``."""
    if isinstance(message, AssistantMessage):
        return _ASSISTANT_KINDS[0] if message.tool_calls else _ASSISTANT_KINDS[1]
    return message.role


def _kind_shown(kind: str) -> str:
    """A message kind in the notebook's language (a role is a name of the code: it stays)."""
    return tr(notebook_language(), kind) if kind in _ASSISTANT_KINDS else kind


def message_tokens_frame(
    path: Sequence[SessionEntry], estimators: Mapping[str, Estimator]
) -> pd.DataFrame:
    """One row per message entry of the path: its id, kind and one column per estimator.

    Each estimator prices a copy of each message, as ``build_context`` does. The
    assistant kinds are in the notebook's language.
    """
    rows = []
    for entry in path:
        if not isinstance(entry, MessageEntry):
            continue
        kind = _kind_shown(message_kind(entry.message))
        row: dict[str, Any] = {"entry id": entry.id, "kind": kind}
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
        index=[tr(notebook_language(), "all messages")],
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
    frame["provider tokens"] = token_column(provider)
    return frame


def ledger_excerpt_frame(
    rows: Sequence[LedgerRow], *, edge: int = 3, around_cut: int = 2
) -> pd.DataFrame:
    """A long ledger in short: the ``edge`` oldest and newest groups and both sides of the cut.

    The rows left out become one ``…`` row saying how many, and a ``cut`` row
    sits between the last group left out and the first group kept, as
    ``course-lab inspect`` prints its ledger (their words in the notebook's language).
    """
    count = len(rows)
    cut = next((index for index, row in enumerate(rows) if row.status != "trimmed"), count)
    shown = set(range(min(edge, count))) | set(range(max(0, count - edge), count))
    if 0 < cut < count:
        shown |= set(range(max(0, cut - around_cut), min(count, cut + around_cut)))
    blank = ("", "", "", "")
    lang = notebook_language()
    records: list[tuple[Any, ...]] = []
    previous = -1
    for index in sorted(shown):
        if index > previous + 1:
            hidden = index - previous - 1
            more = (
                tr(lang, "{count} more group", count=hidden)
                if hidden == 1
                else tr(lang, "{count} more groups", count=hidden)
            )
            records.append(("…", *blank, more))
        if index == cut and cut > 0:
            records.append(
                ("cut", *blank, tr(lang, "groups above are left out, groups below are kept"))
            )
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
            kept_messages = result.messages[head_size(result) :]
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
        note.entry_id: shown(note.detail)
        for note in imported.notes
        if note.kind == "first_kept_moved"
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
            ours = f"({shown(str(error))})"
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
