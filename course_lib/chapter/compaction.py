"""Lab 11.4: create a compaction entry as a pure function of the active path.

Chapter 11 §5 「compact-1 记录摘要与保留起点」 (compact-1 records the summary and
where keeping starts). The entry is returned, not stored: the caller shows it or
asks for confirmation, then appends it, always after the path's leaf.
"""

from collections.abc import Sequence
from typing import Any, cast

from course_lib.base.errors import CompactionError
from course_lib.chapter.models import (
    CompactionEntry,
    CompactionSummary,
    MessageEntry,
    SessionEntry,
    require_session_entries,
)

from .entries import parse_session_entry
from .groups import group_interactions


def create_compaction_entry(
    active_path: Sequence[SessionEntry],
    *,
    id: str,  # the chapter's name for it (createCompactionEntry's ``id``)
    timestamp: int | float,
    summary: CompactionSummary | dict[str, Any],
    first_kept_entry_id: str,
    tokens_before: int | float,
) -> CompactionEntry:
    """Build compaction entry ``id`` after the path's leaf (its ``parentId``); nothing is stored.

    §5 · Lab 11.4. Entries only (``require_session_entries``). A ``CompactionError``: "empty
    active path"; ``duplicate id '<id>'``; ``'<id>' is not the first message of a complete
    interaction`` unless it starts one of ``group_interactions``. Return it parsed.

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
    return cast(CompactionEntry, parse_session_entry(candidate))  # a compaction, by its type
    # --- Lab 11.4: end ---
