"""The notebooks' instant checks in Chinese: every English text has its Chinese counterpart.

``evaluate(..., lang="zh")`` and ``set_language("zh")`` (what the Chinese
notebooks call) answer from the gettext catalog, whose message ids are the
English messages the judges write (marked ``N_``). These tests read the
judges' source for every confirmation, hint and shape phrase the English side
can produce, so a message added in English without its Chinese fails here; and
they check that the Chinese answers keep the status, the hint code and the
marks of the English ones, never show the answer, and leave English the
default.

Every hint code of every exercise is triggered here with the wrong answers
``tests/track/test_exercises.py`` uses (``WRONG``), and every exercise's right
answer (``RIGHT``): the Chinese line keeps the English line's numbers, entry
ids and code names, and ``lang="en"`` prints byte for byte what no ``lang``
prints. A lab's exercises carry the lab's marker, as in ``test_exercises.py``.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from exercise_answers import compact_2_wire  # the right answer to 11.1-q2, with changes

from course_lib import chapter_fixture, chapter_fixture_after_compaction
from course_lib.base.errors import CourseError
from course_lib.base.i18n import has_translation, tr
from course_lib.track import exercises
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
NOT_ANSWERED_ZH = "尚未作答：把 ... 换成你的答案，再运行这个单元格"
CHINESE = re.compile(r"[\u4e00-\u9fff]")
SHAPE_HELPERS = {"_as_ids": 1, "_as_set": 1, "_as_text": 1, "_ShapeError": 0}
"""Where each shape helper takes its English phrase: the argument's position."""

LAB_MARKS = {
    "11.1": pytest.mark.lab_11_1,
    "11.2": pytest.mark.lab_11_2,
    "11.3": pytest.mark.lab_11_3,
    "11.4": pytest.mark.lab_11_4,
    "11.5": pytest.mark.lab_11_5,
}
"""A lab's exercises carry its marker (``pytest -m lab_11_3``), as in ``test_exercises.py``."""


def marked(exercise: str, *values: object, case_id: str | None = None) -> object:
    """``pytest.param`` of ``values``, marked with the lab of ``exercise`` if it has one."""
    lab = EXERCISES[exercise].lab
    marks = [LAB_MARKS[lab]] if lab in LAB_MARKS else []
    return pytest.param(*values, marks=marks, id=case_id or exercise)


EVERY_EXERCISE = [marked(exercise, exercise) for exercise in EXERCISES]


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


@dataclass
class Hint:
    """What a judge's hint code is built from: its English templates and the fields passed."""

    templates: set[str] = field(default_factory=set)
    fields: set[str] = field(default_factory=set)


def english_of(node: ast.expr, where: str) -> str:
    """The English of ``N_("...")``: every message a judge writes is marked so."""
    assert (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "N_"
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ), f"{where}: mark the message N_(...): {ast.unparse(node)}"
    return node.args[0].value


def _function(tree: ast.Module, name: str) -> ast.FunctionDef:
    (found,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return found


def english_hints() -> dict[str, dict[str, Hint]]:
    """exercise -> hint code -> its English template and the fields its ``_wrong`` call passes.

    11.1-q1's hint is computed (one parser rule, or ``several``): it is every
    key of ``_PARSER_RULES`` and ``several``, with ``_judged_wrongly``'s text.
    """
    tree = _tree()
    hints: dict[str, dict[str, Hint]] = {}
    for exercise in EXERCISES.values():
        found = hints.setdefault(exercise.id, {})
        judge = _function(tree, exercise.judge.__name__)
        for call in _calls(judge, "_wrong"):
            first = call.args[0]
            assert isinstance(first, ast.Constant) and isinstance(first.value, str)
            hint = found.setdefault(first.value, Hint())
            hint.templates.add(english_of(call.args[1], exercise.id))
            hint.fields.update(keyword.arg for keyword in call.keywords if keyword.arg)
        if _calls(judge, "_Verdict"):  # 11.1-q1: the misjudged candidates, by parser rule
            assert exercise.id == "11.1-q1", exercise.id
            (plural,) = _calls(_function(tree, "_judged_wrongly"), "tr_plural")
            for code in [*exercises._PARSER_RULES, "several"]:
                hint = found.setdefault(code, Hint())
                hint.templates.add(english_of(ast.Call(ast.Name("N_"), [plural.args[1]], []), code))
                hint.fields.update({"misjudged", "looks"})
    return hints


def english_confirmations() -> dict[str, set[str]]:
    """exercise -> the English ✓ lines its judge writes (``_right``)."""
    tree = _tree()
    return {
        exercise.id: {
            english_of(call.args[0], exercise.id)
            for call in _calls(_function(tree, exercise.judge.__name__), "_right")
        }
        for exercise in EXERCISES.values()
    }


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
            phrases.add(english_of(phrase, helper))
    (default,) = _function(tree, "_as_ids").args.defaults
    phrases.add(english_of(default, "_as_ids"))
    return phrases


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# --- every English text has its Chinese counterpart ---------------------------------------


def test_every_english_hint_has_its_chinese() -> None:
    hints = english_hints()
    assert sum(len(codes) for codes in hints.values()) > 70  # the reading of the judges works
    missing = [
        f"{exercise}: {code}: {template}"
        for exercise, codes in hints.items()
        for code, hint in codes.items()
        for template in hint.templates
        if not has_translation("zh", template)
    ]
    assert not missing, f"hints without Chinese (run `make catalogs`, translate): {missing}"


def test_each_chinese_hint_uses_only_the_fields_its_judge_passes() -> None:
    for exercise, codes in english_hints().items():
        for code, hint in codes.items():
            for english in hint.templates:
                chinese = tr("zh", english)
                assert _placeholders(chinese) <= hint.fields, (exercise, code, chinese)
                assert CHINESE.search(chinese), (exercise, code)


def test_every_exercise_confirms_in_chinese_and_every_shape_is_translated() -> None:
    confirmations = english_confirmations()
    assert list(confirmations) == list(EXERCISES) and all(confirmations.values())
    for exercise, lines in confirmations.items():
        assert all(CHINESE.search(tr("zh", line)) for line in lines), exercise
    shapes = english_shapes()
    assert len(shapes) > 15
    assert [shape for shape in shapes if not has_translation("zh", shape)] == []
    assert all(has_translation("zh", rule) for rule in exercises._PARSER_RULES.values())


# --- what a student sees -------------------------------------------------------------------


@pytest.mark.parametrize("exercise", EVERY_EXERCISE)
def test_unanswered_and_wrongly_shaped_answers_in_chinese(exercise: str) -> None:
    feedback = evaluate(exercise, ..., lang="zh")
    assert (feedback.status, feedback.hint) == ("unanswered", "")
    assert str(feedback) == f"○ {exercise}: {NOT_ANSWERED_ZH}"
    shaped = evaluate(exercise, object(), lang="zh")
    assert (shaped.status, shaped.hint) == ("wrong", "shape")
    assert shaped.message.startswith("应为") and CHINESE.search(shaped.message), shaped
    assert "expected" in evaluate(exercise, object()).message  # English stays the default


# (exercise, answer, hint, the answer a hint must never show)
CASES: list[tuple[str, object, str, object]] = [
    ("11.1-q1", {"A", "B", "C", "E", "H"}, "", None),
    ("11.1-q1", {"B", "C", "E", "H"}, "tokens", None),
    ("11.1-q1", {"B", "C", "D", "E", "H"}, "several", None),
    ("11.1-q1", {"A", "Z"}, "unknown_letter", None),
    ("11.2-q2", ("unknown call", "read-1"), "rule", "missing result"),
    ("11.2-q2", ("orphan", "read-1"), "rule_word", None),
    ("11.3-q1", 26, "", None),
    ("11.3-q1", 29, "system_cost", 26),
    ("11.3-q2", "u2", "too_many", "u3"),
    ("11.3-q3", lambda m, s, r, g: m - s - r - g, "negative", None),
    ("11.3-q3", lambda m, s: m - s, "raised", None),
    ("11.3-q3", lambda m, s, r, g: str(m), "not_a_number", None),
    ("11.4-q2", "compact-1", "last_compaction", "label-1"),
    ("11.4-q2", "a4", "last_message", "label-1"),
    ("11.5-q3", 31, "summary_cost", 36),
    ("transfer-q1", ["dropped", "trimmed", "kept"], "status_word", None),
    ("transfer-q2", [2, 3], "numbering", [3, 4]),
    ("recap-q5", {"u1", "u2", "u3", "patch-2"}, "system", None),
    ("recap-q6", "single_group_overflow", "overflow", "trimmed"),
    ("three-q1", "L0048", "summary_cost", "L0057"),
    ("three-q2", {"goal", "next"}, "missing", None),
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
    feedback = evaluate("11.1-q1", {"B", "C", "D", "E", "H"}, lang="zh")
    assert feedback.message == (
        "有 2 个候选判断错了。再看看："
        + tr("zh", exercises._PARSER_RULES["non_blank"])
        + "；"
        + tr("zh", exercises._PARSER_RULES["tokens"])
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
    assert (
        capsys.readouterr().out
        == "✓ 11.3-q1: max_tokens 减去 system 成本、reserved_output 和 safety_margin\n"
    )
    check("11.3-q1", 26, lang="en")  # an explicit lang wins over set_language
    assert capsys.readouterr().out.startswith("✓ 11.3-q1: max_tokens minus the system cost")

    set_language("en")
    check("11.3-q1", 29, lang="zh")
    assert capsys.readouterr().out == ("✗ 11.3-q1: 重放出的 system message 也是一项固定成本\n")


def test_bad_use_stays_an_english_error() -> None:
    with pytest.raises(CourseError, match="unknown language 'fr'; choose one of en, zh"):
        set_language("fr")
    with pytest.raises(CourseError, match="unknown language 'de'"):
        evaluate("11.3-q1", 26, lang="de")
    with pytest.raises(CourseError, match=re.escape("unknown exercise '11.9-q1'")):
        evaluate("11.9-q1", 1, lang="zh")
    assert language() == "en"


# --- every hint code of every exercise, and every right answer ---------------------------


def snake_case_wire() -> dict[str, object]:
    wire = compact_2_wire()
    wire["first_kept_entry_id"] = wire.pop("firstKeptEntryId")
    return wire


AFTER_COMPACT_1_AT_40 = ["u3", "calls", "r-test", "r-read", "a3", "u4", "a4"]

RIGHT: dict[str, object] = {
    "11.1-q1": {"A", "B", "C", "E", "H"},
    "11.1-q2": compact_2_wire(),
    "11.2-q1": [["u1", "a1"], ["u2", "a2"], ["u3", "a3"]],
    "11.2-q2": ("missing result", "read-1"),
    "11.3-q1": 26,
    "11.3-q2": "u3",
    "11.3-q3": lambda m, s, r, g: max(0, m - s - r - g),
    "11.4-q1": {"u1", "u2", "u3", "u4"},
    "11.4-q2": "label-1",
    "11.5-q1": AFTER_COMPACT_1_AT_40,
    "11.5-q2": 27,
    "11.5-q3": 36,
    "11.5-q4": "BASE\n\nPrefer small diffs.\n\nRULE v1",
    "transfer-q1": ["trimmed", "trimmed", "kept"],
    "transfer-q2": [3, 4],
    "real-q1": "L0231",
    "real-q2": 82,
    "recap-q1": 1,
    "recap-q2": "u2",
    "recap-q3": 11,
    "recap-q4": "u4",
    "recap-q5": {"u1", "u2", "u3"},
    "recap-q6": "trimmed",
    "three-q1": "L0057",
    "three-q2": {"goal", "changedFiles", "unresolved", "next"},
}
"""Each exercise's right answer, as ``tests/track/test_exercises.py`` gives it."""

WRONG: list[tuple[str, str, object]] = [
    # (exercise, hint code, a wrong answer that gets it: the answers of test_exercises.py)
    ("11.1-q1", "tokens", {"B", "C", "E", "H"}),
    ("11.1-q1", "list_items", {"A", "B", "E", "H"}),
    ("11.1-q1", "timestamp", {"A", "B", "C", "H"}),
    ("11.1-q1", "non_blank", {"A", "B", "C", "D", "E", "H"}),
    ("11.1-q1", "unknown_key", {"A", "B", "C", "E", "F", "H"}),
    ("11.1-q1", "shape_only", {"A", "B", "C", "E"}),
    ("11.1-q1", "several", {"B", "C", "D", "E", "H"}),
    ("11.1-q1", "unknown_letter", {"A", "Z"}),
    ("11.1-q1", "shape", "A"),
    ("11.1-q2", "parser", snake_case_wire()),
    ("11.1-q2", "type", chapter_fixture_after_compaction()[-1].to_wire()),
    ("11.1-q2", "id", compact_2_wire(id="compact-3")),
    ("11.1-q2", "parent", compact_2_wire(parentId="compact-1")),
    ("11.1-q2", "first_kept", compact_2_wire(firstKeptEntryId="u2")),
    ("11.1-q2", "shape", "compact-2"),
    ("11.2-q1", "compaction", [["u1", "a1"], ["u2", "a2", "compact-1"], ["u3", "a3"]]),
    ("11.2-q1", "system", [["u1", "a1"], ["patch-1", "u2", "a2"], ["u3", "a3"]]),
    ("11.2-q1", "count", [["u1", "a1", "u2", "a2"], ["u3", "a3"]]),
    ("11.2-q1", "members", [["u1"], ["a1", "u2", "a2"], ["u3", "a3"]]),
    ("11.2-q1", "shape", ["u1", "a1"]),
    ("11.2-q1", "shape", [["u1", 1]]),  # an item that is not a string
    ("11.2-q2", "rule_word", ("orphan", "read-1")),
    ("11.2-q2", "rule", ("unknown call", "read-1")),
    ("11.2-q2", "call_id", ("missing result", "test-1")),
    ("11.2-q2", "shape", "missing result"),
    ("11.3-q1", "system_cost", 29),
    ("11.3-q1", "reserved_or_margin", 37),
    ("11.3-q1", "deduction", 29 - 8),
    ("11.3-q1", "shape", "26"),
    ("11.3-q2", "unknown_id", "u9"),
    ("11.3-q2", "not_a_group_start", "calls"),
    ("11.3-q2", "too_many", "u2"),
    ("11.3-q2", "shape", ["u3"]),
    ("11.3-q3", "raised", lambda m, s: m - s),
    ("11.3-q3", "not_a_number", lambda m, s, r, g: str(m)),
    ("11.3-q3", "negative", lambda m, s, r, g: m - s - r - g),
    ("11.3-q3", "deduction", lambda m, s, r, g: max(0, m - r - g)),
    ("11.3-q3", "shape", 22),
    ("11.4-q1", "unknown_id", {"u1", "u2", "u3", "u4", "u9"}),
    ("11.4-q1", "compaction", {"u1", "u2", "u3", "u4", "compact-1"}),
    ("11.4-q1", "not_a_group_start", {"u1", "u2", "u3", "u4", "calls"}),
    ("11.4-q1", "after_compaction", {"u1", "u2", "u3"}),
    ("11.4-q1", "before_compaction", {"u2", "u3", "u4"}),
    ("11.4-q1", "shape", "u1"),
    ("11.4-q2", "first_kept", "u3"),
    ("11.4-q2", "last_message", "a4"),
    ("11.4-q2", "last_compaction", "compact-1"),
    ("11.4-q2", "parent", "a3"),
    ("11.4-q2", "shape", None),
    ("11.5-q1", "compaction_id", ["compact-1", *AFTER_COMPACT_1_AT_40]),
    ("11.5-q1", "before_first_kept", ["u1", "a1", *AFTER_COMPACT_1_AT_40]),
    ("11.5-q1", "after_compaction", AFTER_COMPACT_1_AT_40[:5]),
    ("11.5-q1", "summary_cost", ["u2", "a2", *AFTER_COMPACT_1_AT_40]),
    ("11.5-q1", "too_few", ["u4", "a4"]),
    ("11.5-q1", "shape", "u3"),
    ("11.5-q2", "summary_cost", 22),
    ("11.5-q2", "total", 27 + 3 + 4 + 2),
    ("11.5-q2", "sum", 12),
    ("11.5-q2", "shape", "27"),
    ("11.5-q3", "summary_cost", 31),
    ("11.5-q3", "larger", 43),
    ("11.5-q3", "allowance", 35),
    ("11.5-q3", "shape", "36"),
    ("11.5-q4", "before_first_kept", "Prefer small diffs.\n\nRULE v1"),
    ("11.5-q4", "sections", "BASE\n\nPrefer small diffs.\n\nRULE v2"),
    ("11.5-q4", "after_compaction", "BASE\n\nRULE v1"),
    ("11.5-q4", "order", "BASE\n\nRULE v1\n\nPrefer small diffs."),
    ("11.5-q4", "shape", ["BASE"]),
    ("transfer-q1", "status_word", ["dropped", "trimmed", "kept"]),
    ("transfer-q1", "count", ["trimmed", "kept"]),
    ("transfer-q1", "overflow", ["trimmed", "trimmed", "overflow"]),
    ("transfer-q1", "order", ["kept", "trimmed", "trimmed"]),
    ("transfer-q1", "fit", ["trimmed", "kept", "kept"]),
    ("transfer-q1", "shape", "kept"),
    ("transfer-q2", "numbering", [2, 3]),
    ("transfer-q2", "summary", [2, 3, 4]),
    ("transfer-q2", "fit", [4]),
    ("transfer-q2", "shape", 3),
    ("real-q1", "unknown_id", "L9999"),
    ("real-q1", "not_a_group_start", "L0232"),
    ("real-q1", "too_many", "L0002"),
    ("real-q1", "too_few", "L0235"),  # the next interaction's start after L0231
    ("real-q1", "shape", 231),
    ("real-q2", "all_groups", 88),
    ("real-q2", "entries", 703),  # the kept message entries, not the interactions
    ("real-q2", "count", 81),
    ("real-q2", "shape", "82"),
    ("recap-q1", "messages", 3),
    ("recap-q1", "summarised", 2),
    ("recap-q1", "groups", 0),
    ("recap-q1", "shape", "1"),
    ("recap-q2", "not_a_group_start", "calls"),
    ("recap-q2", "allowance", "u1"),
    ("recap-q2", "fit", "u3"),
    ("recap-q2", "shape", ["u2"]),
    ("recap-q3", "replaced", 10),
    ("recap-q3", "deleted", 3),
    ("recap-q3", "count", 12),
    ("recap-q3", "shape", "11"),
    ("recap-q4", "not_a_group_start", "a4"),
    ("recap-q4", "newest", "u2"),
    ("recap-q4", "shape", ["u4"]),
    ("recap-q5", "unknown_id", {"u1", "u9"}),
    ("recap-q5", "system", {"u1", "u2", "u3", "patch-2"}),
    ("recap-q5", "compaction", {"u1", "u2", "u3", "compact-1"}),
    ("recap-q5", "not_a_group_start", {"u1", "u2", "u3", "a2"}),
    ("recap-q5", "missing", {"u3"}),
    ("recap-q5", "shape", "u1"),
    ("recap-q6", "reason_word", "overflow"),
    ("recap-q6", "within", "within_budget"),
    ("recap-q6", "overflow", "single_group_overflow"),
    ("recap-q6", "shape", 28),
    ("three-q1", "unknown_id", "L9999"),
    ("three-q1", "not_a_group_start", "L0058"),
    ("three-q1", "before_compaction", "L0022"),
    ("three-q1", "summary_cost", "L0048"),  # the newest compaction's first kept entry
    ("three-q1", "shape", 57),
    ("three-q2", "unknown_field", {"goal", "changed_files"}),
    ("three-q2", "union", {"goal", "completed", "decisions", "changedFiles", "unresolved", "next"}),
    ("three-q2", "missing", {"goal", "next"}),
    ("three-q2", "extra", {"goal", "changedFiles", "unresolved", "next", "constraints"}),
    ("three-q2", "shape", "goal"),
]

UNREACHABLE: dict[tuple[str, str], str] = {
    ("11.3-q2", "too_few"): "the right answer u3 starts the newest group: no later start exists",
}
"""Hint codes a judge has but no answer can get on the chapter's fixture (tested below)."""

CODE_WORD = re.compile(r"-?\d+(?:[.,]\d+)*|[A-Za-z_]\w*(?:[.-]\w+)*")
QUOTED = re.compile(r"(?<!\w)'[^'\n]*'")


def _is_code(word: str) -> bool:
    """A number, an entry id or a code name (``u3``, ``max_tokens``, ``tokensBefore``, ``tokens.total``)."""
    if word.lstrip("-")[:1].isdigit():
        return True
    if "_" in word or re.search(r"\d|[a-z][A-Z]", word):
        return True
    return "." in word and all(len(part) >= 2 for part in word.split("."))


def kept_values(english: str) -> list[str]:
    """What a translation must keep of ``english``: its numbers, ids, code names and quoted literals."""
    words = [word for word in CODE_WORD.findall(english) if _is_code(word)]
    return [*words, *QUOTED.findall(english)]


def test_the_cases_cover_every_hint_code_of_every_exercise() -> None:
    assert list(RIGHT) == list(EXERCISES)
    codes = {(exercise, code) for exercise, hints in english_hints().items() for code in hints}
    codes |= {(exercise, "shape") for exercise in EXERCISES}
    covered = {(exercise, hint) for exercise, hint, _answer in WRONG}
    assert covered <= codes, f"cases for hints no judge gives: {covered - codes}"
    assert codes - covered == set(UNREACHABLE), f"hints without a case: {codes - covered}"


def test_the_unreachable_hints_are_unreachable() -> None:
    path = chapter_fixture()
    users = [e.id for e in path if getattr(getattr(e, "message", None), "role", "") == "user"]
    assert users[-1] == RIGHT["11.3-q2"]  # too_few needs a group start after the right one


@pytest.mark.parametrize(
    ("exercise", "hint", "answer"),
    [
        marked(exercise, exercise, hint, answer, case_id=f"{exercise}-{hint}-{index}")
        for index, (exercise, hint, answer) in enumerate(WRONG)
    ],
)
def test_each_hint_code_answers_in_chinese_with_the_english_values(
    exercise: str, hint: str, answer: object, capsys: pytest.CaptureFixture[str]
) -> None:
    english, chinese = evaluate(exercise, answer), evaluate(exercise, answer, lang="zh")
    assert (english.status, english.hint) == ("wrong", hint), english
    assert (chinese.status, chinese.hint) == ("wrong", hint), chinese
    assert str(chinese).startswith(f"✗ {exercise}: ")
    assert CHINESE.search(chinese.message), chinese
    missing = [value for value in kept_values(english.message) if value not in chinese.message]
    assert not missing, f"{chinese.message!r} lacks {missing} of {english.message!r}"
    if hint != "shape":
        verdict = EXERCISES[exercise].judge(answer)
        for name, value in verdict.fields.items():
            if isinstance(value, tuple):  # 11.1-q1's rules: each one named, in Chinese
                for rule in value:
                    assert tr("zh", exercises._PARSER_RULES[rule]) in chinese.message
            else:
                assert str(value) in chinese.message, (name, value, chinese.message)
    assert evaluate(exercise, answer, lang="en") == english  # an explicit "en" changes nothing
    check(exercise, answer)
    check(exercise, answer, lang="en")
    check(exercise, answer, lang="zh")
    default, explicit, zh = capsys.readouterr().out.splitlines()
    assert default == explicit == str(english) and zh == str(chinese)


@pytest.mark.parametrize(
    ("exercise", "answer"), [marked(exercise, exercise, RIGHT[exercise]) for exercise in RIGHT]
)
def test_each_right_answer_is_confirmed_in_chinese(
    exercise: str, answer: object, capsys: pytest.CaptureFixture[str]
) -> None:
    english, chinese = evaluate(exercise, answer), evaluate(exercise, answer, lang="zh")
    assert (english.status, chinese.status, chinese.hint) == ("correct", "correct", "")
    assert str(chinese) == f"✓ {exercise}: {tr('zh', english.message)}"
    assert english.message in english_confirmations()[exercise]
    assert CHINESE.search(chinese.message)
    missing = [value for value in kept_values(english.message) if value not in chinese.message]
    assert not missing, f"{chinese.message!r} lacks {missing} of {english.message!r}"
    check(exercise, answer)
    check(exercise, answer, lang="en")
    check(exercise, answer, lang="zh")
    default, explicit, zh = capsys.readouterr().out.splitlines()
    assert default == explicit == str(english) and zh == str(chinese)


@pytest.mark.parametrize("exercise", EVERY_EXERCISE)
def test_the_unanswered_line_in_chinese_and_explicit_english(
    exercise: str, capsys: pytest.CaptureFixture[str]
) -> None:
    check(exercise, ...)
    check(exercise, ..., lang="en")
    check(exercise, ..., lang="zh")
    assert capsys.readouterr().out == (
        f"○ {exercise}: {NOT_ANSWERED}\n" * 2 + f"○ {exercise}: {NOT_ANSWERED_ZH}\n"
    )
    assert CHINESE.search(NOT_ANSWERED_ZH) and "..." in NOT_ANSWERED_ZH
