"""Claude Code's later shapes: partial compactions, records between a boundary and its
summary, parents on later lines, files without parent links (samples in ``data/``)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from claude_code_shapes import (
    AFTER_ATTACHMENT,
    IN_PLACE,
    NO_PARENT_LINKS,
    RESUMED,
    in_place_records,
    resumed_records,
    shape_texts,
)
from test_import_claude_code import (
    assistant,
    boundary,
    compact_summary,
    round_trips,
    say,
    text_of_records,
    uid,
    user,
)

from course_lib import (
    CompactionEntry,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    UserMessage,
    build_context,
    import_claude_code_session,
    import_session,
    text_of,
)
from course_lib.beyond.estimators import chars_estimator
from course_lib.beyond.importers import AgentImportResult, import_claude_code_text

WARNINGS_OF_A_MISREAD = {
    "parent_not_in_file",
    "compaction_unrestorable",
    "synthetic_user_inserted",
    "summary_missing",
    "unpaired_result",
}
"""What the importer wrote when it misread these files: none may come back."""


def kinds(imported: AgentImportResult) -> Counter[str]:
    return Counter(note.kind for note in imported.notes)


def ids(path: list[SessionEntry]) -> list[str]:
    return [entry.id for entry in path]


def the_compaction(path: list[SessionEntry]) -> CompactionEntry:
    [compaction] = [entry for entry in path if isinstance(entry, CompactionEntry)]
    return compaction


def test_the_committed_samples_are_what_the_generator_writes() -> None:
    for path, text in shape_texts().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.name} drifted: run `python tests/beyond/claude_code_shapes.py`"
        )


@pytest.mark.parametrize("sample", [RESUMED, IN_PLACE, AFTER_ATTACHMENT, NO_PARENT_LINKS])
def test_each_sample_keeps_its_compaction_and_its_history_on_the_path(
    sample: Path, tmp_path: Path
) -> None:
    imported = import_claude_code_session(sample)
    path = imported.active_path()
    compaction = the_compaction(path)
    assert not WARNINGS_OF_A_MISREAD & set(kinds(imported))
    assert "--json flag" in compaction.summary.goal  # the real summary, not a placeholder
    first_kept = next(entry for entry in path if entry.id == compaction.first_kept_entry_id)
    assert isinstance(first_kept, MessageEntry) and isinstance(first_kept.message, UserMessage)
    assert ids(path).index(first_kept.id) < ids(path).index(compaction.id)
    # every message record of the file is on the path: nothing fell off, nothing was invented
    messages = [e for e in imported.entries if isinstance(e, MessageEntry)]
    assert [e for e in messages if e not in path] == []
    assert not any(
        isinstance(e.message, UserMessage) and "being continued" in text_of(e.message)
        for e in messages
    )  # the summary record became the compaction's summary, not a user message
    round_trips(imported.entries, tmp_path)


def test_import_session_reads_each_sample_as_claude_code() -> None:
    for sample in (RESUMED, IN_PLACE, AFTER_ATTACHMENT, NO_PARENT_LINKS):
        detected = import_session(sample)
        assert detected.format == "claude-code"
        assert detected.entries == import_claude_code_session(sample).entries


def test_a_resumed_partial_compaction_keeps_what_it_kept_before_it() -> None:
    """Boundary first, its logical parent six lines later, the kept head re-hung under the
    summary: the kept messages come first, then the compaction, then what followed."""
    records = resumed_records()
    boundary, summary, head, call, result, tail, *after = (r["uuid"] for r in records)
    imported = import_claude_code_session(RESUMED)
    path = imported.active_path()
    assert ids(path) == [head, call, result, tail, boundary, *after]
    compaction = the_compaction(path)
    assert compaction.parent_id == tail and compaction.first_kept_entry_id == head
    assert summary not in ids(imported.entries)  # merged into the compaction
    [agent] = imported.compactions
    assert agent.agent_kept == (head, call, result, tail)
    notes = {(n.kind, n.line, n.entry_id) for n in imported.notes}
    assert ("parent_linked_later", 1, boundary) in notes
    assert ("preserved_segment_kept", 1, boundary) in notes
    assert ("preserved_segment_kept", 3, head) in notes  # its head starts a root
    assert "first_kept_widened" not in kinds(imported)  # it kept from a user message
    built = build_context(path, max_tokens=50_000, estimate_tokens=chars_estimator())
    assert built.kept_entry_ids == [head, call, result, tail, *after]


def test_a_partial_compaction_in_place_hangs_what_follows_under_it() -> None:
    """The kept messages precede the boundary in the file; the next prompt names the newest
    kept message as its parent, and hangs under the compaction (through the attachment)."""
    records = in_place_records()
    uuids = [r["uuid"] for r in records]
    boundary = next(r["uuid"] for r in records if r.get("subtype") == "compact_boundary")
    attachment = next(r["uuid"] for r in records if r["type"] == "attachment")
    prompt = next(
        r for r in records if r["type"] == "user" and "sample.csv" in json.dumps(r["message"])
    )
    imported = import_claude_code_session(IN_PLACE)
    path = imported.active_path()
    compaction = the_compaction(path)
    kept_head = compaction.first_kept_entry_id
    position = ids(path).index
    assert (
        position(kept_head) < position(boundary) < position(attachment) < position(prompt["uuid"])
    )
    assert prompt["parentUuid"] == records[uuids.index(boundary) - 1]["uuid"]  # the kept tail
    assert isinstance(next(e for e in path if e.id == attachment), MetadataEntry)
    # Claude Code kept from the call (mid-interaction): the chapter keeps the whole interaction
    [agent] = imported.compactions
    assert agent.agent_kept[0] != kept_head
    widened = [n for n in imported.notes if n.kind == "first_kept_widened"]
    assert len(widened) == 1 and agent.agent_kept[0] in widened[0].detail
    assert ids(path)[0] == uuids[0]  # the summarised history stays on the path


def test_a_summary_after_an_attachment_is_still_its_boundary_s() -> None:
    imported = import_claude_code_session(AFTER_ATTACHMENT)
    merged = [n for n in imported.notes if n.kind == "compact_summary_merged"]
    assert len(merged) == 1
    path = imported.active_path()
    kinds_on_path = [type(e).__name__ for e in path]
    compaction_at = kinds_on_path.index("CompactionEntry")
    assert kinds_on_path[compaction_at + 1] == "MetadataEntry"  # the attachment, then the rest


def test_a_file_without_parent_links_is_one_chain_in_file_order() -> None:
    imported = import_claude_code_session(NO_PARENT_LINKS)
    path = imported.active_path()
    assert len(path) == len(imported.entries)
    [note] = [n for n in imported.notes if n.kind == "chained_by_file_order"]
    records = NO_PARENT_LINKS.read_text(encoding="utf-8").count("\n")
    assert f"each of its {records} records" in note.detail and note.line == 1


# --- small files in memory ------------------------------------------------------------------


def test_lines_in_any_order_import_to_the_same_entries() -> None:
    """Parents are linked once the whole file is read: shuffling a chain changes nothing but
    which record is last (the leaf) and the notes about late parents."""
    text = AFTER_ATTACHMENT.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    expected = import_claude_code_text(text).entries
    for seed in range(5):
        shuffled = lines[:]
        random.Random(seed).shuffle(shuffled)
        imported = import_claude_code_text("".join(shuffled))
        assert sorted(imported.entries, key=lambda e: e.id) == sorted(expected, key=lambda e: e.id)
        records = [json.loads(line) for line in shuffled]
        position = {record["uuid"]: number for number, record in enumerate(records)}
        parents = [r.get("parentUuid") or r.get("logicalParentUuid") for r in records]
        late = [n.entry_id for n in imported.notes if n.kind == "parent_linked_later"]
        assert late == [
            record["uuid"]
            for number, (record, parent) in enumerate(zip(records, parents, strict=True))
            if parent is not None and position[parent] > number
        ]


def test_links_that_form_a_cycle_start_a_root_at_the_earliest_record() -> None:
    text = text_of_records(user(1, None, "hi"), user(2, 3, "a"), user(3, 2, "b"))
    imported = import_claude_code_text(text)
    [note] = [n for n in imported.notes if n.kind == "parent_cycle"]
    assert (note.line, note.entry_id) == (2, uid(2))
    by_id = {e.id: e for e in imported.entries}
    assert by_id[uid(2)].parent_id is None and by_id[uid(3)].parent_id == uid(2)


def test_a_parent_not_in_the_file_still_starts_a_root_with_a_warning() -> None:
    text = text_of_records(user(1, 99, "resumed"), user(2, 1, "next"))
    imported = import_claude_code_text(text)
    assert [(n.kind, n.line) for n in imported.notes if n.kind == "parent_not_in_file"] == [
        ("parent_not_in_file", 1)
    ]
    assert [e.id for e in imported.active_path()] == [uid(1), uid(2)]


def test_a_partial_compaction_hangs_under_its_newest_kept_record_whatever_it_names() -> None:
    """A logical parent older than the kept messages would leave them off the path: the
    compaction hangs under the newest kept record instead, and the note names it."""
    segment = {"headUuid": uid(3), "anchorUuid": uid(6), "tailUuid": uid(4)}
    text = text_of_records(
        user(1, None, "summarised"),
        assistant(2, 1, "m1", say("done")),
        user(3, 2, "kept"),
        assistant(4, 3, "m2", say("kept too")),
        boundary(5, 2, preservedSegment=segment),
        compact_summary(6, 5, "## Goal\nkeep going"),
        user(7, 4, "after"),
    )
    imported = import_claude_code_text(text)
    path = imported.active_path()
    assert ids(path) == [uid(n) for n in (1, 2, 3, 4, 5, 7)]
    compaction = the_compaction(path)
    assert (compaction.parent_id, compaction.first_kept_entry_id) == (uid(4), uid(3))
    [note] = [n for n in imported.notes if n.kind == "preserved_segment_kept"]
    assert f"hangs under {uid(4)!r} and 1 later record(s)" in note.detail
    assert "compaction_reparented" not in kinds(imported)  # not under its logical parent


def test_a_kept_record_on_another_branch_does_not_move_the_compaction() -> None:
    """The boundary names its parent; what it kept lies on a branch beside it: the compaction
    stays where it was written, and the note says the kept record is not on its path."""
    text = text_of_records(
        user(1, None, "one"),
        user(2, 1, "two"),
        user(3, 1, "three"),
        {**boundary(4, None, preservedMessages=[uid(2)]), "parentUuid": uid(3)},
        compact_summary(5, 4, "## Goal\nkeep going"),
    )
    imported = import_claude_code_text(text)
    compaction = the_compaction(imported.active_path())
    assert compaction.parent_id == uid(3)
    [note] = [n for n in imported.notes if n.kind == "kept_not_on_path"]
    assert uid(2) in note.detail and note.entry_id == uid(4)
