"""Every hint a lab check prints has its Chinese words (``--lang zh``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from test_mutants import MUTANTS, TRACK, mutated_package

from course_lib.track.checks import run_checks_in_process
from course_lib.track.hints_zh import HINTS_ZH, hint_in_language

LABS = Path(__file__).resolve().parents[1] / "labs"


def _static_hints() -> set[str]:
    """The hints the lab checks write as plain strings (or names of module-level strings)."""
    found: set[str] = set()
    for path in LABS.glob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            for target in node.targets
            if isinstance(target, ast.Name) and isinstance(node.value.value, str)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "hint":
                value = node.value
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.add(value.value)
                elif isinstance(value, ast.Name) and value.id in constants:
                    found.add(constants[value.id])
    return {hint for hint in found if hint}


def test_every_plain_hint_of_the_lab_checks_is_in_chinese() -> None:
    missing = sorted(_static_hints() - set(HINTS_ZH))
    assert missing == []


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_hint_a_classic_mistake_prints_is_in_chinese(mutant: object, tmp_path: Path) -> None:
    directory = mutated_package(tmp_path, mutant)  # type: ignore[arg-type]
    (tmp_path / "scratch").mkdir()
    reports = run_checks_in_process(TRACK, impl=directory, scratch=tmp_path / "scratch")
    for report in reports:
        for outcome in report.outcomes:
            if outcome.outcome == "failed" and "; hint: " in outcome.detail:
                chinese = hint_in_language(outcome.detail, "zh")
                assert "提示（英文）" not in chinese, outcome.detail


def test_a_hint_without_chinese_words_keeps_its_english_labelled() -> None:
    detail = "case: expected 1, got 2; hint: a rule nobody translated"
    assert (
        hint_in_language(detail, "zh")
        == "case: expected 1, got 2；提示（英文）：a rule nobody translated"
    )
    assert hint_in_language(detail, "en") == detail
