"""The package's ``build_context`` (one walk) against the chapter's steps: the same plan or error.

``course_lib.build_context`` and ``course_lib.plan_budget`` are ``course_lib.beyond.one_pass``'s:
for a pure estimator (marked read-only) they group and price each message in one walk over the
path; ``course_lib.chapter.budget`` is the chapter's reading, a pass per step. They must give
equal plans, bit for bit, and raise the same error (class and words) on every broken path and
every estimator that misbehaves, whatever the message it misbehaves on: the walk prices the
groups before the system message, so the error it meets first is not always the chapter's first.
An estimator not marked read-only must see exactly the chapter's calls.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mutant_inputs import outcome

import course_lib
from course_lib import (
    Budget,
    SessionEntry,
    chapter_fixture,
    chapter_fixture_after_compaction,
    current_system_message,
    fixture_estimator,
    system_replay_fixture,
    text_of,
)
from course_lib.base.pricing import reads_only
from course_lib.beyond import one_pass
from course_lib.chapter import budget as chapter
from course_lib.grading.hidden_inputs import (
    RandomPath,
    corrupted,
    random_path,
    with_compactions,
)

SETTINGS = settings(max_examples=150, deadline=None)
FIXTURES = (chapter_fixture, chapter_fixture_after_compaction, system_replay_fixture)


def assert_alike(
    path: Sequence[Any], budget: dict[str, Any], estimate: Callable[[Any], Any]
) -> None:
    """Both plans and both model inputs are equal, or both raise the same error."""
    plan_budget = Budget(**budget) if _numbers(budget) else None
    if plan_budget is not None:
        ours = outcome(lambda: one_pass.plan_budget(path, plan_budget, estimate))
        assert ours == outcome(lambda: chapter.plan_budget(path, plan_budget, estimate))
    ours = outcome(lambda: one_pass.build_context(path, **budget, estimate_tokens=estimate))
    theirs = outcome(lambda: chapter.build_context(path, **budget, estimate_tokens=estimate))
    assert ours == theirs


def _numbers(budget: dict[str, Any]) -> bool:
    """Whether ``Budget`` takes these numbers (``build_context`` is compared either way)."""
    try:
        Budget(**budget)
    except course_lib.BudgetError:
        return False
    return True


def generated(seed: int, compacted: bool) -> tuple[random.Random, RandomPath, list[Any]]:
    """The grader's path for ``seed``, its entries with compactions appended when ``compacted``,
    and the generator, which the test goes on drawing from."""
    rng = random.Random(seed)
    path = random_path(course_lib, rng, "p")
    entries = with_compactions(course_lib, path, rng)[0] if compacted else path.entries
    return rng, path, entries


def test_the_package_exports_the_one_pass_functions() -> None:
    assert course_lib.build_context is one_pass.build_context
    assert course_lib.plan_budget is one_pass.plan_budget


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: fixture.__name__)
@pytest.mark.parametrize("max_tokens", [0, 9, 22, 31, 60])
def test_the_fixtures_plan_alike(
    fixture: Callable[[], list[SessionEntry]], max_tokens: int
) -> None:
    budget = {"max_tokens": max_tokens, "reserved_output": 4, "safety_margin": 2}
    assert_alike(fixture(), budget, fixture_estimator())


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32), compacted=st.booleans())
def test_random_paths_plan_alike(seed: int, compacted: bool) -> None:
    _, path, entries = generated(seed, compacted)
    assert_alike(entries, path.budget, path.estimate)


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32), compacted=st.booleans())
def test_broken_paths_raise_alike(seed: int, compacted: bool) -> None:
    """A removed, repeated or misplaced entry, or a wire dict where an entry belongs."""
    rng, path, entries = generated(seed, compacted)
    broken, _ = corrupted(entries, rng)
    if broken and rng.random() < 0.3:
        position = rng.randrange(len(broken))
        broken[position] = broken[position].to_wire()
    assert_alike(broken, path.budget, path.estimate)


def _misbehaving(bad_text: str, answer: Callable[[Any], Any], marked: bool) -> Callable[[Any], Any]:
    """An estimator that answers ``answer(value)`` for the message holding ``bad_text``.

    It decides by content, not by the order of calls, so both walks meet the same answer
    on the same message whatever order they price in.
    """

    def estimate(value: Any) -> Any:
        shown = value if isinstance(value, str) else text_of(value)
        return answer(value) if shown == bad_text else len(shown) // 4

    return reads_only(estimate) if marked else estimate


def _raises(value: Any) -> Any:
    raise ZeroDivisionError("no tokens today")


ANSWERS: dict[str, Callable[[Any], Any]] = {
    "raises": _raises,
    "NaN": lambda value: math.nan,
    "negative": lambda value: -1,
    "a bool": lambda value: True,
    "text": lambda value: "3",
    "over 2**53": lambda value: 2**60,
    "a float": lambda value: 2.5,
}


@SETTINGS
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    answer=st.sampled_from(sorted(ANSWERS)),
    marked=st.booleans(),
    compacted=st.booleans(),
)
def test_misbehaving_estimators_fail_alike(
    seed: int, answer: str, marked: bool, compacted: bool
) -> None:
    """The chapter prices the system message, the summary, then each group: its first error wins."""
    rng, _, entries = generated(seed, compacted)
    texts = [text_of(entry.message) for entry in entries if entry.type == "message"]
    if not texts:
        return
    estimate = _misbehaving(rng.choice(texts), ANSWERS[answer], marked)
    budget = {"max_tokens": 10**6, "reserved_output": 1, "safety_margin": 1}
    assert_alike(entries, budget, estimate)


def test_a_failing_system_message_is_named_first_as_the_chapter_names_it() -> None:
    """The walk meets a failing group message first; the error is the chapter's: the system's."""
    path = system_replay_fixture()
    replayed = text_of(current_system_message([e.message for e in path if e.type == "message"]))
    first_user = text_of(next(e.message for e in path if e.message.role == "user"))

    @reads_only
    def estimate(value: Any) -> int:
        if text_of(value) in (replayed, first_user):
            raise ZeroDivisionError("no tokens today")
        return 1

    with pytest.raises(course_lib.BudgetError, match="on system message: ZeroDivisionError"):
        course_lib.build_context(path, max_tokens=100, estimate_tokens=estimate)


def test_an_unmarked_estimator_changes_nothing() -> None:
    """An estimator not marked read-only is given copies in the one walk too."""

    def scribble(value: Any) -> int:
        if not isinstance(value, str):
            value.timestamp = -1
        return 1

    path = chapter_fixture()
    before = [entry.to_wire() for entry in path]
    result = course_lib.build_context(path, max_tokens=100, estimate_tokens=scribble)
    assert [entry.to_wire() for entry in path] == before
    assert len(result.kept_entry_ids) == 9


def test_a_pure_estimator_takes_the_one_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk is what runs for the shipped estimators, not a fallback that always fires."""
    walked: list[int] = []
    walk = one_pass._groups_priced

    def spy(*args: Any) -> Any:
        walked.append(1)
        return walk(*args)

    def chapter_steps(*args: Any) -> Any:
        raise AssertionError("the chapter's steps ran for a well-formed path")

    monkeypatch.setattr(one_pass, "_groups_priced", spy)
    monkeypatch.setattr(chapter, "plan_budget", chapter_steps)
    for estimate in (fixture_estimator(), course_lib.chars_estimator()):
        course_lib.build_context(chapter_fixture(), max_tokens=31, estimate_tokens=estimate)
    assert walked == [1, 1]


class Recording:
    """An estimator not marked read-only, which writes down every text it is shown."""

    def __init__(self, failing_text: str | None = None) -> None:
        self.seen: list[str] = []
        self.failing_text = failing_text

    def __call__(self, value: Any) -> int:
        shown = value if isinstance(value, str) else text_of(value)
        self.seen.append(shown)
        if shown == self.failing_text:
            raise ZeroDivisionError("no tokens today")
        return len(shown) // 4


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32), compacted=st.booleans())
def test_an_estimator_not_marked_pure_sees_exactly_the_chapters_calls(
    seed: int, compacted: bool
) -> None:
    """Once per priced message, in the chapter's order, and none on a path that does not group."""
    rng, _, entries = generated(seed, compacted)
    if rng.random() < 0.5:
        entries, _ = corrupted(entries, rng)
    texts = [text_of(entry.message) for entry in entries if entry.type == "message"]
    failing = rng.choice(texts) if texts and rng.random() < 0.3 else None
    ours, theirs = Recording(failing), Recording(failing)
    budget = {"max_tokens": 10**6}
    first = outcome(lambda: course_lib.build_context(entries, **budget, estimate_tokens=ours))
    second = outcome(lambda: chapter.build_context(entries, **budget, estimate_tokens=theirs))
    assert first == second
    assert ours.seen == theirs.seen
