"""The mutation tool itself: it makes real mutants, runs them, and says what each one did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mutant_inputs import differs

from course_lib.track import mutation
from course_lib.track.checks import CheckOutcome, LabReport
from course_lib.track.mutation import mutants_of, render_table, run_mutants


def test_each_lab_gets_mutants_of_its_own_regions_only() -> None:
    for lab in mutation.TRACK:
        found = mutants_of(lab)
        assert found, lab
        assert {m.lab for m in found} == {lab}
    kinds = {m.description.split(": ", 1)[1] for m in mutants_of("11.3")}
    assert {"LtE -> Lt", "Gt -> GtE", "reversed(x) -> x", "condition negated"} <= kinds
    assert "'trimmed' -> 'single_group_overflow'" in kinds


def test_every_lab_11_1_mutant_fails_lab_11_1(tmp_path: Path) -> None:
    results = run_mutants(["11.1"], tmp_path, differs)
    assert results and all(result.verdict == "killed" for result in results)
    assert "| 11.1 | 2 | 2 | 2 | 0 | 0 | 0 |" in render_table(results)


def _reports(failing: set[str]) -> Any:
    def run(labs: list[str], *, impl: Path, scratch: Path) -> list[LabReport]:
        return [
            LabReport(lab, [CheckOutcome(lab, "check", "failed" if lab in failing else "passed")])
            for lab in labs
        ]

    return run


@pytest.mark.parametrize(
    ("failing", "judge", "verdict"),
    [
        ({"11.4"}, "differs at input 3", "killed"),
        ({"11.5"}, "differs at input 3", "killed later"),
        (set(), "differs at input 3", "survived"),
        (set(), None, "equivalent"),
    ],
)
def test_each_verdict_follows_which_lab_failed_and_what_the_inputs_showed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failing: set[str],
    judge: str | None,
    verdict: str,
) -> None:
    one = mutants_of("11.4")[:1]
    monkeypatch.setattr(mutation, "mutants_of", lambda lab: one)
    monkeypatch.setattr(mutation, "run_checks_in_process", _reports(failing))
    [result] = run_mutants(["11.4"], tmp_path, lambda reference, mutant, lab: judge)
    assert result.verdict == verdict
    if verdict == "survived":
        assert result.detail == "differs at input 3"  # where it differs: the evidence
