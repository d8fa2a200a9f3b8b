"""Every hint a lab check prints has its Chinese words (``--lang zh``).

A check writes its hint in English, marked ``N_("...")`` where it is written
(``tests/lab_checks.py``), so ``make catalogs`` puts it in the gettext
catalog; ``hint_in_language`` shows its translation. These tests read the lab
checks for every ``hint=`` they pass and insist each is one marked literal
with a Chinese translation, and run every classic mistake of ``make mutants``
to see that the hints those checks print are translated.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_mutants import MUTANTS, TRACK, mutated_package

from course_lib.base.i18n import has_translation
from course_lib.track.checks import run_checks_in_process
from course_lib.track.language import hint_in_language

LABS = Path(__file__).resolve().parents[1] / "labs"


def _marked(node: ast.expr) -> str | None:
    """The literal of ``N_("...")``, else ``None``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "N_"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _path_to(target: ast.expr, name: str) -> list[int] | None:
    """Where ``name`` sits in a for-loop target: ``(a, (b, c))`` -> ``c`` is ``[1, 1]``."""
    if isinstance(target, ast.Name):
        return [] if target.id == name else None
    if isinstance(target, ast.Tuple):
        for index, element in enumerate(target.elts):
            found = _path_to(element, name)
            if found is not None:
                return [index, *found]
    return None


def _at(node: ast.expr, path: list[int]) -> ast.expr | None:
    for index in path:
        if not isinstance(node, ast.Tuple) or index >= len(node.elts):
            return None
        node = node.elts[index]
    return node


class _Scopes:
    """Where a name a ``hint=`` passes is bound: an assignment, a loop or a parameter."""

    def __init__(self, tree: ast.Module) -> None:
        self.module = {
            target.id: node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }

    def sources(self, name: str, function: ast.FunctionDef | None) -> list[ast.expr] | None:
        """Every expression ``name`` is bound to (each must be ``N_``); ``None`` for a parameter."""
        if function is not None:
            arguments = function.args
            if name in {a.arg for a in [*arguments.args, *arguments.kwonlyargs]}:
                return None
            found: list[ast.expr] = []
            for node in ast.walk(function):  # every binding: a name bound twice, both marked
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in node.targets
                ):
                    found.append(node.value)
                if isinstance(node, ast.For) and (path := _path_to(node.target, name)) is not None:
                    found += self._loop_sources(node.iter, path, function)
            if found:
                return found
        if name in self.module:
            return [self.module[name]]
        raise AssertionError(f"hint={name}: not bound to a marked hint")

    def _loop_sources(
        self, iterable: ast.expr, path: list[int], function: ast.FunctionDef
    ) -> Iterator[ast.expr]:
        if isinstance(iterable, ast.Name):  # a table bound earlier in the function
            tables = self.sources(iterable.id, function)
            assert tables is not None and len(tables) == 1, iterable.id
            iterable = tables[0]
        assert isinstance(iterable, ast.List | ast.Tuple), ast.unparse(iterable)
        for row in iterable.elts:
            if isinstance(row, ast.Subscript):  # cases[0]: a row of the table named
                continue  # (that table's own rows are read where it is bound)
            value = _at(row, path)
            assert value is not None, ast.unparse(row)
            yield value


def _lab_hints() -> Iterator[tuple[str, str]]:
    """(where, hint) for every ``hint=`` of the lab checks; an unmarked one fails here."""
    for path in sorted(LABS.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        scopes = _Scopes(tree)
        functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
        owner = {
            id(inner): function for function in functions for inner in ast.walk(function)
        }  # the innermost function wins: ast.walk visits outer functions first
        for node in ast.walk(tree):
            if not (isinstance(node, ast.keyword) and node.arg == "hint"):
                continue
            where = f"{path.name}:{node.value.lineno}"
            if isinstance(node.value, ast.Name):
                sources = scopes.sources(node.value.id, owner.get(id(node)))
                values = sources or []
            else:
                values = [node.value]
            for value in values:
                hint = _marked(value)
                assert hint is not None, (
                    f"{where}: write the hint as one literal marked N_(...), "
                    f"not {ast.unparse(value)[:60]}"
                )
                yield where, hint


def test_every_hint_of_the_lab_checks_is_marked_and_in_chinese() -> None:
    hints = list(_lab_hints())
    assert len({hint for _, hint in hints}) > 80  # the reading of the checks works
    missing = [f"{where}: {hint}" for where, hint in hints if not has_translation("zh", hint)]
    assert missing == [], "hints without Chinese (run `make catalogs`, then translate them)"


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
                assert has_translation("zh", outcome.detail.rsplit("; hint: ", 1)[1])


def test_a_hint_reads_in_chinese_and_the_case_and_values_stay() -> None:
    hint = "entries() returns copies"
    detail = f"store.entries(): expected 'x', got 'y'; hint: {hint}"
    assert (
        hint_in_language(detail, "zh")
        == "store.entries()：期望 'x'，实际为 'y'；提示：entries() 返回拷贝"
    )
    assert hint_in_language(detail, "en") == detail
    assert hint_in_language("no hint here", "zh") == "no hint here"


def test_a_hint_without_chinese_words_keeps_its_english_labelled() -> None:
    detail = "case: expected 1, got 2; hint: a rule nobody translated"
    assert (
        hint_in_language(detail, "zh")
        == "case：期望 1，实际为 2；提示（英文）：a rule nobody translated"
    )
    assert hint_in_language(detail, "en") == detail
