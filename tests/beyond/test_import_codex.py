"""The Codex CLI importer: the sample in data/, small synthetic files, bad and hostile input."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from agent_samples import CODEX_SAMPLE
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import (
    AssistantMessage,
    CompactionEntry,
    CourseError,
    JsonlSessionStore,
    MessageEntry,
    MetadataEntry,
    SystemMessage,
    ToolResultMessage,
    build_context,
    group_interactions,
    import_codex_session,
    text_of,
)
from course_lib.base.wire import DEFAULT_LIMITS, JsonLimits, dumps_line
from course_lib.beyond.estimators import chars_estimator
from course_lib.beyond.importers import AgentImportError, import_codex_text

# --- small builders for Codex records ----------------------------------------------------

_SECOND = iter(range(10**6))


def rec(kind: str, **payload: Any) -> dict[str, Any]:
    second = next(_SECOND) % 60
    return {"timestamp": f"2026-03-02T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


def user(text: str) -> dict[str, Any]:
    return rec("response_item", type="message", role="user",
               content=[{"type": "input_text", "text": text}])  # fmt: skip


def say(text: str) -> dict[str, Any]:
    return rec("response_item", type="message", role="assistant",
               content=[{"type": "output_text", "text": text}])  # fmt: skip


def call(call_id: str, arguments: str = '{"command":["ls"]}') -> dict[str, Any]:
    return rec("response_item", type="function_call", name="shell", arguments=arguments,
               call_id=call_id)  # fmt: skip


def output(call_id: str, text: Any = "ok") -> dict[str, Any]:
    return rec("response_item", type="function_call_output", call_id=call_id, output=text)


def tokens(prompt: int, out: int) -> dict[str, Any]:
    last = {"input_tokens": prompt, "cached_input_tokens": 0, "output_tokens": out,
            "reasoning_output_tokens": 0, "total_tokens": prompt + out}  # fmt: skip
    return rec("event_msg", type="token_count",
               info={"total_token_usage": last, "last_token_usage": last})  # fmt: skip


def file_text(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)


META = rec("session_meta", id="sess-1", cwd="/w", originator="codex_cli_rs")


def by_id(entries: list[Any]) -> dict[str, Any]:
    return {entry.id: entry for entry in entries}


# --- the sample -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample() -> Any:
    return import_codex_session(CODEX_SAMPLE)


def raw_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CODEX_SAMPLE.read_text("utf-8").splitlines()]


def test_sample_counts_agree_with_a_raw_scan(sample: Any) -> None:
    raw = raw_records()
    assert (sample.format, sample.source.label, sample.source.records) == ("codex", "Codex CLI", 62)
    kinds = Counter(
        f"{r['type']}/{r['payload']['type']}" if "type" in r["payload"] else r["type"] for r in raw
    )
    assert sample.source.record_counts == dict(kinds.most_common())
    assert sample.source.session_id == raw[0]["payload"]["id"]
    assert Counter(e.type for e in sample.entries) == {
        "message": 31,
        "metadata": 8,
        "compaction": 2,
    }
    assert sample.leaf_id == "L0061"


def test_sample_one_response_is_one_message_with_its_own_usage(sample: Any) -> None:
    entries = by_id(sample.entries)
    merged = [n for n in sample.notes if n.kind == "records_merged"]
    assert [(n.line, n.entry_id, n.detail.split(": ")[-1]) for n in merged] == [
        (11, "L0011", "lines 11, 12")
    ]
    message = entries["L0011"].message
    assert [type(b).__name__ for b in message.content] == ["TextContent", "ToolCall"]
    assert message.tool_calls[0].arguments["input"].startswith("*** Begin Patch")
    shell = entries["L0008"].message.tool_calls[0]
    assert shell.arguments == {"command": ["pytest", "-q"], "workdir": "/projects/calc"}
    raw = raw_records()
    usage = sample.usage["L0008"]
    last = raw[8]["payload"]["info"]["last_token_usage"]  # line 9, right after the response
    assert (usage.line, usage.prompt, usage.output, usage.cache_read) == (
        9, last["input_tokens"], last["output_tokens"], last["cached_input_tokens"],
    )  # fmt: skip
    assert (
        entries["L0008"].message.usage.total_tokens == last["input_tokens"] + last["output_tokens"]
    )
    assistants = [e.id for e in sample.entries
                  if isinstance(e, MessageEntry) and isinstance(e.message, AssistantMessage)]  # fmt: skip
    assert sorted(sample.usage) == assistants and len(assistants) == 14


def test_sample_results_and_system_context(sample: Any) -> None:
    entries = by_id(sample.entries)
    result = entries["L0010"].message
    assert isinstance(result, ToolResultMessage) and result.tool_name == "shell"
    assert json.loads(text_of(result))["metadata"]["exit_code"] == 1  # sent as Codex sent it
    assert (
        isinstance(entries["L0004"], MetadataEntry) and entries["L0004"].key == "codex.turn_context"
    )
    assert entries["L0008"].message.model == "sample-model-b"
    assert not any(isinstance(e.message, SystemMessage) for e in sample.entries
                   if isinstance(e, MessageEntry))  # fmt: skip


def test_sample_aborted_turns_and_the_call_without_output(sample: Any) -> None:
    entries = by_id(sample.entries)
    assert entries["L0023"].message.stop_reason == "aborted"
    assert entries["L0052"].message.stop_reason == "aborted"
    assert text_of(entries["L0052"].message).endswith("also upd")
    synthetic = entries["call_04.result"]
    assert synthetic.message.is_error and synthetic.parent_id == "L0026"
    interrupted = [(n.line, n.entry_id) for n in sample.notes if n.kind == "turn_interrupted"]
    assert interrupted == [(25, "L0023"), (54, "L0052")]


def test_sample_rollback_leaves_a_branch_off_the_path(sample: Any) -> None:
    entries = by_id(sample.entries)
    path = [e.id for e in sample.active_path()]
    assert "L0043" in entries and "L0043" not in path and "L0044" not in path
    assert entries["L0047"].parent_id == entries["L0043"].parent_id == "L0042"
    [rewound] = [n for n in sample.notes if n.kind == "rewound"]
    assert (rewound.line, rewound.entry_id) == (46, "L0043")


def test_sample_compactions_follow_the_chapters_rule(sample: Any) -> None:
    first, second = sample.compactions
    assert (first.entry_id, first.tokens_before, first.agent_kept) == (
        "L0033",
        3515,
        ("L0022", "L0027"),
    )
    assert (first.first_kept_entry_id, first.after_entry_id) == ("L0022", "L0031")
    assert first.fields_filled == ("goal", "completed", "decisions", "changedFiles", "unresolved",
                                   "next")  # fmt: skip
    assert (second.entry_id, second.agent_kept, second.first_kept_entry_id) == (
        "L0055",
        (),
        "L0048",
    )
    assert (second.fields_filled, second.unmapped_items) == (("unresolved",), 4)
    entries = by_id(sample.entries)
    assert entries["L0033"].summary.unresolved == [
        "Notes: The first attempt to write the test was interrupted by the user"
    ]
    assert (
        entries["L0055"].summary.goal == "(the Codex summary records no goal; see the other fields)"
    )
    found = {(n.kind, n.entry_id) for n in sample.notes}
    assert {("first_kept_widened", "L0033"), ("agent_kept_nothing", "L0055"),
            ("summary_goal_fallback", "L0055")} <= found  # fmt: skip


def test_sample_builds_a_context_under_a_50k_window_and_round_trips(
    sample: Any, tmp_path: Path
) -> None:
    path = sample.active_path()
    groups = group_interactions([e for e in path if isinstance(e, MessageEntry)])
    assert len(groups) == 8  # two context messages, then six user turns on this branch
    built = build_context(path, max_tokens=50_000, reserved_output=16_384,
                          estimate_tokens=chars_estimator())  # fmt: skip
    assert (built.reason, built.kept_entry_ids[0], built.kept_entry_ids[-1]) == (
        "within_budget", "L0048", "L0061",
    )  # fmt: skip
    store = JsonlSessionStore.open(tmp_path / "codex.jsonl")
    for entry in sample.entries:
        store.append(entry)
    again = JsonlSessionStore.open(store.path).entries()
    assert [dumps_line(e.to_wire()) for e in again] == [
        dumps_line(e.to_wire()) for e in sample.entries
    ]


# --- synthetic files ----------------------------------------------------------------------


def test_arguments_that_are_not_json_are_kept_raw_with_a_note() -> None:
    text = file_text(META, user("go"), call("c1", "{not json"), tokens(5, 1), output("c1"))
    imported = import_codex_text(text)
    block = imported.entries[2].message.tool_calls[0]
    assert (block.arguments, block.raw_arguments) == ({}, "{not json")
    assert [n.line for n in imported.notes if n.kind == "arguments_unparsed"] == [3]


def test_arguments_nested_past_the_limits_are_kept_raw() -> None:
    deep = "[" * (DEFAULT_LIMITS.max_depth - 2) + "]" * (DEFAULT_LIMITS.max_depth - 2)
    text = file_text(META, user("go"), call("c1", deep), output("c1"))
    block = import_codex_text(text).entries[2].message.tool_calls[0]
    assert block.raw_arguments == deep  # parsed, it would nest the entry past the limit


def test_outputs_as_objects_a_developer_message_and_unknown_items() -> None:
    text = file_text(
        META,
        rec("response_item", type="message", role="developer",
            content=[{"type": "input_text", "text": "be brief"}]),
        user("go"),
        rec("response_item", type="local_shell_call", id="ls1", call_id=None, status="completed",
            action={"type": "exec", "command": ["ls"]}),
        rec("response_item", type="web_search_call", status="completed"),
        output("ls1", {"content": "denied", "success": False}),
        rec("mystery", payload=1),
    )  # fmt: skip
    imported = import_codex_text(text)
    entries = by_id(imported.entries)
    assert isinstance(entries["L0002"].message, SystemMessage)
    assert entries["L0004"].message.tool_calls[0].name == "local_shell"
    result = entries["L0006"].message
    assert (result.tool_name, result.is_error, text_of(result)) == ("local_shell", True, "denied")
    skipped = [n.detail for n in imported.notes if n.kind == "record_skipped"]
    assert any("web_search_call" in d for d in skipped) and any("mystery" in d for d in skipped)


def test_a_rollback_past_every_turn_and_a_compaction_without_history() -> None:
    text = file_text(
        META, user("one"), say("a"), rec("event_msg", type="thread_rolled_back", num_turns=5),
        user("two"), say("b"), rec("compacted", message="## Goal\nship"), user("three"),
    )  # fmt: skip
    imported = import_codex_text(text)
    entries = by_id(imported.entries)
    assert entries["L0005"].parent_id == "L0001"  # back above the first user turn
    assert "only 1 on the path" in next(n.detail for n in imported.notes if n.kind == "rewound")
    compaction = entries["L0007"]
    assert isinstance(compaction, CompactionEntry) and compaction.first_kept_entry_id == "L0005"
    assert compaction.tokens_before == 0
    assert {"tokens_before_unknown", "agent_kept_nothing"} <= {n.kind for n in imported.notes}


def test_a_compaction_before_any_user_message_becomes_metadata() -> None:
    imported = import_codex_text(file_text(META, rec("compacted", message="x"), user("hi")))
    assert isinstance(by_id(imported.entries)["L0002"], MetadataEntry)
    assert [n.kind for n in imported.notes if n.kind == "compaction_unrestorable"] == [
        "compaction_unrestorable"
    ]


def test_usage_missing_is_zero_with_a_note_and_policies_work() -> None:
    text = file_text(META, user("go"), call("c1"))
    imported = import_codex_text(text)
    assert imported.entries[2].message.usage.total_tokens == 0
    assert "usage_missing" in imported.note_counts()
    assert imported.entries[-1].id == "c1.result"
    assert import_codex_text(text, on_missing_result="drop").entries[2].message.content == []
    with pytest.raises(AgentImportError, match=r"^line 3: missing result for tool call 'c1'"):
        import_codex_text(text, on_missing_result="error")


def test_rollbacks_remove_each_entry_from_the_path_at_most_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Linear time: a rollback pops only what it rolls back, however many there are."""
    from course_lib.beyond.importers import codex

    popped = []
    truncate = codex._Path.truncate

    def counted(self: Any, length: int) -> None:
        popped.append(len(self.ids) - length)
        truncate(self, length)

    monkeypatch.setattr(codex._Path, "truncate", counted)
    records = [META]
    for turn in range(400):
        records += [user(f"try {turn}"), say("no"), rec("event_msg", type="thread_rolled_back",
                                                        num_turns=1)]  # fmt: skip
    records.append(user("final"))
    imported = import_codex_text(file_text(*records))
    assert sum(popped) == 800 and len(popped) == 400
    assert [e.id for e in imported.active_path()] == ["L0001", "L1202"]


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", r"^line 3: expected a JSON object, got list"),
        ('{"type":"response_item","timestamp":"2026-01-01T00:00:00Z","payload":[]}', r"^line 3: a 'response_item' record needs a payload object"),
        ('{"type":"response_item","timestamp":5e400,"payload":{}}', r"^line 3: timestamp is not a finite number"),
        ('{"type":"response_item","timestamp":"noon","payload":{"type":"message","role":"user","content":"x"}}', r"^line 3: timestamp 'noon' is not an ISO date"),
        ('{"type":"response_item","timestamp":"2026-01-01T00:00:00Z","payload":{"type":"function_call","name":"","call_id":"c"}}', r"^line 3: function_call\.name must be a non-blank string"),
        ('{"type":"response_item","timestamp":"2026-01-01T00:00:00Z","payload":{"type":"function_call_output","call_id":null}}', r"^line 3: function_call_output\.call_id must be a non-blank string"),
        ('{"type":"response_item","timestamp":"2026-01-01T00:00:00Z","payload":{"type":"message","role":"user","content":7}}', r"^line 3: payload\.content must be a string or a list of parts"),
        ('{"type":"event_msg","timestamp":"2026-01-01T00:00:00Z","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":true}}}}', r"^line 3: token_count last_token_usage\.input_tokens must be a number"),
        ('{"type":"event_msg","timestamp":"2026-01-01T00:00:00Z","payload":{"type":"thread_rolled_back","num_turns":-1}}', r"^line 3: thread_rolled_back\.num_turns must be a whole number"),
        ('{"type":"compacted","timestamp":"2026-01-01T00:00:00Z","payload":{"message":["x"]}}', r"^line 3: compacted\.message must be a string"),
    ],
)  # fmt: skip
def test_bad_input_is_an_error_naming_the_line(line: str, message: str) -> None:
    with pytest.raises(AgentImportError, match=message) as caught:
        import_codex_text(file_text(META, user("hi")) + line + "\n")
    assert isinstance(caught.value, CourseError) and caught.value.line == 3


def test_a_torn_last_line_and_bad_bytes() -> None:
    text = file_text(META, user("hi")) + '{"type":"response_item"'
    imported = import_codex_text(text)
    assert (imported.notes[0].kind, imported.notes[0].line) == ("unterminated_tail", 3)
    lines = [json.dumps(r, ensure_ascii=False) for r in (META, user("日本"))]
    data = "".join(line + "\n" for line in lines).encode().replace("本".encode(), b"\xe6\x9c")
    from course_lib.beyond.importers import import_codex_bytes

    with pytest.raises(AgentImportError, match=r"^line 2: not valid UTF-8"):
        import_codex_bytes(data)
    with pytest.raises(AgentImportError, match="nothing to import"):
        import_codex_text(file_text(rec("event_msg", type="agent_message", message="hi")))


def test_a_tighter_limit_names_the_line_it_refuses() -> None:
    text = file_text(META, user("x" * 200))
    with pytest.raises(AgentImportError, match=r"^line 2: not valid JSON .*characters long"):
        import_codex_text(text, limits=JsonLimits(max_line_chars=150))


# --- fuzzing --------------------------------------------------------------------------------

SAMPLE_LINES = CODEX_SAMPLE.read_text("utf-8").splitlines()
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from([2**53, 1e308, -0.0, "", " ", "\ud800", "call_01", "user", "message"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)  # fmt: skip


@st.composite
def mutated_record(draw: st.DrawFn) -> str:
    """A sample record with one field of it or of its payload replaced by anything."""
    value = json.loads(draw(st.sampled_from(SAMPLE_LINES)))
    target = value["payload"] if draw(st.booleans()) else value
    keys = [*sorted(target), "type", "call_id", "content", "info", "num_turns", "arguments"]
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
        imported = import_codex_text(text)
    except CourseError:
        return
    ids = [e.id for e in imported.entries]
    assert len(ids) == len(set(ids)) and imported.leaf_id in ids
    store = JsonlSessionStore.open(tmp_path_factory.mktemp("fuzz") / "imported.jsonl")
    for entry in imported.entries:
        store.append(entry)
    assert JsonlSessionStore.open(store.path).entries() == imported.entries
