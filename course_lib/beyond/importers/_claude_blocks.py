"""Claude Code's message content (Anthropic content blocks) as course content, with notes.

Only what a model is sent again survives: text and tool calls for the
assistant, text for the user and for tool results. Thinking blocks are
dropped (provider-specific, as pi drops them); an image or a document
becomes a short text placeholder; any other block is named in a note.
"""

from __future__ import annotations

from typing import Any

from ._agent_base import AgentImportError, AgentNoteKind, is_number, non_blank, text_block
from ._base import NoteKind, NoteLog, shown
from ._pi_convert import image_placeholder

__all__ = ["TOOL_RESULT", "ClaudeBlocks"]

TOOL_RESULT = "tool_result"
_TEXT_KEYS = frozenset({"type", "text"})
_TOOL_USE_KEYS = frozenset({"type", "id", "name", "input"})
_RESULT_KEYS = frozenset({"type", "tool_use_id", "content", "is_error"})
_THINKING = ("thinking", "redacted_thinking")
_USAGE_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
_USAGE_KEYS = frozenset(_USAGE_COUNTS)


class ClaudeBlocks:
    """Converts the content of one file's records; every drop is written to ``notes``."""

    def __init__(self, notes: NoteLog) -> None:
        self.notes = notes

    def _placeholder(self, block: Any, where: str, line: int, entry_id: str) -> dict[str, Any]:
        """The text standing in for a user-side block with no course form, and its note."""
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "image" and isinstance(block, dict):
            source = block.get("source")
            source = source if isinstance(source, dict) else {}
            text = image_placeholder(
                {"mimeType": source.get("media_type"), "data": source.get("data")}
            )
            self.notes.add(NoteKind.IMAGE_PLACEHOLDER, line, entry_id, f"{where}: {text}")
            return text_block(text)
        name = kind if isinstance(kind, str) and kind else "unknown"
        placeholder = f"[{name} block omitted]"
        self.notes.add(
            NoteKind.BLOCK_PLACEHOLDER,
            line,
            entry_id,
            f"{where}: a {shown(kind)} block has no course form; replaced by the text "
            f"{placeholder!r}",
        )
        return text_block(placeholder)

    def text_blocks(
        self, content: Any, where: str, line: int, entry_id: str
    ) -> list[dict[str, Any]]:
        """A string, a list of text/image blocks, or null, as course text blocks."""
        if content is None:
            return []
        if isinstance(content, str):
            return [text_block(content)]
        if not isinstance(content, list):
            raise AgentImportError(
                f"{where} must be a string or a list of blocks, got {shown(content)}", line=line
            )
        blocks = []
        for position, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    self.notes.fields_dropped(block, _TEXT_KEYS, "text block field", line, entry_id)
                    blocks.append(text_block(text))
                    continue
            blocks.append(self._placeholder(block, f"{where}.{position}", line, entry_id))
        return blocks

    def user_blocks(
        self, content: Any, line: int, entry_id: str
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """A user record's content split into ``(tool_result blocks, course text blocks)``."""
        if isinstance(content, str):
            return [], [text_block(content)]
        if not isinstance(content, list):
            raise AgentImportError(
                f"message.content must be a string or a list of blocks, got {shown(content)}",
                line=line,
            )
        results: list[dict[str, Any]] = []
        texts: list[dict[str, Any]] = []
        for position, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == TOOL_RESULT:
                results.append(block)
            else:
                texts.extend(
                    self.text_blocks([block], f"message.content.{position}", line, entry_id)
                )
        return results, texts

    def tool_result(
        self, block: dict[str, Any], names: dict[str, str], line: int, entry_id: str, ts: Any
    ) -> dict[str, Any]:
        """A ``tool_result`` block as a course tool result (its name from the call it answers)."""
        call_id = block.get("tool_use_id")
        if not non_blank(call_id):
            raise AgentImportError(
                f"tool_result.tool_use_id must be a non-blank string, got {shown(call_id)}",
                line=line,
            )
        is_error = block.get("is_error")
        if is_error is None:
            is_error = False
        if not isinstance(is_error, bool):
            raise AgentImportError(
                f"tool_result.is_error must be true or false, got {shown(is_error)}", line=line
            )
        self.notes.fields_dropped(block, _RESULT_KEYS, "tool_result block field", line, entry_id)
        return {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": names.get(call_id, "unknown"),
            "content": self.text_blocks(
                block.get("content"), "tool_result.content", line, entry_id
            ),
            "isError": is_error,
            "timestamp": ts,
        }

    def assistant_blocks(
        self, content: Any, line: int, entry_id: str, names: dict[str, str]
    ) -> list[dict[str, Any]]:
        """Text and tool calls stay (``names`` learns each call's tool); the rest is noted."""
        if isinstance(content, str):
            return [text_block(content)]
        if not isinstance(content, list):
            raise AgentImportError(
                f"assistant message.content must be a list of blocks, got {shown(content)}",
                line=line,
            )
        blocks: list[dict[str, Any]] = []
        thinking = characters = 0
        for position, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(text := block.get("text"), str):
                self.notes.fields_dropped(block, _TEXT_KEYS, "text block field", line, entry_id)
                blocks.append(text_block(text))
            elif kind == "tool_use":
                blocks.append(self._tool_use(block, position, line, entry_id, names))
            elif kind in _THINKING:
                thinking += 1
                words = block.get("thinking") if isinstance(block, dict) else None
                characters += len(words) if isinstance(words, str) else 0
            else:
                self.notes.add(
                    NoteKind.BLOCK_DROPPED,
                    line,
                    entry_id,
                    f"message.content.{position}: a {shown(kind)} block has no course form "
                    "(not text or tool_use); dropped",
                )
        if thinking:
            self.notes.add(
                NoteKind.THINKING_DROPPED,
                line,
                entry_id,
                f"{thinking} thinking block{'s' if thinking > 1 else ''} ({characters:,} "
                "characters) dropped: provider-specific, not re-sent",
            )
        return blocks

    def _tool_use(
        self, block: dict[str, Any], position: int, line: int, entry_id: str, names: dict[str, str]
    ) -> dict[str, Any]:
        where = f"message.content.{position}"
        call_id, name = block.get("id"), block.get("name")
        for key, value in (("id", call_id), ("name", name)):
            if not non_blank(value):
                raise AgentImportError(
                    f"{where}.{key} must be a non-blank string, got {shown(value)}", line=line
                )
        if "input" not in block:
            raise AgentImportError(f"{where}.input is missing", line=line)
        assert isinstance(call_id, str) and isinstance(name, str)
        self.notes.fields_dropped(block, _TOOL_USE_KEYS, "tool_use block field", line, entry_id)
        names[call_id] = name
        return {"type": "toolCall", "id": call_id, "name": name, "arguments": block["input"]}

    def usage(self, usage: Any, line: int, entry_id: str) -> tuple[int | float, ...]:
        """``(input, output, cache read, cache write)`` from ``message.usage`` (absent counts: 0)."""
        if usage is None:
            self.notes.aggregate(
                AgentNoteKind.USAGE_MISSING,
                "assistant record without usage: counts set to 0",
                line,
                entry_id,
            )
            return (0, 0, 0, 0)
        if not isinstance(usage, dict):
            raise AgentImportError(
                f"message.usage must be an object, got {shown(usage)}", line=line
            )
        counts = tuple(0 if (value := usage.get(key)) is None else value for key in _USAGE_COUNTS)
        if not (set(map(type, counts)) <= {int} and min(counts) >= 0):  # whole counts: the rule
            for key, value in zip(_USAGE_COUNTS, counts, strict=True):
                if not is_number(value) or value < 0:
                    raise AgentImportError(
                        f"message.usage.{key} must be a number >= 0, got {shown(value)}", line=line
                    )
        self.notes.fields_dropped(usage, _USAGE_KEYS, "usage field", line, entry_id)
        self.notes.aggregate(
            AgentNoteKind.USAGE_MAPPED,
            "usage: input = input_tokens + cache_read_input_tokens + cache_creation_input_tokens "
            "(every token the model read), totalTokens = input + output",
            line,
            entry_id,
        )
        return tuple(counts)
