"""The Claude Code and Codex CLI sample sessions in ``data/``, written from the documented shapes.

Nobody's logs: every record is built here, from the record shapes the two
tools are documented to write, for an invented task (fixing ``divide()`` in a
small calculator project). Each sample holds tool round trips, an aborted
turn, a tool call without a result, a branch (Claude Code: a rewind; Codex: a
rollback) and two compactions; the Claude Code one also holds a subagent's
sidechain and records that are never sent to a model.

``python tests/beyond/agent_samples.py`` writes the files again;
``tests/beyond/test_import_detect.py`` checks the committed ones equal these.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CLAUDE_CODE_SAMPLE = ROOT / "data" / "claude-code-sessions" / "sample-session.jsonl"
CODEX_SAMPLE = ROOT / "data" / "codex-sessions" / "sample-rollout.jsonl"

SESSION_ID = "6f1c2a4e-0b7d-4c1e-9a55-3e2d8c7b9f01"
CWD = "/projects/calc"


def _time(second: int) -> str:
    return f"2026-03-02T09:{second // 60:02d}:{second % 60:02d}.000Z"


def _lines(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records)


# --- Claude Code ----------------------------------------------------------------------

CLAUDE_SUMMARY_1 = """\
This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Analysis:
The user asked to fix a failing divide test, then to cover division by zero with a test.

Summary:
1. Primary Request and Intent:
   Fix the failing divide test in calc.py and cover the zero case with a test.

2. Key Technical Concepts:
   - pytest and pytest.raises
   - ValueError instead of ZeroDivisionError

3. Files and Code Sections:
   - calc.py
     - divide() now raises ValueError when b == 0
   - tests/test_divide_zero.py
     - a new test using pytest.raises

4. Errors and fixes:
   - ZeroDivisionError in test_divide: fixed by the guard in divide()

5. Problem Solving:
   Chose ValueError so that the message can name the argument.

6. All user messages:
   - The divide test fails. Find out why and fix it.
   - Now add a test for the zero case.
   - Use pytest.raises, and name the file tests/test_divide_zero.py.

7. Pending Tasks:
   - None.

8. Current Work:
   Added tests/test_divide_zero.py; the suite passes.

9. Optional Next Step:
   Run the whole suite once more.
"""

CLAUDE_SUMMARY_2 = """\
This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Summary:
1. Primary Request and Intent:
   Keep divide() correct and documented; the user chose documentation over integer division.

2. Files and Code Sections:
   - calc.py
     - divide() has a docstring

3. Pending Tasks:
   - Commit the change.

4. Current Work:
   A subagent checked the docs; divide() is mentioned once.
"""


class _Claude:
    """Builds records with uuids from a counter, each hung under the last one unless told."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.count = 0
        self.second = 0
        self.context = 12_000
        """What the next call's prompt reads from the cache: it grows by 400 a call and
        starts again, smaller, after a compaction (``compacted``)."""
        self.last_prompt = 0

    def uuid(self) -> str:
        self.count += 1
        return f"00000000-0000-4000-8000-{self.count:012d}"

    def base(self, kind: str, parent: str | None, **extra: Any) -> dict[str, Any]:
        self.second += 3
        record = {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SESSION_ID,
            "version": "1.0.80",
            "gitBranch": "main",
            "type": kind,
            **extra,
            "uuid": self.uuid(),
            "timestamp": _time(self.second),
        }
        self.records.append(record)
        return record

    def user(self, parent: str | None, content: Any, **extra: Any) -> str:
        message = {"role": "user", "content": content}
        return str(self.base("user", parent, message=message, **extra)["uuid"])

    def result(self, parent: str, call_id: str, text: str, *, error: bool = False) -> str:
        block = {"tool_use_id": call_id, "type": "tool_result", "content": text, "is_error": error}
        return self.user(parent, [block], toolUseResult={"stdout": text, "stderr": ""})

    def assistant(
        self,
        parent: str,
        message_id: str,
        block: dict[str, Any],
        *,
        stop: str | None = None,
        output: int = 20,
        **extra: Any,
    ) -> str:
        message = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": "sample-model-a",
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 4,
                "cache_creation_input_tokens": 300,
                "cache_read_input_tokens": self.context,
                "output_tokens": output,
                "service_tier": "standard",
            },
        }
        self.last_prompt = 4 + 300 + self.context
        self.context += 400
        return str(
            self.base("assistant", parent, message=message, requestId=f"req_{message_id}", **extra)[
                "uuid"
            ]
        )

    def compacted(self) -> int:
        """The prompt tokens of the last call before a compaction (its ``preTokens``); the next
        call reads only the summary and what follows, so its prompt starts small again."""
        before = self.last_prompt
        self.context = 3_000
        return before


def _say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _use(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def claude_code_records() -> list[dict[str, Any]]:
    """The Claude Code sample, record by record."""
    c = _Claude()
    c.records.append({"type": "summary", "summary": "Fix the failing divide test",
                      "leafUuid": "00000000-0000-4000-8000-000000000046"})  # fmt: skip
    c.records.append({"type": "file-history-snapshot", "messageId": "00000000-0000-4000-8000-000000000001",
                      "snapshot": {"trackedFileBackups": {}, "timestamp": _time(0)},
                      "isSnapshotUpdate": False})  # fmt: skip
    # Turn 1: three round trips; one turn written as three records, one as interleaved ones.
    u1 = c.user(None, "The divide test fails. Find out why and fix it.")
    a = c.assistant(u1, "msg_01", {"type": "thinking", "thinking": "Run the tests first.",
                                   "signature": "c2lnbmF0dXJl"})  # fmt: skip
    a = c.assistant(a, "msg_01", _say("Let me run the tests."))
    a = c.assistant(a, "msg_01", _use("toolu_01", "Bash", command="pytest -q"), stop="tool_use")
    r = c.result(a, "toolu_01", "1 failed, 4 passed: test_divide raised ZeroDivisionError")
    a = c.assistant(r, "msg_02", _use("toolu_02", "Read", file_path="calc.py"), stop="tool_use")
    r = c.result(a, "toolu_02", "def divide(a, b):\n    return a / b\n")
    a = c.assistant(r, "msg_03", _say("divide() does not guard against b == 0. I will fix it."))
    a = c.assistant(a, "msg_03", _use("toolu_03", "Edit", file_path="calc.py",
                                      old_string="    return a / b",
                                      new_string="    if b == 0:\n        raise ValueError('b must not be 0')\n    return a / b"))  # fmt: skip
    r = c.result(a, "toolu_03", "The file calc.py has been updated.")
    a = c.assistant(r, "msg_03", _use("toolu_04", "Bash", command="pytest -q"), stop="tool_use")
    r = c.result(a, "toolu_04", "5 passed")
    a = c.assistant(
        r, "msg_04", _say("Fixed: divide() raises ValueError for b == 0."), stop="end_turn"
    )
    s = str(c.base("system", a, subtype="informational", content="Checkpoint saved",
                   level="info")["uuid"])  # fmt: skip
    # Turn 2: a tool call the user interrupts: it never gets a result.
    u2 = c.user(s, "Now add a test for the zero case.")
    a = c.assistant(u2, "msg_05", _use("toolu_05", "Write", file_path="tests/test_zero.py",
                                       content="def test_zero(): ..."), stop="tool_use")  # fmt: skip
    i = c.user(a, [_say("[Request interrupted by user for tool use]")])
    u3 = c.user(i, "Use pytest.raises, and name the file tests/test_divide_zero.py.")
    a = c.assistant(u3, "msg_06", _use("toolu_06", "Write", file_path="tests/test_divide_zero.py",
                                       content="import pytest\nfrom calc import divide\n\n\ndef test_divide_zero():\n    with pytest.raises(ValueError):\n        divide(1, 0)\n"),
                    stop="tool_use")  # fmt: skip
    r = c.result(a, "toolu_06", "File created successfully at: tests/test_divide_zero.py")
    last = c.assistant(r, "msg_07", _say("Added tests/test_divide_zero.py."), stop="end_turn")
    c.records.append({"type": "queue-operation", "operation": "enqueue", "timestamp": _time(80),
                      "sessionId": SESSION_ID, "content": "Run the whole suite once more."})  # fmt: skip
    # Compaction 1 (manual): a new root that names its logical parent, then the summary.
    b = str(c.base("system", None, subtype="compact_boundary", content="Conversation compacted",
                   isMeta=False, level="info", logicalParentUuid=last,
                   compactMetadata={"trigger": "manual", "preTokens": c.compacted()})["uuid"])  # fmt: skip
    summary = c.user(b, CLAUDE_SUMMARY_1, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    u4 = c.user(summary, "Run the whole suite once more.")
    a = c.assistant(u4, "msg_08", _use("toolu_07", "Bash", command="pytest -q"), stop="tool_use")
    r = c.result(a, "toolu_07", "6 passed")
    fork = c.assistant(r, "msg_09", _say("All 6 tests pass."), stop="end_turn")
    # A branch: the user rewinds to ``fork`` and asks for something else instead.
    u5 = c.user(fork, "Also support integer division.")
    c.assistant(u5, "msg_10", _say("I will add a floordiv() function next to divide()."),
                stop="end_turn")  # fmt: skip
    u6 = c.user(fork, "Actually, document divide() instead.")
    a = c.assistant(u6, "msg_11", _say("Writing the docstring."))
    a = c.assistant(a, "msg_11", _use("toolu_08", "Edit", file_path="calc.py",
                                      old_string="def divide(a, b):",
                                      new_string='def divide(a, b):\n    """a / b; ValueError when b is 0."""'),
                    stop="tool_use")  # fmt: skip
    r = c.result(a, "toolu_08", "The file calc.py has been updated.")
    # An aborted turn: the answer stops mid-sentence (no stop reason) and the user interrupts.
    a = c.assistant(r, "msg_12", _say("Docstring added. Now I will also upd"))
    i = c.user(a, [_say("[Request interrupted by user]")])
    # A subagent: its own conversation is a sidechain; only the Task result is on the main path.
    u7 = c.user(i, "Ask a subagent whether the docs mention divide().")
    task = c.assistant(u7, "msg_13", _use("toolu_09", "Task", description="Check the docs",
                                          prompt="Does docs/ mention divide()?"), stop="tool_use")  # fmt: skip
    side = c.user(None, "Does docs/ mention divide()?", isSidechain=True)
    c.assistant(side, "msg_s1", _say("Yes, once, in docs/usage.md."), stop="end_turn",
                isSidechain=True)  # fmt: skip
    last = c.result(task, "toolu_09", "Yes, once, in docs/usage.md.")
    # Compaction 2: asked for again, before the next task (the sample is far from any window,
    # so an automatic one would be out of place).
    b = str(c.base("system", None, subtype="compact_boundary", content="Conversation compacted",
                   isMeta=False, level="info", logicalParentUuid=last,
                   compactMetadata={"trigger": "manual", "preTokens": c.compacted()})["uuid"])  # fmt: skip
    summary = c.user(b, CLAUDE_SUMMARY_2, isCompactSummary=True, isVisibleInTranscriptOnly=True)
    u8 = c.user(summary, "Thanks. Commit the change.")
    a = c.assistant(u8, "msg_14", _use("toolu_10", "Bash", command="git commit -am 'Document divide()'"),
                    stop="tool_use")  # fmt: skip
    r = c.result(a, "toolu_10", "[main 1a2b3c4] Document divide()\n 1 file changed")
    c.assistant(r, "msg_15", _say("Committed."), stop="end_turn")
    return c.records


# --- Codex CLI --------------------------------------------------------------------------

CODEX_SUMMARY_1 = """\
## Goal
Fix the failing divide test and cover division by zero with a test.

## Progress
### Done
- divide() raises ValueError when b == 0
- Added tests/test_divide_zero.py

## Key Decisions
- ValueError rather than ZeroDivisionError, so that the message can name the argument

## Files
- calc.py
- tests/test_divide_zero.py

## Next Steps
- Run the whole suite once more

## Notes
- The first attempt to write the test was interrupted by the user
"""

CODEX_SUMMARY_2 = """\
Handoff summary.
- The suite passes (6 tests).
- divide() is documented; integer division was dropped.
- Commit the change next.
"""

BRIDGE = "Another language model started to solve this problem and produced a summary of its thinking process. Use it to continue:\n"


class _Codex:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.second = 0
        self.calls = 0
        self.total = 0

    def add(self, kind: str, payload: dict[str, Any]) -> None:
        self.second += 2
        self.records.append({"timestamp": _time(self.second), "type": kind, "payload": payload})

    def user(self, text: str) -> None:
        self.add("response_item", {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": text}]})  # fmt: skip

    def say(self, text: str) -> None:
        self.add("response_item", {"type": "message", "role": "assistant",
                                   "content": [{"type": "output_text", "text": text}]})  # fmt: skip

    def shell(self, *command: str) -> str:
        self.calls += 1
        call_id = f"call_{self.calls:02d}"
        arguments = json.dumps({"command": list(command), "workdir": CWD}, separators=(",", ":"))
        self.add("response_item", {"type": "function_call", "name": "shell",
                                   "arguments": arguments, "call_id": call_id})  # fmt: skip
        return call_id

    def patch(self, text: str) -> str:
        self.calls += 1
        call_id = f"call_{self.calls:02d}"
        self.add("response_item", {"type": "custom_tool_call", "status": "completed",
                                   "call_id": call_id, "name": "apply_patch", "input": text})  # fmt: skip
        return call_id

    def output(self, call_id: str, text: str, *, exit_code: int = 0, custom: bool = False) -> None:
        if custom:
            self.add("response_item", {"type": "custom_tool_call_output", "call_id": call_id,
                                       "output": text})  # fmt: skip
            return
        body = json.dumps({"output": text, "metadata": {"exit_code": exit_code,
                                                        "duration_seconds": 0.4}},
                          separators=(",", ":"))  # fmt: skip
        self.add("response_item", {"type": "function_call_output", "call_id": call_id,
                                   "output": body})  # fmt: skip

    def tokens(self, prompt: int, output: int) -> None:
        self.total += prompt + output
        last = {"input_tokens": prompt, "cached_input_tokens": prompt - 600,
                "output_tokens": output, "reasoning_output_tokens": output // 2,
                "total_tokens": prompt + output}  # fmt: skip
        total = {**last, "input_tokens": self.total, "total_tokens": self.total}
        self.add("event_msg", {"type": "token_count",
                               "info": {"total_token_usage": total, "last_token_usage": last,
                                        "model_context_window": 272_000},
                               "rate_limits": None})  # fmt: skip

    def turn_context(self) -> None:
        self.add("turn_context", {"cwd": CWD, "approval_policy": "on-request",
                                  "sandbox_policy": {"mode": "workspace-write"},
                                  "model": "sample-model-b", "effort": "medium",
                                  "summary": "auto"})  # fmt: skip

    def event(self, kind: str, **fields: Any) -> None:
        self.add("event_msg", {"type": kind, **fields})


def codex_records() -> list[dict[str, Any]]:
    """The Codex CLI sample, record by record."""
    x = _Codex()
    x.add("session_meta", {"id": "0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b", "timestamp": _time(0),
                           "cwd": CWD, "originator": "codex_cli_rs", "cli_version": "0.50.0",
                           "instructions": None})  # fmt: skip
    x.user("<user_instructions>\nKeep answers short.\n</user_instructions>")
    x.user(f"<environment_context>\n  <cwd>{CWD}</cwd>\n</environment_context>")
    x.turn_context()
    # Turn 1: three round trips, a response written as reasoning + text + call.
    x.event("user_message", message="The divide test fails. Find out why and fix it.", images=[])
    x.user("The divide test fails. Find out why and fix it.")
    x.add("response_item", {"type": "reasoning", "summary": [{"type": "summary_text",
                                                             "text": "**Running the tests**"}],
                            "content": None, "encrypted_content": "gAAAAB-opaque"})  # fmt: skip
    c = x.shell("pytest", "-q")
    x.tokens(2_400, 60)
    x.output(c, "1 failed, 4 passed: test_divide raised ZeroDivisionError", exit_code=1)
    x.say("divide() does not guard against b == 0. I will fix it.")
    c = x.patch(
        "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return a / b\n+    if b == 0:\n+        raise ValueError('b must not be 0')\n+    return a / b\n*** End Patch"
    )
    x.tokens(2_700, 140)
    x.output(c, "Success. Updated the following files:\nM calc.py", custom=True)
    c = x.shell("pytest", "-q")
    x.tokens(2_900, 30)
    x.output(c, "5 passed")
    x.say("Fixed: divide() raises ValueError for b == 0.")
    x.tokens(3_000, 20)
    x.event("agent_message", message="Fixed: divide() raises ValueError for b == 0.")
    # Turn 2: the user interrupts a call, which never gets an output.
    x.turn_context()
    x.user("Now add a test for the zero case.")
    x.shell("bash", "-lc", "cat > tests/test_zero.py")
    x.tokens(3_100, 50)
    x.event("turn_aborted", reason="interrupted")
    # Turn 3.
    x.turn_context()
    x.user("Use pytest.raises, and name the file tests/test_divide_zero.py.")
    c = x.patch(
        "*** Begin Patch\n*** Add File: tests/test_divide_zero.py\n+import pytest\n+from calc import divide\n+\n+\n+def test_divide_zero():\n+    with pytest.raises(ValueError):\n+        divide(1, 0)\n*** End Patch"
    )
    x.tokens(3_300, 120)
    x.output(c, "Success. Updated the following files:\nA tests/test_divide_zero.py", custom=True)
    x.say("Added tests/test_divide_zero.py.")
    x.tokens(3_500, 15)
    # Compaction 1: Codex keeps the newest user messages and the summary.
    history = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        for text in (
            "Now add a test for the zero case.",
            "Use pytest.raises, and name the file tests/test_divide_zero.py.",
            BRIDGE + CODEX_SUMMARY_1,
        )
    ]
    x.add("compacted", {"message": CODEX_SUMMARY_1, "replacement_history": history})
    x.event("context_compacted")
    # Turn 4.
    x.turn_context()
    x.user("Run the whole suite once more.")
    c = x.shell("pytest", "-q")
    x.tokens(1_900, 25)
    x.output(c, "6 passed")
    x.say("All 6 tests pass.")
    x.tokens(2_000, 10)
    # A rollback: the user takes the next turn back and asks for something else.
    x.turn_context()
    x.user("Also support integer division.")
    x.say("I will add a floordiv() function next to divide().")
    x.tokens(2_100, 20)
    x.event("thread_rolled_back", num_turns=1)
    x.turn_context()
    x.user("Actually, document divide() instead.")
    c = x.patch(
        '*** Begin Patch\n*** Update File: calc.py\n@@\n def divide(a, b):\n+    """a / b; ValueError when b is 0."""\n*** End Patch'
    )
    x.tokens(2_300, 60)
    x.output(c, "Success. Updated the following files:\nM calc.py", custom=True)
    # An aborted turn: the answer stops mid-sentence.
    x.say("Docstring added. Now I will also upd")
    x.tokens(2_500, 12)
    x.event("turn_aborted", reason="interrupted")
    # Compaction 2: an older shape, the summary alone (Codex kept nothing).
    x.add("compacted", {"message": CODEX_SUMMARY_2})
    x.turn_context()
    x.user("Thanks. Commit the change.")
    c = x.shell("git", "commit", "-am", "Document divide()")
    x.tokens(900, 30)
    x.output(c, "[main 1a2b3c4] Document divide()\n 1 file changed")
    x.say("Committed.")
    x.tokens(1_000, 5)
    return x.records


def sample_texts() -> dict[Path, str]:
    """Each sample file's path and its exact text."""
    return {
        CLAUDE_CODE_SAMPLE: _lines(claude_code_records()),
        CODEX_SAMPLE: _lines(codex_records()),
    }


def write_samples(texts: dict[Path, str]) -> int:
    """Write each sample file (every generator's ``main``), saying what was written."""
    for path, text in texts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)} ({text.count(chr(10))} records)")
    return 0


def main() -> int:
    return write_samples(sample_texts())


if __name__ == "__main__":
    sys.exit(main())
