"""Choose each imported compaction's first kept entry by the chapter's rule, and say why.

The chapter restores from a compaction by sending its summary and then every
whole interaction from ``firstKeptEntryId`` on: that id must be a user message
(a group start) before the compaction on its path. The agents keep something
else. Claude Code usually keeps nothing (its summary replaces the history);
Codex keeps some of the user's own messages but none of the replies. So:

* when the agent kept nothing, the chapter keeps the least it can: the newest
  interaction before the compaction (its user message), and a note says so;
* when the agent kept entries, the first kept entry is the user message that
  starts the interaction of the earliest one: the smallest range of whole
  interactions holding all it kept, and a note says when that is wider;
* when no user message lies before the compaction, nothing can be restored
  from it: it becomes a metadata entry, with a note.

Runs once over the repaired drafts (parents before children): each entry
learns the newest user message on its path from its parent, and an interval
per entry answers "is this entry on that path?" in constant time, so the
whole step is linear however many compactions there are.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ._agent_base import AgentCompaction, AgentNoteKind
from ._base import NoteLog
from ._pi_convert import Draft

__all__ = ["CompactionPlan", "resolve_compactions"]


@dataclass
class CompactionPlan:
    """What the importer read about one compaction, before the first kept entry is chosen."""

    entry_id: str
    line: int
    agent: str  # "Claude Code" or "Codex"
    prefix: str  # the metadata key prefix if it cannot be restored
    trigger: str | None
    tokens_before: int | float
    tokens_after: int | float | None
    agent_kept: list[str]  # course ids of what the agent kept (empty: nothing)
    kept_words: str | None  # what the agent kept of them, when not whole interactions
    fields_filled: tuple[str, ...]
    unmapped_items: int


def _describe(draft: Draft) -> str:
    """An entry as a note names it: id, kind and line."""
    kind = f"{draft.role} message" if draft.role else f"{draft.wire['type']} entry"
    return f"{draft.id} ({kind}, line {draft.line})" if draft.line else f"{draft.id} ({kind})"


class _Tree:
    """Per entry: the newest user message on its path, and (when asked) its depth-first interval."""

    def __init__(self, drafts: list[Draft]) -> None:
        self.by_id = {draft.id: draft for draft in drafts}
        self.last_user: dict[str, str | None] = {}
        self.children: dict[str | None, list[str]] = {}
        for draft in drafts:  # parents come before their children
            parent = draft.parent_id
            self.children.setdefault(parent, []).append(draft.id)
            inherited = self.last_user.get(parent) if parent is not None else None
            self.last_user[draft.id] = draft.id if draft.role == "user" else inherited

    @cached_property
    def intervals(self) -> tuple[dict[str, int], dict[str, int]]:
        """``(enter, leave)`` clock times of a depth-first walk: one ancestor test in constant
        time. Walked the first time a question needs it: most compactions keep nothing."""
        enter: dict[str, int] = {}
        leave: dict[str, int] = {}
        clock = 0
        children = self.children
        stack: list[tuple[str, bool]] = [(root, False) for root in reversed(children.get(None, []))]
        while stack:
            entry_id, done = stack.pop()
            clock += 1
            if done:
                leave[entry_id] = clock
                continue
            enter[entry_id] = clock
            stack.append((entry_id, True))
            stack.extend((kid, False) for kid in reversed(children.get(entry_id, [])))
        return enter, leave

    def entered(self, entry_id: str) -> int:
        """When the depth-first walk reached ``entry_id``: an ancestor is reached first."""
        return self.intervals[0][entry_id]

    def on_path_to(self, entry_id: str, leaf: str) -> bool:
        """Whether ``entry_id`` is ``leaf`` or one of its ancestors."""
        enter, leave = self.intervals
        if entry_id not in enter or leaf not in enter:
            return False
        return enter[entry_id] <= enter[leaf] and leave[leaf] <= leave[entry_id]


def _unrestorable(draft: Draft, plan: CompactionPlan, notes: NoteLog) -> None:
    """A compaction with no user message before it: kept as metadata, never sent."""
    wire = draft.wire
    value: dict[str, Any] = {
        "summary": wire.pop("summary"),
        "tokensBefore": wire.pop("tokensBefore"),
    }
    wire.pop("firstKeptEntryId", None)
    wire.update(type="metadata", key=f"{plan.prefix}.compaction", value=value)
    notes.add(
        AgentNoteKind.COMPACTION_UNRESTORABLE,
        plan.line,
        plan.entry_id,
        "no user message lies before this compaction on its path, so the chapter cannot "
        f"restore from it: kept as metadata {plan.prefix}.compaction",
    )


def _choose(plan: CompactionPlan, draft: Draft, tree: _Tree, notes: NoteLog) -> str | None:
    """The first kept entry of one compaction (``None``: it cannot be restored)."""
    parent = draft.parent_id
    if parent is None:
        return None
    on_path = [kept for kept in plan.agent_kept if tree.on_path_to(kept, parent)]
    missing = [kept for kept in plan.agent_kept if kept not in on_path]
    if missing:
        notes.add(
            AgentNoteKind.KEPT_NOT_ON_PATH,
            plan.line,
            plan.entry_id,
            f"{plan.agent} kept {len(missing)} record(s) this path does not hold before the "
            f"compaction ({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}): ignored",
        )
    if on_path:
        earliest = min(on_path, key=tree.entered)
        start = tree.last_user.get(earliest)
        if start is not None:
            if start != earliest:
                notes.add(
                    AgentNoteKind.FIRST_KEPT_WIDENED,
                    plan.line,
                    plan.entry_id,
                    f"{plan.agent} kept from {_describe(tree.by_id[earliest])}; the chapter keeps "
                    f"whole interactions, so the first kept entry is "
                    f"{_describe(tree.by_id[start])}, the user message that starts it",
                )
            elif plan.kept_words:
                notes.add(
                    AgentNoteKind.FIRST_KEPT_WIDENED,
                    plan.line,
                    plan.entry_id,
                    f"{plan.agent} kept {plan.kept_words} from {_describe(tree.by_id[start])} "
                    "on; the chapter keeps whole interactions, so everything from there is kept",
                )
            return start
    start = tree.last_user.get(parent)
    if start is None:
        return None
    notes.add(
        AgentNoteKind.AGENT_KEPT_NOTHING,
        plan.line,
        plan.entry_id,
        f"{plan.agent} kept nothing before this compaction (its summary stands for the whole "
        "history); the chapter keeps from a user message before it, so the first kept entry "
        f"is the newest interaction's start, {_describe(tree.by_id[start])}",
    )
    return start


def resolve_compactions(
    drafts: list[Draft], plans: list[CompactionPlan], notes: NoteLog
) -> list[AgentCompaction]:
    """Set every planned compaction's ``firstKeptEntryId`` (or demote it); one record per plan."""
    if not plans:
        return []
    tree = _Tree(drafts)
    records: list[AgentCompaction] = []
    for plan in plans:
        draft = tree.by_id[plan.entry_id]
        start = _choose(plan, draft, tree, notes)
        if start is None:
            _unrestorable(draft, plan, notes)
        else:
            draft.wire["firstKeptEntryId"] = start
        records.append(
            AgentCompaction(
                entry_id=plan.entry_id,
                line=plan.line,
                after_entry_id=draft.parent_id,
                trigger=plan.trigger,
                tokens_before=plan.tokens_before,
                tokens_after=plan.tokens_after,
                agent_kept=tuple(plan.agent_kept),
                first_kept_entry_id=start,
                fields_filled=plan.fields_filled,
                unmapped_items=plan.unmapped_items,
            )
        )
    return records
