"""Conformance with the TypeScript course: the same decisions and the same bytes.

Every expected value here is typed in from the rules in api.md and
chapter11.md (JavaScript's ``trim`` set, ``JSON.stringify``'s number format,
the course's key order and summation order), never computed by the code under
test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from entry_strategies import valid_entries
from hypothesis import given, settings
from summaries import empty_summary

from course_lib import (
    CompactionError,
    InMemorySessionStore,
    JsonlSessionStore,
    MessageEntry,
    SessionEntryError,
    SessionFileError,
    ToolCall,
    assistant_message,
    build_context,
    chapter_fixture,
    create_compaction_entry,
    parse_session_entry,
    recover_jsonl,
    text_of,
    tool_result,
    user_message,
)
from course_lib.base.messages import SystemMessage
from course_lib.base.text_rules import JS_TRIM_WHITESPACE, is_blank
from course_lib.base.wire import dumps_line, js_number_text, loads_strict

# --- 1. the summary is paid before the groups, and the allowance never goes below 0 ---


def _user_entry(entry_id: str, parent: str | None, words: str) -> MessageEntry:
    return MessageEntry(
        id=entry_id, parent_id=parent, timestamp=1, message=user_message(words, timestamp=1)
    )


def _priced(costs: dict[str, float | int], summary_cost: float | int = 0) -> Any:
    """An estimator that prices a message by its text (a summary by its label)."""

    def estimate(value: Any) -> float | int:
        content = value if isinstance(value, str) else text_of(value)
        if content.startswith("[Session compaction summary]"):
            return summary_cost
        return costs[content]

    return estimate


def _compacted_path() -> list[Any]:
    """``u1``, a compaction keeping ``u2``, then ``u2`` and ``u3``."""
    u1 = _user_entry("u1", None, "one")
    u2 = _user_entry("u2", "u1", "two")
    compaction = create_compaction_entry(
        [u1, u2],
        id="compact-1",
        timestamp=5,
        summary=empty_summary(),
        first_kept_entry_id="u2",
        tokens_before=2,
    )
    u3 = _user_entry("u3", "compact-1", "three")
    return [u1, u2, compaction, u3]


def test_a_newest_group_costing_0_fits_when_the_summary_alone_uses_up_the_room() -> None:
    result = build_context(
        _compacted_path(),
        max_tokens=4,
        estimate_tokens=_priced({"one": 1, "two": 1, "three": 0}, summary_cost=9),
    )
    # available 4, summary 9: the group allowance is max(0, 4 - 9) = 0, and 0 > 0 is false.
    assert result.tokens.available_for_messages == 4
    assert result.reason == "trimmed"  # u2 (1) does not fit into 0
    assert result.kept_entry_ids == ["u3"]
    assert result.tokens.messages == 9


def test_a_newest_group_costing_0_is_within_budget_when_nothing_else_is_left() -> None:
    result = build_context(
        _compacted_path(),
        max_tokens=4,
        estimate_tokens=_priced({"one": 1, "two": 0, "three": 0}, summary_cost=9),
    )
    assert result.reason == "within_budget"
    assert result.kept_entry_ids == ["u2", "u3"]


def test_a_newest_group_overflows_only_when_it_costs_more_than_the_allowance() -> None:
    result = build_context(
        _compacted_path(),
        max_tokens=4,
        estimate_tokens=_priced({"one": 1, "two": 1, "three": 1}, summary_cost=3),
    )
    # allowance max(0, 4 - 3) = 1: the newest group (1) fits, u2 (1) does not.
    assert (result.reason, result.kept_entry_ids) == ("trimmed", ["u3"])
    over = build_context(
        _compacted_path(),
        max_tokens=4,
        estimate_tokens=_priced({"one": 1, "two": 1, "three": 2}, summary_cost=3),
    )
    assert (over.reason, over.kept_entry_ids) == ("single_group_overflow", ["u3"])


# --- 2. token sums in the course's order ----------------------------------------------


def _chain(*words: str) -> list[MessageEntry]:
    entries: list[MessageEntry] = []
    for index, word in enumerate(words):
        parent = entries[-1].id if entries else None
        entries.append(_user_entry(f"u{index + 1}", parent, word))
    return entries


def test_kept_groups_are_added_newest_first() -> None:
    # Three one-message groups costing 0.1, 0.2, 0.3: the course adds 0 + 0.3 + 0.2 + 0.1.
    result = build_context(
        _chain("a", "b", "c"),
        max_tokens=1,
        estimate_tokens=_priced({"a": 0.1, "b": 0.2, "c": 0.3}),
    )
    assert result.reason == "within_budget"
    assert result.tokens.messages == 0.6
    assert repr(result.tokens.messages) == "0.6"  # oldest first would give 0.6000000000000001
    assert repr(result.tokens.total) == "0.6"


def test_a_groups_messages_are_added_in_path_order() -> None:
    first = _user_entry("u1", None, "a")
    call = ToolCall(id="c1", name="run", arguments={})
    calling = MessageEntry(
        id="a1", parent_id="u1", timestamp=2, message=assistant_message([call], timestamp=2)
    )
    answer = MessageEntry(
        id="r1", parent_id="a1", timestamp=3, message=tool_result(call, "c", timestamp=3)
    )

    def estimate(value: Any) -> float:
        role = value.role if not isinstance(value, str) else "text"
        return {"user": 0.1, "assistant": 0.2, "toolResult": 0.3}[role]

    result = build_context([first, calling, answer], max_tokens=1, estimate_tokens=estimate)
    # One group, summed in path order as the course's reduce does: 0 + 0.1 + 0.2 + 0.3.
    assert repr(result.tokens.messages) == "0.6000000000000001"


def test_the_summary_is_added_before_the_groups() -> None:
    result = build_context(
        _compacted_path(),
        max_tokens=10,
        estimate_tokens=_priced({"one": 0.1, "two": 0.2, "three": 0.3}, summary_cost=0.1),
    )
    # 0 + 0.1 (summary), then the groups newest first: 0 + 0.3 + 0.2 = 0.5; 0.1 + 0.5.
    assert result.kept_entry_ids == ["u2", "u3"]
    assert repr(result.tokens.messages) == "0.6"


# --- 3. blank is JavaScript's trim set ------------------------------------------------

TRIM_SET = [
    "\u0009",
    "\u000a",
    "\u000b",
    "\u000c",
    "\u000d",
    "\u0020",
    "\u00a0",
    "\u1680",
    *(chr(code) for code in range(0x2000, 0x200B)),
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\ufeff",
]
NOT_BLANK = ["\u001c", "\u001d", "\u001e", "\u001f", "\u0085", "\u200b", "\u180e", "x"]


def test_the_trim_set_is_exactly_the_one_api_md_lists() -> None:
    assert set(TRIM_SET) == JS_TRIM_WHITESPACE
    assert len(TRIM_SET) == 25


@pytest.mark.parametrize("char", TRIM_SET, ids=lambda char: f"U+{ord(char):04X}")
def test_each_trim_code_point_is_blank_everywhere(char: str) -> None:
    assert is_blank(char * 3)
    wire = _user_entry("u1", None, "hi").to_wire()
    with pytest.raises(SessionEntryError, match="id: must not be blank"):
        parse_session_entry({**wire, "id": char})
    compaction = _compacted_path()[2].to_wire()
    summary = {**compaction["summary"], "goal": f" {char} "}
    with pytest.raises(SessionEntryError, match=r"summary\.goal: must not be blank"):
        parse_session_entry({**compaction, "summary": summary})
    metadata = {"id": "m", "parentId": None, "timestamp": 1, "type": "metadata"}
    with pytest.raises(SessionEntryError, match="key: must not be blank"):
        parse_session_entry({**metadata, "key": char, "value": 1})
    # A JSONL line holding only this character is skipped; so is a tail of it, silently.
    line = dumps_line(wire)
    assert recover_jsonl(f"{char}\n{line}{char}").entries == [parse_session_entry(wire)]
    assert recover_jsonl(f"{char}\n{line}{char}").warnings == []


@pytest.mark.parametrize("char", NOT_BLANK, ids=lambda char: f"U+{ord(char):04X}")
def test_code_points_outside_the_trim_set_are_not_blank(char: str) -> None:
    assert not is_blank(char)
    wire = _user_entry("u1", None, "hi").to_wire()
    assert parse_session_entry({**wire, "id": char}).id == char
    # A JSONL line holding only this character is not blank, so it must be JSON.
    with pytest.raises(SessionFileError, match="line 1"):
        recover_jsonl(f"{char}\n")
    warnings = recover_jsonl(f"{dumps_line(wire)}{char}").warnings
    assert [(warning.code, warning.line) for warning in warnings] == [("unterminated_tail", 2)]


# --- 4. numbers as JSON.stringify writes them ------------------------------------------


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (2.0, "2"),
        (-0.0, "0"),
        (0.0, "0"),
        (0.00001, "0.00001"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1e-10, "1e-10"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (1e20, "100000000000000000000"),
        (123.456, "123.456"),
        (-1.5, "-1.5"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "5e-324"),
        (100.0, "100"),
        (0.0001, "0.0001"),
    ],
)
def test_floats_are_written_as_javascript_writes_them(value: float, written: str) -> None:
    assert js_number_text(value) == written
    assert dumps_line({"n": value, "s": "1.0, 1e-05"}) == f'{{"n":{written},"s":"1.0, 1e-05"}}\n'


@pytest.mark.parametrize(
    ("field", "place"),
    [
        ("timestamp", lambda wire, n: {**wire, "timestamp": n}),
        (
            "message.timestamp",
            lambda wire, n: {**wire, "message": {**wire["message"], "timestamp": n}},
        ),
    ],
)
@pytest.mark.parametrize("number", [2**53, -(2**53), 10**400, 2.0**60])
def test_integers_beyond_the_safe_range_are_refused_naming_the_field(
    field: str, place: Any, number: int | float
) -> None:
    wire = _user_entry("u1", None, "hi").to_wire()
    with pytest.raises(
        SessionEntryError, match=rf"session entry u1: {re.escape(field)}: .*safe range"
    ):
        parse_session_entry(place(wire, number))


def test_the_largest_safe_integer_is_accepted_and_written_as_is() -> None:
    wire = {**_user_entry("u1", None, "hi").to_wire(), "timestamp": 2**53 - 1}
    assert '"timestamp":9007199254740991,' in dumps_line(parse_session_entry(wire).to_wire())


def test_unsafe_integers_inside_json_values_name_their_path() -> None:
    call = ToolCall(id="c1", name="run", arguments={"n": [1, 2]})
    wire = MessageEntry(
        id="a1", parent_id=None, timestamp=1, message=assistant_message([call], timestamp=1)
    ).to_wire()
    wire["message"]["content"][0]["arguments"] = {"n": [1, 2**60]}
    with pytest.raises(
        SessionEntryError, match=r"a1: message\.content\.0\.arguments\.n\.1: integer outside"
    ):
        parse_session_entry(wire)


# --- 5. a file written here is the file the course writes ------------------------------

# Typed in from the wire rules: key order, optional fields last, numbers as JavaScript writes.
COURSE_LINES = [
    '{"id":"sys","parentId":null,"timestamp":0,"type":"message","message":{"role":"system",'
    '"content":"BASE","timestamp":0,"sections":{"rules":"RULE v1"}}}',
    '{"id":"u1","parentId":"sys","timestamp":1.5,"type":"message","message":{"role":"user",'
    '"content":[{"type":"text","text":"检查 session 恢复逻辑"}],"timestamp":1}}',
    '{"id":"a1","parentId":"u1","timestamp":2,"type":"message","message":{"role":"assistant",'
    '"content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"ratio":0.00001,'
    '"tiny":1e-7,"big":1e+21,"whole":3},"rawArguments":"{}"}],"provider":"p","model":"m",'
    '"usage":{"input":0.5,"output":0,"totalTokens":0.5},"stopReason":"error",'
    '"timestamp":2,"errorMessage":"provider failed"}}',
    '{"id":"r1","parentId":"a1","timestamp":3,"type":"message","message":{"role":"toolResult",'
    '"toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}],'
    '"isError":false,"timestamp":3,"details":null}}',
    '{"id":"m1","parentId":"r1","timestamp":4,"type":"metadata","key":"label","value":{"x":0}}',
    '{"id":"compact-1","parentId":"m1","timestamp":100,"type":"compaction","summary":'
    '{"goal":"g","constraints":[],"completed":["c"],"decisions":[],"changedFiles":["a.ts"],'
    '"unresolved":[],"next":[]},"firstKeptEntryId":"u1","tokensBefore":29}',
]


def _entries_written_by_python() -> list[Any]:
    """The same entries built with Python values: floats such as 2.0 and -0.0 included."""
    system = SystemMessage(content="BASE", sections={"rules": "RULE v1"}, timestamp=0.0)
    call = ToolCall(
        id="c1",
        name="read",
        arguments={"ratio": 0.00001, "tiny": 1e-7, "big": 1e21, "whole": 3.0},
        raw_arguments="{}",
    )
    assistant = assistant_message(
        [call],
        stop_reason="error",
        error_message="provider failed",
        provider="p",
        model="m",
        usage={"input": 0.5, "output": 0.0, "total_tokens": 0.5},
        timestamp=2.0,
    )
    return [
        MessageEntry(id="sys", parent_id=None, timestamp=-0.0, message=system),
        MessageEntry(
            id="u1",
            parent_id="sys",
            timestamp=1.5,
            message=user_message("检查 session 恢复逻辑", timestamp=1),
        ),
        MessageEntry(id="a1", parent_id="u1", timestamp=2, message=assistant),
        MessageEntry(
            id="r1",
            parent_id="a1",
            timestamp=3,
            message=tool_result(call, "ok", timestamp=3, details=None),
        ),
        {
            "id": "m1",
            "parentId": "r1",
            "timestamp": 4.0,
            "type": "metadata",
            "key": "label",
            "value": {"x": -0.0},
        },
        {
            "id": "compact-1",
            "parentId": "m1",
            "timestamp": 100,
            "type": "compaction",
            "summary": {
                "goal": "g",
                "constraints": [],
                "completed": ["c"],
                "decisions": [],
                "changedFiles": ["a.ts"],
                "unresolved": [],
                "next": [],
            },
            "firstKeptEntryId": "u1",
            "tokensBefore": 29.0,
        },
    ]


def test_a_file_written_here_is_the_bytes_the_course_writes(tmp_path: Path) -> None:
    store = JsonlSessionStore.open(tmp_path / "session.jsonl")
    for entry in _entries_written_by_python():
        store.append(entry)
    expected = "".join(line + "\n" for line in COURSE_LINES).encode("utf-8")
    assert (tmp_path / "session.jsonl").read_bytes() == expected


def test_a_file_the_course_wrote_reads_and_writes_back_byte_for_byte(tmp_path: Path) -> None:
    course_file = tmp_path / "course.jsonl"
    course_file.write_bytes("".join(line + "\n" for line in COURSE_LINES).encode("utf-8"))
    copy = JsonlSessionStore.open(tmp_path / "copy.jsonl")
    memory = InMemorySessionStore()
    for entry in JsonlSessionStore.open(course_file).entries():
        copy.append(entry)
        memory.append(entry)
    assert (tmp_path / "copy.jsonl").read_bytes() == course_file.read_bytes()
    assert [dumps_line(entry.to_wire()) for entry in memory.entries()] == [
        line + "\n" for line in COURSE_LINES
    ]


# --- 6. the compaction error names the compaction and the entry ------------------------


def test_a_first_kept_entry_that_is_not_a_group_start_names_the_compaction_and_entry() -> None:
    path = chapter_fixture()
    compaction = create_compaction_entry(
        path,
        id="compact-1",
        timestamp=100,
        summary=_compacted_path()[2].summary,
        first_kept_entry_id="u2",
        tokens_before=29,
    )
    broken = compaction.model_copy(update={"first_kept_entry_id": "a2"})
    with pytest.raises(CompactionError, match=r"compaction compact-1: first kept entry 'a2'"):
        build_context([*path, broken], max_tokens=31, estimate_tokens=lambda value: 1)


# --- the property: a written line is a fixed point -------------------------------------

# A number token written the Python way: an integral float ("2.0") or a padded exponent ("1e-05").
PYTHON_NUMBER = re.compile(r"(?<![\w.])-?\d+\.0(?=[,\]}])|e[-+]0\d")


def _numbers_outside_strings(line: str) -> str:
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)


@settings(max_examples=300, deadline=None)
@given(valid_entries())
def test_a_written_line_is_a_fixed_point_in_javascript_number_format(wire: dict[str, Any]) -> None:
    first = dumps_line(parse_session_entry(wire).to_wire())
    again = dumps_line(parse_session_entry(loads_strict(first)).to_wire())
    assert again == first
    assert not PYTHON_NUMBER.search(_numbers_outside_strings(first)), first
    assert json.loads(first) == json.loads(again)
