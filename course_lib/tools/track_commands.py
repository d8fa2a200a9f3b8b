"""``course-lab practice | check | solution | grade``: the track, lab by lab from red to green.

``practice`` writes a package whose lab regions raise ``LabNotImplemented``;
``check`` runs the very checks CI runs against it (``--format json`` for
tools); ``solution`` fills one lab's regions from the reference (for
instructors, or to unblock a later lab); ``grade`` checks a whole class's
submissions and writes a gradebook (``grading``, ``grade_report``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..base.errors import CourseError
from ..track.catalogue import LAB_TOPICS
from ..track.checks import (
    LabReport,
    extended_test_files,
    reports_as_json,
    resolve_labs,
    run_checks,
    run_extended_checks,
    short_message,
    workbook_path,
)
from ..track.hints_zh import hint_in_language
from ..track.language import LANGUAGES, Lang, check_language, folder_language
from ..track.language import text as line_in
from ..track.practice import check_practice_package
from ..track.starters import CHAPTER, chapter_exports, fill_solution, write_practice_package

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


def _practice(args: argparse.Namespace) -> int:
    if args.chapter.strip() != CHAPTER:
        raise CourseError(
            f"no practice package for chapter {args.chapter!r}; "
            f"this workbook has Chapter {CHAPTER}: `course-lab practice {CHAPTER}`"
        )
    directory: Path = args.directory
    # Regenerating a folder (--force) keeps the language it recorded, unless --lang is given.
    lang = _language(args, directory if directory.is_dir() else None)
    written = write_practice_package(directory, force=args.force, lang=lang)
    count = sum(path.suffix == ".py" for path in written)
    print(line_in("practice_written", lang, chapter=CHAPTER, directory=directory, count=count))
    print(line_in("practice_start", lang, file=directory / "entries.py"))
    print(f"  course-lab check 11.1 --impl {directory}")
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
        return line_in("target_reference", lang)
    return line_in("target_practice", lang, directory=impl)


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
            print(f"  FAIL  {outcome.name} -- {hint_in_language(_reason(outcome.detail), lang)}")
        elif outcome.outcome == "passed" and not failures_only:
            print(f"  PASS  {outcome.name}")
    if failures_only and report.passed:
        code = "not_listed_one" if report.passed == 1 else "not_listed_many"
        print(line_in(code, lang, count=report.passed))
    waiting = Counter(o.detail for o in report.outcomes if o.outcome == "waiting")
    for lab, count in sorted(waiting.items()):
        print(line_in("waiting_one" if count == 1 else "waiting_many", lang, count=count, lab=lab))
    if summary is not None:
        print(summary)


def _extended_line(report: LabReport, lang: Lang = "en") -> str:
    """``Lab 11.3 extended: 70/70 passed``, and how many wait for a later lab, if any."""
    numbers = {"lab": report.lab, "passed": report.passed, "total": report.total}
    line = line_in("extended_summary", lang, **numbers)
    if report.waiting:
        line += line_in("extended_waiting", lang, waiting=report.waiting)
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
        print(line_in("left_out", lang, note=note))
    if not selection.files:
        why = (
            line_in("extended_not_written", lang, files=", ".join(selection.not_written))
            if selection.not_written and not selection.left_out
            else line_in("extended_none_runs", lang, target=_target(impl, lang))
        )
        print(line_in("extended_none", lang, lab=lab, why=why))
        return None
    report = run_extended_checks(lab, selection.files, impl=impl, keyword=selection.keyword)
    names = ", ".join(workbook_path(file) for file in selection.files)
    title = line_in("extended_title", lang, lab=lab, files=names)
    if selection.keyword:
        title += "\n" + line_in("extended_keyword", lang, keyword=selection.keyword)
    _print_report(title, report, _extended_line(report, lang), failures_only=True, lang=lang)
    return report


def _check(args: argparse.Namespace) -> int:
    labs = resolve_labs(args.lab)
    impl: Path | None = args.impl
    if impl is not None:
        required = [name for names in chapter_exports().values() for name in names]
        # A print at import time goes to stderr, so that --format json stays one object.
        quiet = args.format == "json"
        with contextlib.redirect_stdout(sys.stderr) if quiet else contextlib.nullcontext():
            check_practice_package(impl, required=required)
    reports = run_checks(labs, impl=impl)
    if args.format == "json":
        return _print_json(args, labs, reports)
    lang = _language(args, impl)
    extended: list[LabReport | None] = []
    for index, report in enumerate(reports):
        if index:
            print()
        topic, target = LAB_TOPICS[report.lab], _target(impl, lang)
        title = line_in("check_title", lang, lab=report.lab, topic=topic, target=target)
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
        print(line_in("chapter_summary", lang, chapter=CHAPTER, passed=passed, total=total))
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
        print(line_in("solution_written", lang, lab=lab, topic=LAB_TOPICS[lab], files=files))
    print(line_in("solution_next", lang, lab=args.lab.strip(), directory=directory))
    return 0


# --- grade ------------------------------------------------------------------------------

_GRADE_EPILOG = """examples:
  course-lab grade submissions/                  every lab of every submission, one job per core
  course-lab grade submissions/ --labs 11.1,11.2 only the labs taught so far
  course-lab grade submissions/ --labs 11,transfer
                                                 the chapter plus the transfer exercise
                                                 (one more column)
  course-lab grade submissions/ --jobs 2 --timeout 30 --out grades/

ROSTER holds one entry per student: a practice folder (what `course-lab
practice 11` wrote; it may sit one or two folders deep) or a .zip of one. The
student is named after the folder or the zip. Each submission is checked in a
copy, in its own subprocess, with a time limit (--timeout), a memory limit
(--memory) and a file-size limit (--file-size), so no submission can stop the
run or change another's result.

writes to OUT (default: ROSTER-grades next to ROSTER):
  gradebook.csv    student, passed/total per lab, total, status, labs identical
                   to the reference, note; sorted by student, no times: grading
                   the same roster twice gives the same file
  gradebook.json   the same, with every check's outcome and message, and the
                   class summary
  report.html      class summary (table and plot), gradebook, feedback per student
  feedback/*.txt   one file per student to hand back

status: ok (every check ran), timeout (stopped at the limit; finished checks
count), error (does not import, or exits while importing), crashed (the checks
process died), invalid (not a practice package, unsafe or too large zip).

exit status: 0 the gradebook was written, 2 bad input (missing or empty
roster, OUT inside ROSTER, bad option).
"""


def _register_grade(subparsers: Any) -> None:
    parser = _add_parser(
        subparsers,
        "grade",
        "Check a class's submissions and write a gradebook and feedback.",
        _GRADE_EPILOG,
    )
    parser.add_argument("roster", metavar="ROSTER", type=Path, help="folder of submissions")
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
        "--out", type=Path, default=None, help="where to write (default: ROSTER-grades)"
    )
    parser.set_defaults(func=_grade)


def _grade_labs(text: str) -> list[str]:
    """``11`` -> the chapter's labs; ``11.1,11.3`` or ``11,transfer`` -> those, in track order."""
    chosen = {lab for part in text.split(",") for lab in resolve_labs(part)}
    return [lab for lab in LAB_TOPICS if lab in chosen]


def _grade_out(roster: Path, out: Path | None) -> Path:
    """Where the gradebook goes; never inside the roster, where it would be graded next time."""
    target = out if out is not None else roster.resolve().parent / f"{roster.resolve().name}-grades"
    if target.resolve().is_relative_to(roster.resolve()):
        raise CourseError(
            f"--out {target} is inside the roster {roster}; it would be graded as a "
            "submission next time: choose a folder outside it"
        )
    if target.exists() and not target.is_dir():
        raise CourseError(f"--out {target} exists and is not a folder; choose another")
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


def _grade(args: argparse.Namespace) -> int:
    from ..track.grading import Limits, find_submissions, grade_roster
    from ..views.grade_report import write_gradebook

    labs = _grade_labs(args.labs)
    if args.jobs < 1 or args.timeout <= 0 or args.memory < 64 or args.file_size < 1:
        raise CourseError(
            "--jobs must be at least 1, --timeout above 0, --memory at least 64 "
            "and --file-size at least 1"
        )
    roster: Path = args.roster
    submissions, skipped = find_submissions(roster)
    out = _grade_out(roster, args.out)
    limits = Limits(timeout=args.timeout, memory_mb=args.memory, file_mb=args.file_size)
    for name in skipped:
        print(f"  (skipped {name}: not a folder or a .zip)")
    print(
        f"Grading {len(submissions)} submissions (labs {', '.join(labs)}) with {args.jobs} "
        f"jobs; each may take {limits.timeout:g} s and {limits.memory_mb} MiB."
    )
    start = time.monotonic()
    with _progress(len(submissions)) as advance:
        grades = grade_roster(submissions, labs, limits=limits, jobs=args.jobs, on_grade=advance)
    seconds = time.monotonic() - start
    written = write_gradebook(out, grades, labs, limits)
    statuses = Counter(grade.status for grade in grades)
    flagged = sum(bool(grade.identical_labs) for grade in grades)
    print(
        f"Graded {len(grades)} submissions in {seconds:.1f} s: "
        f"{len(grades) / seconds * 60:.1f} per minute with {args.jobs} jobs."
    )
    print("  " + ", ".join(f"{count} {status}" for status, count in sorted(statuses.items())))
    if flagged:
        print(f"  {flagged} with lab regions identical to the reference (see report.html)")
    feedback = sum(path.parent.name == "feedback" for path in written)
    print(
        f"Wrote {out / 'gradebook.csv'}, {out / 'gradebook.json'}, {out / 'report.html'} "
        f"and {feedback} files in {out / 'feedback'}."
    )
    return 0
