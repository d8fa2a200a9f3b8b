"""Mutation testing of the lab checks: every wrong rule must fail its own lab.

``make mutants`` (``python -m course_lib.track.mutation``) takes each lab's
reference solution, changes one thing in one region at a time (a comparison,
an operator, a constant, a loop's direction, ``break``/``continue``, a negated
condition, a dropped statement, ``min``/``max``), writes a solved practice
package with that change, and runs the checks of the labs up to the region's
lab on it. A mutant is:

* **killed** when its own lab's checks fail;
* **killed later** when its lab passes but a later lab fails (the student
  would be sent to the wrong lab);
* **survived** when every check passes although the behaviour changed;
* **equivalent** when, on the seeded random inputs of its lab and every later
  lab (``tests/mutant_inputs.py``: paths, budgets, compactions, bad entries),
  it gives exactly what the reference gives: it is listed with that
  evidence, never silently dropped.

The changes: comparisons (``<`` and ``<=``, ``==`` and ``!=``, ``in``, ``is``),
``+`` and ``-``, ``and`` and ``or``, integers (+1, 0), the chapter's reasons
and statuses, ``break`` and ``continue``, ``min`` and ``max``, ``reversed(x)``
to ``x``, ``x.model_copy(...)`` to ``x``, a negated ``if``/``while``
condition, and each statement deleted.

Why a small mutator of our own: the regions are short function bodies, and
the interesting evidence (which lab caught it, with what message) needs the
track's own in-process runner; general tools mutate whole files and know
nothing of labs.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import signal
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any

from ..base.i18n import has_translation
from ..judge.practice import load_practice_package
from .catalogue import LAB_TOPICS
from .checks import LabReport, run_checks_in_process
from .starters import find_regions, lab_modules, practice_files

__all__ = ["Mutant", "MutantResult", "main", "mutants_of", "run_mutants"]

TRACK = list(LAB_TOPICS)
TIME_LIMIT_SECONDS = 10
"""A mutant whose checks run longer than this (an endless loop) counts as caught by its lab."""


@dataclass(frozen=True)
class Mutant:
    """One change in one region: which lab, module, function, and a short description."""

    lab: str
    module: str
    function: str
    region_index: int  # among ``lab``'s regions of ``module``, in file order
    description: str
    body: str  # the region's new body, at column zero


@dataclass
class MutantResult:
    mutant: Mutant
    verdict: str  # killed, killed later, survived, equivalent
    detail: str = ""


# --- making mutants --------------------------------------------------------------

_COMPARE_SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_BINOP_SWAPS: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add}
_NAME_SWAPS = {"max": "min", "min": "max"}
_WORD_SWAPS = {  # the chapter's reasons and ledger statuses, each one for the next
    "within_budget": "trimmed",
    "trimmed": "single_group_overflow",
    "single_group_overflow": "within_budget",
    "kept": "overflow",
    "overflow": "kept",
}


Edit = Callable[[ast.AST, ast.Module], None]
"""Changes one node (found by its position in ``ast.walk``) of a copy of the region."""


def _edits(tree: ast.Module) -> Iterator[tuple[str, int, Edit]]:
    """Every single change this mutator makes to ``tree``: ``(description, node index, edit)``."""
    for index, node in enumerate(ast.walk(tree)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            for position, operator in enumerate(node.ops):
                swap = _COMPARE_SWAPS.get(type(operator))
                if swap is not None:
                    described = f"line {line}: {type(operator).__name__} -> {swap.__name__}"
                    yield described, index, _swap_compare(position, swap)
        elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _BINOP_SWAPS:
            swap = _BINOP_SWAPS[type(node.op)]
            yield f"line {line}: {type(node.op).__name__} -> {swap.__name__}", index, _set_op(swap)
        elif isinstance(node, ast.BoolOp):
            swap = ast.Or if isinstance(node.op, ast.And) else ast.And
            yield f"line {line}: {type(node.op).__name__} -> {swap.__name__}", index, _set_op(swap)
        elif isinstance(node, ast.Constant) and node.value in _WORD_SWAPS:
            word = _WORD_SWAPS[node.value]
            yield f"line {line}: {node.value!r} -> {word!r}", index, _set_value(word)
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            yield (
                f"line {line}: {node.value} -> {node.value + 1}",
                index,
                _set_value(node.value + 1),
            )
            if node.value:
                yield f"line {line}: {node.value} -> 0", index, _set_value(0)
        elif isinstance(node, ast.Break | ast.Continue):
            other: Any = ast.Continue() if isinstance(node, ast.Break) else ast.Break()
            yield (
                f"line {line}: {type(node).__name__} -> {type(other).__name__}",
                index,
                _swap_to(other),
            )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name in _NAME_SWAPS:
                yield (
                    f"line {line}: {name} -> {_NAME_SWAPS[name]}",
                    index,
                    _rename(_NAME_SWAPS[name]),
                )
            if name == "reversed" and len(node.args) == 1:
                yield f"line {line}: reversed(x) -> x", index, _to_first_argument
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "model_copy"
        ):
            yield f"line {line}: x.model_copy(...) -> x", index, _to_receiver
        if isinstance(node, ast.If | ast.While):
            yield f"line {line}: condition negated", index, _negate
        if isinstance(node, ast.stmt) and not isinstance(node, ast.Return | ast.FunctionDef):
            yield f"line {line}: {type(node).__name__} deleted", index, _swap_to(ast.Pass())


def _substitute(tree: ast.Module, target: ast.AST, replacement: ast.AST) -> None:
    """Put ``replacement`` where ``target`` stands in ``tree``."""
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, name, replacement)
                return
            if isinstance(value, list) and any(item is target for item in value):
                value[[id(item) for item in value].index(id(target))] = replacement
                return


def _swap_compare(position: int, operator: type) -> Edit:
    def edit(node: Any, tree: ast.Module) -> None:
        node.ops[position] = operator()

    return edit


def _set_op(operator: type) -> Edit:
    def edit(node: Any, tree: ast.Module) -> None:
        node.op = operator()

    return edit


def _set_value(value: int | str) -> Edit:
    def edit(node: Any, tree: ast.Module) -> None:
        node.value = value

    return edit


def _rename(name: str) -> Edit:
    def edit(node: Any, tree: ast.Module) -> None:
        node.func.id = name

    return edit


def _swap_to(replacement: ast.AST) -> Edit:
    def edit(node: Any, tree: ast.Module) -> None:
        _substitute(tree, node, copy.deepcopy(replacement))

    return edit


def _to_first_argument(node: Any, tree: ast.Module) -> None:
    _substitute(tree, node, node.args[0])


def _to_receiver(node: Any, tree: ast.Module) -> None:
    _substitute(tree, node, node.func.value)


def _negate(node: Any, tree: ast.Module) -> None:
    node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)


def mutants_of(lab: str) -> list[Mutant]:
    """Every single-change mutant of ``lab``'s regions, in file order."""
    found: list[Mutant] = []
    files = practice_files(solved=TRACK)
    for module in lab_modules(lab):
        text = files[f"{module}.py"]
        lines = text.splitlines()
        regions = [region for region in find_regions(text, module) if region.lab == lab]
        functions = [
            node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.FunctionDef)
        ]
        for region_index, region in enumerate(regions):
            body = textwrap.dedent("\n".join(region.body(lines)))
            owner = min(
                (f for f in functions if f.lineno <= region.begin + 1 <= (f.end_lineno or 0)),
                key=lambda f: (f.end_lineno or 0) - f.lineno,
            )
            tree = ast.parse(body)
            original = ast.unparse(tree)
            for description, index, edit in _edits(tree):
                copied = copy.deepcopy(tree)
                edit(list(ast.walk(copied))[index], copied)
                new_body = ast.unparse(ast.fix_missing_locations(copied))
                if new_body == original:
                    continue
                found.append(Mutant(lab, module, owner.name, region_index, description, new_body))
    return found


# --- running them -----------------------------------------------------------------


def _write_package(directory: Path, mutant: Mutant | None) -> Path:
    package = directory / "ch11"
    package.mkdir(parents=True)
    for name, text in practice_files(solved=TRACK).items():
        if mutant is not None and name == f"{mutant.module}.py":
            text = _with_body(text, mutant)
        (package / name).write_text(text, encoding="utf-8")
    return package


def _with_body(text: str, mutant: Mutant) -> str:
    lines = text.splitlines(keepends=True)
    regions = [r for r in find_regions(text, mutant.module) if r.lab == mutant.lab]
    region = regions[mutant.region_index]
    body = textwrap.indent(mutant.body, region.indent) + "\n"
    return "".join([*lines[: region.begin + 1], body, *lines[region.end :]])


class _TimeLimit(Exception):
    """A mutant ran past ``TIME_LIMIT_SECONDS`` (an endless loop)."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _TimeLimit


def _limited(work: Callable[[], Any]) -> Any:
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(TIME_LIMIT_SECONDS)
    try:
        return work()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_mutants(
    labs: Sequence[str], scratch: Path, equivalence: Callable[..., Any]
) -> list[MutantResult]:
    """Run every mutant of ``labs``; ``equivalence(reference, mutant, lab)`` says whether a
    surviving mutant behaves as the reference on seeded random inputs (``None``: it does)."""
    reference = load_practice_package(_write_package(scratch / "reference", None))
    results: list[MutantResult] = []
    for lab in labs:
        for number, mutant in enumerate(mutants_of(lab)):
            folder = scratch / f"{lab}-{number}"
            try:
                package_dir = _write_package(folder, mutant)
                (folder / "tmp").mkdir()
                upto = TRACK[: TRACK.index(lab) + 1]
                later = TRACK[TRACK.index(lab) + 1 :]
                reports: list[LabReport] = _limited(
                    partial(
                        run_checks_in_process,
                        [*upto, *later],
                        impl=package_dir,
                        scratch=folder / "tmp",
                    )
                )
            except _TimeLimit:
                results.append(MutantResult(mutant, "killed", "ran past the time limit"))
                continue
            except Exception as error:  # the mutant does not even import
                results.append(MutantResult(mutant, "killed", f"{type(error).__name__}"))
                continue
            by_lab = {report.lab: report for report in reports}
            if not by_lab[lab].ok:
                failed = next(o for o in by_lab[lab].outcomes if o.outcome == "failed")
                results.append(MutantResult(mutant, "killed", f"{failed.name}: {failed.detail}"))
                continue
            later_failures = [other for other in later if not by_lab[other].ok]
            if later_failures:
                results.append(MutantResult(mutant, "killed later", f"Lab {later_failures[0]}"))
                continue
            mutated = load_practice_package(package_dir)
            difference: str | None = None
            for judged in [lab, *later]:  # later labs call this lab's functions too
                try:
                    difference = _limited(partial(equivalence, reference, mutated, judged))
                except _TimeLimit:
                    difference = f"Lab {judged}'s inputs: ran past the time limit"
                if difference is not None:
                    break
            if difference is None:
                detail = "same results on the seeded inputs of this lab and every later one"
                results.append(MutantResult(mutant, "equivalent", detail))
            else:
                results.append(MutantResult(mutant, "survived", difference))
    return results


def render_table(results: Sequence[MutantResult]) -> str:
    """The README's table: per lab, how many mutants each verdict got."""
    verdicts = ["killed", "killed later", "survived", "equivalent"]
    rows = [
        "| lab | mutants | behaviour-changing | killed by its own lab | killed later | survived | equivalent |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for lab in TRACK:
        mine = [r for r in results if r.mutant.lab == lab]
        if not mine:
            continue
        counts = {v: sum(r.verdict == v for r in mine) for v in verdicts}
        changing = len(mine) - counts["equivalent"]
        rows.append(
            f"| {lab} | {len(mine)} | {changing} | {counts['killed']} | {counts['killed later']} "
            f"| {counts['survived']} | {counts['equivalent']} |"
        )
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_lib.track.mutation")
    parser.add_argument("labs", nargs="*", default=TRACK, help="labs to mutate (default: all)")
    arguments = parser.parse_args(argv)
    tests = Path(__file__).resolve().parents[2] / "tests"
    if not (tests / "mutant_inputs.py").is_file():
        parser.error("run it from a checkout of the workbook: it needs tests/mutant_inputs.py")
    sys.path.insert(0, str(tests))  # the seeded inputs live beside the checks they judge
    differs = importlib.import_module("mutant_inputs").differs

    with tempfile.TemporaryDirectory() as scratch:
        results = run_mutants(arguments.labs, Path(scratch), differs)
    for result in results:
        if result.verdict in ("survived", "killed later", "equivalent"):
            m = result.mutant
            print(
                f"{result.verdict:13} Lab {m.lab} {m.module}.{m.function} {m.description}: {result.detail}"
            )
    untranslated = sorted(
        {
            result.detail.rsplit("; hint: ", 1)[1]
            for result in results
            if "; hint: " in result.detail
            and not has_translation("zh", result.detail.rsplit("; hint: ", 1)[1])
        }
    )
    for hint in untranslated:
        print(f"no Chinese for the hint: {hint}")
    print()
    print(render_table(results))
    bad = [r for r in results if r.verdict in ("survived", "killed later")]
    return 1 if bad or untranslated else 0


if __name__ == "__main__":
    raise SystemExit(main())
