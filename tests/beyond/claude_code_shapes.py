"""Claude Code files in the shapes current versions write, each a small sample in ``data/``.

Built here from the documented record shapes, for an invented task (a CSV
report script gaining a ``--json`` flag); nobody's logs. Each file holds one
shape the main sample (``agent_samples.py``) does not:

* ``partial-compaction-resumed.jsonl``: a partial compaction as a file written
  after it holds it: the boundary first, naming as its logical parent the
  newest kept message, which appears *later* in the file; the kept messages
  re-hung under the summary (``preservedSegment`` and ``preservedMessages`` as
  an object, both naming the summary as their anchor);
* ``partial-compaction-in-place.jsonl``: the same compaction where it happened,
  in the file that holds the summarised history: the kept messages before the
  boundary (kept from the middle of an interaction), an ``attachment`` record
  between the boundary and its summary, and the next prompt chained onto the
  newest kept message, as Claude Code chains it;
* ``summary-after-attachment.jsonl``: a whole compaction whose summary record
  follows an ``attachment`` record, not the boundary itself;
* ``no-parent-links.jsonl``: records with uuids but no ``parentUuid`` at all,
  as files written by older tools and readers' fixtures have them.

``python tests/beyond/claude_code_shapes.py`` writes the files again;
``tests/beyond/test_claude_code_shapes.py`` checks the committed ones equal these.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agent_samples import _Claude, _lines, _say, _use, write_samples

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "data" / "claude-code-sessions"
RESUMED = FOLDER / "partial-compaction-resumed.jsonl"
IN_PLACE = FOLDER / "partial-compaction-in-place.jsonl"
AFTER_ATTACHMENT = FOLDER / "summary-after-attachment.jsonl"
NO_PARENT_LINKS = FOLDER / "no-parent-links.jsonl"

SUMMARY = """\
This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Summary:
1. Primary Request and Intent:
   Give report.py a --json flag that prints the totals as JSON.

2. Files and Code Sections:
   - report.py
     - main() parses its arguments with argparse

3. Errors and fixes:
   - The CSV header was counted as a row: skipped with next(reader).

4. Pending Tasks:
   - Add the --json flag.

5. Current Work:
   The totals are right; the flag is next.
"""


def _summarised_history(c: _Claude) -> str:
    """Two interactions the compaction summarises: reading the script, fixing its count."""
    u = c.user(None, "report.py counts one row too many. Find out why.")
    a = c.assistant(u, "msg_r1", _use("toolu_r1", "Read", file_path="report.py"), stop="tool_use")
    r = c.result(a, "toolu_r1", "rows = list(csv.reader(f))\ntotal = len(rows)\n")
    a = c.assistant(r, "msg_r2", _say("The header row is counted. I will skip it."))
    a = c.assistant(a, "msg_r2", _use("toolu_r2", "Edit", file_path="report.py",
                                      old_string="rows = list(csv.reader(f))",
                                      new_string="reader = csv.reader(f)\nnext(reader)\nrows = list(reader)"),
                    stop="tool_use")  # fmt: skip
    r = c.result(a, "toolu_r2", "The file report.py has been updated.")
    return c.assistant(r, "msg_r3", _say("Fixed: the header is skipped."), stop="end_turn")


def _kept_turn(c: _Claude, parent: str | None) -> tuple[str, str]:
    """The interaction the compaction keeps: the flag asked for and added (head, tail)."""
    head = c.user(parent, "Now add a --json flag that prints the totals as JSON.")
    a = c.assistant(head, "msg_k1", _use("toolu_k1", "Edit", file_path="report.py",
                                         old_string="print(total)",
                                         new_string="print(json.dumps({'total': total}) if args.json else total)"),
                    stop="tool_use")  # fmt: skip
    r = c.result(a, "toolu_k1", "The file report.py has been updated.")
    tail = c.assistant(r, "msg_k2", _say("Added --json."), stop="end_turn")
    return head, tail


def _after(c: _Claude, parent: str) -> None:
    """The conversation after the compaction: one more round trip."""
    u = c.user(parent, "Run it with --json on sample.csv.")
    a = c.assistant(u, "msg_a1", _use("toolu_a1", "Bash", command="python report.py --json sample.csv"),
                    stop="tool_use")  # fmt: skip
    r = c.result(a, "toolu_a1", '{"total": 41}')
    c.assistant(r, "msg_a2", _say('It prints {"total": 41}.'), stop="end_turn")


def _boundary(c: _Claude, logical: str, **metadata: Any) -> dict[str, Any]:
    return c.base("system", None, subtype="compact_boundary", content="Conversation compacted",
                  isMeta=False, level="info", logicalParentUuid=logical,
                  compactMetadata={"trigger": "manual", "preTokens": c.compacted(), **metadata})  # fmt: skip


def _preserved(head: str, anchor: str, tail: str, uuids: list[str]) -> dict[str, Any]:
    return {
        "preservedSegment": {"headUuid": head, "anchorUuid": anchor, "tailUuid": tail},
        "preservedMessages": {"anchorUuid": anchor, "uuids": uuids},
    }


def resumed_records() -> list[dict[str, Any]]:
    """A file written after a partial compaction: boundary and summary first, then what it kept."""
    c = _Claude()
    head, tail = _kept_turn(c, None)
    kept = [record["uuid"] for record in c.records]
    boundary = _boundary(c, tail)
    summary = c.user(boundary["uuid"], SUMMARY, isCompactSummary=True,
                     isVisibleInTranscriptOnly=True)  # fmt: skip
    boundary["compactMetadata"].update(_preserved(head, summary, tail, kept))
    c.records[0]["parentUuid"] = summary  # the kept head, re-hung under the summary
    c.records[:] = c.records[len(kept) :] + c.records[: len(kept)]  # boundary and summary first
    _after(c, tail)
    return c.records


def in_place_records() -> list[dict[str, Any]]:
    """The same compaction in the file that holds the history it summarises."""
    c = _Claude()
    last = _summarised_history(c)
    head, tail = _kept_turn(c, last)
    kept = [record["uuid"] for record in c.records[-3:]]  # from the call on: mid-interaction
    boundary = _boundary(c, tail)
    attachment = c.base("attachment", boundary["uuid"],
                        attachment={"type": "file", "filename": "report.py"})  # fmt: skip
    summary = c.user(attachment["uuid"], SUMMARY, isCompactSummary=True,
                     isVisibleInTranscriptOnly=True)  # fmt: skip
    boundary["compactMetadata"].update(_preserved(kept[0], boundary["uuid"], tail, kept))
    del head, summary
    _after(c, tail)  # Claude Code chains the next prompt onto the newest kept message
    return c.records


def after_attachment_records() -> list[dict[str, Any]]:
    """A whole compaction (nothing kept) whose summary follows an attachment record."""
    c = _Claude()
    last = _summarised_history(c)
    boundary = _boundary(c, last)
    attachment = c.base("attachment", boundary["uuid"],
                        attachment={"type": "file", "filename": "report.py"})  # fmt: skip
    summary = c.user(attachment["uuid"], SUMMARY, isCompactSummary=True,
                     isVisibleInTranscriptOnly=True)  # fmt: skip
    _after(c, summary)
    return c.records


def no_parent_links_records() -> list[dict[str, Any]]:
    """The history, a compaction and what follows, with every ``parentUuid`` left out."""
    records = after_attachment_records()
    for record in records:
        record.pop("parentUuid", None)
        record.pop("logicalParentUuid", None)
    return [record for record in records if record["type"] != "attachment"]


def shape_texts() -> dict[Path, str]:
    """Each sample file and the text it must hold."""
    return {
        RESUMED: _lines(resumed_records()),
        IN_PLACE: _lines(in_place_records()),
        AFTER_ATTACHMENT: _lines(after_attachment_records()),
        NO_PARENT_LINKS: _lines(no_parent_links_records()),
    }


def main() -> int:
    return write_samples(shape_texts())


if __name__ == "__main__":
    sys.exit(main())
