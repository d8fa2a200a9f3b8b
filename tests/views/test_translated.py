"""The library's messages, shown in Chinese by the views, keep every locator they name."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

import pytest

from course_lib import (
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
    create_compaction_entry,
    fixture_estimator,
    fixture_summary,
    group_interactions,
    parse_session_entry,
)
from course_lib.base.errors import CourseError
from course_lib.base.i18n import has_translation
from course_lib.track.exercises import INTERACTION_RULES
from course_lib.views.translated import MESSAGE_PARTS, translated

translated_module = importlib.import_module("course_lib.views.translated")

CHINESE = re.compile(r"[\u4e00-\u9fff]")
LOCATOR = re.compile(r"'[^']*'|[\w.-]*\d[\w.-]*")
"""An id in quotes, a field path or a number: what a reader looks up, in either language."""


def longest_english_run(text: str) -> int:
    """The most English words in a row: Chinese characters and Chinese punctuation end a run."""
    runs = re.split(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+", text)
    return max(
        sum(1 for token in run.split() if token.strip("\"'.,;:!?()").isalpha()) for run in runs
    )


def fixture_wires() -> dict[str, dict]:
    return {entry.id: entry.to_wire() for entry in chapter_fixture()}


def broken_path(change: Callable[[dict[str, dict]], None]) -> list:
    wires = fixture_wires()
    change(wires)
    return [parse_session_entry(wire) for wire in wires.values()]


def _duplicate_call(wires: dict[str, dict]) -> None:
    wires["calls"]["message"]["content"][1]["id"] = "read-1"
    wires["r-test"]["message"]["toolCallId"] = "read-1"


def _unknown_call(wires: dict[str, dict]) -> None:
    wires["r-test"]["message"]["toolCallId"] = "unknown-1"


def _assistant_first(wires: dict[str, dict]) -> None:
    wires["u1"]["message"] = wires["a1"]["message"]


def _bad_compaction(**fields: object) -> Callable[[], object]:
    wire = {
        "type": "compaction",
        "id": "compact-1",
        "parentId": "a3",
        "timestamp": 11,
        "summary": fixture_summary().to_wire(),
        "firstKeptEntryId": "u2",
        "tokensBefore": 29,
    }
    wire.update(fields)
    return lambda: parse_session_entry(wire)


def compact(path: list, first_kept_entry_id: str) -> object:
    """``compact-1`` made on ``path`` with the chapter's summary, keeping from the given id."""
    return create_compaction_entry(
        path,
        id="compact-1",
        timestamp=11,
        summary=fixture_summary(),
        first_kept_entry_id=first_kept_entry_id,
        tokens_before=29,
    )


FAILING_CALLS: dict[str, Callable[[], object]] = {
    "duplicate call": lambda: group_interactions(broken_path(_duplicate_call)),
    "unknown call": lambda: group_interactions(broken_path(_unknown_call)),
    "assistant first": lambda: group_interactions(broken_path(_assistant_first)),
    "negative budget": lambda: build_context(
        chapter_fixture(), max_tokens=31, reserved_output=-1, estimate_tokens=fixture_estimator()
    ),
    "estimator NaN": lambda: build_context(
        chapter_fixture(), max_tokens=31, estimate_tokens=lambda _: float("nan")
    ),
    "first kept a2": lambda: compact(chapter_fixture(), first_kept_entry_id="a2"),
    "empty path": lambda: compact([], first_kept_entry_id="u2"),
    "tokensBefore bool": _bad_compaction(tokensBefore=True),
    "tokensBefore negative": _bad_compaction(tokensBefore=-1),
    "unknown field": _bad_compaction(compactedEntryIds=["u1"]),
    "restore from a2": lambda: build_context(
        [
            *chapter_fixture(),
            *[
                entry.model_copy(update={"first_kept_entry_id": "a2"})
                if entry.id == "compact-1"
                else entry
                for entry in chapter_fixture_after_compaction()[10:]
            ],
        ],
        max_tokens=31,
        estimate_tokens=fixture_estimator(),
    ),
}


def message_of(call: Callable[[], object]) -> str:
    with pytest.raises(CourseError) as raised:
        call()
    return str(raised.value)


@pytest.mark.parametrize("case", FAILING_CALLS)
def test_a_course_error_reads_chinese_and_keeps_its_locators(case: str) -> None:
    english = message_of(FAILING_CALLS[case])
    chinese = translated(english, "zh")
    assert CHINESE.search(chinese), english
    # The rule's English name stays beside its Chinese: exercise 11.2-q2 asks for it.
    without_rule_names = re.sub("|".join(map(re.escape, INTERACTION_RULES)), "", chinese)
    assert longest_english_run(without_rule_names) < 4, chinese  # no English sentence is left
    assert LOCATOR.findall(chinese) == LOCATOR.findall(english), (english, chinese)


def test_english_is_the_message_itself() -> None:
    english = message_of(FAILING_CALLS["duplicate call"])
    assert translated(english, "en") == english


def test_every_part_has_its_chinese_with_the_same_placeholders() -> None:
    for part in MESSAGE_PARTS:
        assert has_translation("zh", part), part


def test_an_unknown_message_is_shown_as_it_is() -> None:
    text = "my own rule: Keep every diff small"
    assert translated(text, "zh") == text


def test_a_longer_template_wins_over_a_part_of_it() -> None:
    message = (
        "estimate_tokens result for interaction 2 message 3 must be a finite number >= 0, got nan"
    )
    assert translated(message, "zh") == (
        "estimate_tokens 对 第 2 次交互的第 3 条消息 的结果必须是 >= 0 的有限数，实际为 nan"
    )


def test_the_notebook_language_is_what_setup_notebook_set() -> None:
    assert translated_module.notebook_language() in ("en", "zh")
    before = translated_module.notebook_language()
    try:
        translated_module.set_notebook_language("zh")
        assert translated_module.shown("compaction c: empty active path") == (
            "compaction c：活动路径为空"
        )
    finally:
        translated_module.set_notebook_language(before)
