"""``course-lab practice | check | solution | grade``: the track, lab by lab from red to green.

``practice`` writes a package whose lab regions raise ``LabNotImplemented``;
``check`` runs the very checks CI runs against it (``--format json`` for
tools); ``solution`` fills one lab's regions from the reference (for
instructors, or to unblock a later lab); ``grade`` checks a whole class's
submissions and writes a gradebook (``grading.grader``, ``grade_report``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.errors import CourseError
from ..base.i18n import tr, tr_plural
from ..base.text_rules import visible_name
from ..grading.hidden_checks import HIDDEN_CASES
from ..grading.lms import DEFAULT_ASSIGNMENT
from ..grading.similarity import SIMILARITY_THRESHOLD
from ..judge.remote import RemotePackage, local_launcher
from ..track.catalogue import LAB_TOPICS
from ..track.checks import (
    LabReport,
    check_names,
    extended_test_files,
    reports_as_json,
    resolve_labs,
    run_checks,
    run_extended_checks,
    short_message,
    workbook_path,
)
from ..track.language import (
    LANGUAGES,
    Lang,
    check_language,
    folder_language,
    hint_in_language,
    tr_shown,
)
from ..track.starters import CHAPTER, chapter_exports, fill_solution, write_practice_package

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..grading.grader import Grade, Limits
    from ..grading.hidden_checks import HiddenPlan
    from ..views.grade_report import ReportOptions

__all__ = ["DEFAULT_PRACTICE_DIR", "register"]

DEFAULT_PRACTICE_DIR = Path("practice") / f"ch{CHAPTER}"

_PRACTICE_EPILOG = """examples:
  course-lab practice 11                  write the starters into practice/ch11
  course-lab practice 11 my-labs          ... or into my-labs
  course-lab practice 11 --force          overwrite the generated files (your edits are lost)

Each lab's part sits between "# --- Lab 11.N <topic>: begin ---" and
"# --- Lab 11.N: end ---" and starts as `raise LabNotImplemented(...)`; the
transfer exercise's (ledger.py) between "# --- Lab transfer budget ledger:
begin ---" and "# --- Lab transfer: end ---".
"""

_CHECK_EPILOG = """examples:
  course-lab check 11.1 --impl practice/ch11     Lab 11.1's 3 checks against your package
  course-lab check 11 --impl practice/ch11       all 15 checks of the chapter
  course-lab check transfer --impl practice/ch11 the transfer exercise (budget ledger),
                                                 checked on its own, apart from the 15
  course-lab check 11.3                          Lab 11.3 against the reference course_lib
  course-lab check 11.3 --extended               ... plus the wider suite for its functions
                                                 (with --impl DIR, against your package)
  course-lab check 11 --impl practice/ch11 --format json
                                                 one JSON object: every check with its
                                                 outcome, message and duration

--extended lists each failing test of the wider suite on its own row and ends
with "Lab 11.N extended: P/T passed"; a test that stops in a later lab you have
not written yet waits for it and is not counted.

exit status: 0 every check passed, 1 a check failed, 2 bad input (unknown lab,
missing folder, a practice module that does not import).
"""

_SOLUTION_EPILOG = """examples:
  course-lab solution 11.1 practice/ch11     fill Lab 11.1's regions with the reference code
  course-lab solution 11 practice/ch11       fill every lab of the chapter
  course-lab solution transfer practice/ch11 fill the transfer exercise's region

Only the code between that lab's begin/end marks is replaced; everything else
in the package, other labs included, is left as it is.
"""


def register(subparsers: Any) -> None:
    """Add ``practice``, ``check``, ``solution`` and ``grade`` to ``course-lab``."""
    _register_practice(subparsers)
    _register_check(subparsers)
    _register_solution(subparsers)
    _register_grade(subparsers)


def _add_parser(subparsers: Any, name: str, summary: str, epilog: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=summary,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


# --- practice ---------------------------------------------------------------------------


def _register_practice(subparsers: Any) -> None:
    parser = _add_parser(
        subparsers, "practice", "Write the chapter's starter package.", _PRACTICE_EPILOG
    )
    parser.add_argument("chapter", metavar="CHAPTER", help="the chapter (only 11 here)")
    parser.add_argument(
        "directory",
        metavar="DIR",
        nargs="?",
        type=Path,
        default=DEFAULT_PRACTICE_DIR,
        help=f"where to write the package (default: {DEFAULT_PRACTICE_DIR}, git-ignored)",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite the generated files of an existing DIR"
    )
    _add_lang_option(
        parser,
        "the starters' guidance and the track's messages, recorded in DIR for check and "
        "solution (default: en; with --force, what DIR recorded)",
    )
    parser.set_defaults(func=_practice)


def _add_lang_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--lang", choices=LANGUAGES, default=None, help=f"language of {what}")


def _language(args: argparse.Namespace, directory: Path | None) -> Lang:
    """``--lang`` when given, else what the practice folder recorded, else English."""
    if args.lang is not None:
        return check_language(args.lang)
    return folder_language(directory)


def _refuse_another_language(directory: Path, lang: Lang) -> None:
    """A folder that holds a package in another language: say so, in the language asked for.

    Asking for ``--lang zh`` where ``course-lab practice 11`` wrote an English
    package would otherwise end in the plain "already exists" error; this one
    names the folder's language and the command that rewrites it (or another folder).
    """
    if not directory.is_dir() or not any(directory.iterdir()):
        return
    recorded = folder_language(directory)
    if recorded == lang:
        return  # the same language: write_practice_package's "already exists" says it
    raise CourseError(
        tr_shown(
            lang,
            "{directory} already holds a practice package made with --lang {recorded}; to "
            "rewrite its generated files with --lang {lang} (your code in them is lost), run "
            "`course-lab practice {chapter} {directory} --lang {lang} --force`, or give "
            "another DIR",
            directory=directory,
            recorded=recorded,
            lang=lang,
            chapter=CHAPTER,
        )
    )


def _practice(args: argparse.Namespace) -> int:
    if args.chapter.strip() != CHAPTER:
        raise CourseError(
            f"no practice package for chapter {args.chapter!r}; "
            f"this workbook has Chapter {CHAPTER}: `course-lab practice {CHAPTER}`"
        )
    directory: Path = args.directory
    # Regenerating a folder (--force) keeps the language it recorded, unless --lang is given.
    lang = _language(args, directory if directory.is_dir() else None)
    if not args.force:
        _refuse_another_language(directory, lang)
    written = write_practice_package(directory, force=args.force, lang=lang)
    count = sum(path.suffix == ".py" for path in written)
    print(
        tr_shown(
            lang,
            "Wrote the Chapter {chapter} practice package to {directory} ({count} files).",
            chapter=CHAPTER,
            directory=directory,
            count=count,
        )
    )
    print(tr_shown(lang, "Start with Lab 11.1 in {file}, then run:", file=directory / "entries.py"))
    print(f"  course-lab check 11.1 --impl {visible_name(directory)}")
    return 0


# --- check ------------------------------------------------------------------------------


def _register_check(subparsers: Any) -> None:
    parser = _add_parser(
        subparsers, "check", "Run a lab's checks and show what passes.", _CHECK_EPILOG
    )
    parser.add_argument(
        "lab",
        metavar="LAB",
        help="11.1 ... 11.5, 11 for the whole chapter, or transfer for the transfer exercise",
    )
    parser.add_argument(
        "--impl",
        metavar="DIR",
        type=Path,
        default=None,
        help="your practice package (default: the reference course_lib)",
    )
    parser.add_argument(
        "--extended",
        action="store_true",
        help="also run the wider test suite for the lab's functions",
    )
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text: one row per check (default); json: one object for tools and graders",
    )
    _add_lang_option(parser, "the summary lines (default: what DIR recorded, else en)")
    parser.set_defaults(func=_check)


_reason = short_message


def _target(impl: Path | None, lang: Lang = "en") -> str:
    if impl is None:
        return tr_shown(lang, "the reference course_lib")
    return tr_shown(lang, "practice package {directory}", directory=impl)


def _print_report(
    title: str,
    report: LabReport,
    summary: str | None,
    *,
    failures_only: bool = False,
    lang: Lang = "en",
) -> None:
    print(title)
    for outcome in report.outcomes:
        if outcome.outcome == "failed":
            reason = hint_in_language(_reason(outcome.detail), lang)
            # TRANSLATORS: a failed check's row; the status word keeps its four columns
            print(tr(lang, "  FAIL  {name} -- {reason}", name=outcome.name, reason=reason))
        elif outcome.outcome == "passed" and not failures_only:
            # TRANSLATORS: a passed check's row; the status word keeps its four columns
            print(tr(lang, "  PASS  {name}", name=outcome.name))
    if failures_only and report.passed:
        passed = report.passed
        print(
            tr_plural(
                lang,
                "  ({count} passing test not listed)",
                "  ({count} passing tests not listed)",
                passed,
                count=passed,
            )
        )
    waiting = Counter(o.detail for o in report.outcomes if o.outcome == "waiting")
    for lab, count in sorted(waiting.items()):
        line = tr_plural(
            lang,
            "  WAIT  {count} test reaches {lab}, not written yet: not counted",
            "  WAIT  {count} tests reach {lab}, not written yet: not counted",
            count,
            count=count,
            lab=visible_name(lab),
        )
        print(line)
    if summary is not None:
        print(summary)


def _extended_line(report: LabReport, lang: Lang = "en") -> str:
    """``Lab 11.3 extended: 70/70 passed``, and how many wait for a later lab, if any."""
    numbers = {"lab": report.lab, "passed": report.passed, "total": report.total}
    line = tr_shown(lang, "Lab {lab} extended: {passed}/{total} passed", **numbers)
    if report.waiting:
        line += tr_shown(lang, " ({waiting} waiting for a later lab)", waiting=report.waiting)
    return line


def _run_extended(
    lab: str, impl: Path | None, *, quiet: bool = False, lang: Lang = "en"
) -> LabReport | None:
    """Print the wider suite for ``lab``; ``None`` when nothing could run against ``impl``.

    Failures are listed one row per test, passing tests as a count, and tests
    that stop in a later lab's unwritten region as a count per lab. With
    ``quiet`` (``--format json``) nothing is printed.
    """
    selection = extended_test_files(lab, for_practice=impl is not None)
    if quiet:
        if not selection.files:
            return None
        return run_extended_checks(lab, selection.files, impl=impl, keyword=selection.keyword)
    for note in selection.left_out:
        print(tr_shown(lang, "  (left out: {note})", note=note))
    if not selection.files:
        why = (
            tr_shown(lang, "not written yet: {files}", files=", ".join(selection.not_written))
            if selection.not_written and not selection.left_out
            else tr_shown(lang, "none runs against {target}", target=_target(impl, lang))
        )
        print(tr_shown(lang, "Lab {lab} extended: no further tests ({why})", lab=lab, why=why))
        return None
    report = run_extended_checks(lab, selection.files, impl=impl, keyword=selection.keyword)
    names = ", ".join(workbook_path(file) for file in selection.files)
    title = tr_shown(lang, "Lab {lab} extended suite ({files}):", lab=lab, files=names)
    if selection.keyword:
        keyword = tr_shown(
            lang, "  (the tests selected by -k {keyword!r})", keyword=selection.keyword
        )
        title += "\n" + keyword
    _print_report(title, report, _extended_line(report, lang), failures_only=True, lang=lang)
    return report


def _check(args: argparse.Namespace) -> int:
    labs = resolve_labs(args.lab)
    impl: Path | None = args.impl
    if impl is not None:  # one clear line for a package that cannot start, from its own process
        rules = [name for names in chapter_exports().values() for name in names]
        with RemotePackage(local_launcher(impl, rules), rules) as package:
            package.start()
    reports = run_checks(labs, impl=impl)
    if args.format == "json":
        return _print_json(args, labs, reports)
    lang = _language(args, impl)
    extended: list[LabReport | None] = []
    for index, report in enumerate(reports):
        if index:
            print()
        topic, target = LAB_TOPICS[report.lab], _target(impl, lang)
        title = tr_shown(
            lang,
            "Lab {lab} {topic}: checks against {target}",
            lab=report.lab,
            topic=topic,
            target=target,
        )
        # With --extended, a single lab's own line is kept for the very end.
        last_later = len(labs) == 1 and args.extended
        _print_report(title, report, None if last_later else report.summary_line(lang), lang=lang)
        if args.extended:
            extended.append(_run_extended(report.lab, impl, lang=lang))
    if len(labs) == 1:
        if args.extended:
            print(reports[0].summary_line(lang))
    else:
        print()
        passed, total = sum(r.passed for r in reports), sum(r.total for r in reports)
        print(
            tr_shown(
                lang,
                "Chapter {chapter}: {passed}/{total} passed",
                chapter=CHAPTER,
                passed=passed,
                total=total,
            )
        )
    all_ok = all(report.ok for report in reports)
    all_ok = all_ok and all(report is None or report.ok for report in extended)
    return 0 if all_ok else 1


def _print_json(args: argparse.Namespace, labs: list[str], reports: list[LabReport]) -> int:
    """``check --format json``: one object on stdout; the exit status is the same as for text."""
    extended = None
    if args.extended:
        extended = {lab: _run_extended(lab, args.impl, quiet=True) for lab in labs}
    target = "reference" if args.impl is None else str(args.impl)
    lang = _language(args, args.impl)
    report = reports_as_json(args.lab.strip(), reports, target=target, extended=extended, lang=lang)
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


# --- solution ---------------------------------------------------------------------------


def _register_solution(subparsers: Any) -> None:
    parser = _add_parser(
        subparsers,
        "solution",
        "Fill a lab's regions in a practice package with the reference code.",
        _SOLUTION_EPILOG,
    )
    parser.add_argument(
        "lab", metavar="LAB", help="11.1 ... 11.5, 11 for every lab of the chapter, or transfer"
    )
    parser.add_argument("directory", metavar="DIR", type=Path, help="the practice package")
    _add_lang_option(parser, "the messages (default: what DIR recorded, else en)")
    parser.set_defaults(func=_solution)


def _solution(args: argparse.Namespace) -> int:
    labs = resolve_labs(args.lab)
    directory: Path = args.directory
    if directory.is_dir() and not (directory / "__init__.py").is_file():
        raise CourseError(
            f"{directory}: not a practice package (no __init__.py); "
            f"create one with `course-lab practice {CHAPTER} {directory}`"
        )
    lang = _language(args, directory if directory.is_dir() else None)
    for lab in labs:
        changed = fill_solution(directory, lab)
        files = ", ".join(path.name for path in changed)
        print(
            tr_shown(
                lang,
                "Lab {lab} {topic}: reference solution written into {files}",
                lab=lab,
                topic=LAB_TOPICS[lab],
                files=files,
            )
        )
    print(
        tr_shown(
            lang,
            "Next: course-lab check {lab} --impl {directory}",
            lab=args.lab.strip(),
            directory=directory,
        )
    )
    return 0


# --- grade ------------------------------------------------------------------------------

_GRADE_EPILOG = """examples:
  course-lab grade submissions/                  every lab of every submission, one job per core
  course-lab grade submissions/ --labs 11.1,11.2 only the labs taught so far
  course-lab grade submissions/ --labs 11,transfer
                                                 the chapter plus the transfer exercise
                                                 (one more column)
  course-lab grade submissions/ --jobs 2 --timeout 30 --out grades/
  course-lab grade submissions/ --hidden-seed 4711
                                                 also the instructor's hidden cases
  course-lab grade submissions/ --students roster.csv --weights points.json
                                                 LMS ids and points per check
  course-lab grade gradescope --hidden-seed 4711 --weights points.json
                                                 no grading here: write autograder.zip,
                                                 a Gradescope autograder with these settings
  course-lab grade ./gradescope                  grade a roster folder named gradescope

ROSTER holds one entry per student: a practice folder (what `course-lab
practice 11` wrote; it may sit one or two folders deep) or a .zip of one. The
student is named after the folder or the zip. Any other entry (a notebook, a
.py file, a link) gets a row marked invalid with the reason; only notes
(.txt, .md, .csv, .json, .html, .log) are skipped. Names are shown escaped
(bytes that are not UTF-8 as \\xNN).

isolation: every submission is copied (or safely unpacked) into a private
folder before any code runs, then checked by a fresh worker with a time limit
(--timeout), a memory limit per process (--memory), a file-size limit that
also caps printed output (--file-size) and a process limit (--processes). A
check that hits a limit fails, and the note names the limit and its size. At
the time limit the worker stops the checks itself (also when the grader was
started with SIGINT ignored: nohup, cron, CI); the checks that finished count,
also when the checks process dies (os._exit, a crash). Every process a
submission started, detached or not, is killed when it ends.
  with bubblewrap (bwrap; Debian: apt-get install bubblewrap), --sandbox auto
  uses it: own mount, PID and network namespaces; the Python environment and
  the workbook read-only; only the submission's copy writable, in a tmpfs of
  --disk MiB; the roster, the other submissions and OUT are not there; no
  network; as root, an unprivileged user id of its own.
  without it: a private copy in its own process group; as root, an
  unprivileged user id of its own when this Python can run as one (else the
  grader's rights); no namespaces, so it can read what that user can and use
  the network. The weaker guarantee is printed once on stderr and written in
  report.html. Grade code you do not trust with bubblewrap.

writes to OUT (default: ROSTER-grades next to ROSTER, or ROSTER-grades-2, -3 ...
when an earlier run wrote that; an existing non-empty --out is refused, so an
earlier gradebook is never overwritten). gradebook.csv, gradebook.json and
feedback/ are rewritten (atomically) after each student, so a crash or Ctrl-C
keeps every finished student; the reports and exports follow at the end:
  gradebook.csv    student, passed/total per lab, total, status, labs identical
                   to the reference, note; sorted by student, no times: grading
                   the same roster twice gives the same file
  gradebook.json   the same, with every check's outcome and message, and the
                   class summary
  report.html      class summary (table and plot), failures by check and rule,
                   score histogram (mean, median), hidden cases, similar work
                   between students, gradebook, feedback per student
  report-projector.html
                   the class summary with no name, id or message: for a projector
  canvas.csv       Canvas gradebook import: Student, ID, SIS User ID (the
                   student_id), SIS Login ID, Section, the assignment's points,
                   a Points Possible row
  gradescope.csv   Gradescope score upload: Name, SID, Email, Total Score
  feedback/*.txt   one file per student to hand back, in the language their
                   practice folder recorded (--lang zh: Chinese)

hidden cases (--hidden-seed N): per lab, --hidden-cases random paths, budgets,
compactions and bad entries drawn from N, answered by the student's package and
by the reference; a case passes when both give the same value (as plain data)
or raise the same error class. They run in the same worker and sandbox as the public checks, after
them, with what is left of --timeout, and are reported beside the 15 (the
"hidden" column), never counted in "total"; --weights can give them points.
The same N gives the same cases; students cannot know them in advance.

similarity: each lab's regions are normalised (comments, docstrings, layout,
annotations and the names of local variables do not count) and compared
pairwise on what each student wrote beyond the reference; a pair is listed at
--similarity or more. "identical to the reference" flags only labs of at
least 60 normalised tokens (Lab 11.1 is smaller: never flagged) that equal the
reference after the same normalisation.

--students FILE: CSV with the columns folder,student_id (optionally name,
email); without it, student_id is the folder's name. Students it lacks get an
empty id and are left out of canvas.csv and gradescope.csv.
--weights FILE: JSON {"test_name": 2, "hidden 11.3": 3} or CSV check,points;
checks not listed are worth 1 point, hidden cases 0 unless listed (earned in
proportion to the cases that agree).

status: ok (every check ran), timeout (stopped at the limit; finished checks
count), error (does not import, or exits while importing), crashed (the checks
process died; finished checks count), invalid (not a practice package, an
empty, unreadable, unsafe or too large zip, or not a folder or a zip).

notebooks (--notebooks): every .ipynb a submission holds (the entry itself, or
those in its folder) runs headless after the checks, cell by cell as Run All
would, in the same sandbox with the same limits (--timeout for all of a
student's notebooks); each check("11.3-q1", ...) it reaches is judged and
becomes a column of notebooks.csv: correct, wrong, unanswered, or empty when
not reached.

gradescope (ROSTER is the word gradescope): nothing is graded here. The
command writes --out (default autograder.zip, or autograder-2.zip ... when that
exists) for a Gradescope programming assignment: setup.sh and run_autograder
at its root, this workbook (course_lib and the lab checks) and the settings
given here: --labs, --timeout and the other limits, --hidden-seed,
--hidden-cases, --hidden-feedback, --weights, --notebooks, --sandbox. Gradescope
runs the same grader on each submission, in a container of its own: one test
per check (visible), one per lab's hidden cases (after you publish the grades),
and with --notebooks one per notebook exercise of the labs (1 point each).
--sandbox auto uses bubblewrap when the container allows it, else a user id of
its own. --students, --jobs, --similarity and --assignment do not apply there.
See INSTRUCTOR.md, "Grading on Gradescope".

exit status: 0 the gradebook (or the autograder zip) was written, 2 bad input
(missing or empty roster, OUT inside ROSTER or not new, bad option, --sandbox
bwrap without a working bwrap), 130 interrupted (Ctrl-C; the finished students
are written).
"""


def _register_grade(subparsers: Any) -> None:
    parser = _add_parser(
        subparsers,
        "grade",
        "Check a class's submissions and write a gradebook and feedback.",
        _GRADE_EPILOG,
    )
    parser.add_argument(
        "roster",
        metavar="ROSTER",
        help="folder of submissions; the word gradescope writes a Gradescope autograder instead",
    )
    parser.add_argument(
        "--labs",
        default="11",
        help="11 for the whole chapter (default), one lab, or several: 11.1,11.2 or 11,transfer",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="submissions checked at once (default: the number of cores)",
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds per submission (default 60)"
    )
    parser.add_argument(
        "--memory", type=int, default=1024, metavar="MB", help="MiB per process (default 1024)"
    )
    parser.add_argument(
        "--file-size",
        type=int,
        default=16,
        metavar="MB",
        help="largest file or output a submission may write, in MiB (default 16)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=64,
        metavar="N",
        help="processes a submission may run at once (default 64)",
    )
    parser.add_argument(
        "--disk",
        type=int,
        default=64,
        metavar="MB",
        help="everything a submission may write, in MiB, with bubblewrap (default 64)",
    )
    parser.add_argument(
        "--notebooks",
        action="store_true",
        help="also run each student's .ipynb files headless, in the same sandbox and limits, "
        "and write notebooks.csv: one column per notebook exercise",
    )
    parser.add_argument(
        "--sandbox",
        choices=["auto", "bwrap", "none"],
        default="auto",
        help="auto: bubblewrap when it works here (default); bwrap: refuse to grade without "
        "it; none: no namespaces (the weaker guarantee, printed when grading starts)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="a new folder to write to (default: ROSTER-grades, or ROSTER-grades-2, -3 ... "
        "when that exists); an existing non-empty --out is refused. With gradescope: the new "
        ".zip to write (default autograder.zip)",
    )
    parser.add_argument(
        "--hidden-seed",
        type=int,
        default=None,
        metavar="N",
        help="also run the hidden cases drawn from seed N (default: none)",
    )
    parser.add_argument(
        "--hidden-feedback",
        action="store_true",
        help="show a failing hidden case's input and expected value in the student's feedback "
        "(default: only its name, so a reused seed gives no answers away)",
    )
    parser.add_argument(
        "--hidden-cases",
        type=int,
        default=HIDDEN_CASES,
        metavar="COUNT",
        help=f"hidden cases per lab with --hidden-seed (default {HIDDEN_CASES})",
    )
    parser.add_argument(
        "--students",
        type=Path,
        default=None,
        metavar="FILE",
        help="CSV folder,student_id[,name,email]: the id the LMS knows each student by",
    )
    parser.add_argument(
        "--weights",
        type=Path,
        default=None,
        metavar="FILE",
        help="points per check: JSON {name: points} or CSV check,points (default 1 each)",
    )
    parser.add_argument(
        "--similarity",
        type=float,
        default=SIMILARITY_THRESHOLD,
        metavar="X",
        help=f"list pairs of students whose work resembles at X or more, 0-1 "
        f"(default {SIMILARITY_THRESHOLD:g})",
    )
    parser.add_argument(
        "--assignment",
        default=DEFAULT_ASSIGNMENT,
        help=f"the assignment's column in canvas.csv (default {DEFAULT_ASSIGNMENT!r})",
    )
    parser.set_defaults(func=_grade)


def _grade_labs(text: str) -> list[str]:
    """``11`` -> the chapter's labs; ``11.1,11.3`` or ``11,transfer`` -> those, in track order."""
    chosen = {lab for part in text.split(",") for lab in resolve_labs(part)}
    return [lab for lab in LAB_TOPICS if lab in chosen]


def _grade_out(roster: Path, out: Path | None) -> Path:
    """Where the gradebook goes: a folder no earlier run wrote, never inside the roster.

    An earlier run's gradebook is never overwritten or deleted: by default
    the next free ``ROSTER-grades``, ``ROSTER-grades-2``, ... is taken; a
    given ``--out`` that already holds files is refused.
    """
    base = roster.resolve().parent / f"{roster.resolve().name}-grades"
    target = out if out is not None else base
    if target.resolve().is_relative_to(roster.resolve()):
        raise CourseError(
            f"--out {target} is inside the roster {roster}; it would be graded as a "
            "submission next time: choose a folder outside it"
        )
    if target.exists() and not target.is_dir():
        raise CourseError(f"--out {target} exists and is not a folder; choose another")
    if out is None:
        number = 2
        while target.exists() and any(target.iterdir()):
            target, number = base.with_name(f"{base.name}-{number}"), number + 1
    elif target.exists() and any(target.iterdir()):
        raise CourseError(
            f"--out {target} already holds files (an earlier run's gradebook?); it is never "
            "overwritten: choose a new folder, or move that one away yourself"
        )
    return target


@contextlib.contextmanager
def _progress(total: int) -> Iterator[Callable[[Any], None]]:
    """A progress bar on stderr when it is a terminal; otherwise nothing at all."""
    if not sys.stderr.isatty():
        yield lambda grade: None
        return
    from tqdm import tqdm

    with tqdm(total=total, unit="submission", file=sys.stderr) as bar:

        def advance(grade: Any) -> None:
            bar.set_postfix_str(f"{grade.student}: {grade.status}", refresh=False)
            bar.update(1)

        yield advance


GRADESCOPE = "gradescope"
"""``course-lab grade gradescope``: the word itself, not a folder (``./gradescope`` is one)."""


def _grade_limits(args: argparse.Namespace) -> Limits:
    """The per-submission limits from the options; an out-of-range value is a ``CourseError``."""
    from ..grading.grader import Limits

    if (
        args.jobs < 1
        or args.timeout <= 0
        or args.memory < 64
        or args.file_size < 1
        or args.processes < 8
        or args.disk < 8
    ):
        raise CourseError(
            "--jobs must be at least 1, --timeout above 0, --memory at least 64, "
            "--file-size at least 1, --processes at least 8 and --disk at least 8"
        )
    return Limits(
        timeout=args.timeout,
        memory_mb=args.memory,
        file_mb=args.file_size,
        processes=args.processes,
        disk_mb=args.disk,
    )


def _grade(args: argparse.Namespace) -> int:
    from ..grading.grader import find_submissions, grade_roster
    from ..grading.sandbox import choose, guarantee
    from ..views.grade_report import write_gradebook

    if args.roster == GRADESCOPE:
        return _grade_gradescope(args)
    labs = _grade_labs(args.labs)
    limits = _grade_limits(args)
    options, hidden = _grade_options(args, labs)  # a bad file fails now, before any grading
    roster = Path(args.roster)
    submissions, skipped = find_submissions(roster)
    out = _grade_out(roster, args.out)
    kind = choose(args.sandbox)
    print(guarantee(kind), file=sys.stderr)
    options = dataclasses.replace(options, sandbox=guarantee(kind))
    for name in skipped:
        print(f"  (skipped {name}: not a folder or a .zip)")
    print(
        f"Grading {len(submissions)} submissions (labs {', '.join(labs)}) with {args.jobs} "
        f"jobs; each may take {limits.timeout:g} s and {limits.memory_mb} MiB."
    )
    start = time.monotonic()
    finished: list[Any] = []
    with _progress(len(submissions)) as advance:

        def done(grade: Any) -> None:  # every finished student is on disk at once
            ordered = sorted([*finished, grade], key=lambda g: (g.student.casefold(), g.student))
            write_gradebook(out, ordered, labs, limits, options, partial=True)
            finished.append(grade)  # counted once it is on disk, so Ctrl-C reports what is
            advance(grade)

        try:
            grades = grade_roster(
                submissions,
                labs,
                limits=limits,
                jobs=args.jobs,
                on_grade=done,
                hidden=hidden,
                sandbox=kind,
            )
        except KeyboardInterrupt:
            print(
                f"Interrupted: the {len(finished)} of {len(submissions)} students graded so far "
                f"are in {out / 'gradebook.csv'}; grade again into a new folder for the rest.",
                file=sys.stderr,
            )
            return 130
    seconds = time.monotonic() - start
    written = write_gradebook(out, grades, labs, limits, options)
    statuses = Counter(grade.status for grade in grades)
    flagged = sum(bool(grade.identical_labs) for grade in grades)
    print(
        f"Graded {len(grades)} submissions in {seconds:.1f} s: "
        f"{len(grades) / seconds * 60:.1f} per minute with {args.jobs} jobs."
    )
    print("  " + ", ".join(f"{count} {status}" for status, count in sorted(statuses.items())))
    if flagged:
        print(f"  {flagged} with lab regions identical to the reference (see report.html)")
    for line in _grade_extras_lines(grades, labs, options):
        print(line)
    feedback = sum(path.parent.name == "feedback" for path in written)
    print(
        f"Wrote {out / 'gradebook.csv'}, {out / 'gradebook.json'}, {out / 'report.html'} "
        f"and {feedback} files in {out / 'feedback'}."
    )
    if args.notebooks:
        return _grade_notebooks(submissions, out, limits, kind, args.jobs)
    return 0


def _grade_gradescope(args: argparse.Namespace) -> int:
    """``grade gradescope``: write the autograder zip with these settings; grade nothing here."""
    from ..grading.gradescope import (
        Settings,
        autograder_out,
        build_autograder,
        gradescope_timeout_minutes,
        max_points,
        tests_per_submission,
    )
    from ..grading.hidden_checks import HiddenPlan
    from ..grading.lms import Weights, read_weights

    if Path(GRADESCOPE).is_dir():
        print(
            "Note: building a Gradescope autograder. A folder named gradescope is here too: "
            "to grade the submissions in it, run `course-lab grade ./gradescope`."
        )
    labs = _grade_labs(args.labs)
    limits = _grade_limits(args)
    _refuse_roster_options(args)
    if args.hidden_cases < 1:
        raise CourseError("--hidden-cases must be at least 1")
    checks = [name for lab in labs for name in check_names(lab)]
    weights = read_weights(args.weights, checks, labs) if args.weights is not None else Weights()
    if args.hidden_seed is None and any(weights.hidden.values()):
        raise CourseError(
            f"--weights {args.weights} gives points to hidden cases, but no --hidden-seed was "
            "given: add one, or leave the hidden cases out of the weights"
        )
    hidden = None if args.hidden_seed is None else HiddenPlan(args.hidden_seed, args.hidden_cases)
    settings = Settings(
        labs=tuple(labs),
        limits=limits,
        hidden=hidden,
        hidden_feedback=args.hidden_feedback,
        weights=weights,
        notebooks=args.notebooks,
        sandbox=args.sandbox,
    )
    out = build_autograder(autograder_out(args.out), settings)
    extras = [f"labs {', '.join(labs)}"]
    if hidden is not None:
        extras.append(f"hidden seed {hidden.seed} ({hidden.cases} cases per lab)")
    if args.weights is not None:
        extras.append(f"points from {args.weights}")
    if args.notebooks:
        extras.append("notebook exercises")
    print(f"Wrote {out}: this workbook and its settings ({'; '.join(extras)}).")
    print(
        f"  Each submission gets {tests_per_submission(settings)} tests worth "
        f"{max_points(settings):g} points, {limits.timeout:g} s to run its checks."
    )
    print("Next, on Gradescope:")
    print(f"  1. create a Programming Assignment worth {max_points(settings):g} points;")
    print(f"  2. under Configure Autograder, upload {out.name} (base image Ubuntu 22.04 or newer);")
    print(
        f"  3. set the autograder timeout to at least {gradescope_timeout_minutes(settings)} minutes;"
    )
    print("  4. test it with a submission of your own, then let students submit.")
    print('See INSTRUCTOR.md, "Grading on Gradescope".')
    return 0


def _refuse_roster_options(args: argparse.Namespace) -> None:
    """Say which options only ``grade ROSTER`` knows, rather than ignore them."""
    given = [
        option
        for option, changed in (
            ("--students", args.students is not None),
            ("--jobs", args.jobs != (os.cpu_count() or 1)),
            ("--similarity", args.similarity != SIMILARITY_THRESHOLD),
            ("--assignment", args.assignment != DEFAULT_ASSIGNMENT),
        )
        if changed
    ]
    if given:
        raise CourseError(
            f"{', '.join(given)} do not apply to `course-lab grade gradescope`: Gradescope knows "
            "its students, grades each submission in a container of its own and exports its "
            "own scores; leave them out"
        )


def _grade_notebooks(
    submissions: Sequence[Any], out: Path, limits: Any, kind: Any, jobs: int
) -> int:
    """``--notebooks``: run every submission's notebooks and write ``notebooks.csv`` as they finish."""
    from ..grading.notebook_grading import grade_notebooks, notebook_sheet
    from ..views.grade_report import write_atomically

    finished: list[Any] = []

    def done(grade: Any) -> None:
        ordered = sorted([*finished, grade], key=lambda g: (g.student.casefold(), g.student))
        write_atomically(out / "notebooks.csv", notebook_sheet(ordered))
        finished.append(grade)  # counted once it is on disk

    try:
        grades = grade_notebooks(submissions, limits=limits, kind=kind, jobs=jobs, on_grade=done)
    except KeyboardInterrupt:
        print(
            f"Interrupted: the notebooks of {len(finished)} of {len(submissions)} students "
            f"are in {out / 'notebooks.csv'}.",
            file=sys.stderr,
        )
        return 130
    ran = sum(grade.notebooks > 0 for grade in grades)
    print(f"Ran the notebooks of {ran} students: wrote {out / 'notebooks.csv'}.")
    return 0


def _grade_options(
    args: argparse.Namespace, labs: list[str]
) -> tuple[ReportOptions, HiddenPlan | None]:
    """The report's options and the hidden-case plan, from ``--students``, ``--weights``,
    ``--similarity`` and ``--hidden-seed``; a bad value or file is a ``CourseError``."""
    from ..grading.hidden_checks import HiddenPlan
    from ..grading.lms import Weights, read_students, read_weights
    from ..views.grade_report import ReportOptions

    if not 0 <= args.similarity <= 1:
        raise CourseError(f"--similarity must be between 0 and 1, not {args.similarity:g}")
    if args.hidden_cases < 1:
        raise CourseError("--hidden-cases must be at least 1")
    students = read_students(args.students) if args.students is not None else None
    checks = [name for lab in labs for name in check_names(lab)]
    weights = read_weights(args.weights, checks, labs) if args.weights is not None else Weights()
    hidden = None if args.hidden_seed is None else HiddenPlan(args.hidden_seed, args.hidden_cases)
    options = ReportOptions(
        students=students,
        weights=weights,
        similarity=args.similarity,
        assignment=args.assignment,
        hidden_seed=args.hidden_seed,
        hidden_feedback=args.hidden_feedback,
    )
    return options, hidden


def _grade_extras_lines(
    grades: Sequence[Grade], labs: list[str], options: ReportOptions
) -> list[str]:
    """What the run adds to the counts: hidden cases, similar pairs, ids the LMS lacks."""
    from ..grading.lms import student_ids
    from ..views.grade_report import similar_pairs_of

    lines: list[str] = []
    cases = [case for grade in grades for case in grade.hidden]
    if cases:
        agree = sum(case.outcome == "passed" for case in cases)
        lines.append(f"  hidden cases: {agree}/{len(cases)} agree with the reference")
    pairs = similar_pairs_of(grades, labs, options)
    if pairs:
        lines.append(f"  {len(pairs)} pairs of students with similar work (see report.html)")
    missing = [name for name, found in student_ids(grades, options.students).items() if not found]
    if missing:
        lines.append(
            f"  {len(missing)} students have no id in --students and are left out of "
            f"canvas.csv and gradescope.csv: {', '.join(missing)}"
        )
    if options.students is not None:
        graded = {grade.student for grade in grades}
        absent = sorted(name for name in options.students if name not in graded)
        if absent:
            lines.append(f"  no submission from {len(absent)} listed students: {', '.join(absent)}")
    return lines
