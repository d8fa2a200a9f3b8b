"""Codex's other shapes: event-only text, forked subagents, the legacy layout, injected context.

The three files in ``data/codex-sessions/`` come from ``codex_shapes.py``; small
variations are built here in memory.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from codex_shapes import (
    ARCHIVED_ID,
    CHILD_ID,
    EVENT_ONLY,
    FORKED,
    LEGACY,
    LEGACY_ID,
    PARENT_ID,
    SPAWN_CALL,
    shape_texts,
)

from course_lib import (
    AssistantMessage,
    JsonlSessionStore,
    MessageEntry,
    MetadataEntry,
    ToolResultMessage,
    UserMessage,
    group_interactions,
    import_codex_session,
    text_of,
)
from course_lib.base.wire import dumps_line
from course_lib.beyond.importers import AgentImportError, import_codex_text
from course_lib.beyond.importers._agent_base import read_records
from course_lib.beyond.importers._pi_read import split_pi_text

# --- small builders -------------------------------------------------------------------------


def rec(second: int, kind: str, **payload: Any) -> dict[str, Any]:
    return {"timestamp": f"2026-03-02T11:00:{second:02d}.000Z", "type": kind, "payload": payload}


def item(second: int, role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return rec(second, "response_item", type="message", role=role,
               content=[{"type": part, "text": text}])  # fmt: skip


def heard(second: int, text: str, **fields: Any) -> dict[str, Any]:
    return rec(second, "event_msg", type="user_message", message=text, **fields)


def answered(second: int) -> dict[str, Any]:
    """The model's response ends (a token_count event with no counts)."""
    return rec(second, "event_msg", type="token_count", info=None)


def spawn(second: int, call_id: str = "sp1") -> dict[str, Any]:
    return rec(second, "response_item", type="function_call", name="spawn_agent",
               arguments='{"message":"look"}', call_id=call_id)  # fmt: skip


def output(second: int, call_id: str, text: str = "ok") -> dict[str, Any]:
    return rec(second, "response_item", type="function_call_output", call_id=call_id, output=text)


def lines(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)


META = rec(0, "session_meta", id="s-1", cwd="/w")
SUBAGENT_META = rec(0, "session_meta", id="child", forked_from_id="parent", cwd="/w",
                    source={"subagent": {"thread_spawn": {"parent_thread_id": "parent",
                                                          "depth": 1}}})  # fmt: skip


def users(imported: Any) -> list[tuple[str, str]]:
    """The user messages on the active path: id and text."""
    return [(e.id, text_of(e.message)) for e in imported.active_path()
            if isinstance(e, MessageEntry) and isinstance(e.message, UserMessage)]  # fmt: skip


def notes_of(imported: Any, kind: str) -> list[tuple[int | None, str | None]]:
    return [(n.line, n.entry_id) for n in imported.notes if n.kind == kind]


def by_id(imported: Any) -> dict[str, Any]:
    return {entry.id: entry for entry in imported.entries}


# --- the files ----------------------------------------------------------------------------------


def test_the_committed_files_are_what_the_generator_writes() -> None:
    texts = shape_texts()
    assert sorted(path.name for path in texts) == [
        "event-only-text.jsonl", "forked-subagent.jsonl", "legacy-layout.jsonl",
    ]  # fmt: skip
    for path, text in texts.items():
        assert path.read_text(encoding="utf-8") == text, path.name


@pytest.mark.parametrize("path", [EVENT_ONLY, FORKED, LEGACY], ids=lambda p: p.stem)
def test_every_file_round_trips_through_a_store(path: Path, tmp_path: Path) -> None:
    imported = import_codex_session(path)
    store = JsonlSessionStore.open(tmp_path / "imported.jsonl")
    for entry in imported.entries:
        store.append(entry)
    again = JsonlSessionStore.open(store.path).entries()
    assert [dumps_line(e.to_wire()) for e in again] == [
        dumps_line(e.to_wire()) for e in imported.entries
    ]
    ids = [e.id for e in imported.entries]
    assert len(ids) == len(set(ids)) and imported.leaf_id == ids[-1]
    for group in group_interactions([e for e in imported.active_path()
                                     if isinstance(e, MessageEntry)]):  # fmt: skip
        assert group.entries  # every path groups cleanly: each call has its result


# --- text only an event carries -------------------------------------------------------------


@pytest.fixture(scope="module")
def event_only() -> Any:
    return import_codex_session(EVENT_ONLY)


def test_event_only_text_becomes_the_user_message(event_only: Any) -> None:
    assert event_only.source.session_id == ARCHIVED_ID
    assert users(event_only) == [
        ("L0004", "The divide test fails. Find out why and fix it."),  # the event alone
        ("L0013", "Run the tests again."),  # the item, its event after it
        ("L0023", "Add a test for the zero case."),  # the item, its event before it
        ("L0027", "Run the tests again."),  # the event alone, with turn 2's text
    ]
    assert notes_of(event_only, "event_text_used") == [(4, "L0004"), (27, "L0027")]
    used = next(n.detail for n in event_only.notes if n.kind == "event_text_used")
    assert "(47 characters)" in used  # the length of the text it used
    entries = by_id(event_only)
    assert entries["L0004"].parent_id == "L0003"  # after the turn's turn_context
    assert entries["L0006"].parent_id == "L0004"  # the model's answer to it
    assert entries["L0004"].timestamp == entries["L0004"].message.timestamp  # the event's time
    # The paired events are skipped as copies: lines 14 and 22, in one aggregated note.
    skipped = [n for n in event_only.notes if n.kind == "record_skipped"
               and n.detail.startswith("event_msg 'user_message'")]  # fmt: skip
    assert [(n.line, n.detail.rsplit(": ", 1)[1]) for n in skipped] == [
        (14, "2 times (lines 14-22)")
    ]


def test_event_only_text_no_longer_gets_a_made_up_user_message(event_only: Any) -> None:
    """Before: the event was skipped and the repair put '[No user message ...]' before L0006."""
    assert "synthetic_user_inserted" not in event_only.note_counts()
    assert not any(e.id.endswith(".user") for e in event_only.entries)
    groups = group_interactions([e for e in event_only.active_path()
                                 if isinstance(e, MessageEntry)])  # fmt: skip
    starts = [text_of(group.entries[0].message) for group in groups]
    assert starts[0] == "The divide test fails. Find out why and fix it."
    assert len(groups) == 4  # four user turns (the developer message is no group's start)
    # Turn 4's answer is no longer folded into turn 3's interaction.
    assert groups[-1].entry_ids == ["L0027", "L0028"]


def test_an_agent_message_event_alone_is_not_made_a_message(event_only: Any) -> None:
    texts = [text_of(e.message) for e in event_only.entries if isinstance(e, MessageEntry)]
    assert "Running the tests once more." not in " ".join(texts)
    skipped = [n.detail for n in event_only.notes if n.kind == "record_skipped"]
    assert "event_msg 'agent_message': an interface event (never sent to a model), skipped: " \
           "2 times (lines 11-18)" in skipped  # fmt: skip


def test_an_event_written_after_the_model_began_still_pairs_with_its_item() -> None:
    text = lines(META, item(1, "user", "go"), rec(2, "response_item", type="reasoning",
                 summary=[]), heard(3, "go"), item(4, "assistant", "done"))  # fmt: skip
    imported = import_codex_text(text)
    assert users(imported) == [("L0002", "go")]
    assert "event_text_used" not in imported.note_counts()


def test_the_same_text_in_two_turns_pairs_within_each_turn() -> None:
    text = lines(META, heard(1, "again"), item(2, "user", "again"), item(3, "assistant", "a"),
                 answered(4), heard(5, "again"), item(6, "assistant", "b"), answered(7),
                 item(8, "user", "again"), heard(9, "again"), item(10, "assistant", "c"))  # fmt: skip
    imported = import_codex_text(text)
    assert users(imported) == [("L0003", "again"), ("L0006", "again"), ("L0009", "again")]
    assert notes_of(imported, "event_text_used") == [(6, "L0006")]


def test_an_event_alone_inside_an_open_response_waits_for_the_next_one() -> None:
    """No token_count closes the response: the event is read as input given mid-response,
    and the item with its text that follows is its copy, not a second message."""
    text = lines(META, item(1, "user", "go"), item(2, "assistant", "a"), heard(3, "more"),
                 item(4, "user", "more"), item(5, "assistant", "b"))  # fmt: skip
    imported = import_codex_text(text)
    assert [t for _, t in users(imported)] == ["go", "more"]
    assert "event_text_used" not in imported.note_counts()


def test_an_item_with_an_image_pairs_with_the_event_of_its_own_text() -> None:
    """Later versions wrap an attached image in tag texts; the event holds the user's text."""
    content = [{"type": "input_text", "text": "<image name=[Image #1]>"},
               {"type": "input_image", "image_url": "data:image/png;base64,QUJD"},
               {"type": "input_text", "text": "</image>"},
               {"type": "input_text", "text": "What is wrong here?"}]  # fmt: skip
    with_image = rec(2, "response_item", type="message", role="user", content=content)
    early = item(5, "user", "## My request for Codex:\nAnd here?")
    text = lines(META, heard(1, "What is wrong here?"), with_image, item(3, "assistant", "x"),
                 answered(4), early, heard(6, "And here?"), item(7, "assistant", "y"))  # fmt: skip
    imported = import_codex_text(text)
    assert [entry_id for entry_id, _ in users(imported)] == ["L0003", "L0006"]
    assert "event_text_used" not in imported.note_counts()


def test_an_event_alone_keeps_its_images_as_placeholders() -> None:
    image = "data:image/png;base64,QUJD"
    imported = import_codex_text(lines(META, heard(1, "look", images=[image]),
                                       item(2, "assistant", "a cat")))  # fmt: skip
    [user] = [e for e in imported.entries if e.id == "L0002"]
    assert text_of(user.message) == "look\n[image: image/png, 4 bytes of base64]"
    assert [(n.line, n.entry_id, n.detail) for n in imported.notes
            if n.kind == "image_placeholder"] == [
        (2, "L0002", "payload.images.0: [image: image/png, 4 bytes of base64]")
    ]  # fmt: skip


def test_event_only_text_counts_as_a_turn_for_a_rollback() -> None:
    text = lines(META, heard(1, "one"), item(2, "assistant", "a"), heard(3, "two"),
                 item(4, "assistant", "b"),
                 rec(5, "event_msg", type="thread_rolled_back", num_turns=1),
                 item(6, "user", "three"))  # fmt: skip
    imported = import_codex_text(text)
    assert [e.id for e in imported.active_path()] == ["L0001", "L0002", "L0003", "L0007"]


def test_an_event_alone_before_an_abort_becomes_the_turn_s_message() -> None:
    text = lines(META, item(1, "user", "one"), item(2, "assistant", "a"), heard(3, "stop"),
                 rec(4, "event_msg", type="turn_aborted", reason="interrupted"))  # fmt: skip
    imported = import_codex_text(text)
    assert users(imported)[-1] == ("L0004", "stop")
    [aborted] = [n for n in imported.notes if n.kind == "turn_interrupted"]
    assert aborted.detail.endswith("no reply yet")  # the reply before it is the turn before's


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"message": None}, r"^line 2: user_message\.message must be a string, got None"),
        ({"message": "x", "images": "a"}, r"^line 2: user_message\.images must be a list"),
    ],
)
def test_a_user_message_event_it_cannot_read_is_an_error_naming_the_line(
    payload: dict[str, Any], message: str
) -> None:
    with pytest.raises(AgentImportError, match=message):
        import_codex_text(lines(META, rec(1, "event_msg", type="user_message", **payload)))


# --- forked subagents -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def forked() -> Any:
    return import_codex_session(FORKED)


def test_the_copied_history_is_kept_and_named(forked: Any) -> None:
    assert forked.source.session_id == CHILD_ID
    entries = by_id(forked)
    copied_header = entries["L0002"]
    assert isinstance(copied_header, MetadataEntry) and copied_header.value["id"] == PARENT_ID
    path = [e.id for e in forked.active_path()]
    assert path == ["L0001", "L0002", "L0003", "L0004", "L0005", "L0006", "L0008",
                    f"{SPAWN_CALL}.forked", "L0011", "L0012", "L0014", "L0016", "L0017"]  # fmt: skip
    assert notes_of(forked, "forked_history") == [(1, "L0001"), (9, f"{SPAWN_CALL}.forked")]
    first = next(n.detail for n in forked.notes if n.kind == "forked_history")
    assert f"started by the session {PARENT_ID!r}" in first


def test_the_copied_spawn_call_gets_the_truth_not_an_error(forked: Any) -> None:
    entries = by_id(forked)
    call = entries["L0008"].message
    assert isinstance(call, AssistantMessage)
    assert [c.name for c in call.tool_calls] == ["spawn_agent"]
    result = entries[f"{SPAWN_CALL}.forked"]
    assert isinstance(result.message, ToolResultMessage)
    assert (result.parent_id, result.message.tool_call_id, result.message.is_error) == (
        "L0008", SPAWN_CALL, False,
    )  # fmt: skip
    assert CHILD_ID in text_of(result.message)
    assert result.timestamp == entries["L0008"].timestamp
    assert entries["L0011"].parent_id == result.id  # the subagent's own turn follows it
    # Before: the repair's synthetic error result, with a missing-result note.
    counts = forked.note_counts()
    assert "missing_result_repaired" not in counts and "missing_result_dropped" not in counts
    assert not any(e.id.endswith(".result") for e in forked.entries)
    # Nothing is missing, so even the strictest policy reads the file.
    strict = import_codex_session(FORKED, on_missing_result="error")
    assert strict.entries == forked.entries


def test_a_copied_spawn_call_with_its_output_is_left_as_it_is() -> None:
    text = lines(SUBAGENT_META, item(1, "user", "parent task"), spawn(2),
                 output(3, "sp1", "You are the spawned agent."), rec(4, "turn_context", model="m"),
                 item(5, "user", "child task"))  # fmt: skip
    imported = import_codex_text(text)
    assert by_id(imported)["L0004"].message.tool_call_id == "sp1"
    assert not any(e.id.endswith((".forked", ".result")) for e in imported.entries)
    assert notes_of(imported, "forked_history") == [(1, "L0001")]


def test_a_subagent_s_own_unanswered_spawn_call_is_an_ordinary_missing_result() -> None:
    text = lines(SUBAGENT_META, item(1, "user", "parent task"), spawn(2),
                 rec(3, "turn_context", model="m"), item(4, "user", "child task"),
                 spawn(5, "sp2"), rec(6, "event_msg", type="turn_aborted", reason="interrupted"),
                 item(7, "user", "next"))  # fmt: skip
    imported = import_codex_text(text)
    entries = by_id(imported)
    assert not entries["sp1.forked"].message.is_error  # the copy's
    assert entries["sp2.result"].message.is_error  # the subagent's own, interrupted
    assert notes_of(imported, "missing_result_repaired") == [(6, "sp2.result")]


def test_a_spawn_call_the_model_goes_on_from_is_not_the_copy_s_end() -> None:
    text = lines(SUBAGENT_META, item(1, "user", "task"), spawn(2),
                 item(3, "assistant", "waiting"), item(4, "user", "next"))  # fmt: skip
    imported = import_codex_text(text)
    assert "sp1.result" in by_id(imported) and "sp1.forked" not in by_id(imported)


def test_the_parent_s_copied_header_marks_a_fork_without_forked_from_id() -> None:
    meta = rec(0, "session_meta", id="child", source={"subagent": {"thread_spawn": {
        "parent_thread_id": "parent", "depth": 1}}})  # fmt: skip
    copied = rec(1, "session_meta", id="parent")
    text = lines(meta, copied, item(2, "user", "task"), spawn(3), item(4, "user", "child task"))
    imported = import_codex_text(text)
    assert notes_of(imported, "forked_history") == [(2, "L0002"), (4, "sp1.forked")]
    fresh = import_codex_text(lines(meta, item(2, "user", "task"), spawn(3),
                                    item(4, "user", "child task")))  # fmt: skip
    assert "forked_history" not in fresh.note_counts()  # no copy: its own call, unanswered
    assert "sp1.result" in by_id(fresh)


def test_a_session_forked_by_the_user_is_named_but_has_no_spawn_call() -> None:
    meta = rec(0, "session_meta", id="copy", forked_from_id="original")
    imported = import_codex_text(lines(meta, item(1, "user", "hi"), spawn(2)))
    [note] = [n for n in imported.notes if n.kind == "forked_history"]
    assert note.detail.startswith("a session forked from the session 'original'")
    assert "sp1.result" in by_id(imported)  # not a subagent: no parent's spawn call to settle


# --- the legacy layout --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def legacy() -> Any:
    return import_codex_session(LEGACY)


def test_the_legacy_layout_is_read_item_by_item(legacy: Any) -> None:
    assert legacy.source.session_id == LEGACY_ID
    assert legacy.source.record_counts == {"message": 6, "state": 4, "header": 1, "reasoning": 1,
                                           "function_call": 1, "function_call_output": 1}  # fmt: skip
    header = by_id(legacy)["L0001"]
    assert isinstance(header, MetadataEntry) and header.key == "codex.session_meta"
    assert header.value["git"]["branch"] == "main"
    kinds = [(e.id, type(e.message).__name__) for e in legacy.active_path()
             if isinstance(e, MessageEntry)]  # fmt: skip
    assert kinds == [
        ("L0003", "UserMessage"), ("L0004", "UserMessage"), ("L0005", "UserMessage"),
        ("L0008", "AssistantMessage"), ("L0009", "ToolResultMessage"),
        ("L0010", "AssistantMessage"), ("L0012", "UserMessage"), ("L0013", "AssistantMessage"),
    ]  # fmt: skip
    assert by_id(legacy)["L0009"].message.tool_name == "shell"
    assert {e.timestamp for e in legacy.entries} == {header.timestamp}  # 2025-08-20T14:05:31.250Z
    assert header.timestamp == 1_755_698_731_250


def test_the_legacy_layout_notes_once_and_counts_what_it_skips(legacy: Any) -> None:
    assert notes_of(legacy, "legacy_layout") == [(1, "L0001")]
    details = {n.kind: n.detail for n in legacy.notes if n.kind != "record_skipped"}
    assert details["timestamp_from_entry"] == (
        "legacy item without a timestamp: the timestamp of the header used: 9 times (lines 3-13)"
    )
    [state] = [n for n in legacy.notes if n.kind == "record_skipped"]
    assert (state.line, state.detail) == (2, "record_type 'state' line (bookkeeping of Codex, "
                                             "never sent to a model): skipped: 4 times (lines 2-14)")  # fmt: skip
    assert notes_of(legacy, "usage_missing") == [(8, "L0008")]  # no token counts in this layout


def test_the_legacy_header_was_refused_before_and_is_only_read_first() -> None:
    """Before: ``line 1: record has no string 'type'``. The reader still refuses it by default."""
    text = LEGACY.read_text(encoding="utf-8")
    with pytest.raises(AgentImportError, match=r"^line 1: record has no string 'type'"):
        list(read_records(split_pi_text(text)))
    records = list(read_records(split_pi_text(text), require_type=False))
    assert [line for line, _ in records] == list(range(1, 15))
    header = text.splitlines()[0]
    with pytest.raises(AgentImportError, match=r"^line 2: record has no string 'type'"):
        import_codex_text(lines(META) + header + "\n")  # a header after the first line
    with pytest.raises(AgentImportError, match=r"^line 3: record has no string 'type'"):
        import_codex_text(header + "\n" + lines(item(1, "user", "hi")) + '{"kind": "x"}\n')


def test_a_state_line_in_the_later_layout_is_skipped_too() -> None:
    imported = import_codex_text(lines(META, item(1, "user", "hi")) + '{"record_type":"state"}\n')
    assert imported.source.record_counts["state"] == 1
    assert any(n.line == 3 and "record_type 'state'" in n.detail for n in imported.notes)


# --- injected context -------------------------------------------------------------------------


def test_each_injected_user_message_is_named_with_its_kind() -> None:
    found = []
    for path in (FORKED, LEGACY):
        for note in import_codex_session(path).notes:
            if note.kind == "injected_context":
                found.append((path.stem, note.line, note.entry_id, note.detail.split("'")[1]))
    assert found == [
        ("forked-subagent", 3, "L0003", "# AGENTS.md"),
        ("forked-subagent", 4, "L0004", "<environment_context>"),
        ("legacy-layout", 3, "L0003", "<user_instructions>"),
        ("legacy-layout", 4, "L0004", "<environment_context>"),
    ]


def test_injected_messages_stay_user_messages_each_starting_an_interaction(forked: Any) -> None:
    entries = by_id(forked)
    for entry_id in ("L0003", "L0004"):
        assert isinstance(entries[entry_id].message, UserMessage)
    groups = group_interactions([e for e in forked.active_path() if isinstance(e, MessageEntry)])
    assert [group.entry_ids[0] for group in groups] == ["L0003", "L0004", "L0006", "L0012"]


def test_every_note_kind_of_these_shapes_comes_from_the_files() -> None:
    kinds: Counter[str] = Counter()
    for path in (EVENT_ONLY, FORKED, LEGACY):
        kinds.update(import_codex_session(path).note_counts())
    assert {"event_text_used", "forked_history", "legacy_layout", "injected_context"} <= set(kinds)
    assert (kinds["event_text_used"], kinds["forked_history"], kinds["legacy_layout"],
            kinds["injected_context"]) == (2, 2, 1, 4)  # fmt: skip
