"""Lab 11.5: restore from the newest compaction; its summary becomes one synthetic user message.

Chapter 11 §6 「恢复时把最新摘要接在保留后缀前面」 (restoring puts the newest summary
before the kept suffix). Nothing is deleted: the path before the suffix is summarised.
"""

from collections.abc import Sequence
from typing import Any

from course_lib.base.errors import CompactionError
from course_lib.base.messages import UserMessage, text
from course_lib.chapter.models import (
    LIST_FIELDS,
    SUMMARY_LABELS_EN,
    CompactionEntry,
    CompactionSummary,
    MessageEntry,
    SessionEntry,
    SummaryLabels,
    as_summary,
)


def newest_compaction(active_path: Sequence[SessionEntry]) -> CompactionEntry | None:
    """The compaction entry nearest the leaf, or ``None`` (older summaries are never sent again).

    §6 step 1 · Lab 11.5."""
    # --- Lab 11.5 resume compaction: begin ---
    for entry in reversed(active_path):
        if isinstance(entry, CompactionEntry):
            return entry
    return None
    # --- Lab 11.5: end ---


def restored_suffix(
    active_path: Sequence[SessionEntry], compaction: CompactionEntry
) -> Sequence[SessionEntry]:
    """The path from the first kept entry on: all that is grouped after restoring.

    §6 step 2 · Lab 11.5. The first kept id must name a *user message entry before the
    compaction*; any other (``a2``, ``u4``, unknown) is a ``CompactionError`` naming both ids.

    >>> from course_lib.chapter.fixture import chapter_fixture_after_compaction
    >>> path = chapter_fixture_after_compaction()
    >>> [entry.id for entry in restored_suffix(path, newest_compaction(path))]
    ['u2', 'a2', 'u3', 'calls', 'r-test', 'r-read', 'a3', 'compact-1', 'u4', 'a4']
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


def render_summary(
    summary: CompactionSummary | dict[str, Any], labels: SummaryLabels = SUMMARY_LABELS_EN
) -> str:
    """The seven fields as text, in a fixed order with fixed labels, so every build pays the same.

    §6 step 3 · Lab 11.5. Lines joined by ``"\\n"``: ``labels.title``; ``labels.goal`` and the
    goal; per ``LIST_FIELDS`` its label, then ``- <item>`` each or ``- <labels.none>``. A dict is
    read with ``as_summary``.

    >>> from course_lib.chapter.fixture import fixture_summary
    >>> print(render_summary(fixture_summary()))  # doctest: +ELLIPSIS
    [Session compaction summary]
    Goal: ...
    Next:
    - ...
    """
    # --- Lab 11.5 resume compaction: begin ---
    fields = as_summary(summary)
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
    """The **user** message standing in for the path before the first kept entry.

    §6 step 3 · Lab 11.5. One text block, ``render_summary`` with ``labels``; the compaction's
    timestamp.
    """
    # --- Lab 11.5 resume compaction: begin ---
    return UserMessage(
        content=[text(render_summary(compaction_entry.summary, labels))],
        timestamp=compaction_entry.timestamp,
    )
    # --- Lab 11.5: end ---
