"""Every right rule passes: each correct variant of ``tests/variants.py`` on every check.

The mutation tests (``test_mutants.py``, ``make mutants``) prove that the
checks refuse every wrong rule; these prove the other half, that they accept
right rules written the way students write them. A variant replaces one
region of a fully solved practice package; the package must then pass every
lab's public checks and every hidden case of several seeds, on whichever
Python runs the suite (CI runs the rules' tests on the lowest and the newest
Python the workbook supports, where ``sum()`` rounds differently).
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from variants import VARIANTS, Variant

from course_lib.grading.hidden_checks import run_hidden_cases
from course_lib.track import checks
from course_lib.track.catalogue import LAB_TOPICS
from course_lib.track.checks import run_checks_in_process
from course_lib.track.starters import (
    find_regions,
    practice_files,
    practice_modules,
    region_function,
    replace_region_bodies,
    solution_bodies,
)

pytestmark = pytest.mark.reference_only  # it builds its own packages; --impl has no say here

TRACK = list(LAB_TOPICS)
TESTS = Path(__file__).resolve().parents[1]
HIDDEN_SEEDS = (1, 2, 3)
HIDDEN_CASES_PER_LAB = 12


@cache  # the reference does not change during a run: read its regions once
def region_functions() -> dict[str, str]:
    """Every region's function (``module.function``) -> its lab, from the reference."""
    found: dict[str, str] = {}
    for name, text in practice_files(solved=TRACK).items():
        module = name.removesuffix(".py")
        if module not in practice_modules():
            continue
        lines = text.splitlines()
        for region in find_regions(text, name):
            found[region_function(module, lines, region)] = region.lab
    return found


def package_with(variant: Variant, root: Path) -> Path:
    """A fully solved practice package whose one region is ``variant``'s body."""
    module = variant.function.partition(".")[0]
    lab = region_functions()[variant.function]
    directory = root / "ch11"
    directory.mkdir(parents=True)
    for name, text in practice_files(solved=TRACK).items():
        if name == f"{module}.py":
            lines = text.splitlines()
            regions = [r for r in find_regions(text, name) if r.lab == lab]
            bodies = [
                variant.body.splitlines()
                if region_function(module, lines, region) == variant.function
                else reference
                for region, reference in zip(regions, solution_bodies(module, lab), strict=True)
            ]
            text = replace_region_bodies(text, lab, bodies, name)
        (directory / name).write_text(text, encoding="utf-8")
    return directory


def test_every_region_has_two_variants_and_the_token_sums_one_with_sum() -> None:
    counts = Counter(variant.function for variant in VARIANTS)
    assert set(counts) == set(region_functions()), "a variant names no region, or one is missing"
    assert min(counts.values()) >= 2, counts
    summing = {"budget.group_costs", "budget.token_projection", "budget.message_allowances"}
    for function in summing:
        assert any("sum(" in v.body for v in VARIANTS if v.function == function), (
            f"{function}: no variant uses sum()"
        )


@pytest.mark.parametrize(
    "variant", VARIANTS, ids=[f"{v.function}: {v.description}" for v in VARIANTS]
)
def test_a_right_rule_written_differently_passes_every_public_and_hidden_check(
    variant: Variant, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The checks are these tests' own, also when course_lib is installed elsewhere
    # (``make test-rules`` installs it non-editable).
    monkeypatch.setattr(checks, "tests_directory", lambda: TESTS)
    package = package_with(variant, tmp_path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    reports = run_checks_in_process(TRACK, impl=package, scratch=scratch)
    failed = [
        f"Lab {report.lab} {outcome.name}: {outcome.detail}"
        for report in reports
        for outcome in report.outcomes
        if outcome.outcome != "passed"
    ]
    assert failed == [], "\n".join(failed)
    for seed in HIDDEN_SEEDS:
        results = run_hidden_cases(package, TRACK, seed, count=HIDDEN_CASES_PER_LAB, seconds=120.0)
        refused = [f"seed {seed} {r.name}: {r.message}" for r in results if r.outcome != "passed"]
        assert refused == [], "\n".join(refused)
