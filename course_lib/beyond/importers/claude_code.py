"""Import a Claude Code session file (``~/.claude/projects/<project>/<uuid>.jsonl``).

Records carry ``type``, ``uuid``, ``parentUuid`` (a tree: a rewind or an edit
starts a branch), ``isSidechain``, an ISO ``timestamp`` and a ``message`` of
Anthropic content blocks. The importer keeps the pi importer's contract:
strict course entries out, every change an ``ImportNote`` with its line and
id, anything it cannot read an ``AgentImportError`` naming the line.

What changes, and why:

* **One assistant turn, one message.** Claude Code writes a turn as several
  records sharing ``message.id``, one content block each, and may write a
  tool's result before the next block of the same turn. Records of one
  ``message.id`` on one path merge into the first (its uuid is the entry id);
  a note names the merged lines and uuids. The usage of the last one counts.
* **Results are messages.** A user record's ``tool_result`` blocks become
  course tool results (the first takes the record's uuid, the others
  ``<uuid>.2``, ...); its other blocks, if any, a user message after them.
* **Links, read whole.** Records are linked once the whole file is read
  (``_claude_links``): a parent on a later line, a summary written after an
  ``attachment``, a partial compaction's kept messages and a file with no
  parent links at all are each linked as the chapter needs, with a note.
* **Compaction.** A ``system`` record with ``subtype: "compact_boundary"``
  starts a new root (``parentUuid: null``) and names the last record before
  it as ``logicalParentUuid``; the ``user`` record after it
  (``isCompactSummary: true``) holds the summary. Together they become one
  ``CompactionEntry`` hung under the logical parent (noted), its summary
  mapped onto the seven fields, ``tokensBefore`` from
  ``compactMetadata.preTokens``; the first kept entry follows the chapter's
  rule (``_agent_compaction``), from what a partial compaction kept
  (``preservedSegment``, ``preservedMessages``) when it kept anything.
* **Kept out.** Sidechain records (a subagent's work) are counted and left off
  the main path; records without a uuid (``summary`` titles,
  ``file-history-snapshot``, ``queue-operation``, ``permission-mode``, ...)
  are counted and skipped; ``system``, ``attachment`` and ``progress`` records
  become metadata entries (``claude-code.<type>``).
* **Repairs.** A tool call with no result (an interrupted turn) gets the
  synthetic error result pi would send, by the pi importer's repair step.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ...base.wire import DEFAULT_LIMITS, JsonLimits
from ._agent_base import (
    AgentImportError,
    AgentImportResult,
    AgentNoteKind,
    AgentSource,
    AgentUsage,
    Record,
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
)
from ._agent_compaction import CompactionPlan, resolve_compactions
from ._agent_summary import map_agent_summary
from ._base import NoteKind, NoteLog, shown
from ._claude_blocks import ClaudeBlocks
from ._claude_links import CONTEXT_TYPES, LinkedFile, Preserved, is_boundary, link_records
from ._pi_convert import Draft
from ._pi_read import CommittedLines, read_regular_file, split_pi_bytes, split_pi_text
from ._pi_repair import MissingResultPolicy

__all__ = [
    "import_claude_code_bytes",
    "import_claude_code_session",
    "import_claude_code_text",
    "is_claude_code_record",
]

AGENT = "Claude Code"
PREFIX = "claude-code"
PROVIDER = "anthropic"
RECORD_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation",
     "attachment", "progress", "permission-mode", "mode", "custom-title"}
)  # fmt: skip
"""The record types Claude Code writes that detection knows it by (with a uuid or session id)."""
INTERRUPTED = "[Request interrupted by user"
NO_SUMMARY = "(Claude Code recorded no summary text for this compaction)"

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "refusal": "stop",
    "tool_use": "toolUse",
    "max_tokens": "length",
}
_RECORD_KEYS = frozenset(
    {"type", "uuid", "parentUuid", "timestamp", "message", "isSidechain", "isCompactSummary",
     "isApiErrorMessage"}
)  # fmt: skip
_ASSISTANT_KEYS = frozenset(
    {"id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"}
)
_USER_KEYS = frozenset({"role", "content"})
_BOUNDARY_KEYS = frozenset(
    {"type", "uuid", "parentUuid", "logicalParentUuid", "timestamp", "subtype", "compactMetadata",
     "isSidechain"}
)  # fmt: skip
_ENTRY_KEYS = ("type", "uuid", "parentUuid", "timestamp")


def is_claude_code_record(record: Any) -> bool:
    """Whether a file's first record looks like Claude Code's (its types, a uuid or a session id)."""
    if not isinstance(record, dict) or record.get("type") not in RECORD_TYPES:
        return False
    return any(key in record for key in ("uuid", "sessionId", "leafUuid", "messageId"))


@dataclass
class _Turn:
    """The assistant message open on a path: its ``message.id`` and the draft records merge into."""

    message_id: str
    draft: Draft
    merged: list[tuple[int, str]] = field(default_factory=list)  # (line, uuid) merged into it
    stop: tuple[Any, int] | None = None  # the last non-null stop_reason and its line


class _Collector:
    """The first pass: which records belong to the main conversation, and what else the file held.

    Sidechain records (a subagent's own conversation) and records without a
    uuid (titles, snapshots, queue operations, modes) are counted and left out;
    a uuid seen before is left out with a note. The rest are kept, in file
    order, for ``link_records`` to put parents first.
    """

    def __init__(self, notes: NoteLog) -> None:
        self.notes = notes
        self.main: list[Record] = []
        self.seen: set[str] = set()
        self.types: Counter[str] = Counter()
        self.sidechains = 0
        self.sidechain_runs = 0
        self.sidechain_ids: set[str] = set()
        self.session_id: str | None = None
        self.records = 0

    def read(self, line: int, record: dict[str, Any]) -> None:
        """Keep one record for the main conversation, or count why it is left out."""
        self.records += 1
        kind = record["type"]
        self.types[kind] += 1
        if self.session_id is None and isinstance(record.get("sessionId"), str):
            self.session_id = record["sessionId"]
        uuid = record.get("uuid")
        if record.get("isSidechain") is True:
            self._sidechain(line, record, uuid)
            return
        if uuid is None and kind not in ("user", "assistant", "system"):
            self.notes.aggregate(
                AgentNoteKind.RECORD_SKIPPED,
                f"'{kind}' record (no uuid, never sent to a model): skipped",
                line,
                None,
            )
            return
        if not non_blank(uuid):
            raise AgentImportError(
                f"a {kind!r} record needs a non-blank string uuid, got {shown(uuid)}", line=line
            )
        if uuid in self.seen:
            self.notes.add(
                AgentNoteKind.DUPLICATE_RECORD,
                line,
                uuid,
                f"uuid {uuid!r} appeared on an earlier line: this {kind!r} record is left out",
            )
            return
        self.seen.add(uuid)
        self.main.append((line, record))

    def _sidechain(self, line: int, record: dict[str, Any], uuid: Any) -> None:
        """Subagent work: counted, kept off the main path; its uuids stand for nothing there."""
        self.sidechains += 1
        parent = record.get("parentUuid")
        if not (isinstance(parent, str) and parent in self.sidechain_ids):
            self.sidechain_runs += 1
        if isinstance(uuid, str):
            self.sidechain_ids.add(uuid)
        self.notes.aggregate(
            AgentNoteKind.SIDECHAIN_SKIPPED,
            "sidechain records (a subagent's own conversation) kept off the main path",
            line,
            None,  # a sidechain uuid names no course entry
        )


class _Importer:
    """The second pass, parents first: drafts, the uuid -> entry map, the open turns, the plans."""

    def __init__(self, notes: NoteLog) -> None:
        self.notes = notes
        self.blocks = ClaudeBlocks(notes)
        self.drafts: list[Draft] = []
        self.ids: set[str] = set()
        self.target: dict[str, str] = {}  # record uuid -> the entry its children hang under
        self.turns: dict[str, _Turn] = {}  # entry id -> the assistant turn open there
        self.all_turns: list[_Turn] = []
        self.names: dict[str, str] = {}  # tool_use id -> tool name
        self.awaiting: dict[
            str, tuple[Draft, CompactionPlan]
        ] = {}  # compactions with no summary yet
        self.plans: list[CompactionPlan] = []
        self.kept: dict[str, list[str]] = {}  # compaction id -> the uuids it kept, in the file
        self.summary_of: dict[str, str] = {}  # summary record uuid -> its boundary's uuid
        self.preserved: dict[str, Preserved] = {}
        self.usage: dict[str, AgentUsage] = {}

    # --- ids and parents ------------------------------------------------------------

    def _new_id(self, wanted: str, line: int) -> str:
        if wanted in self.ids:
            raise AgentImportError(f"entry id {shown(wanted)} is used twice", line=line)
        self.ids.add(wanted)
        return wanted

    def _add(self, wire: dict[str, Any], line: int | None) -> Draft:
        draft = Draft(wire, line)
        self.drafts.append(draft)
        return draft

    # --- records --------------------------------------------------------------------

    def convert(self, linked: LinkedFile) -> str:
        """Every record, parents first; the entry the file's last record stands for (the leaf)."""
        self.summary_of = linked.summary_of
        self.preserved = linked.preserved
        for item in linked.records:
            self.read(item.line, item.record, item.parent)
        return self.target[linked.leaf]

    def read(self, line: int, record: dict[str, Any], parent_uuid: str | None) -> None:
        """Turn one record into zero or more drafts, under the entry its parent stands for."""
        kind = record["type"]
        uuid = record["uuid"]
        ts = entry_timestamp(record.get("timestamp"), line=line, entry_id=uuid, notes=self.notes)
        parent = self.target[parent_uuid] if parent_uuid is not None else None
        if kind == "assistant":
            self._assistant(line, record, uuid, parent, ts)
        elif kind == "user":
            self._user(line, record, uuid, parent, ts)
        elif is_boundary(record):
            self._boundary(line, record, uuid, parent, ts)
        else:
            self._metadata(line, record, uuid, parent, ts)

    def _metadata(
        self, line: int, record: dict[str, Any], uuid: str, parent: str | None, ts: Any
    ) -> None:
        kind = record["type"]
        key = f"{PREFIX}.{kind}"
        if kind != "system" and kind not in CONTEXT_TYPES:
            self.notes.add(
                NoteKind.UNKNOWN_ENTRY_TYPE,
                line,
                uuid,
                f"record type {kind!r} is unknown to the importer: kept as metadata {key}",
            )
        value = {k: v for k, v in record.items() if k not in _ENTRY_KEYS}
        wire = {"id": self._new_id(uuid, line), "parentId": parent, "timestamp": ts,
                "type": "metadata", "key": key, "value": value}  # fmt: skip
        self._add(wire, line)
        self.target[uuid] = uuid
        if parent is not None and parent in self.turns:
            self.turns[uuid] = self.turns[parent]

    def _message(self, record: dict[str, Any], line: int) -> dict[str, Any]:
        message = record.get("message")
        if not isinstance(message, dict):
            raise AgentImportError(f"{record['type']} record has no message object", line=line)
        return message

    def _assistant(
        self, line: int, record: dict[str, Any], uuid: str, parent: str | None, ts: Any
    ) -> None:
        message = self._message(record, line)
        self.notes.fields_dropped(record, _RECORD_KEYS, "record field", line, uuid)
        self.notes.fields_dropped(message, _ASSISTANT_KEYS, "assistant message field", line, uuid)
        message_id = message.get("id")
        open_turn = self.turns.get(parent) if parent is not None else None
        if open_turn is not None and non_blank(message_id) and open_turn.message_id == message_id:
            assert parent is not None  # an open turn is found only under a parent
            self._merge(open_turn, line, message, uuid, parent)
            return
        model = message.get("model", "")
        if not isinstance(model, str):
            raise AgentImportError(f"message.model must be a string, got {shown(model)}", line=line)
        content = self.blocks.assistant_blocks(message.get("content"), line, uuid, self.names)
        wire: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "provider": PROVIDER,
            "model": model,
            "usage": None,
            "stopReason": None,
            "timestamp": ts,
        }
        if record.get("isApiErrorMessage") is True:
            wire["errorMessage"] = "\n".join(b["text"] for b in content if b["type"] == "text")
        entry = {"id": self._new_id(uuid, line), "parentId": parent, "timestamp": ts,
                 "type": "message", "message": wire}  # fmt: skip
        draft = self._add(entry, line)
        turn = _Turn(message_id if non_blank(message_id) else f"\0{uuid}", draft)
        self._stop(turn, message.get("stop_reason"), line)
        self._usage(turn, message.get("usage"), line, uuid)
        self.all_turns.append(turn)
        self.turns[uuid] = turn
        self.target[uuid] = uuid

    def _merge(
        self, turn: _Turn, line: int, message: dict[str, Any], uuid: str, parent: str
    ) -> None:
        """A later record of the same turn: its blocks join the turn's message."""
        blocks = self.blocks.assistant_blocks(
            message.get("content"), line, turn.draft.id, self.names
        )
        turn.draft.wire["message"]["content"].extend(blocks)
        turn.merged.append((line, uuid))
        self._stop(turn, message.get("stop_reason"), line)
        self._usage(turn, message.get("usage"), line, turn.draft.id)
        self.target[uuid] = parent  # its children hang where it would have

    def _stop(self, turn: _Turn, value: Any, line: int) -> None:
        if value is not None:
            if not isinstance(value, str):
                raise AgentImportError(
                    f"message.stop_reason must be a string or null, got {shown(value)}", line=line
                )
            turn.stop = (value, line)

    def _usage(self, turn: _Turn, usage: Any, line: int, entry_id: str) -> None:
        """The turn's counts: the last record's (Claude Code repeats the turn's usage on each)."""
        if usage is None and turn.draft.wire["message"]["usage"] is not None:
            return  # an earlier record of the turn had them
        inp, out, read, write = self.blocks.usage(usage, line, entry_id)
        prompt = inp + read + write
        turn.draft.wire["message"]["usage"] = {
            "input": prompt,
            "output": out,
            "totalTokens": prompt + out,
        }
        self.usage[turn.draft.id] = AgentUsage(turn.draft.id, line, prompt, out, read, write)

    def _user(
        self, line: int, record: dict[str, Any], uuid: str, parent: str | None, ts: Any
    ) -> None:
        message = self._message(record, line)
        self.notes.fields_dropped(record, _RECORD_KEYS, "record field", line, uuid)
        self.notes.fields_dropped(message, _USER_KEYS, "user message field", line, uuid)
        boundary = self.summary_of.get(uuid)
        if record.get("isCompactSummary") is True and boundary in self.awaiting:
            assert (
                boundary is not None and parent is not None
            )  # a boundary's summary hangs below it
            self._summary(line, message, uuid, boundary, parent)
            return
        results, texts = self.blocks.user_blocks(message.get("content"), line, uuid)
        turn = self.turns.get(parent) if parent is not None else None
        last = parent
        for number, block in enumerate(results, start=1):
            entry_id = self._new_id(uuid if number == 1 else f"{uuid}.{number}", line)
            result = self.blocks.tool_result(block, self.names, line, entry_id, ts)
            self._add({"id": entry_id, "parentId": last, "timestamp": ts, "type": "message",
                       "message": result}, line)  # fmt: skip
            if turn is not None:
                self.turns[entry_id] = turn
            last = entry_id
        if texts or not results:
            entry_id = self._new_id(uuid if not results else f"{uuid}.user", line)
            if record.get("isCompactSummary") is True:
                self.notes.add(
                    AgentNoteKind.SUMMARY_MISSING,
                    line,
                    entry_id,
                    "a compact summary that follows no compaction boundary: kept as a user message",
                )
            first_text = texts[0]["text"] if texts else ""
            if first_text.startswith(INTERRUPTED):
                self.notes.add(
                    AgentNoteKind.TURN_INTERRUPTED,
                    line,
                    entry_id,
                    f"the user interrupted the turn ({first_text[:60]!r}); kept as the user "
                    "message Claude Code sends",
                )
            user = {"role": "user", "content": texts, "timestamp": ts}
            self._add({"id": entry_id, "parentId": last, "timestamp": ts, "type": "message",
                       "message": user}, line)  # fmt: skip
            last = entry_id
        assert last is not None  # a result or a user message was added
        self.target[uuid] = last

    # --- compaction -------------------------------------------------------------------

    def _boundary(
        self, line: int, record: dict[str, Any], uuid: str, parent: str | None, ts: Any
    ) -> None:
        """A compaction boundary: a compaction draft, waiting for its summary record."""
        self.notes.fields_dropped(record, _BOUNDARY_KEYS, "compact_boundary field", line, uuid)
        meta = record.get("compactMetadata", {})
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise AgentImportError(
                f"compactMetadata must be an object, got {shown(meta)}", line=line
            )
        tokens = meta.get("preTokens")
        if tokens is None:
            tokens = 0
            self.notes.add(
                AgentNoteKind.TOKENS_BEFORE_UNKNOWN,
                line,
                uuid,
                "compactMetadata.preTokens is absent: tokensBefore set to 0",
            )
        if not is_number(tokens) or tokens < 0:
            raise AgentImportError(
                f"compactMetadata.preTokens must be a number >= 0, got {shown(tokens)}", line=line
            )
        after = meta.get("postTokens")
        trigger = meta.get("trigger")
        kept = self._preserved(line, uuid)
        wire = {"id": self._new_id(uuid, line), "parentId": parent, "timestamp": ts,
                "type": "compaction", "summary": None, "firstKeptEntryId": None,
                "tokensBefore": tokens}  # fmt: skip
        draft = self._add(wire, line)
        plan = CompactionPlan(
            entry_id=uuid, line=line, agent=AGENT, prefix=PREFIX,
            trigger=trigger if isinstance(trigger, str) else None, tokens_before=tokens,
            tokens_after=after if is_number(after) else None, agent_kept=[], kept_words=None,
            fields_filled=(), unmapped_items=0,
        )  # fmt: skip
        self.plans.append(plan)
        self.awaiting[uuid] = (draft, plan)
        self.kept[uuid] = kept
        self.target[uuid] = uuid

    def _preserved(self, line: int, uuid: str) -> list[str]:
        """The uuids the compaction kept (``_claude_links`` read them in every shape)."""
        kept = self.preserved.get(uuid, Preserved())
        if kept.malformed is not None:
            self.notes.add(
                NoteKind.FIELD_DROPPED,
                line,
                uuid,
                f"compactMetadata.preservedMessages {shown(kept.malformed)} is not a list of "
                "uuids: read as keeping nothing",
            )
        return kept.uuids

    def _summary(
        self, line: int, message: dict[str, Any], uuid: str, boundary: str, parent: str
    ) -> None:
        """The summary record of a boundary: its text becomes the compaction's seven fields.

        What hangs under the summary record hangs where it would have: under its
        parent (the compaction, or a record written between the two).
        """
        draft, plan = self.awaiting.pop(boundary)
        texts = self.blocks.text_blocks(message.get("content"), "message.content", line, boundary)
        self._fill(draft, plan, "\n".join(b["text"] for b in texts), line)
        self.notes.add(
            AgentNoteKind.COMPACT_SUMMARY_MERGED,
            line,
            boundary,
            f"the compact summary record {uuid} became the summary of compaction {boundary} "
            "(the chapter sends it from there; kept as a message, it would be sent twice)",
        )
        self.target[uuid] = parent

    def _fill(self, draft: Draft, plan: CompactionPlan, text: str, line: int) -> None:
        mapped = map_agent_summary(text, AGENT, numbered=True)
        for kind, detail in mapped.notes:
            self.notes.add(kind, line, plan.entry_id, detail)
        draft.wire["summary"] = mapped.summary
        plan.fields_filled = mapped.fields_filled
        plan.unmapped_items = mapped.unmapped_items

    def let_go(self) -> None:
        """Drop every reference to the drafts, so each is freed once it becomes an entry."""
        self.drafts = []
        self.turns.clear()
        self.all_turns.clear()
        self.awaiting.clear()

    def finish_turns(self) -> None:
        """Stop reasons, merge notes, what compactions kept and summaries never written, once
        every record is read."""
        for plan in self.plans:  # a uuid the file does not hold names no entry: left out
            found = (self.target.get(kept) for kept in self.kept[plan.entry_id])
            plan.agent_kept = list(dict.fromkeys(entry for entry in found if entry is not None))
        for turn in self.all_turns:
            message = turn.draft.wire["message"]
            if turn.merged:
                lines = ", ".join(str(merged_line) for merged_line, _ in turn.merged)
                uuids = ", ".join(merged_uuid for _, merged_uuid in turn.merged)
                self.notes.add(
                    AgentNoteKind.RECORDS_MERGED,
                    turn.draft.line,
                    turn.draft.id,
                    f"{len(turn.merged) + 1} records of one assistant turn (message.id "
                    f"{turn.message_id!r}) merged into one message: lines {turn.draft.line}, "
                    f"{lines} (uuids {uuids})",
                )
            if "errorMessage" in message:
                message["stopReason"] = "error"
                continue
            calls = any(block["type"] == "toolCall" for block in message["content"])
            mapped = _STOP_REASONS.get(turn.stop[0]) if turn.stop else None
            if mapped is None:
                message["stopReason"] = "toolUse" if calls else "stop"
                self.notes.aggregate(
                    AgentNoteKind.STOP_REASON_INFERRED,
                    (
                        "stop_reason null (written while streaming) or unknown: read from the "
                        "content (toolUse with a tool call, stop without)"
                    ),
                    turn.draft.line,
                    turn.draft.id,
                )
            else:
                message["stopReason"] = mapped
        for draft, plan in self.awaiting.values():
            self.notes.add(
                AgentNoteKind.SUMMARY_MISSING,
                plan.line,
                plan.entry_id,
                f"no compact summary record follows this boundary: the goal says so ({NO_SUMMARY!r})",
            )
            self._fill(draft, plan, "", plan.line)
            draft.wire["summary"]["goal"] = NO_SUMMARY
            plan.fields_filled = ("goal",)


def import_claude_code_session(
    path: str | os.PathLike[str],
    *,
    on_missing_result: MissingResultPolicy = "repair",
    limits: JsonLimits = DEFAULT_LIMITS,
) -> AgentImportResult:
    """Read the Claude Code session file at ``path`` (read-only) and import it.

    Newer versions keep each subagent's conversation in its own file under
    ``<session>/subagents/``; those files are counted (``source.subagent_files``),
    never opened: the main path is the session file's.
    """
    file = Path(path)
    try:
        data = read_regular_file(file)
    except OSError as error:
        raise AgentImportError(f"cannot read {file.name}: {error.strerror or error}") from None
    imported = _import(split_pi_bytes(data), on_missing_result, limits)
    count = _subagent_files(file)
    if not count:
        return imported
    return replace(imported, source=replace(imported.source, subagent_files=count))


def _subagent_files(file: Path) -> int:
    """How many ``*.jsonl`` files lie in ``<session>/subagents/`` (0 when there is no such folder)."""
    folder = file.with_suffix("") / "subagents"
    try:
        return sum(1 for child in folder.iterdir() if child.suffix == ".jsonl")
    except OSError:
        return 0


def import_claude_code_bytes(
    data: bytes,
    *,
    on_missing_result: MissingResultPolicy = "repair",
    limits: JsonLimits = DEFAULT_LIMITS,
) -> AgentImportResult:
    """Import the bytes of a Claude Code session file; only committed lines must be UTF-8."""
    return _import(split_pi_bytes(data), on_missing_result, limits)


def import_claude_code_text(
    text: str,
    *,
    on_missing_result: MissingResultPolicy = "repair",
    limits: JsonLimits = DEFAULT_LIMITS,
) -> AgentImportResult:
    """Import the text of a Claude Code session file; pure, so tests can build files in memory."""
    return _import(split_pi_text(text), on_missing_result, limits)


@collector_paused
def _import(
    committed: CommittedLines, on_missing_result: MissingResultPolicy, limits: JsonLimits
) -> AgentImportResult:
    require_missing_policy(on_missing_result)
    notes = NoteLog()
    tail_note(committed, notes)
    bounds = line_bounds(committed, limits)  # before the lines are read and let go
    collector = _Collector(notes)
    for line, record in read_records(committed, limits):
        collector.read(line, record)
    if not collector.main:
        raise AgentImportError(
            "no conversation record (user, assistant or system) on the main path: nothing to import"
        )
    importer = _Importer(notes)
    leaf = importer.convert(link_records(collector.main, notes))
    collector.main.clear()  # the records live on in the drafts only
    importer.finish_turns()
    drafts, leaf = repair(importer.drafts, leaf, on_missing_result, notes, PREFIX)
    compactions = resolve_compactions(drafts, importer.plans, notes)
    importer.let_go()
    entries = finish_drafts(drafts, limits, bounds)
    source = AgentSource(
        format=PREFIX,
        session_id=collector.session_id,
        records=collector.records,
        record_counts=counted(collector.types),
        sidechain_records=collector.sidechains,
        sidechain_runs=collector.sidechain_runs,
    )
    kept = {entry.id for entry in entries}
    usage = {key: value for key, value in importer.usage.items() if key in kept}
    return AgentImportResult(
        entries=entries,
        leaf_id=leaf,
        notes=notes.finish(),
        source=source,
        usage=usage,
        compactions=compactions,
    )
