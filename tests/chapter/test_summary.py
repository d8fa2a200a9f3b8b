"""The rendered summary, exactly as chapter11.md shows it, in English and Chinese.

The summary is the one synthetic message the model reads in place of the
compacted past; its text decides its token cost, so the fixed field order,
labels and punctuation are compared character for character with the spec's
templates below.
"""

from __future__ import annotations

from typing import Any

import pytest
from summaries import empty_summary

from course_lib import (
    SUMMARY_LABELS_EN,
    SUMMARY_LABELS_ZH,
    CompactionEntry,
    CompactionSummary,
    SessionEntryError,
    SummaryLabels,
    UserMessage,
    chapter_fixture_after_compaction,
    fixture_summary,
    render_summary,
    summary_message,
    text_of,
)

# Copied verbatim from chapter11.md section 6.
TEMPLATE_EN = """\
[Session compaction summary]
Goal: <goal>
Constraints:
- <item>
Completed:
- <item>
Decisions:
- <item>
Changed files:
- <item>
Unresolved:
- <item>
Next:
- <item>"""

TEMPLATE_ZH = """\
【会话压缩摘要】
目标：<goal>
约束：
- <item>
已完成：
- <item>
决策：
- <item>
变更文件：
- <item>
未解决：
- <item>
下一步：
- <item>"""

LIST_FIELDS = ["constraints", "completed", "decisions", "changed_files", "unresolved", "next"]


def from_template(template: str, summary: CompactionSummary, none: str) -> str:
    """Fill the spec's template: ``<goal>``, then each ``- <item>`` line with that list."""
    lists = iter(LIST_FIELDS)
    lines: list[str] = []
    for line in template.split("\n"):
        if line == "- <item>":
            items = getattr(summary, next(lists)) or [none]
            lines.extend(f"- {item}" for item in items)
        else:
            lines.append(line.replace("<goal>", summary.goal))
    return "\n".join(lines)


def full_summary() -> CompactionSummary:
    return CompactionSummary(
        goal="Ship the context projection",
        constraints=["Keep history append-only", "No new dependencies"],
        completed=["Grouped interactions"],
        decisions=["Trim whole groups, newest first"],
        changed_files=["course_lib/budget.py", "tests/test_budget.py"],
        unresolved=["Real tokenizer"],
        next=["Write the ledger", "Run the focused tests"],
    )


SUMMARIES = [fixture_summary, full_summary, empty_summary]


@pytest.mark.parametrize("make", SUMMARIES, ids=[make.__name__ for make in SUMMARIES])
def test_english_rendering_matches_the_template(make: Any) -> None:
    summary = make()
    expected = from_template(TEMPLATE_EN, summary, "(none)")
    assert render_summary(summary) == expected
    assert render_summary(summary, labels=SUMMARY_LABELS_EN) == expected


@pytest.mark.parametrize("make", SUMMARIES, ids=[make.__name__ for make in SUMMARIES])
def test_chinese_rendering_matches_the_template(make: Any) -> None:
    summary = make()
    assert render_summary(summary, labels=SUMMARY_LABELS_ZH) == from_template(
        TEMPLATE_ZH, summary, "（无）"
    )


def test_the_fixture_summary_in_full() -> None:
    assert render_summary(fixture_summary()) == (
        "[Session compaction summary]\n"
        "Goal: Check the session recovery logic\n"
        "Constraints:\n"
        "- Restore only the selected branch of the session tree\n"
        "Completed:\n"
        "- Confirmed that the active path restores only the selected branch\n"
        "Decisions:\n"
        "- (none)\n"
        "Changed files:\n"
        "- (none)\n"
        "Unresolved:\n"
        "- (none)\n"
        "Next:\n"
        "- Confirm the JSONL write boundary"
    )


def test_an_empty_summary_in_chinese_in_full() -> None:
    assert render_summary(empty_summary(), labels=SUMMARY_LABELS_ZH) == (
        "【会话压缩摘要】\n目标：Nothing yet\n"
        "约束：\n- （无）\n已完成：\n- （无）\n决策：\n- （无）\n"
        "变更文件：\n- （无）\n未解决：\n- （无）\n下一步：\n- （无）"
    )


def test_the_labels_carry_their_own_punctuation() -> None:
    assert (
        SummaryLabels(
            title="[Session compaction summary]",
            goal="Goal: ",
            constraints="Constraints:",
            completed="Completed:",
            decisions="Decisions:",
            changed_files="Changed files:",
            unresolved="Unresolved:",
            next="Next:",
            none="(none)",
        )
        == SUMMARY_LABELS_EN
    )
    assert SUMMARY_LABELS_ZH.goal == "目标："
    assert SUMMARY_LABELS_ZH.none == "（无）"


def test_items_are_written_as_given_without_re_indenting() -> None:
    summary = empty_summary().model_copy(
        update={"decisions": ["first line\nsecond line", "  spaced  "], "next": ["- dash"]}
    )
    rendered = render_summary(summary)
    assert "Decisions:\n- first line\nsecond line\n-   spaced  \nChanged files:" in rendered
    assert rendered.endswith("Next:\n- - dash")
    assert rendered == from_template(TEMPLATE_EN, summary, "(none)")


def test_custom_labels_are_used_as_given() -> None:
    labels = SummaryLabels(
        title="# Summary",
        goal="goal=",
        constraints="c",
        completed="d",
        decisions="e",
        changed_files="f",
        unresolved="g",
        next="h",
        none="-",
    )
    assert render_summary(empty_summary(), labels=labels) == (
        "# Summary\ngoal=Nothing yet\nc\n- -\nd\n- -\ne\n- -\nf\n- -\ng\n- -\nh\n- -"
    )


def test_render_summary_accepts_a_wire_dict() -> None:
    summary = full_summary()
    wire = summary.to_wire()
    assert "changedFiles" in wire
    assert render_summary(wire) == render_summary(summary)
    assert render_summary(wire, labels=SUMMARY_LABELS_ZH) == render_summary(
        summary, labels=SUMMARY_LABELS_ZH
    )


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda w: w.update(files=w.pop("changedFiles")), ["files", "unknown field"]),
        (lambda w: w.update(changed_files=w.pop("changedFiles")), ["changed_files", "unknown"]),
        (lambda w: w.pop("next"), ["next", "missing field"]),
        (lambda w: w.update(goal="  "), ["goal", "blank"]),
        (lambda w: w.update(completed=["ok", 7]), ["completed.1"]),
    ],
    ids=["files-alias", "snake-case", "missing-next", "blank-goal", "non-string-item"],
)
def test_render_summary_checks_a_wire_dict(change: Any, words: list[str]) -> None:
    wire = full_summary().to_wire()
    change(wire)
    with pytest.raises(SessionEntryError) as caught:
        render_summary(wire)
    for word in words:
        assert word in str(caught.value)


def test_summary_message_is_a_user_message_at_the_compactions_time() -> None:
    compaction = chapter_fixture_after_compaction()[10]
    assert isinstance(compaction, CompactionEntry)
    message = summary_message(compaction)
    assert isinstance(message, UserMessage)
    assert message.role == "user"
    assert message.timestamp == compaction.timestamp == 100
    assert len(message.content) == 1
    assert text_of(message) == render_summary(compaction.summary)
    assert message.to_wire() == {
        "role": "user",
        "content": [{"type": "text", "text": render_summary(fixture_summary())}],
        "timestamp": 100,
    }


def test_summary_message_keeps_a_float_timestamp_and_shares_nothing() -> None:
    compaction = chapter_fixture_after_compaction()[10].model_copy(update={"timestamp": 100.5})
    message = summary_message(compaction)
    assert message.timestamp == 100.5 and type(message.timestamp) is float
    message.content[0].text = "changed"
    assert summary_message(compaction).content[0].text == render_summary(fixture_summary())


def test_rendering_is_deterministic() -> None:
    assert render_summary(full_summary()) == render_summary(full_summary())
    compaction = chapter_fixture_after_compaction()[10]
    assert summary_message(compaction) == summary_message(compaction)
