"""``course-lab grade``: a class's submissions checked one by one, none able to break the run.

The roster below holds one submission per way a student's work goes wrong
(an endless loop, ``sys.exit``, an import error, a crash, huge output, a
memory hog, stray files, a bad zip ...). It is graded once per module
through the command line, with short limits so the module stays quick;
the other tests read the gradebook it wrote.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from edited_submissions import prepend

from course_lib.base.errors import CourseError
from course_lib.grading.grader import (
    STATUS_MEANING,
    Limits,
    Submission,
    find_submissions,
    grade_submission,
    identical_labs,
)
from course_lib.tools.cli import main
from course_lib.track.catalogue import (
    CHAPTER_LABS,
    EXERCISE_CHECK_COUNTS,
    LAB_CHECK_COUNTS,
    LAB_TOPICS,
)
from course_lib.track.checks import check_names
from course_lib.track.starters import (
    lab_modules,
    replace_region_bodies,
    solution_bodies,
    write_practice_package,
)
from course_lib.views.grade_report import GRADEBOOK_SCHEMA, feedback_text, gradebook_rows

LABS = list(CHAPTER_LABS)  # what `course-lab grade` checks by default: the chapter's 15
TIMEOUT = "6"  # a working submission takes 1-2 s, even on a loaded machine


def solved(directory: Path, labs: Sequence[str] = LABS) -> Path:
    write_practice_package(directory, solved=labs)
    return directory


def append(directory: Path, module: str, code: str) -> Path:
    with (directory / f"{module}.py").open("a", encoding="utf-8") as handle:
        handle.write("\n" + code + "\n")
    return directory


def zip_folder(folder: Path, archive: Path, prefix: str) -> None:
    with zipfile.ZipFile(archive, "w") as opened:
        for path in sorted(folder.iterdir()):
            opened.write(path, f"{prefix}{path.name}")


WRITES_FILES = """\
from pathlib import Path as _Path
_Path("stray.txt").write_text("written in the working folder")
(_Path.home() / "stray.txt").write_text("written in HOME")
_Path(__file__).with_name("stray.txt").write_text("written next to the package")
"""


def build_roster(root: Path) -> Path:
    """One submission per failure kind (and two that pass), as a class would hand them in."""
    roster = root / "roster"
    roster.mkdir()
    correct = append(solved(root / "correct"), "groups", WRITES_FILES)  # correct, but untidy
    zip_folder(correct, roster / "ada.zip", "practice/ch11/")  # nested two folders deep
    solved(roster / "ben" / "ch11", ["11.1", "11.2"])  # partially done, one folder deep
    prepend(solved(roster / "loops"), "11.3", ["while True:", "    pass"])
    append(solved(roster / "hangs_on_import"), "groups", "import time\ntime.sleep(1000)")
    append(solved(roster / "import_error"), "groups", "import no_such_module_anywhere")
    append(solved(roster / "exits"), "groups", "import sys\nsys.exit(3)")
    prepend(solved(roster / "segfault"), "11.3", ["import ctypes", "ctypes.string_at(0)"])
    append(solved(roster / "prints_a_lot"), "groups", "print('x' * 60_000_000)")  # goes nowhere
    prepend(solved(roster / "memory_hog"), "11.2", ["hog = bytearray(8 * 2**30)"])
    (roster / "notes_only").mkdir()
    (roster / "notes_only" / "notes.md").write_text("my notes", encoding="utf-8")
    with zipfile.ZipFile(roster / "sneaky.zip", "w") as opened:
        opened.writestr("__init__.py", "")
        opened.writestr("../outside.py", "print('escaped')")
    (roster / "README.txt").write_text("not a submission", encoding="utf-8")
    return roster


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def grade(roster: Path, out: Path) -> tuple[int, str]:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        options = ["--jobs", "2", "--timeout", TIMEOUT, "--file-size", "4"]
        status = main(["grade", str(roster), *options, "--out", str(out)])
    return status, printed.getvalue()


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("grade")
    roster = build_roster(root)
    before = tree_digest(roster)
    status, printed = grade(roster, root / "grades")
    return {
        "root": root,
        "roster": roster,
        "before": before,
        "status": status,
        "printed": printed,
        "out": root / "grades",
    }


def gradebook(out: Path) -> dict[str, dict[str, str]]:
    with (out / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def checks_of(out: Path, student: str) -> list[dict[str, str]]:
    data = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    (entry,) = [s for s in data["students"] if s["student"] == student]
    return entry["checks"]


def test_one_command_grades_the_class_and_says_how_fast(graded: dict[str, Any]) -> None:
    assert graded["status"] == 0
    printed = graded["printed"]
    assert "  (skipped README.txt: not a folder or a .zip)" in printed
    assert "Grading 11 submissions (labs 11.1, 11.2, 11.3, 11.4, 11.5) with 2 jobs" in printed
    assert re.search(r"Graded 11 submissions in [\d.]+ s: [\d.]+ per minute with 2 jobs\.", printed)
    assert "  1 crashed, 2 error, 2 invalid, 4 ok, 2 timeout" in printed.splitlines()
    assert sorted(path.name for path in graded["out"].iterdir()) == [
        "canvas.csv",
        "feedback",
        "gradebook.csv",
        "gradebook.json",
        "gradescope.csv",
        "report-projector.html",
        "report.html",
    ]
    assert len(list((graded["out"] / "feedback").glob("*.txt"))) == 11


def test_every_failure_kind_gets_a_status_and_a_score(graded: dict[str, Any]) -> None:
    book = gradebook(graded["out"])
    header = ["student", "student_id", *LABS, "total", "points", "hidden", "status"]
    header += ["identical_to_reference", "similar_to", "note"]
    assert list(next(iter(book.values()))) == header
    assert list(book) == sorted(book, key=str.casefold)
    scores = {student: (row["total"], row["status"]) for student, row in book.items()}
    assert scores == {
        "ada": ("15/15", "ok"),
        "ben": ("6/15", "ok"),
        "exits": ("0/15", "error"),
        "hangs_on_import": ("0/15", "timeout"),
        "import_error": ("0/15", "error"),
        "loops": ("6/15", "timeout"),
        "memory_hog": ("3/15", "ok"),
        "notes_only": ("0/15", "invalid"),
        "prints_a_lot": ("15/15", "ok"),  # what a package prints goes nowhere, and costs nothing
        "segfault": ("8/15", "crashed"),  # only the calls it crashed in fail
        "sneaky": ("0/15", "invalid"),
    }


def test_each_status_says_why_in_one_line(graded: dict[str, Any]) -> None:
    book = gradebook(graded["out"])
    assert [book["ben"][lab] for lab in LABS] == ["3/3", "3/3", "0/3", "0/2", "0/4"]
    assert book["loops"]["note"] == f"stopped after {TIMEOUT} s; the checks that finished count"
    assert [book["loops"][lab] for lab in LABS] == ["3/3", "3/3", "0/3", "0/2", "0/4"]
    assert book["hangs_on_import"]["note"] == (
        f"ch11: importing the package did not finish within {TIMEOUT} s; "
        "look for an endless loop at module level"
    )
    assert book["import_error"]["note"].startswith(
        "ch11: the practice package fails to import (groups.py, line "
    )
    assert (
        "ModuleNotFoundError: No module named 'no_such_module_anywhere'"
        in (book["import_error"]["note"])
    )
    assert book["exits"]["note"] == "ch11: the practice package calls sys.exit(3) while importing"
    assert book["segfault"]["note"].startswith(
        "the process running the rules was stopped by SIGSEGV during a call of "
    )
    assert book["notes_only"]["note"].startswith("no practice package found (no __init__.py)")
    assert book["sneaky"]["note"] == "the zip holds an unsafe path '../outside.py'"
    for row in book.values():
        assert "/tmp" not in row["note"] and "practice_" not in row["note"], row


def test_failing_checks_carry_their_own_message(graded: dict[str, Any]) -> None:
    out = graded["out"]
    loops = {c["name"]: c["message"] for c in checks_of(out, "loops") if c["lab"] == "11.3"}
    first, *rest = check_names("11.3")
    assert loops[first] == "Timeout: did not finish within the time limit; look for an endless loop"
    assert {loops[name] for name in rest} == {
        "Timeout: not run, the checks were stopped at the time limit"
    }
    for student, message in [("memory_hog", "MemoryError")]:
        checks = checks_of(out, student)
        assert {c["outcome"] for c in checks if c["lab"] == "11.1"} == {"passed"}
        lab_11_2 = [c for c in checks if c["lab"] == "11.2"]
        assert {c["outcome"] for c in lab_11_2} == {"failed"}
        # The check's own case comes first when it wraps the error; MemoryError is never wrapped.
        for check in lab_11_2:
            assert check["message"] == message or (
                check["message"].startswith("group_interactions(")
                and f"got {message}" in check["message"]
            ), check
    not_run = checks_of(out, "exits")
    assert {(c["outcome"], c["message"]) for c in not_run} == {("not run", "")}
    assert len(not_run) == sum(LAB_CHECK_COUNTS.values())


def test_writing_files_touches_neither_the_roster_nor_other_results(
    graded: dict[str, Any],
) -> None:
    assert tree_digest(graded["roster"]) == graded["before"]
    assert not list(graded["roster"].rglob("stray.txt"))
    assert not list(graded["roster"].rglob("__pycache__"))
    assert gradebook(graded["out"])["ada"]["total"] == "15/15"


def test_copied_solutions_are_flagged_in_the_gradebook(graded: dict[str, Any]) -> None:
    book = gradebook(graded["out"])
    # Lab 11.1's four lines are too small to flag (see test_grade_similarity.py).
    assert book["ada"]["identical_to_reference"] == "11.2 11.3 11.4 11.5"
    assert book["ben"]["identical_to_reference"] == "11.2"
    assert book["loops"]["identical_to_reference"] == "11.2 11.4 11.5"
    assert book["notes_only"]["identical_to_reference"] == ""


def test_grading_again_gives_the_same_files(graded: dict[str, Any]) -> None:
    again = graded["root"] / "again"
    status, _ = grade(graded["roster"], again)
    assert status == 0
    assert tree_digest(again) == tree_digest(graded["out"])


def expect_keys(value: dict[str, Any], types: dict[str, type | tuple[type, ...]]) -> None:
    assert set(value) == set(types), sorted(set(value) ^ set(types))
    for key, kind in types.items():
        assert isinstance(value[key], kind), (key, value[key])


def test_gradebook_json_schema(graded: dict[str, Any]) -> None:
    data = json.loads((graded["out"] / "gradebook.json").read_text(encoding="utf-8"))
    expect_keys(
        data,
        {
            "schema": str,
            "labs": list,
            "limits": dict,
            "hidden_seed": type(None),
            "students": list,
            "summary": dict,
        },
    )
    assert data["schema"] == GRADEBOOK_SCHEMA
    assert data["labs"] == [{"lab": lab, "topic": LAB_TOPICS[lab]} for lab in LABS]
    assert data["limits"]["timeout"] == float(TIMEOUT) and data["limits"]["file_mb"] == 4
    for student in data["students"]:
        expect_keys(
            student,
            {
                "student": str,
                "student_id": str,
                "lang": str,
                "status": str,
                "note": str,
                "identical_to_reference": list,
                "labs": dict,
                "passed": int,
                "total": int,
                "points": (int, float),
                "checks": list,
                "hidden": type(None),
            },
        )
        assert student["status"] in STATUS_MEANING
        assert list(student["labs"]) == LABS
        for lab, score in student["labs"].items():
            assert score["total"] == LAB_CHECK_COUNTS[lab] and 0 <= score["passed"] <= 4
        assert student["total"] == 15 == len(student["checks"])
        for check in student["checks"]:
            expect_keys(check, {"lab": str, "name": str, "outcome": str, "message": str})
            assert check["outcome"] in ("passed", "failed", "not run")
    summary = data["summary"]
    expect_keys(
        summary,
        {
            "submissions": int,
            "statuses": dict,
            "flagged": list,
            "checks": list,
            "failures": list,
            "scores": dict,
            "similar_pairs": list,
        },
    )
    assert summary["submissions"] == 11 and sum(summary["statuses"].values()) == 11
    assert len(summary["checks"]) == 15
    for row in summary["checks"]:
        expect_keys(
            row,
            {
                "lab": str,
                "name": str,
                "passed": int,
                "failed": int,
                "not_attempted": int,
                "not_run": int,
                "most_common_rule": str,
                "most_common_count": int,
            },
        )
        assert row["passed"] + row["failed"] + row["not_run"] == 11
    (first_11_2,) = [row for row in summary["checks"] if row["name"] == check_names("11.2")[0]]
    assert (first_11_2["failed"], first_11_2["most_common_count"]) == (1, 1)


def test_report_has_a_class_summary_a_plot_and_feedback(graded: dict[str, Any]) -> None:
    page = (graded["out"] / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<h2>Class summary</h2>" in page and "most common rule broken" in page
    assert page.count("<svg") == 1 and "<h2>Feedback</h2>" in page
    assert page.count('<section class="student"') == 11
    assert "MemoryError" in page
    feedback = (graded["out"] / "feedback" / "loops.txt").read_text(encoding="utf-8")
    assert feedback.splitlines()[0] == "Chapter 11 checks for loops: 6/15 passed"
    assert "Lab 11.3 budget projection: 0/3 passed" in feedback
    assert "  FAIL  " + check_names("11.3")[0] + " -- Timeout: did not finish" in feedback


# --- without running any submission -------------------------------------------------------


def test_copied_regions_are_flagged_whatever_their_layout(tmp_path: Path) -> None:
    substantial = ("11.2", "11.3", "11.4", "11.5")  # 11.1 is too small to flag
    assert identical_labs(solved(tmp_path / "copy"), LABS) == substantial

    # Comments, blank lines and trailing spaces do not hide a copy.
    relaid = solved(tmp_path / "relaid")
    for lab in LABS:
        for module in lab_modules(lab):
            path = relaid / f"{module}.py"
            bodies = [
                ["# my own words", "", *(line + "   " for line in body), ""]
                for body in solution_bodies(module, lab)
            ]
            text = path.read_text(encoding="utf-8")
            path.write_text(replace_region_bodies(text, lab, bodies, path.name), encoding="utf-8")
    assert identical_labs(relaid, LABS) == substantial

    # Changing the code of one lab clears that lab's flag only.
    edited = prepend(solved(tmp_path / "edited"), "11.3", ["assert True"])
    assert identical_labs(edited, LABS) == ("11.2", "11.4", "11.5")

    fresh = tmp_path / "fresh"
    write_practice_package(fresh)
    assert identical_labs(fresh, LABS) == ()
    broken = solved(tmp_path / "broken")
    groups = broken / "groups.py"
    groups.write_text(
        groups.read_text(encoding="utf-8").replace("# --- Lab 11.2: end ---", "", 1),
        encoding="utf-8",
    )
    assert "11.2" not in identical_labs(broken, LABS)
    (broken / "entries.py").unlink()
    assert identical_labs(broken, LABS) == ("11.3", "11.4", "11.5")


def test_unsafe_zips_are_refused_before_anything_runs(tmp_path: Path) -> None:
    def zipped(name: str, members: dict[str, bytes], link: str | None = None) -> Path:
        archive = tmp_path / f"{name}.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as opened:
            for member, data in members.items():
                opened.writestr(member, data)
            if link is not None:
                info = zipfile.ZipInfo(link)
                info.external_attr = 0o120777 << 16
                opened.writestr(info, "/etc/passwd")
        return archive

    cases = {
        "absolute": (
            zipped("absolute", {"/abs/__init__.py": b""}),
            "unsafe path '/abs/__init__.py'",
        ),
        "parent": (zipped("parent", {"ch11/../../up.py": b""}), "unsafe path 'ch11/../../up.py'"),
        "link": (zipped("link", {"__init__.py": b""}, link="ch11/link.py"), "symbolic link"),
        "bomb": (zipped("bomb", {"__init__.py": b"\0" * (3 * 2**20)}), "more than 1 MiB"),
        "two": (zipped("two", {"a/__init__.py": b"", "b/__init__.py": b""}), "several practice"),
        "empty": (zipped("empty", {"notes.md": b"hi"}), "no practice package found"),
    }
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"this is not a zip file at all")
    cases["garbage"] = (garbage, "not a readable zip file")
    limits = Limits(submission_mb=1)
    for name, (archive, words) in cases.items():
        result = grade_submission(Submission(student=name, path=archive), LABS, limits)
        assert result.status == "invalid" and words in result.note, (name, result.note)
        assert result.passed == 0 and result.total == 15
        assert {check.outcome for check in result.checks} == {"not run"}
    assert not (tmp_path.parent / "up.py").exists()


def test_students_are_named_after_their_folder_or_zip(tmp_path: Path) -> None:
    for name in ["zoe", "Adam", ".hidden", "__pycache__"]:
        (tmp_path / name).mkdir()
    (tmp_path / "zoe.zip").write_bytes(b"")
    (tmp_path / "bo.ZIP").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("", encoding="utf-8")
    submissions, skipped = find_submissions(tmp_path)
    assert [(s.student, s.path.name) for s in submissions] == [
        ("Adam", "Adam"),
        ("bo", "bo.ZIP"),
        ("zoe", "zoe"),
        ("zoe.zip", "zoe.zip"),
    ]
    assert skipped == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CourseError, match="no submissions in"):
        find_submissions(empty)


BAD_INPUT = [
    (["grade", "{root}/missing"], "roster {root}/missing does not exist"),
    (["grade", "{root}/file.txt"], "is not a folder"),
    (["grade", "{root}/empty"], "no submissions in"),
    (["grade", "{root}/class", "--out", "{root}/class/grades"], "is inside the roster"),
    (["grade", "{root}/class", "--labs", "11.9"], "unknown lab '11.9'"),
    (["grade", "{root}/class", "--jobs", "0"], "--jobs must be at least 1"),
]


@pytest.mark.parametrize(("argv", "words"), BAD_INPUT)
def test_bad_input_is_one_line_and_exit_status_2(
    argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file.txt").write_text("", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    (tmp_path / "class" / "ada").mkdir(parents=True)
    status = main([arg.format(root=tmp_path) for arg in argv])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("course-lab: error: ")
    assert words.format(root=tmp_path) in captured.err


def test_the_transfer_exercise_is_graded_as_one_more_column_when_asked_for(tmp_path: Path) -> None:
    """``--labs 11,transfer``: the chapter's 15 checks and the transfer exercise's 3, apart."""
    package = solved(tmp_path / "ada" / "ch11", [*LABS, "transfer"])
    labs = [*LABS, "transfer"]
    grade = grade_submission(Submission(student="ada", path=package.parent), labs, Limits())

    assert grade.status == "ok", grade.note
    assert grade.score("transfer") == (3, 3) == (EXERCISE_CHECK_COUNTS["transfer"],) * 2
    assert sum(grade.score(lab)[0] for lab in LABS) == sum(LAB_CHECK_COUNTS.values()) == 15
    (row,) = gradebook_rows([grade], labs)
    assert (row["transfer"], row["total"]) == ("3/3", "18/18")
    assert "Lab transfer budget ledger: 3/3 passed" in feedback_text(grade, labs).splitlines()


def test_a_report_the_grader_cannot_read_is_that_students_row_only(tmp_path: Path) -> None:
    """Whatever a worker's channel holds ends that student's grading, never the whole run."""
    from course_lib.grading.grader import _channel, _WorkerRun, grade_of_run

    channel = tmp_path / "channel.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    forged = {"result": {"checks": [{"suite": "lab", "lab": [], "name": "x"}]}}
    channel.write_bytes(b"\xff\xfe garbage\n" + deep.encode() + b"\n" + json.dumps(forged).encode())
    result, rows = _channel(channel, 10_000_000)
    assert result == forged["result"] and rows == []
    run = _WorkerRun(result, rows, killed=False, status=0, last="", folders=())
    grade = grade_of_run("mallory", run, ["11.1"], Limits())
    assert grade.status == "crashed" and grade.passed == 0
    assert grade.note.startswith("the checks process sent a report the grader could not read")


def test_a_limit_hit_while_importing_is_named_in_the_note(tmp_path: Path) -> None:
    """A package that writes past the file-size limit while importing is told of the limit,
    not only of the line; the note comes from the error's kind, never from its words."""
    loud = tmp_path / "loud"
    write_practice_package(loud)
    append(loud, "__init__", "with open('big.bin', 'wb') as big:\n    big.write(bytes(2 * 2**20))")
    grade = grade_submission(Submission("loud", loud), LABS, Limits(file_mb=1), sandbox="none")
    assert grade.status == "error"
    assert "File too large" in grade.note
    assert "importing the package went over the file-size limit of 1 MiB" in grade.note

    from course_lib.grading.grader import _limits_note, _not_run

    words = "the package does not import: ValueError: MemoryError [Errno 27] File too large"
    quiet = _limits_note(_not_run("wordy", "error", words, ["11.1"]), Limits(file_mb=16))
    assert quiet.note == words  # a student's own message names no limit it did not reach


def test_a_starter_that_re_exports_the_reference_scores_nothing(tmp_path: Path) -> None:
    """No rule, no marks: an untouched starter whose ``__init__`` takes every rule from the
    workbook's own chapter modules passed all 15 checks before; now every lab scores 0."""
    borrower = tmp_path / "borrower"
    write_practice_package(borrower)
    init = borrower / "__init__.py"
    text = init.read_text(encoding="utf-8")
    init.write_text(text.replace("from .", "from course_lib.chapter."), encoding="utf-8")
    grade = grade_submission(Submission("borrower", borrower), LABS, sandbox="none")
    assert grade.passed == 0 and grade.total == 15
    assert all(check.message.startswith("no rule, no marks: ") for check in grade.checks)
    assert "Lab 11.3 scores 0: its rules are not the submission's own (__init__.py does not " in (
        grade.note
    )

    honest = solved(tmp_path / "honest")
    graded_honestly = grade_submission(Submission("honest", honest), LABS, sandbox="none")
    assert graded_honestly.passed == 15

    from course_lib.views.grade_report import report_html

    page = report_html([grade, graded_honestly], LABS, Limits())
    assert f"<li>borrower: {', '.join(LABS)}</li>" in page
    assert "<li>honest:" not in page


def test_a_module_handed_in_as_a_link_is_named_in_the_note(tmp_path: Path) -> None:
    """Links are never followed; the note says which module was left out, and why."""
    linked = solved(tmp_path / "linked")
    real = tmp_path / "elsewhere.py"
    (linked / "budget.py").rename(real)
    (linked / "budget.py").symlink_to(real)
    grade = grade_submission(Submission("linked", linked), ["11.3"], sandbox="none")
    assert grade.passed == 0
    assert grade.note.startswith(
        "left out budget.py: a symbolic link is never followed; hand in the file itself; "
    )
