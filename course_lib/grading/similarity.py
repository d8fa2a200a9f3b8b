"""How alike students' lab regions are: to each other, and to the reference solution.

Copying is rarely a literal copy: comments are rewritten, variables renamed,
blank lines moved. So each lab's regions are first *normalised*: parsed as
Python, docstrings dropped, every name the region itself binds (assignment
and loop targets, comprehension variables, ``except ... as``, inner
functions and their parameters) renamed ``v0, v1, ...`` in order of first
use, and printed back as tokens, so layout, comments, quote style,
parentheses and the choice of local names do not count. Names the region
only reads (the function's parameters, the chapter's helpers, attributes)
and every literal still do.

Two regions are then compared as sets of 5-token shingles (Jaccard), which
stays meaningful when code is reordered or a few lines are added.

Small regions drown the signal: four lines that parse a compaction entry
can only be written a few ways, so an independent student writes the
reference. A lab is therefore judged only when its normalised work is
*substantial* (``MIN_TOKENS``). And what students share with the reference
says nothing about copying from each other: a class that started from
``course-lab solution`` and changed a line each would otherwise be one long
list of pairs. So two students are compared on their *own* shingles, those
the reference does not have, and only when each has enough of them
(``MIN_OWN_SHINGLES``).
"""

from __future__ import annotations

import ast
import builtins
import functools
import io
import textwrap
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..track.starters import LabMarkError, find_regions, lab_modules, solution_bodies, starter_text

__all__ = [
    "MIN_OWN_SHINGLES",
    "MIN_TOKENS",
    "SHINGLE",
    "SIMILARITY_THRESHOLD",
    "LabWork",
    "SimilarPair",
    "lab_work",
    "normalised_tokens",
    "reference_work",
    "resemblance",
    "same_as_reference",
    "similar_pairs",
]

MIN_TOKENS = 60
"""A lab's normalised regions must hold at least this many tokens to be judged at all."""

SIMILARITY_THRESHOLD = 0.8
"""Pairs at or above this resemblance (0-1) are listed (``course-lab grade --similarity``)."""

SHINGLE = 5
"""Tokens per shingle: long enough that common idioms do not match by chance."""

MIN_OWN_SHINGLES = 10
"""A lab with fewer shingles of its own (not in the reference) is the reference with a tweak."""

LabWork = tuple[str, ...]
"""A lab's regions, normalised, as one token sequence (regions joined by a ``<region>`` token)."""


class _Renamer(ast.NodeTransformer):
    """Rename the names a region binds, canonically, in order of first use."""

    def __init__(self, bound: set[str]) -> None:
        self.bound = bound
        self.names: dict[str, str] = {}

    def _new(self, name: str) -> str:
        if name not in self.bound:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self._new(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self._new(node.arg)
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.name = self._new(node.name)
        self.generic_visit(node)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.ExceptHandler:
        if node.name is not None:
            node.name = self._new(node.name)
        self.generic_visit(node)
        return node


def _bound_names(tree: ast.AST) -> set[str]:
    """What the region binds itself; builtins stay builtins even when shadowed."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        if isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound - set(dir(builtins))


def _without_docstrings(tree: ast.AST) -> None:
    """Drop statements that are only a string (docstrings and commented-out code in quotes)."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = [
                statement
                for statement in body
                if not (
                    isinstance(statement, ast.Expr)
                    and isinstance(statement.value, ast.Constant)
                    and isinstance(statement.value.value, str)
                )
            ]
            node.body = kept or [ast.Pass()]  # type: ignore[attr-defined]


class _Unannotated(ast.NodeTransformer):
    """``x: list[int] = []`` and ``x = []`` are the same work."""

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is None:
            return ast.Pass()
        return ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)


def _printed_tokens(source: str) -> list[str]:
    tokens: list[str] = []
    layout = {tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER, tokenize.ENCODING}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in layout:
            continue
        if token.type == tokenize.INDENT:
            tokens.append("<indent>")
        elif token.type == tokenize.DEDENT:
            tokens.append("<dedent>")
        elif token.type == tokenize.NEWLINE:
            tokens.append(";")
        else:
            tokens.append(token.string)
    return tokens


def normalised_tokens(lines: Sequence[str]) -> list[str]:
    """One region's code as normalised tokens (see the module's docstring).

    A region that does not parse (or nests too deeply to walk) is compared by
    its raw tokens (comments dropped, names kept), so a broken submission
    still has work to compare and never stops the grader.
    """
    source = textwrap.dedent("\n".join(lines))
    try:
        tree = ast.parse(source)
        _without_docstrings(tree)
        _Unannotated().visit(tree)
        _Renamer(_bound_names(tree)).visit(tree)
        ast.fix_missing_locations(tree)
        return _printed_tokens(ast.unparse(tree))
    except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError):
        # Code that does not parse, or nests too deeply to walk, is still someone's work.
        kept = [line.split("#", 1)[0] for line in source.splitlines()]
        return " ".join(kept).split()


def _joined(bodies: Iterable[Sequence[str]]) -> LabWork:
    tokens: list[str] = []
    for index, body in enumerate(bodies):
        tokens += (["<region>"] if index else []) + normalised_tokens(body)
    return tuple(tokens)


@functools.cache
def _starter_work(lab: str) -> LabWork:
    """What a lab looks like before anyone wrote it: its starters' regions, normalised."""
    bodies: list[list[str]] = []
    for module in lab_modules(lab):
        text = starter_text(module)
        lines = text.splitlines()
        bodies += [r.body(lines) for r in find_regions(text, f"{module}.py") if r.lab == lab]
    return _joined(bodies)


def lab_work(package: Path, labs: Sequence[str]) -> dict[str, LabWork]:
    """Each lab's regions in ``package``, normalised; a lab is left out when it is unwritten
    (still the starter), a module is missing or unreadable, or its marks are broken."""
    found: dict[str, LabWork] = {}
    for lab in labs:
        bodies: list[list[str]] = []
        try:
            for module in lab_modules(lab):
                path = package / f"{module}.py"
                text = path.read_text(encoding="utf-8")
                lines = text.splitlines()
                bodies += [r.body(lines) for r in find_regions(text, path.name) if r.lab == lab]
        except (OSError, UnicodeDecodeError, LabMarkError):
            continue
        work = _joined(bodies)
        if bodies and work != _starter_work(lab):
            found[lab] = work
    return found


def reference_work(labs: Sequence[str]) -> dict[str, LabWork]:
    """The reference solution of each lab, normalised the same way."""
    return {lab: _reference_lab(lab) for lab in labs}


@functools.cache
def _reference_lab(lab: str) -> LabWork:
    return _joined(body for module in lab_modules(lab) for body in solution_bodies(module, lab))


def _shingles(work: LabWork) -> set[tuple[str, ...]]:
    if len(work) < SHINGLE:
        return {work}
    return {work[i : i + SHINGLE] for i in range(len(work) - SHINGLE + 1)}


def resemblance(first: LabWork, second: LabWork) -> float:
    """How alike two labs' normalised work is, 0 to 1: the Jaccard index of their shingles."""
    if first == second:
        return 1.0
    a, b = _shingles(first), _shingles(second)
    return len(a & b) / len(a | b) if a | b else 0.0


def same_as_reference(
    work: Mapping[str, LabWork],
    reference: Mapping[str, LabWork],
    *,
    min_tokens: int = MIN_TOKENS,
) -> tuple[str, ...]:
    """The labs whose work is substantial and identical to the reference after normalisation.

    ``course-lab solution`` produces exactly that, so a flag is a question for
    the instructor, not a verdict; a lab below ``min_tokens`` is never flagged.
    """
    return tuple(
        lab
        for lab, tokens in work.items()
        if len(tokens) >= min_tokens and tokens == reference.get(lab)
    )


@dataclass(frozen=True)
class SimilarPair:
    """Two students whose own work on one lab (what the reference does not hold) is alike."""

    lab: str
    first: str
    second: str
    similarity: float
    """How alike their own shingles are (Jaccard), 0 to 1: what the threshold applies to."""
    overall: float
    """How alike the two labs are as a whole, the reference's part included."""
    first_to_reference: float
    second_to_reference: float
    tokens: int
    """The smaller of the two labs' normalised sizes, in tokens."""


def similar_pairs(
    works: Mapping[str, Mapping[str, LabWork]],
    reference: Mapping[str, LabWork],
    labs: Sequence[str],
    *,
    threshold: float = SIMILARITY_THRESHOLD,
    min_tokens: int = MIN_TOKENS,
) -> list[SimilarPair]:
    """Every pair of students, per lab, whose own work resembles at ``threshold`` or more; most
    similar first, then by lab and names.

    Only substantial labs (``min_tokens``) with at least ``MIN_OWN_SHINGLES``
    shingles the reference lacks take part: two copies of the reference, or
    of the reference with a line changed, are not a pair (the reference flag
    names the first kind).
    """
    pairs: list[SimilarPair] = []
    students = sorted(works, key=lambda name: (name.casefold(), name))
    for lab in labs:
        solution = reference.get(lab, ())
        common = _shingles(solution) if solution else set()
        done: list[tuple[str, LabWork, set[tuple[str, ...]]]] = []
        for name in students:
            tokens = works[name].get(lab)
            if tokens is None or len(tokens) < min_tokens:
                continue
            own = _shingles(tokens) - common
            if len(own) >= MIN_OWN_SHINGLES:
                done.append((name, tokens, own))
        for index, (first, a, own_a) in enumerate(done):
            for second, b, own_b in done[index + 1 :]:
                score = len(own_a & own_b) / len(own_a | own_b)
                if score >= threshold:
                    pairs.append(
                        SimilarPair(
                            lab=lab,
                            first=first,
                            second=second,
                            similarity=round(score, 3),
                            overall=round(resemblance(a, b), 3),
                            first_to_reference=round(resemblance(a, solution), 3),
                            second_to_reference=round(resemblance(b, solution), 3),
                            tokens=min(len(a), len(b)),
                        )
                    )
    order = {lab: index for index, lab in enumerate(labs)}
    pairs.sort(key=lambda p: (-p.similarity, order[p.lab], p.first.casefold(), p.second.casefold()))
    return pairs
