"""For the LMS and the lecture hall: ids, points, Canvas and Gradescope files, failures by rule,
the score histogram, the projector view and feedback in the student's language.

The grades here are built by hand (no submission runs), so each number can
be checked by reading the test.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path

import pytest

from course_lib.base.errors import CourseError
from course_lib.grading.class_stats import distribution, failure_groups, failure_rule
from course_lib.grading.grader import CheckResult, Grade, Limits
from course_lib.grading.hidden_checks import HiddenResult
from course_lib.grading.lms import (
    Weights,
    canvas_csv,
    gradescope_csv,
    points,
    possible_points,
    read_students,
    read_weights,
    student_ids,
)
from course_lib.grading.submission_facts import SubmissionFacts
from course_lib.tools.cli import main
from course_lib.track.catalogue import CHAPTER_LABS
from course_lib.track.checks import check_names
from course_lib.views.grade_report import (
    ReportOptions,
    class_summary,
    feedback_text,
    gradebook_json,
    projector_html,
    report_html,
    write_gradebook,
)

LABS = list(CHAPTER_LABS)
CHECKS = [(lab, name) for lab in LABS for name in check_names(lab)]
WALK_HINT = "whole groups newest first while they fit 22"
NOT_WRITTEN = "LabNotImplemented: Lab 11.4 create compaction is not implemented yet"


def graded(
    student: str,
    failing: dict[str, str] | None = None,
    *,
    lang: str = "en",
    hidden: tuple[HiddenResult, ...] = (),
    note: str = "",
) -> Grade:
    """A grade passing every check but those in ``failing`` (check name -> message)."""
    failing = failing or {}
    checks = tuple(
        CheckResult(lab, name, "failed", failing[name])
        if name in failing
        else CheckResult(lab, name, "passed")
        for lab, name in CHECKS
    )
    facts = SubmissionFacts(lang="zh" if lang == "zh" else "en")
    return Grade(student, "ok", checks, note, hidden=hidden, facts=facts)


def walk_failure(case: str) -> str:
    return f"build_context({case}): expected tokens.messages 22, got 15; hint: {WALK_HINT}"


FIRST_11_3 = check_names("11.3")[0]
FIRST_11_4, SECOND_11_4 = check_names("11.4")


def the_class() -> list[Grade]:
    """Ada passes all; Ben and Chen break the walk rule (in different cases); Dora left 11.4
    unwritten; Eli (Chinese) breaks the walk rule too."""
    unwritten = {FIRST_11_4: NOT_WRITTEN, SECOND_11_4: NOT_WRITTEN}
    return [
        graded("ada", hidden=(HiddenResult("11.3", "hidden 11.3 #1", "passed"),)),
        graded("ben", {FIRST_11_3: walk_failure("fixture, max_tokens=31")}),
        graded("chen", {FIRST_11_3: walk_failure("fixture, max_tokens=40")}),
        graded("dora", unwritten, note="private note about dora"),
        graded("eli", {FIRST_11_3: walk_failure("fixture, max_tokens=31")}, lang="zh"),
    ]


def test_failures_are_grouped_by_check_and_rule_and_unwritten_labs_apart() -> None:
    grades = the_class()
    assert failure_rule(walk_failure("x")) == WALK_HINT
    assert failure_rule("Timeout: did not finish within the time limit") == "Timeout"
    assert failure_rule("group_interactions(u1): expected [u1], got MemoryError") == "MemoryError"
    groups = failure_groups(grades, LABS)
    assert [(g.lab, g.check, g.rule, g.count, g.students) for g in groups] == [
        ("11.3", FIRST_11_3, WALK_HINT, 3, ("ben", "chen", "eli")),
    ]
    rows = {(row.lab, row.name): row for row in class_summary(grades, LABS)}
    walk = rows["11.3", FIRST_11_3]
    assert (walk.failed, walk.most_common_rule, walk.most_common_count) == (3, WALK_HINT, 3)
    unwritten = rows["11.4", FIRST_11_4]
    assert (unwritten.failed, unwritten.not_attempted, unwritten.most_common_count) == (1, 1, 0)


def test_scores_have_a_histogram_a_mean_and_a_median() -> None:
    scores = distribution([15, 14, 14, 13, 2], 15)
    assert scores.counts == (0, 0, 1, *([0] * 10), 1, 2, 1)
    assert (scores.mean, scores.median, scores.possible) == (11.6, 14.0, 15)
    assert distribution([], 3).counts == (0, 0, 0, 0)
    book = gradebook_json(the_class(), LABS, Limits())
    assert book["summary"]["scores"] == {
        "possible": 15.0,
        "counts": [0] * 13 + [1, 3, 1],
        "mean": 14.0,
        "median": 14.0,
    }


def test_points_come_from_the_weights_file_as_json_or_csv(tmp_path: Path) -> None:
    names = [name for _, name in CHECKS]
    as_json = tmp_path / "points.json"
    as_json.write_text(json.dumps({FIRST_11_3: 5, "hidden 11.3": 4}), encoding="utf-8")
    as_csv = tmp_path / "points.csv"
    as_csv.write_text(f"check,points\n{FIRST_11_3},5\nhidden 11.3,4\n", encoding="utf-8")
    weights = read_weights(as_json, names, LABS)
    assert weights == read_weights(as_csv, names, LABS)
    assert weights == Weights(checks={FIRST_11_3: 5.0}, hidden={"11.3": 4.0})

    grades = the_class()
    assert possible_points(grades, weights, LABS) == 14 + 5 + 4
    # Ada: every check (19) and her one hidden 11.3 case (4); Ben: all but the 5-point check.
    assert [points(g, weights, LABS) for g in grades] == [23, 14, 14, 17, 14]
    half = graded(
        "fay",
        hidden=(
            HiddenResult("11.3", "hidden 11.3 #1", "passed"),
            HiddenResult("11.3", "hidden 11.3 #2", "failed", "why"),
        ),
    )
    assert points(half, weights, LABS) == 19 + 2

    bad = {
        "unknown": ({"test_nothing": 1}, "unknown check 'test_nothing'"),
        "negative": ({FIRST_11_3: -1}, "points must be a number >= 0, not -1"),
        "text": ({FIRST_11_3: "two"}, "points must be a number >= 0, not 'two'"),
        "bool": ({FIRST_11_3: True}, "points must be a number >= 0, not True"),
        "other lab": ({"hidden transfer": 1}, "unknown check 'hidden transfer'"),
    }
    for name, (data, words) in bad.items():
        path = tmp_path / f"{name.replace(' ', '-')}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(CourseError, match="--weights") as raised:
            read_weights(path, names, LABS)
        assert words in str(raised.value), name
    header = tmp_path / "header.csv"
    header.write_text("name,value\n", encoding="utf-8")
    with pytest.raises(CourseError, match="header check,points"):
        read_weights(header, names, LABS)


def test_student_ids_come_from_the_roster_csv(tmp_path: Path) -> None:
    roster = tmp_path / "students.csv"
    roster.write_text(
        "\ufeffFolder,Student_ID,Name,Email\nada,s-1,Ada Lovelace,ada@example.org\n\nben,s-2,,\n",
        encoding="utf-8",
    )
    students = read_students(roster)
    assert sorted(students) == ["ada", "ben"]
    assert (students["ada"].student_id, students["ada"].email) == ("s-1", "ada@example.org")
    grades = the_class()
    assert student_ids(grades, None)["chen"] == "chen"  # no roster: the folder's name
    assert student_ids(grades, students) == {
        "ada": "s-1",
        "ben": "s-2",
        "chen": "",
        "dora": "",
        "eli": "",
    }
    for text, words in [
        ("folder,name\nada,Ada\n", "lacks the column(s) student_id"),
        ("folder,student_id\nada,s-1\nada,s-2\n", "line 3: folder 'ada' is listed twice"),
        ("folder,student_id\nada,s-1\nben,s-1\n", "student_id 's-1' is already given on line 2"),
        ("folder,student_id\nada,\n", "line 2: folder and student_id are both needed"),
        ("", "empty"),
    ]:
        roster.write_text(text, encoding="utf-8")
        with pytest.raises(CourseError, match="--students") as raised:
            read_students(roster)
        assert words in str(raised.value)


def test_canvas_and_gradescope_files_hold_points_per_student_with_an_id(tmp_path: Path) -> None:
    roster = tmp_path / "students.csv"
    roster.write_text(
        "folder,student_id,name,email\nada,s-1,Ada Lovelace,ada@example.org\nben,s-2,,\n",
        encoding="utf-8",
    )
    students = read_students(roster)
    grades = the_class()
    ids = student_ids(grades, students)
    canvas = list(csv.reader(io.StringIO(canvas_csv(grades, ids, students, Weights(), LABS))))
    assert canvas == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Chapter 11 labs"],
        ["Points Possible", "", "", "", "", "15"],
        ["Ada Lovelace", "", "s-1", "", "", "15"],
        ["ben", "", "s-2", "", "", "14"],
    ]
    text = gradescope_csv(grades, ids, students, Weights(), LABS)
    assert text == "Name,SID,Email,Total Score\nAda Lovelace,s-1,ada@example.org,15\nben,s-2,,14\n"

    options = ReportOptions(students=students, assignment="Week 11")
    out = tmp_path / "grades"
    written = write_gradebook(out, grades, LABS, Limits(), options)
    names = sorted(path.name for path in written if path.parent == out)
    assert names == [
        "canvas.csv",
        "gradebook.csv",
        "gradebook.json",
        "gradescope.csv",
        "report-projector.html",
        "report.html",
    ]
    assert (out / "canvas.csv").read_text(encoding="utf-8").splitlines()[0].endswith(",Week 11")
    with (out / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert [rows[s]["student_id"] for s in ("ada", "ben", "chen")] == ["s-1", "s-2", ""]
    assert (rows["ada"]["points"], rows["ada"]["hidden"], rows["ben"]["hidden"]) == (
        "15",
        "1/1",
        "",
    )


def test_the_projector_view_shows_the_class_without_any_name_or_message() -> None:
    grades = the_class()
    page = projector_html(grades, LABS, ReportOptions())
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for student in ("ada", "ben", "chen", "dora", "eli"):
        assert f">{student}<" not in page and f"{student}," not in page, student
    assert "private note" not in page and "max_tokens=40" not in page  # notes and cases stay out
    assert WALK_HINT in page  # the rule, which the class can discuss
    assert "Mean 14, median 14 of 15 points." in page
    assert "<h2>Hidden cases</h2>" in page
    report = report_html(grades, LABS, Limits())  # the instructor's names who, beside the rule
    assert ">ben, chen, eli<" in report and "<h2>Common failures by check and rule</h2>" in report


def test_feedback_speaks_the_language_the_practice_folder_recorded() -> None:
    english, chinese = the_class()[1], the_class()[4]
    text = feedback_text(english, LABS)
    assert text.splitlines()[0] == "Chapter 11 checks for ben: 14/15 passed"
    assert f"hint: {WALK_HINT}" in text
    zh = feedback_text(chinese, LABS)
    assert zh.splitlines()[0] == "第 11 章检查（eli）：14/15 项通过"
    assert "Lab 11.3 budget projection：2/3 项通过" in zh
    assert "；提示" in zh and "hint:" not in zh
    assert f"  失败  {FIRST_11_3} -- " in zh and "FAIL" not in zh  # the check's name as it is
    assert zh.splitlines()[-1] == "自己运行：course-lab check 11 --impl <你的练习文件夹>"
    weighted = ReportOptions(weights=Weights(checks={FIRST_11_3: 3}))
    assert "得分：14 / 17" in feedback_text(chinese, LABS, weighted).splitlines()


def test_the_grade_command_refuses_bad_files_before_grading_and_says_what_each_flag_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "class" / "ada").mkdir(parents=True)
    weights = tmp_path / "w.json"
    weights.write_text('{"test_nothing": 1}', encoding="utf-8")
    for argv, words in [
        (["--weights", str(weights)], "unknown check 'test_nothing'"),
        (["--students", str(tmp_path / "missing.csv")], "--students"),
        (["--similarity", "1.5"], "--similarity must be between 0 and 1"),
        (["--hidden-seed", "1", "--hidden-cases", "0"], "--hidden-cases must be at least 1"),
    ]:
        status = main(["grade", str(tmp_path / "class"), *argv])
        captured = capsys.readouterr()
        assert status == 2 and captured.out == "", argv
        assert captured.err.count("\n") == 1 and words in captured.err, captured.err
    assert not (tmp_path / "class-grades").exists()

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), pytest.raises(SystemExit):
        main(["grade", "--help"])
    help_text = " ".join(printed.getvalue().split())
    for words in [
        "--hidden-seed N",
        "--hidden-cases COUNT",
        "--students FILE",
        "--weights FILE",
        "--similarity X",
        "--assignment",
        "report-projector.html",
        "canvas.csv",
        "gradescope.csv",
        'never counted in "total"',
    ]:
        assert words in help_text, words


def test_a_name_or_note_can_neither_run_in_a_spreadsheet_nor_reverse_the_report(
    tmp_path: Path,
) -> None:
    """OWASP's CSV-injection advice in every CSV; bidi and zero-width controls shown, not obeyed."""
    formula = '=HYPERLINK("http://evil.example","open me")'
    reversed_note = "check \u202etxt.exe\u202c and \u200bthis"
    grades = [*the_class(), graded(formula, note=reversed_note)]
    out = tmp_path / "grades"
    write_gradebook(out, grades, LABS, Limits(), ReportOptions(assignment="Week 11"))
    for name in ("gradebook.csv", "canvas.csv", "gradescope.csv"):
        cells = [
            cell
            for row in csv.reader(io.StringIO((out / name).read_text(encoding="utf-8")))
            for cell in row
        ]
        assert not [cell for cell in cells if cell[:1] in ("=", "+", "@", "\t", "\r")], name
        assert any(cell.startswith("'=HYPERLINK") for cell in cells), name
        assert "ada" in cells, name  # an honest name is written as it is
    for name in ("report.html", "report-projector.html"):
        page = (out / name).read_text(encoding="utf-8")
        assert "\u202e" not in page and "\u200b" not in page, name
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "\\u202etxt.exe\\u202c" in page
    feedback = "".join(path.read_text(encoding="utf-8") for path in (out / "feedback").iterdir())
    assert "\u202e" not in feedback


def test_the_notebook_sheet_is_spreadsheet_safe() -> None:
    from course_lib.grading.notebook_grading import NotebookGrade, notebook_sheet

    sheet = notebook_sheet([NotebookGrade("@SUM(A1:A9)", 1, "ok", {})])
    assert "'@SUM(A1:A9)" in sheet.splitlines()[1]


def test_feedback_shows_a_hidden_cases_input_only_when_the_instructor_asks() -> None:
    """A reused seed must not hand out its answers: by default a failing hidden case is named,
    its input and expected value stay in the instructor's gradebook."""
    failing = HiddenResult("11.3", "hidden 11.3 #7", "failed", "build_context(path 7): expected 22")
    grade = graded("gus", hidden=(failing,))
    quiet = feedback_text(grade, LABS)
    assert "hidden 11.3 #7" in quiet and "expected 22" not in quiet
    shown = feedback_text(grade, LABS, ReportOptions(hidden_feedback=True))
    assert "hidden 11.3 #7 -- build_context(path 7): expected 22" in shown
