"""The trimmer comparison notebook 03 shows: same paths, same counter, and the claims its prose makes."""

from __future__ import annotations

import random

from course_lib import MessageEntry, build_context, chapter_fixture, chars_estimator
from course_lib.views.trimmers import (
    COMPARISON_SEED,
    TRIMMERS,
    langchain_counter,
    langchain_tokens,
    random_path,
    to_langchain,
    trim_with_langchain,
    trimmer_comparison,
)

PATHS = 40


def sample_paths(count: int = PATHS) -> list[list[MessageEntry]]:
    rng = random.Random(COMPARISON_SEED)
    return [random_path(rng) for _ in range(count)]


def test_the_random_paths_are_the_same_on_every_run_and_group_cleanly() -> None:
    first, again = sample_paths(5), sample_paths(5)
    assert [[e.to_wire() for e in path] for path in first] == [
        [e.to_wire() for e in path] for path in again
    ]
    for path in first:
        result = build_context(path, max_tokens=10**9, estimate_tokens=chars_estimator())
        assert result.reason == "within_budget"
        assert len(result.kept_entry_ids) == len(path) - 1  # every message but the system one


def test_each_converted_message_costs_what_the_course_message_costs() -> None:
    estimate = chars_estimator()
    fixture = [entry for entry in chapter_fixture() if entry.type == "message"]
    for path in [fixture, *sample_paths(10)]:
        converted = to_langchain(path)
        assert [m.id for m in converted] == [entry.id for entry in path]
        assert [langchain_tokens(m) for m in converted] == [estimate(e.message) for e in path]
        assert langchain_counter(converted) == sum(estimate(e.message) for e in path)


def test_trim_messages_keeps_the_newest_messages_that_fit() -> None:
    path = sample_paths(1)[0]
    converted = to_langchain(path)
    budget = langchain_counter(converted) // 2
    kept = trim_with_langchain(converted, budget)
    assert langchain_counter(kept) <= budget
    assert kept[0].id == path[0].id  # the system message stays
    assert [m.id for m in kept[1:]] == [m.id for m in converted[len(converted) - len(kept) + 1 :]]


def test_the_comparison_counts_what_the_notebook_says() -> None:
    rows = {row["trimmer"]: row for row in trimmer_comparison(PATHS, COMPARISON_SEED)}
    assert list(rows) == list(TRIMMERS)
    drops = "paths where it drops the newest user turn"
    orphans = "paths where it keeps a result without its call"
    course, start_on_human, no_start_on = (
        rows["course_lib build_context"],
        rows['LangChain trim_messages, start_on="human"'],
        rows["LangChain trim_messages, no start_on"],
    )
    assert (course[drops], course[orphans]) == (0, 0)
    assert start_on_human[orphans] == 0
    assert start_on_human[drops] > 0 and no_start_on[orphans] > 0
    assert all(0 <= row[key] <= PATHS for row in rows.values() for key in (drops, orphans))


def test_trim_messages_drops_the_newest_turn_only_where_build_context_overflows() -> None:
    """The notebook's explanation: the newest interaction alone is over the budget."""
    estimate = chars_estimator()
    rng = random.Random(COMPARISON_SEED)
    seen = 0
    for _ in range(PATHS):
        path = random_path(rng)
        budget = max(1, int(sum(estimate(e.message) for e in path) * rng.uniform(0.1, 0.9)))
        newest_user = next(e.id for e in reversed(path) if e.message.role == "user")
        kept = trim_with_langchain(to_langchain(path), budget, start_on="human")
        if newest_user not in [m.id for m in kept]:
            seen += 1
            assert [m.id for m in kept] == [path[0].id]  # the system message alone
            result = build_context(path, max_tokens=budget, estimate_tokens=estimate)
            assert result.reason == "single_group_overflow"
            assert newest_user in result.kept_entry_ids
    assert seen > 0
