"""The schema/wire boundary: every rule of api.md "Wire rules, exactly".

``parse_session_entry`` is the one door every entry passes (store writes,
JSONL reads, entry creation), and ``to_wire`` plus ``dumps_line`` is the one
way out. If these two disagree, a file written by the workbook would not read
back the same, or would not be readable by the TypeScript course.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from entry_strategies import valid_entries
from hypothesis import given, settings
from pydantic import BaseModel

from course_lib import (
    CompactionEntry,
    CompactionSummary,
    CourseError,
    MessageEntry,
    MetadataEntry,
    SessionEntryError,
    ToolCall,
    assistant_message,
    chapter_fixture,
    chapter_fixture_after_compaction,
    parse_session_entry,
    system_replay_fixture,
    tool_result,
    user_message,
)
from course_lib.base.wire import dumps_line, loads_strict
from course_lib.chapter.models import require_session_entries
from course_lib.chapter.sessions import parse_fresh_entry

Wire = dict[str, Any]


def fixture_wire() -> dict[str, Wire]:
    """The fixture (and its continuation) as wire dicts, by entry id."""
    return {entry.id: entry.to_wire() for entry in chapter_fixture_after_compaction()}


def rejected(wire: Any) -> str:
    """Parse ``wire`` expecting a schema error; return its message."""
    before = copy.deepcopy(wire)
    with pytest.raises(SessionEntryError) as caught:
        parse_session_entry(wire)
    assert wire == before, "a rejected input must be left as it was"
    return str(caught.value)


def metadata_wire(value: Any) -> Wire:
    return {
        "id": "meta-1",
        "parentId": "a3",
        "timestamp": 11,
        "type": "metadata",
        "key": "reviewer",
        "value": value,
    }


# --- key order --------------------------------------------------------------


def test_to_wire_lists_keys_in_the_course_order() -> None:
    wire = fixture_wire()
    entry_keys = ["id", "parentId", "timestamp", "type"]
    assert list(wire["u1"]) == [*entry_keys, "message"]
    assert list(wire["compact-1"]) == [
        *entry_keys,
        "summary",
        "firstKeptEntryId",
        "tokensBefore",
    ]
    assert list(wire["compact-1"]["summary"]) == [
        "goal",
        "constraints",
        "completed",
        "decisions",
        "changedFiles",
        "unresolved",
        "next",
    ]
    assert list(wire["u1"]["message"]) == ["role", "content", "timestamp"]
    assert list(wire["a1"]["message"]) == [
        "role",
        "content",
        "provider",
        "model",
        "usage",
        "stopReason",
        "timestamp",
    ]
    assert list(wire["a1"]["message"]["content"][0]) == ["type", "text"]
    assert list(wire["a1"]["message"]["usage"]) == ["input", "output", "totalTokens"]
    assert list(wire["calls"]["message"]["content"][0]) == ["type", "id", "name", "arguments"]
    assert list(wire["r-test"]["message"]) == [
        "role",
        "toolCallId",
        "toolName",
        "content",
        "isError",
        "timestamp",
    ]
    assert list(wire["sys"]["message"]) == ["role", "content", "timestamp"]
    assert list(parse_session_entry(metadata_wire(1)).to_wire()) == [
        *entry_keys,
        "key",
        "value",
    ]


def test_optional_fields_come_last_as_the_course_writes_them() -> None:
    call = ToolCall(id="c1", name="run", arguments={}, raw_arguments="{}")
    assistant = assistant_message(
        [call], stop_reason="error", error_message="provider failed", timestamp=1
    )
    result = tool_result(call, "out", timestamp=2, details={"exit": 0})
    system = system_replay_fixture()[0]
    assert list(call.to_wire()) == ["type", "id", "name", "arguments", "rawArguments"]
    assert list(assistant.to_wire()) == [
        "role",
        "content",
        "provider",
        "model",
        "usage",
        "stopReason",
        "timestamp",
        "errorMessage",
    ]
    assert list(result.to_wire()) == [
        "role",
        "toolCallId",
        "toolName",
        "content",
        "isError",
        "timestamp",
        "details",
    ]
    assert list(system.to_wire()["message"]) == ["role", "content", "timestamp", "sections"]


def test_input_key_order_does_not_matter() -> None:
    wire = fixture_wire()["compact-1"]
    shuffled = dict(reversed(list(wire.items())))
    shuffled["summary"] = dict(reversed(list(wire["summary"].items())))
    assert parse_session_entry(shuffled).to_wire() == wire
    assert list(parse_session_entry(shuffled).to_wire()) == list(wire)


# --- the JSONL line ---------------------------------------------------------


def test_a_line_is_compact_json_with_a_newline() -> None:
    wire = fixture_wire()["u1"]
    line = dumps_line(wire)
    assert line == json.dumps(wire, separators=(",", ":"), ensure_ascii=False) + "\n"
    assert line == (
        '{"id":"u1","parentId":"sys","timestamp":2,"type":"message","message":'
        '{"role":"user","content":[{"type":"text","text":"Check the session recovery logic."}],'
        '"timestamp":2}}\n'
    )


@pytest.mark.parametrize("entry_id", [entry.id for entry in chapter_fixture_after_compaction()])
def test_every_fixture_line_round_trips_byte_for_byte(entry_id: str) -> None:
    line = dumps_line(fixture_wire()[entry_id])
    assert dumps_line(parse_session_entry(loads_strict(line)).to_wire()) == line


def test_non_ascii_text_is_written_as_is_and_round_trips() -> None:
    entry = MessageEntry(
        id="u-zh",
        parent_id=None,
        timestamp=1,
        message=user_message("检查会话恢复逻辑 — café 🙂", timestamp=1),
    )
    line = dumps_line(entry.to_wire())
    assert "检查会话恢复逻辑 — café 🙂" in line
    assert "\\u" not in line
    assert dumps_line(parse_session_entry(loads_strict(line)).to_wire()) == line


def test_ints_stay_ints_and_floats_stay_floats() -> None:
    line = (
        '{"id":"m","parentId":null,"timestamp":1.0,"type":"message","message":'
        '{"role":"assistant","content":[],"provider":"p","model":"m",'
        '"usage":{"input":3,"output":4.0,"totalTokens":7},"stopReason":"stop","timestamp":2}}\n'
    )
    entry = parse_session_entry(loads_strict(line))
    assert isinstance(entry, MessageEntry)
    assert entry.timestamp == 1.0 and type(entry.timestamp) is float
    assert type(entry.message.timestamp) is int
    usage = entry.message.usage
    assert (type(usage.input), type(usage.output), type(usage.total_tokens)) == (int, float, int)
    # Written back as JSON.stringify writes numbers: the integral floats lose their ".0".
    assert dumps_line(entry.to_wire()) == (
        '{"id":"m","parentId":null,"timestamp":1,"type":"message","message":'
        '{"role":"assistant","content":[],"provider":"p","model":"m",'
        '"usage":{"input":3,"output":4,"totalTokens":7},"stopReason":"stop","timestamp":2}}\n'
    )


def test_a_float_written_by_another_tool_as_29_0_reads_back_as_a_float() -> None:
    wire = fixture_wire()["compact-1"]
    line = dumps_line(wire).replace('"tokensBefore":29', '"tokensBefore":29.0')
    entry = parse_session_entry(loads_strict(line))
    assert isinstance(entry, CompactionEntry)
    assert type(entry.tokens_before) is float and entry.tokens_before == 29.0
    # ...and is written back as the course writes it: without ".0".
    assert dumps_line(entry.to_wire()) == dumps_line(wire)
    assert '"tokensBefore":29}' in dumps_line(entry.to_wire())


def test_dumps_line_refuses_non_finite_numbers() -> None:
    with pytest.raises(ValueError):
        dumps_line({"id": "x", "timestamp": math.nan})


# --- absent and null optional fields ----------------------------------------


def test_absent_optional_fields_are_omitted_never_null() -> None:
    for wire in fixture_wire().values():
        assert "null" not in dumps_line(wire).replace('"parentId":null', "")


@pytest.mark.parametrize(
    ("entry_id", "place", "key", "path"),
    [
        ("a1", lambda w: w["message"], "errorMessage", "message.errorMessage"),
        (
            "calls",
            lambda w: w["message"]["content"][0],
            "rawArguments",
            "message.content.0.rawArguments",
        ),
        ("sys", lambda w: w["message"], "sections", "message.sections"),
    ],
    ids=["errorMessage", "rawArguments", "sections"],
)
def test_explicit_null_is_rejected_for_typed_optional_fields(
    entry_id: str, place: Callable[[Wire], Wire], key: str, path: str
) -> None:
    wire = fixture_wire()[entry_id]
    place(wire)[key] = None
    message = rejected(wire)
    assert message.startswith(f"session entry {entry_id}: {path}: ")
    assert "null" in message


def test_present_typed_optional_fields_round_trip() -> None:
    wire = fixture_wire()
    wire["a1"]["message"]["errorMessage"] = "rate limited"
    wire["calls"]["message"]["content"][0]["rawArguments"] = '{"path":"context.ts"}'
    wire["sys"]["message"]["sections"] = {"rules": "RULE v1", "gone": None}
    for entry_id in ("a1", "calls", "sys"):
        line = dumps_line(parse_session_entry(wire[entry_id]).to_wire())
        assert json.loads(line) == wire[entry_id]
        assert dumps_line(parse_session_entry(loads_strict(line)).to_wire()) == line


def test_details_may_be_null_and_null_is_written_back() -> None:
    wire = fixture_wire()["r-test"]
    wire["message"]["details"] = None
    entry = parse_session_entry(wire)
    assert isinstance(entry, MessageEntry)
    out = entry.to_wire()
    assert "details" in out["message"] and out["message"]["details"] is None
    assert list(out["message"])[-1] == "details"  # optional fields come last
    assert parse_session_entry(entry).to_wire() == out


@pytest.mark.parametrize("details", [0, "text", [1, "two", None], {"nested": {"ok": True}}, False])
def test_details_may_be_any_json_value(details: Any) -> None:
    wire = fixture_wire()["r-test"]
    wire["message"]["details"] = details
    line = dumps_line(parse_session_entry(wire).to_wire())
    assert json.loads(line) == wire
    assert dumps_line(parse_session_entry(loads_strict(line)).to_wire()) == line


def test_metadata_value_may_be_any_json_value_including_null() -> None:
    for value in (None, 1, 2.5, "x", [1, [2]], {"a": {"b": None}}, True):
        entry = parse_session_entry(metadata_wire(value))
        assert isinstance(entry, MetadataEntry)
        assert entry.value == value
        assert entry.to_wire()["value"] == value


def test_message_parent_may_be_null_but_not_a_compactions() -> None:
    assert parse_session_entry(fixture_wire()["sys"]).parent_id is None
    assert parse_session_entry(metadata_wire(1) | {"parentId": None}).parent_id is None
    wire = fixture_wire()["compact-1"]
    wire["parentId"] = None
    assert rejected(wire).startswith("session entry compact-1: parentId: ")


# --- unknown and missing keys -----------------------------------------------


@pytest.mark.parametrize(
    ("entry_id", "change", "path"),
    [
        ("a1", lambda w: w.update(parent_id=w.pop("parentId")), "parent_id"),
        (
            "r-test",
            lambda w: w["message"].update(tool_call_id=w["message"].pop("toolCallId")),
            "message.tool_call_id",
        ),
        (
            "r-test",
            lambda w: w["message"].update(is_error=w["message"].pop("isError")),
            "message.is_error",
        ),
        (
            "a1",
            lambda w: w["message"].update(stop_reason=w["message"].pop("stopReason")),
            "message.stop_reason",
        ),
        (
            "a1",
            lambda w: w["message"]["usage"].update(
                total_tokens=w["message"]["usage"].pop("totalTokens")
            ),
            "message.usage.total_tokens",
        ),
        (
            "compact-1",
            lambda w: w.update(first_kept_entry_id=w.pop("firstKeptEntryId")),
            "first_kept_entry_id",
        ),
        (
            "compact-1",
            lambda w: w.update(tokens_before=w.pop("tokensBefore")),
            "tokens_before",
        ),
        (
            "compact-1",
            lambda w: w["summary"].update(changed_files=w["summary"].pop("changedFiles")),
            "summary.changed_files",
        ),
    ],
    ids=[
        "parent_id",
        "tool_call_id",
        "is_error",
        "stop_reason",
        "total_tokens",
        "first_kept_entry_id",
        "tokens_before",
        "changed_files",
    ],
)
def test_snake_case_wire_keys_are_unknown_fields(
    entry_id: str, change: Callable[[Wire], Any], path: str
) -> None:
    wire = fixture_wire()[entry_id]
    change(wire)
    message = rejected(wire)
    assert message.startswith(f"session entry {entry_id}: ")
    assert f"{path}: unknown field" in message


def test_snake_case_keys_are_unknown_even_next_to_the_camel_case_ones() -> None:
    wire = fixture_wire()["a1"]
    wire["parent_id"] = wire["parentId"]
    assert "parent_id: unknown field" in rejected(wire)


@pytest.mark.parametrize(
    ("entry_id", "change", "path"),
    [
        ("u1", lambda w: w.update(extra=1), "extra"),
        ("u1", lambda w: w["message"].update(name="me"), "message.name"),
        ("u1", lambda w: w["message"]["content"][0].update(cache=True), "message.content.0.cache"),
        ("a1", lambda w: w["message"]["usage"].update(cacheRead=0), "message.usage.cacheRead"),
        ("calls", lambda w: w["message"]["content"][1].update(x=1), "message.content.1.x"),
        ("compact-1", lambda w: w["summary"].update(nextSteps=[]), "summary.nextSteps"),
    ],
)
def test_unknown_fields_are_errors_at_every_level(
    entry_id: str, change: Callable[[Wire], Any], path: str
) -> None:
    wire = fixture_wire()[entry_id]
    change(wire)
    assert f"session entry {entry_id}: {path}: unknown field" in rejected(wire)


@pytest.mark.parametrize(
    ("entry_id", "change", "path"),
    [
        ("u1", lambda w: w.pop("timestamp"), "timestamp"),
        ("u1", lambda w: w.pop("parentId"), "parentId"),
        ("u1", lambda w: w["message"].pop("timestamp"), "message.timestamp"),
        ("a1", lambda w: w["message"].pop("usage"), "message.usage"),
        ("r-test", lambda w: w["message"].pop("isError"), "message.isError"),
        (
            "calls",
            lambda w: w["message"]["content"][0].pop("arguments"),
            "message.content.0.arguments",
        ),
        ("compact-1", lambda w: w["summary"].pop("next"), "summary.next"),
    ],
)
def test_missing_fields_are_errors(entry_id: str, change: Callable[[Wire], Any], path: str) -> None:
    wire = fixture_wire()[entry_id]
    change(wire)
    assert f"session entry {entry_id}: {path}: missing field" in rejected(wire)


def test_metadata_value_is_required() -> None:
    wire = metadata_wire(1)
    del wire["value"]
    assert "session entry meta-1: value: missing field" in rejected(wire)


# --- type and role ----------------------------------------------------------


def test_type_and_role_are_required_on_the_wire() -> None:
    wire = fixture_wire()["u1"]
    del wire["type"]
    assert rejected(wire).startswith("session entry u1: type: missing field")

    wire = fixture_wire()["u1"]
    del wire["message"]["role"]
    assert rejected(wire).startswith("session entry u1: message.role: ")

    wire = fixture_wire()["calls"]
    del wire["message"]["content"][0]["type"]
    assert rejected(wire).startswith("session entry calls: message.content.0.type: ")

    wire = fixture_wire()["u1"]
    wire["type"] = "note"
    assert rejected(wire).startswith("session entry u1: type: ")


def test_python_constructors_fill_type_and_role() -> None:
    entry = MessageEntry(
        id="u", parent_id=None, timestamp=1, message=user_message("x", timestamp=1)
    )
    meta = MetadataEntry(id="m", parent_id="u", timestamp=2, key="k", value=None)
    call = ToolCall(id="c", name="n", arguments={})
    assert entry.type == "message" and entry.message.role == "user"
    assert meta.type == "metadata"
    assert call.type == "toolCall"
    assert parse_session_entry(entry) == entry
    assert parse_session_entry(meta) == meta


@pytest.mark.parametrize("entry_id", ["u1", "r-test"])
def test_a_text_block_needs_its_type_where_it_is_the_only_kind(entry_id: str) -> None:
    """User and tool result content holds text blocks only; their ``type`` is still a tag."""
    wire = fixture_wire()[entry_id]
    del wire["message"]["content"][0]["type"]
    assert rejected(wire) == f"session entry {entry_id}: message.content.0.type: missing field"
    wire = fixture_wire()[entry_id]
    wire["message"]["content"][0]["type"] = "image"
    assert rejected(wire) == (
        f"session entry {entry_id}: message.content.0.type: Input should be 'text'"
    )


def test_errors_inside_an_assistant_block_name_the_field() -> None:
    wire = fixture_wire()["a1"]
    wire["message"]["content"][0]["text"] = 5
    assert rejected(wire) == (
        "session entry a1: message.content.0.text: Input should be a valid string"
    )
    wire = fixture_wire()["calls"]
    wire["message"]["content"][0]["text"] = "a call has no text"
    assert rejected(wire) == "session entry calls: message.content.0.text: unknown field"


def test_the_models_use_only_public_pydantic_api() -> None:
    """No private module and no internal marker: a pydantic upgrade must not change the rules."""
    import inspect

    import course_lib.base.messages
    import course_lib.base.schema
    import course_lib.chapter.entries

    for module in (course_lib.base.schema, course_lib.base.messages, course_lib.chapter.entries):
        source = inspect.getsource(module)
        assert "pydantic._internal" not in source, module.__name__
        assert "__pydantic_base_init__" not in source, module.__name__
        assert "__pydantic_custom_init__" not in source, module.__name__
    for model in (MessageEntry, MetadataEntry, CompactionEntry, ToolCall):
        assert model.__init__ is BaseModel.__init__  # constructors fill tags by their defaults


def test_a_role_does_not_change_into_another() -> None:
    wire = fixture_wire()["r-test"]
    wire["message"]["role"] = "user"
    message = rejected(wire)
    assert message.startswith("session entry r-test: message.")
    assert "unknown field" in message


# --- numbers ----------------------------------------------------------------


NON_FINITE = [math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("bad", NON_FINITE, ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize(
    ("entry_id", "change", "path"),
    [
        ("u1", lambda w, v: w.update(timestamp=v), "timestamp"),
        ("u1", lambda w, v: w["message"].update(timestamp=v), "message.timestamp"),
        ("a1", lambda w, v: w["message"]["usage"].update(output=v), "message.usage.output"),
        ("compact-1", lambda w, v: w.update(tokensBefore=v), "tokensBefore"),
        (
            "calls",
            lambda w, v: w["message"]["content"][0]["arguments"].update(depth=[1, {"x": v}]),
            "message.content.0.arguments.depth.1.x",
        ),
        ("r-test", lambda w, v: w["message"].update(details={"ms": v}), "message.details.ms"),
    ],
    ids=["timestamp", "message-timestamp", "usage", "tokensBefore", "arguments", "details"],
)
def test_non_finite_numbers_are_rejected_anywhere(
    entry_id: str, change: Callable[[Wire, float], Any], path: str, bad: float
) -> None:
    wire = fixture_wire()[entry_id]
    change(wire, bad)
    message = rejected(wire)
    assert message.startswith(f"session entry {entry_id}: {path}: ")
    assert "finite" in message


@pytest.mark.parametrize("bad", NON_FINITE, ids=["nan", "inf", "-inf"])
def test_non_finite_metadata_value_is_rejected(bad: float) -> None:
    message = rejected(metadata_wire({"list": [1, bad]}))
    assert message.startswith("session entry meta-1: value.list.1: ")
    assert "finite" in message
    assert rejected(metadata_wire(bad)).startswith("session entry meta-1: value: ")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_json_literals_are_rejected_when_reading(literal: str) -> None:
    for text in (
        f'{{"timestamp":{literal}}}',
        f'{{"value":{{"deep":[{literal}]}}}}',
    ):
        with pytest.raises(ValueError, match="finite"):
            loads_strict(text)


def test_an_overflowing_json_number_is_rejected_by_the_parser() -> None:
    line = dumps_line(metadata_wire(1)).replace('"value":1', '"value":1e999')
    assert "value: " in rejected(loads_strict(line))


def test_duplicate_keys_in_one_json_object_are_rejected() -> None:
    with pytest.raises(ValueError, match="duplicate key 'id'"):
        loads_strict('{"id":"a","id":"b"}')
    with pytest.raises(ValueError, match="duplicate key 'x'"):
        loads_strict('{"value":{"x":1,"x":1}}')


def test_a_byte_order_mark_is_named_as_json_loads_names_it() -> None:
    with pytest.raises(ValueError, match="BOM"):
        loads_strict('\ufeff{"id":"a"}')


@settings(max_examples=200, deadline=None)
@given(valid_entries())
def test_an_importer_draft_reads_as_the_checking_copy_reads_it(wire: Wire) -> None:
    """``parse_fresh_entry`` skips the copy, never a rule: same entry, or the same error."""
    assert parse_fresh_entry(copy.deepcopy(wire)) == parse_session_entry(wire)


@pytest.mark.parametrize(
    "change",
    [
        lambda w: w["message"]["content"][1]["arguments"].update(n=2**53),
        lambda w: w["message"]["content"][1]["arguments"].update(n=math.inf),
        lambda w: w["message"]["content"][1].update(arguments=nested(64)),
        lambda w: w["message"].update(timestamp=math.nan),
        lambda w: w["message"]["content"][0].pop("type"),
        lambda w: w.update(type="compaction"),
    ],
    ids=["unsafe int", "infinity", "too deep", "nan timestamp", "no block type", "compaction"],
)
def test_an_importer_draft_is_refused_as_the_checking_copy_refuses_it(
    change: Callable[[Wire], Any],
) -> None:
    wire = fixture_wire()["calls"]
    change(wire)
    for schema_keys_only in (False, True):  # skipping the unknown-key search skips no other rule
        with pytest.raises(SessionEntryError) as fresh:
            parse_fresh_entry(copy.deepcopy(wire), schema_keys_only=schema_keys_only)
        assert str(fresh.value) == rejected(wire)


def test_only_a_caller_that_wrote_the_keys_itself_may_skip_the_unknown_key_search() -> None:
    """What ``schema_keys_only`` promises the caller has made sure of: no key the schema lacks."""
    wire = fixture_wire()["calls"]
    wire["message"]["api"] = "anthropic-messages"
    with pytest.raises(SessionEntryError, match="api"):
        parse_fresh_entry(copy.deepcopy(wire))
    entry = parse_fresh_entry(copy.deepcopy(wire), schema_keys_only=True)
    assert "api" not in entry.message.to_wire()


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def test_nesting_up_to_the_limit_is_accepted_without_the_copy() -> None:
    wire = fixture_wire()["calls"]
    wire["message"]["content"][1]["arguments"] = nested(60)  # 4 levels above it: 64 in all
    assert parse_fresh_entry(copy.deepcopy(wire)) == parse_session_entry(wire)


def test_require_session_entries_refuses_a_wire_dict_naming_its_position() -> None:
    entries = chapter_fixture_after_compaction()
    require_session_entries(entries)  # every entry: nothing raised
    with pytest.raises(SessionEntryError, match="item 1 of the path is a dict"):
        require_session_entries([entries[0], entries[1].to_wire()])


@pytest.mark.parametrize(
    ("entry_id", "change", "path"),
    [
        ("u1", lambda w: w.update(timestamp=True), "timestamp"),
        ("u1", lambda w: w["message"].update(timestamp=False), "message.timestamp"),
        ("a1", lambda w: w["message"]["usage"].update(input=True), "message.usage.input"),
        (
            "a1",
            lambda w: w["message"]["usage"].update(totalTokens=True),
            "message.usage.totalTokens",
        ),
        ("compact-1", lambda w: w.update(tokensBefore=True), "tokensBefore"),
        ("u1", lambda w: w.update(timestamp="2"), "timestamp"),
        ("compact-1", lambda w: w.update(tokensBefore="29"), "tokensBefore"),
    ],
)
def test_booleans_and_strings_are_not_numbers(
    entry_id: str, change: Callable[[Wire], Any], path: str
) -> None:
    wire = fixture_wire()[entry_id]
    change(wire)
    message = rejected(wire)
    assert message.startswith(f"session entry {entry_id}: {path}: ")
    assert "finite number" in message


def test_timestamps_may_be_negative_but_counts_may_not() -> None:
    wire = fixture_wire()["u1"]
    wire["timestamp"] = -5.5
    assert parse_session_entry(wire).timestamp == -5.5
    wire = fixture_wire()["a1"]
    wire["message"]["usage"]["output"] = -1
    assert "message.usage.output: must be >= 0" in rejected(wire)
    wire = fixture_wire()["compact-1"]
    wire["tokensBefore"] = -0.5
    assert "tokensBefore: must be >= 0" in rejected(wire)


# --- strings ----------------------------------------------------------------


@pytest.mark.parametrize(
    "blank", ["", " ", "   ", "\t\n"], ids=["empty", "space", "spaces", "tab-nl"]
)
@pytest.mark.parametrize(
    ("entry_id", "change", "path"),
    [
        ("u1", lambda w, b: w.update(parentId=b), "parentId"),
        ("compact-1", lambda w, b: w.update(parentId=b), "parentId"),
        ("compact-1", lambda w, b: w.update(firstKeptEntryId=b), "firstKeptEntryId"),
        ("compact-1", lambda w, b: w["summary"].update(goal=b), "summary.goal"),
        ("calls", lambda w, b: w["message"]["content"][1].update(id=b), "message.content.1.id"),
        ("calls", lambda w, b: w["message"]["content"][1].update(name=b), "message.content.1.name"),
        ("r-test", lambda w, b: w["message"].update(toolCallId=b), "message.toolCallId"),
        ("r-test", lambda w, b: w["message"].update(toolName=b), "message.toolName"),
    ],
)
def test_blank_strings_are_rejected_where_a_name_is_needed(
    entry_id: str, change: Callable[[Wire, str], Any], path: str, blank: str
) -> None:
    wire = fixture_wire()[entry_id]
    change(wire, blank)
    assert f"session entry {entry_id}: {path}: must not be blank" in rejected(wire)


@pytest.mark.parametrize("blank", ["", "   "])
def test_blank_ids_and_keys_are_rejected(blank: str) -> None:
    wire = fixture_wire()["u1"]
    wire["id"] = blank
    assert "id: must not be blank" in rejected(wire)
    assert "key: must not be blank" in rejected(metadata_wire(1) | {"key": blank})


def test_texts_and_list_items_may_be_blank() -> None:
    wire = fixture_wire()["u1"]
    wire["message"]["content"][0]["text"] = "   "
    assert parse_session_entry(wire).to_wire() == wire
    wire = fixture_wire()["compact-1"]
    wire["summary"]["completed"] = ["", "  "]
    assert parse_session_entry(wire).to_wire() == wire


def test_list_members_must_be_strings() -> None:
    wire = fixture_wire()["compact-1"]
    wire["summary"]["decisions"] = ["valid", 7]
    assert "session entry compact-1: summary.decisions.1: " in rejected(wire)


def test_non_object_input_is_an_entry_error() -> None:
    assert rejected(["u1"]).startswith("session entry (no id): ")
    assert rejected("u1").startswith("session entry (no id): ")


def test_the_error_says_no_id_when_the_id_is_unusable() -> None:
    wire = fixture_wire()["u1"]
    del wire["id"]
    assert rejected(wire).startswith("session entry (no id): id: missing field")
    wire = fixture_wire()["u1"]
    wire["id"] = 7
    assert rejected(wire).startswith("session entry (no id): id: ")


def test_errors_are_course_errors_and_value_errors() -> None:
    wire = fixture_wire()["compact-1"]
    wire["summary"]["files"] = wire["summary"].pop("changedFiles")
    with pytest.raises(SessionEntryError) as caught:
        parse_session_entry(wire)
    assert isinstance(caught.value, CourseError)
    assert isinstance(caught.value, ValueError)
    assert "session entry compact-1: " in str(caught.value)
    assert "summary.files: unknown field" in str(caught.value)


# --- deep copies ------------------------------------------------------------


def test_parsing_a_wire_dict_shares_nothing_in_either_direction() -> None:
    wire = fixture_wire()["calls"]
    entry = parse_session_entry(wire)
    assert isinstance(entry, MessageEntry)

    wire["message"]["content"][0]["arguments"]["path"] = "changed.ts"
    wire["message"]["content"].append({"type": "text", "text": "added"})
    assert entry.message.content[0].arguments == {"path": "context.ts"}
    assert len(entry.message.content) == 2

    entry.message.content[1].arguments["command"] = "rm -rf"
    assert wire["message"]["content"][1]["arguments"] == {"command": "npm test -- context"}


def test_parsing_an_entry_object_returns_an_independent_equal_copy() -> None:
    original = chapter_fixture()[6]
    copied = parse_session_entry(original)
    assert copied == original and copied is not original
    assert copied.message is not original.message
    copied.message.content[0].arguments["path"] = "changed.ts"
    assert original.message.content[0].arguments == {"path": "context.ts"}


@pytest.mark.parametrize(
    "arguments",
    [{"path": "a.ts", "n": 1, "ok": True, "none": None}, {"files": ["a.ts"], "opts": {"n": 1}}],
    ids=["flat", "nested"],
)
def test_a_deep_copy_of_a_message_shares_no_argument_container(arguments: dict[str, Any]) -> None:
    wire = fixture_wire()["calls"]
    wire["message"]["content"][0]["arguments"] = arguments
    original = parse_session_entry(wire).message
    copied = original.model_copy(deep=True)
    assert copied == original
    copied_arguments = copied.content[0].arguments
    assert copied_arguments is not original.content[0].arguments
    for key, value in copied_arguments.items():
        if isinstance(value, dict | list):
            assert value is not original.content[0].arguments[key]
    copied_arguments["added"] = "x"
    assert "added" not in original.content[0].arguments


def test_details_and_metadata_values_are_copied() -> None:
    details = {"files": ["a.ts"]}
    wire = fixture_wire()["r-test"]
    wire["message"]["details"] = details
    entry = parse_session_entry(wire)
    details["files"].append("b.ts")
    assert entry.message.details == {"files": ["a.ts"]}
    out = entry.to_wire()
    out["message"]["details"]["files"].append("c.ts")
    assert entry.message.details == {"files": ["a.ts"]}

    value = {"nested": [1, {"deep": "x"}]}
    meta = parse_session_entry(metadata_wire(value))
    value["nested"][1]["deep"] = "changed"
    assert meta.value == {"nested": [1, {"deep": "x"}]}


def test_to_wire_is_a_fresh_dict_every_time() -> None:
    entry = parse_session_entry(fixture_wire()["compact-1"])
    first = entry.to_wire()
    first["summary"]["next"].append("changed")
    assert entry.to_wire() == fixture_wire()["compact-1"]
    assert isinstance(entry.summary, CompactionSummary)
    assert entry.summary.next == ["Confirm the JSONL write boundary"]
