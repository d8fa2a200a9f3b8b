"""Hidden grading cases: a seeded set of extra inputs per lab, judged against the reference.

The 15 public checks are fixed and every student can read them, so a
package could answer their inputs from a table and pass. With
``course-lab grade --hidden-seed N`` the grader also draws, per lab, a set
of random paths, budgets, compactions and bad entries from that seed
(``hidden_inputs``) and asks the student's package and the reference
``course_lib`` the same question. A case passes when both give the same
value (token numbers up to float rounding, ``tolerance.same_value``), or
both raise the same kind of error. The seed is given by the
instructor at grading time and is in no student's files, so the cases
cannot be known in advance; they are reported beside the public checks,
never instead of them.

The cases are judged in the grader's own process (``judge_hidden_cases``),
after the public checks: the reference, the cases and the seed never leave
it. Only the calls cross to the student's rules, which answer from their
rule server (``judge.remote``) inside the sandbox, so nothing the package
does can see the seed or change the reference's answers.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from ..base.i18n import Lang, tr
from ..base.schema import WireModel
from ..judge.codec import OtherValue
from ..track.tolerance import same_value
from .hidden_inputs import (
    RandomPath,
    bad_compaction_wire,
    corrupted,
    random_path,
    with_compactions,
)

__all__ = [
    "CASE_SECONDS",
    "HIDDEN_CASES",
    "HiddenCase",
    "HiddenPlan",
    "HiddenResult",
    "hidden_case_lines",
    "hidden_cases",
    "hidden_from_json",
    "judge",
    "judge_hidden_cases",
    "run_hidden_cases",
]

HIDDEN_CASES = 12
"""Cases per lab unless the instructor asks for more (``--hidden-cases``)."""

CASE_SECONDS = 5.0
"""The longest one case may take; the rest of a lab whose case ran over are not run."""

HiddenOutcome = Literal["passed", "failed", "not run"]


@dataclass(frozen=True)
class HiddenResult:
    """One hidden case of one submission: whether it agreed with the reference, and if not why."""

    lab: str
    name: str
    outcome: HiddenOutcome
    message: str = ""


def hidden_case_lines(
    lab: str, cases: Sequence[HiddenResult], lang: Lang, *, show_inputs: bool
) -> list[str]:
    """What a student is shown of one lab's hidden cases (feedback and Gradescope alike).

    The count that agrees and the names of the first two that do not (their
    inputs and expected values only when ``show_inputs``): so a reused seed
    gives no answers away, and two failing cases are enough to start from.
    """
    agree = sum(case.outcome == "passed" for case in cases)
    lines = [
        tr(
            lang,
            "Lab {lab}: {passed}/{total} agree with the reference",
            lab=lab,
            passed=agree,
            total=len(cases),
        )
    ]
    for case in [c for c in cases if c.outcome != "passed"][:2]:
        shown = f" -- {case.message}" if show_inputs else ""
        lines.append(f"  {case.outcome.upper()}  {case.name}{shown}")
    return lines


@dataclass(frozen=True)
class HiddenCase:
    """One seeded question: ``build(impl)`` returns what it asks and a call that answers it."""

    lab: str
    number: int
    function: str
    build: Callable[[ModuleType], tuple[str, Callable[[], Any]]]

    @property
    def name(self) -> str:
        return f"hidden {self.lab} #{self.number}: {self.function}"


def _rng(seed: int, lab: str, number: int) -> random.Random:
    """One generator per case, so a case is the same whichever others are drawn."""
    return random.Random(f"course-lab-hidden/{seed}/{lab}/{number}")


def _path(impl: ModuleType, rng: random.Random, number: int) -> RandomPath:
    return random_path(impl, rng, f"h{number}")


def _case_builder(
    lab: str, seed: int, number: int
) -> Callable[[ModuleType], tuple[str, Callable[[], Any]]]:
    def build(impl: ModuleType) -> tuple[str, Callable[[], Any]]:
        rng = _rng(seed, lab, number)
        if lab == "11.1":
            wire, what = bad_compaction_wire(rng, number)
            return f"a compaction wire dict, {what}", lambda: impl.parse_session_entry(wire)
        path = _path(impl, rng, number)
        if lab == "11.2":
            messages = [entry for entry in path.entries if entry.type == "message"]
            changed, what = corrupted(messages, rng)
            return f"{path.description}; {what}", lambda: impl.group_interactions(changed)
        if lab == "11.3":
            return path.description, lambda: impl.build_context(
                path.entries, **path.budget, estimate_tokens=path.estimate
            )
        if lab == "transfer":
            return path.description, lambda: impl.budget_ledger(
                path.entries, **path.budget, estimate_tokens=path.estimate
            )
        if lab == "11.4":
            ids = [entry.id for entry in path.entries] + ["nowhere"]
            first = rng.choice(ids)
            tokens_before = rng.choice([0, 5, 2.5])
            summary = bad_compaction_wire(random.Random(number), number)[0]["summary"]
            question = f"{path.description}; first_kept_entry_id={first}"
            return question, lambda: impl.create_compaction_entry(
                path.entries,
                id="compact-new",
                timestamp=100,
                summary=summary,
                first_kept_entry_id=first,
                tokens_before=tokens_before,
            )
        if lab == "11.5":
            entries, what = with_compactions(impl, path, rng)
            return f"{path.description}; then {what}", lambda: impl.build_context(
                entries, **path.budget, estimate_tokens=path.estimate
            )
        raise ValueError(f"no hidden cases for lab {lab!r}")

    return build


_FUNCTIONS = {
    "11.1": "parse_session_entry",
    "11.2": "group_interactions",
    "11.3": "build_context",
    "11.4": "create_compaction_entry",
    "11.5": "build_context after compactions",
    "transfer": "budget_ledger",
}


def hidden_cases(lab: str, seed: int, count: int = HIDDEN_CASES) -> list[HiddenCase]:
    """``count`` cases for ``lab`` drawn from ``seed``: the same seed always gives the same cases."""
    if lab not in _FUNCTIONS:
        raise ValueError(f"no hidden cases for lab {lab!r}; choose one of {', '.join(_FUNCTIONS)}")
    return [
        HiddenCase(lab, number, _FUNCTIONS[lab], _case_builder(lab, seed, number))
        for number in range(1, count + 1)
    ]


# --- judging ---------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A comparable form of a result: plain data, which a forged object cannot imitate.

    Only plain data survives (exact ``str``, ``int``, ``float``, ``bool``,
    ``None``, lists and string-keyed dicts): a subclass is converted to its
    base type and anything else becomes ``<ClassName>``, so an object whose
    ``__eq__`` says yes to everything cannot pass for the reference's answer.
    """
    if value is None or type(value) in (bool, int, str):
        return value
    if isinstance(value, float):
        number = float.__float__(value)
        return number if math.isfinite(number) else repr(number)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__int__(value)
    if isinstance(value, OtherValue):  # a value of no course type, as the rules sent it
        return f"<{value.type_name}>"
    if isinstance(value, WireModel):  # the workbook's own models only: no look-alike
        return _plain(value.to_wire())
    if is_dataclass(value) and not isinstance(value, type):
        return {item.name: _plain(getattr(value, item.name)) for item in fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(_plain(key)): _plain(item) for key, item in value.items()}
    return f"<{type(value).__qualname__}>"


def _answer(call: Callable[[], Any]) -> tuple[Any, ...]:
    """``("value", plain data)`` or ``_error``'s ``("error", module.Class, message)``."""
    try:
        return ("value", _plain(call()))
    except Exception as error:  # any exception is an answer: the reference raises some too
        return _error(error)


def _error(error: Exception) -> tuple[str, str, str]:
    """An error as an answer: its class by module and name (the course's error classes are
    shared by both packages; a look-alike class defined in a practice package is not one of
    them), and its message on one line."""
    kind = type(error)
    return ("error", f"{kind.__module__}.{kind.__qualname__}", " ".join(str(error).split()))


def _ask(case: HiddenCase, impl: ModuleType) -> tuple[str, tuple[Any, ...]]:
    """The case's question and ``impl``'s answer; building the input with ``impl`` can fail too."""
    try:
        question, call = case.build(impl)
    except Exception as error:
        return case.function, _error(error)
    return question, _answer(call)


def _shown(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _difference(expected: Any, got: Any, where: str = "") -> tuple[str, Any, Any]:
    """The first place where two plain values differ (by ``same_value``): (where, expected, got)."""
    if isinstance(expected, dict) and isinstance(got, dict) and set(expected) == set(got):
        # The short fields (ids, reason, tokens) say more than the copied messages: first.
        for key in sorted(expected, key=lambda key: key == "messages"):
            if not same_value(expected[key], got[key]):
                return _difference(expected[key], got[key], f"{where}.{key}" if where else key)
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        for index, (want, have) in enumerate(zip(expected, got, strict=True)):
            if not same_value(want, have):
                return _difference(want, have, f"{where}[{index}]")
    return where, expected, got


def _describe(answer: tuple[Any, ...]) -> str:
    if answer[0] == "error":
        name = str(answer[1]).rsplit(".", 1)[-1]
        return f"{name}: {answer[2]}" if answer[2] else name
    return f"the value {_shown(answer[1])}"


def judge(question: str, expected: tuple[Any, ...], got: tuple[Any, ...]) -> tuple[bool, str]:
    """Whether ``got`` agrees with the reference's ``expected``, and a one-line why when not.

    Values must be equal, token numbers up to float rounding (``same_value``:
    the spec's ``math.isclose(rel_tol=1e-9)``, so the order of a sum is not
    judged); errors must be of the same class (their wording is the
    student's, so it is shown, not compared).
    """
    unwritten = got[0] == "error" and str(got[1]).endswith(".LabNotImplemented")
    if unwritten and expected[:2] != got[:2]:
        return False, f"{question}: not attempted ({got[2]})"  # no need to show the answer
    if expected[0] == got[0] == "error":
        agrees = expected[1] == got[1]
    else:
        agrees = expected[0] == got[0] == "value" and same_value(expected[1], got[1])
    if agrees:
        return True, ""
    if expected[0] == got[0] == "value":
        where, want, have = _difference(expected[1], got[1])
        place = f"{where}: " if where else ""
        return False, f"{question}: {place}expected {_shown(want)}, got {_shown(have)}"
    return False, f"{question}: expected {_describe(expected)}, got {_describe(got)}"


def judge_hidden_cases(
    package: Any, labs: Sequence[str], seed: int, count: int = HIDDEN_CASES
) -> list[HiddenResult]:
    """Every lab's hidden cases, answered by the reference and by ``package``, compared here.

    ``package`` is a ``judge.remote.RemotePackage``: its rules answer from their own
    process, so the reference, the cases and the seed never leave this one. Each case
    may take ``CASE_SECONDS``; after one runs over, the rest of its lab are not run,
    and after the run's time limit no case is.
    """
    import course_lib as reference

    from ..judge.remote import CallTimeout, Timeout

    results: list[HiddenResult] = []
    stopped: set[str] = set()
    for lab in labs:
        for case in hidden_cases(lab, seed, count) if lab in _FUNCTIONS else []:
            if package.out_of_time() or lab in stopped:
                why = (
                    f"not run: an earlier case of Lab {lab} ran past {CASE_SECONDS:g} s"
                    if lab in stopped
                    else "not run: the time limit was reached"
                )
                results.append(HiddenResult(case.lab, case.name, "not run", why))
                continue
            question, want = _ask(case, reference)
            try:
                with package.each_call_within(CASE_SECONDS):
                    got = _ask(case, package)[1]
            except Timeout as late:  # CallTimeout: this case; Timeout: the run's limit
                stopped.add(lab)
                limit = f"{CASE_SECONDS:g} s" if isinstance(late, CallTimeout) else "the time limit"
                message = f"{question}: did not finish within {limit}; look for an endless loop"
                results.append(HiddenResult(case.lab, case.name, "failed", message))
                continue
            agrees, message = judge(question, want, got)
            outcome: HiddenOutcome = "passed" if agrees else "failed"
            results.append(HiddenResult(case.lab, case.name, outcome, message))
    return results


def run_hidden_cases(
    package: Path,
    labs: Sequence[str],
    seed: int,
    *,
    count: int = HIDDEN_CASES,
    seconds: float = 60.0,
) -> list[HiddenResult]:
    """``judge_hidden_cases`` for the practice package in ``package``, its rules in a local
    child process, within ``seconds`` in all (the project's tests call this)."""
    from ..judge.remote import RemotePackage, local_launcher
    from ..track.starters import chapter_exports

    rules = [name for names in chapter_exports().values() for name in names]
    deadline = time.monotonic() + seconds
    with RemotePackage(local_launcher(package, rules), rules, deadline=deadline) as remote:
        return judge_hidden_cases(remote, labs, seed, count)


# --- what the instructor chooses -------------------------------------------------------------


@dataclass(frozen=True)
class HiddenPlan:
    """The instructor's choice for a grading run: the seed and how many cases per lab."""

    seed: int
    cases: int = HIDDEN_CASES


def hidden_from_json(rows: object) -> tuple[HiddenResult, ...]:
    """The results a runner wrote, checked field by field (anything else is left out)."""
    if not isinstance(rows, list):
        return ()
    found: list[HiddenResult] = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        lab, name, outcome, message = (row.get(k) for k in ("lab", "name", "outcome", "message"))
        texts = all(isinstance(value, str) for value in (lab, name, message))
        if texts and outcome in ("passed", "failed", "not run"):
            found.append(HiddenResult(str(lab), str(name), outcome, str(message)))
    return tuple(found)
