"""``course-lab practice | check | solution``: what a student types and what they see.

Exit statuses are part of the contract (0 all passed, 1 a check failed, 2 bad
input), and bad input is always one line on stderr, never a traceback.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from course_lib import checks
from course_lib.checks import extended_test_files, resolve_labs
from course_lib.cli import _COMMAND_MODULES, main
from course_lib.errors import CourseError
from course_lib.starters import write_practice_package


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


def test_track_commands_are_registered() -> None:
    assert "track_cli" in _COMMAND_MODULES


def test_practice_writes_refuses_and_forces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "practice", "11")
    assert (status, err) == (0, "")
    default = tmp_path / "practice" / "ch11"
    assert (default / "__init__.py").is_file() and (default / "labs.py").is_file()
    assert "course-lab check 11.1 --impl practice/ch11" in out

    (default / "groups.py").write_text("# my half-finished work\n", encoding="utf-8")
    status, out, err = run(capsys, "practice", "11")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("course-lab: error: ")
    assert "already exists; pass --force" in err

    status, _, err = run(capsys, "practice", "11", "practice/ch11", "--force")
    assert (status, err) == (0, "")
    assert "LabNotImplemented" in (default / "groups.py").read_text(encoding="utf-8")


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
    for lab, count in checks.LAB_CHECK_COUNTS.items():
        assert f"Lab {lab}: {count}/{count} passed" in out.splitlines()


def test_a_failing_check_shows_its_assertion_and_exit_status_1(
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
    assert "-- AssertionError: assert " in row and "'trimmed' == 'within_budget'" in row


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("solved") / "p"
    write_practice_package(directory, solved=list(checks.LAB_TOPICS))
    return directory


def test_extended_reports_the_wider_suite_after_the_lab(
    capsys: pytest.CaptureFixture[str], solved: Path
) -> None:
    status, out, _ = run(capsys, "check", "11.4", "--extended", "--impl", str(solved))
    assert last_line(out) == "Lab 11.4: 2/2 passed"
    assert "Lab 11.4 extended" in out
    assert status in (0, 1)  # the wider suite is others' tests; its result is reported


def test_extended_selection_runs_only_modules_that_take_impl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "conftest.py").write_text("", encoding="utf-8")
    (tmp_path / "test_budget.py").write_text(
        "def test_a(impl):\n    assert impl\n", encoding="utf-8"
    )
    (tmp_path / "test_entries.py").write_text(
        "from course_lib import build_context\n\ndef test_b():\n    assert build_context\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(checks, "tests_directory", lambda: tmp_path)

    practice = extended_test_files("11.3", for_practice=True)
    assert practice.files == [tmp_path / "test_budget.py"] and practice.left_out == []
    first = extended_test_files("11.1", for_practice=True)
    assert first.files == []
    assert first.left_out == [
        "tests/test_entries.py (tests course_lib directly, not the impl fixture)"
    ]
    assert first.not_written == ["tests/test_stores.py"]
    assert extended_test_files("11.1", for_practice=False).files == [tmp_path / "test_entries.py"]


def test_resolve_labs() -> None:
    assert resolve_labs("11") == ["11.1", "11.2", "11.3", "11.4", "11.5"]
    assert resolve_labs(" 11.3 ") == ["11.3"]
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
    groups.write_text(text.replace("        # --- Lab 11.2: end ---\n", "", 1), encoding="utf-8")
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


@pytest.mark.parametrize("command", ["practice", "check", "solution"])
def test_help_shows_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([command, "--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and f"course-lab {command} " in out


def test_console_entry_point_end_to_end(solved: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "course_lib.cli", "check", "11.4", "--impl", str(solved)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert last_line(completed.stdout) == "Lab 11.4: 2/2 passed"
