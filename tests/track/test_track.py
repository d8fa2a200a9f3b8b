"""The student track: starters and solutions derived from the lab marks, red to green lab by lab.

The reference modules carry each lab's solution between
``# --- Lab 11.N <topic>: begin ---`` and ``# --- Lab 11.N: end ---``. These
tests pin the promises a student relies on: a fresh package fails every check
with the lab's own message, the layers below a lab already work, and filling
the labs in order turns each one green without turning an earlier one red.
The practice package holds the chapter's rule modules only: the types, the
fixture, the stores and the errors are ``course_lib``'s own, imported, never
copied, so the reference and a student's rules share one set of types.
What the checks say about a wrong solution (the chapter's expected failure,
keeping the last three messages, among them) is pinned by
``tests/track/test_mutants.py``. Check runs spawn pytest, so packages are shared
per module.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from types import ModuleType

import pytest
from conftest import _switch_back, _switch_course_lib_to

import course_lib
import course_lib.chapter
from course_lib.base.errors import CourseError
from course_lib.chapter import models, sessions
from course_lib.chapter.labs import LabNotImplemented
from course_lib.judge.practice import load_practice_package
from course_lib.track import starters
from course_lib.track.catalogue import (
    CHAPTER_LABS,
    EXERCISE_CHECK_COUNTS,
    LAB_CHECK_COUNTS,
    LAB_TOPICS,
)
from course_lib.track.checks import LabReport, check_names, lab_test_file, run_checks
from course_lib.track.starters import (
    GIVEN_CHAPTER_MODULES,
    PRACTICE_ROOTS,
    LabMarkError,
    begin_mark,
    chapter_exports,
    end_mark,
    fill_solution,
    find_regions,
    lab_modules,
    not_implemented_message,
    practice_files,
    practice_modules,
    reference_source,
    replace_region_bodies,
    solution_bodies,
    solution_text,
    starter_text,
    write_practice_package,
)

LABS = list(LAB_TOPICS)  # the chapter's five labs, then the transfer exercise
CHECK_COUNTS = {**LAB_CHECK_COUNTS, **EXERCISE_CHECK_COUNTS}
HEADER_GIVEN = "# Chapter 11 practice package (`course-lab practice 11`): given complete."
"""Line 1 of ``__init__.py``: nothing in it to write."""
HEADER_ZH = "# 中文：在每个函数的 begin/end 两行标记之间写出函数体，保留标记；标记之外都是给定的。"
"""Line 2 of a rule module in the zh edition."""
LABS_IMPORT = "from course_lib.chapter.labs import LabNotImplemented"
"""The one line a starter adds to its reference module: the given class, never a copy."""
# The aim is 500 lines: a fresh package went from 1,252 lines to 544, and what is left above
# 500 is the chapter's own signatures and docstrings. The limit keeps it from growing.
PRACTICE_PACKAGE_LINE_LIMIT = 500
"""What a student reads at most, every ``.py`` file of a fresh package together."""
MIN_DOCTESTS = 8
"""The doctests a solved package runs at least: the chapter's worked examples, on its own rules."""


def by_lab(reports: list[LabReport]) -> dict[str, LabReport]:
    return {report.lab: report for report in reports}


def fresh_package(factory: pytest.TempPathFactory, name: str) -> Path:
    directory = factory.mktemp(name) / "ch11"
    write_practice_package(directory)
    return directory


def labs_header(labs: list[str]) -> str:
    """Line 1 of a rule module holding ``labs``' regions: its labs and the first one's check."""
    names = ", ".join(f"Lab {lab} {LAB_TOPICS[lab]}" for lab in labs)
    return f"# Chapter 11 practice, {names}. Check: course-lab check {labs[0]} --impl <dir>"


def check_rule_header(text: str, module: str, lang: str = "en") -> None:
    """A rule module opens with its labs' line (and the zh line in zh), then its docstring."""
    labs = sorted({region.lab for region in find_regions(text, module)})
    lines = text.splitlines()
    assert labs, module  # every practice module holds a lab
    assert lines[0] == labs_header(labs), module
    header = [lines[0], HEADER_ZH] if lang == "zh" else [lines[0]]
    assert lines[: len(header)] == header, (module, lines[:2])
    assert lines[len(header)].startswith('"""'), module  # the reference's docstring follows at once
    assert "doctest" not in "\n".join(header), module  # that command is in ``__init__.py``


def strip_header(text: str) -> str:
    """``text`` from its module docstring on (the generated header comment removed)."""
    header, quotes, rest = text.partition('"""')
    assert all(line.startswith("# ") for line in header.splitlines()), header
    return quotes + rest


def run_doctests(directory: Path) -> subprocess.CompletedProcess[str]:
    """``python -m pytest --doctest-modules <package>`` as a student runs it, next to the package.

    Run from the package's parent with an empty configuration, so neither this
    repository's ``pyproject.toml`` nor its ``conftest.py`` takes part.
    """
    parent = directory.parent
    command = [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"]
    command += ["-c", os.devnull, "--rootdir", str(parent), "--confcutdir", str(parent)]
    command += ["--doctest-modules", directory.name]
    environment = {key: value for key, value in os.environ.items() if key != "PYTEST_ADDOPTS"}
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        command, cwd=parent, env=environment, capture_output=True, text=True, timeout=300
    )


def doctest_outcomes(output: str, package: str) -> dict[str, str]:
    """``{"budget.build_context": "PASSED", ...}`` from a ``pytest -v --doctest-modules`` run."""
    found = re.findall(
        rf"^{package}/\w+\.py::{package}\.([\w.]+) (PASSED|FAILED|ERROR)", output, re.M
    )
    return dict(found)


# --- the marks in the reference modules -----------------------------------------------


def test_each_lab_has_marked_regions_in_its_own_modules() -> None:
    assert {lab: lab_modules(lab) for lab in LABS} == {
        "11.1": ["entries"],
        "11.2": ["groups"],
        "11.3": ["budget"],
        "11.4": ["compaction"],
        "11.5": ["restoring"],
        "transfer": ["ledger"],
    }
    for module in practice_modules():
        text = reference_source(module)
        for region in find_regions(text, module):
            lines = text.splitlines()
            assert region.topic == LAB_TOPICS[region.lab], (module, region)
            assert lines[region.begin].strip() == begin_mark(region.lab)
            assert lines[region.end].strip() == end_mark(region.lab)
            assert any(line.strip() for line in region.body(lines)), (module, region)


def test_marks_appear_only_in_practice_modules() -> None:
    package = Path(course_lib.__file__).parent
    marked = {
        path.stem
        for path in package.rglob("*.py")
        if path.name != "starters.py" and find_regions(path.read_text(encoding="utf-8"), path.name)
    }
    assert marked == {"entries", "groups", "budget", "compaction", "restoring", "ledger"}
    assert marked == set(PRACTICE_ROOTS) == set(practice_modules())  # every rule module has a lab


def test_given_modules_are_never_copied_and_rule_modules_import_them_absolutely() -> None:
    modules = practice_modules()
    assert modules == list(PRACTICE_ROOTS)  # closed under relative imports: nothing else pulled in
    assert GIVEN_CHAPTER_MODULES == ("models", "messages", "sessions", "fixture", "labs")
    chapter = {path.stem for path in Path(course_lib.chapter.__file__).parent.glob("*.py")}
    assert chapter - {"__init__"} == {*PRACTICE_ROOTS, *GIVEN_CHAPTER_MODULES}
    assert not set(PRACTICE_ROOTS) & set(GIVEN_CHAPTER_MODULES)
    # The rule modules and __init__.py only: no labs.py, no copy of any given module.
    assert sorted(practice_files()) == sorted([*(f"{m}.py" for m in modules), "__init__.py"])
    given = set(GIVEN_CHAPTER_MODULES)
    for module in modules:
        reference = reference_source(module)
        absolute_chapter: set[str] = set()
        for node in ast.walk(ast.parse(reference)):
            if isinstance(node, ast.ImportFrom) and node.level:
                # a relative import names a sibling rule module: it is copied too
                assert node.level == 1 and node.module in modules, (module, node.module)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_lib"):
                layer, _, rest = (node.module or "").partition(".")[2].partition(".")
                assert layer in {"base", "chapter"}, (module, node.module)
                if layer == "chapter":
                    assert rest in given, (module, node.module)  # only what is never copied
                    absolute_chapter.add(rest)
        assert "models" in absolute_chapter, module  # the one set of types, the reference's own
        assert "labs" not in absolute_chapter, module  # the reference raises no LabNotImplemented
        starter = starter_text(module)
        for name in given:  # a given module is the workbook's own, never a copy
            assert f"from .{name} import" not in starter, (module, name)
        for line in reference.splitlines():
            if line.startswith("from course_lib.chapter."):
                assert line in starter.splitlines(), (module, line)  # kept as written
        assert starter.splitlines().count(LABS_IMPORT) == 1, module  # the given class, imported


def test_a_relative_import_of_a_given_module_is_a_mark_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = reference_source

    def importing(module: str, line: str) -> None:
        def source(name: str) -> str:
            text = real(name)
            if name != module:
                return text
            lines = text.splitlines(keepends=True)
            docstring = ast.parse(text).body[0]  # the line goes right after the docstring
            return "".join([*lines[: docstring.end_lineno], line, *lines[docstring.end_lineno :]])

        assert line in source(module) and line not in real(module), (module, line)
        monkeypatch.setattr(starters, "reference_source", source)

    importing("ledger", "from .models import LedgerRow\n")
    with pytest.raises(LabMarkError, match=r"imports course_lib\.chapter\.models relatively"):
        practice_modules()
    importing("groups", "from .sessions import path_to\n")
    with pytest.raises(LabMarkError, match=r"import it as course_lib\.chapter\.sessions"):
        practice_modules()
    importing("entries", "from .labs import LabNotImplemented\n")  # given too: never copied
    with pytest.raises(LabMarkError, match=r"import it as course_lib\.chapter\.labs"):
        practice_modules()
    importing("budget", "from .nowhere import x\n")
    with pytest.raises(LabMarkError, match=r"course_lib\.chapter\.nowhere, which is not a plain"):
        practice_modules()
    importing("budget", "from ..base.errors import BudgetError\n")
    with pytest.raises(LabMarkError, match="imports from outside the chapter relatively"):
        practice_modules()
    monkeypatch.undo()
    assert practice_modules() == list(PRACTICE_ROOTS)


def test_starter_replaces_each_region_body_by_its_exact_raise() -> None:
    for module in practice_modules():
        starter = starter_text(module)
        compile(starter, f"{module}.py", "exec")
        check_rule_header(starter, module)
        regions = find_regions(starter, module)
        lines = starter.splitlines()
        for region in regions:
            message = not_implemented_message(region.lab)
            assert region.body(lines) == [f'{region.indent}raise LabNotImplemented("{message}")']
        assert lines.count(LABS_IMPORT) == 1, module
        zh = starter_text(module, "zh")
        compile(zh, f"{module}.py", "exec")
        check_rule_header(zh, module, "zh")
    assert not_implemented_message("11.1") == "Lab 11.1 compaction entry is not implemented yet"
    topics = [not_implemented_message(lab).split(" is ")[0] for lab in LABS]
    assert topics == [
        "Lab 11.1 compaction entry",
        "Lab 11.2 interaction groups",
        "Lab 11.3 budget projection",
        "Lab 11.4 create compaction",
        "Lab 11.5 resume compaction",
        "Lab transfer budget ledger",
    ]


def course_lib_imports(body: list[ast.stmt]) -> list[ast.ImportFrom]:
    """A module ``body``'s absolute ``from course_lib.… import`` statements, in order."""
    return [
        node
        for node in body
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and (node.module or "").startswith("course_lib.")
    ]


def test_the_labs_import_goes_where_isort_puts_it() -> None:
    """Among the ``course_lib`` imports in name order, in their block, with no blank line added."""
    for module in practice_modules():
        starter = starter_text(module)
        body = ast.parse(starter).body
        ours = course_lib_imports(body)
        names = [node.module or "" for node in ours]
        assert names.count("course_lib.chapter.labs") == 1, (module, names)
        assert names == sorted(names), (module, names)
        (labs_import,) = [node for node in ours if node.module == "course_lib.chapter.labs"]
        assert [alias.name for alias in labs_import.names] == ["LabNotImplemented"], module
        assert starter.splitlines()[labs_import.lineno - 1] == LABS_IMPORT, module
        # One block: consecutive statements on consecutive lines, the labs import inside it.
        where = [body.index(node) for node in ours]
        assert where == list(range(where[0], where[0] + len(where))), module
        for before, after in pairwise(ours):
            assert after.lineno == (before.end_lineno or 0) + 1, (module, after.module)

    # Where the rule puts it: before the first course_lib import that sorts after it,
    # else after the last one; a module importing nothing from course_lib is a mark error.
    before_models = (
        "from course_lib.base.errors import A\n"
        "from course_lib.chapter.models import (\n    B,\n)\n"
        "\n"
        "from .groups import c\n"
    )
    assert starters._insert_labs_import(before_models, "x.py") == before_models.replace(
        "from course_lib.chapter.models", LABS_IMPORT + "\nfrom course_lib.chapter.models", 1
    )
    after_all = (
        "from course_lib.base.errors import A\n"
        "from course_lib.chapter.fixture import (\n    B,\n)\n"
        "\n"
        "x = 1\n"
    )
    assert starters._insert_labs_import(after_all, "x.py") == after_all.replace(
        "    B,\n)\n", "    B,\n)\n" + LABS_IMPORT + "\n", 1
    )
    with pytest.raises(LabMarkError, match=r"x\.py: imports nothing from course_lib"):
        starters._insert_labs_import("import os\n\nfrom .groups import c\n", "x.py")


def test_every_lab_filled_in_gives_back_the_reference_module() -> None:
    """Remove the header and the one import line the starter adds: the reference, byte for byte."""
    for module in practice_modules():
        solved = solution_text(module, LABS)
        check_rule_header(solved, module)
        header, rest = solved.split("\n", 1)  # the header is one line
        assert header == labs_header(sorted({r.lab for r in find_regions(solved, module)}))
        reference = reference_source(module)
        assert rest.splitlines().count(LABS_IMPORT) == 1, module
        assert rest.replace(LABS_IMPORT + "\n", "", 1) == reference, module
        assert "LabNotImplemented(" not in rest, module


def test_broken_marks_are_errors_naming_the_line() -> None:
    begin, end = begin_mark("11.2"), end_mark("11.2")
    cases = {
        "never closed": (f"x = 1\n{begin}\npass\n", "line 2", "never closed"),
        "nested": (f"{begin}\n{begin}\n{end}\n", "line 2", end),
        "stray end": (f"pass\n{end}\n", "line 2", "no matching begin"),
        "other lab's end": (f"{begin}\npass\n{end_mark('11.3')}\n", "line 3", "no matching"),
        "indent": (f"def f():\n    {begin}\n    pass\n{end}\n", "line 4", "indented"),
        "malformed": ("# --- Lab 11.2 begin ---\n", "line 1", "malformed"),
        "typo": ("    # --- Lab 11.2 end ---\npass\n", "line 1", "malformed"),
    }
    for name, (text, line, words) in cases.items():
        with pytest.raises(LabMarkError) as caught:
            find_regions(text, "groups.py")
        message = str(caught.value)
        assert message.startswith(f"groups.py: {line}: ") and words in message, (name, message)
        assert isinstance(caught.value, CourseError)


def test_replacing_bodies_reindents_and_keeps_everything_else() -> None:
    text = (
        "def f():\n"
        '    """Doc."""\n'
        f"    {begin_mark('11.2')}\n"
        "    old()\n"
        f"    {end_mark('11.2')}\n"
        "\n"
        f"{begin_mark('11.3')}\n"
        "other = 1\n"
        f"{end_mark('11.3')}\n"
    )
    replaced = replace_region_bodies(text, "11.2", [["if a:", "    b()", "", "c()"]], "x.py")
    assert replaced == text.replace("    old()\n", "    if a:\n        b()\n\n    c()\n")
    with pytest.raises(LabMarkError, match=r"x\.py: expected 2 Lab 11\.2 region\(s\), found 1"):
        replace_region_bodies(text, "11.2", [["a()"], ["b()"]], "x.py")


# --- the generated package, in process --------------------------------------------------


@pytest.fixture(scope="module")
def starter_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_package(tmp_path_factory, "starter")


@pytest.fixture(scope="module")
def starter(starter_dir: Path) -> ModuleType:
    return load_practice_package(starter_dir)


def test_package_exports_course_libs_own_objects_and_its_own_rules(
    starter: ModuleType, starter_dir: Path
) -> None:
    rules = chapter_exports()
    rule_names = {name for names in rules.values() for name in names}
    assert set(rules) == set(PRACTICE_ROOTS)  # every rule module exports a rule
    assert len(starter.__all__) == len(set(starter.__all__))
    assert starter.__all__ == course_lib.__all__  # the given part's names and the rules' names
    assert "LabNotImplemented" in course_lib.__all__
    assert rule_names <= set(course_lib.__all__)
    for name in ["parse_session_entry", "group_interactions", "build_context", "plan_budget"]:
        assert name in rule_names
    for name in ["create_compaction_entry", "render_summary", "budget_ledger", "ledger_from_plan"]:
        assert name in rule_names

    # The given part is the very objects of course_lib: one set of types, stores and errors.
    given = set(course_lib.__all__) - rule_names
    for name in sorted(given):
        assert getattr(starter, name) is getattr(course_lib, name), name
    for name in ["MessageEntry", "CompactionEntry", "CompactionError", "InMemorySessionStore"]:
        assert name in given
    for name in ["chapter_fixture", "fixture_estimator", "path_to", "current_system_message"]:
        assert name in given
    assert starter.MessageEntry is models.MessageEntry
    assert starter.CompactionError is course_lib.CompactionError
    # LabNotImplemented is given too: one class, defined once in course_lib.chapter.labs.
    assert "LabNotImplemented" in given
    assert starter.LabNotImplemented is course_lib.LabNotImplemented is LabNotImplemented
    assert LabNotImplemented.__module__ == "course_lib.chapter.labs"
    assert issubclass(starter.LabNotImplemented, NotImplementedError)
    assert not issubclass(starter.LabNotImplemented, ValueError)
    for module in PRACTICE_ROOTS:  # what every rule module raises is that very class
        assert getattr(starter, module).LabNotImplemented is LabNotImplemented, module

    # The rules are the package's own functions, defined in its own modules.
    directory = starter_dir.resolve()
    for module, names in rules.items():
        own = getattr(starter, module)
        assert own.__name__ == f"{starter.__name__}.{module}"
        assert Path(own.__file__ or "") == directory / f"{module}.py"
        for name in names:
            function = getattr(starter, name)
            assert function is getattr(own, name), name
            assert function is not getattr(course_lib, name), name
            assert function.__module__ == own.__name__, name
            assert Path(function.__code__.co_filename) == directory / f"{module}.py", name
    # A copied rule module reads the shared types, and calls its siblings in the package.
    assert starter.budget.BudgetPlan is models.BudgetPlan
    assert starter.groups.InteractionGroup is models.InteractionGroup
    assert starter.entries.CompactionEntry is models.CompactionEntry
    assert starter.budget.split_interactions is starter.groups.split_interactions
    assert starter.compaction.parse_session_entry is starter.entries.parse_session_entry
    assert starter.ledger.plan_budget is starter.budget.plan_budget
    # The entry dispatch is given (models); the package's parser passes it its own Lab 11.1 rule.
    assert starter.entries.validate_entry is models.validate_entry
    assert "def validate_entry" not in (starter_dir / "entries.py").read_text(encoding="utf-8")
    assert "validate_entry(fresh_wire_dict(value), parse_compaction)" in inspect.getsource(
        starter.entries.parse_session_entry
    )
    for name in GIVEN_CHAPTER_MODULES:
        assert not hasattr(starter, name), name  # never copied, so no submodule of that name

    assert sorted(path.name for path in starter_dir.glob("*.py")) == sorted(
        [*(f"{module}.py" for module in PRACTICE_ROOTS), "__init__.py"]
    )
    assert sorted(path.name for path in starter_dir.glob("*.py")) == sorted(practice_files())
    for path in starter_dir.glob("*.py"):
        if path.stem in PRACTICE_ROOTS:
            check_rule_header(path.read_text(encoding="utf-8"), path.name)

    # __init__.py: header, docstring (the check and doctest commands), the given part, the rules.
    init = (starter_dir / "__init__.py").read_text(encoding="utf-8")
    lines = init.splitlines()
    assert lines[0] == HEADER_GIVEN and lines[1].startswith('"""')
    docstring = ast.get_docstring(ast.parse(init)) or ""
    assert "course-lab check 11.3 --impl <dir>" in docstring
    assert "python -m pytest --doctest-modules <dir>" in docstring
    after_docstring = lines[(ast.parse(init).body[0].end_lineno or 0) :]
    assert after_docstring == [
        "",
        "from course_lib import *  # noqa: F403 (the given part)",
        "from course_lib import __all__",
        "",
        *(
            f"from .{module} import {', '.join(sorted(rules[module]))}  # noqa: F401 (yours)"
            for module in sorted(PRACTICE_ROOTS)
        ),
    ]
    assert "from .entries import parse_session_entry  # noqa: F401 (yours)" in lines


def test_lab_not_implemented_is_never_mistaken_for_a_validation_error(
    starter: ModuleType, tmp_path: Path
) -> None:
    error = starter.LabNotImplemented
    assert issubclass(error, NotImplementedError)  # Python's own "not written yet"
    assert not issubclass(error, ValueError)
    assert not issubclass(error, starter.CourseError)
    assert not issubclass(error, course_lib.CourseError)

    after = starter.chapter_fixture_after_compaction()
    compaction = after[10]
    assert compaction.type == "compaction"
    # A store bound to the package's parser: the unwritten Lab 11.1 is never a refused entry.
    store = starter.InMemorySessionStore(parser=starter.parse_session_entry)
    for entry in starter.chapter_fixture():
        store.append(entry)
    with pytest.raises(error, match=not_implemented_message("11.1")):
        store.append(compaction)
    assert len(store.entries()) == 10  # nothing half-written

    # Reopening a file that holds a compaction reaches the same parser, and the same error.
    reference = course_lib.JsonlSessionStore.open(tmp_path / "s.jsonl")
    for entry in after:
        reference.append(entry)  # the workbook's own parser knows the compaction
    assert len(course_lib.InMemorySessionStore().entries()) == 0
    with pytest.raises(error, match=not_implemented_message("11.1")):
        starter.JsonlSessionStore.open(tmp_path / "s.jsonl", parser=starter.parse_session_entry)


def test_starter_keeps_every_layer_the_labs_build_on(starter: ModuleType, tmp_path: Path) -> None:
    path = starter.chapter_fixture()
    replay = [entry.message for entry in starter.system_replay_fixture() if entry.type == "message"]
    assert starter.current_system_prompt(replay) == "BASE\n\nPrefer small diffs.\n\nRULE v2"
    assert starter.text_of(path[1].message) == "Check the session recovery logic."

    note = starter.parse_session_entry(
        {
            "id": "meta-1",
            "parentId": "a3",
            "timestamp": 11,
            "type": "metadata",
            "key": "k",
            "value": [1],
        }
    )
    assert type(note) is starter.MetadataEntry is models.MetadataEntry
    with pytest.raises(starter.SessionEntryError, match="meta-2: key: "):
        starter.parse_session_entry({**note.to_wire(), "id": "meta-2", "key": "  "})
    parser = starter.parse_session_entry
    memory = starter.InMemorySessionStore(parser=parser)
    jsonl = starter.JsonlSessionStore.open(tmp_path / "s.jsonl", parser=parser)
    for store in (memory, jsonl):
        for entry in [*path, note]:
            store.append(entry)
        with pytest.raises(starter.SessionStoreError, match="meta-1"):
            store.append(note)
    reopened = starter.JsonlSessionStore.open(tmp_path / "s.jsonl", parser=parser)
    assert reopened.entries() == memory.entries() == [*path, note]
    assert [entry.id for entry in starter.path_to(reopened.entries(), "meta-1")][-2:] == [
        "a3",
        "meta-1",
    ]

    unfinished: list[tuple[str, object]] = [
        (
            "11.1",
            lambda: starter.parse_session_entry(starter.chapter_fixture_after_compaction()[10]),
        ),
        ("11.2", lambda: starter.group_interactions(path)),
        ("11.2", lambda: starter.groups.record_tool_facts(path[2], {}, {})),
        ("11.2", lambda: starter.groups.check_tool_pairs({}, {})),
        ("11.3", lambda: starter.budget.replay_system(path)),
        (
            "11.4",
            lambda: starter.create_compaction_entry(
                path,
                id="compact-1",
                timestamp=100,
                summary=starter.fixture_summary(),
                first_kept_entry_id="u2",
                tokens_before=29,
            ),
        ),
        ("11.5", lambda: starter.render_summary(starter.fixture_summary())),
        # The region raises before it reads its plan, so no plan is needed to see it.
        ("transfer", lambda: starter.ledger.ledger_from_plan(None)),
    ]
    for lab, call in unfinished:
        with pytest.raises(starter.LabNotImplemented) as caught:
            call()  # type: ignore[operator]
        assert str(caught.value) == not_implemented_message(lab)
    # Lab 11.2 groups message entries only: anything else is refused before its region.
    with pytest.raises(starter.InteractionError, match="entry meta-1: a metadata entry"):
        starter.group_interactions([*path, note])


def test_impl_switches_course_lib_to_the_practice_package_and_back(
    starter: ModuleType,
) -> None:
    """What ``--impl`` does before the wider suite is imported (see tests/conftest.py)."""
    reference = {
        name: module for name, module in sys.modules.items() if name.startswith("course_lib")
    }
    names = dict(vars(course_lib))
    chapter_names = dict(vars(course_lib.chapter))
    session_names = dict(vars(sessions))
    codec = sessions.SESSION_ENTRIES
    # This run has no --impl: the package's own build_context, the chapter's steps in one walk.
    assert course_lib.build_context.__module__ == "course_lib.beyond.one_pass"

    replaced = _switch_course_lib_to(starter)
    try:
        assert set(sys.modules) >= set(reference)
        assert {n for n in set(sys.modules) - set(reference) if n.startswith("course_lib")} == set()
        for module in PRACTICE_ROOTS:
            practice = getattr(starter, module)
            assert sys.modules[f"course_lib.chapter.{module}"] is practice
            assert importlib.import_module(f"course_lib.chapter.{module}") is practice
            assert getattr(course_lib.chapter, module) is practice
        for module in [*GIVEN_CHAPTER_MODULES, "base.wire", "base.errors", "base.stores"]:
            name = f"course_lib.{module}" if "." in module else f"course_lib.chapter.{module}"
            assert sys.modules[name] is reference[name], name  # given: the reference's own
        assert course_lib.build_context is starter.build_context
        assert course_lib.build_context.__module__ == f"{starter.__name__}.budget"
        for names_of in chapter_exports().values():
            for name in names_of:
                assert getattr(course_lib, name) is getattr(starter, name), name
        for name in ["CompactionEntry", "CourseError", "InMemorySessionStore", "chapter_fixture"]:
            assert getattr(course_lib, name) is getattr(starter, name) is names[name], name
        # The stores read through the package's parser: SESSION_ENTRIES is rebuilt on it.
        assert sessions.SESSION_ENTRIES.parse is starter.parse_session_entry
        assert sessions.parse_session_entry is starter.parse_session_entry
        assert sessions.session_codec() is sessions.SESSION_ENTRIES
        store = course_lib.InMemorySessionStore()
        with pytest.raises(starter.LabNotImplemented, match=not_implemented_message("11.1")):
            store.append(course_lib.chapter_fixture_after_compaction()[10])
        with pytest.raises(starter.LabNotImplemented, match=not_implemented_message("11.2")):
            course_lib.group_interactions(course_lib.chapter_fixture())
    finally:
        _switch_back(replaced)

    now = {name: module for name, module in sys.modules.items() if name.startswith("course_lib")}
    assert now == reference
    assert vars(course_lib) == names
    assert vars(course_lib.chapter) == chapter_names
    assert vars(sessions) == session_names
    assert sessions.SESSION_ENTRIES is codec
    assert course_lib.build_context.__module__ == "course_lib.beyond.one_pass"


NOTE_FROM = "from collections.abc import Sequence\n"
NOTE_TO = "from collections.abc import Sequence  # my note\n"


def test_solution_changes_only_that_labs_regions(tmp_path: Path) -> None:
    directory = tmp_path / "ch11"
    write_practice_package(directory)
    budget = directory / "budget.py"
    text = budget.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    select = next(i for i, line in enumerate(lines) if line.startswith("def select_newest_groups("))
    (region,) = [  # the student writes the selection: the first Lab 11.3 region after its def
        r for r in find_regions(text, "budget.py") if r.lab == "11.3" and r.begin > select
    ][:1]
    lines[region.begin + 1 : region.end] = ["    return 0, 'my own selection'\n"]
    student = "".join(lines)
    student = student.replace(NOTE_FROM, NOTE_TO, 1)
    assert "my own selection" in student and "# my note" in student
    budget.write_text(student, encoding="utf-8")
    groups_before = (directory / "groups.py").read_text(encoding="utf-8")

    restoring = directory / "restoring.py"
    assert fill_solution(directory, "11.5") == [restoring]
    assert restoring.read_text(encoding="utf-8") == solution_text("restoring", ["11.5"])
    assert "Lab 11.5 resume compaction is not implemented yet" not in restoring.read_text(
        encoding="utf-8"
    )
    after = budget.read_text(encoding="utf-8")
    assert after == student  # another lab's module: the student's code kept byte for byte
    assert after.count("Lab 11.3 budget projection is not implemented yet") == 5
    assert (directory / "groups.py").read_text(encoding="utf-8") == groups_before

    assert fill_solution(directory, "11.3") == [budget]
    assert budget.read_text(encoding="utf-8") == solution_text("budget", ["11.3"]).replace(
        NOTE_FROM, NOTE_TO, 1
    )

    (directory / "compaction.py").unlink()
    with pytest.raises(CourseError, match=r"compaction\.py is missing"):
        fill_solution(directory, "11.4")
    with pytest.raises(CourseError, match=r"unknown lab '11\.9'"):
        fill_solution(directory, "11.9")


def test_writing_refuses_an_existing_folder_unless_forced(tmp_path: Path) -> None:
    directory = tmp_path / "ch11"
    write_practice_package(directory)
    (directory / "notes.md").write_text("mine", encoding="utf-8")
    (directory / "groups.py").write_text("broken(", encoding="utf-8")
    with pytest.raises(CourseError, match="already exists; pass --force"):
        write_practice_package(directory)
    write_practice_package(directory, force=True)
    assert (directory / "notes.md").read_text(encoding="utf-8") == "mine"
    assert (directory / "groups.py").read_text(encoding="utf-8") == starter_text("groups")
    empty = tmp_path / "empty"
    empty.mkdir()
    write_practice_package(empty)  # an empty folder needs no --force
    assert (empty / "__init__.py").is_file()


def test_solution_bodies_are_the_reference_regions_at_column_zero() -> None:
    (body,) = solution_bodies("compaction", "11.4")
    assert body[0] == "require_session_entries(active_path)"
    assert body[-1].startswith("return cast(CompactionEntry, parse_session_entry(candidate))")
    first, second, third = solution_bodies("groups", "11.2")  # record, check, split
    assert first[0] == "message = entry.message" and second[0].startswith("for call_id")
    assert third[-1] == "return groups"
    assert len(solution_bodies("budget", "11.3")) == 6
    assert len(solution_bodies("restoring", "11.5")) == 4
    assert solution_bodies("budget", "11.5") == []
    assert solution_bodies("budget", "11.1") == []
    for module in practice_modules():
        for lab in LABS:
            for lines in solution_bodies(module, lab):
                assert not any("type: ignore" in line for line in lines), (module, lab)


# --- running the checks (one pytest subprocess per run) --------------------------------


@pytest.fixture(scope="module")
def fresh_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, LabReport]:
    return by_lab(run_checks(LABS, impl=fresh_package(tmp_path_factory, "fresh")))


def test_fresh_starters_fail_every_check_with_the_labs_message(
    fresh_reports: dict[str, LabReport],
) -> None:
    for lab in LABS:
        report = fresh_reports[lab]
        assert (report.passed, report.total) == (0, CHECK_COUNTS[lab]), lab
    assert fresh_reports["11.1"].summary_line() == "Lab 11.1: 0/3 passed"
    for lab in ["11.1", "11.2", "11.3", "11.4"]:
        for outcome in fresh_reports[lab].outcomes:
            assert "LabNotImplemented" in outcome.detail
            assert not_implemented_message(lab) in outcome.detail, (lab, outcome)
    # Lab 11.5 restores what 11.1, 11.3 and 11.4 build, and its checks reach
    # those first: in a fresh package each one fails with an earlier lab's
    # message (11.5's own shows once 11.1-11.4 are done; see the next test).
    earlier = [not_implemented_message(lab) for lab in ["11.1", "11.3", "11.4"]]
    details = [outcome.detail for outcome in fresh_reports["11.5"].outcomes]
    assert all(any(message in detail for message in earlier) for detail in details), details
    # The transfer exercise reads the plan Lab 11.3 builds: it waits for that first.
    details = [outcome.detail for outcome in fresh_reports["transfer"].outcomes]
    assert all(not_implemented_message("11.3") in detail for detail in details), details


def test_filling_labs_in_order_turns_each_green_and_keeps_earlier_ones_green(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    directory = fresh_package(tmp_path_factory, "in-order")
    for index, lab in enumerate(LABS):
        fill_solution(directory, lab)
        reports = by_lab(run_checks(LABS, impl=directory))
        for done in LABS[: index + 1]:
            assert reports[done].ok, (lab, done, reports[done].outcomes)
        for later in LABS[index + 1 :]:
            assert reports[later].passed == 0, (lab, later, reports[later].outcomes)
        if lab == "11.4":
            for outcome in reports["11.5"].outcomes:
                assert not_implemented_message("11.5") in outcome.detail, outcome
        if lab == "11.5":
            for outcome in reports["transfer"].outcomes:
                assert not_implemented_message("transfer") in outcome.detail, outcome
    assert sum(reports[lab].passed for lab in CHAPTER_LABS) == 15
    assert reports["transfer"].passed == EXERCISE_CHECK_COUNTS["transfer"] == 3


def test_check_names_are_the_lab_files_tests_in_order() -> None:
    for lab, count in CHECK_COUNTS.items():
        names = check_names(lab)
        assert len(names) == len(set(names)) == count, lab
        assert all(name.startswith("test_") for name in names)


def test_every_lab_check_fails_through_the_helpers_that_name_the_case() -> None:
    """No bare ``assert`` or ``pytest.raises`` in any lab's checks: pytest's diff cuts the difference.

    The helpers in ``tests/lab_checks.py`` fail with ``<case>: expected ...,
    got ...``, the one line ``course-lab check`` shows a student.
    """
    for lab in CHECK_COUNTS:
        tree = ast.parse(lab_test_file(lab).read_text(encoding="utf-8"))
        asserts = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
        raises = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in {"raises", "fail"}
        ]
        assert (asserts, raises) == ([], []), lab


def test_a_run_stopped_at_its_time_limit_keeps_the_checks_that_finished(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The grader's mode: an endless loop in Lab 11.2 costs 11.2 onwards, not Lab 11.1."""
    directory = tmp_path_factory.mktemp("endless") / "ch11"
    write_practice_package(directory, solved=LABS)
    groups = directory / "groups.py"
    bodies = [["while True:", "    pass", *body] for body in solution_bodies("groups", "11.2")]
    text = groups.read_text(encoding="utf-8")
    groups.write_text(replace_region_bodies(text, "11.2", bodies, "groups.py"), encoding="utf-8")

    reports = by_lab(run_checks(LABS, impl=directory, timeout=3))

    assert all(report.timed_out for report in reports.values())
    assert reports["11.1"].ok
    assert [(lab, r.passed, r.total) for lab, r in reports.items()] == [
        (lab, 3 if lab == "11.1" else 0, count) for lab, count in CHECK_COUNTS.items()
    ]
    details = [o.detail for lab in LABS[1:] for o in reports[lab].outcomes]
    assert details[0] == "Timeout: did not finish within the time limit; look for an endless loop"
    assert set(details[1:]) == {"Timeout: not run, the checks were stopped at the time limit"}
    assert [o.name for o in reports["11.2"].outcomes] == check_names("11.2")


# --- what the package is, and what its doctests run ------------------------------------


def _innermost_function(functions: list[ast.FunctionDef], line: int) -> ast.FunctionDef | None:
    owners = [f for f in functions if f.lineno < line < (f.end_lineno or 0)]
    return min(owners, key=lambda f: (f.end_lineno or 0) - f.lineno) if owners else None


def test_the_package_holds_rule_functions_only_and_each_region_is_a_whole_body(
    starter_dir: Path,
) -> None:
    """No class at all in a fresh package (``LabNotImplemented`` is ``course_lib``'s); the rule
    modules hold functions only, each with its docstring, and a region is its function's whole
    body (the docstring apart).
    """
    classes: list[tuple[str, str]] = []
    modules_of: dict[str, set[str]] = {}
    for path in sorted(starter_dir.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        classes += [(path.name, n.name) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
        if path.stem not in PRACTICE_ROOTS:
            continue
        # A rule module: its docstring, its imports, then functions (no class, no constant).
        docstring, *rest = tree.body
        assert isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
        imports = [node for node in rest if isinstance(node, ast.Import | ast.ImportFrom)]
        functions = [node for node in rest if isinstance(node, ast.FunctionDef)]
        assert rest == imports + functions, (path.name, [type(node).__name__ for node in rest])
        nested = [
            node.lineno
            for function in functions
            for node in ast.walk(function)
            if node is not function and isinstance(node, ast.FunctionDef | ast.Lambda)
        ]
        assert nested == [], path.name
        for function in functions:
            assert ast.get_docstring(function), (path.name, function.name)
        lines = text.splitlines()
        holders: list[str] = []
        for region in find_regions(text, path.name):
            modules_of.setdefault(region.lab, set()).add(path.name)
            function = _innermost_function(functions, region.begin + 1)
            assert function is not None, (path.name, region)
            holders.append(function.name)
            docstring_text = ast.get_docstring(function) or ""
            section = re.search(r"§(\d)", docstring_text)  # its section, titled in the module
            assert section, (path.name, function.name)
            assert f"Chapter 11 §{section[1]} 「" in text, (path.name, function.name)
            body = function.body[1:]  # every function has its docstring first
            # The mark opens right after the docstring and closes after the last statement.
            assert body[0].lineno == region.begin + 2, (path.name, function.name)
            assert lines[region.begin - 1].strip().endswith('"""'), (path.name, function.name)
            assert lines[region.end] == function.body[0].col_offset * " " + end_mark(region.lab)
            assert (function.end_lineno or 0) == region.end, (path.name, function.name)
        assert len(holders) == len(set(holders)), path.name  # one region per function
    assert classes == []
    assert all(len(modules) == 1 for modules in modules_of.values()), modules_of
    assert sorted(modules_of) == sorted(LAB_TOPICS)


def test_the_doctests_pass_once_solved_and_exercise_the_packages_own_functions(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """``python -m pytest --doctest-modules <package>``, where the student runs it."""
    solved = tmp_path_factory.mktemp("doctests-solved") / "ch11"
    write_practice_package(solved, solved=LABS)
    run = run_doctests(solved)
    outcomes = doctest_outcomes(run.stdout, "ch11")
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(outcomes) >= MIN_DOCTESTS, run.stdout
    assert set(outcomes.values()) == {"PASSED"}, outcomes
    assert re.search(rf"\b{len(outcomes)} passed\b", run.stdout), run.stdout
    for name in outcomes:  # each a docstring of one of the package's own rule functions
        module, _, function = name.partition(".")
        assert module in PRACTICE_ROOTS and function, name
        assert f"def {function}(" in (solved / f"{module}.py").read_text(encoding="utf-8"), name

    fresh = tmp_path_factory.mktemp("doctests-fresh") / "ch11"
    write_practice_package(fresh)
    run = run_doctests(fresh)
    assert run.returncode != 0, run.stdout
    assert "LabNotImplemented" in run.stdout, run.stdout
    # Every doctest reaches a region of the package, so each waits for the student's code:
    # they run the package's functions, never the workbook's (which would pass).
    assert doctest_outcomes(run.stdout, "ch11") == dict.fromkeys(outcomes, "FAILED"), run.stdout


def test_the_practice_package_is_at_most_its_line_limit(starter_dir: Path) -> None:
    """What a student reads: every ``.py`` file of a fresh package, together."""
    counts = {
        path.name: len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(starter_dir.glob("*.py"))
    }
    total = sum(counts.values())
    assert counts.keys() == practice_files().keys()
    assert total <= PRACTICE_PACKAGE_LINE_LIMIT, (
        f"the fresh practice package is {total} lines "
        f"(limit {PRACTICE_PACKAGE_LINE_LIMIT}): {counts}"
    )
