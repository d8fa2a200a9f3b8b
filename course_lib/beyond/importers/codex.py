"""Import a Codex CLI session file (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``).

Records are ``{timestamp, type, payload}``: ``session_meta`` (the header),
``turn_context`` (the model and settings of a turn), ``response_item`` (what
the model was sent or answered: ``message``, ``reasoning``, ``function_call``,
``function_call_output``, ``local_shell_call``, ``custom_tool_call``, ...),
``event_msg`` (the interface's events: token counts, aborted turns, rollbacks,
copies of messages) and ``compacted`` (a compaction's summary). The importer
keeps the pi importer's contract: strict course entries out, every change an
``ImportNote`` with its line and id, anything it cannot read an
``AgentImportError`` naming the line.

Ids and parents: Codex records have neither, so ids come from line numbers
(``L0007`` is line 7) and each entry hangs under the one before, as in a pi v1
file, except after a rollback (below).

What changes, and why:

* **One model response, one message.** A response is written as several
  items (reasoning, text, calls); consecutive assistant items merge into one
  assistant message until a result, a user message or the response's
  ``token_count`` event; a note names the merged lines. The ``token_count``
  (``last_token_usage``) becomes that message's usage.
* **Interface events** are not sent to a model: skipped and counted, except
  ``token_count`` (usage), ``turn_aborted`` (the turn's last message stops
  with ``aborted``) and ``thread_rolled_back`` (a rewind: the next records
  hang above the rolled-back turns, which stay in the file as a branch).
* **Compaction.** A ``compacted`` record becomes a ``CompactionEntry`` whose
  summary (``payload.message``) is mapped onto the seven fields;
  ``tokensBefore`` is the last ``token_count`` before it. Newer versions list
  a ``replacement_history``: the user messages in it that match ones on the
  path are what Codex kept, and the first kept entry follows the chapter's
  rule (``_agent_compaction``).
* **Repairs.** A call with no output (an interrupted turn) gets the synthetic
  error result pi would send, by the pi importer's repair step.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ...base.wire import DEFAULT_LIMITS, JsonLimits, loads_strict
from ._agent_base import (
    AgentImportError,
    AgentImportResult,
    AgentNoteKind,
    AgentSource,
    AgentUsage,
    counted,
    entry_timestamp,
    finish_drafts,
    is_number,
    non_blank,
    read_records,
    repair,
    require_missing_policy,
    tail_note,
    text_block,
)
from ._agent_compaction import CompactionPlan, resolve_compactions
from ._agent_summary import map_agent_summary
from ._base import NoteKind, NoteLog, shown
from ._pi_convert import Draft, image_placeholder
from ._pi_read import CommittedLines, read_regular_file, split_pi_bytes, split_pi_text
from ._pi_repair import MissingResultPolicy

__all__ = [
    "import_codex_bytes",
    "import_codex_session",
    "import_codex_text",
    "is_codex_record",
    "is_legacy_codex_header",
]

AGENT = "Codex"
PREFIX = "codex"
PROVIDER = "openai"
RECORD_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)
KEPT_WORDS = "only the user's own messages (none of the replies or tool results)"
# User messages Codex writes itself (context it injects); a rollback does not count them as turns.
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md")
_ASSISTANT_ITEMS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output")
_TEXT_PARTS = ("input_text", "output_text", "text")
_ARGUMENT_NESTING = 5  # levels an argument value sits below a course entry's top


def is_codex_record(record: Any) -> bool:
    """Whether a file's first record looks like Codex's (``{timestamp, type, payload}``)."""
    return (
        isinstance(record, dict)
        and record.get("type") in RECORD_TYPES
        and isinstance(record.get("payload"), dict)
    )


def is_legacy_codex_header(record: Any) -> bool:
    """Whether a record is the first line of Codex's legacy layout (``{"id", "timestamp", ...}``,
    no ``type``), which early versions wrote before the items themselves."""
    return (
        isinstance(record, dict)
        and "type" not in record
        and isinstance(record.get("id"), str)
        and isinstance(record.get("timestamp"), str)
    )


@dataclass
class _Turn:
    """The assistant message being assembled from one response's items."""

    draft: Draft
    lines: list[int] = field(default_factory=list)


@dataclass
class _Path:
    """The current path (entry ids), its user turns and their texts, for rollbacks and matching."""

    ids: list[str] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)  # positions of the user's own messages
    texts: dict[str, list[int]] = field(default_factory=dict)  # user text -> positions
    text_at: dict[int, str] = field(default_factory=dict)

    def push(self, entry_id: str, user_text: str | None, own_turn: bool) -> None:
        position = len(self.ids)
        self.ids.append(entry_id)
        if user_text is not None:
            self.texts.setdefault(user_text, []).append(position)
            self.text_at[position] = user_text
            if own_turn:
                self.turns.append(position)

    def truncate(self, length: int) -> None:
        """Back to the first ``length`` entries; each entry is removed once (amortised linear)."""
        while len(self.ids) > length:
            position = len(self.ids) - 1
            self.ids.pop()
            text = self.text_at.pop(position, None)
            if text is not None:
                self.texts[text].pop()
            if self.turns and self.turns[-1] == position:
                self.turns.pop()

    @property
    def tip(self) -> str | None:
        return self.ids[-1] if self.ids else None


class _Importer:
    """One pass over the records, with the path the next entry hangs on."""

    def __init__(self, notes: NoteLog, width: int, limits: JsonLimits) -> None:
        self.notes = notes
        self.width = width
        self.argument_limits = replace(
            limits, max_depth=max(0, limits.max_depth - _ARGUMENT_NESTING)
        )
        self.drafts: list[Draft] = []
        self.path = _Path()
        self.turn: _Turn | None = None
        self.turn_assistants: list[Draft] = []  # assistant messages since the last user message
        self.unpriced: Draft | None = None  # the newest assistant message without usage
        self.all_assistants: list[Draft] = []
        self.names: dict[str, str] = {}
        self.model = ""
        self.last_tokens: int | float | None = None
        self.plans: list[CompactionPlan] = []
        self.usage: dict[str, AgentUsage] = {}
        self.types: Counter[str] = Counter()
        self.session_id: str | None = None
        self.records = 0

    def _id(self, line: int) -> str:
        return "L" + str(line).zfill(self.width)

    def _add(self, wire: dict[str, Any], line: int, user_text: str | None = None) -> Draft:
        """Hang a new entry on the current path's tip."""
        draft = Draft({"id": self._id(line), "parentId": self.path.tip, **wire}, line)
        self.drafts.append(draft)
        own = user_text is not None and not user_text.startswith(_INJECTED)
        self.path.push(draft.id, user_text, own)
        return draft

    # --- records -----------------------------------------------------------------------

    def read(self, line: int, record: dict[str, Any]) -> None:
        """Turn one record into zero or one draft (or more blocks of the open message)."""
        self.records += 1
        kind = record["type"]
        payload = record.get("payload")
        subtype = payload.get("type") if isinstance(payload, dict) else None
        self.types[f"{kind}/{subtype}" if isinstance(subtype, str) else kind] += 1
        if kind not in RECORD_TYPES:
            self._close()
            self._skip(line, f"record type {kind!r}: unknown to the importer, skipped")
            return
        if not isinstance(payload, dict):
            raise AgentImportError(f"a {kind!r} record needs a payload object", line=line)
        ts = entry_timestamp(record.get("timestamp"), line=line, entry_id=self._id(line),
                             notes=self.notes)  # fmt: skip
        if kind == "response_item":
            self._response_item(line, payload, subtype, ts)
        elif kind == "event_msg":
            self._event(line, payload, subtype, ts)
        elif kind == "compacted":
            self._close()
            self._compacted(line, payload, ts)
        else:  # session_meta, turn_context
            self._close()
            if kind == "session_meta" and self.session_id is None:
                session_id = payload.get("id")
                self.session_id = session_id if isinstance(session_id, str) else None
            if kind == "turn_context":
                model = payload.get("model")
                self.model = model if isinstance(model, str) else self.model
            self._add({"timestamp": ts, "type": "metadata", "key": f"{PREFIX}.{kind}",
                       "value": payload}, line)  # fmt: skip

    def _skip(self, line: int, subject: str) -> None:
        self.notes.aggregate(AgentNoteKind.RECORD_SKIPPED, subject, line, None)

    def _response_item(self, line: int, payload: dict[str, Any], subtype: Any, ts: Any) -> None:
        if subtype == "message":
            self._message(line, payload, ts)
        elif subtype == "reasoning":
            self._reasoning(line, payload)
        elif subtype in _ASSISTANT_ITEMS:
            self._open(line, ts)["content"].append(self._call(line, payload, subtype))
        elif subtype in _OUTPUT_ITEMS:
            self._close()
            self._output(line, payload, ts)
        else:  # a web search and the like: inside a response, so the response stays open
            self._skip(
                line,
                f"response item {shown(subtype)}: no course form (no result to pair it with), "
                "skipped",
            )

    def _texts(self, content: Any, line: int, entry_id: str) -> list[dict[str, Any]]:
        """Message content (a string or a list of parts) as course text blocks."""
        if isinstance(content, str):
            return [text_block(content)]
        if not isinstance(content, list):
            raise AgentImportError(
                f"payload.content must be a string or a list of parts, got {shown(content)}",
                line=line,
            )
        blocks = []
        for position, part in enumerate(content):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind in _TEXT_PARTS and isinstance(text := part.get("text"), str):
                blocks.append(text_block(text))
            elif kind == "input_image":
                url = part.get("image_url") if isinstance(part, dict) else None
                data = url.partition(",")[2] if isinstance(url, str) else ""
                mime = (
                    url[5:].partition(";")[0]
                    if isinstance(url, str) and url.startswith("data:")
                    else None
                )
                placeholder = image_placeholder({"mimeType": mime, "data": data})
                self.notes.add(NoteKind.IMAGE_PLACEHOLDER, line, entry_id,
                               f"payload.content.{position}: {placeholder}")  # fmt: skip
                blocks.append(text_block(placeholder))
            else:
                name = kind if isinstance(kind, str) and kind else "unknown"
                self.notes.add(
                    NoteKind.BLOCK_PLACEHOLDER,
                    line,
                    entry_id,
                    f"payload.content.{position}: a {shown(kind)} part has no course form; "
                    f"replaced by the text '[{name} part omitted]'",
                )
                blocks.append(text_block(f"[{name} part omitted]"))
        return blocks

    def _message(self, line: int, payload: dict[str, Any], ts: Any) -> None:
        role = payload.get("role")
        if role == "assistant":
            blocks = self._texts(payload.get("content"), line, self._id(line))
            self._open(line, ts)["content"].extend(blocks)
            return
        self._close()
        blocks = self._texts(payload.get("content"), line, self._id(line))
        text = "\n".join(block["text"] for block in blocks)
        if role == "user":
            self.turn_assistants = []
            self._add({"timestamp": ts, "type": "message",
                       "message": {"role": "user", "content": blocks, "timestamp": ts}},
                      line, user_text=text)  # fmt: skip
        elif role in ("developer", "system"):
            self._add({"timestamp": ts, "type": "message",
                       "message": {"role": "system", "content": text, "timestamp": ts}}, line)  # fmt: skip
        else:
            self.notes.add(
                NoteKind.UNKNOWN_ROLE,
                line,
                self._id(line),
                f"message role {shown(role)} is unknown to the importer: kept as metadata "
                f"{PREFIX}.message",
            )
            self._add({"timestamp": ts, "type": "metadata", "key": f"{PREFIX}.message",
                       "value": payload}, line)  # fmt: skip

    def _reasoning(self, line: int, payload: dict[str, Any]) -> None:
        summary = payload.get("summary")
        parts = summary if isinstance(summary, list) else []
        characters = sum(
            len(part["text"])
            for part in parts
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
        entry = self.turn.draft.id if self.turn else None
        self.notes.add(
            NoteKind.THINKING_DROPPED,
            line,
            entry,
            f"a reasoning item ({characters:,} characters of summary) dropped: "
            "provider-specific, not re-sent",
        )

    def _open(self, line: int, ts: Any) -> dict[str, Any]:
        """The assistant message this response's items join (started here when none is open)."""
        if self.turn is None:
            message = {"role": "assistant", "content": [], "provider": PROVIDER,
                       "model": self.model, "usage": None, "stopReason": None, "timestamp": ts}  # fmt: skip
            draft = self._add({"timestamp": ts, "type": "message", "message": message}, line)
            self.turn = _Turn(draft)
            self.turn_assistants.append(draft)
            self.all_assistants.append(draft)
            self.unpriced = draft
        self.turn.lines.append(line)
        opened: dict[str, Any] = self.turn.draft.wire["message"]
        return opened

    def _call(self, line: int, payload: dict[str, Any], subtype: str) -> dict[str, Any]:
        """A call item as a course tool call; ``names`` learns its tool for the output."""
        call_id = payload.get("call_id")
        if subtype == "local_shell_call" and call_id is None:
            call_id = payload.get("id")
        name = "local_shell" if subtype == "local_shell_call" else payload.get("name")
        for key, value in (("call_id", call_id), ("name", name)):
            if not non_blank(value):
                raise AgentImportError(
                    f"{subtype}.{key} must be a non-blank string, got {shown(value)}", line=line
                )
        assert isinstance(call_id, str) and isinstance(name, str)
        self.names[call_id] = name
        block: dict[str, Any] = {"type": "toolCall", "id": call_id, "name": name}
        if subtype == "local_shell_call":
            block["arguments"] = payload.get("action")
        elif subtype == "custom_tool_call":
            block["arguments"] = {"input": payload.get("input")}
        else:
            block.update(self._arguments(payload.get("arguments"), line, call_id))
        return block

    def _arguments(self, value: Any, line: int, call_id: str) -> dict[str, Any]:
        """A call's ``arguments``: a JSON text, parsed (kept raw, with a note, when it is not JSON)."""
        if not isinstance(value, str):
            return {"arguments": value}
        try:
            return {"arguments": loads_strict(value, self.argument_limits)}
        except (ValueError, RecursionError) as error:
            self.notes.add(
                AgentNoteKind.ARGUMENTS_UNPARSED,
                line,
                self.turn.draft.id if self.turn else None,
                f"call {call_id!r}: its {len(value):,}-character argument text is not JSON "
                f"({shown(str(error))}): arguments set to {{}}, the text kept as rawArguments",
            )
            return {"arguments": {}, "rawArguments": value}

    def _output(self, line: int, payload: dict[str, Any], ts: Any) -> None:
        call_id = payload.get("call_id")
        if not non_blank(call_id):
            raise AgentImportError(
                f"{payload.get('type')}.call_id must be a non-blank string, got {shown(call_id)}",
                line=line,
            )
        output = payload.get("output")
        is_error = False
        if isinstance(output, dict):
            success = output.get("success")
            is_error = success is False
            output = output.get("content")
        blocks = self._texts("" if output is None else output, line, self._id(line))
        result = {"role": "toolResult", "toolCallId": call_id,
                  "toolName": self.names.get(call_id, "unknown"), "content": blocks,
                  "isError": is_error, "timestamp": ts}  # fmt: skip
        self._add({"timestamp": ts, "type": "message", "message": result}, line)

    def _close(self) -> None:
        """The open response ends: its stop reason is read from its content, its merge noted."""
        turn, self.turn = self.turn, None
        if turn is None:
            return
        message = turn.draft.wire["message"]
        calls = any(block["type"] == "toolCall" for block in message["content"])
        message["stopReason"] = "toolUse" if calls else "stop"
        self.notes.aggregate(
            AgentNoteKind.STOP_REASON_INFERRED,
            "Codex records no stop reason: read from the content (toolUse with a call, stop "
            "without; aborted after a turn_aborted event)",
            turn.draft.line,
            turn.draft.id,
        )
        if len(turn.lines) > 1:
            self.notes.add(
                AgentNoteKind.RECORDS_MERGED,
                turn.draft.line,
                turn.draft.id,
                f"{len(turn.lines)} response items of one model response merged into one "
                f"message: lines {', '.join(map(str, turn.lines))}",
            )

    # --- events ------------------------------------------------------------------------

    def _event(self, line: int, payload: dict[str, Any], subtype: Any, ts: Any) -> None:
        if subtype == "token_count":
            self._close()
            self._token_count(line, payload)
        elif subtype == "turn_aborted":
            self._close()
            self._aborted(line, payload)
        elif subtype == "thread_rolled_back":
            self._close()
            self._rollback(line, payload)
        else:
            self._skip(
                line,
                f"event_msg {shown(subtype)}: an interface event (never sent to a model), skipped",
            )

    def _token_count(self, line: int, payload: dict[str, Any]) -> None:
        info = payload.get("info")
        if info is None:
            return  # rate limits only
        last = info.get("last_token_usage") if isinstance(info, dict) else None
        if not isinstance(last, dict):
            raise AgentImportError("token_count.info.last_token_usage must be an object", line=line)
        counts = []
        for key in ("input_tokens", "cached_input_tokens", "output_tokens", "total_tokens"):
            value = last.get(key, 0)
            if not is_number(value) or value < 0:
                raise AgentImportError(
                    f"token_count last_token_usage.{key} must be a number >= 0, got {shown(value)}",
                    line=line,
                )
            counts.append(value)
        prompt, cached, output, total = counts
        self.last_tokens = total or prompt + output
        draft, self.unpriced = self.unpriced, None
        if draft is None:
            return
        draft.wire["message"]["usage"] = {"input": prompt, "output": output,
                                          "totalTokens": prompt + output}  # fmt: skip
        self.usage[draft.id] = AgentUsage(draft.id, line, prompt, output, cached, 0)
        self.notes.aggregate(
            AgentNoteKind.USAGE_MAPPED,
            "usage from the token_count event after the response: input = input_tokens (cached "
            "ones included), totalTokens = input + output",
            line,
            draft.id,
        )

    def _aborted(self, line: int, payload: dict[str, Any]) -> None:
        reason = payload.get("reason")
        target = self.turn_assistants[-1] if self.turn_assistants else None
        if target is not None:
            target.wire["message"]["stopReason"] = "aborted"
        where = f"its last message {target.id} stops with 'aborted'" if target else "no reply yet"
        self.notes.add(
            AgentNoteKind.TURN_INTERRUPTED,
            line,
            target.id if target else None,
            f"turn aborted ({shown(reason)}): {where}",
        )

    def _rollback(self, line: int, payload: dict[str, Any]) -> None:
        count = payload.get("num_turns")
        if not (isinstance(count, int) and not isinstance(count, bool) and count >= 0):
            raise AgentImportError(
                f"thread_rolled_back.num_turns must be a whole number >= 0, got {shown(count)}",
                line=line,
            )
        turns = self.path.turns
        on_path = len(turns)
        if count == 0:
            return
        position = (
            turns[-count] if count <= len(turns) else (turns[0] if turns else len(self.path.ids))
        )
        dropped = self.path.ids[position] if position < len(self.path.ids) else None
        self.path.truncate(position)
        self.turn_assistants = []
        self.unpriced = None
        self.notes.add(
            AgentNoteKind.REWOUND,
            line,
            dropped,
            f"Codex rolled back {count} turn(s)"
            + (f" (only {on_path} on the path)" if count > on_path else "")
            + f": later records hang under {self.path.tip or 'no entry (a new root)'}; the "
            f"rolled-back entries, from {dropped}, stay in the file as an abandoned branch",
        )

    # --- compaction --------------------------------------------------------------------

    def _compacted(self, line: int, payload: dict[str, Any], ts: Any) -> None:
        entry_id = self._id(line)
        text = payload.get("message")
        if text is None:
            text = ""
            self.notes.add(AgentNoteKind.SUMMARY_MISSING, line, entry_id,
                           "the compacted record has no message: an empty summary")  # fmt: skip
        if not isinstance(text, str):
            raise AgentImportError(
                f"compacted.message must be a string, got {shown(text)}", line=line
            )
        tokens = self.last_tokens
        if tokens is None:
            tokens = 0
            self.notes.add(AgentNoteKind.TOKENS_BEFORE_UNKNOWN, line, entry_id,
                           "no token_count before this compaction: tokensBefore set to 0")  # fmt: skip
        kept = self._kept(payload.get("replacement_history"), line)
        mapped = map_agent_summary(text, AGENT)
        for kind, detail in mapped.notes:
            self.notes.add(kind, line, entry_id, detail)
        self._add({"timestamp": ts, "type": "compaction", "summary": mapped.summary,
                   "firstKeptEntryId": None, "tokensBefore": tokens}, line)  # fmt: skip
        self.plans.append(
            CompactionPlan(
                entry_id=entry_id, line=line, agent=AGENT, prefix=PREFIX, trigger=None,
                tokens_before=tokens, tokens_after=None, agent_kept=kept,
                kept_words=KEPT_WORDS if kept else None, fields_filled=mapped.fields_filled,
                unmapped_items=mapped.unmapped_items,
            )
        )  # fmt: skip
        self.turn_assistants = []
        self.unpriced = None

    def _kept(self, history: Any, line: int) -> list[str]:
        """The path's user messages that ``replacement_history`` repeats (what Codex kept)."""
        if history is None:
            return []
        if not isinstance(history, list):
            raise AgentImportError(
                f"compacted.replacement_history must be a list, got {shown(history)}", line=line
            )
        kept: list[str] = []
        for item in history:
            if not (isinstance(item, dict) and item.get("type") == "message"
                    and item.get("role") == "user"):  # fmt: skip
                continue
            content = item.get("content")
            parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
            text = "\n".join(
                part["text"]
                for part in parts
                if isinstance(part, dict) and isinstance(part.get("text"), str)
            )
            positions = self.path.texts.get(text)
            if positions:
                kept.append(self.path.ids[positions[0]])
        return list(dict.fromkeys(kept))

    def finish(self) -> None:
        """Close the last response; give every message that never got a token count zeros."""
        self._close()
        for draft in self.all_assistants:
            if draft.wire["message"]["usage"] is None:
                draft.wire["message"]["usage"] = {"input": 0, "output": 0, "totalTokens": 0}
                self.notes.aggregate(
                    AgentNoteKind.USAGE_MISSING,
                    "assistant message with no token_count after it: counts set to 0",
                    draft.line,
                    draft.id,
                )


def import_codex_session(
    path: str | os.PathLike[str],
    *,
    on_missing_result: MissingResultPolicy = "repair",
    limits: JsonLimits = DEFAULT_LIMITS,
) -> AgentImportResult:
    """Read the Codex session file at ``path`` (read-only) and import it."""
    file = Path(path)
    try:
        data = read_regular_file(file)
    except OSError as error:
        raise AgentImportError(f"cannot read {file.name}: {error.strerror or error}") from None
    return _import(split_pi_bytes(data), on_missing_result, limits)


def import_codex_bytes(
    data: bytes,
    *,
    on_missing_result: MissingResultPolicy = "repair",
    limits: JsonLimits = DEFAULT_LIMITS,
) -> AgentImportResult:
    """Import the bytes of a Codex session file; only committed lines must be UTF-8."""
    return _import(split_pi_bytes(data), on_missing_result, limits)


def import_codex_text(
    text: str,
    *,
    on_missing_result: MissingResultPolicy = "repair",
    limits: JsonLimits = DEFAULT_LIMITS,
) -> AgentImportResult:
    """Import the text of a Codex session file; pure, so tests can build files in memory."""
    return _import(split_pi_text(text), on_missing_result, limits)


def _import(
    committed: CommittedLines, on_missing_result: MissingResultPolicy, limits: JsonLimits
) -> AgentImportResult:
    require_missing_policy(on_missing_result)
    notes = NoteLog()
    tail_note(committed, notes)
    importer = _Importer(notes, max(4, len(str(committed.last_record_line))), limits)
    for line, record in read_records(committed, limits):
        importer.read(line, record)
    importer.finish()
    if not importer.drafts:
        raise AgentImportError("no record that becomes an entry: nothing to import")
    leaf = importer.drafts[-1].id if importer.path.tip is None else importer.path.tip
    drafts, leaf = repair(importer.drafts, leaf, on_missing_result, notes, PREFIX)
    compactions = resolve_compactions(drafts, importer.plans, notes)
    entries = finish_drafts(drafts, limits)
    source = AgentSource(
        format=PREFIX,
        session_id=importer.session_id,
        records=importer.records,
        record_counts=counted(importer.types),
    )
    kept = {entry.id for entry in entries}
    return AgentImportResult(
        entries=entries,
        leaf_id=leaf,
        notes=notes.finish(),
        source=source,
        usage={key: value for key, value in importer.usage.items() if key in kept},
        compactions=compactions,
    )
