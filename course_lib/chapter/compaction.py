"""Lab 11.4: create a compaction entry as a pure function of the active path.

Chapter 11 §5 「compact-1 记录摘要与保留起点」 (compact-1 records the summary and
where keeping starts). The entry is returned, not stored: the caller can show
it or ask for confirmation, then append it. Its parent is always the path's
leaf, so "where does this summary hang?" has one answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from course_lib.base.errors import CompactionError

from .entries import (
    CompactionEntry,
    CompactionSummary,
    MessageEntry,
    SessionEntry,
    parse_session_entry,
    require_session_entries,
)
from .groups import group_interactions


def create_compaction_entry(
    active_path: Sequence[SessionEntry],
    *,
    id: str,
    timestamp: int | float,
    summary: CompactionSummary | dict[str, Any],
    first_kept_entry_id: str,
    tokens_before: int | float,
) -> CompactionEntry:
    """Build compaction entry ``id``, hanging after the path's leaf; nothing is stored.

    Chapter 11 §5 「compact-1 记录摘要与保留起点」 · Lab 11.4. The rules, each
    held to its words by the checks:

    * the path holds this package's entries only (``require_session_entries``);
    * an empty path is a ``CompactionError`` saying "empty active path", an
      ``id`` already on the path one containing ``duplicate id '<id>'``;
    * ``parentId`` is always the path's last entry: the caller never chooses it;
    * ``first_kept_entry_id`` must start one of the interactions
      ``group_interactions`` finds among the path's message entries (``u1``,
      ``u2`` or ``u3`` in the fixture); anything else (``a2``, ``calls``,
      ``patch-2``, an id not on the path) is a ``CompactionError`` containing
      ``'<id>' is not the first message of a complete interaction``;
    * the candidate goes, as a wire dict, through ``parse_session_entry``,
      which validates it and returns a copy sharing nothing with ``summary``
      (``tokens_before`` kept as given).

    Returns:
        The validated entry, not yet stored.

    Raises:
        CompactionError, SessionEntryError, InteractionError (from the grouping).

    The chapter's ``compact-1``, keeping from ``u2``:

    >>> from course_lib.chapter.fixture import chapter_fixture, fixture_summary
    >>> entry = create_compaction_entry(chapter_fixture(), id="compact-1", timestamp=100,
    ...     summary=fixture_summary(), first_kept_entry_id="u2", tokens_before=29)
    >>> entry.parent_id, entry.first_kept_entry_id, entry.tokens_before
    ('a3', 'u2', 29)
    """
    # --- Lab 11.4 create compaction: begin ---
    require_session_entries(active_path)
    if not active_path:
        raise CompactionError(f"compaction {id}: empty active path")
    if any(entry.id == id for entry in active_path):
        raise CompactionError(f"compaction {id}: duplicate id {id!r} is already on the path")
    message_entries = [entry for entry in active_path if isinstance(entry, MessageEntry)]
    group_starts = {group.entry_ids[0] for group in group_interactions(message_entries)}
    if first_kept_entry_id not in group_starts:
        raise CompactionError(
            f"compaction {id}: first kept entry {first_kept_entry_id!r} "
            "is not the first message of a complete interaction"
        )
    wire_summary = summary.to_wire() if isinstance(summary, CompactionSummary) else summary
    candidate = {
        "id": id,
        "parentId": active_path[-1].id,
        "timestamp": timestamp,
        "type": "compaction",
        "summary": wire_summary,
        "firstKeptEntryId": first_kept_entry_id,
        "tokensBefore": tokens_before,
    }
    return parse_session_entry(candidate)  # type: ignore[return-value]
    # --- Lab 11.4: end ---
