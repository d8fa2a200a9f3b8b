"""Claude Code files that open with a bookkeeping record, and files no importer reads.

Built here from the documented record shapes, for an invented task (a greeting
script gaining a ``--name`` option); nobody's logs. Current Claude Code files
may open with a record that is no message: a permission mode, a mode, a title
the user gave the session, an attachment, a hook's progress, a summary title, a
file-history snapshot or a queued prompt, some of them with no uuid or session
id at all. Each ``starts-with-<type>.jsonl`` opens with one of them, then holds
one short conversation (a tool round trip and an answer), so detection must
read past the first line to recognise it, and the importer imports it whole.

The files no importer reads (a first line over the JSON limits, records of no
agent's format) are built in memory by ``refused_files``: ``data/`` holds only
files an importer imports.

``python tests/beyond/detect_shapes.py`` writes the files again;
``tests/beyond/test_import_detect.py`` checks the committed ones equal these.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_samples import SESSION_ID, _Claude, _lines, _say, _time, _use, write_samples

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "data" / "claude-code-sessions"

HOOK = "SessionStart:startup"


def _permission_mode(c: _Claude) -> dict[str, Any]:
    """The permission mode the session started in: no uuid, no session id."""
    return {"type": "permission-mode", "permissionMode": "acceptEdits"}


def _mode(c: _Claude) -> dict[str, Any]:
    """The interface's mode (plan mode here): no uuid, no session id."""
    return {"type": "mode", "mode": "plan"}


def _custom_title(c: _Claude) -> dict[str, Any]:
    """A title the user gave the session: its session id, no uuid."""
    return {"type": "custom-title", "customTitle": "Greeting --name", "sessionId": SESSION_ID}


def _attachment(c: _Claude) -> dict[str, Any]:
    """A file attached to the first prompt: linked into the tree, the first record of it."""
    record = c.base(
        "attachment",
        None,
        attachment={"type": "file", "filename": "greet.py", "content": "print('Hello')\n"},
    )
    c.records.pop()  # ``base`` appended it; the caller puts it first
    return record


def _progress(c: _Claude) -> dict[str, Any]:
    """A start-up hook's progress: linked into the tree, the first record of it."""
    record = c.base(
        "progress",
        None,
        data={"type": "hook_progress", "hookEvent": "SessionStart", "hookName": HOOK,
              "command": "echo ready"},
        parentToolUseID=HOOK,
        toolUseID=HOOK,
    )  # fmt: skip
    c.records.pop()
    return record


def _summary(c: _Claude) -> dict[str, Any]:
    """The session's title as a summary record naming its leaf (the conversation's last uuid)."""
    return {"type": "summary", "summary": "Greeting --name", "leafUuid": _leaf_uuid()}


def _file_history_snapshot(c: _Claude) -> dict[str, Any]:
    """The files' state before the first prompt, named by that prompt's message id."""
    first = _uuid(1)  # the prompt after it: the first record ``_Claude`` numbers
    return {"type": "file-history-snapshot", "messageId": first,
            "snapshot": {"messageId": first, "trackedFileBackups": {}, "timestamp": _time(0)},
            "isSnapshotUpdate": False}  # fmt: skip


def _queue_operation(c: _Claude) -> dict[str, Any]:
    """A prompt typed while the agent was busy, queued: its session id, no uuid."""
    return {"type": "queue-operation", "operation": "enqueue", "timestamp": _time(0),
            "sessionId": SESSION_ID, "content": "Add a --name option to greet.py."}  # fmt: skip


FIRST_RECORDS: dict[str, Callable[[_Claude], dict[str, Any]]] = {
    "permission-mode": _permission_mode,
    "mode": _mode,
    "custom-title": _custom_title,
    "attachment": _attachment,
    "progress": _progress,
    "summary": _summary,
    "file-history-snapshot": _file_history_snapshot,
    "queue-operation": _queue_operation,
}
"""Each first record's type, and how it is built (``_Claude`` numbers the uuids)."""


def _uuid(number: int) -> str:
    return f"00000000-0000-4000-8000-{number:012d}"


def _leaf_uuid() -> str:
    """The uuid of the conversation's last record, as ``_conversation`` numbers them."""
    return _uuid(len(_conversation_records()))


def _conversation(c: _Claude, parent: str | None) -> None:
    """One interaction: the prompt, a tool round trip, the answer."""
    u = c.user(parent, "Add a --name option to greet.py.")
    a = c.assistant(u, "msg_g1", _use("toolu_g1", "Edit", file_path="greet.py",
                                      old_string="print('Hello')",
                                      new_string="print(f'Hello, {args.name}')"),
                    stop="tool_use")  # fmt: skip
    r = c.result(a, "toolu_g1", "The file greet.py has been updated.")
    c.assistant(r, "msg_g2", _say("greet.py now takes --name."), stop="end_turn")


def _conversation_records() -> list[dict[str, Any]]:
    c = _Claude()
    _conversation(c, None)
    return c.records


def starts_with(kind: str) -> list[dict[str, Any]]:
    """A Claude Code file whose first record has type ``kind``, then one conversation.

    A first record linked into the tree (an attachment, a progress record) is
    the conversation's root: the prompt hangs under it, as Claude Code links it.
    """
    c = _Claude()
    first = FIRST_RECORDS[kind](c)
    _conversation(c, first.get("uuid"))
    return [first, *c.records]


def path_of(kind: str) -> Path:
    """Where the sample that starts with a ``kind`` record lives."""
    return FOLDER / f"starts-with-{kind}.jsonl"


def sample_texts() -> dict[Path, str]:
    """Each sample file's path and its exact text."""
    return {path_of(kind): _lines(starts_with(kind)) for kind in FIRST_RECORDS}


# --- files no importer reads: built in memory, never written to data/ ---------------------------


def too_deep_first_line(depth: int) -> bytes:
    """A Claude Code file whose first line is a record nested ``depth`` levels deep (in its
    ``toolUseResult``), then the conversation: JSON, but over a reader's depth limit."""
    nested: Any = "deep"
    for _ in range(depth - 1):
        nested = [nested]
    c = _Claude()
    _conversation(c, None)
    first = {**c.records[0], "toolUseResult": nested}
    return _lines([first, *c.records[1:]]).encode("utf-8")


def no_agent_records() -> bytes:
    """A chat export of some other tool: JSON objects with a type, none of an agent's."""
    records = [
        {"type": "conversation", "title": "Greeting --name", "created": _time(0)},
        {"type": "turn", "speaker": "human", "text": "Add a --name option to greet.py."},
        {"type": "turn", "speaker": "bot", "text": "greet.py now takes --name."},
    ]
    return "".join(json.dumps(record) + "\n" for record in records).encode("utf-8")


def main() -> int:
    return write_samples(sample_texts())


if __name__ == "__main__":
    sys.exit(main())
