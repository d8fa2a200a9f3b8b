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


@pytest.mark.parametrize(
    ("change", "path", "problem"),
    [
        (lambda w: w["summary"].update(files=w["summary"].pop("changedFiles")), "summary.files", "unknown field"),
        (lambda w: w["summary"].update(nextSteps=[]), "summary.nextSteps", "unknown field"),
        (lambda w: w["summary"].update(invariants=[]), "summary.invariants", "unknown field"),
        (lambda w: w.update(compactedEntryIds=["u1"]), "compactedEntryIds", "unknown field"),
        (lambda w: w["summary"].pop("constraints"), "summary.constraints", "missing field"),
        (lambda w: w.pop("firstKeptEntryId"), "firstKeptEntryId", "missing field"),
        (lambda w: w.update(tokensBefore=-1), "tokensBefore", ">= 0"),
        (lambda w: w.update(tokensBefore=float("inf")), "tokensBefore", "finite"),
        (lambda w: w.update(tokensBefore=True), "tokensBefore", "finite number"),
        (lambda w: w.update(timestamp="100"), "timestamp", "finite number"),
        (lambda w: w["summary"].update(completed=["valid", 7]), "summary.completed.1", "string"),
        (lambda w: w["summary"].update(goal="   "), "summary.goal", "blank"),
        (lambda w: w.update(parentId=None), "parentId", "string"),
        (lambda w: w.update(firstKeptEntryId=""), "firstKeptEntryId", "blank"),
    ],
    ids=[
        "files-alias",
        "nextSteps",
        "invariants",
        "compactedEntryIds",
        "no-constraints",
        "no-firstKeptEntryId",
        "negative-tokensBefore",
        "infinite-tokensBefore",
        "true-is-not-a-number",
        "string-timestamp",
        "non-string-list-item",
        "blank-goal",
        "null-parent",
        "blank-first-kept",
    ],
)
def test_compaction_entry_rejects_old_aliases_missing_fields_and_bad_numbers(
    impl: ModuleType, change: Any, path: str, problem: str
) -> None:
    wire = compact_1_wire()
    change(wire)
    before = copy.deepcopy(wire)

    with pytest.raises(impl.SessionEntryError) as caught:
        impl.parse_session_entry(wire)

    message = str(caught.value)
    assert message.startswith("session entry compact-1: ")
    assert f"{path}: " in message and problem in message
    assert wire == before  # the rejected input is left exactly as it was


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
        with pytest.raises(impl.SessionEntryError, match="compact-3: summary.files"):
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
