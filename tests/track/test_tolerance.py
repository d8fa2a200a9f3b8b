"""Token numbers compare up to float rounding, everything else exactly (``course_lib.track.tolerance``).

The spec's "Token numbers and floats": a check of a student's rule compares
token numbers with ``math.isclose(rel_tol=1e-9)`` and ids, reasons, counts
and the messages kept exactly, so ``summary_tokens + sum(kept_costs)`` is a
right answer. These tests pin the comparison itself, the lab checks' helpers
and oracle built on it, and a whole package that adds in another order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from lab_checks import expect_equal, expect_values
from path_oracle import Choice, walk_choices, whole_costs

import course_lib
from course_lib.grading.hidden_checks import run_hidden_cases
from course_lib.track.checks import run_checks_in_process
from course_lib.track.exercises import evaluate
from course_lib.track.starters import write_practice_package
from course_lib.track.tolerance import is_number, same_number, same_value


@dataclass(frozen=True)
class Row:
    """A stand-in for a result dataclass: a token number, an id list and a reason."""

    tokens: float
    ids: list[str]
    reason: str
    note: str = field(default="", compare=False)


@dataclass(frozen=True)
class OtherRow:
    """The same fields as ``Row`` in another class: never equal to a ``Row``, as with ``==``."""

    tokens: float
    ids: list[str]
    reason: str


# --- the comparison ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (25.299999999999997, 25.3),  # the kept costs added newest first, and with sum()
        (14.399999999999999, 14.4),  # the fixed costs subtracted one by one, and summed first
        (0.1 + 0.2, 0.3),
        (22, 22.0),
        (0, 0.0),
        (1e21, 1e21 * (1 + 1e-12)),
    ],
)
def test_numbers_one_rounding_apart_are_the_same(expected: float, actual: float) -> None:
    assert same_number(expected, actual)
    assert same_value(expected, actual)
    assert same_value(actual, expected)


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (25.3, 25.4),
        (22, 23),
        (22, 22.001),
        (0, 1e-300),  # no absolute tolerance: nothing is "almost 0 tokens"
        (1.0, 1.0 + 1e-8),
    ],
)
def test_numbers_further_apart_differ(expected: float, actual: float) -> None:
    assert not same_number(expected, actual)
    assert not same_value(expected, actual)


def test_a_bool_is_not_a_number() -> None:
    assert not is_number(True) and is_number(1) and is_number(1.5)
    assert not same_value(True, 1)
    assert not same_value(1, True)
    assert not same_value(False, 0.0)
    assert same_value(True, True) and not same_value(True, False)
    assert not same_value({"overflow": True}, {"overflow": 1})


def test_strings_ids_and_reasons_stay_exact() -> None:
    assert same_value("trimmed", "trimmed")
    assert not same_value("trimmed", "Trimmed")
    assert not same_value("25.3", "25.299999999999997")
    assert not same_value(["u2", "a2"], ["u2", "a2 "])
    assert not same_value("22", 22)


def test_lists_tuples_and_dicts_compare_item_by_item() -> None:
    assert same_value([25.299999999999997, ["u2"]], [25.3, ["u2"]])
    assert same_value((22, 17.000000000000004), (22, 17))
    assert same_value({"tokens": {"messages": 25.299999999999997}}, {"tokens": {"messages": 25.3}})
    assert not same_value({"tokens": {"messages": 25.3}}, {"tokens": {"messages": 25.4}})
    assert not same_value([1, 2], [1, 2, 3])
    assert not same_value((22, 17), [22, 17])  # a list is not a tuple, as with ==
    assert not same_value({"a": 1}, {"a": 1, "b": 2})
    assert not same_value({"a": 1}, {"b": 1})


def test_dataclasses_compare_field_by_field_within_their_class() -> None:
    row = Row(25.299999999999997, ["u2", "a2"], "trimmed", note="course order")
    assert same_value(row, Row(25.3, ["u2", "a2"], "trimmed", note="sum()"))  # note: compare=False
    assert not same_value(row, Row(25.3, ["u2"], "trimmed"))
    assert not same_value(row, Row(25.3, ["u2", "a2"], "within_budget"))
    assert not same_value(row, OtherRow(25.299999999999997, ["u2", "a2"], "trimmed"))


def test_a_token_projection_compares_with_tolerance_and_messages_exactly() -> None:
    projection = course_lib.TokenProjection(
        max_tokens=31,
        system=1.5,
        messages=25.299999999999997,
        reserved_output=4,
        safety_margin=2,
        available_for_messages=25.5,
        total=32.8,
    )
    resummed = course_lib.TokenProjection(
        max_tokens=31,
        system=1.5,
        messages=25.3,
        reserved_output=4,
        safety_margin=2,
        available_for_messages=25.5,
        total=32.800000000000004,
    )
    assert projection != resummed  # the dataclass's own == judges the last bit
    assert same_value(projection, resummed)
    message = course_lib.user_message("hi", timestamp=1.5)
    assert same_value([message], [course_lib.user_message("hi", timestamp=1.5)])
    assert not same_value(message, course_lib.user_message("hi", timestamp=1.5 + 1e-12))


# --- the lab checks' helpers and oracle --------------------------------------------------------


def test_the_lab_check_helpers_accept_another_order_of_adding() -> None:
    expect_values("case", {"tokens.messages": 25.299999999999997}, {"tokens.messages": 25.3})
    expect_equal("case", (22, 14.399999999999999), (22, 14.4))
    with pytest.raises(pytest.fail.Exception) as failed:
        expect_values("case", {"tokens.messages": 25.3}, {"tokens.messages": 25.4}, hint="rule")
    assert str(failed.value) == (
        "case: expected tokens.messages 25.3, got tokens.messages 25.4; hint: rule"
    )
    with pytest.raises(pytest.fail.Exception) as failed:
        expect_equal("case", True, 1)
    assert str(failed.value) == "case: expected True, got 1"


def test_a_run_of_groups_that_ties_the_allowance_may_be_kept_or_not() -> None:
    # Random path 30 of the lab checks: groups 1-4 cost 28.5 added newest group first (the
    # course's order), but 28.500000000000004 added message by message newest first.
    costs = [6.0, 5.8999999999999995, 4.3, 12.1, 6.2]
    assert walk_choices(costs, 28.5) == [
        Choice(first=1, messages=28.5, overflow=False),
        Choice(first=2, messages=22.6, overflow=False),
    ]
    assert walk_choices(costs, 28.4) == [Choice(first=2, messages=22.6, overflow=False)]
    assert walk_choices([], 0) == [Choice(first=0, messages=0, overflow=False)]


def test_whole_costs_add_up_exactly_so_a_tie_fits() -> None:
    # The fixture at max_tokens 31: [u2, a2] + [u3 ... a3] = 22 fits exactly, in any order.
    assert walk_choices([7, 7, 15], 22, exact=True) == [
        Choice(first=1, messages=22, overflow=False)
    ]
    assert walk_choices([7, 15], 15, exact=True) == [Choice(first=1, messages=15, overflow=False)]
    fixture = course_lib.chapter_fixture()
    assert whole_costs(fixture, course_lib.fixture_estimator())
    assert not whole_costs(fixture, lambda message: len(course_lib.text_of(message)) / 10 + 0.1)


def test_a_newest_group_that_ties_the_allowance_may_overflow_or_not() -> None:
    assert walk_choices([7, 3.0000000000000004], 3) == [
        Choice(first=1, messages=3.0000000000000004, overflow=True),
        Choice(first=1, messages=3.0000000000000004, overflow=False),
    ]
    assert walk_choices([7, 15], 10) == [Choice(first=1, messages=15, overflow=True)]


# --- the notebook exercises ---------------------------------------------------------------------


def test_an_exercise_answer_one_rounding_away_is_right_and_one_token_away_is_not() -> None:
    messages = course_lib.build_context(
        course_lib.chapter_fixture_after_compaction(),
        max_tokens=40,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=course_lib.fixture_estimator(),
    ).tokens.messages
    assert evaluate("11.5-q2", messages * (1 + 1e-15)).passed
    assert not evaluate("11.5-q2", messages + 1).passed
    assert evaluate("11.3-q1", 26 * (1 + 1e-15)).passed  # 40 - 3 (system) - 8 - 3
    assert not evaluate("11.3-q1", 26.5).passed

    def allowance(max_tokens: int, system: int, reserved_output: int, margin: int) -> float:
        return max(0, max_tokens - system - reserved_output - margin) * (1 + 1e-15)

    assert evaluate("11.3-q3", allowance).passed


# --- a whole package that adds in another order ------------------------------------------------

TRACK = ["11.1", "11.2", "11.3", "11.4", "11.5", "transfer"]
RESUMMED = [
    (
        "budget.max_tokens - system_tokens - budget.reserved_output - budget.safety_margin",
        "budget.max_tokens - (system_tokens + budget.reserved_output + budget.safety_margin)",
    ),
    ("summary_tokens + add_in_order(reversed(kept_costs))", "summary_tokens + sum(kept_costs)"),
]
"""The issue's two ways of adding: the fixed costs summed before subtracting, ``sum(kept_costs)``."""


def resummed_package(directory: Path) -> Path:
    """A solved package whose Lab 11.3 follows the reference's rule, adding in other orders."""
    write_practice_package(directory, solved=TRACK)
    budget = directory / "budget.py"
    text = budget.read_text(encoding="utf-8")
    for old, new in RESUMMED:
        assert text.count(old) == 1, f"{old!r} is not once in the solved budget.py; update RESUMMED"
        text = text.replace(old, new)
    budget.write_text(text, encoding="utf-8")
    return directory


def test_a_package_that_adds_in_another_order_passes_the_lab_checks(tmp_path: Path) -> None:
    # Without the tolerance, Lab 11.3's random path 10 fails: "expected tokens.messages
    # 25.299999999999997, got tokens.messages 25.3".
    package = resummed_package(tmp_path / "ch11")
    (tmp_path / "scratch").mkdir()
    reports = run_checks_in_process(
        ["11.3", "11.5", "transfer"], impl=package, scratch=tmp_path / "scratch"
    )
    failed = [o.detail for report in reports for o in report.outcomes if o.outcome == "failed"]
    assert failed == []
    assert [report.passed for report in reports] == [3, 4, 3]


def test_a_package_that_adds_in_another_order_agrees_in_the_hidden_cases(tmp_path: Path) -> None:
    # Seed 1 draws cases whose tokens.total and available_for_messages differ in the last bit.
    results = run_hidden_cases(resummed_package(tmp_path / "ch11"), ["11.3", "11.5"], 1, count=12)
    assert [r.message for r in results if r.outcome != "passed"] == []
    assert len(results) == 24
