"""The lab catalogue as data: each lab's topic, its number of checks, and where it lives.

The track (starters, checks), the grader and the views (the lab map) all read
this one table, so a lab is named the same way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CHAPTER_LABS",
    "EXERCISE_CHECK_COUNTS",
    "LAB_CHECK_COUNTS",
    "LAB_MAP",
    "LAB_TOPICS",
    "TS_TO_PYTHON",
    "LabMapRow",
]

LAB_TOPICS: dict[str, str] = {
    "11.1": "compaction entry",
    "11.2": "interaction groups",
    "11.3": "budget projection",
    "11.4": "create compaction",
    "11.5": "resume compaction",
    "transfer": "budget ledger",
}
"""Every lab of the track and what it builds: the chapter's five, then the transfer exercise.

Each has its regions in ``course_lib`` (``# --- Lab <lab> <topic>: begin ---``)
and its own checks (``course-lab check <lab>``). The transfer exercise comes
last: it reads the plan the chapter's labs build.
"""

LAB_CHECK_COUNTS: dict[str, int] = {"11.1": 3, "11.2": 3, "11.3": 3, "11.4": 2, "11.5": 4}
"""How many checks the course gives each lab of the chapter (15 in all)."""

CHAPTER_LABS: tuple[str, ...] = tuple(LAB_CHECK_COUNTS)
"""The chapter's numbered labs: ``check 11`` runs them, and ``Chapter 11: 15/15`` counts them."""

EXERCISE_CHECK_COUNTS: dict[str, int] = {"transfer": 3}
"""The checks of the labs beyond the chapter's (``tests/labs/test_transfer.py``); not in the 15."""


@dataclass(frozen=True)
class LabMapRow:
    """Where one lab lives: its notebook, its checks and the module it builds.

    ``topic`` names a notebook that is not a numbered lab, or one part of a lab
    told in two notebooks; otherwise a lab's topic is ``LAB_TOPICS[lab]``.
    ``checks`` is ``"—"`` for a part whose checks run at the end of the next part.
    """

    lab: str
    chapter_section: str
    notebook: str
    checks: str
    modules: str
    topic: str = ""


LAB_MAP: tuple[LabMapRow, ...] = (
    LabMapRow(
        "11.1",
        "摘要先成为 session 中的一条普通事实",
        "notebooks/01-lab-11.1-compaction-entry.ipynb",
        "tests/labs/test_lab_11_1.py",
        "chapter/entries.py, chapter/sessions.py",
    ),
    LabMapRow(
        "11.2",
        "两个 tool result 仍属于 u3 开始的同一组",
        "notebooks/02-lab-11.2-interaction-groups.ipynb",
        "tests/labs/test_lab_11_2.py",
        "chapter/groups.py",
    ),
    LabMapRow(
        "11.3",
        "31 个 token 怎样留下第二、三组",
        "notebooks/03-lab-11.3-budget-projection.ipynb",
        "tests/labs/test_lab_11_3.py",
        "chapter/budget.py",
    ),
    LabMapRow(
        "11.4",
        "compact-1 记录摘要与保留起点",
        "notebooks/04-lab-11.4-create-compaction.ipynb",
        "tests/labs/test_lab_11_4.py",
        "chapter/compaction.py",
    ),
    LabMapRow(
        "11.5",
        "恢复时把最新摘要接在保留后缀前面",
        "notebooks/05a-lab-11.5-restoring.ipynb",
        "—",
        "chapter/budget.py, chapter/restoring.py",
        topic="resume compaction, part 1: restoring",
    ),
    LabMapRow(
        "11.5",
        "恢复时把最新摘要接在保留后缀前面 / system 状态跨过 compaction 边界",
        "notebooks/05b-lab-11.5-compacting-again.ipynb",
        "tests/labs/test_lab_11_5.py",
        "chapter/budget.py, chapter/restoring.py",
        topic="resume compaction, part 2: compacting again",
    ),
    LabMapRow(
        "transfer",
        "可选迁移练习",
        "notebooks/06-transfer-budget-ledger.ipynb",
        "tests/labs/test_transfer.py",
        "chapter/ledger.py",
        topic="budget ledger",
    ),
    LabMapRow(
        "real session",
        "—",
        "notebooks/07-beyond-the-fixture-real-session.ipynb",
        "tests/beyond/test_import_pi.py",
        "beyond/importers/pi.py, beyond/estimators.py, tools/inspect_session.py",
        topic="a real pi session",
    ),
    LabMapRow(
        "recap",
        "小结 / 15 项测试固定到哪里",
        "notebooks/08-recap.ipynb",
        "—",
        "—",
        topic="the chapter in review",
    ),
    LabMapRow(
        "three agents",
        "—",
        "notebooks/09-three-agents-one-chapter.ipynb",
        "tests/beyond/test_import_detect.py",
        "beyond/importers/detect.py, beyond/importers/claude_code.py, beyond/importers/codex.py, "
        "views/agents.py",
        topic="pi, Claude Code and Codex CLI sessions",
    ),
)
"""Every notebook after ``00-start-here``, in the order students read them.

Lab 11.5 is told in two notebooks (restoring, then compacting again); its
checks run at the end of the second. The transfer exercise is not a numbered
lab, the real session and the three agents go beyond the chapter (they have no
section of their own), and the recap only reviews, so none of them has a count
of checks.
"""

TS_TO_PYTHON: tuple[tuple[str, str, str], ...] = (
    # the functions and types, importable from course_lib
    ("groupInteractions", "group_interactions", ""),
    ("buildContext", "build_context", ""),
    ("createCompactionEntry", "create_compaction_entry", ""),
    ("parseSessionEntry", "parse_session_entry", ""),
    ("pathTo", "path_to", ""),
    ("currentSystemMessage", "current_system_message", ""),
    ("renderSummary", "render_summary", ""),
    ("summaryMessage", "summary_message", ""),
    ("InMemorySessionStore", "InMemorySessionStore", ""),
    ("JsonlSessionStore", "JsonlSessionStore", ""),
    ("SessionEntry", "SessionEntry", ""),
    ("CompactionSessionEntry", "CompactionEntry", ""),
    ("CompactionSummary", "CompactionSummary", ""),
    ("AgentMessage", "AgentMessage", ""),
    ("SystemMessage", "SystemMessage", ""),
    # the options of buildContext
    ("estimateTokens", "estimate_tokens", "build_context"),
    ("maxTokens", "max_tokens", "build_context"),
    ("reservedOutput", "reserved_output", "build_context"),
    ("safetyMargin", "safety_margin", "build_context"),
    # what buildContext returns
    ("keptEntryIds", "kept_entry_ids", "BuildContextResult"),
    ("availableForMessages", "available_for_messages", "TokenProjection"),
    # fields of entries and messages (the JSONL files keep the camelCase names)
    ("parentId", "parent_id", "CompactionEntry"),
    ("firstKeptEntryId", "first_kept_entry_id", "CompactionEntry"),
    ("tokensBefore", "tokens_before", "CompactionEntry"),
    ("changedFiles", "changed_files", "CompactionSummary"),
    ("toolCallId", "tool_call_id", "ToolResultMessage"),
    ("toolName", "tool_name", "ToolResultMessage"),
    ("isError", "is_error", "ToolResultMessage"),
    ("stopReason", "stop_reason", "AssistantMessage"),
    ("errorMessage", "error_message", "AssistantMessage"),
    ("rawArguments", "raw_arguments", "ToolCall"),
    ("totalTokens", "total_tokens", "Usage"),
)
"""The chapter's TypeScript names -> the Python names: ``(typescript, python, where)``.

``where`` is ``""`` for a name ``course_lib`` exports, else the function whose
parameter or the class whose field it is (also exported by ``course_lib``).
Python attributes are snake_case; the wire form (JSONL, ``to_wire()``) keeps
the course's camelCase names, so a file reads the same in both courses.
"""
