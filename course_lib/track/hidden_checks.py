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

The cases run in a small runner process of their own
(``python -m course_lib.track.hidden_checks``), started by the grader's
worker after the public checks, so whatever limits and isolation apply to
the worker apply to them too. The reference's answers are computed before
the student's package is imported, so nothing the package does at import
can change them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from ..base.schema import WireModel
from .hidden_inputs import (
    RandomPath,
    bad_compaction_wire,
    corrupted,
    random_path,
    with_compactions,
)
from .tolerance import same_value

__all__ = [
    "CASE_SECONDS",
    "HIDDEN_CASES",
    "HiddenCase",
    "HiddenPlan",
    "HiddenResult",
    "add_hidden_options",
    "hidden_cases",
    "hidden_from_json",
    "hidden_worker_options",
    "judge",
    "run_hidden",
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


# --- the runner (a process of its own) -------------------------------------------------------


class _CaseTimeout(BaseException):
    """Raised into a case that runs past ``CASE_SECONDS`` (not an ``Exception``: not caught)."""


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    if not hasattr(signal, "setitimer"):  # not POSIX: the runner's overall limit applies
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _CaseTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(0.01, seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _write(results: Sequence[HiddenResult], path: Path) -> None:
    """Replace ``path`` with the results so far, so a runner stopped later keeps them."""
    partial = path.with_name(path.name + ".part")
    rows = [
        {"lab": r.lab, "name": r.name, "outcome": r.outcome, "message": r.message} for r in results
    ]
    partial.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    os.replace(partial, path)


def run_hidden_cases(
    package: Path,
    labs: Sequence[str],
    seed: int,
    *,
    count: int = HIDDEN_CASES,
    seconds: float = 60.0,
    result: Path | None = None,
) -> list[HiddenResult]:
    """Answer every lab's hidden cases with the reference, then with ``package``, and compare.

    Runs in the current process (``run_hidden`` starts it in a new one).
    Each case may take ``CASE_SECONDS``; after a case runs over, the rest of
    its lab is not run. With ``result``, the results so far are written there
    after every case.
    """
    import course_lib as reference

    from .practice import load_practice_package

    deadline = time.monotonic() + seconds
    cases = [case for lab in labs if lab in _FUNCTIONS for case in hidden_cases(lab, seed, count)]
    expected: list[tuple[str, tuple[Any, ...]]] = []
    for case in cases:
        expected.append(_ask(case, reference))
    results: list[HiddenResult] = []
    try:
        student = load_practice_package(package)
    except Exception as error:
        why = f"the package did not import: {type(error).__name__}: {error}"
        results = [HiddenResult(case.lab, case.name, "not run", why) for case in cases]
        if result is not None:
            _write(results, result)
        return results
    stopped: set[str] = set()
    for case, (question, want) in zip(cases, expected, strict=True):
        left = deadline - time.monotonic()
        if case.lab in stopped or left <= 0:
            why = (
                f"not run: an earlier case of Lab {case.lab} ran past {CASE_SECONDS:g} s"
                if case.lab in stopped
                else "not run: the time limit was reached"
            )
            results.append(HiddenResult(case.lab, case.name, "not run", why))
            continue
        try:
            with _alarm(min(CASE_SECONDS, left)):
                got = _ask(case, student)[1]
        except _CaseTimeout:
            stopped.add(case.lab)
            message = (
                f"{question}: did not finish within {CASE_SECONDS:g} s; look for an endless loop"
            )
            results.append(HiddenResult(case.lab, case.name, "failed", message))
        else:
            agrees, message = judge(question, want, got)
            results.append(
                HiddenResult(case.lab, case.name, "passed" if agrees else "failed", message)
            )
        if result is not None:
            _write(results, result)
    if result is not None:
        _write(results, result)
    return results


# --- what the grader's worker calls ----------------------------------------------------------


@dataclass(frozen=True)
class HiddenPlan:
    """The instructor's choice for a grading run: the seed and how many cases per lab."""

    seed: int
    cases: int = HIDDEN_CASES


def hidden_worker_options(plan: HiddenPlan | None) -> list[str]:
    """The worker's command-line options for ``plan`` (none when no hidden cases are asked)."""
    if plan is None:
        return []
    return ["--hidden-seed", str(plan.seed), "--hidden-cases", str(plan.cases)]


def add_hidden_options(parser: argparse.ArgumentParser) -> None:
    """The worker's side of ``hidden_worker_options``."""
    parser.add_argument("--hidden-seed", type=int, default=None)
    parser.add_argument("--hidden-cases", type=int, default=HIDDEN_CASES)


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


def _not_run(labs: Sequence[str], seed: int, count: int, why: str) -> list[HiddenResult]:
    return [
        HiddenResult(case.lab, case.name, "not run", why)
        for lab in labs
        if lab in _FUNCTIONS
        for case in hidden_cases(lab, seed, count)
    ]


def run_hidden(
    package: Path, labs: Sequence[str], seed: int, *, seconds: float, count: int = HIDDEN_CASES
) -> list[dict[str, str]]:
    """Run the hidden cases of ``labs`` against ``package`` in a runner process of its own.

    ``seconds`` is what is left of the submission's time limit. Returns the
    rows the runner wrote, every case it did not reach marked ``not run``;
    never raises for anything the package does.
    """
    if seconds <= 0:
        results = _not_run(labs, seed, count, "not run: no time was left after the public checks")
    else:
        with tempfile.TemporaryDirectory(prefix="hidden-") as scratch:
            path = Path(scratch) / "hidden.json"
            command = [sys.executable, "-P", "-m", "course_lib.track.hidden_checks"]
            command += [str(Path(package).resolve()), str(path), "--labs", ",".join(labs)]
            command += ["--seed", str(seed), "--count", str(count), "--seconds", f"{seconds:g}"]
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # no pipe a child of the package could hold open
                stderr=subprocess.DEVNULL,
                start_new_session=os.name == "posix",
            )
            try:
                process.wait(timeout=seconds + 2)
            except subprocess.TimeoutExpired:
                pass
            finally:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    if os.name == "posix":
                        os.killpg(process.pid, signal.SIGKILL)
                    else:
                        process.kill()
                process.wait()
            try:
                written = hidden_from_json(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                written = ()
        done = {result.name: result for result in written}
        why = "not run: the hidden cases were stopped (time limit, memory, or a crash)"
        results = [done.get(r.name, r) for r in _not_run(labs, seed, count, why)]
    return [
        {"lab": r.lab, "name": r.name, "outcome": r.outcome, "message": r.message} for r in results
    ]


def _main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_lib.track.hidden_checks")
    parser.add_argument("package", type=Path)
    parser.add_argument("result", type=Path)
    parser.add_argument("--labs", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--count", type=int, default=HIDDEN_CASES)
    parser.add_argument("--seconds", type=float, required=True)
    args = parser.parse_args(argv)
    labs = args.labs.split(",")
    run_hidden_cases(
        args.package, labs, args.seed, count=args.count, seconds=args.seconds, result=args.result
    )
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
