"""``course-lab practice | check | solution``: what a student types and what they see.

Exit statuses are part of the contract (0 all passed, 1 a check failed, 2 bad
input), and bad input is always one line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from course_lib.base.errors import CourseError
from course_lib.tools.cli import _COMMAND_MODULES, main
from course_lib.tools.track_commands import _grade_labs
from course_lib.track import catalogue, checks
from course_lib.track.checks import (
    EXTENDED_KEYWORDS,
    EXTENDED_TEST_MODULES,
    extended_test_files,
    resolve_labs,
)
from course_lib.track.language import LANGUAGE_FILE
from course_lib.track.starters import write_practice_package


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def test_track_commands_are_registered() -> None:
    assert "course_lib.tools.track_commands" in _COMMAND_MODULES


def test_practice_writes_refuses_and_forces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "practice", "11")
    assert (status, err) == (0, "")
    default = tmp_path / "practice" / "ch11"
    rules = ["entries", "groups", "budget", "compaction", "restoring", "ledger"]
    # Exactly __init__.py and the six rule modules (no labs.py: LabNotImplemented is given).
    assert sorted(path.name for path in default.glob("*.py")) == sorted(
        ["__init__.py", *(f"{module}.py" for module in rules)]
    )
    assert {path.name for path in default.iterdir() if path.suffix != ".py"} == {LANGUAGE_FILE}
    assert "course-lab check 11.1 --impl practice/ch11" in out

    (default / "groups.py").write_text("# my half-finished work\n", encoding="utf-8")
    status, out, err = run(capsys, "practice", "11")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("course-lab: error: ")
    assert "already exists; pass --force" in err

    status, _, err = run(capsys, "practice", "11", "practice/ch11", "--force")
    assert (status, err) == (0, "")
    assert "LabNotImplemented" in (default / "groups.py").read_text(encoding="utf-8")


def test_a_package_in_another_language_is_named_with_the_command_that_rewrites_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An English package, then ``--lang zh`` in the same folder: not a bare "already exists"."""
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "practice", "11")[0] == 0
    entries = (tmp_path / "practice" / "ch11" / "entries.py").read_text(encoding="utf-8")

    status, out, err = run(capsys, "practice", "11", "--lang", "zh")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("course-lab: error: ")
    assert "--lang en" in err and "already exists" not in err
    assert "`course-lab practice 11 practice/ch11 --lang zh --force`" in err
    assert (tmp_path / "practice" / "ch11" / "entries.py").read_text(encoding="utf-8") == entries

    status, _, err = run(capsys, "practice", "11", "--lang", "zh", "--force")
    assert (status, err) == (0, "")  # the command the message gives does it


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("cli") / "p"
    assert main(["practice", "11", str(directory)]) == 0
    return directory


def test_check_goes_from_red_to_green(package: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "check", "11.1", "--impl", str(package))
    assert (status, err) == (1, "")
    assert last_line(out) == "Lab 11.1: 0/3 passed"
    rows = [line for line in out.splitlines() if line.startswith("  FAIL  ")]
    assert len(rows) == 3
    for row in rows:
        assert row.endswith(
            " -- LabNotImplemented: Lab 11.1 compaction entry is not implemented yet"
        )

    # The wider suite for Lab 11.1 runs against the package too, and fails the same way.
    status, out, err = run(capsys, "check", "11.1", "--impl", str(package), "--extended")
    assert (status, err) == (1, "")
    assert last_line(out) == "Lab 11.1: 0/3 passed"
    _, wider = out.split(
        "Lab 11.1 extended suite (tests/chapter/test_entries.py, tests/chapter/test_stores.py):\n"
    )
    found = re.search(r"^Lab 11\.1 extended: (\d+)/(\d+) passed$", wider, re.MULTILINE)
    assert found is not None, wider
    passed, total = int(found[1]), int(found[2])
    assert 0 < passed < total  # the message layers below Lab 11.1 are given
    rows = [line for line in wider.splitlines() if line.startswith("  FAIL  ")]
    assert len(rows) == total - passed
    for row in rows:
        assert row.endswith(
            " -- LabNotImplemented: Lab 11.1 compaction entry is not implemented yet"
        ), row
    assert f"  ({passed} passing tests not listed)" in wider.splitlines()

    status, out, _ = run(capsys, "solution", "11.1", str(package))
    assert status == 0 and "entries.py" in out
    status, out, _ = run(capsys, "check", "11.1", "--impl", str(package))
    assert status == 0 and last_line(out) == "Lab 11.1: 3/3 passed"
    assert out.count("  PASS  ") == 3

    for lab in ["11.2", "11.3", "11.4", "11.5"]:
        assert main(["solution", lab, str(package)]) == 0
    capsys.readouterr()
    status, out, _ = run(capsys, "check", "11", "--impl", str(package))
    assert status == 0 and last_line(out) == "Chapter 11: 15/15 passed"
    for lab, count in catalogue.LAB_CHECK_COUNTS.items():
        assert f"Lab {lab}: {count}/{count} passed" in out.splitlines()
    assert "transfer" not in out  # the chapter's 15 leave the transfer exercise out

    # The transfer exercise: a blank region of its own, checked on its own.
    assert "Lab transfer budget ledger is not implemented yet" in (package / "ledger.py").read_text(
        encoding="utf-8"
    )
    status, out, _ = run(capsys, "check", "transfer", "--impl", str(package))
    assert status == 1 and last_line(out) == "Lab transfer: 0/3 passed"
    assert out.splitlines()[0].startswith("Lab transfer budget ledger: checks against ")
    assert (
        out.count(" -- LabNotImplemented: Lab transfer budget ledger is not implemented yet") == 3
    )
    status, out, _ = run(capsys, "solution", "transfer", str(package))
    assert status == 0 and "ledger.py" in out
    status, out, _ = run(capsys, "check", "transfer", "--impl", str(package))
    assert status == 0 and last_line(out) == "Lab transfer: 3/3 passed"


def test_a_folder_whose_name_is_not_utf8_is_checked_like_any_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / os.fsdecode(b"ch\xe911")  # stray bytes, as a copied folder may have
    assert main(["practice", "11", str(directory)]) == 0
    capsys.readouterr()
    status, out, err = run(capsys, "check", "11.1", "--impl", str(directory))
    assert (status, err) == (1, "")
    assert last_line(out) == "Lab 11.1: 0/3 passed"


def test_a_failing_check_shows_its_case_and_exit_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "p"
    write_practice_package(directory, solved=["11.1", "11.2", "11.3"])
    budget = directory / "budget.py"
    text = budget.read_text(encoding="utf-8")
    wrong = text.replace(
        'return first, "trimmed" if first > 0 else "within_budget"', "return first, 'trimmed'"
    )
    assert wrong != text
    budget.write_text(wrong, encoding="utf-8")

    status, out, _ = run(capsys, "check", "11", "--impl", str(directory))

    assert status == 1 and last_line(out) == "Chapter 11: 8/15 passed"
    assert "Lab 11.3: 2/3 passed" in out.splitlines()
    (row,) = [line for line in out.splitlines() if line.startswith("  FAIL  test_trimming")]
    # The case comes first, then what was expected and what came, with their labels.
    assert row.startswith(
        "  FAIL  test_trimming_happens_only_at_group_boundaries_with_isolated_results -- "
        "build_context(fixture, max_tokens=40, reserved_output=4, safety_margin=2): "
        "expected reason within_budget, got reason trimmed; hint: "
    ), row


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("solved") / "p"
    write_practice_package(directory, solved=list(catalogue.LAB_TOPICS))
    return directory


def test_every_lab_passes_its_extended_suite_once_solved(
    capsys: pytest.CaptureFixture[str], solved: Path
) -> None:
    status, out, err = run(capsys, "check", "11", "--extended", "--impl", str(solved))
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert last_line(out) == "Chapter 11: 15/15 passed"
    for lab, count in catalogue.LAB_CHECK_COUNTS.items():
        assert f"Lab {lab}: {count}/{count} passed" in lines
        (line,) = [line for line in lines if line.startswith(f"Lab {lab} extended: ")]
        found = re.fullmatch(rf"Lab {lab} extended: (\d+)/(\d+) passed", line)
        assert found is not None and found[1] == found[2] and int(found[1]) > 0, line
    assert not [line for line in lines if line.startswith(("  FAIL", "  WAIT", "  (left out"))]

    status, out, err = run(capsys, "check", "transfer", "--extended", "--impl", str(solved))
    assert (status, err) == (0, "")
    assert "Lab transfer extended suite (tests/chapter/test_ledger.py):" in out.splitlines()
    found = re.search(r"^Lab transfer extended: (\d+)/(\d+) passed$", out, re.MULTILINE)
    assert found is not None and found[1] == found[2] and int(found[1]) > 0, out
    assert last_line(out) == "Lab transfer: 3/3 passed"


def test_extended_modules_exist_and_run_against_a_practice_package() -> None:
    assert list(EXTENDED_TEST_MODULES) == list(catalogue.LAB_TOPICS)
    assert set(EXTENDED_KEYWORDS) <= set(EXTENDED_TEST_MODULES)
    for lab, modules in EXTENDED_TEST_MODULES.items():
        selection = extended_test_files(lab, for_practice=True)
        assert (selection.left_out, selection.not_written) == ([], []), lab
        relative = [
            path.relative_to(checks.tests_directory()).as_posix() for path in selection.files
        ]
        assert relative == list(modules)
        assert selection.keyword == EXTENDED_KEYWORDS.get(lab)
        for path in selection.files:  # the lab_11_N markers belong to the 15 checks only
            assert not path.name.startswith("test_lab_")
            assert "mark.lab_11" not in path.read_text(encoding="utf-8"), path.name


def test_extended_selection_leaves_out_modules_using_what_a_practice_package_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "conftest.py").write_text("", encoding="utf-8")
    chapter = tmp_path / "chapter"
    chapter.mkdir()
    (chapter / "test_fixture_numbers.py").write_text(
        "from course_lib import build_context\nfrom course_lib.base.wire import dumps_line\n\n"
        "def test_a():\n    assert build_context and dumps_line\n",
        encoding="utf-8",
    )
    (chapter / "test_properties.py").write_text(
        "import course_lib\nfrom course_lib import bpe_estimator, build_context\n"
        "from course_lib.beyond.estimators import chars_estimator\n\n"
        "def test_b():\n    assert course_lib.views and bpe_estimator and chars_estimator\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(checks, "tests_directory", lambda: tmp_path)

    practice = extended_test_files("11.3", for_practice=True)
    assert practice.files == [chapter / "test_fixture_numbers.py"]
    assert practice.left_out == [
        "tests/chapter/test_properties.py (uses course_lib.beyond.estimators, "
        "course_lib.bpe_estimator, course_lib.views, which the practice package lacks)"
    ]
    reference = extended_test_files("11.3", for_practice=False)
    assert reference.files == [
        chapter / "test_fixture_numbers.py",
        chapter / "test_properties.py",
    ]
    assert extended_test_files("11.1", for_practice=True).not_written == [
        "tests/chapter/test_entries.py",
        "tests/chapter/test_stores.py",
    ]
    assert extended_test_files("11.2", for_practice=False).keyword == EXTENDED_KEYWORDS["11.2"]


def test_a_test_that_stops_in_a_later_lab_waits_and_is_not_counted(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def unfinished(lab: str) -> str:
        return f"course_lib.chapter.labs.LabNotImplemented: Lab {lab} is not implemented yet"

    wider = [
        {"name": "test_passes", "outcome": "passed", "detail": ""},
        {"name": "test_wrong", "outcome": "failed", "detail": "AssertionError: assert 1 == 2"},
        {"name": "test_own_lab", "outcome": "failed", "detail": unfinished("11.3 budget")},
        {"name": "test_earlier", "outcome": "failed", "detail": unfinished("11.2 groups")},
        {"name": "test_later", "outcome": "failed", "detail": unfinished("11.5 resume")},
        {"name": "test_later_too", "outcome": "failed", "detail": unfinished("11.5 resume")},
        {"name": "test_next", "outcome": "failed", "detail": unfinished("11.4 create")},
    ]
    lab_checks = [{"name": f"test_{n}", "outcome": "passed", "detail": ""} for n in "abc"]

    def fake_run(files: object, *, impl: object, what: str, **_: object) -> checks._Run:
        return checks._Run(rows=wider if "extended" in what else lab_checks)

    monkeypatch.setattr(checks, "_run_pytest", fake_run)
    status, out, _ = run(capsys, "check", "11.3", "--extended")

    assert status == 1
    assert out.splitlines()[-9:] == [
        "Lab 11.3 extended suite "
        "(tests/chapter/test_fixture_numbers.py, tests/chapter/test_properties.py):",
        "  FAIL  test_wrong -- AssertionError: assert 1 == 2",
        "  FAIL  test_own_lab -- LabNotImplemented: Lab 11.3 budget is not implemented yet",
        "  FAIL  test_earlier -- LabNotImplemented: Lab 11.2 groups is not implemented yet",
        "  (1 passing test not listed)",
        "  WAIT  1 test reaches Lab 11.4 create compaction, not written yet: not counted",
        "  WAIT  2 tests reach Lab 11.5 resume compaction, not written yet: not counted",
        "Lab 11.3 extended: 1/4 passed (3 waiting for a later lab)",
        "Lab 11.3: 3/3 passed",
    ]


def test_a_run_pytest_cannot_finish_is_an_error_not_an_empty_pass(tmp_path: Path) -> None:
    broken = tmp_path / "test_broken.py"
    broken.write_text("raise RuntimeError('boom at import')\n", encoding="utf-8")
    with pytest.raises(CourseError, match="could not run: RuntimeError: boom at import"):
        checks.run_extended_checks("11.1", [broken])


def test_resolve_labs() -> None:
    assert resolve_labs("11") == ["11.1", "11.2", "11.3", "11.4", "11.5"]  # the chapter's 15
    assert resolve_labs(" 11.3 ") == ["11.3"]
    assert resolve_labs("transfer") == ["transfer"]
    assert _grade_labs("11,transfer") == [*catalogue.CHAPTER_LABS, "transfer"]
    assert _grade_labs("transfer,11.2") == ["11.2", "transfer"]
    for bad in ["12", "11.6", "11.03", "eleven", ""]:
        with pytest.raises(CourseError, match="unknown lab"):
            resolve_labs(bad)


def syntax_error_package(root: Path) -> Path:
    directory = root / "syntax"
    write_practice_package(directory)
    with (directory / "groups.py").open("a", encoding="utf-8") as handle:
        handle.write("\ndef oops(:\n")
    return directory


def unmarked_package(root: Path) -> Path:
    directory = root / "unmarked"
    write_practice_package(directory)
    groups = directory / "groups.py"
    text = groups.read_text(encoding="utf-8")
    groups.write_text(text.replace("    # --- Lab 11.2: end ---\n", "", 1), encoding="utf-8")
    return directory


def bare_folder(root: Path) -> Path:
    directory = root / "bare"
    directory.mkdir()
    (directory / "notes.md").write_text("not a package", encoding="utf-8")
    return directory


BAD_INPUT = [
    (["check", "12.1"], "unknown lab '12.1'"),
    (["check", "11.9", "--impl", "{root}/p"], "unknown lab '11.9'"),
    (["check", "11.1", "--impl", "{root}/missing"], "does not exist; create it with"),
    (["check", "11.1", "--impl", "{bare}"], "not a practice package (no __init__.py)"),
    (["check", "11.2", "--impl", "{syntax}"], "(groups.py, line "),
    (["practice", "12"], "no practice package for chapter '12'"),
    (["solution", "11.7", "{root}/p"], "unknown lab '11.7'"),
    (["solution", "11.1", "{root}/missing"], "does not exist; create it with"),
    (["solution", "11.1", "{bare}"], "not a practice package (no __init__.py)"),
    (["solution", "11.2", "{unmarked}"], "put back its '# --- Lab 11.2: end ---' line"),
]


@pytest.mark.parametrize(("argv", "words"), BAD_INPUT)
def test_bad_input_is_one_line_and_exit_status_2(
    argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    places = {
        "root": str(tmp_path),
        "bare": str(bare_folder(tmp_path)),
        "syntax": str(syntax_error_package(tmp_path)),
        "unmarked": str(unmarked_package(tmp_path)),
    }
    status, out, err = run(capsys, *(arg.format(**places) for arg in argv))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("course-lab: error: ")
    assert words in err and "Traceback" not in err


def test_a_syntax_error_names_the_file_line_and_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = syntax_error_package(tmp_path)
    status, _, err = run(capsys, "check", "11", "--impl", str(directory))
    assert status == 2
    assert "fails to import (groups.py, line " in err and "SyntaxError: invalid syntax" in err
    assert f"course-lab practice 11 {directory} --force" in err


@pytest.mark.parametrize("command", ["practice", "check", "solution", "grade"])
def test_help_shows_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([command, "--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and f"course-lab {command} " in out


def test_console_entry_point_end_to_end(solved: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "course_lib.tools.cli", "check", "11.4", "--impl", str(solved)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert last_line(completed.stdout) == "Lab 11.4: 2/2 passed"


# --- check --format json ------------------------------------------------------------------

CHECK_KEYS = {"lab", "suite", "name", "outcome", "message", "duration"}


def json_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    status, out, _ = run(capsys, *argv, "--format", "json")
    return status, json.loads(out)


def test_check_json_is_one_object_with_every_check(
    solved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, report = json_run(capsys, "check", "11", "--impl", str(solved))
    assert status == 0
    assert set(report) == {
        "schema", "lab", "target", "passed", "total", "ok", "timed_out", "labs", "checks"
    }  # fmt: skip
    assert report["schema"] == checks.JSON_SCHEMA == "course-lab-check/1"
    assert (report["lab"], report["target"]) == ("11", str(solved))
    assert (report["passed"], report["total"], report["ok"], report["timed_out"]) == (
        15, 15, True, False
    )  # fmt: skip
    assert report["labs"] == [
        {"lab": lab, "topic": catalogue.LAB_TOPICS[lab], "passed": count, "total": count}
        for lab, count in catalogue.LAB_CHECK_COUNTS.items()
    ]
    rows = report["checks"]
    assert isinstance(rows, list) and len(rows) == 15
    assert [row["name"] for row in rows] == [
        name for lab in catalogue.CHAPTER_LABS for name in checks.check_names(lab)
    ]
    for row in rows:
        assert set(row) == CHECK_KEYS
        assert (row["suite"], row["outcome"], row["message"]) == ("lab", "passed", "")
        assert isinstance(row["duration"], float) and row["duration"] >= 0


def test_check_json_of_a_failing_lab_keeps_the_exit_status_and_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fresh = tmp_path / "fresh"
    write_practice_package(fresh)
    with (fresh / "groups.py").open("a", encoding="utf-8") as handle:
        handle.write("\nprint('a print at import time')\n")
    status, out, err = run(capsys, "check", "11.1", "--impl", str(fresh), "--format", "json")
    # The rules run in a process of their own, whose output goes nowhere: stdout is one object.
    assert status == 1 and "a print at import time" not in out + err
    report = json.loads(out)
    assert (report["passed"], report["total"], report["ok"]) == (0, 3, False)
    assert {row["message"] for row in report["checks"]} == {
        "LabNotImplemented: Lab 11.1 compaction entry is not implemented yet"
    }

    status, report = json_run(capsys, "check", "11.1", "--impl", str(fresh), "--extended")
    assert status == 1
    (lab,) = report["labs"]
    wider = lab["extended"]
    assert set(wider) == {"passed", "total", "waiting"} and 0 < wider["passed"] < wider["total"]
    suites = Counter(row["suite"] for row in report["checks"])
    assert suites["lab"] == 3 and suites["extended"] == wider["total"] + wider["waiting"]


def test_check_json_bad_input_is_still_one_line_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, "check", "11.1", "--impl", str(tmp_path / "no"), "--format", "json"
    )
    assert (status, out) == (2, "")
    assert err.startswith("course-lab: error: ") and err.count("\n") == 1


def test_a_failure_is_told_whole_by_its_class_name_and_a_group_by_what_it_holds() -> None:
    from course_lib.track.plugin import failure_detail

    private = type("LabNotImplemented", (NotImplementedError,), {"__module__": "practice_0a1b"})
    later = private("Lab 11.5 resume compaction is not implemented yet")
    transfer = private("Lab transfer budget ledger is not implemented yet")
    long_hint = "x" * 2_000
    wrong = AssertionError(f"case: expected 1, got 2; hint: {long_hint}")

    assert (
        failure_detail(later)
        == "LabNotImplemented: Lab 11.5 resume compaction is not implemented yet"
    )
    assert failure_detail(wrong).endswith(long_hint)  # never cut
    # hypothesis reports several distinct failures as one group
    waiting = ExceptionGroup("Hypothesis found 2 distinct failures.", [later, transfer])
    assert failure_detail(waiting) == failure_detail(later)
    mixed = ExceptionGroup("Hypothesis found 2 distinct failures.", [later, wrong])
    assert failure_detail(mixed) == failure_detail(wrong)


def test_the_extended_suite_waits_for_unwritten_later_labs_and_never_fails_for_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = tmp_path / "ch11"
    write_practice_package(directory, solved=["11.1", "11.2", "11.3"])
    status, out, _ = run(capsys, "check", "11.3", "--impl", str(directory), "--extended")
    assert status == 0, out
    assert "FAIL" not in out
    assert "WAIT" in out and "Lab 11.5 resume compaction" in out
    assert last_line(out) == "Lab 11.3: 3/3 passed"
