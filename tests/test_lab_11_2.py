"""Lab 11.2 — interactions: user boundaries and call/result ids (3 checks)."""

from __future__ import annotations

from types import ModuleType

import pytest

pytestmark = pytest.mark.lab_11_2


def by_id(entries: list) -> dict:
    return {entry.id: entry for entry in entries}


def test_groups_split_at_user_messages_and_are_copies(impl: ModuleType) -> None:
    path = impl.chapter_fixture()
    groups = impl.group_interactions(path)

    assert [group.entry_ids for group in groups] == [
        ["u1", "a1"],
        ["u2", "a2"],
        ["u3", "calls", "r-test", "r-read", "a3"],
    ]
    calls = groups[2].entries[1]
    calls.message.content[0].arguments["path"] = "changed.ts"
    assert by_id(path)["calls"].message.content[0].arguments == {"path": "context.ts"}
    by_id(path)["u1"].message.content[0].text = "changed on the path"
    assert groups[0].entries[0].message.content[0].text == "Check the session recovery logic."


def test_out_of_order_results_with_a_progress_message_stay_in_one_group(
    impl: ModuleType,
) -> None:
    entries = by_id(impl.chapter_fixture())
    progress = impl.MessageEntry(
        id="progress",
        parent_id="r-test",
        timestamp=8.5,
        message=impl.assistant_message("Tests are done; still reading.", timestamp=8.5),
    )
    # r-test before its call (same group, valid ids) is still one valid group.
    moved = [entries["u3"], entries["r-test"], entries["calls"], entries["r-read"], entries["a3"]]
    assert impl.group_interactions(moved)[0].entry_ids == ["u3", "r-test", "calls", "r-read", "a3"]

    # A system message is skipped, and a progress message may sit between the results.
    path = [entries["sys"], entries["u3"], entries["calls"], entries["r-test"], progress]
    path += [entries["r-read"], entries["a3"]]
    groups = impl.group_interactions(path)
    assert len(groups) == 1
    assert groups[0].entry_ids == ["u3", "calls", "r-test", "progress", "r-read", "a3"]


def test_orphan_duplicate_and_missing_results_are_errors_naming_ids(impl: ModuleType) -> None:
    def fixture_with(change) -> list:
        wires = [entry.to_wire() for entry in impl.chapter_fixture()]
        change({wire["id"]: wire for wire in wires})
        return [impl.parse_session_entry(wire) for wire in wires]

    def unknown_call(w):
        w["r-test"]["message"]["toolCallId"] = "unknown-1"

    def duplicate_call(w):
        w["calls"]["message"]["content"][1]["id"] = "read-1"
        w["r-test"]["message"]["toolCallId"] = "read-1"

    def duplicate_result(w):
        w["r-test"]["message"]["toolCallId"] = "read-1"

    def missing_result(w):
        w["r-test"]["message"] = {
            "role": "assistant",
            "content": [{"type": "text", "text": "still waiting for the tests"}],
            "provider": "course",
            "model": "scripted",
            "usage": {"input": 0, "output": 0, "totalTokens": 0},
            "stopReason": "stop",
            "timestamp": 8,
        }

    def assistant_first(w):
        w["u1"]["message"] = w["a1"]["message"]

    cases = [
        (unknown_call, ["r-test", "unknown-1", "unknown call"]),
        (duplicate_call, ["calls", "read-1", "duplicate"]),
        (duplicate_result, ["r-read", "read-1", "duplicate"]),
        (missing_result, ["test-1", "calls", "missing result"]),
        (assistant_first, ["u1", "before the first user message"]),
    ]
    for change, words in cases:
        with pytest.raises(impl.InteractionError) as caught:
            impl.group_interactions(fixture_with(change))
        for word in words:
            assert word in str(caught.value), (change.__name__, str(caught.value))

    metadata = impl.MetadataEntry(id="meta-1", parent_id="a3", timestamp=11, key="k", value=1)
    with pytest.raises(impl.InteractionError, match="meta-1"):
        impl.group_interactions([*impl.chapter_fixture(), metadata])
