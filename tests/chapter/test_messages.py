"""Chapter 3 carry-over: the message models, their helpers and system replay.

Chapter 11 builds on these: every budget starts by replaying the system
messages of the whole path into one, so the replay rules (content appended,
sections overwritten by name, ``None`` deletes) are checked here on their own.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from course_lib import (
    AgentMessage,
    AssistantMessage,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    assistant_message,
    current_system_message,
    current_system_prompt,
    system_message_text,
    text,
    text_of,
    tool_result,
    user_message,
)

AGENT_MESSAGE = TypeAdapter(AgentMessage)


def system(content: str, timestamp: int | float, **sections: str | None) -> SystemMessage:
    fields: dict[str, Any] = {"sections": sections} if sections else {}
    return SystemMessage(content=content, timestamp=timestamp, **fields)


# --- models and helpers -------------------------------------------------------


def test_text_wraps_a_string_as_one_text_block() -> None:
    block = text("hello")
    assert isinstance(block, TextContent)
    assert block.type == "text"
    assert block.text == "hello"
    assert block.to_wire() == {"type": "text", "text": "hello"}


def test_user_message_holds_one_text_block_and_keeps_an_int_timestamp() -> None:
    message = user_message("Check the session recovery logic.", timestamp=2)
    assert message.role == "user"
    assert message.content == [text("Check the session recovery logic.")]
    assert message.timestamp == 2 and isinstance(message.timestamp, int)
    assert user_message("x", timestamp=2.5).timestamp == 2.5


def test_assistant_message_fills_teaching_defaults() -> None:
    message = assistant_message("Done.", timestamp=3)
    assert isinstance(message, AssistantMessage)
    assert message.role == "assistant"
    assert message.content == [text("Done.")]
    assert (message.provider, message.model) == ("course", "scripted")
    assert message.usage == Usage(input=0, output=0, total_tokens=0)
    assert message.stop_reason == "stop"
    assert message.error_message is None
    assert message.tool_calls == []
    assert "errorMessage" not in message.to_wire()


def test_assistant_message_with_tool_calls_lists_them_in_declaration_order() -> None:
    read = ToolCall(id="read-1", name="read", arguments={"path": "context.ts"})
    test = ToolCall(id="test-1", name="test", arguments={"command": "npm test"})
    message = assistant_message(
        [text("Reading first."), read, test],
        stop_reason="toolUse",
        timestamp=7,
        provider="other",
        error_message="none really",
    )
    assert message.tool_calls == [read, test]
    assert message.stop_reason == "toolUse"
    assert message.provider == "other"
    assert message.to_wire()["errorMessage"] == "none really"


def test_assistant_message_needs_a_timestamp() -> None:
    with pytest.raises(ValidationError, match="timestamp"):
        assistant_message("no time")


def test_tool_result_takes_id_and_name_from_its_call() -> None:
    call = ToolCall(id="test-1", name="test", arguments={})
    result = tool_result(call, "14 tests passed", timestamp=8)
    assert isinstance(result, ToolResultMessage)
    assert (result.tool_call_id, result.tool_name) == ("test-1", "test")
    assert result.content == [text("14 tests passed")]
    assert result.is_error is False
    assert "details" not in result.to_wire()

    failed = tool_result(call, "1 failed", timestamp=9, is_error=True, details={"failed": 1})
    assert failed.is_error is True
    assert failed.to_wire()["details"] == {"failed": 1}


def test_tool_result_keeps_an_explicit_null_details() -> None:
    call = ToolCall(id="c", name="n", arguments=None)
    wire = tool_result(call, "x", timestamp=1, details=None).to_wire()
    assert "details" in wire and wire["details"] is None


def test_text_of_joins_text_blocks_and_skips_tool_calls() -> None:
    call = ToolCall(id="c", name="n", arguments={})
    message = assistant_message([text("one"), call, text("two")], timestamp=1)
    assert text_of(message) == "one\ntwo"
    assert text_of(user_message("only", timestamp=1)) == "only"
    assert text_of(tool_result(call, "out", timestamp=1)) == "out"


def test_text_of_a_system_message_is_its_prompt_text() -> None:
    message = system("BASE", 1, rules="RULE v1")
    assert text_of(message) == "BASE\n\nRULE v1"


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ({"role": "user", "content": [], "timestamp": 1}, UserMessage),
        (
            {
                "role": "assistant",
                "content": [],
                "provider": "p",
                "model": "m",
                "usage": {"input": 1, "output": 2, "totalTokens": 3},
                "stopReason": "stop",
                "timestamp": 1,
            },
            AssistantMessage,
        ),
        (
            {
                "role": "toolResult",
                "toolCallId": "c",
                "toolName": "n",
                "content": [],
                "isError": False,
                "timestamp": 1,
            },
            ToolResultMessage,
        ),
        ({"role": "system", "content": "s", "timestamp": 1}, SystemMessage),
    ],
    ids=["user", "assistant", "toolResult", "system"],
)
def test_agent_message_is_discriminated_by_role(wire: dict[str, Any], expected: type) -> None:
    message = AGENT_MESSAGE.validate_python(wire)
    assert type(message) is expected
    assert message.to_wire() == wire


@pytest.mark.parametrize(
    "build",
    [
        lambda: UserMessage(content="not a list", timestamp=1),
        lambda: UserMessage(content=[], timestamp="1"),
        lambda: UserMessage(content=[], timestamp=math.nan),
        lambda: UserMessage(content=[], timestamp=math.inf),
        lambda: UserMessage(content=[], timestamp=True),
        lambda: UserMessage(role="assistant", content=[], timestamp=1),
        lambda: UserMessage(content=[], timestamp=1, extra=1),
        lambda: Usage(input=-1, output=0, total_tokens=0),
        lambda: Usage(input=0, output=False, total_tokens=0),
        lambda: assistant_message("x", stop_reason="done", timestamp=1),
        lambda: ToolCall(id="  ", name="n", arguments={}),
        lambda: ToolCall(id="c", name="n", arguments={"x": math.nan}),
        lambda: SystemMessage(content=1, timestamp=1),
        lambda: SystemMessage(content="", sections={"rules": 1}, timestamp=1),
        lambda: ToolResultMessage(
            tool_call_id="c", tool_name="n", content=[], is_error=1, timestamp=1
        ),
    ],
    ids=[
        "content-not-a-list",
        "string-timestamp",
        "nan-timestamp",
        "inf-timestamp",
        "bool-timestamp",
        "wrong-role",
        "unknown-field",
        "negative-usage",
        "bool-usage",
        "unknown-stop-reason",
        "blank-call-id",
        "nan-in-arguments",
        "non-string-content",
        "non-string-section",
        "int-is-error",
    ],
)
def test_models_are_strict(build: Any) -> None:
    with pytest.raises(ValidationError):
        build()


def test_numbers_keep_their_python_type() -> None:
    usage = Usage(input=1, output=2.0, total_tokens=3)
    assert type(usage.input) is int
    assert type(usage.output) is float
    assert usage.to_wire() == {"input": 1, "output": 2.0, "totalTokens": 3}
    assert type(usage.to_wire()["output"]) is float


# --- system replay ------------------------------------------------------------


def test_system_message_text_joins_non_empty_parts_with_a_blank_line() -> None:
    assert system_message_text(system("BASE", 1)) == "BASE"
    assert system_message_text(system("BASE", 1, a="A", b="B")) == "BASE\n\nA\n\nB"
    assert system_message_text(system("", 1, a="A")) == "A"
    assert system_message_text(system("BASE", 1, a=None, b="", c="C")) == "BASE\n\nC"
    assert system_message_text(system("", 1)) == ""


def test_no_system_message_replays_to_none() -> None:
    messages = [user_message("hi", timestamp=1), assistant_message("hello", timestamp=2)]
    assert current_system_message(messages) is None
    assert current_system_prompt(messages) is None
    assert current_system_message([]) is None
    assert current_system_prompt([]) is None


def test_a_single_system_message_replays_to_an_equal_copy() -> None:
    original = system("BASE", 1, rules="RULE v1")
    replayed = current_system_message([original])
    assert replayed == original
    assert replayed is not original


def test_contents_are_appended_with_a_blank_line_and_empty_ones_skipped() -> None:
    messages = [
        system("BASE", 1),
        user_message("u", timestamp=2),
        system("", 3),
        system("Prefer small diffs.", 4),
        assistant_message("a", timestamp=5),
        system("Run the tests.", 6),
    ]
    replayed = current_system_message(messages)
    assert replayed is not None
    assert replayed.content == "BASE\n\nPrefer small diffs.\n\nRun the tests."
    assert replayed.sections is None
    assert "sections" not in replayed.to_wire()


def test_sections_are_overwritten_by_name_and_deleted_by_none() -> None:
    messages = [
        system("BASE", 1, rules="RULE v1", style="terse"),
        system("", 2, rules="RULE v2"),
        system("", 3, style=None, tools="read, test"),
    ]
    replayed = current_system_message(messages)
    assert replayed is not None
    assert replayed.content == "BASE"
    assert replayed.sections == {"rules": "RULE v2", "tools": "read, test"}
    assert current_system_prompt(messages) == "BASE\n\nRULE v2\n\nread, test"


def test_a_deleted_section_can_come_back() -> None:
    messages = [system("", 1, rules="v1"), system("", 2, rules=None), system("", 3, rules="v3")]
    replayed = current_system_message(messages)
    assert replayed is not None
    assert replayed.sections == {"rules": "v3"}


def test_sections_appear_only_when_one_remains() -> None:
    messages = [system("BASE", 1, rules="v1"), system("", 2, rules=None)]
    replayed = current_system_message(messages)
    assert replayed is not None
    assert replayed.sections is None
    assert replayed.to_wire() == {"role": "system", "content": "BASE", "timestamp": 1}
    assert current_system_prompt(messages) == "BASE"


def test_deleting_an_unknown_section_is_harmless() -> None:
    replayed = current_system_message([system("BASE", 1, never=None)])
    assert replayed is not None
    assert replayed.sections is None


def test_the_replayed_timestamp_is_the_first_system_messages() -> None:
    messages = [
        user_message("u", timestamp=0),
        system("A", 5.5),
        system("B", 9),
    ]
    replayed = current_system_message(messages)
    assert replayed is not None
    assert replayed.timestamp == 5.5
    assert replayed.role == "system"


def test_replay_never_changes_its_input() -> None:
    messages = [system("BASE", 1, rules="v1"), system("", 2, rules=None, extra="x")]
    before = [message.to_wire() for message in messages]
    replayed = current_system_message(messages)
    assert replayed is not None
    assert replayed.sections is not None
    replayed.sections["extra"] = "changed"
    assert [message.to_wire() for message in messages] == before
