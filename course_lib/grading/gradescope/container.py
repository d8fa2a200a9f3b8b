"""The run inside Gradescope's container: what ``run_autograder`` and ``setup.sh`` call.

It locks the folders down, finds the submission, chooses the sandbox, grades with the
grader ``course-lab grade`` uses and writes ``results.json`` last.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...base.errors import CourseError
from ..grader import Submission, grade_submission
from ..sandbox import SandboxKind, bwrap_works, choose, guarantee, level
from .autograder_zip import DEFAULT_PREFIX, skipped
from .results import RESULTS_FILE, failure_results, results_for, write_results
from .settings import SETTINGS_FILE, SandboxChoice, Settings, max_points, tests_per_submission

DEFAULT_ROOT = Path("/autograder")
"""Gradescope's folder; ``run --root`` (and ``COURSE_LAB_AUTOGRADER_ROOT`` in the scripts)
point elsewhere, so the layout can be tested without it."""


@dataclass(frozen=True)
class Layout:
    """Gradescope's folders under one root (``/autograder`` there; a scratch folder in a test)."""

    root: Path

    @property
    def source(self) -> Path:
        return self.root / "source"

    @property
    def submission(self) -> Path:
        return self.root / "submission"

    @property
    def results(self) -> Path:
        return self.root / "results"


def lock_down(layout: Layout) -> None:
    """Make the source, submission and results folders the grader's alone, before any code runs.

    Why: without bubblewrap the student's code runs as another user id and can
    read or write what that user may; the settings (the seed) and the results
    folder must not be among them. A results file already there cannot be the
    judge's: it is removed.
    """
    layout.results.mkdir(parents=True, exist_ok=True)
    for folder in (layout.source, layout.submission, layout.results):
        if folder.is_dir() and not folder.is_symlink():
            folder.chmod(0o700)
    mode = layout.root.stat().st_mode & 0o777
    layout.root.chmod(mode & ~0o022)  # no one else may rename what lies in it
    with contextlib.suppress(FileNotFoundError):
        (layout.results / RESULTS_FILE).unlink()


def read_settings(source: Path) -> Settings:
    path = source / SETTINGS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CourseError(
            f"{path} is missing: upload the zip `course-lab grade gradescope` wrote"
        ) from None
    except (OSError, ValueError) as error:
        raise CourseError(f"{path} cannot be read ({error})") from None
    return Settings.from_json(data)


def _is_package(folder: Path, depth: int = 3) -> bool:
    """Whether a practice package (an ``__init__.py``) lies at most ``depth`` folders down."""
    layer = [folder]
    for _ in range(depth + 1):
        if any((item / "__init__.py").is_file() for item in layer):
            return True
        layer = [
            child
            for item in layer
            for child in sorted(item.iterdir())
            if child.is_dir() and not child.is_symlink() and not skipped(child.name)
        ]
    return False


def find_submission(folder: Path) -> Submission:
    """What the student handed in, as ``grade`` would take it from a roster.

    Gradescope unpacks an uploaded zip into ``submission/`` itself, so the
    package's files may sit there directly or one folder down; a zip or a
    notebook may also arrive as it is. A package found in the folder wins;
    else a lone zip, else a lone notebook; else the folder, which ``grade``
    then says is no practice package.
    """
    if not folder.is_dir() or _is_package(folder):
        return Submission("submission", folder)
    entries = [path for path in sorted(folder.iterdir()) if not skipped(path.name)]
    files = [path for path in entries if path.is_file() and not path.is_symlink()]
    for suffix in (".zip", ".ipynb"):
        found = [path for path in files if path.suffix.lower() == suffix]
        if len(found) == 1:
            return Submission("submission", found[0])
    return Submission("submission", folder)


def sandbox_for(choice: SandboxChoice) -> SandboxKind:
    """The fence for this container: ``grade``'s own, where ``auto`` may fall back.

    ``auto`` is bubblewrap where the container allows namespaces, else an
    unprivileged user id of its own (Gradescope's container is already one per
    submission, and root runs the grader). Where neither holds, the submission
    would run with the grader's own rights, beside the results: refused.
    """
    kind: SandboxKind = (
        ("bwrap" if bwrap_works() else "none") if choice == "auto" else choose(choice)
    )
    fence = level(kind)
    if fence == "none-root-private-python":
        raise CourseError(
            "the venv's Python cannot be started by an unprivileged user, so the submission "
            "would run as root; install the workbook where every user can read it (setup.sh "
            f"uses {DEFAULT_PREFIX})"
        )
    if fence == "none-user":
        raise CourseError(
            "no bubblewrap and not root: the submission would run with the grader's own "
            "rights and could reach the results; run the autograder as root, as Gradescope does"
        )
    return kind


def _grade_notebooks(
    submission: Submission, settings: Settings, kind: SandboxKind
) -> tuple[dict[str, str], str]:
    from ..notebook_grading import grade_notebooks

    [notebooks] = grade_notebooks([submission], limits=settings.limits, kind=kind, jobs=1)
    return notebooks.exercises, notebooks.status


def grade_layout(layout: Layout, settings: Settings) -> dict[str, Any]:
    """Grade the submission in ``layout`` and return its results; nothing is written here.

    The checks (and hidden cases) run first, then the notebooks; each step
    kills every process it started before it returns, so by the time the
    results exist no code of the submission is running.
    """
    start = time.monotonic()
    kind = sandbox_for(settings.sandbox)
    fence = guarantee(kind)
    print(fence)
    submission = find_submission(layout.submission)
    print(f"Submission: {submission.path.relative_to(layout.root)}")
    grade = grade_submission(
        submission, settings.labs, settings.limits, settings.hidden, sandbox=kind
    )
    exercises: dict[str, str] = {}
    notebook_status = ""
    if settings.notebooks:
        exercises, notebook_status = _grade_notebooks(submission, settings, kind)
    seconds = time.monotonic() - start
    results = results_for(
        grade,
        settings,
        exercises=exercises,
        notebook_status=notebook_status,
        seconds=seconds,
        sandbox=fence,
    )
    print(
        f"Status: {grade.status}; {grade.passed}/{grade.total} checks passed; score {results['score']:g}"
    )
    if grade.note:
        print(f"Note: {grade.note}")
    if grade.identical_labs:
        print(f"Identical to the reference: {', '.join(grade.identical_labs)}")
    return results


def run(root: Path) -> int:
    """What ``run_autograder`` does: lock the folders, grade, write ``results.json`` last.

    Whatever goes wrong in the grader itself becomes a result of 0 with a
    word for the student and the traceback on stdout (the instructor's log),
    never a missing file.
    """
    layout = Layout(root)
    try:
        lock_down(layout)  # before anything else: no code of the submission runs unless it held
        settings = read_settings(layout.source)
        results = grade_layout(layout, settings)
    except Exception as error:
        traceback.print_exc(file=sys.stdout)
        results = failure_results(f"{type(error).__name__}: {error}")
    sys.stdout.flush()
    write_results(layout.results, results)
    print(f"Wrote {layout.results / RESULTS_FILE}")
    return 0


def check_install(source: Path) -> int:
    """``setup.sh``'s last step: the settings read, the lab checks found, the points said."""
    from ...track.checks import tests_directory

    settings = read_settings(source)
    tests_directory()
    print(
        f"setup.sh: ready: workbook {settings.version or '(unknown version)'}, labs "
        f"{', '.join(settings.labs)}; {tests_per_submission(settings)} tests worth "
        f"{max_points(settings):g} points"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m course_lib.grading.gradescope run|check``: the two scripts' entry points."""
    parser = argparse.ArgumentParser(
        prog="python -m course_lib.grading.gradescope",
        description="The Gradescope side of `course-lab grade gradescope` (called by its scripts).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="grade ROOT/submission into ROOT/results")
    run_parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    check_parser = commands.add_parser("check", help="check the installed autograder")
    check_parser.add_argument("--source", type=Path, default=DEFAULT_ROOT / "source")
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            return run(args.root)
        return check_install(args.source)
    except CourseError as error:
        print(f"course-lab gradescope: error: {error}", file=sys.stderr)
        return 2
