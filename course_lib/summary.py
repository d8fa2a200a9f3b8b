"""Render a compaction's seven fields as the one synthetic user message the model reads.

The fields are always written in the same order with fixed labels, so two
builds of the same path produce the same text (and the same token cost).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .entries import CompactionEntry, CompactionSummary, describe_validation_error
from .errors import SessionEntryError
from .messages import UserMessage, text

__all__ = [
    "SUMMARY_LABELS_EN",
    "SUMMARY_LABELS_ZH",
    "SummaryLabels",
    "render_summary",
    "summary_message",
]


@dataclass(frozen=True)
class SummaryLabels:
    """The words around the fields; each label carries its own punctuation."""

    title: str
    goal: str
    constraints: str
    completed: str
    decisions: str
    changed_files: str
    unresolved: str
    next: str
    none: str


SUMMARY_LABELS_EN = SummaryLabels(
    title="[Session compaction summary]",
    goal="Goal: ",
    constraints="Constraints:",
    completed="Completed:",
    decisions="Decisions:",
    changed_files="Changed files:",
    unresolved="Unresolved:",
    next="Next:",
    none="(none)",
)

SUMMARY_LABELS_ZH = SummaryLabels(
    title="【会话压缩摘要】",
    goal="目标：",
    constraints="约束：",
    completed="已完成：",
    decisions="决策：",
    changed_files="变更文件：",
    unresolved="未解决：",
    next="下一步：",
    none="（无）",
)

_LIST_FIELDS = ("constraints", "completed", "decisions", "changed_files", "unresolved", "next")


def _as_summary(summary: CompactionSummary | dict[str, Any]) -> CompactionSummary:
    if isinstance(summary, CompactionSummary):
        return summary
    try:
        return CompactionSummary.model_validate(summary, by_alias=True, by_name=False)
    except ValidationError as error:
        raise SessionEntryError(f"summary: {describe_validation_error(error)}") from None


def render_summary(
    summary: CompactionSummary | dict[str, Any], labels: SummaryLabels = SUMMARY_LABELS_EN
) -> str:
    """The summary as text: title, goal, then each list field; an empty list shows ``none``.

    Fixed order and fixed labels make two builds of one path send the same
    text, so the summary's token cost is the same every time. Line by line,
    joined by newlines, with none after the last (``SUMMARY_LABELS_EN``):

    * ``labels.title`` (``[Session compaction summary]``), then
      ``labels.goal`` followed by the goal (``Goal: <goal>``);
    * for each list field in ``_LIST_FIELDS`` order (constraints, completed,
      decisions, changed files, unresolved, next): its label on a line of
      its own (``Constraints:``), then one ``- <item>`` line per item, written
      exactly as given, or the single line ``- (none)`` (``labels.none``)
      when the list is empty.

    ``summary`` may also be the wire dict of a summary (``_as_summary``).
    """
    # --- Lab 11.5 resume compaction: begin ---
    fields = _as_summary(summary)
    lines = [labels.title, f"{labels.goal}{fields.goal}"]
    for name in _LIST_FIELDS:
        lines.append(getattr(labels, name))
        items = getattr(fields, name) or [labels.none]
        lines.extend(f"- {item}" for item in items)
    return "\n".join(lines)
    # --- Lab 11.5: end ---


def summary_message(compaction_entry: CompactionEntry) -> UserMessage:
    """The synthetic user message that stands in for everything before the first kept entry.

    A **user** message whose one text block is ``render_summary`` of the
    entry's summary (English labels), with the compaction's own timestamp.
    It is built fresh on every call, so a result never shares it.
    """
    # --- Lab 11.5 resume compaction: begin ---
    return UserMessage(
        content=[text(render_summary(compaction_entry.summary))],
        timestamp=compaction_entry.timestamp,
    )
    # --- Lab 11.5: end ---
