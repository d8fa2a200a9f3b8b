"""Tables of three agents' sessions side by side: pi, Claude Code and Codex CLI under one budget.

Notebook 09 asks each import the same questions (``import_session`` gives a
``DetectedImport`` whatever the format): what the file became, what the
import changed, what one budget keeps, where the agent's own compactions fell
against the chapter's projection, which of the seven summary fields they
filled, and what the agent counted next to the chapter's estimate. Every
number comes from the importers and ``build_context``; nothing is typed by hand.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..base.errors import CourseError
from ..base.messages import AssistantMessage, text_of
from ..base.pricing import Estimator, Number
from ..beyond.importers import AgentCompaction, AgentNoteKind, DetectedImport
from ..beyond.importers._base import SEVERITIES, severity_of
from ..chapter.budget import build_context
from ..chapter.groups import group_interactions
from ..chapter.models import CompactionSummary, InteractionGroup, MessageEntry, SessionEntry
from ..chapter.sessions import path_to
from .frames import NO_VALUE, head_size, token_column
from .story import untrimmed_message_tokens
from .translated import shown

__all__ = [
    "FILLED",
    "INJECTED_CONTEXT",
    "SUMMARY_FIELD_NAMES",
    "agent_compactions_frame",
    "agent_overview_frame",
    "agent_usage_frame",
    "compaction_groups",
    "injected_context_frame",
    "note_kinds_frame",
    "summary_fields_frame",
    "usage_summary_frame",
]

SUMMARY_FIELD_NAMES: tuple[str, ...] = tuple(
    field.alias or name for name, field in CompactionSummary.model_fields.items()
)
"""The seven summary fields by their wire names (``changedFiles``), in the chapter's order."""

FILLED = "✓"
"""Marks a summary field an agent's compaction filled (``NO_VALUE`` marks an empty one)."""


def _message_groups(path: Sequence[SessionEntry]) -> list[InteractionGroup]:
    """The interactions of every message entry on the path (compactions and metadata skipped)."""
    return group_interactions([entry for entry in path if isinstance(entry, MessageEntry)])


def _column_names(imports: Mapping[str, DetectedImport]) -> dict[str, str]:
    """Each file's column: the agent's name, or ``name: file`` when two files share an agent."""
    labels = Counter(imported.label for imported in imports.values())
    return {
        name: imported.label if labels[imported.label] == 1 else f"{imported.label}: {name}"
        for name, imported in imports.items()
    }


def agent_overview_frame(
    imports: Mapping[str, DetectedImport],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
) -> pd.DataFrame:
    """One row per file (``imports``: file name -> import): what it became and what a budget keeps.

    ``entries`` counts every course entry, ``active path`` those from the root
    to the imported leaf (rewinds and branches leave the others off it),
    ``interactions`` the groups of the path's message entries, ``notes`` every
    change the import reported. The kept range is ``build_context``'s for the
    same window on every path, so three agents are held to one budget;
    ``groups kept`` counts the user messages among the kept messages, each
    interaction's first (Lab 11.2).
    """
    rows = []
    for name, imported in imports.items():
        path = imported.active_path()
        result = build_context(
            path,
            max_tokens=max_tokens,
            reserved_output=reserved_output,
            safety_margin=safety_margin,
            estimate_tokens=estimate_tokens,
        )
        kept = result.kept_entry_ids
        kept_messages = result.messages[head_size(result) :]
        rows.append(
            {
                "agent": imported.label,
                "file": name,
                "entries": len(imported.entries),
                "active path": len(path),
                "interactions": len(_message_groups(path)),
                "notes": len(imported.notes),
                "compactions": len(imported.compactions),
                "first kept": kept[0] if kept else NO_VALUE,
                "last kept": kept[-1] if kept else NO_VALUE,
                "entries kept": len(kept),
                "groups kept": sum(message.role == "user" for message in kept_messages),
                "reason": result.reason,
            }
        )
    return pd.DataFrame(rows)


def note_kinds_frame(imports: Mapping[str, DetectedImport]) -> pd.DataFrame:
    """The import notes by kind and severity, one column per agent (0 where an import wrote none).

    Warnings come first (``ImportNote.severity``: the import changed what the
    model is sent), then info. Within each, rows run from the kind written most
    often over all files to the rarest, ties in the order the kinds first
    appear, so the kinds the three agents share and those only one of them
    needs are easy to tell apart.
    """
    columns = _column_names(imports)
    counts = {columns[name]: imported.note_counts() for name, imported in imports.items()}
    totals: Counter[str] = Counter()
    for per_kind in counts.values():
        totals.update(per_kind)
    kinds = sorted(
        (kind for kind, _ in totals.most_common()),
        key=lambda kind: SEVERITIES.index(severity_of(kind)),
    )
    return pd.DataFrame(
        [
            {
                "severity": severity_of(kind),
                "kind": kind,
                **{column: per_kind.get(kind, 0) for column, per_kind in counts.items()},
            }
            for kind in kinds
        ],
        columns=["severity", "kind", *counts],
    )


INJECTED_CONTEXT = AgentNoteKind.INJECTED_CONTEXT
"""The note kind an importer writes for a user message the agent injected itself (Codex's
environment context, user instructions, ``AGENTS.md``)."""

_CONTEXT_TAG = re.compile(r"<([A-Za-z_][\w-]*)>")
_AGENTS_FILE = "# AGENTS.md"


def _context_kind(text: str) -> str:
    """What an injected message holds, by its opening: its tag (``environment_context``,
    ``user_instructions``), ``AGENTS.md`` for the project's instructions file."""
    text = text.lstrip()
    if text.startswith(_AGENTS_FILE):
        return _AGENTS_FILE.removeprefix("# ")
    tag = _CONTEXT_TAG.match(text)
    return tag.group(1) if tag else NO_VALUE


def injected_context_frame(imported: DetectedImport, estimate_tokens: Estimator) -> pd.DataFrame:
    """The user messages the agent injected itself, one row per entry an ``injected_context``
    note names: its id, its line, what kind of context it holds, its tokens.

    Why a table of them: they were sent to the model as user turns, so the
    chapter groups each as an interaction and a tight budget may trim it like
    any other; the agent would send them again. ``tokens`` prices the message
    as ``build_context`` does (a copy, by ``estimate_tokens``). An empty frame:
    the import marked none.
    """
    entries = {entry.id: entry for entry in imported.entries}
    rows = []
    named = [note for note in imported.notes if note.kind == INJECTED_CONTEXT]
    for entry_id in dict.fromkeys(note.entry_id for note in named):
        entry = entries.get(entry_id) if entry_id is not None else None
        if not isinstance(entry, MessageEntry):
            continue
        message = entry.message
        line = next(note.line for note in named if note.entry_id == entry_id)
        tokens = estimate_tokens(message.model_copy(deep=True))
        rows.append((entry.id, line, _context_kind(text_of(message)), tokens))
    frame = pd.DataFrame(rows, columns=["entry id", "line", "kind of context", "tokens"])
    frame["line"] = frame["line"].astype("Int64")
    return frame


def _chapter_at(
    imported: DetectedImport, compaction: AgentCompaction, budget: Mapping[str, Any]
) -> tuple[Number | str, str, str]:
    """What the chapter says of the history the agent compacted: its cost, first kept, reason.

    A history the chapter refuses (a call whose result only comes after the
    compaction, in someone's own file) shows the refusal in place of the
    first kept entry, as ``pi_compactions_frame`` does, rather than hiding the row (in the
    notebook's language, its locators as they are).
    """
    if compaction.after_entry_id is None:
        return NO_VALUE, NO_VALUE, NO_VALUE
    before = path_to(imported.entries, compaction.after_entry_id)
    try:
        result = build_context(before, **budget)
        tokens = untrimmed_message_tokens(before, budget["estimate_tokens"])
    except CourseError as error:
        return NO_VALUE, f"({shown(str(error))})", NO_VALUE
    first = result.kept_entry_ids[0] if result.kept_entry_ids else NO_VALUE
    return tokens, first, result.reason


def agent_compactions_frame(
    imports: Mapping[str, DetectedImport],
    *,
    max_tokens: Number,
    reserved_output: Number = 0,
    safety_margin: Number = 0,
    estimate_tokens: Estimator,
) -> pd.DataFrame:
    """Every compaction an agent made, beside the chapter's projection of the same history.

    ``after entry`` is where the agent's compaction fell (the entry it hangs
    under), ``agent kept`` how many entries the agent said it kept (0: its
    summary stands for everything), ``first kept`` the entry the import chose by
    the chapter's rule. The chapter's side projects the path up to ``after
    entry`` (an earlier compaction on it restores as in Lab 11.5) with the
    given window: ``tokens before (chapter)`` is what those messages cost
    untrimmed under ``estimate_tokens``, beside the count the agent recorded,
    and ``build_context reason`` says whether the chapter would have had to
    cut at that point at all. An empty frame: no agent compacted.
    """
    budget = {
        "max_tokens": max_tokens,
        "reserved_output": reserved_output,
        "safety_margin": safety_margin,
        "estimate_tokens": estimate_tokens,
    }
    columns = [
        "agent",
        "compaction",
        "line",
        "trigger",
        "after entry",
        "agent kept",
        "first kept",
        "tokens before (agent)",
        "tokens before (chapter)",
        "build_context first kept",
        "build_context reason",
    ]
    rows = []
    for imported in imports.values():
        for compaction in imported.compactions:
            chapter_tokens, chapter_first, reason = _chapter_at(imported, compaction, budget)
            rows.append(
                (
                    imported.label,
                    compaction.entry_id,
                    compaction.line,
                    compaction.trigger or NO_VALUE,
                    compaction.after_entry_id or NO_VALUE,
                    len(compaction.agent_kept),
                    compaction.first_kept_entry_id or NO_VALUE,
                    compaction.tokens_before,
                    chapter_tokens,
                    chapter_first,
                    reason,
                )
            )
    frame = pd.DataFrame(rows, columns=columns)
    frame["line"] = frame["line"].astype("Int64")
    return frame


def summary_fields_frame(imports: Mapping[str, DetectedImport]) -> pd.DataFrame:
    """Which of the seven summary fields each agent's compactions filled, one row per compaction.

    A field the agent's summary text filled shows ``FILLED``, an empty one
    ``NO_VALUE``; ``filled`` counts them, and ``unmapped items`` counts the
    items of the agent's text that fit no field (the import kept them in
    ``unresolved`` under their own heading, so nothing was lost).
    """
    rows = []
    for imported in imports.values():
        for compaction in imported.compactions:
            row: dict[str, Any] = {"agent": imported.label, "compaction": compaction.entry_id}
            for name in SUMMARY_FIELD_NAMES:
                row[name] = FILLED if name in compaction.fields_filled else NO_VALUE
            row["filled"] = len(set(compaction.fields_filled) & set(SUMMARY_FIELD_NAMES))
            row["unmapped items"] = compaction.unmapped_items
            rows.append(row)
    columns = ["agent", "compaction", *SUMMARY_FIELD_NAMES, "filled", "unmapped items"]
    return pd.DataFrame(rows, columns=columns)


def agent_usage_frame(imported: DetectedImport, estimate_tokens: Estimator) -> pd.DataFrame:
    """Per interaction: the largest prompt the agent counted, beside the chapter's estimate of it.

    One row per interaction of the active path in which the agent recorded
    counts for at least one call (a prompt above 0; an aborted turn has
    none). ``largest call`` is that interaction's assistant entry with the
    largest ``prompt (agent)``: every input token the model read for the call,
    cached or not. ``context (chapter)`` is what ``build_context`` sends
    before that call when nothing has to be cut: the messages before the
    entry, restored from the newest compaction before it, priced by
    ``estimate_tokens``. ``difference`` is what the agent counted that the
    chapter's estimate of the file does not hold (its system prompt and tool
    definitions, another tokenizer).
    """
    path = imported.active_path()
    usage = imported.usage
    position = {entry.id: index for index, entry in enumerate(path)}
    columns = [
        "group",
        "first id",
        "calls counted",
        "largest call",
        "prompt (agent)",
        "context (chapter)",
        "difference",
    ]
    rows: list[tuple[int, str, int, str]] = []
    counts: dict[str, list[Number | None]] = {name: [] for name in columns[4:]}
    for number, group in enumerate(_message_groups(path), start=1):
        counted = [
            usage[entry.id]
            for entry in group.entries
            if isinstance(entry.message, AssistantMessage)
            and entry.id in usage
            and usage[entry.id].prompt > 0
        ]
        if not counted:
            continue
        largest = max(counted, key=lambda call: call.prompt)
        before = path[: position[largest.entry_id]]
        try:
            context: Number | None = untrimmed_message_tokens(before, estimate_tokens)
        except CourseError:  # the chapter refuses the history before this call: no estimate
            context = None
        rows.append((number, group.entry_ids[0], len(counted), largest.entry_id))
        counts["prompt (agent)"].append(largest.prompt)
        counts["context (chapter)"].append(context)
        counts["difference"].append(None if context is None else largest.prompt - context)
    frame = pd.DataFrame(rows, columns=columns[:4])
    for name, values in counts.items():  # whole numbers stay integers beside a missing one
        frame[name] = token_column(values)
    return frame


def usage_summary_frame(usage: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per agent (``usage``: agent -> ``agent_usage_frame``): first and last interaction.

    The first interaction's ``difference`` is about what the agent sends
    besides the file's messages before any history exists; the last one's
    shows whether the two counts drifted apart as the session grew.
    """
    columns = [
        "agent",
        "interactions counted",
        "first: prompt (agent)",
        "first: context (chapter)",
        "last: prompt (agent)",
        "last: context (chapter)",
        "largest prompt (agent)",
    ]
    rows: list[tuple[str, int]] = []
    figures: list[list[Number | None]] = [[] for _ in columns[2:]]
    for agent, frame in usage.items():
        records: list[dict[str, Any]] = [
            {str(name): None if pd.isna(value) else value for name, value in record.items()}
            for record in frame.to_dict("records")  # plain Python numbers, None for <NA>
        ]
        rows.append((agent, len(records)))
        if not records:  # an agent that recorded no counts (or a file without usage)
            for column in figures:
                column.append(None)
            continue
        first, last = records[0], records[-1]
        prompts: list[Number] = [record["prompt (agent)"] for record in records]
        found = (
            first["prompt (agent)"],
            first["context (chapter)"],
            last["prompt (agent)"],
            last["context (chapter)"],
            max(prompts),
        )
        for column, value in zip(figures, found, strict=True):
            column.append(value)
    table = pd.DataFrame(rows, columns=columns[:2])
    for name, values in zip(columns[2:], figures, strict=True):
        table[name] = token_column(values)  # whole numbers stay integers beside a missing one
    return table


def compaction_groups(imported: DetectedImport) -> list[int]:
    """For each compaction on the active path, the number of the last interaction before it.

    A chart draws the compaction between that interaction and the next
    (``number + 0.5``); 0 means it came before any interaction.
    """
    path = imported.active_path()
    group_of = {
        entry_id: number
        for number, group in enumerate(_message_groups(path), start=1)
        for entry_id in group.entry_ids
    }
    on_path = {entry.id for entry in path}
    found = []
    for compaction in imported.compactions:
        if compaction.entry_id not in on_path:
            continue
        last = 0
        for entry in path:
            if entry.id == compaction.entry_id:
                break
            last = group_of.get(entry.id, last)
        found.append(last)
    return found
