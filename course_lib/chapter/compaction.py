"""Lab 11.4: create a compaction entry as a pure function of the active path.

Chapter 11 §5 「compact-1 记录摘要与保留起点」 (compact-1 records the summary and
where keeping starts). The entry is returned, not stored: the caller can show it, audit it or ask for
confirmation, then append it explicitly. Its parent is always the path's last
entry, so there is only one answer to "where does this summary hang?".
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
    """Build ``compaction`` entry ``id`` hanging after the path's leaf.

    Chapter 11 §5 「compact-1 记录摘要与保留起点」 (compact-1 records the summary and
    where keeping starts) · Lab 11.4.

    The rules (the Lab 11.4 checks hold you to each, and to its words):

    * the path holds this package's entries only (``require_session_entries``);
    * an empty path is a ``CompactionError`` saying "empty active path";
    * an ``id`` already on the path is a ``CompactionError`` containing
      ``duplicate id '<id>'``;
    * ``parentId`` is always the last entry of the path: the caller never
      chooses where the summary hangs;
    * ``first_kept_entry_id`` must be the first message of an interaction,
      one of the group starts ``group_interactions`` finds among the path's
      message entries (``u1``, ``u2`` or ``u3`` in the fixture). Anything
      else (``a2``, ``calls``, a system message such as ``patch-2``, an id
      not on the path) is a ``CompactionError`` containing
      ``'<id>' is not the first message of a complete interaction``; an
      ``InteractionError`` from the grouping propagates;
    * the candidate goes, as a wire dict, through ``parse_session_entry``:
      it is validated (a bad summary or ``tokensBefore`` is its
      ``SessionEntryError``) and comes back as a copy that shares nothing
      with the ``summary`` passed in; ``tokens_before`` is kept as given;
    * nothing is stored: the caller appends the entry explicitly.

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
