"""Small Codex CLI files in ``data/codex-sessions/``: one per shape besides the sample's.

Nobody's logs: every record is built here from the record shapes Codex is
documented to write, for the same invented task as ``agent_samples`` (fixing
``divide()`` in a small calculator project). Each file holds one shape, and
Codex's injected context (the environment, the user's instructions, AGENTS.md)
sits inside the last two:

* ``event-only-text.jsonl``: an archived rollout whose user messages are
  written as a ``response_item`` and a ``user_message`` event (in both orders),
  or as the event alone (its first one among them); one ``agent_message``
  event has no item either.
* ``forked-subagent.jsonl``: a subagent's rollout: its header names the parent
  (``forked_from_id``, ``source.subagent.thread_spawn``), the parent's header
  and history are copied in, ending with the parent's ``spawn_agent`` call and
  no output for it, then the subagent's own turn.
* ``legacy-layout.jsonl``: the early layout: a header line ``{id, timestamp,
  instructions, git}`` with no ``type``, the response items themselves, and
  ``{"record_type": "state"}`` lines.

``python tests/beyond/codex_shapes.py`` writes the files again;
``tests/beyond/test_codex_shapes.py`` checks the committed ones equal these.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agent_samples import write_samples

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "data" / "codex-sessions"
EVENT_ONLY = FOLDER / "event-only-text.jsonl"
FORKED = FOLDER / "forked-subagent.jsonl"
LEGACY = FOLDER / "legacy-layout.jsonl"

CWD = "/projects/calc"
PARENT_ID = "0199b0c1-2d3e-7f40-8a1b-2c3d4e5f6a70"
CHILD_ID = "0199b0c1-9e8d-7c6b-8a59-483726150f4e"
ARCHIVED_ID = "0199a9f0-1122-7334-8556-6778899aabbc"
LEGACY_ID = "5f0e3c2a-8b1d-4e6f-9a7c-3d2b1e0f4a5c"
SPAWN_CALL = "call_spawn_01"
ENVIRONMENT = (
    f"<environment_context>\n  <cwd>{CWD}</cwd>\n  <approval_policy>on-request</approval_policy>"
    "\n</environment_context>"
)
AGENTS_MD = (
    f"# AGENTS.md instructions for {CWD}\n\n<INSTRUCTIONS>\nRun pytest -q before you answer."
    "\n</INSTRUCTIONS>"
)
USER_INSTRUCTIONS = "<user_instructions>\n\nKeep answers short.\n\n</user_instructions>"


def _lines(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records)


def _text(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def _shell(call_id: str, *command: str) -> dict[str, Any]:
    arguments = json.dumps({"command": list(command), "workdir": CWD}, separators=(",", ":"))
    return {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call_id}


def _output(call_id: str, text: str, exit_code: int = 0) -> dict[str, Any]:
    body = json.dumps({"output": text, "metadata": {"exit_code": exit_code,
                                                    "duration_seconds": 0.3}},
                      separators=(",", ":"))  # fmt: skip
    return {"type": "function_call_output", "call_id": call_id, "output": body}


class _Rollout:
    """Records with a clock: ``{timestamp, type, payload}``, two seconds apart."""

    def __init__(self, start: int) -> None:
        self.records: list[dict[str, Any]] = []
        self.second = start
        self.total = 0

    def add(self, kind: str, payload: dict[str, Any]) -> None:
        self.second += 2
        minute, second = divmod(self.second, 60)
        stamp = f"2026-03-02T10:{minute:02d}:{second:02d}.000Z"
        self.records.append({"timestamp": stamp, "type": kind, "payload": payload})

    def item(self, payload: dict[str, Any]) -> None:
        self.add("response_item", payload)

    def user(self, text: str) -> None:
        self.item(_text("user", text))

    def say(self, text: str) -> None:
        self.item(_text("assistant", text))

    def event(self, kind: str, **fields: Any) -> None:
        self.add("event_msg", {"type": kind, **fields})

    def heard(self, text: str) -> None:
        """The interface's copy of a user message: a ``user_message`` event."""
        self.event("user_message", message=text, images=[])

    def tokens(self, prompt: int, output: int) -> None:
        self.total += prompt + output
        last = {"input_tokens": prompt, "cached_input_tokens": prompt // 2,
                "output_tokens": output, "reasoning_output_tokens": 0,
                "total_tokens": prompt + output}  # fmt: skip
        total = {**last, "input_tokens": self.total, "total_tokens": self.total}
        self.event("token_count", info={"total_token_usage": total, "last_token_usage": last,
                                        "model_context_window": 272_000}, rate_limits=None)  # fmt: skip

    def turn_context(self) -> None:
        self.add("turn_context", {"cwd": CWD, "approval_policy": "on-request",
                                  "sandbox_policy": {"mode": "workspace-write"},
                                  "model": "sample-model-b", "effort": "medium",
                                  "summary": "auto"})  # fmt: skip


def event_only_records() -> list[dict[str, Any]]:
    """An archived rollout: some user messages are written twice, some only as an event."""
    x = _Rollout(0)
    x.add("session_meta", {"id": ARCHIVED_ID, "timestamp": "2026-03-02T10:00:00.000Z", "cwd": CWD,
                           "originator": "codex_cli_rs", "cli_version": "0.58.0",
                           "source": "cli"})  # fmt: skip
    x.item(_text("developer", "Answer in plain sentences; cite file names with line numbers."))
    # Turn 1: the user's message is only an event, the first user message of the file.
    x.turn_context()
    x.heard("The divide test fails. Find out why and fix it.")
    summary = [{"type": "summary_text", "text": "**Running the tests**"}]
    x.item({"type": "reasoning", "summary": summary, "content": None,
            "encrypted_content": "gAAAAB-opaque"})  # fmt: skip
    x.item(_shell("call_01", "pytest", "-q"))
    x.tokens(2_200, 40)
    x.item(_output("call_01", "1 failed, 4 passed: test_divide raised ZeroDivisionError", 1))
    x.say("divide() does not guard against b == 0; it now raises ValueError.")
    x.tokens(2_500, 30)
    x.event(
        "agent_message", message="divide() does not guard against b == 0; it now raises ValueError."
    )
    # Turn 2: the item, then its event.
    x.turn_context()
    x.user("Run the tests again.")
    x.heard("Run the tests again.")
    x.item(_shell("call_02", "pytest", "-q"))
    x.tokens(2_700, 20)
    x.item(_output("call_02", "5 passed"))
    x.event("agent_message", message="Running the tests once more.")  # an event no item carries
    x.say("All 5 tests pass.")
    x.tokens(2_800, 10)
    # Turn 3: the event, then its item.
    x.turn_context()
    x.heard("Add a test for the zero case.")
    x.user("Add a test for the zero case.")
    x.say("Added tests/test_divide_zero.py.")
    x.tokens(3_000, 25)
    # Turn 4: an event alone again, with the text turn 2 sent: its own turn, its own message.
    x.turn_context()
    x.heard("Run the tests again.")
    x.say("All 6 tests pass.")
    x.tokens(3_100, 10)
    return x.records


def forked_records() -> list[dict[str, Any]]:
    """A subagent's rollout: the parent's history up to the spawn call, copied, then its own."""
    x = _Rollout(600)
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": PARENT_ID, "depth": 1,
                                           "agent_nickname": "Ada", "agent_role": "explorer"}}}  # fmt: skip
    x.add("session_meta", {"id": CHILD_ID, "forked_from_id": PARENT_ID,
                           "timestamp": "2026-03-02T10:21:00.000Z", "cwd": CWD,
                           "originator": "codex_cli_rs", "cli_version": "0.98.0",
                           "source": spawn})  # fmt: skip
    # The parent's history, copied: its header, its context, its turn up to the spawn call.
    x.add("session_meta", {"id": PARENT_ID, "timestamp": "2026-03-02T10:10:00.000Z", "cwd": CWD,
                           "originator": "codex_cli_rs", "cli_version": "0.98.0",
                           "source": "cli"})  # fmt: skip
    x.user(AGENTS_MD)
    x.user(ENVIRONMENT)
    x.turn_context()
    x.user("Document divide(), and have a helper check that docs/ mentions it.")
    x.heard("Document divide(), and have a helper check that docs/ mentions it.")
    x.say("I will ask a helper to check the docs while I write the docstring.")
    arguments = json.dumps({"message": "Check whether docs/ mentions divide().",
                            "fork_context": True}, separators=(",", ":"))  # fmt: skip
    x.item({"type": "function_call", "name": "spawn_agent", "arguments": arguments,
            "call_id": SPAWN_CALL})  # fmt: skip
    x.tokens(4_000, 60)
    # The subagent's own turn.
    x.turn_context()
    x.user("Check whether docs/ mentions divide().")
    x.heard("Check whether docs/ mentions divide().")
    x.item(_shell("call_11", "grep", "-rn", "divide", "docs/"))
    x.tokens(4_300, 30)
    x.item(_output("call_11", "docs/usage.md:12: divide(a, b) returns a / b."))
    x.say("Yes, once: docs/usage.md, line 12.")
    x.tokens(4_400, 15)
    x.event("agent_message", message="Yes, once: docs/usage.md, line 12.")
    return x.records


def legacy_records() -> list[dict[str, Any]]:
    """The early layout: a header with no ``type``, the items themselves, state lines."""
    state = {"record_type": "state"}
    header = {"id": LEGACY_ID, "timestamp": "2025-08-20T14:05:31.250Z", "instructions": None,
              "git": {"commit_hash": "4f2a9c1", "branch": "main",
                      "repository_url": "https://example.invalid/calc.git"}}  # fmt: skip
    summary = [{"type": "summary_text", "text": "**Running the tests**"}]
    return [
        header,
        state,
        _text("user", USER_INSTRUCTIONS),
        _text("user", ENVIRONMENT),
        _text("user", "The divide test fails. Find out why and fix it."),
        state,
        {
            "type": "reasoning",
            "id": "rs_01",
            "summary": summary,
            "encrypted_content": "gAAAAB-opaque",
        },
        _shell("call_01", "pytest", "-q"),
        _output("call_01", "1 failed, 4 passed: test_divide raised ZeroDivisionError", 1),
        _text("assistant", "divide() does not guard against b == 0; it now raises ValueError."),
        state,
        _text("user", "Thanks."),
        _text("assistant", "You are welcome."),
        state,
    ]


def shape_texts() -> dict[Path, str]:
    """Each file's path and its exact text."""
    return {
        EVENT_ONLY: _lines(event_only_records()),
        FORKED: _lines(forked_records()),
        LEGACY: _lines(legacy_records()),
    }


def main() -> int:
    return write_samples(shape_texts())


if __name__ == "__main__":
    sys.exit(main())
