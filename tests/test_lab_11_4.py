"""Lab 11.4 — creating a compaction entry is pure (2 checks)."""

from __future__ import annotations

from types import ModuleType

import pytest

pytestmark = pytest.mark.lab_11_4


def test_compaction_entry_derives_its_parent_and_shares_nothing(impl: ModuleType) -> None:
    path = impl.chapter_fixture()
    before = [entry.to_wire() for entry in path]
    summary = impl.fixture_summary()

    entry = impl.create_compaction_entry(
        path,
        id="compact-1",
        timestamp=100,
        summary=summary,
        first_kept_entry_id="u2",
        tokens_before=29,
    )

    assert isinstance(entry, impl.CompactionEntry)
    assert (entry.parent_id, entry.first_kept_entry_id, entry.tokens_before) == ("a3", "u2", 29)
    assert entry.summary == summary
    summary.constraints.append("changed after creation")
    assert entry.summary.constraints == ["Restore only the selected branch of the session tree"]
    entry.summary.next.append("changed in the entry")
    assert summary.next == ["Confirm the JSONL write boundary"]
    assert [e.to_wire() for e in path] == before  # the path is untouched

    from_wire = impl.create_compaction_entry(
        path,
        id="compact-1",
        timestamp=100,
        summary=impl.fixture_summary().to_wire(),
        first_kept_entry_id="u2",
        tokens_before=29,
    )
    assert (
        from_wire.to_wire()
        == impl.create_compaction_entry(
            path,
            id="compact-1",
            timestamp=100,
            summary=impl.fixture_summary(),
            first_kept_entry_id="u2",
            tokens_before=29,
        ).to_wire()
    )


def test_compaction_entry_rejects_bad_paths_ids_and_cut_points(impl: ModuleType) -> None:
    path = impl.chapter_fixture()

    def create(active_path: list, **changes: object) -> object:
        options = {
            "id": "compact-1",
            "timestamp": 100,
            "summary": impl.fixture_summary(),
            "first_kept_entry_id": "u2",
            "tokens_before": 29,
        }
        return impl.create_compaction_entry(active_path, **{**options, **changes})

    with pytest.raises(impl.CompactionError, match="empty active path"):
        create([])
    with pytest.raises(impl.CompactionError, match=r"duplicate id 'a3'"):
        create(path, id="a3")
    for cut in ["a2", "calls", "r-test", "nope"]:
        with pytest.raises(
            impl.CompactionError,
            match=rf"'{cut}' is not the first message of a complete interaction",
        ):
            create(path, first_kept_entry_id=cut)
    replay = impl.system_replay_fixture()
    with pytest.raises(impl.CompactionError, match=r"'patch-2' is not the first message"):
        create(replay, id="compact-2", first_kept_entry_id="patch-2")
    bad_summary = {**impl.fixture_summary().to_wire(), "files": []}
    with pytest.raises(impl.SessionEntryError, match=r"compact-1: summary\.files: unknown field"):
        create(path, summary=bad_summary)
    with pytest.raises(impl.SessionEntryError, match="tokensBefore"):
        create(path, tokens_before=-1)
