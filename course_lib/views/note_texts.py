"""The importers' notes as templates, so the views can show them in the reader's language.

The pi, Claude Code and Codex importers write each note's ``detail`` as an
English f-string (``course_lib.beyond.importers``): a note is data that the
tests and the grader compare, as an error message is. ``translated`` (in
``views.translated``) finds these templates in a detail and writes them in
the reader's language; every ``{placeholder}`` (a line, an entry id, a call
id, a count, a quoted value) is written back as it is, so a Chinese note
names the same lines and ids in the same order as the English one. A
placeholder ending in ``_text`` stands for free text (a heading, a list of
ids, another template's sentence), itself translated.

One template per sentence the importers write; a detail built from parts (an
aggregated drop, an entry described by id, kind and line) is matched part by
part: the whole sentence first, then what its free text holds.
"""

from __future__ import annotations

from ..base.i18n import N_

__all__ = ["NOTE_PARTS"]

NOTE_PARTS: tuple[str, ...] = (
    # --- aggregated notes: one per file and subject, with a count and a line range (_base.py)
    N_("{subject_text}: not in the course schema, dropped once (line {line})"),
    N_("{subject_text}: not in the course schema, dropped {count} times (line {line})"),
    N_("{subject_text}: not in the course schema, dropped {count} times (lines {first}-{last})"),
    N_("{subject_text}: once (line {line})"),
    N_("{subject_text}: {count} times (line {line})"),
    N_("{subject_text}: {count} times (lines {first}-{last})"),
    # the subjects of field_dropped: where the field was
    N_("{name} message field {key}"),
    N_("{name} entry field {key}"),
    N_("{name} block field {key}"),
    N_("assistant usage field {key}"),
    N_("usage field {key}"),
    N_("record field {key}"),
    N_("compact_boundary field {key}"),
    # the subjects of the other aggregated notes
    N_("timestamp without a time zone read as UTC"),
    N_("message without a timestamp: the entry's timestamp used"),
    N_(
        "usage.totalTokens absent: computed as input + output + cacheRead + cacheWrite "
        "(pi's own fallback)"
    ),
    N_("assistant record without usage: counts set to 0"),
    N_(
        "usage: input = input_tokens + cache_read_input_tokens + cache_creation_input_tokens "
        "(every token the model read), totalTokens = input + output"
    ),
    N_("{kind} record (no uuid, never sent to a model): skipped"),
    N_("sidechain records (a subagent's own conversation) kept off the main path"),
    N_(
        "stop_reason null (written while streaming) or unknown: read from the content "
        "(toolUse with a tool call, stop without)"
    ),
    N_("record type {kind}: unknown to the importer, skipped"),
    N_("response item {kind}: no course form (no result to pair it with), skipped"),
    N_("event_msg {kind}: an interface event (never sent to a model), skipped"),
    N_(
        "Codex records no stop reason: read from the content (toolUse with a call, stop "
        "without; aborted after a turn_aborted event)"
    ),
    N_(
        "usage from the token_count event after the response: input = input_tokens (cached "
        "ones included), totalTokens = input + output"
    ),
    N_("assistant message with no token_count after it: counts set to 0"),
    # --- an entry as a note names it: id, kind and line (_pi_repair, _agent_compaction)
    N_("{entry} ({role} message, line {line})"),
    N_("{entry} ({role} message)"),
    N_("{entry} ({type} entry, line {line})"),
    N_("{entry} ({type} entry)"),
    # --- reading a file (pi.py, _agent_base.py; the course reader's warning in inspect)
    N_(
        "the last line ({count} characters) has no newline: a write that never committed, "
        "left out as Chapter 10 reads files"
    ),
    N_("the last line has no newline: a write that never committed, left out"),
    N_("a root entry of the pi tree: hung under the header entry {entry}"),
    # --- content blocks (_pi_convert.py, _claude_blocks.py, codex.py)
    N_("{count} image replaced by a text placeholder: {images_text}"),
    N_("{count} images replaced by a text placeholder: {images_text}"),
    N_("{where}: [image: {mime_text}, {size} bytes of base64]"),
    N_("{where}: a {kind} block has no course form; replaced by the text {placeholder}"),
    N_("{where}: a {kind} part has no course form; replaced by the text {placeholder}"),
    N_("{where}: a {kind} block has no course form (not text or {allowed}); dropped"),
    N_("{count} thinking block ({chars} characters) dropped: provider-specific, not re-sent"),
    N_("{count} thinking blocks ({chars} characters) dropped: provider-specific, not re-sent"),
    N_("a reasoning item ({count} characters of summary) dropped: provider-specific, not re-sent"),
    N_(
        "tool call {call}: the {count} characters pi streamed before the turn ended "
        "(partialJson) kept as rawArguments"
    ),
    N_(
        "call {call}: its {count}-character argument text is not JSON ({error}): arguments "
        "set to {}, the text kept as rawArguments"
    ),
    N_("stopReason {value} read as {mapped}"),
    # --- records and roles the course has no form for
    N_(
        "message role {role} is unknown to the importer (pi does not send it either): "
        "kept as metadata {key}"
    ),
    N_(
        "entry type {kind} is unknown to the importer (pi does not send it either): "
        "kept as metadata {key}"
    ),
    N_("record type {kind} is unknown to the importer: kept as metadata {key}"),
    N_("message role {role} is unknown to the importer: kept as metadata {key}"),
    N_("empty branch summary: pi sends nothing for it, kept as metadata pi.branch_summary"),
    # --- summaries mapped onto the seven fields (_pi_summary.py, claude_code.py, codex.py)
    N_(
        "{heading_text} ({count} item) fits no course field: kept in unresolved, each item "
        "prefixed {prefix}"
    ),
    N_(
        "{heading_text} ({count} items) fits no course field: kept in unresolved, each item "
        "prefixed {prefix}"
    ),
    N_("text before the first heading"),
    N_("title {title} kept as the first item of unresolved (the goal is not taken from it)"),
    N_("no Goal section: goal taken from the title {title}"),
    N_("no Goal section and no title: goal set to {marker}"),
    N_("a compact summary that follows no compaction boundary: kept as a user message"),
    N_(
        "the compact summary record {record} became the summary of compaction {entry} (the "
        "chapter sends it from there; kept as a message, it would be sent twice)"
    ),
    N_("no compact summary record follows this boundary: the goal says so ({marker})"),
    N_("the compacted record has no message: an empty summary"),
    N_("compactMetadata.preTokens is absent: tokensBefore set to 0"),
    N_("no token_count before this compaction: tokensBefore set to 0"),
    N_(
        "compactMetadata.preservedMessages {value_text} is not a list of uuids: read as "
        "keeping nothing"
    ),
    # --- repairs: results, calls and users the interaction lacks (_pi_repair.py)
    N_(
        "result for call {call} answers no call declared before the first user message: "
        "kept as metadata {key}, not sent to a model"
    ),
    N_(
        "result for call {call} answers no call declared in its interaction: kept as "
        "metadata {key}, not sent to a model"
    ),
    N_(
        "second result for call {call} in one interaction: kept as metadata {key}, not sent "
        "to a model"
    ),
    N_("tool call {call} ({tool}) has no result: its block was removed from the assistant message"),
    N_(
        "tool call {call} ({tool}) declared by {entry} has no result: synthetic error result "
        "{result} inserted after {after}, before {before}"
    ),
    N_(
        "tool call {call} ({tool}) declared by {entry} has no result: synthetic error result "
        "{result} inserted after {after}, at the end of its branch"
    ),
    N_(
        "{role} message {entry} comes before any user message: synthetic user message "
        "{user} inserted in front of it"
    ),
    N_(
        "the leaf {leaf} left tool calls unanswered: the leaf is now {result}, the last "
        "synthetic result after it"
    ),
    # --- where a compaction keeps from (_pi_repair.py: pi; _agent_compaction.py: the agents)
    N_(
        "pi keeps from {from_text}; the course keeps whole interactions, so the first kept "
        "entry is {to_text}, {count} entry earlier, so the whole interaction is kept"
    ),
    N_(
        "pi keeps from {from_text}; the course keeps whole interactions, so the first kept "
        "entry is {to_text}, {count} entries earlier, so the whole interaction is kept"
    ),
    N_(
        "pi keeps from {from_text}; the course keeps whole interactions, so the first kept "
        "entry is {to_text}, {count} entry later, past entries the model never sees"
    ),
    N_(
        "pi keeps from {from_text}; the course keeps whole interactions, so the first kept "
        "entry is {to_text}, {count} entries later, past entries the model never sees"
    ),
    N_(
        "pi keeps from {from_text}; the course keeps whole interactions, so the first kept "
        "entry is {to_text}, {count} entries later: the messages between were neither "
        "summarised nor kept"
    ),
    N_(
        "no user message lies before this compaction on its path, so the chapter cannot "
        "restore from it: kept as metadata {key}"
    ),
    N_(
        "{agent_text} kept {count} record(s) this path does not hold before the compaction "
        "({ids_text}): ignored"
    ),
    N_(
        "{agent_text} kept from {from_text}; the chapter keeps whole interactions, so the "
        "first kept entry is {to_text}, the user message that starts it"
    ),
    N_(
        "{agent_text} kept {what_text} from {from_text} on; the chapter keeps whole "
        "interactions, so everything from there is kept"
    ),
    N_("only the user's own messages (none of the replies or tool results)"),
    N_(
        "{agent_text} kept nothing before this compaction (its summary stands for the whole "
        "history); the chapter keeps from a user message before it, so the first kept entry "
        "is the newest interaction's start, {start_text}"
    ),
    # --- Claude Code's records (claude_code.py)
    N_(
        "parent {parent} is not in this file (a resumed or forked session starts this way): "
        "the record starts a root"
    ),
    N_("uuid {uuid} appeared on an earlier line: this {kind} record is left out"),
    N_("the user interrupted the turn ({text}); kept as the user message Claude Code sends"),
    N_(
        "Claude Code starts a new root at a compaction boundary; it is hung under its "
        "logical parent {parent} so the summary and the history it stands for share one path"
    ),
    N_(
        "{count} records of one assistant turn (message.id {message}) merged into one "
        "message: lines {lines_text} (uuids {uuids_text})"
    ),
    # --- Codex's records (codex.py)
    N_("{count} response items of one model response merged into one message: lines {lines_text}"),
    N_("turn aborted ({reason_text}): its last message {entry} stops with 'aborted'"),
    N_("turn aborted ({reason_text}): no reply yet"),
    N_(
        "Codex rolled back {count} turn(s): later records hang under {tip_text}; the "
        "rolled-back entries, from {entry}, stay in the file as an abandoned branch"
    ),
    N_(
        "Codex rolled back {count} turn(s) (only {on_path} on the path): later records hang "
        "under {tip_text}; the rolled-back entries, from {entry}, stay in the file as an "
        "abandoned branch"
    ),
    N_("no entry (a new root)"),
    # --- Claude Code's later shapes: partial compactions, late parents, no parent links
    N_(
        "no record of this file names a parent (no parentUuid): each of its {count} records "
        "hangs under the one before it, lines {first}-{last}"
    ),
    N_(
        "parent {parent} appears later in the file (line {line}): linked once every record was read"
    ),
    N_(
        "the parent links from here form a cycle (through {parent}, line {line}): the record "
        "starts a root"
    ),
    N_(
        "Claude Code kept {count} message record(s) through this compaction, from {first} to "
        "{last}; the chapter keeps them before it, where they were: the compaction hangs under "
        "{parent} and {moved} later record(s) that continue from the kept messages hang under it"
    ),
    N_(
        "the first kept record {uuid} hangs under the compaction's own summary (a file written "
        "after the compaction): it starts a root, so it comes before the compaction"
    ),
    # --- Codex's later shapes: event-only text, forked subagents, the legacy layout
    N_(
        "no response item of its turn carries the text of this user_message event ({count} "
        "characters): that text becomes the user message, placed after the other user-side "
        "records of its turn"
    ),
    N_(
        "the session of a subagent started by the session {parent}: the history it opens with "
        "is a copy of the parent history, kept, as it was sent to the model of the subagent"
    ),
    N_(
        "a session forked from the session {parent}: the history it opens with is a copy of "
        "the history of that session, kept, as it was sent to the model of this session"
    ),
    N_(
        "call {call} (spawn_agent) is the call of the parent session that started this "
        "subagent, copied without its output: its result {entry} says so, instead of the error result a call "
        "left unanswered gets"
    ),
    N_(
        "the legacy layout of Codex: a first line with the id and time of the session, then the "
        "response items themselves, with no timestamp, type and payload around them: each item "
        "read as a response_item record, this line as the session_meta"
    ),
    N_("record_type 'state' line (bookkeeping of Codex, never sent to a model): skipped"),
    N_("legacy item without a timestamp: the timestamp of the header used"),
    N_(
        "a user message Codex wrote itself, the {tag} context: kept as a user message, as the "
        "model received it as a user turn, so the chapter counts it as the start of a user "
        "interaction"
    ),
    # --- detection and severity
    # import_session's refusals (detect.py), for a view that shows one
    N_("{name}: no committed line, so no session format to recognise"),
    N_("{name}: line {line} is not valid UTF-8"),
    N_("{name}: the JSON reader refuses line {line}: {error_text}"),
    N_(
        "{name}: line {line} is not valid JSON ({error_text}); expected a pi, Claude Code or "
        "Codex CLI session"
    ),
    N_(
        "{name}: line {line} is a JSON {kind}, not an object; expected a pi, Claude Code or "
        "Codex CLI session"
    ),
    N_(
        "{name} is not a pi, Claude Code or Codex CLI session: its first record (line {line}, "
        "type {kind}) belongs to none of them"
    ),
    N_(
        "{name} is not a pi, Claude Code or Codex CLI session: its first record (line {line}, "
        "no type) belongs to none of them"
    ),
    N_(
        "{name} is not a pi, Claude Code or Codex CLI session: none of its first {count} "
        "records (lines {first}-{last}) belongs to one of them; line {line} has type {kind}"
    ),
    N_(
        "{name} is not a pi, Claude Code or Codex CLI session: none of its first {count} "
        "records (lines {first}-{last}) belongs to one of them; line {line} has no type"
    ),
    N_(
        "{name} is a course session file (line {line} is a course entry); open it with "
        "JsonlSessionStore or read_session_file, it needs no import"
    ),
)
"""Every sentence of an import note, as the importers write it in English."""
