"""Lab 11.5: restore from the newest compaction; its summary becomes one synthetic user message.

Chapter 11 §6 「恢复时把最新摘要接在保留后缀前面」 (restoring puts the newest
summary before the kept suffix). Nothing is deleted: ``build_context`` finds the
newest compaction, groups only the path from its first kept entry on, and sends
the seven fields, in a fixed order, right after the replayed system message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from course_lib.base.errors import CompactionError, SessionEntryError
from course_lib.base.messages import UserMessage, text
from course_lib.base.validation import describe_validation_error

from .entries import CompactionEntry, CompactionSummary, MessageEntry, SessionEntry


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
    """What an empty list shows, after ``- ``."""


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
"""The course's own labels: full-width colons, no space after them."""

LIST_FIELDS = ("constraints", "completed", "decisions", "changed_files", "unresolved", "next")
"""The six list fields in the order they are rendered, after the goal."""


def newest_compaction(active_path: Sequence[SessionEntry]) -> CompactionEntry | None:
    """The compaction entry nearest the leaf, or ``None``: older summaries are never sent again.

    Chapter 11 §6 「恢复时把最新摘要接在保留后缀前面」, step 1 · Lab 11.5.
    """
    # --- Lab 11.5 resume compaction: begin ---
    for entry in reversed(active_path):
        if isinstance(entry, CompactionEntry):
            return entry
    return None
    # --- Lab 11.5: end ---


def restored_suffix(
    active_path: Sequence[SessionEntry], compaction: CompactionEntry
) -> Sequence[SessionEntry]:
    """The path from the compaction's first kept entry on: all that is grouped after restoring.

    Chapter 11 §6 「恢复时把最新摘要接在保留后缀前面」, step 2 · Lab 11.5.
    The first kept id must name a *user message entry* lying *before the
    compaction* on the path: an id not on the path, an assistant or system
    message (``a2``, ``patch-2``), a metadata entry or an entry after the
    compaction (``u4``) is an error. Only the suffix is grouped, so a
    malformed prefix already summarised cannot break the build.

    Returns:
        ``active_path`` from the first kept entry to the leaf (the compaction included).

    Raises:
        CompactionError: ``compaction compact-1: first kept entry 'a2' is not a
            user message entry before it on the path``.

    The chapter's example after ``compact-1`` (first kept ``u2``), ``u4`` and
    ``a4``, at 31 / 4 / 2: allowance 22, the summary's 5 first, 17 for groups.

    >>> from course_lib.chapter.budget import build_context
    >>> from course_lib.chapter.fixture import chapter_fixture_after_compaction, fixture_estimator
    >>> path = chapter_fixture_after_compaction()
    >>> [entry.id for entry in restored_suffix(path, newest_compaction(path))]
    ['u2', 'a2', 'u3', 'calls', 'r-test', 'r-read', 'a3', 'compact-1', 'u4', 'a4']
    >>> result = build_context(path, max_tokens=31, reserved_output=4, safety_margin=2,
    ...                        estimate_tokens=fixture_estimator())
    >>> result.kept_entry_ids, result.reason, result.tokens.messages
    (['u4', 'a4'], 'trimmed', 12)
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


def _as_summary(summary: CompactionSummary | dict[str, Any]) -> CompactionSummary:
    """A summary model from a model or its wire dict (a bad dict is a ``SessionEntryError``)."""
    if isinstance(summary, CompactionSummary):
        return summary
    try:
        return CompactionSummary.model_validate(summary, by_alias=True, by_name=False)
    except ValidationError as error:
        raise SessionEntryError(f"summary: {describe_validation_error(error)}") from None


def render_summary(
    summary: CompactionSummary | dict[str, Any], labels: SummaryLabels = SUMMARY_LABELS_EN
) -> str:
    """The seven fields as text, in a fixed order with fixed labels, so every build pays the same.

    Chapter 11 §6 「恢复时把最新摘要接在保留后缀前面」, step 3 · Lab 11.5.
    Lines joined by ``"\\n"``, none after the last: ``labels.title``;
    ``labels.goal`` followed by the goal; then for each of ``LIST_FIELDS`` its
    label on a line of its own and one ``- <item>`` line per item, exactly as
    given, or the single line ``- <labels.none>`` for an empty list.

    Args:
        summary: the seven fields, or their wire dict (read it with ``_as_summary``).
        labels: ``SUMMARY_LABELS_EN`` or the course's Chinese ``SUMMARY_LABELS_ZH``.

    Raises:
        SessionEntryError: a wire dict that is not a valid summary.

    >>> from course_lib.chapter.fixture import fixture_summary
    >>> print(render_summary(fixture_summary()))  # doctest: +ELLIPSIS
    [Session compaction summary]
    Goal: ...
    Constraints:
    - ...
    Next:
    - ...
    """
    # --- Lab 11.5 resume compaction: begin ---
    fields = _as_summary(summary)
    lines = [labels.title, f"{labels.goal}{fields.goal}"]
    for name in LIST_FIELDS:
        lines.append(getattr(labels, name))
        items = getattr(fields, name) or [labels.none]
        lines.extend(f"- {item}" for item in items)
    return "\n".join(lines)
    # --- Lab 11.5: end ---


def summary_message(
    compaction_entry: CompactionEntry, labels: SummaryLabels = SUMMARY_LABELS_EN
) -> UserMessage:
    """The synthetic user message that stands in for everything before the first kept entry.

    Chapter 11 §6 「恢复时把最新摘要接在保留后缀前面」, step 3 · Lab 11.5.
    A **user** message (new on every call) whose one text block is
    ``render_summary`` of the entry's summary with ``labels``, timestamped
    with the compaction's own timestamp.
    """
    # --- Lab 11.5 resume compaction: begin ---
    return UserMessage(
        content=[text(render_summary(compaction_entry.summary, labels))],
        timestamp=compaction_entry.timestamp,
    )
    # --- Lab 11.5: end ---
