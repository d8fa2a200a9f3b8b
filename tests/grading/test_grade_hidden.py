"""The instructor's hidden cases: seeded, judged against the reference, reported beside the 15.

The cases are judged in this process where that is enough (``run_hidden_cases``)
and through the grader once, so the worker's path is covered too.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

import course_lib
import course_lib.grading.hidden_checks as hidden_checks
from course_lib.grading.grader import Limits, Submission, grade_submission
from course_lib.grading.hidden_checks import (
    HiddenPlan,
    hidden_cases,
    hidden_from_json,
    judge,
    run_hidden_cases,
)
from course_lib.track.catalogue import CHAPTER_LABS
from course_lib.track.starters import (
    lab_modules,
    replace_region_bodies,
    solution_bodies,
    write_practice_package,
)
from course_lib.views.grade_report import feedback_text, gradebook_json, gradebook_rows

LABS = [*CHAPTER_LABS, "transfer"]
SEED = 4711


def solved(directory: Path, labs: Sequence[str] = LABS) -> Path:
    write_practice_package(directory, solved=labs)
    return directory


def edit_lab(directory: Path, lab: str, old: str, new: str) -> Path:
    """Change ``old`` to ``new`` in the reference code of ``lab``'s regions (a classic mistake)."""
    for module in lab_modules(lab):
        path = directory / f"{module}.py"
        bodies = [[line.replace(old, new) for line in b] for b in solution_bodies(module, lab)]
        text = path.read_text(encoding="utf-8")
        path.write_text(replace_region_bodies(text, lab, bodies, path.name), encoding="utf-8")
    return directory


def test_the_same_seed_gives_the_same_cases_and_another_seed_other_inputs() -> None:
    def questions(seed: int, lab: str) -> list[str]:
        return [case.build(course_lib)[0] for case in hidden_cases(lab, seed, 12)]

    for lab in LABS:
        first = questions(SEED, lab)
        assert first == questions(SEED, lab)
        assert len(first) == 12
        if lab != "11.1":  # 11.1 draws among a dozen kinds of wire; the paths are random
            assert not set(first) & set(questions(SEED + 1, lab)), lab


def test_the_reference_answers_with_values_and_errors_so_both_are_judged() -> None:
    kinds: Counter[tuple[str, str]] = Counter()
    for lab in LABS:
        for case in hidden_cases(lab, SEED, 12):
            _, call = case.build(course_lib)
            try:
                call()
                kinds[lab, "value"] += 1
            except Exception:
                kinds[lab, "error"] += 1
    for lab in ("11.1", "11.2", "11.4", "11.5"):
        assert kinds[lab, "value"] and kinds[lab, "error"], (lab, kinds)
    assert kinds["11.3", "value"] == 12 and kinds["transfer", "value"] == 12


def test_judging_compares_values_exactly_and_errors_by_kind() -> None:
    value = ("value", {"kept_entry_ids": ["u1", "a1"], "reason": "trimmed"})
    other = ("value", {"kept_entry_ids": ["a1"], "reason": "trimmed"})
    assert judge("q", value, value) == (True, "")
    agrees, why = judge("case 3", value, other)
    assert not agrees
    assert why == 'case 3: kept_entry_ids: expected ["u1", "a1"], got ["a1"]'
    shared = "course_lib.base.errors.CompactionError"
    assert judge("q", ("error", shared, "a"), ("error", shared, "b"))[0]  # wording is theirs
    agrees, why = judge("q", ("error", shared, "bad"), other)
    assert not agrees and why.startswith("q: expected CompactionError: bad, got the value {")
    # A class of the same name defined in the practice package is not the course's error.
    look_alike = ("error", "practice_0123.budget.CompactionError", "bad")
    assert not judge("q", ("error", shared, "bad"), look_alike)[0]
    unwritten = ("error", "practice_0123.labs.LabNotImplemented", "Lab 11.3 ... not implemented")
    assert judge("q", value, unwritten) == (
        False,
        "q: not attempted (Lab 11.3 ... not implemented)",
    )


def test_judging_accepts_a_token_number_one_bit_away_and_nothing_further() -> None:
    """``summary_tokens + sum(kept_costs)`` is the rule too: token numbers compare up to rounding."""
    reference = ("value", {"tokens": {"messages": 25.299999999999997, "total": 31}, "ids": ["u2"]})
    resummed = ("value", {"tokens": {"messages": 25.3, "total": 31.0}, "ids": ["u2"]})
    assert reference != resummed  # what judge compared before: the last bit failed the case
    assert judge("q", reference, resummed) == (True, "")
    wrong = ("value", {"tokens": {"messages": 25.4, "total": 31}, "ids": ["u2"]})
    assert judge("case 5", reference, wrong) == (
        False,
        "case 5: tokens.messages: expected 25.299999999999997, got 25.4",
    )
    other_ids = ("value", {"tokens": {"messages": 25.3, "total": 31}, "ids": ["u3"]})
    assert judge("q", reference, other_ids) == (False, 'q: ids[0]: expected "u2", got "u3"')
    assert not judge("q", ("value", [True]), ("value", [1]))[0]  # a bool is not a number


def test_an_answer_that_equals_everything_is_not_the_reference_answer(tmp_path: Path) -> None:
    """A package cannot pass with an object whose ``__eq__`` always says yes: only plain data
    is compared, and the object becomes ``"<Anything>"``."""
    sly = solved(tmp_path / "sly")
    with (sly / "groups.py").open("a", encoding="utf-8") as handle:
        handle.write(
            "\n\nclass Anything:\n"
            "    def __eq__(self, other):\n"
            "        return True\n"
            "    def __ne__(self, other):\n"
            "        return False\n\n\n"
            "def group_interactions(entries):\n"
            "    return Anything()\n"
        )
    results = run_hidden_cases(sly, ["11.2"], SEED, count=6)
    assert [r.outcome for r in results] == ["failed"] * 6
    assert all(r.message.endswith('"<Anything>"') for r in results), results[0]


def test_a_correct_package_agrees_and_a_classic_mistake_does_not(tmp_path: Path) -> None:
    correct = run_hidden_cases(solved(tmp_path / "correct"), LABS, SEED, count=12)
    assert Counter(r.outcome for r in correct) == {"passed": 12 * len(LABS)}

    # "<" instead of "<=": a group that fits exactly is dropped. Only 11.3 is wrong, but every
    # lab built on the walk (11.5, the ledger) inherits the mistake.
    strict = edit_lab(solved(tmp_path / "strict"), "11.3", "<= allowance", "< allowance")
    results = run_hidden_cases(strict, LABS, SEED, count=12)
    failed = Counter(r.lab for r in results if r.outcome == "failed")
    assert failed["11.3"] >= 1 and failed["11.1"] == failed["11.2"] == failed["11.4"] == 0
    (first,) = [r for r in results if r.outcome == "failed" and r.lab == "11.3"][:1]
    assert first.name.startswith("hidden 11.3 #") and ": expected " in first.message

    fresh = tmp_path / "fresh"
    write_practice_package(fresh)
    results = run_hidden_cases(fresh, ["11.2"], SEED, count=3)
    assert [r.outcome for r in results] == ["failed"] * 3
    assert all("not attempted (LabNotImplemented" not in r.message for r in results)
    assert all(": not attempted (Lab 11.2 interaction groups" in r.message for r in results)


def test_an_endless_loop_stops_its_lab_and_no_time_left_means_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hidden_checks, "CASE_SECONDS", 0.5)
    loops = solved(tmp_path / "loops")
    for module in lab_modules("11.2"):  # every 11.2 region starts with an endless loop
        path = loops / f"{module}.py"
        bodies = [["while True:", "    pass", *b] for b in solution_bodies(module, "11.2")]
        text = path.read_text(encoding="utf-8")
        path.write_text(replace_region_bodies(text, "11.2", bodies, path.name), encoding="utf-8")
    results = run_hidden_cases(loops, ["11.1", "11.2"], SEED, count=3)
    outcomes = [(r.lab, r.outcome) for r in results]
    assert outcomes == [("11.1", "passed")] * 3 + [
        ("11.2", "failed"),
        ("11.2", "not run"),
        ("11.2", "not run"),
    ]
    assert results[3].message.endswith("did not finish within 0.5 s; look for an endless loop")
    assert results[4].message == "not run: an earlier case of Lab 11.2 ran past 0.5 s"

    late = run_hidden_cases(loops, ["11.1"], SEED, count=2, seconds=0)
    rows = [
        {"lab": r.lab, "name": r.name, "outcome": r.outcome, "message": r.message} for r in late
    ]
    assert [(row["outcome"], row["message"]) for row in rows] == [
        ("not run", "not run: the time limit was reached")
    ] * 2
    assert hidden_from_json(rows) == tuple(
        hidden_checks.HiddenResult(r["lab"], r["name"], "not run", r["message"]) for r in rows
    )
    assert hidden_from_json([{"lab": 1}, "x", {"lab": "11.1", "name": "n", "outcome": "?"}]) == ()


def test_the_grader_runs_them_in_the_worker_and_reports_them_beside_the_checks(
    tmp_path: Path,
) -> None:
    roster = tmp_path / "roster"
    strict = edit_lab(solved(roster / "strict"), "11.3", "<= allowance", "< allowance")
    labs = list(CHAPTER_LABS)
    plan = HiddenPlan(seed=SEED, cases=12)
    grade = grade_submission(Submission("strict", strict), labs, Limits(timeout=60), plan)
    assert grade.status == "ok", grade.note
    assert len(grade.hidden) == 12 * len(labs)
    by_lab = Counter((case.lab, case.outcome) for case in grade.hidden)
    assert by_lab["11.3", "failed"] >= 1 and by_lab["11.2", "passed"] == 12
    again = grade_submission(Submission("strict", strict), labs, Limits(timeout=60), plan)
    assert again.hidden == grade.hidden  # the same seed, the same cases and messages

    (row,) = gradebook_rows([grade], labs)
    passed = sum(case.outcome == "passed" for case in grade.hidden)
    assert row["hidden"] == f"{passed}/{12 * len(labs)}"
    assert row["total"] == f"{grade.passed}/15"  # the hidden cases never change the 15
    book = gradebook_json([grade], labs, Limits())
    hidden = book["students"][0]["hidden"]
    assert hidden["labs"]["11.2"] == {"passed": 12, "total": 12}
    assert len(hidden["cases"]) == 12 * len(labs)
    json.dumps(book)  # plain data only
    text = feedback_text(grade, labs)
    assert "Hidden cases (inputs drawn at grading time, compared with the reference):" in text
    assert "Lab 11.2: 12/12 agree with the reference" in text
    assert "  FAILED  hidden 11.3 #" in text


def test_a_look_alike_with_a_to_wire_method_is_not_the_reference_answer() -> None:
    """Only the workbook's own models are read through ``to_wire``: a forged object that
    answers with the reference's wire dict stays a forged object."""
    entry = course_lib.chapter_fixture()[1]

    class LookAlike:
        def to_wire(self) -> dict[str, object]:
            return entry.to_wire()

    plain = hidden_checks._plain
    assert plain(entry) == entry.to_wire()
    assert (
        plain(LookAlike())
        == "<test_a_look_alike_with_a_to_wire_method_is_not_the_reference_answer.<locals>.LookAlike>"
    )
    agrees, _ = hidden_checks.judge("q", ("value", plain(entry)), ("value", plain(LookAlike())))
    assert not agrees
