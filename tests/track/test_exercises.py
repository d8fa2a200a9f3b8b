"""The notebooks' instant checks accept the right answer and name the mistake in a wrong one.

Each test gives one exercise its right answer (the chapter's numbers, as the
spec states them) and the typical wrong answers a student gives, and checks
the hint each wrong answer gets. A hint must never contain the answer. The
lab exercises carry their lab's marker, so ``pytest -m lab_11_3`` runs them
beside the lab's checks.

The checker computes its expected answers with the reference ``course_lib``;
against a practice package (``--impl``) these tests have nothing to say.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from exercise_answers import compact_2_wire  # the right answer to 11.1-q2, with changes

from course_lib import (
    build_context,
    chapter_fixture_after_compaction,
    chars_estimator,
    import_session,
)
from course_lib.base.errors import CourseError
from course_lib.track.exercises import (
    AGENT_SAMPLES,
    EXERCISES,
    NOT_ANSWERED,
    PARSER_CANDIDATES,
    Feedback,
    check,
    evaluate,
    exercise_ids,
)
from course_lib.views import COMPACTION_DRIFTS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "notebook_tools" / "notebook_sources"


# The notebooks' exercises are judged against the reference course_lib only:
# with ``--impl`` conftest leaves them out (deselected, never skipped).
pytestmark = pytest.mark.reference_only


def right(exercise: str, answer: object) -> None:
    feedback = evaluate(exercise, answer)
    assert feedback.status == "correct", feedback
    assert str(feedback).startswith(f"✓ {exercise}: ")


def wrong(exercise: str, answer: object, hint: str, *, hides: object = None) -> Feedback:
    """A wrong answer gets ``hint``; its message never shows ``hides`` (the right answer)."""
    feedback = evaluate(exercise, answer)
    assert (feedback.status, feedback.hint) == ("wrong", hint), feedback
    assert str(feedback).startswith(f"✗ {exercise}: ")
    if hides is not None:
        assert repr(hides) not in feedback.message and f" {hides}" not in feedback.message
    return feedback


# --- every exercise --------------------------------------------------------------------------


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_an_ellipsis_is_not_answered_yet(exercise: str) -> None:
    feedback = evaluate(exercise, ...)
    assert (feedback.status, feedback.hint, feedback.message) == ("unanswered", "", NOT_ANSWERED)
    assert str(feedback) == f"○ {exercise}: {NOT_ANSWERED}"


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_a_wrongly_shaped_answer_says_what_shape_is_expected(exercise: str) -> None:
    feedback = evaluate(exercise, object())
    assert (feedback.status, feedback.hint) == ("wrong", "shape"), feedback
    assert "expected" in feedback.message


def test_check_prints_one_line_and_an_unknown_exercise_is_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    check("11.3-q1", ...)
    assert capsys.readouterr().out == f"○ 11.3-q1: {NOT_ANSWERED}\n"
    with pytest.raises(CourseError, match=re.escape("unknown exercise '11.9-q1'")):
        evaluate("11.9-q1", 1)


def test_every_exercise_is_asked_by_exactly_one_notebook_source() -> None:
    asked: dict[str, list[str]] = {}
    for source in sorted(SOURCES.glob("*.py")):
        for exercise in re.findall(r'exercise_cells\(\s*"([^"]+)"', source.read_text("utf-8")):
            asked.setdefault(exercise, []).append(source.name)
    assert sorted(asked) == sorted(EXERCISES)
    assert all(len(names) == 1 for names in asked.values()), asked


def test_each_lab_notebook_asks_at_least_two_exercises() -> None:
    for lab in ("11.1", "11.2", "11.3", "11.4", "11.5"):
        assert len(exercise_ids(lab)) >= 2, lab
    for other in ("transfer", "real session", "three agents"):
        assert exercise_ids(other), other
    assert 5 <= len(exercise_ids("recap")) <= 6


# --- Lab 11.1 --------------------------------------------------------------------------------


@pytest.mark.lab_11_1
def test_11_1_q1_the_candidates_the_parser_accepts() -> None:
    assert set(PARSER_CANDIDATES) == set("ABCDEFGH")
    prompt = (SOURCES / "lab_11_1.py").read_text("utf-8")
    for letter, (change, _rule, _edit) in PARSER_CANDIDATES.items():
        assert f"| {letter} | {change} |" in prompt, letter  # the notebook shows the same changes
    right("11.1-q1", {"A", "B", "C", "E", "H"})
    right("11.1-q1", ["a", "b", "c", "e", "h"])  # letters in any case, any collection
    assert "tokensBefore" in wrong("11.1-q1", {"B", "C", "E", "H"}, "tokens").message
    wrong("11.1-q1", {"A", "B", "E", "H"}, "list_items")  # an empty string item is still a string
    wrong("11.1-q1", {"A", "B", "C", "E", "G", "H"}, "list_items")  # one string is not a list
    wrong("11.1-q1", {"A", "B", "C", "H"}, "timestamp")  # a negative timestamp is fine
    wrong("11.1-q1", {"A", "B", "C", "D", "E", "H"}, "non_blank")
    wrong("11.1-q1", {"A", "B", "C", "E", "F", "H"}, "unknown_key")
    wrong("11.1-q1", {"A", "B", "C", "E"}, "shape_only")  # the parser never reads the path
    wrong("11.1-q1", {"B", "C", "D", "E", "H"}, "several")
    wrong("11.1-q1", {"A", "Z"}, "unknown_letter")
    # Every candidate is a new case: none is an input the notebook parses before the exercise.
    wire = chapter_fixture_after_compaction()[10].to_wire()
    files_alias = copy.deepcopy(wire)
    files_alias["summary"]["files"] = files_alias["summary"].pop("changedFiles")
    shown = [files_alias, *(edit.applied(wire) for edit in COMPACTION_DRIFTS)]
    for letter, (_change, _rule, edit) in PARSER_CANDIDATES.items():
        candidate = copy.deepcopy(wire)
        edit(candidate)
        assert candidate not in shown, letter


@pytest.mark.lab_11_1
def test_11_1_q2_writing_compact_2_as_a_wire_dict() -> None:
    right("11.1-q2", compact_2_wire())
    snake = compact_2_wire()
    snake["first_kept_entry_id"] = snake.pop("firstKeptEntryId")
    feedback = wrong("11.1-q2", snake, "parser")
    assert "first_kept_entry_id: unknown field" in feedback.message  # the parser's own words
    wrong("11.1-q2", compact_2_wire(parentId="compact-1"), "parent", hides="a4")
    wrong("11.1-q2", compact_2_wire(firstKeptEntryId="u2"), "first_kept")
    wrong("11.1-q2", compact_2_wire(id="compact-3"), "id")
    wrong("11.1-q2", chapter_fixture_after_compaction()[-1].to_wire(), "type")
    wrong("11.1-q2", "compact-2", "shape")


# --- Lab 11.2 --------------------------------------------------------------------------------


@pytest.mark.lab_11_2
def test_11_2_q1_the_groups_of_the_system_replay_path() -> None:
    right("11.2-q1", [["u1", "a1"], ["u2", "a2"], ["u3", "a3"]])
    wrong("11.2-q1", [["u1", "a1"], ["patch-1", "u2", "a2"], ["u3", "a3"]], "system")
    wrong("11.2-q1", [["u1", "a1"], ["u2", "a2", "compact-1"], ["u3", "a3"]], "compaction")
    wrong("11.2-q1", [["u1", "a1", "u2", "a2"], ["u3", "a3"]], "count")
    wrong("11.2-q1", [["u1"], ["a1", "u2", "a2"], ["u3", "a3"]], "members")
    wrong("11.2-q1", ["u1", "a1"], "shape")


@pytest.mark.lab_11_2
def test_11_2_q2_removing_r_read_leaves_read_1_without_its_result() -> None:
    right("11.2-q2", ("missing result", "read-1"))
    right("11.2-q2", ["missing result", "read-1"])
    wrong("11.2-q2", ("unknown call", "read-1"), "rule", hides="missing result")
    wrong("11.2-q2", ("valid", ""), "rule")
    wrong("11.2-q2", ("missing result", "test-1"), "call_id", hides="read-1")
    wrong("11.2-q2", ("orphan", "read-1"), "rule_word")
    wrong("11.2-q2", "missing result", "shape")


# --- Lab 11.3 --------------------------------------------------------------------------------


@pytest.mark.lab_11_3
def test_11_3_q1_the_allowance_after_the_fixed_costs() -> None:
    right("11.3-q1", 26)  # 40 - 3 - 8 - 3
    right("11.3-q1", 26.0)
    wrong("11.3-q1", 29, "system_cost", hides=26)
    wrong("11.3-q1", 37, "reserved_or_margin", hides=26)
    wrong("11.3-q1", 29 - 8, "deduction", hides=26)
    wrong("11.3-q1", "26", "shape")
    wrong("11.3-q1", True, "shape")


@pytest.mark.lab_11_3
def test_11_3_q2_the_first_kept_entry_at_30_tokens() -> None:
    right("11.3-q2", "u3")  # allowance 21: 15 fits, 15 + 7 = 22 does not
    wrong("11.3-q2", "u2", "too_many", hides="u3")  # the answer at 31 tokens
    wrong("11.3-q2", "calls", "not_a_group_start")
    wrong("11.3-q2", "r-test", "not_a_group_start")
    wrong("11.3-q2", "sys", "not_a_group_start")
    wrong("11.3-q2", "u9", "unknown_id")
    wrong("11.3-q2", ["u3"], "shape")


@pytest.mark.lab_11_3
def test_11_3_q3_the_allowance_function_never_goes_below_zero() -> None:
    right("11.3-q3", lambda m, s, r, g: max(0, m - s - r - g))
    wrong("11.3-q3", lambda m, s, r, g: m - s - r - g, "negative")
    wrong("11.3-q3", lambda m, s, r, g: max(0, m - r - g), "deduction")  # forgot the system
    wrong("11.3-q3", lambda m, s, r, g: str(m), "not_a_number")
    wrong("11.3-q3", lambda m, s: m - s, "raised")
    assert evaluate("11.3-q3", lambda m, s, r, g: ...).status == "unanswered"
    wrong("11.3-q3", 22, "shape")


# --- Lab 11.4 --------------------------------------------------------------------------------


@pytest.mark.lab_11_4
def test_11_4_q1_the_legal_first_kept_ids_after_compact_1() -> None:
    right("11.4-q1", {"u1", "u2", "u3", "u4"})
    right("11.4-q1", ["u4", "u3", "u2", "u1"])
    wrong("11.4-q1", {"u1", "u2", "u3", "u4", "calls"}, "not_a_group_start")
    wrong("11.4-q1", {"u1", "u2", "u3", "u4", "compact-1"}, "compaction")
    wrong("11.4-q1", {"u1", "u2", "u3"}, "after_compaction")
    wrong("11.4-q1", {"u2", "u3", "u4"}, "before_compaction")  # u1 lies before first kept u2
    wrong("11.4-q1", {"u1", "u2", "u3", "u4", "u9"}, "unknown_id")
    wrong("11.4-q1", "u1", "shape")


@pytest.mark.lab_11_4
def test_11_4_q2_the_parent_of_compact_2_is_the_label_after_a4() -> None:
    right("11.4-q2", "label-1")  # the last entry of the path, a metadata entry
    right("11.4-q2", " label-1 ")
    wrong("11.4-q2", "a4", "last_message", hides="label-1")
    wrong("11.4-q2", "u3", "first_kept", hides="label-1")
    wrong("11.4-q2", "compact-1", "last_compaction", hides="label-1")
    wrong("11.4-q2", "a3", "parent", hides="label-1")
    wrong("11.4-q2", None, "shape")


# --- Lab 11.5 --------------------------------------------------------------------------------

AFTER_COMPACT_1_AT_40 = ["u3", "calls", "r-test", "r-read", "a3", "u4", "a4"]


@pytest.mark.lab_11_5
def test_11_5_q1_what_build_context_keeps_after_compact_1_at_40_tokens() -> None:
    right("11.5-q1", AFTER_COMPACT_1_AT_40)  # allowance 31 - 5 = 26: 7 + 15 fit, + 7 does not
    wrong("11.5-q1", ["u2", "a2", *AFTER_COMPACT_1_AT_40], "summary_cost")
    wrong("11.5-q1", ["compact-1", *AFTER_COMPACT_1_AT_40], "compaction_id")
    wrong("11.5-q1", ["u1", "a1", *AFTER_COMPACT_1_AT_40], "before_first_kept")
    wrong("11.5-q1", AFTER_COMPACT_1_AT_40[:5], "after_compaction")
    wrong("11.5-q1", ["u4", "a4"], "too_few")
    wrong("11.5-q1", "u3", "shape")


@pytest.mark.lab_11_5
def test_11_5_q2_the_summary_costs_room_too() -> None:
    right("11.5-q2", 27)  # 5 + 7 + 15
    wrong("11.5-q2", 22, "summary_cost", hides=27)
    wrong("11.5-q2", 27 + 3 + 4 + 2, "total", hides=27)
    wrong("11.5-q2", 12, "sum", hides=27)


@pytest.mark.lab_11_5
def test_11_5_q3_the_smallest_window_that_keeps_group_3_too() -> None:
    right("11.5-q3", 36)  # system 3 + reserved 4 + margin 2 + summary 5 + groups 7 + 15
    wrong("11.5-q3", 31, "summary_cost", hides=36)
    wrong("11.5-q3", 35, "allowance", hides=36)
    wrong("11.5-q3", 24, "allowance", hides=36)  # the newest group only
    wrong("11.5-q3", 43, "larger", hides=36)  # group 2 fits too
    wrong("11.5-q3", "36", "shape")


@pytest.mark.lab_11_5
def test_11_5_q4_the_prompt_is_replayed_from_the_whole_path() -> None:
    right("11.5-q4", "BASE\n\nPrefer small diffs.\n\nRULE v1")
    wrong("11.5-q4", "Prefer small diffs.\n\nRULE v1", "before_first_kept")
    wrong("11.5-q4", "BASE\n\nPrefer small diffs.\n\nRULE v2", "sections")
    wrong("11.5-q4", "BASE\n\nRULE v1", "after_compaction")
    wrong("11.5-q4", "BASE\n\nRULE v1\n\nPrefer small diffs.", "order")
    wrong("11.5-q4", "BASE\nPrefer small diffs.\nRULE v1", "order")


@pytest.mark.lab_11_5
def test_11_5_q4_the_chinese_edition_answers_with_its_own_texts() -> None:
    """The Chinese edition's path has the same entries in Chinese: its answer is its prompt."""
    right("11.5-q4", "基础提示\n\n优先做小的改动：每次提交只改一个地方。\n\n规则版本 v1")
    wrong("11.5-q4", "优先做小的改动：每次提交只改一个地方。\n\n规则版本 v1", "before_first_kept")
    wrong(
        "11.5-q4", "基础提示\n\n优先做小的改动：每次提交只改一个地方。\n\n规则版本 v2", "sections"
    )
    wrong("11.5-q4", "基础提示\n\n规则版本 v1", "after_compaction")
    wrong("11.5-q4", "基础提示\n\n规则版本 v1\n\n优先做小的改动：每次提交只改一个地方。", "order")
    wrong(
        "11.5-q4",
        "BASE\n\n优先做小的改动：每次提交只改一个地方。\n\n规则版本 v1",
        "before_first_kept",
    )  # mixed


# --- the transfer exercise, the real session and the recap -----------------------------------


def test_transfer_q1_the_ledger_at_26_tokens() -> None:
    right("transfer-q1", ["trimmed", "trimmed", "kept"])  # allowance 17: 15 fits, + 7 does not
    wrong("transfer-q1", ["trimmed", "trimmed", "overflow"], "overflow")
    wrong("transfer-q1", ["kept", "trimmed", "trimmed"], "order")
    wrong("transfer-q1", ["trimmed", "kept", "kept"], "fit")
    wrong("transfer-q1", ["trimmed", "kept"], "count")
    wrong("transfer-q1", ["dropped", "trimmed", "kept"], "status_word")


def test_transfer_q2_applies_the_budget_and_keeps_the_chapters_group_numbers() -> None:
    # After compact-1 at 38 / 4 / 2: 29 for messages, 24 after the summary's 5; groups
    # 4 (7) and 3 (15) fit (22), group 2 (7) does not.
    right("transfer-q2", [3, 4])
    wrong("transfer-q2", [2, 3], "numbering", hides=[3, 4])
    wrong("transfer-q2", [2, 3, 4], "summary", hides=[3, 4])
    wrong("transfer-q2", [4], "fit", hides=[3, 4])
    wrong("transfer-q2", 3, "shape")


def test_real_q1_and_q2_the_kept_range_at_100_000_tokens() -> None:
    right("real-q1", "L0231")
    wrong("real-q1", "L0002", "too_many", hides="L0231")
    wrong("real-q1", "L0232", "not_a_group_start")
    wrong("real-q1", "L9999", "unknown_id")
    right("real-q2", 82)
    wrong("real-q2", 88, "all_groups", hides=82)
    wrong("real-q2", 81, "count", hides=82)


def test_recap_questions_apply_the_chapters_rules_to_new_numbers_and_paths() -> None:
    # The system-replay path after compact-1 (first kept u2): groups 2 = [u2, a2] and
    # 3 = [u3, a3] (patch-2 belongs to none), so one cut point.
    right("recap-q1", 1)
    wrong("recap-q1", 3, "messages", hides=1)  # every gap between u2, a2, u3, a3
    wrong("recap-q1", 2, "summarised", hides=1)  # the whole path's three groups
    wrong("recap-q1", 0, "groups", hides=1)
    # 38 - 3 - 3 - 5 = 27: 15 fits, + 7 = 22 fits, + 7 = 29 does not.
    right("recap-q2", "u2")
    wrong("recap-q2", "u1", "allowance", hides="u2")  # 38 - 3 - 5 = 30 without the system
    wrong("recap-q2", "u3", "fit", hides="u2")
    wrong("recap-q2", "calls", "not_a_group_start")
    # The ten entries of the system-replay path, then compact-2: nothing is deleted.
    right("recap-q3", 11)
    wrong("recap-q3", 10, "replaced", hides=11)
    wrong("recap-q3", 3, "deleted", hides=11)  # only u3, a3 and compact-2 left
    wrong("recap-q3", 12, "count", hides=11)
    # compact-2 keeps from u4: only it is read, although 45 would fit compact-1's u2 onwards.
    right("recap-q4", "u4")
    wrong("recap-q4", "u2", "newest", hides="u4")
    wrong("recap-q4", "u3", "newest", hides="u4")
    wrong("recap-q4", "a4", "not_a_group_start")
    right("recap-q5", {"u1", "u2", "u3"})
    wrong("recap-q5", {"u1", "u2", "u3", "patch-2"}, "system")
    wrong("recap-q5", {"u1", "u2", "u3", "compact-1"}, "compaction")
    wrong("recap-q5", {"u1", "u2", "u3", "a2"}, "not_a_group_start")
    wrong("recap-q5", {"u3"}, "missing")
    wrong("recap-q5", {"u1", "u9"}, "unknown_id")
    # 28 - 3 - 8 - 2 = 15: group 3 (15) fits exactly, group 2 does not.
    right("recap-q6", "trimmed")
    wrong("recap-q6", "single_group_overflow", "overflow", hides="trimmed")
    wrong("recap-q6", "within_budget", "within", hides="trimmed")
    wrong("recap-q6", "overflow", "reason_word")


# --- three agents, one chapter ---------------------------------------------------------------


def test_three_q1_the_codex_samples_kept_range_at_16_600_tokens() -> None:
    # 216 tokens for messages: the summary, then the newest group; the one before does not fit.
    right("three-q1", "L0057")
    wrong("three-q1", "L0048", "summary_cost", hides="L0057")  # the compaction's first kept entry
    wrong("three-q1", "L0022", "before_compaction", hides="L0057")
    wrong("three-q1", "L0058", "not_a_group_start")
    wrong("three-q1", "L9999", "unknown_id")
    wrong("three-q1", 57, "shape")


def test_three_q1_is_judged_from_the_import_and_build_context() -> None:
    path = import_session(AGENT_SAMPLES["codex"]).active_path()
    result = build_context(
        path, max_tokens=16_600, reserved_output=16_384, estimate_tokens=chars_estimator()
    )
    assert result.reason == "trimmed" and result.kept_entry_ids[0] == "L0057"
    roomier = build_context(
        path, max_tokens=50_000, reserved_output=16_384, estimate_tokens=chars_estimator()
    )
    assert roomier.kept_entry_ids[0] == "L0048"  # the window, not the file, moves the start


def test_three_q2_the_fields_every_claude_code_summary_filled() -> None:
    every = {"goal", "changedFiles", "unresolved", "next"}
    right("three-q2", every)
    right("three-q2", list(every))  # any collection of names
    wrong("three-q2", every | {"completed", "decisions"}, "union", hides=every)
    wrong("three-q2", {"goal", "next"}, "missing")
    wrong("three-q2", every | {"constraints"}, "extra")
    wrong("three-q2", {"goal", "changed_files"}, "unknown_field")
    wrong("three-q2", "goal", "shape")
    compactions = import_session(AGENT_SAMPLES["claude-code"]).compactions
    assert len(compactions) == 2
    assert set.intersection(*(set(c.fields_filled) for c in compactions)) == every
