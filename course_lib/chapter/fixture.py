"""The chapter's ten-entry fixture and the teaching estimator that prices it.

Chapter 11 §1 「同一段历史会产生一份更短的模型输入」 (one history gives a shorter
model input). Every notebook and test starts from these entries, so the
numbers a student computes by hand (7 / 7 / 15, 31 -> 22) are the code's.
"""

from __future__ import annotations

import json
import math
from typing import Literal

from course_lib.base.errors import CourseError
from course_lib.base.pricing import Estimator, reads_only

from .entries import CompactionEntry, CompactionSummary, MessageEntry, SessionEntry
from .messages import (
    MessageModel,
    SystemMessage,
    ToolCall,
    UserMessage,
    assistant_message,
    text_of,
    tool_result,
    user_message,
)
from .restoring import SUMMARY_LABELS_EN, SUMMARY_LABELS_ZH

FIXTURE_TOKENS: dict[str, int] = {
    "sys": 3, "u1": 3, "a1": 4, "u2": 3, "a2": 4,
    "u3": 3, "calls": 3, "r-test": 3, "r-read": 3, "a3": 3,
}  # fmt: skip
"""The chapter's token table: entry id -> what the fixture estimator returns."""

CONTINUATION_TOKENS: dict[str, int] = {"u4": 3, "a4": 4}
SUMMARY_TOKENS = 5
"""What the fixture estimator charges for any compaction summary message."""

FixtureLanguage = Literal["en", "zh"]
FIXTURE_LANGUAGES: tuple[FixtureLanguage, ...] = ("en", "zh")

# The fixture's words in English and in the course's own Chinese. Ids, tool calls and
# results stay as the TypeScript course writes them; both cost what the table says.
_WORDS: dict[str, tuple[str, str]] = {
    "u1": ("Check the session recovery logic.", "检查 session 恢复逻辑"),
    "a1": ("The active path restores only the selected branch.", "活动路径只恢复选中分支"),
    "u2": ("Confirm the JSONL write boundary.", "确认 JSONL 写入边界"),
    "a2": (
        "A newline commits a line; an uncommitted tail is recovered read-only.",
        "换行提交，未提交尾部只读恢复",
    ),
    "u3": ("Read the implementation and run the focused tests.", "读取实现并运行聚焦测试"),
    "a3": ("Implementation and tests agree.", "实现与测试一致"),
    "u4": ("Continue with the context projection.", "继续上下文投影"),
    "a4": ("The projection now starts from the summary.", "投影现在从摘要开始"),
    "goal": ("Check the session recovery logic", "检查 session 恢复逻辑"),
    "constraint": (
        "Restore only the selected branch of the session tree",
        "只恢复 session 树中选中的分支",
    ),
    "completed": (
        "Confirmed that the active path restores only the selected branch",
        "已确认活动路径只恢复选中分支",
    ),
    "next": ("Confirm the JSONL write boundary", "确认 JSONL 写入边界"),
}


def _words(lang: FixtureLanguage) -> dict[str, str]:
    if lang not in FIXTURE_LANGUAGES:
        raise CourseError(f"unknown fixture language {lang!r}; choose one of {FIXTURE_LANGUAGES}")
    index = FIXTURE_LANGUAGES.index(lang)
    return {key: pair[index] for key, pair in _WORDS.items()}


def _chain(
    messages: list[tuple[str, MessageModel]], parent: str | None = None
) -> list[MessageEntry]:
    """Message entries whose parents follow the list order; timestamps copy the message's."""
    entries: list[MessageEntry] = []
    for entry_id, message in messages:
        entries.append(
            MessageEntry(
                id=entry_id, parent_id=parent, timestamp=message.timestamp, message=message
            )
        )
        parent = entry_id
    return entries


def _fixture_messages(lang: FixtureLanguage) -> list[tuple[str, MessageModel]]:
    words = _words(lang)
    read = ToolCall(id="read-1", name="read", arguments={"path": "context.ts"})
    test = ToolCall(id="test-1", name="test", arguments={"command": "npm test -- context"})
    return [
        ("sys", SystemMessage(content="sys", timestamp=1)),
        ("u1", user_message(words["u1"], timestamp=2)),
        ("a1", assistant_message(words["a1"], timestamp=3)),
        ("u2", user_message(words["u2"], timestamp=4)),
        ("a2", assistant_message(words["a2"], timestamp=5)),
        ("u3", user_message(words["u3"], timestamp=6)),
        ("calls", assistant_message([read, test], stop_reason="toolUse", timestamp=7)),
        # test-1 finished first, so its result sits before read-1's on the path.
        ("r-test", tool_result(test, "14 tests passed", timestamp=8)),
        ("r-read", tool_result(read, "context.ts loaded", timestamp=9)),
        ("a3", assistant_message(words["a3"], timestamp=10)),
    ]


def _continuation(lang: FixtureLanguage) -> list[tuple[str, MessageModel]]:
    words = _words(lang)
    return [
        ("u4", user_message(words["u4"], timestamp=101)),
        ("a4", assistant_message(words["a4"], timestamp=102)),
    ]


def chapter_fixture(lang: FixtureLanguage = "en") -> list[SessionEntry]:
    """The ten entries of the chapter's active path, fresh objects every call.

    ``lang="zh"``: the course's Chinese texts, with the same ids, calls,
    results and token costs, so both editions show the same numbers.
    """
    return list(_chain(_fixture_messages(lang)))


def _summary(
    goal: str, constraints: list[str], completed: list[str], next: list[str]
) -> CompactionSummary:
    return CompactionSummary(
        goal=goal,
        constraints=constraints,
        completed=completed,
        decisions=[],
        changed_files=[],
        unresolved=[],
        next=next,
    )


def fixture_summary(lang: FixtureLanguage = "en") -> CompactionSummary:
    """The seven-field summary ``compact-1`` records for the dropped first interaction."""
    words = _words(lang)
    return _summary(words["goal"], [words["constraint"]], [words["completed"]], [words["next"]])


def _compact_1(
    parent: str, summary: CompactionSummary, timestamp: int, tokens_before: int
) -> CompactionEntry:
    """The chapter's ``compact-1``: keeping starts at ``u2``."""
    return CompactionEntry(
        id="compact-1",
        parent_id=parent,
        timestamp=timestamp,
        summary=summary,
        first_kept_entry_id="u2",
        tokens_before=tokens_before,
    )


def chapter_fixture_after_compaction(lang: FixtureLanguage = "en") -> list[SessionEntry]:
    """The ten entries, then ``compact-1`` (parent ``a3``, first kept ``u2``), ``u4`` and ``a4``."""
    compaction = _compact_1("a3", fixture_summary(lang), timestamp=100, tokens_before=29)
    return [*chapter_fixture(lang), compaction, *_chain(_continuation(lang), parent="compact-1")]


def system_replay_fixture() -> list[SessionEntry]:
    """The chapter's path whose system state changes on both sides of ``compact-1`` (§6)."""
    before = _chain(
        [
            ("sys", SystemMessage(content="BASE", sections={"rules": "RULE v1"}, timestamp=1)),
            ("u1", user_message("Start the refactor.", timestamp=2)),
            ("a1", assistant_message("Refactor started.", timestamp=3)),
            ("patch-1", SystemMessage(content="", sections={"rules": "RULE v2"}, timestamp=4)),
            ("u2", user_message("Keep going with the parser.", timestamp=5)),
            ("a2", assistant_message("The parser is split.", timestamp=6)),
        ]
    )
    summary = _summary(
        "Refactor the parser", [], ["Started the refactor"], ["Continue with the parser"]
    )
    compaction = _compact_1("a2", summary, timestamp=7, tokens_before=12)
    after: list[tuple[str, MessageModel]] = [
        ("patch-2", SystemMessage(content="Prefer small diffs.", timestamp=8)),
        ("u3", user_message("Now the tests.", timestamp=9)),
        ("a3", assistant_message("Tests updated.", timestamp=10)),
    ]
    return [*before, compaction, *_chain(after, parent="compact-1")]


def _signature(message: MessageModel) -> str:
    # Messages arrive as copies, so they are recognised by content, not identity.
    return json.dumps(message.to_wire(), sort_keys=True)


def fixture_estimator() -> Estimator:
    """The chapter's teaching estimator (not a tokenizer).

    Fixture messages (either language) cost what the table says, ``u4``/``a4``
    3/4, any compaction summary message 5; anything else, or plain text, one
    token per 4 characters of its text, rounded up.
    """
    table = {**FIXTURE_TOKENS, **CONTINUATION_TOKENS}
    known: dict[str, int] = {}
    for lang in FIXTURE_LANGUAGES:
        messages = dict([*_fixture_messages(lang), *_continuation(lang)])
        known |= {_signature(messages[entry_id]): tokens for entry_id, tokens in table.items()}
    titles = (SUMMARY_LABELS_EN.title, SUMMARY_LABELS_ZH.title)

    def estimate(value: str | MessageModel) -> int:
        if isinstance(value, str):
            return math.ceil(len(value) / 4)
        if isinstance(value, UserMessage) and text_of(value).startswith(titles):
            return SUMMARY_TOKENS
        tokens = known.get(_signature(value))
        return tokens if tokens is not None else math.ceil(len(text_of(value)) / 4)

    return reads_only(estimate)
