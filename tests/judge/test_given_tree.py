"""``course_lib.judge.given_tree``: the only ``course_lib`` a judged package can import.

Why: a submission that could import the reference's rules
(``course_lib.chapter.budget``) would score the reference's marks, and one
that could read the checks, the hidden cases or the grader would know what is
asked. So the given tree must hold no rule module and none of those, yet still
be a working ``course_lib``: importable on its own in a fresh interpreter,
``from course_lib import *`` for a practice package, and the rule server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from course_lib.judge.given_tree import build_given_tree
from course_lib.track.starters import chapter_exports

RULE_MODULES = ["budget", "groups", "entries", "compaction", "restoring", "ledger", "sessions"]
RULE_NAMES = sorted(name for names in chapter_exports().values() for name in names)

PROBE = """
import json
import course_lib
from course_lib import *
import course_lib.judge.rule_server
from course_lib.judge.codec import given_types

try:
    import course_lib.chapter.budget
except ModuleNotFoundError as error:
    budget = f"ModuleNotFoundError: {error.name}"
else:
    budget = "imported"
print(json.dumps({
    "file": course_lib.__file__,
    "all": list(course_lib.__all__),
    "star": sorted(name for name in dir() if not name.startswith("_")),
    "budget": budget,
    "types": sorted(given_types()),
}))
"""


@pytest.fixture(scope="module")
def given(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_given_tree(tmp_path_factory.mktemp("given"))


@pytest.fixture(scope="module")
def probed(given: Path) -> dict[str, Any]:
    """What a fresh interpreter, with only the given tree on its path, finds in it."""
    done = subprocess.run(
        [sys.executable, "-P", "-c", PROBE],
        env={**os.environ, "PYTHONPATH": str(given)},
        cwd=given,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_build_given_tree_returns_its_target(tmp_path: Path) -> None:
    assert build_given_tree(tmp_path) == tmp_path
    assert (tmp_path / "course_lib" / "__init__.py").is_file()


@pytest.mark.parametrize("module", RULE_MODULES)
def test_no_rule_module_is_given(given: Path, module: str) -> None:
    assert (given / "course_lib" / "chapter" / "models.py").is_file()
    assert not (given / "course_lib" / "chapter" / f"{module}.py").exists()


@pytest.mark.parametrize(
    "part",
    ["tests", "track", "grading", "judge/remote.py", "judge/given_tree.py"],
)
def test_no_check_hidden_case_or_grader_is_given(given: Path, part: str) -> None:
    assert (given / "course_lib" / "judge" / "practice.py").is_file()  # the loader is
    assert not (given / part).exists()
    assert not (given / "course_lib" / part).exists()


def test_the_given_files_are_what_the_judged_side_needs(given: Path) -> None:
    package = given / "course_lib"
    for part in [
        "errors.py",
        "base/messages.py",
        "chapter/fixture.py",
        "chapter/labs.py",
        "judge/rule_server.py",
        "judge/codec.py",
        "judge/frames.py",
        "judge/confinement.py",
    ]:
        assert (package / part).is_file(), part
    assert list((package / "chapter" / "data").glob("*.jsonl"))
    assert not (package / "judge" / "remote.py").exists()
    assert not (package / "judge" / "given_tree.py").exists()


def test_a_fresh_interpreter_imports_the_given_tree_not_the_installed_one(
    given: Path, probed: dict[str, Any]
) -> None:
    assert Path(probed["file"]).resolve().is_relative_to(given.resolve())


def test_the_reference_rules_cannot_be_imported_from_the_given_tree(
    probed: dict[str, Any],
) -> None:
    assert probed["budget"] == "ModuleNotFoundError: course_lib.chapter.budget"


def test_the_given_all_names_no_rule(probed: dict[str, Any]) -> None:
    assert probed["all"]
    assert not set(probed["all"]) & set(RULE_NAMES)
    assert not set(probed["star"]) & set(RULE_NAMES)


def test_the_given_all_keeps_what_a_practice_package_imports(probed: dict[str, Any]) -> None:
    for name in ["MessageEntry", "BudgetError", "LabNotImplemented", "chapter_fixture", "text_of"]:
        assert name in probed["all"], name
        assert name in probed["star"], name


def test_every_type_that_may_cross_is_given(probed: dict[str, Any]) -> None:
    from course_lib.judge.codec import given_types

    assert probed["types"] == sorted(given_types())
