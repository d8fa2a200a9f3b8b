"""The only ``course_lib`` a judged package can import: the given layer, and no rule.

Why: a submission that imports the reference's rules (``course_lib.chapter.budget``)
would score the reference's marks. So the grader's sandbox gets a copy of the
package holding what a practice package needs — the base layer, the chapter's
types, messages, fixture and ``LabNotImplemented``, the errors, the package loader
and the rule server — and nothing else: no rule module, no check, no hidden case, no
grader. Its ``__init__`` re-exports the given names of ``course_lib`` (read from
the real ``__init__``), so ``from course_lib import *`` in a practice package works.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

__all__ = ["GIVEN_FILES", "build_given_tree"]

GIVEN_FILES: tuple[str, ...] = (
    "errors.py",
    "base/*.py",
    "chapter/__init__.py",
    "chapter/models.py",
    "chapter/messages.py",
    "chapter/fixture.py",
    "chapter/labs.py",
    "chapter/data/*.jsonl",
    "judge/__init__.py",
    "judge/codec.py",
    "judge/confinement.py",
    "judge/frames.py",
    "judge/practice.py",
    "judge/rule_server.py",
)
"""Paths under ``course_lib/`` the judged side gets (globs relative to the package)."""

_GIVEN_MODULES = ("base.", "chapter.models", "chapter.messages", "chapter.fixture", "chapter.labs")


def _given_init(source: str) -> str:
    """``course_lib/__init__.py`` with only the imports of given modules, and their names."""
    tree = ast.parse(source)
    keep: list[ast.stmt] = []
    names: list[str] = []
    for node in tree.body:
        if not (isinstance(node, ast.ImportFrom) and node.level == 1 and node.module):
            continue
        if node.module.startswith(_GIVEN_MODULES):
            keep.append(node)
            names += [alias.asname or alias.name for alias in node.names]
    body = "\n".join(ast.unparse(node) for node in keep)
    listed = ",\n".join(f"    {name!r}" for name in sorted(names))
    return (
        '"""course_lib as a judged package sees it: the given layer only (no rule)."""\n\n'
        f"{body}\n\n__all__ = [\n{listed},\n]\n"
    )


def build_given_tree(target: Path) -> Path:
    """Write the given copy of ``course_lib`` under ``target``; return ``target``."""
    source = Path(__file__).resolve().parents[1]
    package = target / "course_lib"
    for pattern in GIVEN_FILES:
        for path in sorted(source.glob(pattern)):
            destination = package / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
    init = _given_init((source / "__init__.py").read_text(encoding="utf-8"))
    (package / "__init__.py").write_text(init, encoding="utf-8")
    return target
