"""The Chinese fixture: the course's own texts, with the very same ids, costs and decisions.

The Chinese edition of the notebooks builds its tables from
``chapter_fixture("zh")``; these checks make sure every number it shows is
the English edition's number.
"""

from __future__ import annotations

import pytest

from course_lib import (
    FIXTURE_TOKENS,
    CourseError,
    budget_ledger,
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_estimator,
    fixture_summary,
    text_of,
)
from course_lib.chapter.models import MessageEntry

BUDGETS = [(max_tokens, 4, 2) for max_tokens in range(0, 45)]


def shape(entries: list) -> list:
    """Everything but the words: ids, parents, types, roles, timestamps, tool calls."""
    rows = []
    for entry in entries:
        wire = entry.to_wire()
        message = wire.get("message")
        if message is not None and message["role"] in ("user", "assistant"):
            message = {
                **message,
                "content": [block for block in message["content"] if block["type"] != "text"],
            }
        rows.append({**wire, "message": message, "summary": None})
    return rows


@pytest.mark.parametrize("build", [chapter_fixture, chapter_fixture_after_compaction])
def test_the_two_languages_differ_only_in_their_words(build) -> None:
    english, chinese = build("en"), build("zh")
    assert build() == english  # English stays the default
    assert shape(english) == shape(chinese)
    worded = [i for i, entry in enumerate(english) if isinstance(entry, MessageEntry)]
    changed = [
        english[i].id for i in worded if text_of(english[i].message) != text_of(chinese[i].message)
    ]
    assert changed == [
        e.id for e in english if e.id in {"u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4"}
    ]
    assert text_of(chinese[1].message) == "检查 session 恢复逻辑"


def test_every_entry_costs_the_same_in_both_languages() -> None:
    estimate = fixture_estimator()
    for english, chinese in zip(
        chapter_fixture_after_compaction("en"), chapter_fixture_after_compaction("zh"), strict=True
    ):
        if isinstance(english, MessageEntry):
            assert estimate(english.message) == estimate(chinese.message), english.id
    costs = {e.id: estimate(e.message) for e in chapter_fixture("zh")}
    assert costs == FIXTURE_TOKENS


@pytest.mark.parametrize("build", [chapter_fixture, chapter_fixture_after_compaction])
def test_every_budget_decides_the_same_in_both_languages(build) -> None:
    for max_tokens, reserved, margin in BUDGETS:
        options = {
            "max_tokens": max_tokens,
            "reserved_output": reserved,
            "safety_margin": margin,
            "estimate_tokens": fixture_estimator(),
        }
        english = build_context(build("en"), **options)
        chinese = build_context(build("zh"), **options)
        assert (english.kept_entry_ids, english.reason, english.tokens) == (
            chinese.kept_entry_ids,
            chinese.reason,
            chinese.tokens,
        ), max_tokens
        assert budget_ledger(build("en"), **options) == budget_ledger(build("zh"), **options)


def test_the_chinese_summary_has_the_seven_fields() -> None:
    summary = fixture_summary("zh")
    assert summary.goal == "检查 session 恢复逻辑"
    assert summary.next == ["确认 JSONL 写入边界"]
    assert summary.decisions == summary.changed_files == summary.unresolved == []


def test_an_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(CourseError, match=r"unknown fixture language 'fr'; choose one of"):
        chapter_fixture("fr")  # type: ignore[arg-type]
