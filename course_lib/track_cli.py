"""``course-lab practice | check | solution``: the student track, lab by lab from red to green.

``practice`` writes a package whose lab regions raise ``LabNotImplemented``;
``check`` runs the very checks CI runs against it; ``solution`` fills one
lab's regions from the reference (for instructors, or to unblock a later lab).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path
from typing import Any

from .checks import (
    LAB_TOPICS,
    LabReport,
    extended_test_files,
    resolve_labs,
    run_checks,
    run_extended_checks,
)
from .errors import CourseError
from .practice import check_practice_package
from .starters import CHAPTER, chapter_exports, fill_solution, write_practice_package

__all__ = ["DEFAULT_PRACTICE_DIR", "register"]

DEFAULT_PRACTICE_DIR = Path("practice") / f"ch{CHAPTER}"

_PRACTICE_EPILOG = """examples:
  course-lab practice 11                  write the starters into practice/ch11
  course-lab practice 11 my-labs          ... or into my-labs
  course-lab practice 11 --force          overwrite the generated files (your edits are lost)

Each lab's part sits between "# --- Lab 11.N <topic>: begin ---" and
"# --- Lab 11.N: end ---" and starts as `raise LabNotImplemented(...)`.
"""

_CHECK_EPILOG = """examples:
  course-lab check 11.1 --impl practice/ch11     Lab 11.1's 3 checks against your package
  course-lab check 11 --impl practice/ch11       all 15 checks of the chapter
  course-lab check 11.3                          Lab 11.3 against the reference course_lib
  course-lab check 11.3 --extended               ... plus the wider suite for its functions
                                                 (with --impl DIR, against your package)

--extended lists each failing test of the wider suite on its own row and ends
with "Lab 11.N extended: P/T passed"; a test that stops in a later lab you have
not written yet waits for it and is not counted.

exit status: 0 every check passed, 1 a check failed, 2 bad input (unknown lab,
missing folder, a practice module that does not import).
"""

_SOLUTION_EPILOG = """examples:
  course-lab solution 11.1 practice/ch11     fill Lab 11.1's regions with the reference code
  course-lab solution 11 practice/ch11       fill every lab

Only the code between that lab's begin/end marks is replaced; everything else
in the package, other labs included, is left as it is.
"""


def register(subparsers: Any) -> None:
    """Add ``practice``, ``check`` and ``solution`` to ``course-lab``."""
    _register_practice(subparsers)
    _register_check(subparsers)
    _register_solution(subparsers)


def _add_parser(subparsers: Any, name: str, summary: str, epilog: str) -> argparse.ArgumentParser:
    return subparsers.add_parser(
        name,
        help=summary,
        description=summary,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


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
    parser.set_defaults(func=_practice)


def _practice(args: argparse.Namespace) -> int:
    if args.chapter.strip() != CHAPTER:
        raise CourseError(
            f"no practice package for chapter {args.chapter!r}; "
            f"this workbook has Chapter {CHAPTER}: `course-lab practice {CHAPTER}`"
        )
    directory: Path = args.directory
    written = write_practice_package(directory, force=args.force)
    print(f"Wrote the Chapter {CHAPTER} practice package to {directory} ({len(written)} files).")
    print(f"Start with Lab 11.1 in {directory / 'entries.py'}, then run:")
    print(f"  course-lab check 11.1 --impl {directory}")
    return 0


# --- check ------------------------------------------------------------------------------


def _register_check(subparsers: Any) -> None:
    parser = _add_parser(
        subparsers, "check", "Run a lab's checks and show what passes.", _CHECK_EPILOG
    )
    parser.add_argument("lab", metavar="LAB", help="11.1 ... 11.5, or 11 for the whole chapter")
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
    parser.set_defaults(func=_check)


_QUALIFIED_NAME = re.compile(r"^(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_]\w*: )")


def _reason(detail: str) -> str:
    """A failure's one-line reason, without the private module path of the exception."""
    return _QUALIFIED_NAME.sub("", detail)


def _target(impl: Path | None) -> str:
    return "the reference course_lib" if impl is None else f"practice package {impl}"


def _print_report(
    title: str, report: LabReport, summary: str | None, *, failures_only: bool = False
) -> None:
    print(title)
    for outcome in report.outcomes:
        if outcome.outcome == "failed":
            print(f"  FAIL  {outcome.name} -- {_reason(outcome.detail)}")
        elif outcome.outcome == "passed" and not failures_only:
            print(f"  PASS  {outcome.name}")
    if failures_only and report.passed:
        tests = "test" if report.passed == 1 else "tests"
        print(f"  ({report.passed} passing {tests} not listed)")
    waiting = Counter(o.detail for o in report.outcomes if o.outcome == "waiting")
    for lab, count in sorted(waiting.items()):
        tests = "test reaches" if count == 1 else "tests reach"
        print(f"  WAIT  {count} {tests} {lab}, not written yet: not counted")
    if summary is not None:
        print(summary)


def _extended_line(report: LabReport) -> str:
    """``Lab 11.3 extended: 70/70 passed``, and how many wait for a later lab, if any."""
    line = f"Lab {report.lab} extended: {report.passed}/{report.total} passed"
    return line + (f" ({report.waiting} waiting for a later lab)" if report.waiting else "")


def _run_extended(lab: str, impl: Path | None) -> LabReport | None:
    """Print the wider suite for ``lab``; ``None`` when nothing could run against ``impl``.

    Failures are listed one row per test, passing tests as a count, and tests
    that stop in a later lab's unwritten region as a count per lab.
    """
    selection = extended_test_files(lab, for_practice=impl is not None)
    for note in selection.left_out:
        print(f"  (left out: {note})")
    if not selection.files:
        why = (
            f"not written yet: {', '.join(selection.not_written)}"
            if selection.not_written and not selection.left_out
            else f"none runs against {_target(impl)}"
        )
        print(f"Lab {lab} extended: no further tests ({why})")
        return None
    report = run_extended_checks(lab, selection.files, impl=impl, keyword=selection.keyword)
    names = ", ".join(f"tests/{file.name}" for file in selection.files)
    title = f"Lab {lab} extended suite ({names}):"
    if selection.keyword:
        title += f"\n  (the tests selected by -k {selection.keyword!r})"
    _print_report(title, report, _extended_line(report), failures_only=True)
    return report


def _check(args: argparse.Namespace) -> int:
    labs = resolve_labs(args.lab)
    impl: Path | None = args.impl
    if impl is not None:
        required = [name for names in chapter_exports().values() for name in names]
        check_practice_package(impl, required=required)
    reports = run_checks(labs, impl=impl)
    extended: list[LabReport | None] = []
    for index, report in enumerate(reports):
        if index:
            print()
        title = f"Lab {report.lab} {LAB_TOPICS[report.lab]}: checks against {_target(impl)}"
        # With --extended, a single lab's own line is kept for the very end.
        last_later = len(labs) == 1 and args.extended
        _print_report(title, report, None if last_later else report.summary_line())
        if args.extended:
            extended.append(_run_extended(report.lab, impl))
    if len(labs) == 1:
        if args.extended:
            print(reports[0].summary_line())
    else:
        print()
        passed, total = sum(r.passed for r in reports), sum(r.total for r in reports)
        print(f"Chapter {CHAPTER}: {passed}/{total} passed")
    all_ok = all(report.ok for report in reports)
    all_ok = all_ok and all(report is None or report.ok for report in extended)
    return 0 if all_ok else 1


# --- solution ---------------------------------------------------------------------------


def _register_solution(subparsers: Any) -> None:
    parser = _add_parser(
        subparsers,
        "solution",
        "Fill a lab's regions in a practice package with the reference code.",
        _SOLUTION_EPILOG,
    )
    parser.add_argument("lab", metavar="LAB", help="11.1 ... 11.5, or 11 for every lab")
    parser.add_argument("directory", metavar="DIR", type=Path, help="the practice package")
    parser.set_defaults(func=_solution)


def _solution(args: argparse.Namespace) -> int:
    labs = resolve_labs(args.lab)
    directory: Path = args.directory
    if directory.is_dir() and not (directory / "__init__.py").is_file():
        raise CourseError(
            f"{directory}: not a practice package (no __init__.py); "
            f"create one with `course-lab practice {CHAPTER} {directory}`"
        )
    for lab in labs:
        changed = fill_solution(directory, lab)
        files = ", ".join(path.name for path in changed)
        print(f"Lab {lab} {LAB_TOPICS[lab]}: reference solution written into {files}")
    print(f"Next: course-lab check {args.lab.strip()} --impl {directory}")
    return 0
