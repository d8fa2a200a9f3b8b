"""A pi import's usage and compactions in the form the Claude Code and Codex imports give them.

Why: a notebook that sets three agents side by side asks each import the
same questions (the agent's own token counts per turn, where its compactions
fell and which summary fields they filled). The pi importer already keeps
everything needed in its entries and notes; this reads it out, without
changing that importer.
"""

from __future__ import annotations

from ...base.messages import AssistantMessage
from ...chapter.models import CompactionEntry, MessageEntry
from ._agent_base import AgentCompaction, AgentUsage
from ._agent_summary import SUMMARY_FIELDS, items_named
from ._pi_summary import GOAL_FALLBACK
from .pi import ImportResult

__all__ = ["pi_compactions", "pi_usage"]


def _line(entry_id: str, version: int) -> int | None:
    """The line a v1 entry came from (``L0005`` is line 5); v2/v3 ids do not say."""
    digits = entry_id[1:]
    if version == 1 and entry_id[:1] == "L" and digits.isdecimal():
        return int(digits)
    return None


def pi_usage(imported: ImportResult) -> dict[str, AgentUsage]:
    """pi's counts per assistant entry: ``prompt`` is ``totalTokens - output`` (cache reads included)."""
    version = imported.source.version
    usage: dict[str, AgentUsage] = {}
    for entry in imported.entries:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            counts = entry.message.usage
            prompt = max(0, counts.total_tokens - counts.output)
            cached = max(0, prompt - counts.input)
            usage[entry.id] = AgentUsage(
                entry.id, _line(entry.id, version), prompt, counts.output, cached, 0
            )
    return usage


def pi_compactions(imported: ImportResult) -> list[AgentCompaction]:
    """Each pi compaction: where it fell, where it keeps from, which fields its summary filled.

    pi names its first kept entry; the importer moved it to the user message
    that starts its interaction when needed (a ``first_kept_moved`` note), so
    what pi kept and what the chapter keeps start at the same entry here.
    """
    version = imported.source.version
    unmapped: dict[str, int] = {}
    for note in imported.notes:
        if note.kind == "summary_section_unmapped" and note.entry_id is not None:
            unmapped[note.entry_id] = unmapped.get(note.entry_id, 0) + items_named(note.detail)
    found = []
    for entry in imported.entries:
        if not isinstance(entry, CompactionEntry):
            continue
        wire = entry.summary.to_wire()
        filled = tuple(
            name
            for name in SUMMARY_FIELDS
            if (wire[name] != GOAL_FALLBACK if name == "goal" else bool(wire[name]))
        )
        found.append(
            AgentCompaction(
                entry_id=entry.id,
                line=_line(entry.id, version),
                after_entry_id=entry.parent_id,
                trigger=None,
                tokens_before=entry.tokens_before,
                tokens_after=None,
                agent_kept=(entry.first_kept_entry_id,),
                first_kept_entry_id=entry.first_kept_entry_id,
                fields_filled=filled,
                unmapped_items=unmapped.get(entry.id, 0),
            )
        )
    return found
