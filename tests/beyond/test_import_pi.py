"""The pi session importer: the real v1 sample, synthetic v2/v3 trees, repairs and bad input."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import re
import sys
from collections import Counter
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from course_lib import (
    AssistantMessage,
    CompactionEntry,
    InteractionError,
    MessageEntry,
    MetadataEntry,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    budget_ledger,
    build_context,
    group_interactions,
    parse_session_entry,
    path_to,
    render_summary,
    text_of,
)
from course_lib.base.errors import CourseError
from course_lib.beyond.estimators import chars_estimator
from course_lib.beyond.importers import (
    ImportNote,
    PiImportError,
    PiMissingResultError,
    import_pi_session,
    import_pi_text,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "pi-sessions" / "large-session.v1.jsonl"
PI_DATA = Path(__file__).resolve().parents[1] / "data" / "pi"
PI_WINDOW, PI_RESERVED = 200_000, 16_384


# --- small builders for pi records -----------------------------------------------


def pi_text(*records: dict[str, Any]) -> str:
    """A pi file: one compact JSON object per line, each committed by its newline."""
    return "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records)


def iso(second: int) -> str:
    return f"2025-01-01T00:00:{second:02d}.000Z"


def header(version: int | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"type": "session", "id": "sess-1", "timestamp": iso(0), "cwd": "/w"}
    if version is not None:
        record["version"] = version
    return record


def user(text: str, ts: int = 1) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": ts}


def assistant(*blocks: dict[str, Any], stop: str = "stop", ts: int = 2) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": list(blocks),
        "provider": "anthropic",
        "model": "m",
        "usage": {"input": 1, "output": 2, "totalTokens": 3},
        "stopReason": stop,
        "timestamp": ts,
    }


def say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def call(call_id: str, name: str = "bash") -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {"command": "ls"}}


def result(call_id: str, text: str = "ok", name: str = "bash") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [say(text)],
        "isError": False,
        "timestamp": 3,
    }


def v1(message: dict[str, Any], second: int = 1) -> dict[str, Any]:
    return {"type": "message", "timestamp": iso(second), "message": message}


def node(entry_id: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": iso(1),
        "message": message,
    }


def by_id(entries: list[Any]) -> dict[str, Any]:
    return {entry.id: entry for entry in entries}


def message_entries(path: list[Any]) -> list[MessageEntry]:
    return [entry for entry in path if isinstance(entry, MessageEntry)]


def kinds(notes: list[ImportNote]) -> Counter[str]:
    return Counter(note.kind for note in notes)


# --- an independent scan of the raw sample ---------------------------------------


def raw_scan(path: Path) -> dict[str, Any]:
    """Counts straight from the JSON lines, sharing no code with the importer."""
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    messages = [r["message"] for r in records if r["type"] == "message"]
    calls: dict[str, int] = {}
    for number, record in enumerate(records, start=1):
        if record["type"] == "message" and record["message"]["role"] == "assistant":
            for block in record["message"]["content"]:
                if block["type"] == "toolCall":
                    calls[block["id"]] = number
    answered = {m["toolCallId"] for m in messages if m["role"] == "toolResult"}
    assistants = [m for m in messages if m["role"] == "assistant"]
    return {
        "lines": len(lines),
        "types": Counter(r["type"] for r in records),
        "roles": Counter(m["role"] for m in messages),
        "missing": {cid: line for cid, line in calls.items() if cid not in answered},
        "thinking_entries": sum(
            any(b["type"] == "thinking" for b in m["content"]) for m in assistants
        ),
        "partial_calls": sum(
            "partialJson" in b for m in assistants for b in m["content"] if b["type"] == "toolCall"
        ),
        "extra_assistant_fields": {k for m in assistants for k in m}
        - {
            "role",
            "content",
            "provider",
            "model",
            "usage",
            "stopReason",
            "errorMessage",
            "timestamp",
        },
        "extra_usage_fields": {k for m in assistants for k in m["usage"]}
        - {"input", "output", "totalTokens"},
        "usage_without_total": sum("totalTokens" not in m["usage"] for m in assistants),
    }


@pytest.fixture(scope="module")
def scan() -> dict[str, Any]:
    return raw_scan(SAMPLE)


@pytest.fixture(scope="module")
def sample() -> Any:
    return import_pi_session(SAMPLE)


# --- the real sample --------------------------------------------------------------


def test_sample_counts_agree_with_a_raw_scan(sample: Any, scan: dict[str, Any]) -> None:
    missing = len(scan["missing"])
    assert (scan["lines"], missing) == (1019, 18)
    assert sample.source.version == 1
    assert sample.source.records == scan["lines"]
    assert sample.source.entry_counts == dict(scan["types"])
    assert sample.source.role_counts == dict(scan["roles"])

    entries = sample.entries
    assert len(entries) == scan["lines"] + missing == 1037
    messages = [e for e in entries if isinstance(e, MessageEntry)]
    assert len(messages) == scan["types"]["message"] + missing == 932
    assert (
        sum(isinstance(e, MetadataEntry) for e in entries)
        == scan["lines"] - scan["types"]["message"]
    )
    assert not any(isinstance(e, CompactionEntry) for e in entries)

    groups = group_interactions(message_entries(sample.active_path()))
    assert len(groups) == scan["roles"]["user"] == 88

    expected_notes = {
        "missing_result_repaired": missing,
        "field_dropped": len(scan["extra_assistant_fields"]) + len(scan["extra_usage_fields"]),
        "partial_arguments": scan["partial_calls"],
        "thinking_dropped": scan["thinking_entries"],
        "usage_total_computed": 1 if scan["usage_without_total"] else 0,
    }
    assert sample.note_counts() == expected_notes
    assert expected_notes == {
        "missing_result_repaired": 18,
        "field_dropped": 4,
        "partial_arguments": 3,
        "thinking_dropped": 1,
        "usage_total_computed": 1,
    }
    assert len(sample.notes) == 27


def test_sample_entries_reparse_and_follow_the_lines(sample: Any) -> None:
    entries = sample.entries
    for entry in entries:
        again = parse_session_entry(entry.to_wire())
        assert again == entry and again is not entry
    originals = [e for e in entries if re.fullmatch(r"L\d{4}", e.id)]
    assert [e.id for e in originals] == [f"L{n:04d}" for n in range(1, 1020)]
    assert entries[0].id == "L0001" and entries[0].parent_id is None
    assert isinstance(entries[0], MetadataEntry) and entries[0].key == "pi.session"
    assert entries[0].value["modelId"] == "claude-sonnet-4-5"
    # linear: every entry's parent is the entry listed before it
    assert all(b.parent_id == a.id for a, b in itertools.pairwise(entries))
    assert sample.leaf_id == "L1019" == entries[-1].id


def test_sample_path_covers_every_entry(sample: Any) -> None:
    path = path_to(sample.entries, sample.leaf_id)
    assert [e.id for e in path] == [e.id for e in sample.entries]
    assert sample.active_path() == path


def test_sample_unanswered_calls_get_synthetic_results_after_their_turn(
    sample: Any, scan: dict[str, Any]
) -> None:
    entries = sample.entries
    synthetic = [e for e in entries if not re.fullmatch(r"L\d{4}", e.id)]
    assert {e.message.tool_call_id for e in synthetic} == set(scan["missing"])
    for entry in synthetic:
        message = entry.message
        assert isinstance(message, ToolResultMessage)
        assert entry.id == f"{message.tool_call_id}.result"
        assert message.is_error is True
        assert message.details == {"synthetic": True, "reason": "no result recorded"}
        assert "No result provided" in text_of(message)
    ids = [e.id for e in entries]
    # line 33 declared 16 calls and line 34 is the next user message
    at = ids.index("L0033")
    assert ids[at + 17] == "L0034"
    assert by_id(entries)["L0034"].parent_id == ids[at + 16]
    assert [n.line for n in sample.notes if n.kind == "missing_result_repaired"] == sorted(
        scan["missing"].values()
    )


def test_sample_maps_usage_thinking_partial_arguments_and_timestamps(sample: Any) -> None:
    entries = by_id(sample.entries)
    # 2025-11-20T23:33:50.805Z in Unix milliseconds; the message's own timestamp is kept
    assert entries["L0001"].timestamp == 1763681630805
    assert entries["L0002"].message.timestamp == 1763681581544
    usage = entries["L0031"].message.usage
    assert (usage.input, usage.output, usage.total_tokens) == (6, 79, 6 + 79 + 37072 + 580)
    hello = entries["L0492"].message
    assert [block.type for block in hello.content] == ["text"]
    assert hello.content[0].text == "Hello! \N{WAVING HAND SIGN}"
    partial = next(b for b in entries["L0234"].message.content if isinstance(b, ToolCall))
    assert partial.raw_arguments is not None and partial.raw_arguments.startswith('{"path"')
    assert {e.message.stop_reason for e in entries.values() if isinstance(e, MessageEntry)
            and isinstance(e.message, AssistantMessage)} <= {"stop", "length", "toolUse", "error", "aborted"}  # fmt: skip


def test_sample_error_policy_raises_at_import_naming_line_and_call() -> None:
    with pytest.raises(PiMissingResultError) as caught:
        import_pi_session(SAMPLE, on_missing_result="error")
    error = caught.value
    assert isinstance(error, InteractionError) and isinstance(error, CourseError)
    assert (error.line, error.call_id, error.entry_id) == (
        33,
        "toolu_016i8caCv6EqBx4nQUJmnEvU",
        "L0033",
    )
    assert str(error).startswith(
        "line 33: missing result for tool call 'toolu_016i8caCv6EqBx4nQUJmnEvU'"
    )


def test_sample_drop_policy_removes_the_unanswered_blocks(scan: dict[str, Any]) -> None:
    dropped = import_pi_session(SAMPLE, on_missing_result="drop")
    assert len(dropped.entries) == 1019
    assert kinds(dropped.notes)["missing_result_dropped"] == 18
    declared = {
        block.id
        for e in dropped.entries
        if isinstance(e, MessageEntry) and isinstance(e.message, AssistantMessage)
        for block in e.message.tool_calls
    }
    assert declared.isdisjoint(scan["missing"])
    assert len(group_interactions(message_entries(dropped.active_path()))) == 88


def test_sample_builds_a_context_under_pi_defaults(sample: Any) -> None:
    path = sample.active_path()
    estimate = chars_estimator()
    built = build_context(
        path, max_tokens=PI_WINDOW, reserved_output=PI_RESERVED, estimate_tokens=estimate
    )
    assert built.reason == "within_budget"
    assert built.kept_entry_ids == [e.id for e in message_entries(path)]
    assert built.tokens.system == 0
    assert built.tokens.available_for_messages == PI_WINDOW - PI_RESERVED
    assert built.tokens.messages == sum(estimate(e.message) for e in message_entries(path))

    tight = build_context(
        path, max_tokens=40_000, reserved_output=PI_RESERVED, estimate_tokens=estimate
    )
    assert tight.reason == "trimmed"
    first = by_id(path)[tight.kept_entry_ids[0]]
    assert isinstance(first.message, UserMessage)
    ledger = budget_ledger(
        path, max_tokens=40_000, reserved_output=PI_RESERVED, estimate_tokens=estimate
    )
    kept = [i for row in ledger if row.status == "kept" for i in row.entry_ids]
    assert kept == tight.kept_entry_ids
    assert sum(row.tokens for row in ledger if row.status == "kept") == tight.tokens.messages


def test_notes_are_frozen(sample: Any) -> None:
    note = sample.notes[0]
    with pytest.raises(FrozenInstanceError):
        note.kind = "changed"  # type: ignore[misc]
    assert len(sample.notes) == 27


# --- synthetic v3 tree: branches, compaction, images, bash, custom messages -------


@pytest.fixture(scope="module")
def v3() -> Any:
    return import_pi_session(PI_DATA / "v3-tree.jsonl")


def test_v3_keeps_ids_parents_and_every_branch(v3: Any) -> None:
    entries = by_id(v3.entries)
    assert v3.source.version == 3
    assert v3.leaf_id == "e21"
    assert entries["L0001"].key == "pi.session" and entries["L0001"].parent_id is None
    assert entries["e01"].parent_id == "L0001"  # the pi root hangs under the header
    assert entries["e11"].parent_id == "e06"  # branch B starts back at e06
    # branch A's aborted grep call got its result right after its turn
    assert entries["grep-1.result"].parent_id == "e08"
    assert entries["e09"].parent_id == "grep-1.result"
    path_ids = [e.id for e in v3.active_path()]
    assert path_ids == ["L0001", "e01", "e02", "e03", "e04", "e05", "e06", "e11", "e12", "e13"] + [
        f"e{n}" for n in range(14, 22)
    ]
    branch_a = path_to(v3.entries, "e10")
    assert [e.id for e in branch_a][-5:] == ["e07", "e08", "grep-1.result", "e09", "e10"]
    for leaf in ("e10", "e21"):
        group_interactions(message_entries(path_to(v3.entries, leaf)))
    for entry in v3.entries:
        assert parse_session_entry(entry.to_wire()) == entry
    assert kinds(v3.notes)["root_reparented"] == 1


def test_v3_maps_each_pi_message_kind(v3: Any) -> None:
    entries = by_id(v3.entries)
    assert [b.type for b in entries["e03"].message.content] == ["text", "toolCall", "toolCall"]
    assert text_of(entries["e07"].message) == (
        "Here is the failing screen.\n[image: image/png, 2,000 bytes of base64]"
    )
    assert text_of(entries["e12"].message) == "Ran `npm test`\n```\n14 passed\n```"
    assert text_of(entries["e11"].message).startswith(
        "The following is a summary of a branch that this conversation came back from:"
    )
    assert "Looked at a screenshot; the grep was aborted." in text_of(entries["e11"].message)
    assert isinstance(entries["e15"].message, UserMessage)
    assert text_of(entries["e15"].message) == "Remember the style guide."
    assert text_of(entries["e16"].message) == "A note from an extension."
    assert entries["e04"].message.details == {"exitCode": 0}
    metadata = {e.id: (e.key, e.value) for e in v3.entries if isinstance(e, MetadataEntry)}
    assert metadata["e01"] == (
        "pi.model_change",
        {"provider": "anthropic", "modelId": "claude-sonnet-4-5"},
    )
    assert metadata["e18"] == ("pi.label", {"targetId": "e06", "label": "parser ok"})
    assert metadata["e19"] == ("pi.session_info", {"name": "parser work"})
    assert metadata["e20"] == ("pi.custom", {"customType": "todo", "data": {"open": 1}})
    key, value = metadata["e21"]
    assert key == "pi.message.bashExecution" and value["excludeFromContext"] is True
    assert entries["e02"].timestamp == 1764583202000  # 2025-12-01T10:00:02.000Z
    notes = kinds(v3.notes)
    assert (notes["image_placeholder"], notes["thinking_dropped"]) == (1, 1)


def test_v3_compaction_maps_sections_and_moves_first_kept_to_the_user_message(v3: Any) -> None:
    compaction = by_id(v3.entries)["e14"]
    assert isinstance(compaction, CompactionEntry)
    assert compaction.parent_id == "e13" and compaction.tokens_before == 48213
    # pi kept from the assistant reply e13; the interaction starts at the bash run e12
    assert compaction.first_kept_entry_id == "e12"
    moved = [n for n in v3.notes if n.kind == "first_kept_moved"]
    assert len(moved) == 1 and (moved[0].line, moved[0].entry_id) == (15, "e14")
    assert "e13" in moved[0].detail and "e12" in moved[0].detail
    assert compaction.summary.to_wire() == {
        "goal": "Make the parser tests pass.",
        "constraints": ["Keep the public API unchanged"],
        "completed": ["Read `src/parser.ts`", "Ran the focused tests"],
        "decisions": ["**No new dependency**: the fix stays inside the parser"],
        "changedFiles": ["src/tokenizer.ts"],
        "unresolved": [
            "Critical Context: The failing case is an empty input line",
            "Read files: src/parser.ts",
        ],
        "next": ["In progress: Fixing the tokenizer edge case", "Rerun `npm test`"],
    }
    unmapped = [n.detail for n in v3.notes if n.kind == "summary_section_unmapped"]
    assert len(unmapped) == 2 and all("unresolved" in detail for detail in unmapped)

    built = build_context(
        v3.active_path(), max_tokens=PI_WINDOW, reserved_output=PI_RESERVED,
        estimate_tokens=chars_estimator(),
    )  # fmt: skip
    assert built.kept_entry_ids == ["e12", "e13", "e15", "e16", "e17"]
    assert text_of(built.messages[0]).startswith(
        "[Session compaction summary]\nGoal: Make the parser"
    )


def summary_lines(markdown: str) -> list[str]:
    """The content of every line of a pi summary, without markdown markers or empty markers."""
    found = []
    for raw in markdown.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "<")) or line == "- (none)":
            continue
        found.append(re.sub(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)", "", line))
    return found


@pytest.mark.parametrize("name", ["v3-tree.jsonl", "v2-repairs.jsonl"])
def test_no_line_of_a_pi_summary_is_lost(name: str) -> None:
    imported = import_pi_session(PI_DATA / name)
    records = [json.loads(line) for line in (PI_DATA / name).read_text().splitlines()]
    markdown = next(r["summary"] for r in records if r["type"] == "compaction")
    compaction = next(e for e in imported.entries if isinstance(e, CompactionEntry))
    rendered = render_summary(compaction.summary)
    for line in summary_lines(markdown):
        assert line in rendered, line
    # unmapped headings are visible as prefixes
    for heading in re.findall(r"^## (.+)$", markdown, flags=re.MULTILINE):
        if heading in ("Critical Context", "Branch", "Commands"):
            assert f"{heading}: " in rendered


# --- synthetic v2 file: repairs of every kind -------------------------------------


def test_v2_repairs_are_visible_notes() -> None:
    imported = import_pi_session(PI_DATA / "v2-repairs.jsonl")
    entries = by_id(imported.entries)
    notes = kinds(imported.notes)
    # an assistant before the first user message gets a user message in front of it
    assert entries["f01"].parent_id == "f01.user"
    assert isinstance(entries["f01.user"].message, UserMessage)
    assert notes["synthetic_user_inserted"] == 1
    # a second result and a result for an unknown call become metadata, never sent
    assert (entries["f05"].key, entries["f06"].key) == (
        "pi.duplicate_tool_result",
        "pi.unpaired_tool_result",
    )
    assert entries["f06"].value["toolCallId"] == "ghost-1"
    assert (notes["duplicate_result"], notes["unpaired_result"]) == (1, 1)
    # the leaf declared a call that never returned: the result is appended, the leaf moves
    assert imported.leaf_id == "edit-1.result" and entries["edit-1.result"].parent_id == "f13"
    assert notes["leaf_moved"] == 1
    # v2's hookMessage role is a user message
    assert text_of(entries["f08"].message) == "The README is short."
    summary = entries["f10"].summary
    assert summary.goal == "Context Checkpoint: Summarise the repository"
    assert notes["summary_goal_fallback"] == 1
    assert summary.decisions == ["Summaries go to README.md"]
    assert summary.completed == ["Listed the files"]
    assert summary.changed_files == ["README.md"]
    assert summary.next == ["Write the summary"]
    assert summary.unresolved == ["Branch: `main`", "Commands: `ls -R`"]
    assert entries["f10"].first_kept_entry_id == "f08"
    groups = group_interactions(message_entries(imported.active_path()))
    assert [g.entry_ids[0] for g in groups] == ["f01.user", "f02", "f08", "f12"]
    built = build_context(
        imported.active_path(), max_tokens=PI_WINDOW, estimate_tokens=chars_estimator()
    )
    assert built.kept_entry_ids == ["f08", "f09", "f12", "f13", "edit-1.result"]


# --- trees: the repair decides per path --------------------------------------------


def test_a_call_answered_late_on_one_branch_is_repaired_only_on_the_other() -> None:
    text = pi_text(
        header(3),
        node("u1", None, user("go")),
        node("a1", "u1", assistant(call("c1"), stop="toolUse")),
        node("a2", "a1", assistant(say("still working"))),
        node("r1", "a2", result("c1")),  # branch 1 answers after another assistant message
        node("u2", "r1", user("next")),
        node("u3", "a2", user("stop here")),  # branch 2 never answers
    )
    imported = import_pi_text(text)
    entries = by_id(imported.entries)
    assert entries["c1.result"].parent_id == "a2" and entries["u3"].parent_id == "c1.result"
    assert entries["r1"].parent_id == "a2"
    for leaf in ("u2", "u3"):
        results = [
            e.id for e in path_to(imported.entries, leaf)
            if isinstance(e, MessageEntry) and isinstance(e.message, ToolResultMessage)
        ]  # fmt: skip
        assert len(results) == 1
        group_interactions(message_entries(path_to(imported.entries, leaf)))


def test_the_same_unanswered_call_on_two_branches_gets_two_results() -> None:
    text = pi_text(
        header(2),
        node("u1", None, user("go")),
        node("a1", "u1", assistant(call("c1"), stop="aborted")),
        node("u2", "a1", user("retry")),
        node("u3", "a1", user("other way")),
    )
    imported = import_pi_text(text)
    entries = by_id(imported.entries)
    assert {entries["u2"].parent_id, entries["u3"].parent_id} == {"c1.result", "c1.result-2"}
    assert kinds(imported.notes)["missing_result_repaired"] == 2
    with pytest.raises(PiMissingResultError, match="line 3: missing result for tool call 'c1'"):
        import_pi_text(text, on_missing_result="error")


def test_drop_refuses_a_call_answered_on_another_branch() -> None:
    text = pi_text(
        header(2),
        node("u1", None, user("go")),
        node("a1", "u1", assistant(call("c1"), stop="toolUse")),
        node("r1", "a1", result("c1")),
        node("u2", "a1", user("interrupt")),
    )
    with pytest.raises(PiImportError, match=r"^line 3: tool call 'c1' is answered on one branch"):
        import_pi_text(text, on_missing_result="drop")
    repaired = import_pi_text(text)
    assert by_id(repaired.entries)["u2"].parent_id == "c1.result"


def test_duplicate_call_ids_in_one_interaction_are_an_error() -> None:
    text = pi_text(
        header(),
        v1(user("go")),
        v1(assistant(call("c1"), stop="toolUse")),
        v1(result("c1")),
        v1(assistant(call("c1"), stop="toolUse")),
    )
    with pytest.raises(PiImportError, match=r"^line 5: duplicate tool call id 'c1'"):
        import_pi_text(text)


# --- v1 compactions, blank lines, corrupt lines ---------------------------------------


def test_v1_compaction_index_counts_records_not_physical_lines() -> None:
    records = [
        header(),
        v1(user("first")),
        v1(assistant(say("one"))),
        v1(user("second")),
        v1(assistant(say("two"))),
        {"type": "compaction", "timestamp": iso(9), "summary": "## Goal\nKeep going",
         "firstKeptEntryIndex": 3, "tokensBefore": 10},
        v1(user("third")),
    ]  # fmt: skip
    lines = pi_text(*records).splitlines(keepends=True)
    text = "".join([*lines[:2], "\n", *lines[2:]])  # a blank line 3 shifts later lines
    imported = import_pi_text(text)
    compaction = next(e for e in imported.entries if isinstance(e, CompactionEntry))
    # index 3 is the 4th record (header = 0): "second", on physical line 5
    assert compaction.id == "L0007" and compaction.first_kept_entry_id == "L0005"
    assert text_of(by_id(imported.entries)["L0005"].message) == "second"
    assert "L0003" not in by_id(imported.entries)
    built = build_context(
        imported.active_path(), max_tokens=1000, estimate_tokens=chars_estimator()
    )
    assert built.kept_entry_ids == ["L0005", "L0006", "L0008"]


def test_first_kept_on_settings_before_a_user_message_moves_forward() -> None:
    text = pi_text(
        header(),
        v1(user("first")),
        v1(assistant(say("one"))),
        {"type": "thinking_level_change", "timestamp": iso(3), "thinkingLevel": "high"},
        v1(user("second")),
        {"type": "compaction", "timestamp": iso(9), "summary": "## Goal\nGo on",
         "firstKeptEntryIndex": 3, "tokensBefore": 10},
    )  # fmt: skip
    imported = import_pi_text(text)
    compaction = by_id(imported.entries)["L0006"]
    assert compaction.first_kept_entry_id == "L0005"
    [note] = [n for n in imported.notes if n.kind == "first_kept_moved"]
    assert "later, past entries the model never sees" in note.detail


def test_an_unterminated_last_line_is_left_out_with_a_note() -> None:
    text = pi_text(header(), v1(user("hi")), v1(assistant(say("hello"))))
    torn = text + json.dumps(v1(user("never committed")))
    imported = import_pi_text(torn)
    assert [e.id for e in imported.entries] == ["L0001", "L0002", "L0003"]
    [note] = imported.notes
    assert (note.kind, note.line, note.entry_id) == ("unterminated_tail", 4, None)
    assert import_pi_text(text + "   ").notes == []  # a whitespace-only tail is nothing


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"no committed line"),
        (pi_text(v1(user("hi"))), r"^line 1: the first entry has type 'message'"),
        (pi_text(header(4)), r"^line 1: unsupported pi session version 4"),
        (pi_text(header(), v1(user("hi"))) + "{not json\n", r"^line 3: not valid JSON"),
        (pi_text(header(), [1, 2]), r"^line 2: expected a JSON object"),  # type: ignore[arg-type]
        (pi_text(header(), {"timestamp": iso(1)}), r"^line 2: entry has no string 'type'"),
        (pi_text(header(), v1(assistant(stop="weird"))), r"^line 2: assistant stopReason 'weird'"),
        (pi_text(header(), v1(result(" "))), r"^line 2: message.toolCallId must be a non-blank"),
        (
            pi_text(header(), v1(assistant({"type": "toolCall", "id": "c", "name": "ls"}))),
            r"^line 2: message.content.0.arguments is missing",
        ),
        (
            pi_text(header(), v1({**assistant(), "usage": {"output": 1}})),
            r"^line 2: message.usage.input is missing",
        ),
        (
            pi_text(header(), {"type": "model_change", "timestamp": "yesterday"}),
            r"^line 2: timestamp 'yesterday' is not an ISO date",
        ),
        (pi_text(header(2), node("x", "ghost", user("hi"))), r"^line 2: entry x: parent 'ghost'"),
        (
            pi_text(header(2), node("x", None, user("a")), node("x", None, user("b"))),
            r"^line 3: duplicate entry id 'x'",
        ),
        (
            pi_text(header(), {"type": "compaction", "timestamp": iso(1), "summary": "x", "tokensBefore": 1}),
            r"^line 2: compaction has neither a firstKeptEntryId",
        ),
        (
            pi_text(header(), v1(assistant(say("a"))), {"type": "compaction", "timestamp": iso(2),
                    "summary": "x", "firstKeptEntryIndex": 9, "tokensBefore": 1}),
            r"^line 3: compaction firstKeptEntryIndex 9 is past the end",
        ),
    ],
)  # fmt: skip
def test_bad_input_is_an_error_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(PiImportError, match=message):
        import_pi_text(text)


def test_bad_bytes_and_options_are_clear_errors(tmp_path: Path) -> None:
    file = tmp_path / "bad.jsonl"
    file.write_bytes(pi_text(header()).encode() + b'{"type":"\xff"}\n')
    with pytest.raises(PiImportError, match=r"^line 2: not valid UTF-8"):
        import_pi_session(file)
    with pytest.raises(PiImportError, match=r"cannot read missing\.jsonl"):
        import_pi_session(tmp_path / "missing.jsonl")
    with pytest.raises(PiImportError, match="on_missing_result must be"):
        import_pi_text(pi_text(header()), on_missing_result="ignore")  # type: ignore[arg-type]


def test_unknown_types_and_roles_become_metadata_with_a_note() -> None:
    text = pi_text(
        header(),
        {"type": "future_thing", "timestamp": iso(1), "payload": [1]},
        v1({"role": "telepathy", "content": "...", "timestamp": 5}),
        v1(user("hi")),
        v1(assistant(say("hello"), stop="end_turn")),
    )
    imported = import_pi_text(text)
    entries = by_id(imported.entries)
    assert (entries["L0002"].key, entries["L0002"].value) == ("pi.future_thing", {"payload": [1]})
    assert entries["L0003"].key == "pi.message.telepathy"
    assert entries["L0005"].message.stop_reason == "stop"
    assert kinds(imported.notes) == {
        "unknown_entry_type": 1,
        "unknown_role": 1,
        "stop_reason_mapped": 1,
    }


def test_unknown_blocks_are_placeholders_or_dropped_never_silent() -> None:
    text = pi_text(
        header(),
        v1(
            {
                "role": "user",
                "content": [say("look"), {"type": "audio", "data": "..."}],
                "timestamp": 1,
            }
        ),
        v1(assistant(say("ok"), {"type": "redacted", "data": "..."})),
    )
    imported = import_pi_text(text)
    entries = by_id(imported.entries)
    assert text_of(entries["L0002"].message) == "look\n[audio block omitted]"
    assert [b.type for b in entries["L0003"].message.content] == ["text"]
    assert kinds(imported.notes) == {"block_placeholder": 1, "block_dropped": 1}


def test_summary_roles_are_sent_as_the_user_text_pi_wraps_them_in() -> None:
    text = pi_text(
        header(),
        v1({"role": "branchSummary", "summary": "Tried X.", "fromId": "a1", "timestamp": 1}),
        v1({"role": "compactionSummary", "summary": "Did Y.", "tokensBefore": 9, "timestamp": 2}),
    )
    entries = by_id(import_pi_text(text).entries)
    assert text_of(entries["L0002"].message) == (
        "The following is a summary of a branch that this conversation came back from:"
        "\n\n<summary>\nTried X.</summary>"
    )
    assert text_of(entries["L0003"].message) == (
        "The conversation history before this point was compacted into the following summary:"
        "\n\n<summary>\nDid Y.\n</summary>"
    )


def test_a_bash_run_that_failed_is_sent_as_pi_words_it() -> None:
    bash = {
        "role": "bashExecution", "command": "make", "output": "", "exitCode": 2,
        "cancelled": False, "truncated": True, "fullOutputPath": "logs/make.log", "timestamp": 1,
    }  # fmt: skip
    imported = import_pi_text(pi_text(header(), v1(bash)))
    assert text_of(by_id(imported.entries)["L0002"].message) == (
        "Ran `make`\n(no output)\n\nCommand exited with code 2"
        "\n\n[Output truncated. Full output: logs/make.log]"
    )


# --- the benchmark runs on the imported sample (its numbers are never asserted) ----------


def test_the_build_context_benchmark_measures_every_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    # benchmarks/ is not an installed package, so load the module from its file
    spec = importlib.util.spec_from_file_location(
        "bench_build_context", ROOT / "benchmarks" / "bench_build_context.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_build_context", bench)
    spec.loader.exec_module(bench)
    figures = bench.measure(repeats=0, sample=SAMPLE)
    assert [f.name for f in figures] == [
        "build_context per entry: real / fixture",
        "budget_ledger / build_context (real)",
        "bpe / chars estimator in build_context",
        "import_pi_session / json.loads of each line",
        "peak memory of import / file size",
        "peak memory of build_context / file size",
    ]
    assert all(math.isfinite(f.ratio) and f.ratio > 0 for f in figures)
    table = bench.render(figures)
    assert table.count("x  ") == len(figures)


# --- entries take over their drafts' values: nothing is shared ----------------------------


def _containers(value: Any) -> list[Any]:
    """Every model, list and dict reachable from ``value``, once per place it is reached."""
    found: list[Any] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, BaseModel):
            found.append(item)
            pending.extend(getattr(item, name) for name in type(item).model_fields)
        elif isinstance(item, list | dict):
            found.append(item)
            pending.extend(item.values() if isinstance(item, dict) else item)
    return found


@pytest.mark.parametrize("source", [SAMPLE, PI_DATA / "v3-tree.jsonl"], ids=["v1 sample", "v3"])
def test_imported_entries_share_no_object_with_each_other(source: Path) -> None:
    """Entries are validated without a checking copy, so no list, dict or model may be reached twice.

    The drafts are built fresh from each line's parsed JSON; were two of them to share a
    value (one record's arguments in two entries, one details dict in two synthetic
    results), changing one entry would change another.
    """
    imported = import_pi_session(source)
    reached = _containers(imported.entries)
    assert len({id(item) for item in reached}) == len(reached)
    assert any(isinstance(item, dict) for item in reached)  # free JSON values were walked too


def test_changing_an_imported_entry_changes_no_other_import() -> None:
    text = pi_text(header(), v1(user("go")), v1(assistant(call("c1"), call("c2"), stop="toolUse")))
    first, second = import_pi_text(text), import_pi_text(text)
    calls = by_id(first.entries)["L0003"].message.content
    calls[0].arguments["command"] = "rm -rf"
    synthetic = [e for e in first.entries if e.id.endswith(".result")]
    assert len(synthetic) == 2
    synthetic[0].message.details["changed"] = True
    assert "changed" not in synthetic[1].message.details
    assert by_id(second.entries)["L0003"].message.content[0].arguments == {"command": "ls"}
    assert second.entries == import_pi_text(text).entries


def test_a_lone_surrogate_in_a_text_is_still_named() -> None:
    """Text (unlike bytes) may hold a raw lone surrogate: the checking copy still finds it."""
    text = pi_text(header(), v1(user("go")))
    bad = text.replace('"go"', '"g\ud800o"')
    with pytest.raises(PiImportError, match=r"^line 2: session entry L0002: .*lone surrogate"):
        import_pi_text(bad)


def test_the_first_problem_in_the_file_is_the_one_reported() -> None:
    """Lines are read, converted and let go one at a time: the earliest broken line is named."""
    text = pi_text(header(), v1(assistant(stop="weird"))) + "{not json\n"
    with pytest.raises(PiImportError, match=r"^line 2: assistant stopReason 'weird'"):
        import_pi_text(text)


def every_form_with_unknown_fields() -> str:
    """A pi file in which every object, at every level, carries a field no course form has."""
    extra: dict[str, Any] = {"unknownField": {"nested": [1, 2.5, None]}}
    image = {"type": "image", "mimeType": "image/png", "data": "AAAA", **extra}
    thinking = {"type": "thinking", "thinking": "hm", **extra}
    calling = assistant(
        {**say("t"), **extra}, {**call("c1"), "partialJson": "{", **extra}, thinking, stop="toolUse"
    )
    calling["usage"] = {"input": 1, "output": 2, "cacheRead": 0, "cost": {"total": 0}, **extra}
    answer = {**result("c1"), "content": [{**say("ok"), **extra}, image], "details": {"n": 2}}
    records = [
        {**header(), **extra},
        {**v1({**user("plain"), **extra}), **extra},
        v1({**user("x"), "content": [{**say("blocks"), **extra}, image], **extra}),
        v1({**calling, "api": "x", **extra}),
        v1({**answer, **extra}),
        {"type": "model_change", "timestamp": iso(5), "provider": "p", "modelId": "m", **extra},
        v1({"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0, **extra}),
        {
            "type": "custom_message",
            "timestamp": iso(7),
            "content": [{**say("c"), **extra}],
            **extra,
        },
        {"type": "branch_summary", "timestamp": iso(8), "summary": "s", "fromId": "x", **extra},
        v1({"role": "custom", "content": "cm", "timestamp": 9, **extra}),
        v1({"role": "compactionSummary", "summary": "cs", "timestamp": 10, **extra}),
    ]
    return pi_text(*records)


@pytest.mark.parametrize("source", ["sample", "v2-repairs", "v3-tree", "unknown fields"])
def test_every_draft_holds_only_schema_keys_so_the_unknown_key_search_can_be_skipped(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The importer writes each draft's keys from the schema's own names (pi's other fields are
    noted and left out), so its drafts skip pydantic's search for unknown keys: each one is
    also read with the search, and must read the same."""
    import copy

    from course_lib.beyond.importers import pi
    from course_lib.chapter import sessions as entries

    read_twice: list[str] = []

    def with_the_search_too(value: dict[str, Any], *, schema_keys_only: bool = False) -> Any:
        assert schema_keys_only
        searched = entries.parse_fresh_entry(copy.deepcopy(value))  # an unknown key: refused
        entry = entries.parse_fresh_entry(value, schema_keys_only=True)
        assert entry == searched
        read_twice.append(entry.id)
        return entry

    monkeypatch.setattr(pi, "parse_fresh_entry", with_the_search_too)
    if source == "sample":
        imported = import_pi_session(SAMPLE)
    elif source == "unknown fields":
        imported = import_pi_text(every_form_with_unknown_fields())
    else:
        imported = import_pi_session(PI_DATA / f"{source}.jsonl")
    assert read_twice == [entry.id for entry in imported.entries]
    if source == "unknown fields":
        dropped = [n.detail for n in imported.notes if n.kind == "field_dropped"]
        assert sum("'unknownField'" in detail for detail in dropped) == 12  # one per course form


def test_lines_are_let_go_as_they_are_read() -> None:
    from course_lib.beyond.importers._pi_read import split_pi_bytes, take_records

    data = pi_text(header(), v1(user("a")), v1(user("b"))).encode() + b"\n  \n"
    committed = split_pi_bytes(data)
    assert (committed.count, committed.last_record_line, committed.tail_line) == (5, 3, None)
    records = take_records(committed)
    line, index, record = next(records)
    assert (line, index, record["type"]) == (1, 0, "session")
    assert len(committed.lines) == 4  # the header's line is no longer held
    assert [line for line, _index, _record in records] == [2, 3]
    assert committed.lines == []
