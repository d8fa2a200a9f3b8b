"""Whose rules a submission holds, read from its files before any of its code runs.

"No rule, no marks": a lab scores only when the functions its checks call are
the submission's own. A package whose ``__init__.py`` or modules bind a rule to
the workbook's reference instead (``from course_lib.chapter.budget import
build_context``, or a star import after the ``def``) would otherwise pass every
check without a line written. The grader reads this from its private copy, in
its own process, so nothing the package does when it runs can change it.

What a file cannot show (a rule replaced while the package imports, through
``setattr`` or ``globals()``) needs the judge to run apart from the judged.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..track.starters import chapter_exports, lab_modules, reference_source

__all__ = ["borrowed_rules"]


def _defined_functions(module: str) -> list[str]:
    """The top-level functions of the reference module: the package must define each itself."""
    tree = ast.parse(reference_source(module))
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]


def _last_bindings(tree: ast.Module) -> dict[str, ast.stmt]:
    """For each name bound at the top of a module, the statement that binds it last.

    A star import is not counted here (it binds names no file shows): ``_star_after``
    asks whether one comes after a binding.
    """
    last: dict[str, ast.stmt] = {}
    for node in tree.body:
        for name in _names_bound(node):
            last[name] = node
    return last


def _names_bound(node: ast.stmt) -> Iterable[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            yield (alias.asname or alias.name).split(".")[0]
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _target_names(target)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        yield from _target_names(node.target)
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            yield from _target_names(target)
    else:  # an if / try / with at the top can bind anything inside it
        for child in ast.walk(node):
            if child is not node and isinstance(child, _SIMPLE_BINDINGS):
                yield from _names_bound(child)


_SIMPLE_BINDINGS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.Delete,
)
"""The statements ``_names_bound`` reads directly (a compound one is walked once, not again)."""


def _target_names(target: ast.expr) -> Iterable[str]:
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            yield node.id


def _star_after(tree: ast.Module, binding: ast.stmt) -> ast.ImportFrom | None:
    """A star import that comes after ``binding`` (it may replace what ``binding`` bound)."""
    after = False
    for node in tree.body:
        if node is binding:
            after = True
        elif after and isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return node
    return None


def _parsed(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_bytes(), filename=path.name)
    except (OSError, SyntaxError, ValueError):
        return None  # the checks report a file that is missing or does not parse


def _module_problem(package: Path, module: str) -> str | None:
    """Why ``module``'s functions are not the package's own, or ``None`` when they are."""
    tree = _parsed(package / f"{module}.py")
    if tree is None:
        return None
    last = _last_bindings(tree)
    for name in _defined_functions(module):
        binding = last.get(name)
        if binding is None:
            return f"{module}.py does not define {name}"
        if not isinstance(binding, ast.FunctionDef):
            return (
                f"{module}.py binds {name} to something it does not define (line {binding.lineno})"
            )
        star = _star_after(tree, binding)
        if star is not None:
            return f"{module}.py has a star import after {name} (line {star.lineno})"
    return None


def _init_problem(package: Path, module: str, names: Sequence[str]) -> str | None:
    """Why ``__init__.py`` does not export ``module``'s rules from the package's own module."""
    tree = _parsed(package / "__init__.py")
    if tree is None:
        return None
    last = _last_bindings(tree)
    for name in names:
        binding = last.get(name)
        own = (
            isinstance(binding, ast.ImportFrom)
            and binding.level == 1
            and binding.module == module
            and _star_after(tree, binding) is None
        )
        if not own:
            where = f" (line {binding.lineno})" if binding is not None else ""
            return f"__init__.py does not take {name} from its own {module}.py{where}"
    return None


def borrowed_rules(package: Path, labs: Sequence[str]) -> dict[str, str]:
    """Lab -> why its rules are not the submission's own; empty when every one is.

    >>> from course_lib.track.starters import write_practice_package
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     package = Path(folder) / "ch11"
    ...     _ = write_practice_package(package)
    ...     init = package / "__init__.py"
    ...     text = init.read_text(encoding="utf-8")
    ...     _ = init.write_text(text.replace("from .budget", "from course_lib.chapter.budget"))
    ...     borrowed_rules(package, ["11.2", "11.3"])
    {'11.3': '__init__.py does not take build_context from its own budget.py (line 11)'}
    """
    exports = chapter_exports()
    found: dict[str, str] = {}
    for lab in labs:
        for module in lab_modules(lab):
            problem = _module_problem(package, module) or _init_problem(
                package, module, exports.get(module, [])
            )
            if problem is not None:
                found[lab] = problem
                break
    return found
