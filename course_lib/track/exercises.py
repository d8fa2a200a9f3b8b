"""Instant checks for the notebooks' exercises, in the style of otter-grader's ``grader.check``.

A notebook cell holds the student's answer, stored unanswered as ``...``; the
cell after it calls ``check("11.3-q1", answer_q1)``, which prints one line:

* ``✓ 11.3-q1: ...`` with a short confirmation of the rule the answer used;
* ``✗ 11.3-q1: ...`` with a hint that names what is wrong (the shape
  expected, the rule to look at again), never the answer itself;
* ``○ 11.3-q1: not answered yet ...`` while the answer is still ``...``,
  which is what the stored notebooks show, so nbval compares the same line
  on every run.

Every expected answer is computed here, on the chapter's fixture or the
sample sessions (pi, Claude Code, Codex CLI) as the importers read them, by the chapter's own functions (``build_context``,
``group_interactions``, ``create_compaction_entry`` ...): an exercise can
never disagree with the rules it practises. The prompts live in the
notebooks; ``Exercise.question`` repeats each one in a line for readers of
this module and for the tests.

Each wrong answer carries a ``hint`` code besides its message, so a test can
say which mistake an answer was taken for without depending on the wording.

The checks speak English by default, or Chinese: ``check(..., lang="zh")``
answers one call in Chinese (every notebook's check cell passes its edition's
language, ``check("11.3-q1", answer_q1, lang=LANG)``, and ``lang="en"`` prints
exactly what no ``lang`` prints), and ``set_language("zh")`` switches every
later ``check`` and ``evaluate`` of the interpreter that is given no ``lang``
(an explicit ``lang`` wins). Every message is written here in English,
marked ``N_`` where it is written (a template whose ``{fields}`` the judge
passes), and translated when shown, from the gettext catalog
(``course_lib.base.i18n``); ``Feedback.hint`` and the marks ✓ ✗ ○ are the same
in both languages, and an error raised for bad use (an unknown exercise)
stays English, as the library's errors do.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..base.errors import CourseError, InteractionError
from ..base.i18n import N_, has_translation, tr, tr_plural
from ..base.messages import SystemMessage, UserMessage, system_message_text
from ..beyond.estimators import chars_estimator
from ..beyond.importers import DetectedImport, import_pi_session, import_session
from ..chapter.budget import build_context, plan_budget
from ..chapter.compaction import create_compaction_entry
from ..chapter.entries import parse_session_entry
from ..chapter.fixture import (
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_estimator,
    fixture_summary,
    system_replay_fixture,
)
from ..chapter.groups import group_interactions
from ..chapter.ledger import budget_ledger
from ..chapter.messages import current_system_prompt
from ..chapter.models import Budget, BuildContextResult, CompactionEntry, MessageEntry, SessionEntry
from ..chapter.sessions import InMemorySessionStore
from .language import DEFAULT_LANGUAGE, Lang, check_language
from .tolerance import same_number

__all__ = [
    "AGENT_SAMPLES",
    "EXERCISES",
    "PARSER_CANDIDATES",
    "REAL_SESSION",
    "Exercise",
    "Feedback",
    "check",
    "evaluate",
    "exercise_ids",
    "language",
    "set_language",
]

Status = Literal["correct", "wrong", "unanswered"]

MARKS: dict[Status, str] = {"correct": "✓", "wrong": "✗", "unanswered": "○"}

NOT_ANSWERED = N_("not answered yet: replace the ... with your answer, then run this cell again")

REAL_SESSION = (
    Path(__file__).resolve().parents[2] / "data" / "pi-sessions" / "large-session.v1.jsonl"
)
"""The sample pi session notebook 07 opens (the repository's ``data`` folder)."""

PI_RESERVED_OUTPUT = 16_384
"""pi's default room for the answer, as notebook 07 uses it (``course-lab inspect``'s default)."""

AGENT_SAMPLES: dict[str, Path] = {
    "claude-code": REAL_SESSION.parents[1] / "claude-code-sessions" / "sample-session.jsonl",
    "codex": REAL_SESSION.parents[1] / "codex-sessions" / "sample-rollout.jsonl",
}
"""The Claude Code and Codex CLI samples notebook 09 sets beside the pi session, by format."""

THREE_Q1_MAX_TOKENS = 16_600
"""Exercise three-q1's window: with pi's reserved output, 216 tokens are left for messages."""


@dataclass(frozen=True)
class Feedback:
    """What ``check`` prints: the exercise, its status, a hint code and the message.

    ``hint`` is ``""`` unless the answer is wrong; then it names the mistake
    (``"system_cost"``, ``"not_a_group_start"`` ...), one code per hint.
    """

    exercise: str
    status: Status
    message: str
    hint: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "correct"

    def __str__(self) -> str:
        return f"{MARKS[self.status]} {self.exercise}: {self.message}"


@dataclass(frozen=True)
class _Verdict:
    """A judge's answer before it is labelled with its exercise."""

    correct: bool
    say: Callable[[Lang], str]
    """The message in a language (English is the message id, so it is the English text)."""
    hint: str = ""
    fields: Mapping[str, object] = field(default_factory=dict)
    """The values a message is built from, the same in every language."""

    @property
    def message(self) -> str:
        """The message in English."""
        return self.say(DEFAULT_LANGUAGE)


def _right(message: str) -> _Verdict:
    """A right answer: ``message`` is its confirmation (marked ``N_`` where it is written)."""
    return _Verdict(True, lambda lang: tr(lang, message))


def _wrong(hint: str, message: str, **fields: object) -> _Verdict:
    """A wrong answer: its hint code, its message (an ``N_`` template) and the template's values."""
    return _Verdict(False, lambda lang: tr(lang, message, **fields), hint, fields)


class _Unanswered(Exception):
    """A function exercise whose function still returns ``...``."""


Judge = Callable[[Any], _Verdict]


@dataclass(frozen=True)
class Exercise:
    """One exercise: where it is asked, what it asks, and the judge that checks an answer."""

    id: str
    lab: str
    question: str
    judge: Judge


# --- shapes ------------------------------------------------------------------------------------


def _kind(value: object) -> str:
    return type(value).__name__


def _as_ids(answer: object, what: str = N_("a list of entry ids such as ['x', 'y']")) -> list[str]:
    """The answer as a list of strings, or a ``_ShapeError`` that says what was expected."""
    if isinstance(answer, str) or not isinstance(answer, list | tuple):
        raise _ShapeError(what, _kind(answer))
    if not all(isinstance(item, str) for item in answer):
        raise _ShapeError(what, items=True)
    return list(answer)


def _as_set(answer: object, what: str) -> set[str]:
    if isinstance(answer, str) or not isinstance(answer, set | frozenset | list | tuple):
        raise _ShapeError(what, _kind(answer))
    if not all(isinstance(item, str) for item in answer):
        raise _ShapeError(what, items=True)
    return {item.strip() for item in answer}


def _as_number(answer: object) -> float:
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        raise _ShapeError(N_("a number of tokens"), _kind(answer))
    return answer


def _as_text(answer: object, what: str) -> str:
    if not isinstance(answer, str):
        raise _ShapeError(what, _kind(answer))
    return answer.strip()


class _ShapeError(Exception):
    """The answer does not have the expected shape: ``expected <what>[, got <kind>]``.

    ``what`` is the English phrase of the shape (marked ``N_`` where it is
    written, so the catalog has it in Chinese), ``got`` the type the answer
    had, ``items`` that an item of the collection is not a string.
    """

    def __init__(self, what: str, got: str = "", *, items: bool = False) -> None:
        self.what, self.got, self.items = what, got, items
        super().__init__(self.text(DEFAULT_LANGUAGE))

    def text(self, lang: Lang) -> str:
        """The message in ``lang`` (all of it in English when the phrase has no translation)."""
        if not has_translation(lang, self.what):
            return self.text(DEFAULT_LANGUAGE)
        what = tr(lang, self.what)
        if self.items:
            return tr(lang, "expected {what}: every item a string", what=what)
        if self.got:
            return tr(lang, "expected {what}, got {got}", what=what, got=self.got)
        return tr(lang, "expected {what}", what=what)


# --- the paths and budgets the exercises use ---------------------------------------------------

_CHAPTER_BUDGET = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}


def _build(path: Sequence[SessionEntry], **budget: Any) -> BuildContextResult:
    return build_context(path, **{**_CHAPTER_BUDGET, **budget}, estimate_tokens=fixture_estimator())


def _message_entries(path: Iterable[SessionEntry]) -> list[MessageEntry]:
    return [entry for entry in path if isinstance(entry, MessageEntry)]


def _group_starts(path: Sequence[SessionEntry]) -> list[str]:
    """Every message entry ``create_compaction_entry`` accepts as the first kept one."""
    accepted = []
    for entry in _message_entries(path):
        try:
            create_compaction_entry(
                path,
                id="exercise-compaction",
                timestamp=0,
                summary=fixture_summary(),
                first_kept_entry_id=entry.id,
                tokens_before=0,
            )
        except CourseError:
            continue
        accepted.append(entry.id)
    return accepted


@functools.cache
def _real_path() -> tuple[SessionEntry, ...]:
    """The sample session's active path, imported once per interpreter."""
    return tuple(import_pi_session(REAL_SESSION).active_path())


def _real_build(max_tokens: int) -> BuildContextResult:
    return build_context(
        list(_real_path()),
        max_tokens=max_tokens,
        reserved_output=PI_RESERVED_OUTPUT,
        estimate_tokens=chars_estimator(),
    )


@functools.cache
def _agent_import(format_name: str) -> DetectedImport:
    """A sample of ``AGENT_SAMPLES``, imported once per interpreter (judges only read it)."""
    return import_session(AGENT_SAMPLES[format_name])


def _user_ids(path: Sequence[SessionEntry]) -> set[str]:
    return {e.id for e in _message_entries(path) if isinstance(e.message, UserMessage)}


# --- Lab 11.1 --------------------------------------------------------------------------------

PARSER_CANDIDATES: dict[str, tuple[str, str, Callable[[dict[str, Any]], None]]] = {
    "A": ("`tokensBefore` is `0`", "tokens", lambda w: w.update(tokensBefore=0)),
    "B": ("`tokensBefore` is `29.5`", "tokens", lambda w: w.update(tokensBefore=29.5)),
    "C": (
        '`summary.next` is `["ok", ""]`',
        "list_items",
        lambda w: w["summary"].update(next=["ok", ""]),
    ),
    "D": ('`firstKeptEntryId` is `""`', "non_blank", lambda w: w.update(firstKeptEntryId="")),
    "E": ("`timestamp` is `-5`", "timestamp", lambda w: w.update(timestamp=-5)),
    "F": (
        "`summary.completed` is renamed `summary.done`",
        "unknown_key",
        lambda w: w["summary"].update(done=w["summary"].pop("completed")),
    ),
    "G": (
        '`summary.unresolved` is `"none"` (one string)',
        "list_items",
        lambda w: w["summary"].update(unresolved="none"),
    ),
    "H": ('`firstKeptEntryId` is `"a2"`', "shape_only", lambda w: w.update(firstKeptEntryId="a2")),
}
"""Exercise 11.1-q1: letter -> (what changes in ``compact-1``'s wire dict, the rule, the change).

Each applies a rule of the parser to a case the notebook's tables do not show.
"""

_PARSER_RULES: dict[str, str] = {
    "tokens": N_("tokensBefore must be a finite number >= 0; the parser never recomputes it"),
    "list_items": N_(
        "the six list fields must be lists, and their items only need to be strings; "
        "only goal must be non-blank"
    ),
    "non_blank": N_("goal, parentId and firstKeptEntryId must be non-blank strings"),
    "timestamp": N_("a timestamp is any finite number, whatever its sign"),
    "unknown_key": N_("a renamed field is a missing key plus an unknown one, at every level"),
    "shape_only": N_(
        "the parser reads one entry, not the path: it checks the shape of firstKeptEntryId, "
        "not which entry it names"
    ),
}


def _compact_1_wire() -> dict[str, Any]:
    return chapter_fixture_after_compaction()[10].to_wire()


def _parser_accepts(letter: str) -> bool:
    wire = copy.deepcopy(_compact_1_wire())
    PARSER_CANDIDATES[letter][2](wire)
    try:
        parse_session_entry(wire)
    except CourseError:
        return False
    return True


def _judge_11_1_q1(answer: object) -> _Verdict:
    chosen = {
        letter.upper() for letter in _as_set(answer, N_("a set of letters such as {'A', 'B'}"))
    }
    unknown = chosen - set(PARSER_CANDIDATES)
    if unknown:
        letters = ", ".join(PARSER_CANDIDATES)
        return _wrong("unknown_letter", N_("the candidates are {letters} only"), letters=letters)
    accepted = {letter for letter in PARSER_CANDIDATES if _parser_accepts(letter)}
    misjudged = sorted(chosen ^ accepted)
    if not misjudged:
        return _right(N_("exactly the wire dicts the parser accepts"))
    rules = sorted({PARSER_CANDIDATES[letter][1] for letter in misjudged})
    fields = {"misjudged": len(misjudged), "rules": tuple(rules)}
    say = functools.partial(_judged_wrongly, misjudged=len(misjudged), rules=tuple(rules))
    return _Verdict(False, say, rules[0] if len(rules) == 1 else "several", fields)


def _judged_wrongly(lang: Lang, *, misjudged: int, rules: Sequence[str]) -> str:
    """11.1-q1's hint: how many candidates the answer misjudged, and the rules to look at."""
    # TRANSLATORS: joins the parser rules an answer to exercise 11.1-q1 got wrong
    separator = tr(lang, "; ")
    looks = separator.join(tr(lang, _PARSER_RULES[rule]) for rule in rules)
    return tr_plural(
        lang,
        "one candidate is judged wrongly. Look again at: {looks}",
        "{misjudged} candidates are judged wrongly. Look again at: {looks}",
        misjudged,
        misjudged=misjudged,
        looks=looks,
    )


def _judge_11_1_q2(answer: object) -> _Verdict:
    if not isinstance(answer, dict):
        raise _ShapeError(N_("a wire dict (camelCase keys)"), _kind(answer))
    continued = chapter_fixture_after_compaction()
    try:
        entry = parse_session_entry(answer)
    except CourseError as error:
        return _wrong("parser", N_("the parser refuses it: {error}"), error=str(error))
    if not isinstance(entry, CompactionEntry):
        return _wrong(
            "type",
            N_("that is a {type} entry; a compaction has type 'compaction'"),
            type=entry.type,
        )
    if entry.id != "compact-2":
        return _wrong("id", N_("the entry's id should be compact-2"))
    expected = create_compaction_entry(
        continued,
        id=entry.id,
        timestamp=entry.timestamp,
        summary=entry.summary,
        first_kept_entry_id="u3",
        tokens_before=entry.tokens_before,
    )
    if entry.parent_id != expected.parent_id:
        return _wrong(
            "parent", N_("compact-2 hangs after the last entry of the path it is appended to")
        )
    if entry.first_kept_entry_id != expected.first_kept_entry_id:
        return _wrong("first_kept", N_("compact-2 keeps the path from the start of group u3 … a3"))
    return _right(N_("the parser accepts it, and parent and first kept are compact-2's"))


# --- Lab 11.2 --------------------------------------------------------------------------------


def _judge_11_2_q1(answer: object) -> _Verdict:
    if isinstance(answer, str) or not isinstance(answer, list | tuple):
        raise _ShapeError(N_("a list of groups, each a list of entry ids"), _kind(answer))
    groups = [_as_ids(group, N_("each group as a list of entry ids")) for group in answer]
    path = system_replay_fixture()
    expected = [group.entry_ids for group in group_interactions(_message_entries(path))]
    if groups == expected:
        return _right(N_("system messages belong to no group, and a user message opens each one"))
    named = {entry_id for group in groups for entry_id in group}
    by_id = {entry.id: entry for entry in path}
    if any(isinstance(by_id.get(i), CompactionEntry) for i in named):
        return _wrong(
            "compaction", N_("only message entries are grouped: a compaction entry is not")
        )
    if any(by_id.get(i) is not None and _is_system(by_id[i]) for i in named):
        return _wrong("system", N_("system messages are prompt state: they belong to no group"))
    if len(groups) != len(expected):
        return _wrong("count", N_("a user message closes the open group and opens a new one"))
    return _wrong("members", N_("each group runs from a user message up to the next user message"))


def _is_system(entry: SessionEntry) -> bool:
    return isinstance(entry, MessageEntry) and entry.message.role == "system"


INTERACTION_RULES: tuple[str, ...] = (
    "duplicate",
    "unknown call",
    "missing result",
    "before the first user message",
)
"""The words an ``InteractionError`` uses for each rule (``errors.py``), and ``valid``."""


def _judge_11_2_q2(answer: object) -> _Verdict:
    if not (isinstance(answer, tuple | list) and len(answer) == 2):
        raise _ShapeError(N_("a pair (rule, call id), e.g. ('duplicate', 'x-1')"))
    rule, call_id = (_as_text(part, N_("two strings")) for part in answer)
    path = [entry for entry in chapter_fixture() if entry.id != "r-read"]
    try:
        group_interactions(path)
    except InteractionError as error:
        message = str(error)
    else:
        message = "valid"
    expected_rule = next((word for word in INTERACTION_RULES if word in message), "valid")
    if rule not in (*INTERACTION_RULES, "valid"):
        rules = ", ".join(INTERACTION_RULES)
        return _wrong("rule_word", N_("the rule is one of: {rules}, valid"), rules=rules)
    if rule != expected_rule:
        return _wrong(
            "rule",
            N_(
                "which id rule can no longer hold once a result is gone? "
                "One of them is checked only when the group closes"
            ),
        )
    if f"'{call_id}'" not in message:
        return _wrong("call_id", N_("the error names the call that is left without its result"))
    return _right(N_("a call without its result is found when the group closes"))


# --- Lab 11.3 --------------------------------------------------------------------------------


def _judge_11_3_q1(answer: object) -> _Verdict:
    value = _as_number(answer)
    tokens = _build(chapter_fixture(), max_tokens=40, reserved_output=8, safety_margin=3).tokens
    if same_number(tokens.available_for_messages, value):
        return _right(N_("max_tokens minus the system cost, reserved_output and safety_margin"))
    if same_number(tokens.available_for_messages + tokens.system, value):
        return _wrong("system_cost", N_("the replayed system message is a fixed cost too"))
    if any(
        same_number(partly, value)
        for partly in (
            tokens.max_tokens - tokens.system,
            tokens.max_tokens - tokens.system - tokens.reserved_output,
            tokens.max_tokens - tokens.system - tokens.safety_margin,
        )
    ):
        return _wrong(
            "reserved_or_margin", N_("reserved_output and safety_margin are both deducted")
        )
    return _wrong("deduction", N_("start from max_tokens and subtract each fixed cost once"))


def _judge_11_3_q2(answer: object) -> _Verdict:
    first = _as_text(answer, N_("one entry id such as 'x'"))
    path = chapter_fixture()
    expected = _build(path, max_tokens=30).kept_entry_ids[0]
    if first == expected:
        return _right(N_("whole groups from the newest backwards, while they fit"))
    order = [entry.id for entry in _message_entries(path)]
    if first not in order:
        return _wrong("unknown_id", N_("that id is not a message on the fixture's path"))
    if first not in _user_ids(path):
        return _wrong(
            "not_a_group_start", N_("a context starts where a group starts: a user message")
        )
    if order.index(first) < order.index(expected):
        return _wrong(
            "too_many",
            N_("add the groups newest first: does the next one still fit the allowance?"),
        )
    return _wrong("too_few", N_("a group that fits is kept: is there room for one more?"))


def _judge_11_3_q3(answer: object) -> _Verdict:
    if not callable(answer):
        raise _ShapeError(N_("a function"), _kind(answer))
    paths = {"fixture": chapter_fixture(), "no system": chapter_fixture()[1:]}
    for max_tokens in (31, 19, 9, 5, 0):
        for reserved_output, safety_margin in ((4, 2), (0, 0), (10, 10)):
            for path in paths.values():
                tokens = _build(
                    path,
                    max_tokens=max_tokens,
                    reserved_output=reserved_output,
                    safety_margin=safety_margin,
                ).tokens
                arguments = (max_tokens, tokens.system, reserved_output, safety_margin)
                call = f"allowance{arguments}"
                try:
                    value = answer(*arguments)
                except Exception as error:  # the student's code: report, never crash the cell
                    kind = type(error).__name__
                    return _wrong(
                        "raised",
                        N_("{call} raised {error_type}: {error}"),
                        call=call,
                        error_type=kind,
                        error=str(error),
                    )
                if value is Ellipsis:
                    raise _Unanswered
                if isinstance(value, bool) or not isinstance(value, int | float):
                    return _wrong(
                        "not_a_number",
                        N_("{call} returned {kind}, not a number"),
                        call=call,
                        kind=_kind(value),
                    )
                if same_number(tokens.available_for_messages, value):
                    continue  # any order of subtracting the fixed costs is the rule
                if value < 0:
                    return _wrong(
                        "negative",
                        N_("{call} returned {value}: the allowance never goes below 0"),
                        call=call,
                        value=value,
                    )
                return _wrong(
                    "deduction",
                    N_("{call} returned {value}: which costs did you subtract?"),
                    call=call,
                    value=value,
                )
    return _right(N_("every case agrees with build_context, and it never goes below 0"))


# --- Lab 11.4 --------------------------------------------------------------------------------


def _judge_11_4_q1(answer: object) -> _Verdict:
    chosen = _as_set(answer, N_("a set of entry ids such as {'x', 'y'}"))
    path = chapter_fixture_after_compaction()
    expected = set(_group_starts(path))
    if chosen == expected:
        return _right(N_("exactly the group starts that group_interactions finds on the path"))
    by_id = {entry.id: entry for entry in path}
    extra, missing = chosen - expected, expected - chosen
    if any(i not in by_id for i in extra):
        return _wrong("unknown_id", N_("an id you chose is not on the path"))
    if any(isinstance(by_id[i], CompactionEntry) for i in extra):
        return _wrong(
            "compaction", N_("a compaction entry is not a message: it starts no interaction")
        )
    if extra:
        return _wrong(
            "not_a_group_start",
            N_("only the first message of a complete interaction may start the kept part"),
        )
    after = {e.id for e in path[[e.id for e in path].index("compact-1") :]}
    if missing & after:
        return _wrong("after_compaction", N_("messages after compact-1 form interactions too"))
    return _wrong(
        "before_compaction",
        N_(
            "create_compaction_entry groups every message entry of the path, "
            "also those an older compaction summarised"
        ),
    )


LABEL_1: dict[str, Any] = {
    "id": "label-1",
    "parentId": "a4",
    "timestamp": 103,
    "type": "metadata",
    "key": "label",
    "value": "before compact-2",
}
"""Exercise 11.4-q2: the metadata entry the caller appends after ``a4``, as a wire dict."""


def _judge_11_4_q2(answer: object) -> _Verdict:
    parent = _as_text(answer, N_("one entry id such as 'x'"))
    path = [*chapter_fixture_after_compaction(), parse_session_entry(LABEL_1)]
    created = create_compaction_entry(
        path,
        id="compact-2",
        timestamp=200,
        summary=fixture_summary(),
        first_kept_entry_id="u3",
        tokens_before=0,
    )
    if parent == created.parent_id:
        return _right(N_("the parent is the path's last entry, whatever its type"))
    if parent == created.first_kept_entry_id:
        return _wrong(
            "first_kept", N_("the parent is where it hangs, not where the kept part starts")
        )
    messages = _message_entries(path)
    if messages and parent == messages[-1].id:
        return _wrong(
            "last_message", N_("the parent is the last entry of the path, not its last message")
        )
    if parent == "compact-1":
        return _wrong(
            "last_compaction", N_("the parent is the last entry of the path, of any type")
        )
    return _wrong("parent", N_("the parent is the last entry of the path it is appended to"))


# --- Lab 11.5 --------------------------------------------------------------------------------


def _judge_11_5_q1(answer: object) -> _Verdict:
    kept = _as_ids(answer)
    path = chapter_fixture_after_compaction()
    expected = _build(path, max_tokens=40).kept_entry_ids
    if kept == expected:
        return _right(N_("the summary is paid first, then whole groups from the newest"))
    if "compact-1" in kept:
        return _wrong(
            "compaction_id",
            N_("the summary is a synthetic message: kept_entry_ids lists original entries only"),
        )
    if {"u1", "a1"} & set(kept):
        return _wrong("before_first_kept", N_("entries before the first kept entry are summarised"))
    if not {"u4", "a4"} <= set(kept):
        return _wrong("after_compaction", N_("entries after the compaction are collected too"))
    if len(kept) > len(expected):
        return _wrong(
            "summary_cost", N_("the summary's 5 tokens are paid from the allowance first")
        )
    return _wrong("too_few", N_("a group that fits is kept: is there room for one more?"))


def _judge_11_5_q2(answer: object) -> _Verdict:
    value = _as_number(answer)
    budget = Budget(40, _CHAPTER_BUDGET["reserved_output"], _CHAPTER_BUDGET["safety_margin"])
    plan = plan_budget(chapter_fixture_after_compaction(), budget, fixture_estimator())
    tokens = plan.tokens
    if same_number(tokens.messages, value):
        return _right(N_("tokens.messages = the summary's cost + the kept groups' costs"))
    if same_number(tokens.messages - plan.summary_tokens, value):
        return _wrong("summary_cost", N_("the summary message costs room too"))
    if same_number(tokens.total, value):
        return _wrong(
            "total", N_("that is closer to tokens.total: the system cost is not a message")
        )
    return _wrong("sum", N_("add the summary's cost and the cost of each kept group"))


def _judge_11_5_q3(answer: object) -> _Verdict:
    value = _as_number(answer)
    path = chapter_fixture_after_compaction()
    smallest = next(
        max_tokens
        for max_tokens in range(1000)
        if "u3" in _build(path, max_tokens=max_tokens).kept_entry_ids
    )
    budget = Budget(smallest, _CHAPTER_BUDGET["reserved_output"], _CHAPTER_BUDGET["safety_margin"])
    summary_tokens = plan_budget(path, budget, fixture_estimator()).summary_tokens
    if same_number(smallest, value):
        return _right(
            N_("the window holds the fixed costs, the summary, then groups 4 and 3 whole")
        )
    if same_number(smallest - summary_tokens, value):
        return _wrong("summary_cost", N_("the summary is paid from the allowance before any group"))
    if value > smallest:
        return _wrong("larger", N_("a smaller window already keeps group 3 whole"))
    return _wrong(
        "allowance",
        N_("at that size group 3 does not fit: add up everything the window must hold"),
    )


def _system_messages(path: Sequence[SessionEntry]) -> dict[str, SystemMessage]:
    """The system messages of ``path`` by entry id."""
    return {
        entry.id: entry.message
        for entry in path
        if isinstance(entry, MessageEntry) and isinstance(entry.message, SystemMessage)
    }


_CHINESE = re.compile("[\u4e00-\u9fff]")
"""A Chinese character: an answer that holds one quotes the Chinese edition's texts."""


def _judge_11_5_q4(answer: object) -> _Verdict:
    prompt = _as_text(answer, N_("the prompt text, a string"))
    # The Chinese edition's path has the same entries with Chinese texts: an answer is
    # judged against the path of the edition whose texts it quotes.
    replay = system_replay_fixture("zh" if _CHINESE.search(prompt) else "en")
    systems = _system_messages(replay)
    base, patch_1, patch_2 = systems["sys"], systems["patch-1"], systems["patch-2"]
    path = [entry for entry in replay if entry.id != "patch-1"]
    expected = current_system_prompt(_build(path, max_tokens=1000).messages)
    if prompt == expected:
        return _right(N_("every system message of the whole path is replayed, in path order"))
    if base.content not in prompt:
        return _wrong(
            "before_first_kept", N_("system messages before the first kept entry count too")
        )
    if str((patch_1.sections or {}).get("rules")) in prompt:
        return _wrong("sections", N_("without patch-1, no system message overwrites rules"))
    if system_message_text(patch_2) not in prompt:
        return _wrong(
            "after_compaction", N_("a system message after the compaction is replayed too")
        )
    return _wrong(
        "order",
        N_(
            "the prompt text is content first, then each section; parts joined by a blank line "
            "('\\n\\n')"
        ),
    )


# --- the transfer exercise -----------------------------------------------------------------


_STATUSES = ("kept", "trimmed", "overflow")


def _judge_transfer_q1(answer: object) -> _Verdict:
    statuses = _as_ids(answer, N_("a list of statuses, oldest group first, such as ['kept']"))
    rows = budget_ledger(
        chapter_fixture(),
        max_tokens=26,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=fixture_estimator(),
    )
    expected = [row.status for row in rows]
    if any(status not in _STATUSES for status in statuses):
        words = ", ".join(_STATUSES)
        return _wrong("status_word", N_("a status is one of: {statuses}"), statuses=words)
    if len(statuses) != len(expected):
        return _wrong("count", N_("one status per group of the path, oldest first"))
    if statuses == expected:
        return _right(N_("the ledger reads the same plan as build_context"))
    if "overflow" in statuses:
        return _wrong(
            "overflow", N_("overflow means the newest group alone does not fit: does it?")
        )
    if statuses == list(reversed(expected)):
        return _wrong("order", N_("the rows go oldest group first"))
    return _wrong("fit", N_("walk the groups newest first and stop at the first that does not fit"))


def _judge_transfer_q2(answer: object) -> _Verdict:
    numbers = _as_group_numbers(answer)
    rows = budget_ledger(
        chapter_fixture_after_compaction(),
        max_tokens=38,
        reserved_output=_CHAPTER_BUDGET["reserved_output"],
        safety_margin=_CHAPTER_BUDGET["safety_margin"],
        estimate_tokens=fixture_estimator(),
    )
    kept = [row.group for row in rows if row.status != "trimmed"]
    if numbers == kept:
        return _right(N_("the summary is paid first; groups keep the chapter's numbers"))
    first = rows[0].group
    if numbers == [number - first + 1 for number in kept]:
        return _wrong(
            "numbering", N_("the chapter counts groups over the whole path: u2 opens group 2")
        )
    if numbers == [row.group for row in rows]:
        return _wrong("summary", N_("the summary's 5 tokens are paid from the 29 first"))
    return _wrong("fit", N_("walk the groups newest first and stop at the first that does not fit"))


def _as_group_numbers(answer: object) -> list[int]:
    """A list of group numbers (ints), or the shape error saying so."""
    if not isinstance(answer, list) or any(
        isinstance(item, bool) or not isinstance(item, int) for item in answer
    ):
        raise _ShapeError(N_("a list of group numbers such as [1, 2]"), _kind(answer))
    return answer


# --- beyond the fixture: the real session --------------------------------------------------


def _judge_real_q1(answer: object) -> _Verdict:
    first = _as_text(answer, N_("one entry id such as 'L0001'"))
    expected = _real_build(100_000).kept_entry_ids[0]
    if first == expected:
        return _right(N_("the kept range starts where an interaction starts"))
    path = _real_path()
    order = [entry.id for entry in _message_entries(path)]
    if first not in order:
        return _wrong("unknown_id", N_("that id is not a message on the session's active path"))
    if first not in _user_ids(path):
        return _wrong("not_a_group_start", N_("a kept range starts at a user message"))
    if order.index(first) < order.index(expected):
        return _wrong("too_many", N_("with 100,000 tokens not every interaction fits"))
    return _wrong("too_few", N_("use chars_estimator and pi's reserved output, as in Step 5"))


def _judge_real_q2(answer: object) -> _Verdict:
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise _ShapeError(N_("a number of interactions (an int)"), _kind(answer))
    rows = budget_ledger(
        list(_real_path()),
        max_tokens=100_000,
        reserved_output=PI_RESERVED_OUTPUT,
        estimate_tokens=chars_estimator(),
    )
    expected = sum(row.status != "trimmed" for row in rows)
    if answer == expected:
        return _right(N_("one ledger row per interaction; count those not trimmed"))
    if answer == len(rows):
        return _wrong("all_groups", N_("that counts every interaction, the trimmed ones too"))
    if answer == len(_real_build(100_000).kept_entry_ids):
        return _wrong("entries", N_("that counts message entries; count interactions (groups)"))
    return _wrong("count", N_("count the ledger rows whose status is not trimmed"))


# --- the recap -----------------------------------------------------------------------------


def _judge_recap_q1(answer: object) -> _Verdict:
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise _ShapeError(N_("a number of places (an int)"), _kind(answer))
    path = system_replay_fixture()
    rows = budget_ledger(path, max_tokens=1000, estimate_tokens=fixture_estimator())
    expected = len(rows) - 1
    if answer == expected:
        return _right(N_("a budget cuts only between two groups of the suffix it considers"))
    candidates = [entry_id for row in rows for entry_id in row.entry_ids]
    if answer == len(candidates) - 1:
        return _wrong(
            "messages", N_("that counts every gap between messages; a cut keeps groups whole")
        )
    if answer == len(group_interactions(_message_entries(path))) - 1:
        return _wrong(
            "summarised",
            N_(
                "only the part from the compaction's first kept entry on is grouped, "
                "and a system message splits no group"
            ),
        )
    return _wrong(
        "groups", N_("count the gaps between two neighbouring groups the budget considers")
    )


def _judge_recap_q2(answer: object) -> _Verdict:
    first = _as_text(answer, N_("one entry id such as 'x'"))
    path = chapter_fixture()
    expected = _build(path, max_tokens=38, reserved_output=3, safety_margin=5).kept_entry_ids[0]
    if first == expected:
        return _right(N_("fixed costs first, then whole groups, newest first, while they fit"))
    order = [entry.id for entry in _message_entries(path)]
    if first not in _user_ids(path):
        return _wrong(
            "not_a_group_start", N_("a context starts where a group starts: a user message")
        )
    if order.index(first) < order.index(expected):
        return _wrong(
            "allowance",
            N_(
                "work out the allowance first: max_tokens minus every fixed cost, "
                "the replayed system message included"
            ),
        )
    return _wrong("fit", N_("keep adding whole groups, newest first, while their total still fits"))


def _compacted_again(path: Sequence[SessionEntry], first_kept: str) -> list[SessionEntry]:
    """``path`` with ``compact-2`` appended after its last entry, keeping from ``first_kept``."""
    compact_2 = create_compaction_entry(
        path,
        id="compact-2",
        timestamp=200,
        summary=fixture_summary(),
        first_kept_entry_id=first_kept,
        tokens_before=0,
    )
    return [*path, compact_2]


def _judge_recap_q3(answer: object) -> _Verdict:
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise _ShapeError(N_("a number of entries (an int)"), _kind(answer))
    store = InMemorySessionStore()
    for entry in system_replay_fixture():
        store.append(entry)
    store.append(_compacted_again(store.entries(), "u3")[-1])
    expected = len(store.entries())
    if answer == expected:
        return _right(
            N_("a compaction appends a fact; it never deletes history, not even the second")
        )
    if answer == expected - 1:
        return _wrong(
            "replaced",
            N_(
                "a newer compaction replaces nothing: the older compaction entry and the new one "
                "both stay"
            ),
        )
    if answer < expected:
        return _wrong("deleted", N_("a compaction is appended; the entries it summarises stay"))
    return _wrong("count", N_("count each entry the store holds once, compaction entries included"))


def _judge_recap_q4(answer: object) -> _Verdict:
    first = _as_text(answer, N_("one entry id such as 'x'"))
    path = _compacted_again(chapter_fixture_after_compaction(), "u4")
    expected = _build(path, max_tokens=45).kept_entry_ids[0]
    if first == expected:
        return _right(
            N_("only the newest compaction is read: its first kept entry starts the suffix")
        )
    if first not in _user_ids(path):
        return _wrong(
            "not_a_group_start", N_("a context starts where a group starts: a user message")
        )
    return _wrong(
        "newest",
        N_(
            "older compactions stay in the session but are never read again: one summary is sent, "
            "the newest"
        ),
    )


def _judge_recap_q5(answer: object) -> _Verdict:
    ids = _as_set(answer, N_("a set of entry ids such as {'x', 'y'}"))
    path = system_replay_fixture()
    expected = set(_group_starts(path))
    if ids == expected:
        return _right(N_("exactly the first messages of the path's complete interactions"))
    on_path = {entry.id: entry for entry in path}
    if ids - set(on_path):
        return _wrong("unknown_id", N_("an id in your set is not on the system-replay path"))
    if any(_is_system(on_path[entry_id]) for entry_id in ids):
        return _wrong(
            "system",
            N_("a system message belongs to no group, so it can never start the kept part"),
        )
    if any(isinstance(on_path[entry_id], CompactionEntry) for entry_id in ids):
        return _wrong("compaction", N_("a compaction entry is not a message: it is never kept"))
    if ids - expected:
        return _wrong(
            "not_a_group_start",
            N_("the kept part starts where an interaction starts: a user message"),
        )
    return _wrong(
        "missing",
        N_(
            "another user message starts a complete interaction too, before the compaction or after it"
        ),
    )


def _judge_recap_q6(answer: object) -> _Verdict:
    reason = _as_text(answer, N_("one reason such as 'trimmed'"))
    expected = _build(chapter_fixture(), max_tokens=28, reserved_output=8).reason
    reasons = ("within_budget", "trimmed", "single_group_overflow")
    if reason not in reasons:
        words = ", ".join(reasons)
        return _wrong("reason_word", N_("a reason is one of: {reasons}"), reasons=words)
    if reason == expected:
        return _right(
            N_("a group fits when its cost is not more than the allowance; the next does not")
        )
    if reason == "within_budget":
        return _wrong(
            "within", N_("within_budget means every group was kept: does the next one fit?")
        )
    return _wrong(
        "overflow",
        N_(
            "the newest group overflows only when it costs more than the allowance: "
            "max_tokens minus every fixed cost"
        ),
    )


# --- three agents, one chapter --------------------------------------------------------------


def _judge_three_q1(answer: object) -> _Verdict:
    first = _as_text(answer, N_("one entry id such as 'L0001'"))
    path = _agent_import("codex").active_path()
    result = build_context(
        path,
        max_tokens=THREE_Q1_MAX_TOKENS,
        reserved_output=PI_RESERVED_OUTPUT,
        estimate_tokens=chars_estimator(),
    )
    expected = result.kept_entry_ids[0]
    if first == expected:
        return _right(
            N_("the summary is paid first, then whole groups, newest first, while they fit")
        )
    order = [entry.id for entry in _message_entries(path)]
    if first not in order:
        return _wrong(
            "unknown_id", N_("that id is not a message on the Codex sample's active path")
        )
    if first not in _user_ids(path):
        return _wrong("not_a_group_start", N_("a kept range starts at a user message"))
    newest = [entry for entry in path if isinstance(entry, CompactionEntry)][-1]
    if order.index(first) < order.index(newest.first_kept_entry_id):
        return _wrong(
            "before_compaction",
            N_(
                "restoring starts from the newest compaction: nothing before its first kept entry "
                "is a candidate"
            ),
        )
    return _wrong(
        "summary_cost",
        N_(
            "the summary is paid from the allowance first; then whole groups, newest first, "
            "while they fit"
        ),
    )


def _judge_three_q2(answer: object) -> _Verdict:
    fields = _as_set(answer, N_("a set of summary field names such as {'goal'}"))
    names = tuple(fixture_summary().to_wire())
    if fields - set(names):
        listed = ", ".join(names)
        return _wrong(
            "unknown_field", N_("the seven fields' wire names are: {fields}"), fields=listed
        )
    filled = [set(c.fields_filled) for c in _agent_import("claude-code").compactions]
    expected = set.intersection(*filled)
    if fields == expected:
        return _right(N_("a field counts when every compaction's summary filled it"))
    if fields == set.union(*filled):
        return _wrong(
            "union",
            N_("that is every field some compaction filled; keep only those every one filled"),
        )
    if fields < expected:
        return _wrong("missing", N_("another field is filled in every compaction too"))
    return _wrong("extra", N_("a field in your set is empty in at least one compaction"))


# --- the catalogue ---------------------------------------------------------------------------

EXERCISES: dict[str, Exercise] = {
    exercise.id: exercise
    for exercise in (
        Exercise(
            "11.1-q1", "11.1", "Which candidate wire dicts does the parser accept?", _judge_11_1_q1
        ),
        Exercise(
            "11.1-q2", "11.1", "Write compact-2 as a wire dict the parser accepts.", _judge_11_1_q2
        ),
        Exercise("11.2-q1", "11.2", "The groups of the system-replay path.", _judge_11_2_q1),
        Exercise(
            "11.2-q2", "11.2", "Which rule fails without r-read, naming which call?", _judge_11_2_q2
        ),
        Exercise("11.3-q1", "11.3", "available_for_messages at 40 / 8 / 3.", _judge_11_3_q1),
        Exercise("11.3-q2", "11.3", "The first kept entry at max_tokens 30.", _judge_11_3_q2),
        Exercise("11.3-q3", "11.3", "Write the allowance function.", _judge_11_3_q3),
        Exercise(
            "11.4-q1", "11.4", "Legal first kept ids after compact-1, u4, a4.", _judge_11_4_q1
        ),
        Exercise("11.4-q2", "11.4", "The parent of compact-2 after a label.", _judge_11_4_q2),
        Exercise(
            "11.5-q1", "11.5", "kept_entry_ids after compact-1 at max_tokens 40.", _judge_11_5_q1
        ),
        Exercise(
            "11.5-q2", "11.5", "tokens.messages after compact-1 at max_tokens 40.", _judge_11_5_q2
        ),
        Exercise(
            "11.5-q3", "11.5", "The smallest max_tokens that keeps group 3 too.", _judge_11_5_q3
        ),
        Exercise("11.5-q4", "11.5", "The prompt text without patch-1.", _judge_11_5_q4),
        Exercise(
            "transfer-q1", "transfer", "Ledger statuses at max_tokens 26.", _judge_transfer_q1
        ),
        Exercise(
            "transfer-q2",
            "transfer",
            "Kept group numbers after compact-1 at 38.",
            _judge_transfer_q2,
        ),
        Exercise("real-q1", "real session", "First kept entry at 100,000 tokens.", _judge_real_q1),
        Exercise("real-q2", "real session", "Interactions kept at 100,000 tokens.", _judge_real_q2),
        Exercise("recap-q1", "recap", "Cut points on the system-replay path.", _judge_recap_q1),
        Exercise("recap-q2", "recap", "The first kept entry at 38 / 3 / 5.", _judge_recap_q2),
        Exercise(
            "recap-q3",
            "recap",
            "Entries in the store after compact-2 on the system-replay path.",
            _judge_recap_q3,
        ),
        Exercise(
            "recap-q4",
            "recap",
            "The first kept entry at 45 after compact-2 (first kept u4).",
            _judge_recap_q4,
        ),
        Exercise(
            "recap-q5",
            "recap",
            "First kept ids create_compaction_entry accepts on the system-replay path.",
            _judge_recap_q5,
        ),
        Exercise("recap-q6", "recap", "The reason at 28 / 8 / 2.", _judge_recap_q6),
        Exercise(
            "three-q1",
            "three agents",
            "Codex's first kept entry at 16,600 tokens.",
            _judge_three_q1,
        ),
        Exercise(
            "three-q2", "three agents", "Fields every Claude Code summary filled.", _judge_three_q2
        ),
    )
}
"""Every exercise of the workbook, by id, in the order the notebooks ask them."""


def exercise_ids(lab: str) -> list[str]:
    """The ids of ``lab``'s exercises (``"11.3"``, ``"transfer"``, ``"real session"``, ``"recap"`` ...)."""
    return [exercise.id for exercise in EXERCISES.values() if exercise.lab == lab]


_LANGUAGE: list[Lang] = [DEFAULT_LANGUAGE]
"""The language of ``check`` and ``evaluate`` when they are given none (``set_language``)."""


def set_language(lang: str) -> None:
    """Answer every later instant check in ``lang`` (``"en"``, the default, or ``"zh"``).

    A ``lang=`` given to ``check`` or ``evaluate`` still wins (the notebooks
    pass ``lang=LANG`` to every check, so they never depend on this).
    """
    _LANGUAGE[0] = check_language(lang)


def language() -> Lang:
    """The language ``set_language`` chose (``"en"`` until it is called)."""
    return _LANGUAGE[0]


def _not_answered(lang: Lang) -> str:
    return tr(lang, NOT_ANSWERED)


def evaluate(exercise_id: str, answer: object, *, lang: Lang | None = None) -> Feedback:
    """Judge ``answer`` to exercise ``exercise_id``; ``...`` (Ellipsis) means not answered yet.

    The message is in ``lang``, else in the language of ``set_language``
    (English by default); the status and the hint code are the same in both.
    """
    try:
        exercise = EXERCISES[exercise_id]
    except KeyError:
        raise CourseError(
            f"unknown exercise {exercise_id!r}; known: {', '.join(EXERCISES)}"
        ) from None
    chosen = language() if lang is None else check_language(lang)
    if answer is Ellipsis:
        return Feedback(exercise_id, "unanswered", _not_answered(chosen))
    try:
        verdict = exercise.judge(answer)
    except _Unanswered:
        return Feedback(exercise_id, "unanswered", _not_answered(chosen))
    except _ShapeError as shape:
        return Feedback(exercise_id, "wrong", shape.text(chosen), "shape")
    status: Status = "correct" if verdict.correct else "wrong"
    return Feedback(exercise_id, status, verdict.say(chosen), verdict.hint)


def check(exercise_id: str, answer: object, *, lang: Lang | None = None) -> None:
    """Print ✓, ✗ or ○ with a short message for ``answer`` (a notebook's instant check).

    ``lang`` (``"en"`` or ``"zh"``) overrides ``set_language`` for this call.
    """
    print(evaluate(exercise_id, answer, lang=lang))
