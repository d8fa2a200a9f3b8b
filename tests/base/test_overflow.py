"""Numbers too large for a float become course errors wherever they enter, never ``OverflowError``.

``math.isfinite(-10**400)`` raises ``OverflowError``; every check that meets a
number from a caller or a file compares ints as ints first.
"""

from __future__ import annotations

from typing import Any

import pytest

from course_lib import BudgetError, budget_ledger, build_context, chapter_fixture
from course_lib.base.pricing import check_budget_number

HUGE = [10**400, -(10**400), 2**53, -1]


@pytest.mark.parametrize("number", HUGE, ids=["10**400", "-10**400", "2**53", "-1"])
def test_a_budget_number_too_large_or_negative_is_a_budget_error(number: int) -> None:
    with pytest.raises(BudgetError, match=r"^max_tokens must be"):
        check_budget_number("max_tokens", number)
    for keyword in ("max_tokens", "reserved_output", "safety_margin"):
        budget: dict[str, Any] = {"max_tokens": 31, keyword: number}
        with pytest.raises(BudgetError, match=rf"^{keyword} must be"):
            build_context(chapter_fixture(), estimate_tokens=lambda value: 1, **budget)
        with pytest.raises(BudgetError, match=rf"^{keyword} must be"):
            budget_ledger(chapter_fixture(), estimate_tokens=lambda value: 1, **budget)


@pytest.mark.parametrize("number", HUGE, ids=["10**400", "-10**400", "2**53", "-1"])
def test_an_estimator_result_too_large_or_negative_is_a_budget_error(number: int) -> None:
    with pytest.raises(BudgetError, match=r"estimate_tokens result for .* must be"):
        build_context(chapter_fixture(), max_tokens=31, estimate_tokens=lambda value: number)
