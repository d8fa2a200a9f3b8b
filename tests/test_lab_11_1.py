"""Lab 11.1 — the compaction entry is an ordinary, strict session fact (3 checks)."""

from __future__ import annotations

import copy
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.lab_11_1


def compact_1_wire() -> dict[str, Any]:
    return {
        "id": "compact-1",
        "parentId": "a3",
        "timestamp": 100,
        "type": "compaction",
        "summary": {
            "goal": "Check the session recovery logic",
            "constraints": ["Restore only the selected branch"],
            "completed": ["Confirmed the active path"],
            "decisions": [],
            "changedFiles": ["context.ts"],
            "unresolved": [],
            "next": ["Confirm the JSONL write boundary"],
        },
        "firstKeptEntryId": "u2",
        "tokensBefore": 29,
    }


def test_compaction_entry_parses_strictly_into_an_independent_copy(impl: ModuleType) -> None:
    wire = compact_1_wire()
    entry = impl.parse_session_entry(wire)

    assert isinstance(entry, impl.CompactionEntry)
    assert (entry.id, entry.parent_id, entry.first_kept_entry_id) == ("compact-1", "a3", "u2")
    assert entry.tokens_before == 29 and isinstance(entry.tokens_before, int)
    assert entry.summary.changed_files == ["context.ts"]
    assert entry.to_wire() == compact_1_wire()

    wire["summary"]["constraints"].append("changed after parsing")
    assert entry.summary.constraints == ["Restore only the selected branch"]
    entry.summary.next.append("changed in the entry")
    assert wire["summary"]["next"] == ["Confirm the JSONL write boundary"]

    again = impl.parse_session_entry(entry)
    assert again == entry and again is not entry
    assert again.summary is not entry.summary


def move_changed_files_to_old_alias(wire: dict[str, Any]) -> None:
    wire["summary"]["files"] = wire["summary"].pop("changedFiles")


# Each case: (what an old draft or a bad writer did, the field path named, the problem named).
BAD_COMPACTIONS: list[tuple[str, Any, str, str]] = [
    ("files alias", move_changed_files_to_old_alias, "summary.files", "unknown field"),
    (
        "nextSteps",
        lambda w: w["summary"].update(nextSteps=[]),
        "summary.nextSteps",
        "unknown field",
    ),
    (
        "invariants",
        lambda w: w["summary"].update(invariants=[]),
        "summary.invariants",
        "unknown field",
    ),
    (
        "compactedEntryIds",
        lambda w: w.update(compactedEntryIds=["u1"]),
        "compactedEntryIds",
        "unknown field",
    ),
    (
        "no constraints",
        lambda w: w["summary"].pop("constraints"),
        "summary.constraints",
        "missing field",
    ),
    ("no first kept", lambda w: w.pop("firstKeptEntryId"), "firstKeptEntryId", "missing field"),
    ("negative tokensBefore", lambda w: w.update(tokensBefore=-1), "tokensBefore", ">= 0"),
    (
        "infinite tokensBefore",
        lambda w: w.update(tokensBefore=float("inf")),
        "tokensBefore",
        "finite",
    ),
    (
        "true is not a number",
        lambda w: w.update(tokensBefore=True),
        "tokensBefore",
        "finite number",
    ),
    ("string timestamp", lambda w: w.update(timestamp="100"), "timestamp", "finite number"),
    (
        "non-string item",
        lambda w: w["summary"].update(completed=["valid", 7]),
        "summary.completed.1",
        "string",
    ),
    ("blank goal", lambda w: w["summary"].update(goal="   "), "summary.goal", "blank"),
    ("null parent", lambda w: w.update(parentId=None), "parentId", "string"),
    ("blank first kept", lambda w: w.update(firstKeptEntryId=""), "firstKeptEntryId", "blank"),
]


def test_compaction_entry_rejects_old_aliases_missing_fields_and_bad_numbers(
    impl: ModuleType,
) -> None:
    for name, change, path, problem in BAD_COMPACTIONS:
        wire = compact_1_wire()
        change(wire)
        before = copy.deepcopy(wire)

        with pytest.raises(impl.SessionEntryError) as caught:
            impl.parse_session_entry(wire)

        message = str(caught.value)
        assert message.startswith("session entry compact-1: "), (name, message)
        assert f"{path}: " in message and problem in message, (name, message)
        assert wire == before, name  # the rejected input is left exactly as it was


def test_compaction_entry_survives_write_and_reopen_in_both_stores(
    impl: ModuleType, tmp_path: Path
) -> None:
    path = [*impl.chapter_fixture()]
    compaction = impl.parse_session_entry(compact_1_wire())
    file = tmp_path / "sessions" / "chapter11.jsonl"

    memory = impl.InMemorySessionStore()
    jsonl = impl.JsonlSessionStore.open(file)
    for store in (memory, jsonl):
        for entry in path:
            store.append(entry)
        store.append(compaction)
        with pytest.raises(impl.SessionStoreError, match="compact-1"):
            store.append(compaction)  # duplicate id
        orphan = {**compact_1_wire(), "id": "compact-2", "parentId": "not-there"}
        with pytest.raises(impl.SessionStoreError, match="not-there"):
            store.append(orphan)
        bad = {**compact_1_wire(), "id": "compact-3"}
        bad["summary"] = {**bad["summary"], "files": []}
        with pytest.raises(impl.SessionEntryError, match=r"compact-3: summary\.files"):
            store.append(bad)

    expected = [*path, compaction]
    reopened = impl.JsonlSessionStore.open(file)
    assert memory.entries() == expected
    assert reopened.entries() == expected
    assert reopened.read().warnings == []
    assert len(file.read_text(encoding="utf-8").splitlines()) == len(expected)
    stored = reopened.entries()[-1]
    stored.summary.goal = "mutated copy"
    assert reopened.entries()[-1].summary.goal == "Check the session recovery logic"
