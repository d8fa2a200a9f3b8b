"""Chapter 3's four agent messages and their helpers: the wire format every message entry carries.

Chapter 11 builds on them without changing them, so they sit with the
boundary: a session stores messages inside entries, and the model sees them as
they are. How system messages are replayed is the chapter's
(``course_lib.chapter.messages``). The models are strict (``WireModel``):
camelCase on the wire, no coercion, unknown fields refused, optional fields
omitted when absent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from .schema import (
    NOT_NULL,
    FiniteNumber,
    JsonValue,
    NonBlankStr,
    NonNegativeNumber,
    WireModel,
    WireStr,
    tag_required,
)

# --- content blocks ---------------------------------------------------------


class TextContent(WireModel):
    """A block of plain text."""

    type: Literal["text"] = "text"  # a tag: required on the wire
    text: WireStr


class ToolCall(WireModel):
    """A tool call declared by the assistant; its ``id`` pairs it with one result."""

    _omit_when_none: ClassVar = ("raw_arguments",)
    type: Literal["toolCall"] = "toolCall"  # a tag: required on the wire
    id: NonBlankStr
    name: NonBlankStr
    arguments: JsonValue
    raw_arguments: Annotated[WireStr | None, NOT_NULL] = None


# Told apart by their tag, natively: pydantic-core reads ``type`` (or ``role``
# below) and validates only the matching model.
AssistantContent = Annotated[TextContent | ToolCall, Field(discriminator="type")]
TextBlock = Annotated[TextContent, tag_required("type", "text")]
"""A text block where it is the only kind: its ``type`` is still required on the wire."""


class Usage(WireModel):
    """The provider's token counts for one assistant turn."""

    input: NonNegativeNumber
    output: NonNegativeNumber
    total_tokens: NonNegativeNumber


# --- messages ---------------------------------------------------------------

StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


class UserMessage(WireModel):
    """What the user said (or a synthetic user message such as a summary)."""

    role: Literal["user"] = "user"  # a tag: required on the wire
    content: list[TextBlock]
    timestamp: FiniteNumber


class AssistantMessage(WireModel):
    """The model's turn: text and tool calls, with usage and why it stopped."""

    _omit_when_none: ClassVar = ("error_message",)
    role: Literal["assistant"] = "assistant"  # a tag: required on the wire
    content: list[AssistantContent]
    provider: WireStr
    model: WireStr
    usage: Usage
    stop_reason: StopReason
    timestamp: FiniteNumber
    error_message: Annotated[WireStr | None, NOT_NULL] = None  # optional fields come last

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls this turn declared, in declaration order."""
        return [block for block in self.content if isinstance(block, ToolCall)]


class ToolResultMessage(WireModel):
    """The result of one tool call, paired with it by ``tool_call_id``."""

    role: Literal["toolResult"] = "toolResult"  # a tag: required on the wire
    tool_call_id: NonBlankStr
    tool_name: NonBlankStr
    content: list[TextBlock]
    is_error: bool
    timestamp: FiniteNumber
    details: JsonValue = None  # optional fields come last, as the course writes them

    def _omitted(self, name: str, value: Any) -> bool:
        # ``details`` may be an explicit null (kept); it is omitted only when never given.
        return name == "details" and "details" not in self.model_fields_set


class SystemMessage(WireModel):
    """Prompt state: base ``content`` plus named ``sections`` (``None`` deletes one)."""

    _omit_when_none: ClassVar = ("sections",)
    role: Literal["system"] = "system"  # a tag: required on the wire
    content: WireStr
    timestamp: FiniteNumber
    sections: Annotated[dict[WireStr, WireStr | None] | None, NOT_NULL] = None  # optional, last


AgentMessage = Annotated[
    UserMessage | AssistantMessage | ToolResultMessage | SystemMessage,
    Field(discriminator="role"),
]
"""Any of the four messages, told apart by ``role``."""

MessageModel = UserMessage | AssistantMessage | ToolResultMessage | SystemMessage


# --- helpers ----------------------------------------------------------------


def text(value: str) -> TextContent:
    """Wrap a string as a text block."""
    return TextContent(text=value)


def user_message(value: str, *, timestamp: FiniteNumber) -> UserMessage:
    """A user message holding one text block."""
    return UserMessage(content=[text(value)], timestamp=timestamp)


def assistant_message(
    content: str | Sequence[TextContent | ToolCall],
    stop_reason: StopReason = "stop",
    **fields: Any,
) -> AssistantMessage:
    """An assistant message with teaching defaults for provider, model and usage.

    ``timestamp`` must be given in ``fields``; a string becomes one text block.
    """
    blocks: list[TextContent | ToolCall] = (
        [text(content)] if isinstance(content, str) else list(content)
    )
    fields.setdefault("provider", "course")
    fields.setdefault("model", "scripted")
    fields.setdefault("usage", Usage(input=0, output=0, total_tokens=0))
    return AssistantMessage(content=blocks, stop_reason=stop_reason, **fields)


_ABSENT: Any = object()


def tool_result(
    call: ToolCall,
    value: str,
    *,
    timestamp: FiniteNumber,
    is_error: bool = False,
    details: Any = _ABSENT,
) -> ToolResultMessage:
    """The result message answering ``call`` (id and tool name are taken from it)."""
    fields: dict[str, Any] = {}
    if details is not _ABSENT:
        fields["details"] = details
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=[text(value)],
        is_error=is_error,
        timestamp=timestamp,
        **fields,
    )


def system_message_text(message: SystemMessage) -> str:
    """The prompt text: content, then each non-null section, non-empty parts joined by a blank line."""
    sections = message.sections or {}
    parts = [message.content, *(value for value in sections.values() if value is not None)]
    return "\n\n".join(part for part in parts if part)


def text_of(message: MessageModel) -> str:
    """The readable text of a message (text blocks joined by a newline)."""
    if isinstance(message, SystemMessage):
        return system_message_text(message)
    return "\n".join(block.text for block in message.content if isinstance(block, TextContent))
