"""Lab 11.1 — the compaction entry is an ordinary, strict session fact (3 checks)."""

from __future__ import annotations

import copy
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from lab_checks import N_, expect, expect_equal, expect_error, expect_no_error, expect_values, shown
from path_oracle import random_compaction_wires

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


def flat(wire: dict[str, Any]) -> dict[str, Any]:
    """A compaction's wire dict with the summary's fields as ``summary.<field>`` keys.

    So a difference is reported by its field, not as two whole dicts.
    """
    fields = {key: value for key, value in wire.items() if key != "summary"}
    summary = wire.get("summary")
    if isinstance(summary, dict):
        fields.update({f"summary.{key}": value for key, value in summary.items()})
    return fields


def first_difference(expected: list[Any], actual: list[Any]) -> str:
    """Where two entry lists part: the first entry id whose entries are not equal."""
    for want, got in zip(expected, actual, strict=False):
        if want != got:
            return f"entry {want.id} differs: {shown(flat(got.to_wire()))}"
    return f"{len(actual)} entries instead of {len(expected)}"


def test_compaction_entry_parses_strictly_into_an_independent_copy(impl: ModuleType) -> None:
    case = "parse_session_entry(compact-1's wire dict)"
    wire = compact_1_wire()
    entry = expect_no_error(case, lambda: impl.parse_session_entry(wire), expected="an entry")

    expect(
        case,
        isinstance(entry, impl.CompactionEntry),
        expected="a CompactionEntry",
        got=f"a {type(entry).__name__}",
    )
    expect_values(
        case,
        {
            "id": "compact-1",
            "parent_id": "a3",
            "first_kept_entry_id": "u2",
            "tokens_before": 29,
            "summary.changed_files": ["context.ts"],
        },
        {
            "id": entry.id,
            "parent_id": entry.parent_id,
            "first_kept_entry_id": entry.first_kept_entry_id,
            "tokens_before": entry.tokens_before,
            "summary.changed_files": entry.summary.changed_files,
        },
        hint=N_(
            "the wire's camelCase keys (parentId, firstKeptEntryId, changedFiles) "
            "become snake_case attributes"
        ),
    )
    expect(
        case,
        type(entry.tokens_before) is int,
        expected="tokens_before kept as the int 29",
        got=f"{entry.tokens_before!r} ({type(entry.tokens_before).__name__})",
        hint=N_("tokensBefore is recorded by the caller: keep it exactly as given"),
    )
    expect_values(
        f"{case}.to_wire()",
        flat(compact_1_wire()),
        flat(entry.to_wire()),
        hint=N_("to_wire() gives back the same wire dict, keys in the course's order"),
    )

    copy_hint = N_("the parsed entry shares nothing with its input, in either direction")
    wire["summary"]["constraints"].append("changed after parsing")
    expect_equal(
        "after appending to the input dict's summary.constraints: the entry's constraints",
        ["Restore only the selected branch"],
        entry.summary.constraints,
        hint=copy_hint,
    )
    entry.summary.next.append("changed in the entry")
    expect_equal(
        "after appending to the entry's summary.next: the input dict's next",
        ["Confirm the JSONL write boundary"],
        wire["summary"]["next"],
        hint=copy_hint,
    )

    case = "parse_session_entry(an already parsed compact-1)"
    again = expect_no_error(case, lambda: impl.parse_session_entry(entry), expected="a new entry")
    expect(
        case,
        again == entry and again is not entry and again.summary is not entry.summary,
        expected="an equal entry that is a new object, with a new summary",
        got="the same entry"
        if again is entry
        else ("the same summary object" if again == entry else f"{shown(flat(again.to_wire()))}"),
        hint=copy_hint,
    )
    _random_compactions_round_trip(impl)


def move_changed_files_to_old_alias(wire: dict[str, Any]) -> None:
    wire["summary"]["files"] = wire["summary"].pop("changedFiles")


# Each case: (what an old draft or a bad writer did, the field path the error must name).
# The spec asks a schema error for its class, the entry's id and the camelCase field path;
# how it words the problem ("unknown field", "finite number" ...) is the student's.
BAD_COMPACTIONS: list[tuple[str, Any, str]] = [
    ("files alias", move_changed_files_to_old_alias, "summary.files"),
    ("nextSteps", lambda w: w["summary"].update(nextSteps=[]), "summary.nextSteps"),
    ("invariants", lambda w: w["summary"].update(invariants=[]), "summary.invariants"),
    ("compactedEntryIds", lambda w: w.update(compactedEntryIds=["u1"]), "compactedEntryIds"),
    ("no constraints", lambda w: w["summary"].pop("constraints"), "summary.constraints"),
    ("no first kept", lambda w: w.pop("firstKeptEntryId"), "firstKeptEntryId"),
    ("negative tokensBefore", lambda w: w.update(tokensBefore=-1), "tokensBefore"),
    ("infinite tokensBefore", lambda w: w.update(tokensBefore=float("inf")), "tokensBefore"),
    ("true is not a number", lambda w: w.update(tokensBefore=True), "tokensBefore"),
    ("string timestamp", lambda w: w.update(timestamp="100"), "timestamp"),
    (
        "non-string item",
        lambda w: w["summary"].update(completed=["valid", 7]),
        "summary.completed.1",
    ),
    ("blank goal", lambda w: w["summary"].update(goal="   "), "summary.goal"),
    ("null parent", lambda w: w.update(parentId=None), "parentId"),
    ("blank first kept", lambda w: w.update(firstKeptEntryId=""), "firstKeptEntryId"),
]


def test_compaction_entry_rejects_old_aliases_missing_fields_and_bad_numbers(
    impl: ModuleType,
) -> None:
    for name, change, path in BAD_COMPACTIONS:
        case = f"compact-1 with {name}"
        wire = compact_1_wire()
        change(wire)
        before = copy.deepcopy(wire)

        error = expect_error(
            case,
            impl.SessionEntryError,
            partial(impl.parse_session_entry, wire),
            words=[path],
            hint=N_("the message names the camelCase field path, then the problem"),
        )

        message = str(error)
        expect(
            case,
            message.startswith("session entry compact-1"),
            expected="a message starting with 'session entry compact-1'",
            got=repr(message),
            hint=N_("start the message with the label parse_session_entry passes in"),
        )
        expect(
            case,
            wire == before,
            expected="the rejected input dict left exactly as it was",
            got=f"it was changed to {shown(flat(wire))}",
        )
    _snake_case_keys_are_unknown_fields(impl)


SNAKE_CASE_KEYS: list[tuple[str, Any]] = [
    ("first_kept_entry_id", lambda w: w.update(first_kept_entry_id=w.pop("firstKeptEntryId"))),
    ("tokens_before", lambda w: w.update(tokens_before=w.pop("tokensBefore"))),
    ("parent_id", lambda w: w.update(parent_id=w.pop("parentId"))),
    (
        "summary.changed_files",
        lambda w: w["summary"].update(changed_files=w["summary"].pop("changedFiles")),
    ),
]
"""Python's names where the wire has camelCase (each the field path its error names)."""


def _snake_case_keys_are_unknown_fields(impl: ModuleType) -> None:
    for key, change in SNAKE_CASE_KEYS:
        wire = compact_1_wire()
        change(wire)
        expect_error(
            f"compact-1 with the snake_case key {key} instead of its camelCase name",
            impl.SessionEntryError,
            partial(impl.parse_session_entry, wire),
            words=[key],
            hint=(
                N_(
                    "wire keys are camelCase only, as the course writes them: validate by alias "
                    "(by_alias=True, by_name=False), so a Python name such as "
                    "first_kept_entry_id is an unknown field"
                )
            ),
        )


def test_compaction_entry_survives_write_and_reopen_in_both_stores(
    impl: ModuleType, tmp_path: Path
) -> None:
    path = [*impl.chapter_fixture()]
    compaction = impl.parse_session_entry(compact_1_wire())
    file = tmp_path / "sessions" / "chapter11.jsonl"

    # The stores are given: each binds the parser it is handed (yours), and needs no
    # compaction code of its own.
    memory = impl.InMemorySessionStore(parser=impl.parse_session_entry)
    jsonl = impl.JsonlSessionStore.open(file, parser=impl.parse_session_entry)
    for name, store in (("InMemorySessionStore", memory), ("JsonlSessionStore", jsonl)):
        for entry in [*path, compaction]:
            expect_no_error(
                f"{name}: appending the chapter fixture, then compact-1 (at {entry.id})",
                partial(store.append, entry),
            )
        expect_error(
            f"{name}: appending compact-1 a second time",
            impl.SessionStoreError,
            partial(store.append, compaction),
            words=["compact-1"],
            hint=N_("a store refuses a duplicate id, naming it"),
        )
        orphan = {**compact_1_wire(), "id": "compact-2", "parentId": "not-there"}
        expect_error(
            f"{name}: appending compact-2 whose parentId 'not-there' is not in the store",
            impl.SessionStoreError,
            partial(store.append, orphan),
            words=["not-there"],
            hint=N_("a store refuses a parent it does not hold, naming it"),
        )
        bad = {**compact_1_wire(), "id": "compact-3"}
        bad["summary"] = {**bad["summary"], "files": []}
        expect_error(
            f"{name}: appending compact-3 with summary.files",
            impl.SessionEntryError,
            partial(store.append, bad),
            words=["compact-3", "summary.files"],
            hint=N_(
                "every append goes through parse_session_entry, whose errors start with "
                "the entry's label"
            ),
        )

    expected = [*path, compaction]
    reopened = impl.JsonlSessionStore.open(file, parser=impl.parse_session_entry)
    for name, store in (("InMemorySessionStore", memory), ("the reopened JSONL file", reopened)):
        entries = store.entries()
        expect(
            f"{name}: entries() after the appends",
            entries == expected,
            expected=f"the 11 entries appended ({shown([e.id for e in expected])})",
            got=first_difference(expected, entries),
        )
    expect_equal("the reopened JSONL file: read().warnings", [], reopened.read().warnings)
    expect_equal(
        "the JSONL file: number of lines",
        len(expected),
        len(file.read_text(encoding="utf-8").splitlines()),
        hint=N_("one line per appended entry; refused appends write nothing"),
    )
    stored = reopened.entries()[-1]
    stored.summary.goal = "mutated copy"
    expect_equal(
        "after changing the goal of an entry entries() returned: the stored goal",
        "Check the session recovery logic",
        reopened.entries()[-1].summary.goal,
        hint=N_("entries() returns copies"),
    )


def _random_compactions_round_trip(impl: ModuleType) -> None:
    """Beyond the fixture: any valid compaction reads back exactly, and shares nothing."""
    for number, wire in enumerate(random_compaction_wires(40)):
        case = f"parse_session_entry(random compaction {number}: {wire['id']!r})"
        entry = expect_no_error(case, partial(impl.parse_session_entry, wire))
        expect_equal(
            f"{case}.to_wire()",
            wire,
            entry.to_wire(),
            hint=N_(
                "every field is kept exactly as given (strings, lists, numbers), camelCase on "
                "the wire, keys in the course's order"
            ),
        )
        wire["summary"]["next"].append("added later")
        expect(
            f"{case}: after appending to the input's summary.next",
            "added later" not in entry.summary.next,
            expected="the entry's next unchanged",
            got=f"next {entry.summary.next!r}",
            hint=N_("the result is a new deep copy: it shares no list with its input"),
        )
