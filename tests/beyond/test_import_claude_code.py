"""The Claude Code importer: the sample in data/, small synthetic files, bad and hostile input."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from agent_samples import CLAUDE_CODE_SAMPLE, CLAUDE_SUMMARY_1
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import (
    AssistantMessage,
    CompactionEntry,
    CourseError,
    JsonlSessionStore,
    MessageEntry,
    MetadataEntry,
    ToolResultMessage,
    UserMessage,
    build_context,
    group_interactions,
    import_claude_code_session,
    render_summary,
    summary_message,
    text_of,
)
from course_lib.base.wire import DEFAULT_LIMITS, JsonLimits, dumps_line
from course_lib.beyond.estimators import chars_estimator
from course_lib.beyond.importers import AgentImportError, import_claude_code_text
from course_lib.beyond.importers._agent_summary import claude_code_markdown

SESSION = "s-1"


def uid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


# --- small builders for Claude Code records -----------------------------------------------


def text_of_records(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)


def record(kind: str, n: int, parent: int | None, **fields: Any) -> dict[str, Any]:
    return {
        "parentUuid": uid(parent) if parent is not None else None,
        "isSidechain": False,
        "sessionId": SESSION,
        "type": kind,
        "uuid": uid(n),
        "timestamp": f"2026-03-02T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        **fields,
    }


def user(n: int, parent: int | None, content: Any, **fields: Any) -> dict[str, Any]:
    return record("user", n, parent, message={"role": "user", "content": content}, **fields)


def result(n: int, parent: int, call_id: str, text: str = "ok") -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": False}
    return user(n, parent, [block])


def assistant(
    n: int, parent: int, message_id: str, *blocks: dict[str, Any], stop: str | None = "end_turn"
) -> dict[str, Any]:
    message = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": "sample-model-a",
        "content": list(blocks),
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 100,
                  "cache_creation_input_tokens": 5, "output_tokens": 7},
    }  # fmt: skip
    return record("assistant", n, parent, message=message)


def say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def use(call_id: str, name: str = "Bash") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {"command": "ls"}}


def boundary(n: int, logical: int | None, **meta: Any) -> dict[str, Any]:
    return record(
        "system",
        n,
        None,
        subtype="compact_boundary",
        logicalParentUuid=uid(logical) if logical is not None else None,
        compactMetadata={"trigger": "manual", "preTokens": 1234, **meta},
    )


def compact_summary(n: int, parent: int, text: str) -> dict[str, Any]:
    return user(n, parent, text, isCompactSummary=True)


def kinds(notes: list[Any]) -> Counter[str]:
    return Counter(note.kind for note in notes)


def round_trips(entries: list[Any], tmp_path: Path) -> None:
    """Whatever the import returns, a store appends and reads back equal, line for line."""
    store = JsonlSessionStore.open(tmp_path / "imported.jsonl")
    for entry in entries:
        store.append(entry)
    again = JsonlSessionStore.open(tmp_path / "imported.jsonl").entries()
    assert again == entries
    assert [dumps_line(e.to_wire()) for e in again] == [dumps_line(e.to_wire()) for e in entries]


# --- the sample -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample() -> Any:
    return import_claude_code_session(CLAUDE_CODE_SAMPLE)


def raw_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CLAUDE_CODE_SAMPLE.read_text("utf-8").splitlines()]


def test_sample_counts_agree_with_a_raw_scan(sample: Any) -> None:
    raw = raw_records()
    assert sample.format == "claude-code" and sample.source.label == "Claude Code"
    assert sample.source.records == len(raw) == 49
    assert sample.source.record_counts == dict(Counter(r["type"] for r in raw).most_common())
    side = [r for r in raw if r.get("isSidechain")]
    assert (sample.source.sidechain_records, sample.source.sidechain_runs) == (len(side), 1)
    assert Counter(e.type for e in sample.entries) == {
        "message": 35,
        "compaction": 2,
        "metadata": 1,
    }
    ids = {e.id for e in sample.entries}
    assert not ids & {r["uuid"] for r in side}  # sidechains stay off every path
    assert sample.leaf_id == raw[-1]["uuid"]


def test_sample_merges_the_records_of_one_turn_in_order(sample: Any) -> None:
    by_id = {e.id: e for e in sample.entries}
    merged = [n for n in sample.notes if n.kind == "records_merged"]
    assert [(n.line, n.entry_id) for n in merged] == [(4, uid(2)), (10, uid(8)), (34, uid(31))]
    first = by_id[uid(2)].message  # thinking, text and a call, written as three records
    assert [type(b).__name__ for b in first.content] == ["TextContent", "ToolCall"]
    assert first.stop_reason == "toolUse"
    # msg_03: text, a call, its result, then a second call of the same turn (interleaved)
    third = by_id[uid(8)].message
    assert [c.id for c in third.tool_calls] == ["toolu_03", "toolu_04"]
    assert "lines 10, 11, 13" in merged[1].detail
    path = sample.active_path()
    groups = group_interactions([e for e in path if isinstance(e, MessageEntry)])
    assert all(g.entries[0].message.role == "user" for g in groups)


def test_sample_usage_is_the_agents_own_per_turn(sample: Any) -> None:
    raw = {r["uuid"]: r for r in raw_records() if r.get("type") == "assistant"}
    usage = sample.usage[uid(2)]
    counts = raw[uid(4)]["message"]["usage"]  # the turn's last record
    prompt = (counts["input_tokens"] + counts["cache_read_input_tokens"]
              + counts["cache_creation_input_tokens"])  # fmt: skip
    assert (usage.prompt, usage.output, usage.line) == (prompt, counts["output_tokens"], 6)
    message = {e.id: e for e in sample.entries}[uid(2)].message
    assert (message.usage.input, message.usage.total_tokens) == (prompt, prompt + 20)
    assert set(sample.usage) == {
        e.id for e in sample.entries
        if isinstance(e, MessageEntry) and isinstance(e.message, AssistantMessage)
    }  # fmt: skip


def test_sample_repairs_the_unanswered_call_and_notes_the_interruptions(sample: Any) -> None:
    by_id = {e.id: e for e in sample.entries}
    synthetic = by_id["toolu_05.result"].message
    assert isinstance(synthetic, ToolResultMessage) and synthetic.is_error
    assert by_id["toolu_05.result"].parent_id == uid(16)
    interrupted = [n for n in sample.notes if n.kind == "turn_interrupted"]
    assert [(n.line, n.entry_id) for n in interrupted] == [(19, uid(17)), (38, uid(35))]
    cut = by_id[uid(34)].message  # stop_reason null: the answer stopped mid-sentence
    assert text_of(cut).endswith("also upd") and cut.stop_reason == "stop"
    assert [(n.kind, n.line) for n in sample.notes if n.kind == "stop_reason_inferred"] == [
        ("stop_reason_inferred", 37)
    ]


def test_sample_keeps_the_rewound_branch_off_the_path(sample: Any) -> None:
    ids = [e.id for e in sample.active_path()]
    assert uid(28) in {e.id for e in sample.entries}  # the abandoned question stays in the file
    assert uid(28) not in ids and uid(30) in ids
    fork = {e.id: e for e in sample.entries}
    assert fork[uid(28)].parent_id == fork[uid(30)].parent_id == uid(27)


def test_sample_compactions_follow_the_chapters_rule(sample: Any) -> None:
    first, second = sample.compactions
    assert (first.entry_id, first.line, first.trigger, first.tokens_before) == (
        uid(22), 25, "manual", 16_304,
    )  # fmt: skip
    # preTokens is the last call's prompt before each compaction (the sample's own usage).
    assert (second.trigger, second.tokens_before) == ("manual", 6_104)
    assert first.agent_kept == () and first.first_kept_entry_id == uid(18)
    assert (first.after_entry_id, second.after_entry_id) == (uid(21), uid(40))
    assert second.first_kept_entry_id == uid(36)
    by_id = {e.id: e for e in sample.entries}
    entry = by_id[uid(22)]
    assert isinstance(entry, CompactionEntry) and entry.parent_id == uid(21)  # logical parent
    kept = by_id[entry.first_kept_entry_id]
    assert isinstance(kept.message, UserMessage)
    assert text_of(kept.message).startswith("Use pytest.raises")
    assert uid(23) not in by_id  # the summary record became the entry's fields
    assert by_id[uid(24)].parent_id == uid(22)
    notes = {(n.kind, n.entry_id) for n in sample.notes}
    assert {("compaction_reparented", uid(22)), ("compact_summary_merged", uid(22)),
            ("agent_kept_nothing", uid(22)), ("agent_kept_nothing", uid(41))} <= notes  # fmt: skip


def test_sample_summary_fills_the_fields_and_loses_no_line(sample: Any) -> None:
    entry = {e.id: e for e in sample.entries}[uid(22)]
    summary = entry.summary
    assert summary.goal == (
        "Fix the failing divide test in calc.py and cover the zero case with a test."
    )
    assert summary.changed_files[0].startswith("calc.py")
    assert summary.next == ["In progress: Added tests/test_divide_zero.py; the suite passes.",
                            "Run the whole suite once more."]  # fmt: skip
    assert any(item.startswith("Key Technical Concepts: pytest") for item in summary.unresolved)
    assert sample.compactions[0].fields_filled == (
        "goal", "completed", "decisions", "changedFiles", "unresolved", "next",
    )  # fmt: skip
    assert sample.compactions[0].unmapped_items == 7
    rendered = render_summary(summary)
    words = lambda text: {w.strip(".,:;()-") for w in text.split()} - {""}  # noqa: E731
    section_titles = {"Primary", "Request", "Intent", "Files", "Code", "Sections", "Errors",
                      "fixes", "Problem", "Solving", "Pending", "Tasks", "Current", "Work",
                      "Optional", "Next", "Step", "None", *"123456789",
                      "Summary", "Analysis"}  # fmt: skip
    assert words(CLAUDE_SUMMARY_1) - section_titles <= words(rendered)


def test_sample_builds_a_context_under_a_50k_window(sample: Any, tmp_path: Path) -> None:
    path = sample.active_path()
    built = build_context(path, max_tokens=50_000, reserved_output=16_384,
                          estimate_tokens=chars_estimator())  # fmt: skip
    assert built.reason == "within_budget"
    assert built.kept_entry_ids[0] == uid(36) and built.kept_entry_ids[-1] == sample.leaf_id
    [compaction] = [e for e in path if isinstance(e, CompactionEntry)][-1:]
    assert text_of(built.messages[0]) == text_of(summary_message(compaction))
    round_trips(sample.entries, tmp_path)


# --- synthetic files: one behaviour each ---------------------------------------------------


def test_a_compaction_whose_agent_kept_messages_keeps_whole_interactions() -> None:
    text = text_of_records(
        user(1, None, "one"),
        assistant(2, 1, "m1", use("c1"), stop="tool_use"),
        result(3, 2, "c1"),
        assistant(4, 3, "m2", say("done")),
        user(5, 4, "two"),
        assistant(6, 5, "m3", say("ok")),
        boundary(7, 6, preservedMessages=[uid(4), uid(6), "not-here"]),
        compact_summary(8, 7, "## Goal\nkeep going"),
        user(9, 8, "three"),
    )
    imported = import_claude_code_text(text)
    [compaction] = imported.compactions
    assert compaction.agent_kept == (uid(4), uid(6))
    assert compaction.first_kept_entry_id == uid(1)  # the user message starting uid(4)'s turn
    notes = {n.kind: n.detail for n in imported.notes}
    assert "kept from " + uid(4) in notes["first_kept_widened"]
    assert "not-here" not in notes.get("kept_not_on_path", "")  # unknown uuids never resolve
    built = build_context(imported.active_path(), max_tokens=10_000,
                          estimate_tokens=chars_estimator())  # fmt: skip
    assert built.kept_entry_ids == [uid(n) for n in (1, 2, 3, 4, 5, 6, 9)]


def test_a_boundary_without_a_summary_or_a_user_before_it() -> None:
    text = text_of_records(
        assistant(1, None, "m1", say("hello")),
        boundary(2, None),
        user(3, 2, "next"),
        boundary(4, 3),
    )
    imported = import_claude_code_text(text)
    by_id = {e.id: e for e in imported.entries}
    assert isinstance(by_id[uid(2)], MetadataEntry)
    assert by_id[uid(2)].key == "claude-code.compaction"
    assert isinstance(by_id[uid(4)], CompactionEntry)
    assert by_id[uid(4)].summary.goal.startswith("(Claude Code recorded no summary text")
    assert by_id[uid(4)].first_kept_entry_id == uid(3)
    assert kinds(imported.notes)["summary_missing"] == 2
    assert kinds(imported.notes)["compaction_unrestorable"] == 1
    assert kinds(imported.notes)["synthetic_user_inserted"] == 1  # before the first assistant


def test_records_outside_the_tree_are_skipped_and_others_kept_as_metadata() -> None:
    text = text_of_records(
        {"type": "summary", "summary": "title", "leafUuid": uid(9)},
        user(1, None, "hi"),
        record("system", 2, 1, subtype="api_error", retryAttempt=1),
        record("progress", 3, 2, data={"hook": "x"}),
        record("hologram", 10, 3, data={"x": 1}),
        assistant(4, 10, "m1", say("hello")),
        user(5, 99, "resumed from another file"),
        user(1, None, "the same uuid again"),
    )
    imported = import_claude_code_text(text)
    by_id = {e.id: e for e in imported.entries}
    assert by_id[uid(2)].key == "claude-code.system" and by_id[uid(3)].key == "claude-code.progress"
    assert by_id[uid(10)].key == "claude-code.hologram"
    assert by_id[uid(2)].value["subtype"] == "api_error"
    assert by_id[uid(5)].parent_id is None
    found = {(n.kind, n.line) for n in imported.notes}
    assert {("record_skipped", 1), ("unknown_entry_type", 5), ("parent_not_in_file", 7),
            ("duplicate_record", 8)} <= found  # fmt: skip
    # a progress record is context Claude Code links into the conversation: known, not "unknown"
    assert ("unknown_entry_type", 4) not in found


def test_tool_results_in_one_record_become_a_chain_then_the_text() -> None:
    blocks = [
        {"type": "tool_result", "tool_use_id": "c1", "content": [say("a")], "is_error": False},
        {"type": "tool_result", "tool_use_id": "c2", "content": "b", "is_error": True},
        say("and stop"),
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
    ]
    text = text_of_records(
        user(1, None, "go"),
        assistant(2, 1, "m1", use("c1"), use("c2", "Read"), stop="tool_use"),
        user(3, 2, blocks),
        assistant(4, 3, "m2", say("fine")),
    )
    imported = import_claude_code_text(text)
    path = imported.active_path()
    assert [e.id for e in path] == [uid(1), uid(2), uid(3), f"{uid(3)}.2", f"{uid(3)}.user", uid(4)]
    second = path[3].message
    assert (second.tool_name, second.is_error, text_of(second)) == ("Read", True, "b")
    assert text_of(path[4].message) == "and stop\n[image: image/png, 4 bytes of base64]"


def test_an_api_error_message_stops_with_error() -> None:
    error = assistant(2, 1, "m1", say("API Error: overloaded"), stop="stop_sequence")
    error["isApiErrorMessage"] = True
    imported = import_claude_code_text(text_of_records(user(1, None, "hi"), error))
    message = imported.entries[-1].message
    assert (message.stop_reason, message.error_message) == ("error", "API Error: overloaded")


def test_drop_and_error_policies_for_an_unanswered_call() -> None:
    text = text_of_records(user(1, None, "go"), assistant(2, 1, "m1", use("c1"), stop="tool_use"))
    dropped = import_claude_code_text(text, on_missing_result="drop")
    assert dropped.entries[-1].message.content == []
    with pytest.raises(AgentImportError, match=r"^line 2: missing result for tool call 'c1'"):
        import_claude_code_text(text, on_missing_result="error")
    with pytest.raises(AgentImportError, match="on_missing_result must be"):
        import_claude_code_text(text, on_missing_result="ignore")  # type: ignore[arg-type]


def test_the_numbered_layout_becomes_headings_without_losing_text() -> None:
    markdown = claude_code_markdown("Intro.\nSummary:\n1. Primary Request and Intent:\n   Do X.\n"
                                    "2. Odd Section:\n   - a\n     - b\n")  # fmt: skip
    assert (
        markdown
        == "Intro.\n## Goal (Primary Request and Intent)\nDo X.\n## Odd Section\n- a\n  - b"
    )


def test_subagent_files_beside_the_session_are_counted_never_read(tmp_path: Path) -> None:
    session = tmp_path / "0f0e.jsonl"
    session.write_bytes(CLAUDE_CODE_SAMPLE.read_bytes())
    folder = tmp_path / "0f0e" / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-a1.jsonl").write_text("not json at all\n", encoding="utf-8")
    (folder / "agent-a2.jsonl").write_text("", encoding="utf-8")
    (folder / "notes.txt").write_text("x", encoding="utf-8")
    imported = import_claude_code_session(session)
    assert imported.source.subagent_files == 2
    assert imported.entries == import_claude_code_session(CLAUDE_CODE_SAMPLE).entries
    assert import_claude_code_session(CLAUDE_CODE_SAMPLE).source.subagent_files == 0


def test_many_compactions_are_resolved_in_one_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear time: one tree for all compactions, not one walk up the path per compaction."""
    from course_lib.beyond.importers import _agent_compaction

    walks = []

    class CountedTree(_agent_compaction._Tree):
        def __init__(self, drafts: list[Any]) -> None:
            walks.append(len(drafts))
            super().__init__(drafts)

    monkeypatch.setattr(_agent_compaction, "_Tree", CountedTree)
    records, previous = [], None
    for turn in range(300):
        n = 4 * turn + 1
        records += [user(n, previous, f"question {turn}"), assistant(n + 1, n, f"m{turn}", say("a")),
                    boundary(n + 2, n + 1), compact_summary(n + 3, n + 2, "## Goal\ngo on")]  # fmt: skip
        previous = n + 3
    imported = import_claude_code_text(text_of_records(*records))
    assert walks == [len(imported.entries)] == [900]
    assert [c.first_kept_entry_id for c in imported.compactions] == [
        uid(4 * turn + 1) for turn in range(300)
    ]


# --- bad input: one CourseError, naming the line ------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", r"^line 2: not valid JSON"),
        ('{"type":"user","uuid":"x","timestamp":"2026-01-01T00:00:00Z"}', r"^line 2: user record has no message"),
        ('{"type":"user","uuid":7,"message":{}}', r"^line 2: a 'user' record needs a non-blank string uuid"),
        ('{"type":"user","uuid":"x","parentUuid":5,"timestamp":"2026-01-01T00:00:00Z","message":{"content":"a"}}', r"^line 2: parentUuid must be a string or null"),
        ('{"type":"user","uuid":"x","timestamp":"yesterday","message":{"content":"a"}}', r"^line 2: timestamp 'yesterday' is not an ISO date"),
        ('{"type":"assistant","uuid":"x","timestamp":"2026-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":" ","name":"a","input":{}}]}}', r"^line 2: message\.content\.0\.id must be a non-blank string"),
        ('{"type":"assistant","uuid":"x","timestamp":"2026-01-01T00:00:00Z","message":{"content":[],"usage":{"input_tokens":-1}}}', r"^line 2: message\.usage\.input_tokens must be a number >= 0"),
        ('{"type":"user","uuid":"x","timestamp":"2026-01-01T00:00:00Z","message":{"content":[{"type":"tool_result","tool_use_id":"c","is_error":"no"}]}}', r"^line 2: tool_result\.is_error must be true or false"),
        ('{"type":"system","subtype":"compact_boundary","uuid":"x","timestamp":"2026-01-01T00:00:00Z","compactMetadata":{"preTokens":"many"}}', r"^line 2: compactMetadata\.preTokens must be a number >= 0"),
    ],
)  # fmt: skip
def test_bad_input_is_an_error_naming_the_line(line: str, message: str) -> None:
    text = text_of_records(user(1, None, "hi")) + line + "\n"
    with pytest.raises(AgentImportError, match=message) as caught:
        import_claude_code_text(text)
    assert isinstance(caught.value, CourseError) and caught.value.line == 2


def test_an_empty_or_sidechain_only_file_is_an_error() -> None:
    with pytest.raises(AgentImportError, match="nothing to import"):
        import_claude_code_text("")
    only = user(1, None, "x", isSidechain=True)
    with pytest.raises(AgentImportError, match="nothing to import"):
        import_claude_code_text(text_of_records(only))


def test_an_unterminated_last_line_is_left_out_with_a_note() -> None:
    text = text_of_records(user(1, None, "hi")) + '{"type":"user","uuid":"torn'
    imported = import_claude_code_text(text)
    assert (imported.notes[0].kind, imported.notes[0].line) == ("unterminated_tail", 2)
    assert [e.id for e in imported.entries] == [uid(1)]


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def test_nesting_up_to_the_limits_imports_and_round_trips(tmp_path: Path) -> None:
    deep = nested(DEFAULT_LIMITS.max_depth - 4)  # the record adds four levels around it
    call = assistant(2, 1, "m1", {"type": "tool_use", "id": "c", "name": "a", "input": deep})
    text = text_of_records(user(1, None, "hi"), call, result(3, 2, "c"))
    imported = import_claude_code_text(text)  # the call's input sits as deep as in the record
    round_trips(imported.entries, tmp_path)
    with pytest.raises(AgentImportError, match=r"^line 2: not valid JSON .*nested"):
        import_claude_code_text(text, limits=JsonLimits(max_depth=DEFAULT_LIMITS.max_depth - 1))


def test_an_entry_deeper_than_its_line_is_refused_naming_the_line() -> None:
    # A record kept as metadata moves its fields one level down, under ``value``.
    odd = record("progress", 2, 1, data=nested(DEFAULT_LIMITS.max_depth - 1))
    with pytest.raises(AgentImportError, match=r"^line 2: session entry .*: nested deeper than"):
        import_claude_code_text(text_of_records(user(1, None, "hi"), odd))


# --- fuzzing: only CourseErrors, and what is accepted round-trips ----------------------------

SAMPLE_LINES = CLAUDE_CODE_SAMPLE.read_text("utf-8").splitlines()
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from([2**53, 1e308, -0.0, "", " ", "\ud800", uid(1), "end_turn"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)  # fmt: skip


@st.composite
def mutated_record(draw: st.DrawFn) -> str:
    """A sample record with one field (perhaps inside the message) replaced by anything."""
    value = json.loads(draw(st.sampled_from(SAMPLE_LINES)))
    target = value
    if isinstance(value.get("message"), dict) and draw(st.booleans()):
        target = value["message"]
    keys = [*sorted(target), "uuid", "parentUuid", "content", "usage", "compactMetadata"]
    target[draw(st.sampled_from(keys))] = draw(JSON)
    return json.dumps(value, allow_nan=True)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(st.sampled_from(SAMPLE_LINES) | mutated_record() | JSON.map(json.dumps),
                      max_size=8))  # fmt: skip
def test_fuzzed_records_give_a_course_error_or_entries_that_round_trip(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str]
) -> None:
    text = "".join(line.replace("\n", " ") + "\n" for line in lines)
    try:
        imported = import_claude_code_text(text)
    except CourseError:
        return
    ids = [e.id for e in imported.entries]
    assert len(ids) == len(set(ids)) and imported.leaf_id in ids
    store = JsonlSessionStore.open(tmp_path_factory.mktemp("fuzz") / "imported.jsonl")
    for entry in imported.entries:
        store.append(entry)
    assert JsonlSessionStore.open(store.path).entries() == imported.entries
