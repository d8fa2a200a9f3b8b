"""Lab 11.5 — restoring from the newest compaction and compacting again (4 checks)."""

from __future__ import annotations

from types import ModuleType

import pytest

pytestmark = pytest.mark.lab_11_5


def build(impl: ModuleType, path: list, max_tokens: int = 31) -> object:
    return impl.build_context(
        path,
        max_tokens=max_tokens,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )


def test_restore_starts_from_first_kept_skipping_metadata_and_other_branches(
    impl: ModuleType,
) -> None:
    entries = impl.chapter_fixture_after_compaction()
    sibling = impl.MessageEntry(
        id="u4-other",
        parent_id="compact-1",
        timestamp=101,
        message=impl.user_message("A branch that is not selected.", timestamp=101),
    )
    note = impl.MetadataEntry(
        id="meta-1", parent_id="u4", timestamp=101.5, key="label", value="resumed"
    )
    a4 = entries[-1]
    a4.parent_id = "meta-1"
    store = impl.InMemorySessionStore()
    for entry in [*entries[:-1], sibling, note, a4]:
        store.append(entry)

    path = impl.path_to(store.entries(), "a4")
    assert [entry.id for entry in path][-5:] == ["a3", "compact-1", "u4", "meta-1", "a4"]
    result = build(impl, path, max_tokens=100)

    assert result.kept_entry_ids == [
        "u2",
        "a2",
        "u3",
        "calls",
        "r-test",
        "r-read",
        "a3",
        "u4",
        "a4",
    ]
    assert result.reason == "within_budget"
    assert [m.role for m in result.messages[:2]] == ["system", "user"]
    assert impl.text_of(result.messages[1]) == impl.render_summary(impl.fixture_summary())
    assert result.messages[1].timestamp == 100

    # With the chapter's 31 / 4 / 2 the summary's 5 tokens leave 17 for groups.
    tight = build(impl, path)
    assert tight.kept_entry_ids == ["u4", "a4"] and tight.reason == "trimmed"
    assert (tight.tokens.available_for_messages, tight.tokens.messages) == (22, 12)


def test_only_the_newest_compaction_is_used_and_results_are_deterministic(
    impl: ModuleType,
) -> None:
    path = impl.chapter_fixture_after_compaction()
    empty = impl.CompactionSummary(
        goal="Continue the projection",
        constraints=[],
        completed=[],
        decisions=[],
        changed_files=[],
        unresolved=[],
        next=[],
    )
    compact_2 = impl.create_compaction_entry(
        path,
        id="compact-2",
        timestamp=200,
        summary=empty,
        first_kept_entry_id="u4",
        tokens_before=31,
    )
    path = [*path, compact_2]

    first = build(impl, path)
    second = build(impl, path)
    summaries = [
        m for m in first.messages if impl.text_of(m).startswith("[Session compaction summary]")
    ]
    assert len(summaries) == 1 and "Goal: Continue the projection" in impl.text_of(summaries[0])
    assert impl.text_of(summaries[0]).count("- (none)") == 6
    assert first.kept_entry_ids == ["u4", "a4"]
    assert first == second
    first.messages[1].content[0].text = "changed"
    assert build(impl, path) == second


def test_compacting_the_restored_path_again_trims_whole_groups(impl: ModuleType) -> None:
    path = impl.chapter_fixture_after_compaction()
    compact_2 = impl.create_compaction_entry(
        path,
        id="compact-2",
        timestamp=200,
        summary=impl.fixture_summary(),
        first_kept_entry_id="u3",
        tokens_before=34,
    )
    assert compact_2.parent_id == "a4"
    path = [*path, compact_2]

    roomy = build(impl, path, max_tokens=40)
    assert roomy.kept_entry_ids == ["u3", "calls", "r-test", "r-read", "a3", "u4", "a4"]
    tight = build(impl, path)
    assert tight.kept_entry_ids == ["u4", "a4"] and tight.reason == "trimmed"
    overflow = build(impl, path, max_tokens=14)
    assert overflow.kept_entry_ids == ["u4", "a4"] and overflow.reason == "single_group_overflow"

    with pytest.raises(impl.CompactionError, match="calls"):
        impl.create_compaction_entry(
            path,
            id="compact-3",
            timestamp=300,
            summary=impl.fixture_summary(),
            first_kept_entry_id="calls",
            tokens_before=1,
        )


def test_system_state_is_replayed_across_the_compaction_boundary(impl: ModuleType) -> None:
    path = impl.system_replay_fixture()
    result = build(impl, path, max_tokens=1000)

    head = result.messages[0]
    assert head.role == "system"
    assert head.content == "BASE\n\nPrefer small diffs."
    assert head.sections == {"rules": "RULE v2"}
    assert head.timestamp == path[0].message.timestamp
    assert impl.current_system_prompt(result.messages) == "BASE\n\nPrefer small diffs.\n\nRULE v2"
    assert impl.text_of(result.messages[1]).startswith("[Session compaction summary]")
    assert result.kept_entry_ids == ["u2", "a2", "u3", "a3"]
    assert len(result.messages) == 6  # head, summary, u2, a2, u3, a3: patch-2 is folded in
