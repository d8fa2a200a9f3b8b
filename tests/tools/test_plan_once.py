"""Plan once, derive the rest: the model input, the ledger, the explorer and ``inspect`` share one plan.

Every message is priced once per plan, so a tool that shows both the kept
range and the ledger costs what one ``build_context`` costs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from course_lib import (
    budget_ledger,
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_estimator,
)
from course_lib.base.pricing import Estimator
from course_lib.chapter.budget import context_from_plan, plan_budget
from course_lib.chapter.ledger import ledger_from_plan
from course_lib.chapter.models import MessageEntry
from course_lib.tools.inspect_session import Budget, inspect_entries, load_session, plan_for
from course_lib.views import budget_state

DATA = Path(__file__).resolve().parents[2] / "data"


def counting(estimate: Estimator) -> tuple[Estimator, Callable[[], int]]:
    calls = 0

    def counted(value: object) -> int | float:
        nonlocal calls
        calls += 1
        return estimate(value)  # type: ignore[arg-type]

    return counted, lambda: calls


PATHS = {"fixture": chapter_fixture, "after compact-1": chapter_fixture_after_compaction}


def test_a_budget_is_a_frozen_value_with_the_keyword_api_beside_it() -> None:
    budget = Budget(max_tokens=31, reserved_output=4, safety_margin=2)
    assert budget.keywords() == {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
    assert Budget(31) == Budget(31, 0, 0)
    with pytest.raises(FrozenInstanceError):
        budget.max_tokens = 40  # type: ignore[misc]


@pytest.mark.parametrize("name", PATHS)
@pytest.mark.parametrize("max_tokens", [0, 20, 31, 40, 200])
def test_derived_views_equal_the_public_functions(name: str, max_tokens: int) -> None:
    path = PATHS[name]()
    budget = Budget(max_tokens=max_tokens, reserved_output=4, safety_margin=2)
    options = {**budget.keywords(), "estimate_tokens": fixture_estimator()}
    plan = plan_for(path, budget, fixture_estimator())
    assert plan == plan_budget(path, budget, fixture_estimator())
    assert context_from_plan(plan) == build_context(path, **options)
    assert ledger_from_plan(plan) == budget_ledger(path, **options)


@pytest.mark.parametrize("name", PATHS)
def test_the_explorer_prices_each_message_once(name: str) -> None:
    path = PATHS[name]()
    estimate, calls = counting(fixture_estimator())
    budget_state(path, max_tokens=31, reserved_output=4, safety_margin=2, estimate_tokens=estimate)
    messages = sum(isinstance(entry, MessageEntry) for entry in path)
    systems = sum(
        isinstance(entry, MessageEntry) and entry.message.role == "system" for entry in path
    )
    summaries = 1 if name == "after compact-1" else 0
    # one call for the replayed system message, one for the summary, one per candidate
    assert calls() <= messages - systems + 1 + summaries
    assert calls() > 0


def test_inspect_prices_each_message_once() -> None:
    file = DATA / "pi-sessions" / "large-session.v1.jsonl"
    loaded = load_session(file, file.name, file.read_bytes())
    estimate, calls = counting(fixture_estimator())
    report = inspect_entries(
        loaded,
        file=file.name,
        leaf_id=None,
        budget=Budget(max_tokens=50_000, reserved_output=16_384),
        estimator="fixture",
        estimate=estimate,
    )
    messages = sum(isinstance(entry, MessageEntry) for entry in loaded.entries)
    assert calls() <= messages + 2  # was twice that when the ledger planned again
    assert report.summary_tokens == 0 and report.compaction is None
