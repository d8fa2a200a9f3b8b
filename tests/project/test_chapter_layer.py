"""The chapter layer reads like the chapter: every rule names its section and shows its example.

A student reads ``course_lib/chapter`` after the chapter text, so each function
a lab asks for must say which section it implements, and the chapter's worked
examples (31 / 4 / 2 keeps ``u2`` … ``a3``; ``compact-1`` from ``u2``; the
system replay across the boundary) must be doctests that run.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import re
from pathlib import Path

import pytest

CHAPTER = Path(__file__).resolve().parents[2] / "course_lib" / "chapter"
MODULES = sorted(path.stem for path in CHAPTER.glob("*.py") if path.stem != "__init__")
LAB_MARK = "# --- Lab "


def rule_functions() -> list[tuple[str, str, str]]:
    """``(module, qualified name, docstring)`` of every function holding a lab region."""
    found = []
    for module in MODULES:
        source = (CHAPTER / f"{module}.py").read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, ast.FunctionDef):
                    continue
                body = lines[child.lineno - 1 : child.end_lineno]
                if any(line.strip().startswith(LAB_MARK) for line in body):
                    owner = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
                    found.append((module, owner + child.name, ast.get_docstring(child) or ""))
    return found


def test_every_lab_has_its_rule_functions() -> None:
    modules = {module for module, _, _ in rule_functions()}
    assert modules == {"entries", "groups", "budget", "compaction", "restoring", "ledger"}


@pytest.mark.parametrize(("module", "name", "docstring"), rule_functions())
def test_a_rule_function_names_its_section_and_lab(module: str, name: str, docstring: str) -> None:
    """A rule says its section (``§4 rule 2``); its module's docstring gives that section's title."""
    sections = re.findall(r"§(\d)", docstring)
    assert sections, f"{module}.{name}: no chapter section in its docstring"
    heading = importlib.import_module(f"course_lib.chapter.{module}").__doc__ or ""
    assert f"Chapter 11 §{sections[0]} 「" in heading, f"{module}.{name}: §{sections[0]} untitled"
    assert "Lab 11." in docstring or "transfer" in docstring, f"{module}.{name}: no lab"


@pytest.mark.parametrize("module", MODULES)
def test_every_chapter_module_names_its_section(module: str) -> None:
    docstring = importlib.import_module(f"course_lib.chapter.{module}").__doc__ or ""
    assert "Chapter 11 §" in docstring, f"chapter/{module}.py names no section of the chapter"


WORKED_EXAMPLES = {
    "budget.build_context": ["31", "'u2'", "'trimmed'", "after_compaction", "['u4', 'a4']"],
    "budget.message_allowances": ["Budget(31, 4, 2), 3"],
    "budget.select_newest_groups": ["[7, 7, 15]"],
    "compaction.create_compaction_entry": ["compact-1", "'u2'"],
    "restoring.restored_suffix": ["chapter_fixture_after_compaction", "'compact-1', 'u4'"],
    "messages.current_system_message": ["system_replay_fixture", "Prefer small diffs."],
    "groups.group_interactions": ["'r-test'"],
    "ledger.ledger_from_plan": ["'trimmed'"],
}


@pytest.mark.parametrize(("where", "words"), sorted(WORKED_EXAMPLES.items()))
def test_the_chapters_worked_examples_are_doctests(where: str, words: list[str]) -> None:
    module_name, _, function_name = where.partition(".")
    function = getattr(importlib.import_module(f"course_lib.chapter.{module_name}"), function_name)
    tests = doctest.DocTestFinder(recurse=False).find(function, where)
    source = "".join(example.source + example.want for test in tests for example in test.examples)
    assert source, f"{where}: the chapter's example is not a doctest"
    for word in words:
        assert word in source, f"{where}: its doctest does not show {word!r}"


def test_the_chapter_layer_stays_short() -> None:
    """What a student reads as the chapter's reference (1,382 lines when this was written)."""
    lines = sum(len(path.read_text("utf-8").splitlines()) for path in CHAPTER.glob("*.py"))
    assert lines <= 1400, f"course_lib/chapter holds {lines} lines"
