"""The notebooks' instant checks in Chinese: every English text has its Chinese counterpart.

``evaluate(..., lang="zh")`` and ``set_language("zh")`` (what the Chinese
notebooks call) answer from ``course_lib.track.exercises_zh``. These tests
read the judges' source for every hint code and shape phrase the English side
can produce, so a hint added in English without its Chinese fails here; and
they check that the Chinese answers keep the status, the hint code and the
marks of the English ones, never show the answer, and leave English the
default.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from pathlib import Path

import pytest

from course_lib.errors import CourseError
from course_lib.track import exercises, exercises_zh
from course_lib.track.exercises import (
    EXERCISES,
    NOT_ANSWERED,
    check,
    evaluate,
    language,
    set_language,
)

pytestmark = pytest.mark.reference_only  # judged against the reference course_lib, as in English

SOURCE = Path(exercises.__file__)
CHINESE = re.compile(r"[\u4e00-\u9fff]")
SHAPE_HELPERS = {"_as_ids": 1, "_as_set": 1, "_as_text": 1, "_ShapeError": 0}
"""Where each shape helper takes its English phrase: the argument's position."""


@pytest.fixture(autouse=True)
def english_again() -> Iterator[None]:
    """Every test starts, and leaves the interpreter, in English."""
    set_language("en")
    yield
    set_language("en")


def _tree() -> ast.Module:
    return ast.parse(SOURCE.read_text(encoding="utf-8"), filename=SOURCE.name)


def _calls(node: ast.AST, name: str) -> list[ast.Call]:
    return [
        call
        for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == name
    ]


def english_hints() -> dict[str, dict[str, set[str]]]:
    """exercise -> hint code -> the fields its English ``_wrong`` call passes, read from the judges.

    11.1-q1's hint is computed (one parser rule, or ``several``): it is every
    key of ``_PARSER_RULES`` and ``several``.
    """
    judges = {node.name: node for node in _tree().body if isinstance(node, ast.FunctionDef)}
    hints: dict[str, dict[str, set[str]]] = {}
    for exercise in EXERCISES.values():
        found = hints.setdefault(exercise.id, {})
        for call in _calls(judges[exercise.judge.__name__], "_wrong"):
            fields = {keyword.arg for keyword in call.keywords if keyword.arg}
            first = call.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                codes = [first.value]
            else:
                assert exercise.id == "11.1-q1", ast.unparse(call)
                codes = [*exercises._PARSER_RULES, "several"]
            for code in codes:
                found.setdefault(code, set()).update(fields)
    return hints


def english_shapes() -> set[str]:
    """Every phrase a ``_ShapeError`` can say, with ``_as_ids``'s default."""
    phrases: set[str] = set()
    tree = _tree()
    for helper, position in SHAPE_HELPERS.items():
        for call in _calls(tree, helper):
            if len(call.args) <= position:
                continue
            phrase = call.args[position]
            if isinstance(phrase, ast.Name) and phrase.id == "what":
                continue  # a helper handing its own argument on
            assert isinstance(phrase, ast.Constant) and isinstance(phrase.value, str), ast.unparse(
                call
            )
            phrases.add(phrase.value)
    (as_ids,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_as_ids"]
    (default,) = as_ids.args.defaults
    assert isinstance(default, ast.Constant) and isinstance(default.value, str)
    phrases.add(default.value)
    return phrases


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# --- every English text has its Chinese counterpart ---------------------------------------


def test_every_english_hint_has_a_chinese_counterpart_and_no_chinese_one_is_stale() -> None:
    hints = english_hints()
    assert sum(len(codes) for codes in hints.values()) > 70  # the reading of the judges works
    missing = [
        f"{exercise}: {code}"
        for exercise, codes in hints.items()
        for code in codes
        if code not in exercises_zh.HINTS_ZH.get(exercise, {})
    ]
    assert not missing, f"hints without Chinese: {missing}"
    stale = [
        f"{exercise}: {code}"
        for exercise, codes in exercises_zh.HINTS_ZH.items()
        for code in codes
        if code not in hints.get(exercise, {})
    ]
    assert not stale, f"Chinese hints no judge gives: {stale}"


def test_each_chinese_hint_uses_only_the_fields_its_judge_passes() -> None:
    for exercise, codes in english_hints().items():
        for code, fields in codes.items():
            template = exercises_zh.HINTS_ZH[exercise][code]
            known = fields | ({"looks"} if "rules" in fields else set())
            assert _placeholders(template) <= known, (exercise, code, template)
            assert CHINESE.search(template), (exercise, code)


def test_every_exercise_confirms_in_chinese_and_every_shape_is_translated() -> None:
    assert list(exercises_zh.CORRECT_ZH) == list(EXERCISES)
    assert all(CHINESE.search(text) for text in exercises_zh.CORRECT_ZH.values())
    shapes = english_shapes()
    assert len(shapes) > 15
    assert shapes - set(exercises_zh.SHAPES_ZH) == set(), "shapes without Chinese"
    assert set(exercises_zh.SHAPES_ZH) - shapes == set(), "Chinese shapes no judge uses"
    assert set(exercises_zh.PARSER_RULES_ZH) == set(exercises._PARSER_RULES)


# --- what a student sees -------------------------------------------------------------------


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_unanswered_and_wrongly_shaped_answers_in_chinese(exercise: str) -> None:
    feedback = evaluate(exercise, ..., lang="zh")
    assert (feedback.status, feedback.hint) == ("unanswered", "")
    assert str(feedback) == f"○ {exercise}: {exercises_zh.NOT_ANSWERED_ZH}"
    shaped = evaluate(exercise, object(), lang="zh")
    assert (shaped.status, shaped.hint) == ("wrong", "shape")
    assert shaped.message.startswith("应为") and CHINESE.search(shaped.message), shaped
    assert "expected" in evaluate(exercise, object()).message  # English stays the default


# (exercise, answer, hint, the answer a hint must never show)
CASES: list[tuple[str, object, str, object]] = [
    ("11.1-q1", {"A", "B", "C", "E"}, "", None),
    ("11.1-q1", {"A", "B", "C", "E", "G"}, "tokens", None),
    ("11.1-q1", {"B", "C", "D", "E"}, "several", None),
    ("11.1-q1", {"A", "Z"}, "unknown_letter", None),
    ("11.2-q2", ("unknown call", "read-1"), "rule", "missing result"),
    ("11.2-q2", ("orphan", "read-1"), "rule_word", None),
    ("11.3-q1", 26, "", None),
    ("11.3-q1", 29, "system_cost", 26),
    ("11.3-q2", "u2", "too_many", "u3"),
    ("11.3-q3", lambda m, s, r, g: m - s - r - g, "negative", None),
    ("11.3-q3", lambda m, s: m - s, "raised", None),
    ("11.3-q3", lambda m, s, r, g: str(m), "not_a_number", None),
    ("11.4-q2", "compact-1", "last_compaction", "a4"),
    ("11.5-q3", "overflow", "reason_word", None),
    ("transfer-q1", ["dropped", "trimmed", "kept"], "status_word", None),
    ("transfer-q2", 4, "whole_path", 3),
    ("recap-q5", {"prompt"}, "unknown_field", None),
    ("recap-q6", "trimmed", "overflow", "single_group_overflow"),
]


@pytest.mark.parametrize(("exercise", "answer", "hint", "hides"), CASES)
def test_a_chinese_answer_keeps_the_status_and_hint_and_hides_the_answer(
    exercise: str, answer: object, hint: str, hides: object
) -> None:
    english, chinese = evaluate(exercise, answer), evaluate(exercise, answer, lang="zh")
    assert (chinese.status, chinese.hint) == (english.status, english.hint)
    assert chinese.hint == hint and english.message != chinese.message
    mark = "✓" if chinese.passed else "✗"
    assert str(chinese).startswith(f"{mark} {exercise}: ") and CHINESE.search(chinese.message)
    if hides is not None:
        assert repr(hides) not in chinese.message and f" {hides}" not in chinese.message


def test_the_wrong_parser_rules_are_named_in_chinese() -> None:
    feedback = evaluate("11.1-q1", {"B", "C", "D", "E"}, lang="zh")
    assert feedback.message == (
        "有 2 个候选判断错了。再看看："
        + exercises_zh.PARSER_RULES_ZH["parent"]
        + "；"
        + exercises_zh.PARSER_RULES_ZH["tokens"]
    )


def test_set_language_switches_every_later_check_and_lang_wins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert language() == "en"
    check("11.3-q1", ...)
    assert capsys.readouterr().out == f"○ 11.3-q1: {NOT_ANSWERED}\n"

    set_language("zh")
    assert language() == "zh"
    check("11.3-q1", 26)
    assert capsys.readouterr().out == f"✓ 11.3-q1: {exercises_zh.CORRECT_ZH['11.3-q1']}\n"
    check("11.3-q1", 26, lang="en")  # an explicit lang wins over set_language
    assert capsys.readouterr().out.startswith("✓ 11.3-q1: max_tokens minus the system cost")

    set_language("en")
    check("11.3-q1", 29, lang="zh")
    assert capsys.readouterr().out == (
        f"✗ 11.3-q1: {exercises_zh.HINTS_ZH['11.3-q1']['system_cost']}\n"
    )


def test_bad_use_stays_an_english_error() -> None:
    with pytest.raises(CourseError, match="unknown language 'fr'; choose one of en, zh"):
        set_language("fr")
    with pytest.raises(CourseError, match="unknown language 'de'"):
        evaluate("11.3-q1", 26, lang="de")
    with pytest.raises(CourseError, match=re.escape("unknown exercise '11.9-q1'")):
        evaluate("11.9-q1", 1, lang="zh")
    assert language() == "en"
