"""Turn one pi record into one course entry draft (a wire dict plus where it came from).

The mapping follows what pi itself sends to a model: a message that pi sends
becomes a course message (``bashExecution``, ``custom_message``,
``branch_summary`` and the roles ``custom``/``hookMessage``, ``branchSummary``,
``compactionSummary`` become user messages with the text pi would send); an
entry pi never sends (the header, ``model_change``, ``thinking_level_change``,
``session_info``, ``label``, ``custom``, an excluded bash run) becomes a
metadata entry ``pi.<type>`` whose value is the entry's remaining fields.

Drafts are plain dicts on purpose: the repair step still rewires parents and
removes blocks, and only the finished dict crosses ``parse_session_entry``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn, TypeGuard

from ...base.text_rules import is_blank
from ...base.wire import MAX_SAFE_INTEGER
from ._base import NoteKind, NoteLog, PiImportError, Tally, shown
from ._pi_summary import map_pi_summary

__all__ = [
    "Converter",
    "Draft",
    "FirstKeptRef",
    "bash_execution_text",
    "image_placeholder",
    "iso_to_millis",
]

# The wrappers pi puts around summaries it sends as user messages.
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"

_ENTRY_KEYS = ("type", "id", "parentId", "timestamp")
_NUMBER_TYPES = (int, float)
# What a JSON reader makes of a number: ``type(value) in _PLAIN_NUMBERS`` answers the usual
# case without a call; anything else (a bool, a subclass) still goes through ``_is_number``.
_PLAIN_NUMBERS = frozenset({int, float})
_ABSENT: Any = object()  # a key missing from a dict, told apart from a null

# The fields each course form takes from a pi value; ``NoteLog.fields_dropped`` notes the
# others. Sets, so that a value holding nothing else is recognised in one comparison.
_MESSAGE_ENTRY_FIELDS = frozenset({*_ENTRY_KEYS, "message"})
_CUSTOM_MESSAGE_ENTRY_FIELDS = frozenset({*_ENTRY_KEYS, "content"})
_BRANCH_SUMMARY_ENTRY_FIELDS = frozenset({*_ENTRY_KEYS, "summary"})
_COMPACTION_ENTRY_FIELDS = frozenset(
    {*_ENTRY_KEYS, "summary", "tokensBefore", "firstKeptEntryId", "firstKeptEntryIndex"}
)
_TEXT_BLOCK_FIELDS = frozenset({"type", "text"})
_TOOL_CALL_FIELDS = frozenset({"type", "id", "name", "arguments", "partialJson"})
_USER_FIELDS = frozenset({"role", "content", "timestamp"})  # also custom and hookMessage
_SUMMARY_MESSAGE_FIELDS = frozenset({"role", "summary", "timestamp"})
_ASSISTANT_FIELDS = frozenset(
    {"role", "content", "provider", "model", "usage", "stopReason", "errorMessage", "timestamp"}
)
_USAGE_FIELDS = frozenset({"input", "output", "totalTokens"})
_TOOL_RESULT_FIELDS = frozenset(
    {"role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"}
)
# The keys, in order, of a block the course would build itself (see ``Converter``).
_COURSE_TEXT_BLOCK = ("type", "text")
_COURSE_TOOL_CALL = ("type", "id", "name", "arguments")
_BASH_FIELDS = frozenset(
    {
        "role", "command", "output", "exitCode", "cancelled", "truncated",
        "fullOutputPath", "excludeFromContext", "timestamp",
    }
)  # fmt: skip

# The usage counts pi records, in the order they are checked; the first two are required.
_USAGE_COUNTS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
_REQUIRED_USAGE = ("input", "output")
_TOTAL_COMPUTED_NOTE = (
    NoteKind.USAGE_TOTAL_COMPUTED,
    "usage.totalTokens absent: computed as input + output + cacheRead + cacheWrite "
    "(pi's own fallback)",
)
_METADATA_TYPES = ("model_change", "thinking_level_change", "session_info", "label", "custom")
_STOP_REASONS = ("stop", "length", "toolUse", "error", "aborted")
_STOP_REASON_ALIASES = {
    "end_turn": "stop",
    "endTurn": "stop",
    "tool_use": "toolUse",
    "tool_calls": "toolUse",
    "max_tokens": "length",
    "maxTokens": "length",
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _is_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number: an int or a float, never a bool (which Python counts as an int)."""
    return isinstance(value, _NUMBER_TYPES) and not isinstance(value, bool)


def _is_countable(number: int | float) -> bool:
    """A token count the course can hold: finite, >= 0, an int at most 2**53 - 1.

    Compared without converting: ``math.isfinite(10**400)`` raises ``OverflowError``.
    """
    if isinstance(number, int):
        return 0 <= number <= MAX_SAFE_INTEGER
    return math.isfinite(number) and number >= 0  # the schema judges a float's range


def _shown_number(value: Any) -> str:
    """A value for a message; an int of hundreds of digits is described, not printed."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {len(str(abs(value)))} digits"
    return shown(value)


@dataclass(frozen=True)
class FirstKeptRef:
    """A pi compaction's first kept entry: an id (v2+) or an index among all records (v1)."""

    entry_id: str | None = None
    index: int | None = None


@dataclass(slots=True)
class Draft:
    """A course entry still being assembled: its wire dict and its source line.

    Slotted: one is made for every record, and the repair reads each several times.
    """

    wire: dict[str, Any]
    line: int | None  # None for entries the importer made up
    first_kept: FirstKeptRef | None = None  # compactions only, resolved after repairs

    @property
    def id(self) -> str:
        entry_id: str = self.wire["id"]
        return entry_id

    @property
    def parent_id(self) -> str | None:
        parent_id: str | None = self.wire["parentId"]
        return parent_id

    @parent_id.setter
    def parent_id(self, value: str | None) -> None:
        self.wire["parentId"] = value

    @property
    def role(self) -> str | None:
        """The course message role, or ``None`` for metadata and compaction entries."""
        return self.wire["message"]["role"] if self.wire["type"] == "message" else None


def iso_to_millis(value: Any, *, line: int, entry_id: str, notes: NoteLog) -> int | float:
    """An entry timestamp as Unix milliseconds (pi writes ISO strings; a number is kept)."""
    if not isinstance(value, str):  # the string, pi's own form, is asked about first
        if not _is_number(value):
            raise PiImportError(f"timestamp must be an ISO string, got {shown(value)}", line=line)
        if isinstance(value, float) and not math.isfinite(value):
            raise PiImportError("timestamp is not a finite number", line=line)
        return value
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise PiImportError(f"timestamp {shown(value)} is not an ISO date", line=line) from None
    if moment.tzinfo is None:
        notes.aggregate(
            NoteKind.TIMESTAMP_ASSUMED_UTC,
            "timestamp without a time zone read as UTC",
            line,
            entry_id,
        )
        moment = moment.replace(tzinfo=UTC)
    # ``(moment - _EPOCH) // _ONE_MILLISECOND``, spelled out: a timedelta's seconds and
    # microseconds are never negative, so this floors exactly as the division does, in a
    # third of its time (it runs once for every record of a file).
    delta = moment - _EPOCH
    return delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000


def image_placeholder(block: dict[str, Any]) -> str:
    """The short text standing in for an image: its type and the size of its base64 data."""
    mime = block.get("mimeType") if isinstance(block.get("mimeType"), str) else "unknown type"
    data = block.get("data")
    size = len(data) if isinstance(data, str) else 0
    return f"[image: {mime}, {size:,} bytes of base64]"


def bash_execution_text(message: dict[str, Any]) -> str:
    """The user text pi sends for a command the user ran with ``!`` (its own wording)."""
    text = f"Ran `{message.get('command', '')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


_BASH_STRINGS = ("output", "fullOutputPath")  # optional; ``command`` is required
_BASH_FLAGS = ("cancelled", "truncated", "excludeFromContext")


def _check_bash_fields(message: dict[str, Any], line: int) -> None:
    """A bash run's fields have the types pi writes, or the import stops naming the field.

    Why an error and not a repair: the text sent to a model is built from
    these fields, and a list or an object there would be sent as Python's
    rendering of it, a text pi never sent. Absent (or null) optional fields
    are fine: pi leaves out what it did not record.
    """
    command = message.get("command")
    if not isinstance(command, str):
        raise PiImportError(
            f"bashExecution message.command must be a string, got {shown(command)}", line=line
        )
    for key in _BASH_STRINGS:
        value = message.get(key)
        if value is not None and not isinstance(value, str):
            raise PiImportError(
                f"bashExecution message.{key} must be a string, got {shown(value)}", line=line
            )
    for key in _BASH_FLAGS:
        value = message.get(key)
        if value is not None and not isinstance(value, bool):
            raise PiImportError(
                f"bashExecution message.{key} must be true or false, got {shown(value)}",
                line=line,
            )
    code = message.get("exitCode")
    if code is not None and not _is_number(code):
        raise PiImportError(
            f"bashExecution message.exitCode must be a number, got {shown(code)}", line=line
        )


def _checked_counts(usage: dict[str, Any], line: int) -> tuple[Any, ...]:
    """input, output, cacheRead and cacheWrite, checked in that order, naming the first wrong one.

    The careful way, for a usage whose counts are not four plain numbers.
    """
    counts = []
    for key in _USAGE_COUNTS[:4]:
        value = usage.get(key, _ABSENT)
        if value is _ABSENT:
            if key in _REQUIRED_USAGE:
                raise PiImportError(f"message.usage.{key} is missing", line=line)
            value = 0  # the cache counts are absent in some providers' usage
        elif not _is_number(value):
            raise PiImportError(
                f"message.usage.{key} must be a number, got {shown(value)}", line=line
            )
        counts.append(value)
    return tuple(counts)


def _two_names(first: Any, second: Any) -> bool:
    """Both are non-blank strings: the id and name that pair a call with its result."""
    return (
        isinstance(first, str)
        and isinstance(second, str)
        and not is_blank(first)
        and not is_blank(second)
    )


def _text_block(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


class Converter:
    """Converts records of one file; every drop or placeholder is written to ``notes``.

    The common records (user text, assistant text and tool calls, tool results)
    take the shortest way: each check is made in place, and the helpers that
    name a field in an error, or word a note, run only when there is one to raise
    or to write. The checks, and their order, are the same on both ways.

    A text block or tool call that already holds exactly the keys the course
    would write, in the same order, is kept as the dict the reader built instead
    of being copied: a record comes fresh from the reader and is let go once
    converted, so the drafts still share no dict (``_parse_drafts`` relies on
    it), and a draft that later becomes a metadata value is written the same.
    """

    def __init__(self, notes: NoteLog) -> None:
        self.notes = notes
        # (the keys of an assistant message, the keys of its usage) -> the tally of its notes.
        self._assistant_tallies: dict[tuple[tuple[str, ...], tuple[str, ...]], Tally] = {}

    # --- shared helpers -------------------------------------------------------

    def _string(self, value: dict[str, Any], key: str, where: str, line: int) -> str:
        """A required id or name: blank would break pairing, so it is an error, not a guess."""
        found = value.get(key)
        if not isinstance(found, str) or is_blank(found):
            raise PiImportError(
                f"{where}.{key} must be a non-blank string, got {shown(found)}", line=line
            )
        return found

    def _content(self, content: Any, where: str, line: int, entry_id: str) -> list[dict[str, Any]]:
        """User or tool-result content (a string or text/image blocks) as course text blocks."""
        if isinstance(content, str):
            return [_text_block(content)]
        if not isinstance(content, list):
            raise PiImportError(f"{where}.content must be a string or a list of blocks", line=line)
        blocks: list[dict[str, Any]] = []
        images: list[str] = []
        for position, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(text := block.get("text"), str):
                if tuple(block) == _COURSE_TEXT_BLOCK:
                    blocks.append(block)  # already a course text block (see the class)
                    continue
                self.notes.fields_dropped(
                    block, _TEXT_BLOCK_FIELDS, "text block field", line, entry_id
                )
                blocks.append(_text_block(text))
            elif kind == "image":
                images.append(image_placeholder(block))
                blocks.append(_text_block(images[-1]))
            else:
                blocks.append(
                    self._placeholder(kind, f"{where}.content.{position}", line, entry_id)
                )
        if images:
            self.notes.add(
                NoteKind.IMAGE_PLACEHOLDER,
                line,
                entry_id,
                f"{len(images)} image{'s' if len(images) > 1 else ''} replaced by a text "
                f"placeholder: {'; '.join(images)}",
            )
        return blocks

    def _placeholder(self, kind: Any, where: str, line: int, entry_id: str) -> dict[str, Any]:
        """The text block standing in for a block with no course form, and its note."""
        name = kind if isinstance(kind, str) and kind else "unknown"
        placeholder = f"[{name} block omitted]"
        self.notes.add(
            NoteKind.BLOCK_PLACEHOLDER,
            line,
            entry_id,
            f"{where}: a {shown(kind)} block has no course form; "
            f"replaced by the text {placeholder!r}",
        )
        return _text_block(placeholder)

    def _message_timestamp(
        self, value: Any, fallback: int | float, line: int, entry_id: str
    ) -> int | float:
        """A message without milliseconds of its own takes the entry's, with a note."""
        if value is None:
            self.notes.aggregate(
                NoteKind.TIMESTAMP_FROM_ENTRY,
                "message without a timestamp: the entry's timestamp used",
                line,
                entry_id,
            )
            return fallback
        if not _is_number(value):
            raise PiImportError(
                f"message.timestamp must be a number, got {shown(value)}", line=line
            )
        return value

    # --- messages -------------------------------------------------------------

    def _user(self, message: dict[str, Any], line: int, entry_id: str, ts: Any) -> dict[str, Any]:
        """A user message: its content becomes text blocks (images become placeholders)."""
        if not message.keys() <= _USER_FIELDS:
            self.notes.fields_dropped(message, _USER_FIELDS, "user message field", line, entry_id)
        return {
            "role": "user",
            "content": self._content(message.get("content"), "message", line, entry_id),
            "timestamp": ts,
        }

    def _user_text(self, value: str, ts: Any) -> dict[str, Any]:
        """A user message of one text block (what pi sends for bash runs and summaries)."""
        return {"role": "user", "content": [_text_block(value)], "timestamp": ts}

    def _tool_call(
        self, block: dict[str, Any], position: int, line: int, entry_id: str
    ) -> dict[str, Any]:
        """A tool call block; a streamed-but-unfinished argument text is kept as ``rawArguments``."""
        call_id, name = block.get("id"), block.get("name")
        if not _two_names(call_id, name) or "arguments" not in block:
            self._refuse_tool_call(block, f"message.content.{position}", line)
        call: dict[str, Any] = {
            "type": "toolCall",
            "id": call_id,
            "name": name,
            "arguments": block["arguments"],
        }
        raw = block.get("partialJson")
        if isinstance(raw, str):
            call["rawArguments"] = raw
            self.notes.add(
                NoteKind.PARTIAL_ARGUMENTS,
                line,
                entry_id,
                f"tool call {call_id!r}: the {len(raw):,} characters pi streamed before the "
                "turn ended (partialJson) kept as rawArguments",
            )
        if not block.keys() <= _TOOL_CALL_FIELDS:
            self.notes.fields_dropped(
                block, _TOOL_CALL_FIELDS, "toolCall block field", line, entry_id
            )
        return call

    def _refuse_tool_call(self, block: dict[str, Any], where: str, line: int) -> NoReturn:
        """Name the first field of a tool call that is wrong: id, name, then arguments.

        A call without arguments has no meaning to pair, and a blank id or name
        would break the pairing, so each is an error, not a guess.
        """
        self._string(block, "id", where, line)
        self._string(block, "name", where, line)
        raise PiImportError(f"{where}.arguments is missing", line=line)

    def _assistant_content(self, content: Any, line: int, entry_id: str) -> list[dict[str, Any]]:
        """Text and tool calls stay; thinking and unknown blocks are dropped with a note."""
        if not isinstance(content, list):
            raise PiImportError("assistant message.content must be a list of blocks", line=line)
        blocks: list[dict[str, Any]] = []
        thinking_blocks = thinking_chars = 0
        for position, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(text := block.get("text"), str):
                if tuple(block) == _COURSE_TEXT_BLOCK:
                    blocks.append(block)  # already a course text block (see the class)
                    continue
                self.notes.fields_dropped(
                    block, _TEXT_BLOCK_FIELDS, "text block field", line, entry_id
                )
                blocks.append(_text_block(text))
            elif kind == "toolCall":
                if tuple(block) == _COURSE_TOOL_CALL and _two_names(block["id"], block["name"]):
                    blocks.append(block)  # already a course tool call (see the class)
                    continue
                blocks.append(self._tool_call(block, position, line, entry_id))
            elif kind == "thinking":
                thinking_blocks += 1
                thinking = block.get("thinking")
                thinking_chars += len(thinking) if isinstance(thinking, str) else 0
            else:
                self.notes.add(
                    NoteKind.BLOCK_DROPPED,
                    line,
                    entry_id,
                    f"message.content.{position}: a {shown(kind)} block has no course form "
                    "(not text or toolCall); dropped",
                )
        if thinking_blocks:
            self.notes.add(
                NoteKind.THINKING_DROPPED,
                line,
                entry_id,
                f"{thinking_blocks} thinking block{'s' if thinking_blocks > 1 else ''} "
                f"({thinking_chars:,} characters) dropped: provider-specific, not re-sent",
            )
        return blocks

    def _usage(self, usage: Any, line: int, entry_id: str) -> dict[str, Any]:
        """The course's three usage numbers; a missing total is computed as pi computes it."""
        if not isinstance(usage, dict):
            raise PiImportError("assistant message.usage must be an object", line=line)
        counts: tuple[Any, ...] = (
            usage.get("input"),
            usage.get("output"),
            usage.get("cacheRead", 0),  # the cache counts are absent in some providers' usage
            usage.get("cacheWrite", 0),
        )
        # Four plain numbers, the usual case, asked one by one: a set of their types costs more.
        if not (
            type(counts[0]) in _PLAIN_NUMBERS
            and type(counts[1]) in _PLAIN_NUMBERS
            and type(counts[2]) in _PLAIN_NUMBERS
            and type(counts[3]) in _PLAIN_NUMBERS
        ):
            counts = _checked_counts(usage, line)
        total = usage.get("totalTokens", _ABSENT)
        if total is _ABSENT:
            total = sum(counts)  # pi's own fallback, noted below
        elif not _is_number(total):
            raise PiImportError(
                f"message.usage.totalTokens must be a number, got {shown(total)}", line=line
            )
        return {"input": counts[0], "output": counts[1], "totalTokens": total}

    def _assistant_notes(
        self, message: dict[str, Any], usage: dict[str, Any], line: int, entry_id: str
    ) -> None:
        """Note (aggregated) a usage total computed by pi's fallback and the fields with no course
        field, of the usage and then of the message.

        Why together: pi writes ``api`` and ``usage.cost`` (and more) into every assistant
        message, and all of these notes depend only on the keys of the message and of its
        usage, so each pair of key lists is worked out once and counted with one call.
        """
        keys = (tuple(message), tuple(usage))
        tally = self._assistant_tallies.get(keys)
        if tally is None:
            subjects = [] if "totalTokens" in usage else [_TOTAL_COMPUTED_NOTE]
            subjects += [
                (NoteKind.FIELD_DROPPED, f"assistant usage field '{key}'")
                for key in usage
                if key not in _USAGE_FIELDS
            ]
            subjects += [
                (NoteKind.FIELD_DROPPED, f"assistant message field '{key}'")
                for key in message
                if key not in _ASSISTANT_FIELDS
            ]
            tally = self._assistant_tallies[keys] = self.notes.tally(subjects, line, entry_id)
        tally.count(line)

    def _stop_reason(self, value: Any, line: int, entry_id: str) -> str:
        """A provider's spelling of a stop reason mapped to the course's, with a note.

        Called only for a value that is not already one of the five.
        """
        mapped = _STOP_REASON_ALIASES.get(value) if isinstance(value, str) else None
        if mapped is None:
            raise PiImportError(
                f"assistant stopReason {shown(value)} is not one of {', '.join(_STOP_REASONS)}",
                line=line,
            )
        self.notes.add(
            NoteKind.STOP_REASON_MAPPED, line, entry_id, f"stopReason {value!r} read as {mapped!r}"
        )
        return mapped

    def _assistant(
        self, message: dict[str, Any], line: int, entry_id: str, ts: Any
    ) -> dict[str, Any]:
        """An assistant message with the course's fields; the rest is noted as dropped."""
        content = self._assistant_content(message.get("content"), line, entry_id)
        provider, model = message.get("provider"), message.get("model")
        if not isinstance(provider, str) or not isinstance(model, str):
            self._plain_string(message, "provider", line)
            self._plain_string(message, "model", line)
        usage: Any = message.get("usage")  # an object: ``_usage`` refuses anything else
        course_usage = self._usage(usage, line, entry_id)
        stop_reason = message.get("stopReason")
        if not (isinstance(stop_reason, str) and stop_reason in _STOP_REASONS):
            stop_reason = self._stop_reason(stop_reason, line, entry_id)
        wire: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "provider": provider,
            "model": model,
            "usage": course_usage,
            "stopReason": stop_reason,
        }
        error = message.get("errorMessage")
        if isinstance(error, str):
            wire["errorMessage"] = error
        elif error is not None:
            raise PiImportError(
                f"message.errorMessage must be a string, got {shown(error)}", line=line
            )
        wire["timestamp"] = ts
        self._assistant_notes(message, usage, line, entry_id)
        return wire

    def _plain_string(self, value: dict[str, Any], key: str, line: int) -> str:
        """A string field that may be empty (provider, model, summary)."""
        found = value.get(key)
        if not isinstance(found, str):
            raise PiImportError(f"message.{key} must be a string, got {shown(found)}", line=line)
        return found

    def _tool_result(
        self, message: dict[str, Any], line: int, entry_id: str, ts: Any
    ) -> dict[str, Any]:
        """A tool result; ``details`` is kept whenever pi recorded it, even as null."""
        is_error = message.get("isError", False)
        if not isinstance(is_error, bool):
            raise PiImportError(
                f"message.isError must be true or false, got {shown(is_error)}", line=line
            )
        call_id, tool_name = message.get("toolCallId"), message.get("toolName")
        if not _two_names(call_id, tool_name):  # one of them is wrong: the first is named
            self._string(message, "toolCallId", "message", line)
            self._string(message, "toolName", "message", line)
        wire: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": tool_name,
            "content": self._content(message.get("content"), "message", line, entry_id),
        }
        if "details" in message:
            wire["details"] = message["details"]
        wire["isError"] = is_error
        wire["timestamp"] = ts
        if not message.keys() <= _TOOL_RESULT_FIELDS:
            self.notes.fields_dropped(
                message, _TOOL_RESULT_FIELDS, "toolResult message field", line, entry_id
            )
        return wire

    def message(
        self, message: Any, line: int, entry_id: str, entry_ts: int | float
    ) -> tuple[dict[str, Any] | None, tuple[str, Any] | None]:
        """A pi message as ``(course message, None)`` or, when never sent, ``(None, metadata)``."""
        if not isinstance(message, dict) or not isinstance(role := message.get("role"), str):
            raise PiImportError("message entry has no message with a string role", line=line)
        ts = message.get("timestamp")
        if type(ts) not in _PLAIN_NUMBERS:  # absent, or not a number: a note or an error
            ts = self._message_timestamp(ts, entry_ts, line, entry_id)
        # The roles in the order a session holds most of them.
        if role == "assistant":
            return self._assistant(message, line, entry_id, ts), None
        if role == "toolResult":
            return self._tool_result(message, line, entry_id, ts), None
        if role == "user":
            return self._user(message, line, entry_id, ts), None
        return self._other_message(message, role, line, entry_id, ts)

    def _other_message(
        self, message: dict[str, Any], role: str, line: int, entry_id: str, ts: Any
    ) -> tuple[dict[str, Any] | None, tuple[str, Any] | None]:
        """The roles pi adds to the model's three: bash runs, extension messages, summaries."""
        if role == "bashExecution":
            _check_bash_fields(message, line)
            if message.get("excludeFromContext"):
                return None, ("pi.message.bashExecution", message)
            self.notes.fields_dropped(
                message, _BASH_FIELDS, "bashExecution message field", line, entry_id
            )
            return self._user_text(bash_execution_text(message), ts), None
        if role in ("custom", "hookMessage"):
            self.notes.fields_dropped(
                message, _USER_FIELDS, f"{role} message field", line, entry_id
            )
            content = self._content(message.get("content"), "message", line, entry_id)
            return {"role": "user", "content": content, "timestamp": ts}, None
        if role in ("branchSummary", "compactionSummary"):
            summary = self._plain_string(message, "summary", line)
            prefix, suffix = (
                (BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX)
                if role == "branchSummary"
                else (COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX)
            )
            self.notes.fields_dropped(
                message, _SUMMARY_MESSAGE_FIELDS, f"{role} message field", line, entry_id
            )
            return self._user_text(prefix + summary + suffix, ts), None
        self.notes.add(
            NoteKind.UNKNOWN_ROLE,
            line,
            entry_id,
            f"message role {role!r} is unknown to the importer (pi does not send it either): "
            "kept as metadata pi.message." + role,
        )
        return None, (f"pi.message.{role}", message)

    # --- entries --------------------------------------------------------------

    def convert(
        self, record: dict[str, Any], line: int, entry_id: str, parent_id: str | None
    ) -> Draft:
        """The draft for one pi record (header included), with the given course id and parent."""
        kind = record["type"]
        ts = iso_to_millis(record.get("timestamp"), line=line, entry_id=entry_id, notes=self.notes)
        if kind != "message":
            return self._other_entry(
                kind, record, line, {"id": entry_id, "parentId": parent_id, "timestamp": ts}
            )
        # A message entry, most of a file: its wire is built in one go.
        if not record.keys() <= _MESSAGE_ENTRY_FIELDS:
            self.notes.fields_dropped(
                record, _MESSAGE_ENTRY_FIELDS, "message entry field", line, entry_id
            )
        message, metadata = self.message(record.get("message"), line, entry_id, ts)
        wire: dict[str, Any] = {"id": entry_id, "parentId": parent_id, "timestamp": ts}
        if message is not None:
            wire["type"] = "message"
            wire["message"] = message
        else:
            assert metadata is not None
            wire["type"] = "metadata"
            wire["key"], wire["value"] = metadata
        return Draft(wire, line)

    def _other_entry(
        self, kind: str, record: dict[str, Any], line: int, base: dict[str, Any]
    ) -> Draft:
        """The draft of a record that is not a message entry (``base``: its id, parent, time)."""
        entry_id = base["id"]
        if kind == "session":
            rest = {k: v for k, v in record.items() if k not in ("type", "timestamp")}
            return Draft(
                wire={**base, "type": "metadata", "key": "pi.session", "value": rest}, line=line
            )
        if kind in _METADATA_TYPES:
            return self._metadata(base, f"pi.{kind}", record, line)
        if kind == "custom_message":
            # customType, display and details are for extensions and the TUI, never sent.
            self.notes.fields_dropped(
                record,
                _CUSTOM_MESSAGE_ENTRY_FIELDS,
                "custom_message entry field",
                line,
                entry_id,
            )
            content = self._content(record.get("content"), "entry", line, entry_id)
            message = {"role": "user", "content": content, "timestamp": base["timestamp"]}
            return Draft(wire={**base, "type": "message", "message": message}, line=line)
        if kind == "branch_summary":
            return self._branch_summary(base, record, line)
        if kind == "compaction":
            return self._compaction(base, record, line)
        self.notes.add(
            NoteKind.UNKNOWN_ENTRY_TYPE,
            line,
            entry_id,
            f"entry type {kind!r} is unknown to the importer (pi does not send it either): "
            f"kept as metadata pi.{kind}",
        )
        return self._metadata(base, f"pi.{kind}", record, line)

    def _metadata(self, base: dict[str, Any], key: str, record: dict[str, Any], line: int) -> Draft:
        """A metadata entry ``key`` whose value is the record minus the entry fields."""
        rest = {k: v for k, v in record.items() if k not in _ENTRY_KEYS}
        return Draft(wire={**base, "type": "metadata", "key": key, "value": rest}, line=line)

    def _branch_summary(self, base: dict[str, Any], record: dict[str, Any], line: int) -> Draft:
        """The user message pi sends for a branch summary (nothing for an empty one)."""
        summary = record.get("summary")
        if not isinstance(summary, str):
            raise PiImportError(
                f"branch_summary.summary must be a string, got {shown(summary)}", line=line
            )
        if not summary:
            self.notes.add(
                NoteKind.EMPTY_BRANCH_SUMMARY,
                line,
                base["id"],
                "empty branch summary: pi sends nothing for it, kept as metadata pi.branch_summary",
            )
            return self._metadata(base, "pi.branch_summary", record, line)
        self.notes.fields_dropped(
            record, _BRANCH_SUMMARY_ENTRY_FIELDS, "branch_summary entry field", line, base["id"]
        )
        text = BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX
        message = self._user_text(text, base["timestamp"])
        return Draft(wire={**base, "type": "message", "message": message}, line=line)

    def _compaction(self, base: dict[str, Any], record: dict[str, Any], line: int) -> Draft:
        """A compaction draft; its first kept id is resolved once the tree is repaired."""
        entry_id = base["id"]
        summary = record.get("summary")
        if not isinstance(summary, str):
            raise PiImportError(
                f"compaction.summary must be a string, got {shown(summary)}", line=line
            )
        tokens = record.get("tokensBefore")
        if not _is_number(tokens) or not _is_countable(tokens):
            raise PiImportError(
                "compaction.tokensBefore must be a number from 0 to 2**53 - 1, "
                f"got {_shown_number(tokens)}",
                line=line,
            )
        first_kept = self._first_kept(record, line)
        mapping = map_pi_summary(summary)
        for kind, detail in mapping.notes:
            self.notes.add(kind, line, entry_id, detail)
        self.notes.fields_dropped(
            record, _COMPACTION_ENTRY_FIELDS, "compaction entry field", line, entry_id
        )
        wire = {
            **base,
            "type": "compaction",
            "summary": mapping.summary,
            "firstKeptEntryId": None,  # resolved once the tree is repaired
            "tokensBefore": tokens,
        }
        return Draft(wire=wire, line=line, first_kept=first_kept)

    def _first_kept(self, record: dict[str, Any], line: int) -> FirstKeptRef:
        """Where pi keeps from: an id (v2+) or a record index (v1)."""
        kept_id = record.get("firstKeptEntryId")
        if isinstance(kept_id, str) and not is_blank(kept_id):
            return FirstKeptRef(entry_id=kept_id)
        index = record.get("firstKeptEntryIndex")
        if isinstance(index, int) and not isinstance(index, bool) and index >= 0:
            return FirstKeptRef(index=index)
        raise PiImportError(
            "compaction has neither a firstKeptEntryId nor a firstKeptEntryIndex >= 0", line=line
        )
