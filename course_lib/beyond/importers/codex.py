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

Codex's other shapes, as students' folders hold them:

* **Text only an event carries.** Codex writes a user's message twice, as a
  ``response_item`` message (what the model read) and as a ``user_message``
  event (what the interface showed), in either order, close together. Forked
  and archived rollouts may hold the event alone. The two are paired by text
  within a turn: the user-side records since the model last answered (and, for
  an event written after the model began, the items of the turn before that no
  event claimed). An event's text pairs with an item whose own text parts,
  joined or one of them, are that text (stripped; image tags such as ``<image
  name=...>`` and the early ``## My request for Codex:`` heading left out): a
  wide match, as a missed pair would send the user's message twice, where a
  wrong one only leaves an event unused. An event that pairs with an item is
  the item's copy, skipped; one that pairs with none becomes the user message
  (a note of kind ``event_text_used``), placed after the turn's other
  user-side records, where the model read it, since the item that would say
  where is missing. ``agent_message`` events without an item are *not* made
  assistant messages: Codex leaves some of its answers out of what it sends
  again (a fork keeps only final answers, an event stays for each), so an
  event alone is no evidence the model was sent the text; nor can one event
  rebuild a response (its calls, its usage, where it stopped).
* **Forked sessions.** A session forked from another starts with a copy of
  that session's history. A forked subagent's file, as recognised here::

      {"type": "session_meta", "payload": {"id": <child>, "forked_from_id": <parent>,
        "source": {"subagent": {"thread_spawn": {"parent_thread_id": <parent>, ...}}}}}
      {"type": "session_meta", "payload": {"id": <parent>, ...}}    the copy begins
      ... the parent's items and events ...
      {"type": "response_item", "payload": {"type": "function_call",
        "name": "spawn_agent", "call_id": <call>, ...}}               the copy ends
      {"type": "turn_context", ...}, the subagent's task, its own turn ...

  The first ``session_meta`` makes it a fork: a ``forked_from_id`` (a copy
  follows), or a ``thread_spawn`` source (a subagent) whose parent's own
  ``session_meta`` is copied in after it (a subagent started fresh has
  neither, and no copy). The copy is kept: it is what the subagent's model
  was sent (a ``forked_history`` note says where it comes from). Its last item
  is the parent's ``spawn_agent`` call, the call that created this subagent,
  which some versions copy without its output. That call was not
  interrupted: its result is this session itself. So when the subagent's own
  turn begins (a ``turn_context``, a ``session_meta``, a user or developer
  message) while that call has no output, the import adds a result that says
  so (``<call>.forked``, not an error, right under the call) with a
  ``forked_history`` note, instead of the error result a missing output gets.
  A spawn call the model itself goes on from, or that an aborted turn leaves,
  is an ordinary missing result; a copy that holds the output (versions that
  wrote one) is read as it is.
* **The legacy layout.** Early versions wrote a first line ``{"id",
  "timestamp", "instructions", ...}`` with no ``type``, then the response items
  themselves (``{"type": "message", ...}``, ``{"type": "function_call",
  ...}``) and ``{"record_type": "state"}`` lines. The first line is read as the
  ``session_meta`` (the session id, a ``codex.session_meta`` metadata entry),
  each item as a ``response_item``, and state lines (Codex's bookkeeping) are
  skipped and counted; the items carry no time, so every entry takes the
  first line's (an aggregated note). One ``legacy_layout`` note per file.
* **Injected context.** Codex writes some user messages itself: the
  environment (``<environment_context>``), the user's instructions
  (``<user_instructions>``) and AGENTS.md (``# AGENTS.md instructions for
  ...``). They stay user messages, as the model received them as user turns,
  so the chapter counts each as the start of a user interaction; an
  ``injected_context`` note names each such entry and its kind.
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
    collector_paused,
    counted,
    entry_timestamp,
    finish_drafts,
    is_number,
    line_bounds,
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
from ._codex_events import TEXT_PARTS, Heard, Window, match_keys
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
# The note on each, made once (not for each message: Codex injects them into every session).
_INJECTED_DETAILS = {
    tag: f"a user message Codex wrote itself, the {shown(tag)} context: kept as a user message, "
    "as the model received it as a user turn, so the chapter counts it as the start of a user "
    "interaction"
    for tag in _INJECTED
}
_USER_SIDE_ROLES = ("user", "developer", "system")  # messages the model reads, never writes
_SPAWN = "spawn_agent"  # the tool that starts a subagent
_USER_EVENT_SKIPPED = (
    "event_msg 'user_message': an interface event (never sent to a model), skipped"
)
_STATE_SKIPPED = "record_type 'state' line (bookkeeping of Codex, never sent to a model): skipped"
_LEGACY_TIME = "legacy item without a timestamp: the timestamp of the header used"
_ASSISTANT_ITEMS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output")
_TOKEN_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "total_tokens")
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


def _blank_error(item: Any, key: str, value: Any, line: int) -> AgentImportError:
    """The error for an item whose ``key`` (a call id, a tool name) is not a non-blank string."""
    return AgentImportError(
        f"{item}.{key} must be a non-blank string, got {shown(value)}", line=line
    )


@dataclass(slots=True)
class _Turn:
    """The assistant message being assembled from one response's items."""

    draft: Draft
    content: list[dict[str, Any]]  # the message's content, which the items join
    lines: list[int] = field(default_factory=list)
    calls: bool = False  # a call joined: the message stops with toolUse

    def call(self, block: dict[str, Any]) -> None:
        """A tool call joins the message (remembered, so closing need not look for one)."""
        self.content.append(block)
        self.calls = True


@dataclass
class _Spawn:
    """A ``spawn_agent`` call in a subagent's copied history, until its turn shows its fate."""

    call_id: str
    line: int
    timestamp: Any
    answered: bool = False  # the file holds its output


@dataclass
class _Fork:
    """What the first ``session_meta`` says of a session forked from another."""

    parent: str  # the parent's session id (a subagent's) or the one it was forked from
    subagent: bool  # started by the parent's spawn_agent call
    copied: bool  # the file says it opens with a copy (forked_from_id, the parent's header)
    spawn: _Spawn | None = None
    done: bool = False  # the copy's spawn call is settled: later ones are the subagent's own


@dataclass
class _Path:
    """The current path (entry ids), its user turns and their texts, for rollbacks and matching."""

    ids: list[str] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)  # positions of the user's own messages
    texts: dict[str, list[int]] = field(default_factory=dict)  # user text -> positions
    text_at: dict[int, str] = field(default_factory=dict)
    tip: str | None = None  # the last id, kept at hand: every new entry hangs under it

    def push(self, entry_id: str) -> None:
        """An entry joins the path."""
        self.ids.append(entry_id)
        self.tip = entry_id

    def push_user(self, entry_id: str, text: str, own_turn: bool) -> None:
        """A user message joins the path: its text, and its turn if it is the user's own."""
        position = len(self.ids)
        self.push(entry_id)
        self.texts.setdefault(text, []).append(position)
        self.text_at[position] = text
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
        self.tip = self.ids[-1] if self.ids else None


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
        # Records of each type: a plain dict, as ``+=`` on a Counter costs twice as much.
        self.types: dict[str, int] = {}
        self.session_id: str | None = None
        self.records = 0
        self.window = Window()
        self.fork: _Fork | None = None
        self.legacy_time: int | float | None = None  # the legacy layout's header time
        self.metas = False  # a session_meta was read: later ones are copies
        self._id_pattern = f"L%0{width}d"  # made once: ``_id`` runs for nearly every record

    def _id(self, line: int) -> str:
        """The entry id of a line: ``L0007`` is line 7, zero-padded so ids sort like lines."""
        return self._id_pattern % line

    def let_go(self) -> None:
        """Drop every reference to the drafts, so each is freed once it becomes an entry."""
        self.drafts = []
        self.turn = self.unpriced = None
        self.turn_assistants = []
        self.all_assistants = []

    def _add(
        self, wire: dict[str, Any], entry_id: str, line: int | None, user_text: str | None = None
    ) -> Draft:
        """Hang a new entry on the current path's tip (``line`` None: one the importer made up).

        The record's id comes in made: the caller has it already (``read`` makes it
        once per record, for the timestamp's notes too).
        """
        path = self.path
        draft = Draft({"id": entry_id, "parentId": path.tip, **wire}, line)
        self.drafts.append(draft)
        if user_text is None:
            path.push(entry_id)
            return draft
        own = not user_text.startswith(_INJECTED)
        path.push_user(entry_id, user_text, own)
        if not own:
            self._injected(line, entry_id, user_text)
        return draft

    def _injected(self, line: int | None, entry_id: str, text: str) -> None:
        """Say which context Codex injected as this user message, and why it stays one."""
        for tag, detail in _INJECTED_DETAILS.items():
            if text.startswith(tag):
                self.notes.add(AgentNoteKind.INJECTED_CONTEXT, line, entry_id, detail)
                return

    # --- records -----------------------------------------------------------------------

    def read(self, line: int, record: dict[str, Any]) -> None:
        """Turn one record into zero or one draft (or more blocks of the open message)."""
        self.records += 1
        kind = record.get("type")
        if not isinstance(kind, str):
            self._untyped(line, record)
            return
        if self.legacy_time is not None:
            self._legacy_item(line, record, kind)
            return
        payload = record.get("payload")
        subtype = payload.get("type") if isinstance(payload, dict) else None
        name = f"{kind}/{subtype}" if isinstance(subtype, str) else kind
        self.types[name] = self.types.get(name, 0) + 1
        if kind not in RECORD_TYPES:
            self._settle_spawn(user_side=False)
            self._close()
            self._skip(line, f"record type {kind!r}: unknown to the importer, skipped")
            return
        if not isinstance(payload, dict):
            raise AgentImportError(f"a {kind!r} record needs a payload object", line=line)
        entry_id = self._id(line)  # made once: the timestamp's notes and the entry both use it
        ts = entry_timestamp(record.get("timestamp"), line=line, entry_id=entry_id,
                             notes=self.notes)  # fmt: skip
        if kind == "event_msg":
            self._event(line, payload, subtype, ts)
            return
        if kind == "response_item" and subtype in _OUTPUT_ITEMS:
            self._response_item(line, entry_id, payload, subtype, ts)  # the spawn's output, maybe
            return
        if self.fork is not None:  # only a fork's copied spawn call waits on the next record
            user_side = kind in ("session_meta", "turn_context") or (
                subtype == "message" and payload.get("role") in _USER_SIDE_ROLES
            )
            self._settle_spawn(user_side=user_side)
        if kind == "response_item":
            self._response_item(line, entry_id, payload, subtype, ts)
        elif kind == "compacted":
            self._end_turn()
            self._compacted(line, entry_id, payload, ts)
        else:
            self._header(line, entry_id, kind, payload, ts)

    def _header(
        self, line: int, entry_id: str, kind: str, payload: dict[str, Any], ts: Any
    ) -> None:
        """A session_meta or turn_context record: a metadata entry, and what it says."""
        if kind == "session_meta":
            self._end_turn()
            self._session_meta(line, payload)
        else:
            self._close()
            model = payload.get("model")
            self.model = model if isinstance(model, str) else self.model
        self._add({"timestamp": ts, "type": "metadata", "key": f"{PREFIX}.{kind}",
                   "value": payload}, entry_id, line)  # fmt: skip

    def _session_meta(self, line: int, payload: dict[str, Any]) -> None:
        """The session's id and, if forked, where from; a later one may be the parent's copy."""
        if self.metas:
            fork = self.fork
            if fork and not fork.copied and payload.get("id") == fork.parent:
                fork.copied = True  # the parent's own header, copied in: its history follows
                self._fork_note(line)
            return
        self.metas = True
        session_id = payload.get("id")
        self.session_id = session_id if isinstance(session_id, str) else None
        source = payload.get("source")
        subagent = source.get("subagent") if isinstance(source, dict) else None
        spawn = subagent.get("thread_spawn") if isinstance(subagent, dict) else None
        parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
        forked_from = payload.get("forked_from_id")
        if non_blank(parent) or non_blank(forked_from):
            self.fork = _Fork(
                parent=parent if non_blank(parent) else str(forked_from),
                subagent=non_blank(parent),
                copied=non_blank(forked_from),
            )
            if self.fork.copied:
                self._fork_note(line)

    def _fork_note(self, line: int) -> None:
        """Say that the history from here is a copy of another session's, and why it is kept."""
        assert self.fork is not None
        parent = shown(self.fork.parent)
        detail = (
            f"the session of a subagent started by the session {parent}: the history it opens "
            "with is a copy of the parent history, kept, as it was sent to the model of the "
            "subagent"
            if self.fork.subagent
            else f"a session forked from the session {parent}: the history it opens with is a "
            "copy of the history of that session, kept, as it was sent to the model of this "
            "session"
        )
        self.notes.add(AgentNoteKind.FORKED_HISTORY, line, self._id(line), detail)

    def _skip(self, line: int, subject: str) -> None:
        self.notes.aggregate(AgentNoteKind.RECORD_SKIPPED, subject, line, None)

    # --- the legacy layout -------------------------------------------------------------

    def _untyped(self, line: int, record: dict[str, Any]) -> None:
        """A line without a string ``type``: the legacy header, a state line, or an error."""
        if self.records == 1 and is_legacy_codex_header(record):
            self._legacy_header(line, record)
        elif record.get("record_type") == "state":
            self.types["state"] = self.types.get("state", 0) + 1
            self._skip(line, _STATE_SKIPPED)
        else:
            raise AgentImportError("record has no string 'type'", line=line)

    def _legacy_header(self, line: int, record: dict[str, Any]) -> None:
        """The legacy layout's first line: the session's id and time, as its session_meta."""
        self.types["header"] = self.types.get("header", 0) + 1
        entry_id = self._id(line)
        ts = entry_timestamp(record["timestamp"], line=line, entry_id=entry_id, notes=self.notes)
        self.legacy_time = ts
        self.session_id = record["id"]
        self.metas = True
        self.notes.add(
            AgentNoteKind.LEGACY_LAYOUT,
            line,
            entry_id,
            "the legacy layout of Codex: a first line with the id and time of the session, then "
            "the response items themselves, with no timestamp, type and payload around them: "
            "each item read as a response_item record, this line as the session_meta",
        )
        self._add({"timestamp": ts, "type": "metadata", "key": f"{PREFIX}.session_meta",
                   "value": record}, entry_id, line)  # fmt: skip

    def _legacy_item(self, line: int, item: dict[str, Any], kind: str) -> None:
        """A legacy line: a response item itself, at the header's time."""
        assert self.legacy_time is not None
        self.types[kind] = self.types.get(kind, 0) + 1
        entry_id = self._id(line)
        self.notes.aggregate(NoteKind.TIMESTAMP_FROM_ENTRY, _LEGACY_TIME, line, entry_id)
        self._response_item(line, entry_id, item, kind, self.legacy_time)

    # --- response items ------------------------------------------------------------------

    def _response_item(
        self, line: int, entry_id: str, payload: dict[str, Any], subtype: Any, ts: Any
    ) -> None:
        """A response item (``entry_id``: the id its entry takes, if it starts one)."""
        if subtype == "message":
            self._message(line, entry_id, payload, ts)
        elif subtype == "reasoning":
            self._answering()
            self._reasoning(line, payload)
        elif subtype in _ASSISTANT_ITEMS:
            self._open(line, entry_id, ts).call(self._call(line, payload, subtype))
        elif subtype in _OUTPUT_ITEMS:
            self._close()
            self._output(line, entry_id, payload, ts)
        else:  # a web search and the like: inside a response, so the response stays open
            self._answering()
            self._skip(
                line,
                f"response item {shown(subtype)}: no course form (no result to pair it with), "
                "skipped",
            )

    def _texts(
        self, content: Any, line: int, entry_id: str, where: str = "payload.content"
    ) -> list[dict[str, Any]]:
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
            if kind in TEXT_PARTS and isinstance(text := part.get("text"), str):
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
                               f"{where}.{position}: {placeholder}")  # fmt: skip
                blocks.append(text_block(placeholder))
            else:
                name = kind if isinstance(kind, str) and kind else "unknown"
                self.notes.add(
                    NoteKind.BLOCK_PLACEHOLDER,
                    line,
                    entry_id,
                    f"{where}.{position}: a {shown(kind)} part has no course form; "
                    f"replaced by the text '[{name} part omitted]'",
                )
                blocks.append(text_block(f"[{name} part omitted]"))
        return blocks

    def _message(self, line: int, entry_id: str, payload: dict[str, Any], ts: Any) -> None:
        role = payload.get("role")
        content = payload.get("content")
        if role == "assistant":
            blocks = self._texts(content, line, entry_id)
            self._open(line, entry_id, ts).content.extend(blocks)
            return
        self._close()
        blocks = self._texts(content, line, entry_id)
        text = "\n".join([block["text"] for block in blocks])
        if role == "user":
            self.window.item(match_keys(content))
            self.turn_assistants = []
            self._add({"timestamp": ts, "type": "message",
                       "message": {"role": "user", "content": blocks, "timestamp": ts}},
                      entry_id, line, user_text=text)  # fmt: skip
        elif role in ("developer", "system"):
            self._add({"timestamp": ts, "type": "message",
                       "message": {"role": "system", "content": text, "timestamp": ts}},
                      entry_id, line)  # fmt: skip
        else:
            self.notes.add(
                NoteKind.UNKNOWN_ROLE,
                line,
                entry_id,
                f"message role {shown(role)} is unknown to the importer: kept as metadata "
                f"{PREFIX}.message",
            )
            self._add({"timestamp": ts, "type": "metadata", "key": f"{PREFIX}.message",
                       "value": payload}, entry_id, line)  # fmt: skip

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

    def _open(self, line: int, entry_id: str, ts: Any) -> _Turn:
        """The assistant message this response's items join (started here when none is open,
        as ``entry_id``)."""
        turn = self.turn
        if turn is None:
            self._flush()  # the model begins a response: the user-side records are complete
            content: list[dict[str, Any]] = []
            message = {"role": "assistant", "content": content, "provider": PROVIDER,
                       "model": self.model, "usage": None, "stopReason": None, "timestamp": ts}  # fmt: skip
            draft = self._add({"timestamp": ts, "type": "message", "message": message},
                              entry_id, line)  # fmt: skip
            turn = self.turn = _Turn(draft, content)
            self.turn_assistants.append(draft)
            self.all_assistants.append(draft)
            self.unpriced = draft
        turn.lines.append(line)
        return turn

    def _call(self, line: int, payload: dict[str, Any], subtype: str) -> dict[str, Any]:
        """A call item as a course tool call; ``names`` learns its tool for the output."""
        call_id = payload.get("call_id")
        if subtype == "local_shell_call" and call_id is None:
            call_id = payload.get("id")
        name = "local_shell" if subtype == "local_shell_call" else payload.get("name")
        if not non_blank(call_id):
            raise _blank_error(subtype, "call_id", call_id, line)
        if not non_blank(name):
            raise _blank_error(subtype, "name", name, line)
        self.names[call_id] = name
        fork = self.fork
        if name == _SPAWN and fork and fork.subagent and fork.copied and not fork.done:
            timestamp = self.turn.draft.wire["timestamp"] if self.turn else None
            fork.spawn = _Spawn(call_id, line, timestamp)  # the copy may end with it
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

    def _output(self, line: int, entry_id: str, payload: dict[str, Any], ts: Any) -> None:
        call_id = payload.get("call_id")
        if not non_blank(call_id):
            raise _blank_error(payload.get("type"), "call_id", call_id, line)
        spawn = self.fork.spawn if self.fork else None
        if spawn is not None and spawn.call_id == call_id:
            spawn.answered = True
        output = payload.get("output")
        is_error = False
        if isinstance(output, dict):
            success = output.get("success")
            is_error = success is False
            output = output.get("content")
        blocks = self._texts("" if output is None else output, line, entry_id)
        result = {"role": "toolResult", "toolCallId": call_id,
                  "toolName": self.names.get(call_id, "unknown"), "content": blocks,
                  "isError": is_error, "timestamp": ts}  # fmt: skip
        self._add({"timestamp": ts, "type": "message", "message": result}, entry_id, line)

    def _close(self) -> None:
        """The open response ends: its stop reason follows from its content (a call or not),
        its merge is noted."""
        turn, self.turn = self.turn, None
        if turn is None:
            return
        turn.draft.wire["message"]["stopReason"] = "toolUse" if turn.calls else "stop"
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

    # --- turns: events paired with items, the copy's spawn call ------------------------

    def _answering(self) -> None:
        """The model begins a response: the user-side records before it are complete."""
        if self.turn is None:
            self._flush()

    def _end_turn(self) -> None:
        """Nothing more joins the turn (a compaction, a rollback, an abort, a new header)."""
        self._close()
        self._flush()

    def _flush(self) -> None:
        """The turn's user_message events: copies are skipped, the others become its messages."""
        for heard in self.window.close():
            if heard.copy:
                self._skip(heard.line, _USER_EVENT_SKIPPED)
            else:
                self._event_message(heard)

    def _heard(self, line: int, payload: dict[str, Any], ts: Any) -> None:
        """A user_message event: kept until its turn shows whether an item carries its text."""
        text = payload.get("message")
        if not isinstance(text, str):
            raise AgentImportError(
                f"user_message.message must be a string, got {shown(text)}", line=line
            )
        images = payload.get("images")
        if images is not None and not isinstance(images, list):
            raise AgentImportError(
                f"user_message.images must be a list, got {shown(images)}", line=line
            )
        self.window.event(Heard(line, ts, text, images or []))

    def _event_message(self, heard: Heard) -> None:
        """The user message only an event carries, at the end of its turn's user-side records."""
        self._close()
        entry_id = self._id(heard.line)
        images = [{"type": "input_image", "image_url": url} for url in heard.images]
        blocks = [
            text_block(heard.text),
            *self._texts(images, heard.line, entry_id, "payload.images"),
        ]
        self.notes.add(
            AgentNoteKind.EVENT_TEXT_USED,
            heard.line,
            entry_id,
            f"no response item of its turn carries the text of this user_message event "
            f"({len(heard.text):,} characters): that text becomes the user message, placed "
            "after the other user-side records of its turn",
        )
        self.turn_assistants = []
        ts = heard.timestamp
        self._add({"timestamp": ts, "type": "message",
                   "message": {"role": "user", "content": blocks, "timestamp": ts}},
                  entry_id, heard.line, user_text=heard.text)  # fmt: skip

    def _settle_spawn(self, *, user_side: bool) -> None:
        """The record after a copied spawn call: a user-side one starts the subagent's own turn."""
        fork = self.fork
        spawn = fork.spawn if fork else None
        if fork is None or spawn is None:
            return
        fork.spawn = None
        if not user_side:
            return  # the model went on (or the file ends oddly): an ordinary call
        fork.done = True
        if not spawn.answered:  # answered: this version copied the call's output too
            self._spawn_result(spawn)

    def _spawn_result(self, spawn: _Spawn) -> None:
        """The copied spawn call's result: this session itself, said as it is, not an error."""
        self._close()
        entry_id = f"{spawn.call_id}.forked"
        text = (
            f"[the parent's call that started this subagent (session {self.session_id or '?'}); "
            "no output is copied with it: its result is this session]"
        )
        result = {"role": "toolResult", "toolCallId": spawn.call_id, "toolName": _SPAWN,
                  "content": [text_block(text)], "isError": False,
                  "timestamp": spawn.timestamp}  # fmt: skip
        # Made up, so no line of its own (None).
        self._add({"timestamp": spawn.timestamp, "type": "message", "message": result},
                  entry_id, None)  # fmt: skip
        self.notes.add(
            AgentNoteKind.FORKED_HISTORY,
            spawn.line,
            entry_id,
            f"call {spawn.call_id!r} ({_SPAWN}) is the call of the parent session that started "
            f"this subagent, copied without its output: its result {entry_id} says so, instead "
            "of the error result a call left unanswered gets",
        )

    # --- events ------------------------------------------------------------------------

    def _event(self, line: int, payload: dict[str, Any], subtype: Any, ts: Any) -> None:
        if subtype == "token_count":
            self._close()
            self._token_count(line, payload)
        elif subtype == "user_message":
            self._heard(line, payload, ts)
        elif subtype == "turn_aborted":
            self._end_turn()
            if self.fork is not None:
                self.fork.spawn = None  # an interrupted call, not the copy's end
            self._aborted(line, payload)
        elif subtype == "thread_rolled_back":
            self._end_turn()
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
        for key in _TOKEN_KEYS:
            value = last.get(key, 0)
            # A whole count, the usual case, needs no more; any other value the full check.
            if (type(value) is not int and not is_number(value)) or value < 0:
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
        entry_id = draft.id
        self.usage[entry_id] = AgentUsage(entry_id, line, prompt, output, cached, 0)
        self.notes.aggregate(
            AgentNoteKind.USAGE_MAPPED,
            "usage from the token_count event after the response: input = input_tokens (cached "
            "ones included), totalTokens = input + output",
            line,
            entry_id,
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

    def _compacted(self, line: int, entry_id: str, payload: dict[str, Any], ts: Any) -> None:
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
                   "firstKeptEntryId": None, "tokensBefore": tokens}, entry_id, line)  # fmt: skip
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
        """Close the last response and turn; zeros for each message no token count priced."""
        self._close()
        self._settle_spawn(user_side=True)  # a copy that ends the file: the subagent never ran
        self._flush()
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


@collector_paused
def _import(
    committed: CommittedLines, on_missing_result: MissingResultPolicy, limits: JsonLimits
) -> AgentImportResult:
    require_missing_policy(on_missing_result)
    notes = NoteLog()
    tail_note(committed, notes)
    bounds = line_bounds(committed, limits)  # before the lines are read and let go
    importer = _Importer(notes, max(4, len(str(committed.last_record_line))), limits)
    read = importer.read  # looked up once, not for each record
    for line, record in read_records(committed, limits, require_type=False):
        read(line, record)
    importer.finish()
    if not importer.drafts:
        raise AgentImportError("no record that becomes an entry: nothing to import")
    leaf = importer.drafts[-1].id if importer.path.tip is None else importer.path.tip
    drafts, leaf = repair(importer.drafts, leaf, on_missing_result, notes, PREFIX)
    compactions = resolve_compactions(drafts, importer.plans, notes)
    importer.let_go()
    entries = finish_drafts(drafts, limits, bounds)
    source = AgentSource(
        format=PREFIX,
        session_id=importer.session_id,
        records=importer.records,
        record_counts=counted(Counter(importer.types)),
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
