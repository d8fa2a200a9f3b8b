"""Grade on Gradescope: the autograder zip the workbook builds, and the run inside its container.

``course-lab grade ROSTER`` grades a whole class on the instructor's machine.
Gradescope instead builds a container image from an *autograder zip* once,
then grades every submission in a fresh container of that image. Its
contract, which this module follows:

* the zip's root holds ``setup.sh`` and ``run_autograder``; Gradescope
  unpacks the zip to ``/autograder/source``, runs ``setup.sh`` there once, as
  root, on its Ubuntu image, and copies ``run_autograder`` to ``/autograder``;
* for each submission it puts the student's files in
  ``/autograder/submission``, runs ``/autograder/run_autograder`` (as root, in
  ``/autograder``) and reads ``/autograder/results/results.json``: a total
  ``score``, an ``output`` for the whole submission and one entry per test
  (``name``, ``score``, ``max_score``, ``status``, ``output``, ``visibility``).

``build_autograder`` writes that zip: the two scripts, the instructor's
settings (``SETTINGS_FILE``: labs, limits, the hidden seed, weights), the
workbook's pinned requirements and the workbook itself (``workbook/``:
``course_lib`` *and* ``tests/``, since the judge reads the lab checks from the
``tests/`` folder beside ``course_lib``, which no wheel carries). So every
submission is graded by exactly the checkout that built the zip.

``run`` is the other side, what ``run_autograder`` calls: it grades the one
submission with the very grader ``course-lab grade`` uses
(``grader.grade_submission``: staged first, the rules in a rule server inside
the sandbox, the checks and hidden cases judged in this process), and then
writes ``results.json`` from the judge's own data, last and atomically. The
submission cannot reach the results: before anything runs, the source,
submission and results folders are made root-only (``lock_down``), the
student's code runs in its staged copy as an unprivileged user id of its own
(or inside bubblewrap, when the container allows namespaces), and every
process it started has been killed before the file is written.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import tempfile
import time
import tomllib
import traceback
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..base.errors import CourseError
from ..base.i18n import Lang, tr
from ..base.text_rules import escape_controls_by_line
from ..track.checks import check_names
from ..track.exercises import EXERCISES, NOT_ANSWERED
from ..track.language import hint_in_language
from .grader import STATUS_MEANING, Grade, Limits, Submission, grade_submission
from .hidden_checks import HiddenPlan, HiddenResult, hidden_case_lines
from .lms import Weights
from .sandbox import SandboxKind, bwrap_works, choose, guarantee, level, workbook_root

__all__ = [
    "HIDDEN_VISIBILITY",
    "RESULTS_FILE",
    "SETTINGS_FILE",
    "VISIBILITIES",
    "Layout",
    "Settings",
    "autograder_out",
    "build_autograder",
    "find_submission",
    "gradescope_timeout_minutes",
    "main",
    "max_points",
    "results_for",
    "run",
    "tests_per_submission",
    "write_results",
]

SETTINGS_FILE = "course-lab-gradescope.json"
"""The instructor's settings at the zip's root (root-only once unpacked: it holds the seed)."""

SETTINGS_SCHEMA = "course-lab-gradescope/1"
"""The settings file's ``schema``; a zip built by another version is refused by name."""

REQUIREMENTS_FILE = "requirements.txt"
"""The workbook's dependencies with the lower bounds ``pyproject.toml`` pins."""

WORKBOOK_FOLDER = "workbook"
"""Where the zip carries the workbook: ``course_lib``, ``tests`` and ``pyproject.toml``."""

RESULTS_FILE = "results.json"
"""What Gradescope reads from ``/autograder/results``."""

DEFAULT_ROOT = Path("/autograder")
"""Gradescope's folder; ``run --root`` (and ``COURSE_LAB_AUTOGRADER_ROOT`` in the scripts)
point elsewhere, so the layout can be tested without it."""

DEFAULT_PREFIX = "/opt/course-lab"
"""Where ``setup.sh`` installs the venv and the workbook (``COURSE_LAB_PREFIX`` overrides)."""

Visibility = Literal["hidden", "after_due_date", "after_published", "visible"]
VISIBILITIES: tuple[Visibility, ...] = ("hidden", "after_due_date", "after_published", "visible")
"""The visibility values Gradescope accepts, for the whole result and for each test."""

HIDDEN_VISIBILITY: Visibility = "after_published"
"""The hidden cases' tests: shown once the instructor publishes the grades, as ``grade``
hands its feedback back after grading, never while students can still resubmit."""

SandboxChoice = Literal["auto", "bwrap", "none"]

_WORKBOOK_PARTS = ("pyproject.toml", "README.md", "course_lib", "tests")
"""What of the checkout the autograder needs: the grader, the lab checks and their helpers."""

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Every member's date: the same checkout and settings give the same zip, byte for byte."""

_OVERHEAD_SECONDS = 90
"""Start-up, staging and writing the results, on top of the time limits, per submission."""


# --- the instructor's settings ---------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """What the instructor chose when building the zip; everything ``run`` needs besides it."""

    labs: tuple[str, ...]
    limits: Limits = field(default_factory=Limits)
    hidden: HiddenPlan | None = None
    hidden_feedback: bool = False
    """Show a failing hidden case's input and expected value (``--hidden-feedback``)."""
    weights: Weights = field(default_factory=Weights)
    notebooks: bool = False
    """One more test per notebook exercise of ``labs`` (``--notebooks``), 1 point each."""
    sandbox: SandboxChoice = "auto"
    version: str = ""
    """The workbook's version that built the zip (``pyproject.toml``), for the instructor."""

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SETTINGS_SCHEMA,
            "version": self.version,
            "labs": list(self.labs),
            "limits": asdict(self.limits),
            "hidden": None if self.hidden is None else asdict(self.hidden),
            "hidden_feedback": self.hidden_feedback,
            "weights": {"checks": self.weights.checks, "hidden": self.weights.hidden},
            "notebooks": self.notebooks,
            "sandbox": self.sandbox,
        }

    @classmethod
    def from_json(cls, data: Any) -> Settings:
        """The settings ``to_json`` wrote; anything else is a ``CourseError`` saying so."""
        if not isinstance(data, dict) or data.get("schema") != SETTINGS_SCHEMA:
            raise CourseError(
                f"{SETTINGS_FILE} is not a {SETTINGS_SCHEMA} file; rebuild the autograder "
                "with `course-lab grade gradescope`"
            )
        try:
            hidden = data["hidden"]
            weights = data["weights"]
            return cls(
                labs=tuple(str(lab) for lab in data["labs"]),
                limits=Limits(**data["limits"]),
                hidden=None if hidden is None else HiddenPlan(**hidden),
                hidden_feedback=bool(data["hidden_feedback"]),
                weights=Weights(
                    checks={str(k): float(v) for k, v in weights["checks"].items()},
                    hidden={str(k): float(v) for k, v in weights["hidden"].items()},
                ),
                notebooks=bool(data["notebooks"]),
                sandbox=_sandbox_choice(data["sandbox"]),
                version=str(data.get("version", "")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise CourseError(f"{SETTINGS_FILE} is damaged ({error!r}); rebuild it") from None

    def exercises(self) -> list[str]:
        """The notebook exercises that count: those of the chosen labs (``11.3-q1`` ...)."""
        if not self.notebooks:
            return []
        return [exercise for exercise in EXERCISES if exercise.split("-")[0] in self.labs]


def _sandbox_choice(value: object) -> SandboxChoice:
    if value == "bwrap":
        return "bwrap"
    if value == "none":
        return "none"
    if value == "auto":
        return "auto"
    raise ValueError(f"unknown sandbox {value!r}")


def hidden_labs(settings: Settings) -> list[str]:
    """The labs whose hidden cases are one test each (every chosen lab, with a seed)."""
    return list(settings.labs) if settings.hidden is not None else []


def tests_per_submission(settings: Settings) -> int:
    """How many tests each submission's results list: checks, hidden labs, exercises."""
    checks = sum(len(check_names(lab)) for lab in settings.labs)
    return checks + len(hidden_labs(settings)) + len(settings.exercises())


def max_points(settings: Settings) -> float:
    """What a submission that passes everything scores: the assignment's points on Gradescope."""
    checks = sum(settings.weights.of_check(n) for lab in settings.labs for n in check_names(lab))
    hidden = sum(settings.weights.of_hidden(lab) for lab in hidden_labs(settings))
    return _rounded(checks + hidden + len(settings.exercises()))


def _rounded(value: float) -> float:
    """Points as Gradescope shows them; four places keep ``3 * 1/12`` exact enough to add."""
    return round(value, 4) + 0.0  # + 0.0: never -0.0


# --- building the zip ------------------------------------------------------------------------


def autograder_out(out: Path | None, folder: Path | None = None) -> Path:
    """Where the zip goes: ``--out`` when new, else the first free ``autograder.zip``,
    ``autograder-2.zip``, ... in ``folder`` (an earlier build is never overwritten)."""
    if out is not None:
        if out.exists():
            raise CourseError(
                f"--out {out} already exists; it is never overwritten: choose a new file "
                "name, or remove the old zip yourself"
            )
        if out.suffix.lower() != ".zip":
            raise CourseError(f"--out {out}: Gradescope takes a .zip; give a name ending in .zip")
        return out
    base = (folder or Path.cwd()) / "autograder.zip"
    target, number = base, 2
    while target.exists():
        target, number = base.with_name(f"autograder-{number}.zip"), number + 1
    return target


def _checkout() -> Path:
    """The workbook this ``course_lib`` belongs to; it must have its lab checks beside it."""
    root = workbook_root()
    if not (root / "tests" / "conftest.py").is_file() or not (root / "pyproject.toml").is_file():
        raise CourseError(
            "the lab checks (tests/) and pyproject.toml are not beside this course_lib: build "
            "the autograder from a clone of the workbook, where `course-lab check` works"
        )
    return root


def _skipped(name: str) -> bool:
    return name.startswith(".") or name in ("__pycache__", ".ipynb_checkpoints")


def workbook_files(root: Path, notebooks: bool) -> list[tuple[str, Path]]:
    """``(name in the zip, file)`` for every file of the workbook the autograder needs.

    Caches, hidden files and symbolic links are left out. With notebooks, the
    handed-out notebooks come too: the grader counts an answer only from a
    cell that is an exercise's own check cell as handed out
    (``notebook_grading.handed_out_check_cells``).
    """
    parts = [*_WORKBOOK_PARTS, *(["notebooks"] if notebooks else [])]
    files: list[tuple[str, Path]] = []
    for part in parts:
        path = root / part
        if path.is_file() and not path.is_symlink():
            files.append((f"{WORKBOOK_FOLDER}/{part}", path))
            continue
        for folder, names, file_names in os.walk(path):
            names[:] = sorted(name for name in names if not _skipped(name))
            for name in sorted(file_names):
                file = Path(folder) / name
                if _skipped(name) or name.endswith(".pyc") or file.is_symlink():
                    continue
                files.append((f"{WORKBOOK_FOLDER}/{file.relative_to(root).as_posix()}", file))
    return files


def _pyproject(root: Path) -> dict[str, Any]:
    with (root / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


def requirements(project: dict[str, Any], extras: Sequence[str]) -> list[str]:
    """The dependencies of the workbook with ``extras``, its own extras expanded, in order.

    ``pyproject.toml`` names an extra that brings others as ``course-lib[views]``;
    the workbook itself is not installed from an index, so those become their
    requirements, each with the lower bound the project pins.
    """
    name = str(project["project"]["name"])
    optional: dict[str, list[str]] = project["project"].get("optional-dependencies", {})
    found: list[str] = []

    def add(requirement: str) -> None:
        head = requirement.split("[", 1)[0].strip()
        if head == name:
            inner = requirement.split("[", 1)[1].rstrip("]").split(",")
            for extra in inner:
                for item in optional[extra.strip()]:
                    add(item)
        elif requirement not in found:
            found.append(requirement)

    for requirement in project["project"].get("dependencies", []):
        add(requirement)
    for extra in extras:
        for requirement in optional[extra]:
            add(requirement)
    return found


def _extras(settings: Settings) -> list[str]:
    """``track`` grades (pytest, the views); notebooks import what the notebooks import."""
    return ["track", "notebook", "bpe"] if settings.notebooks else ["track"]


def setup_script(notebooks: bool) -> str:
    """``setup.sh``: Python 3.11+, a venv with the requirements, the workbook beside it.

    The workbook folder is root-only unless notebooks are graded: without
    bubblewrap a submission runs as a user id of its own and could otherwise
    read the reference; the notebook worker imports the whole workbook, so with
    notebooks it stays readable (as ``course-lab grade --notebooks`` has it).
    """
    mode = "755" if notebooks else "700"
    return _SETUP_SH.replace("@PREFIX@", DEFAULT_PREFIX).replace("@WORKBOOK_MODE@", mode)


_SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (Ubuntu).
# It finds or installs Python 3.11+, creates a venv with the workbook's grading
# dependencies (requirements.txt) and puts the workbook this zip carries beside it,
# so each submission is graded by exactly the version that built the zip.
#
# For a test of the layout away from Gradescope:
#   COURSE_LAB_PREFIX=DIR        install into DIR instead of @PREFIX@
#   COURSE_LAB_PYTHON=PROGRAM    the Python to build the venv from (3.11 or newer)
#   COURSE_LAB_SETUP_OFFLINE=1   no apt-get and no pip download; the dependencies are
#   COURSE_LAB_EXTRA_SITE=DIR      already installed in DIR, which the venv then reads
set -euo pipefail

SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PREFIX="${COURSE_LAB_PREFIX:-@PREFIX@}"
OFFLINE="${COURSE_LAB_SETUP_OFFLINE:-0}"

say() { printf 'setup.sh: %s\n' "$*"; }

python_ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }

find_python() {
    local candidate
    for candidate in ${COURSE_LAB_PYTHON:-} python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 && python_ok "$candidate"; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

apt_install() {
    if [ "$OFFLINE" = 1 ]; then
        say "offline: not installing $*"
        return 1
    fi
    command -v apt-get >/dev/null 2>&1 || return 1
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"
}

chmod 700 "$SOURCE"  # the settings (hidden seed) and the reference: root only

PYTHON="$(find_python || true)"
if [ -z "$PYTHON" ]; then
    say "no Python 3.11 or newer on this image: installing python3.11"
    apt_install python3.11 python3.11-venv || true
    PYTHON="$(find_python || true)"
fi
if [ -z "$PYTHON" ]; then
    say "error: no Python 3.11 or newer, and none could be installed; choose an Ubuntu 22.04 or newer base image"
    exit 1
fi
say "Python: $PYTHON ($("$PYTHON" -c 'import platform; print(platform.python_version())'))"

if ! command -v bwrap >/dev/null 2>&1 && ! apt_install bubblewrap; then
    say "bubblewrap is not installed: submissions will run as a user id of their own"
fi

rm -rf "$PREFIX/venv" "$PREFIX/workbook"
mkdir -p "$PREFIX"
chmod 755 "$PREFIX"
if ! "$PYTHON" -m venv "$PREFIX/venv"; then
    rm -rf "$PREFIX/venv"
    apt_install "$(basename "$PYTHON")-venv" python3-venv || true
    "$PYTHON" -m venv "$PREFIX/venv"
fi
VENV_PYTHON="$PREFIX/venv/bin/python"
SITE="$("$VENV_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"

if [ "$OFFLINE" = 1 ]; then
    say "offline: not downloading the requirements"
else
    "$VENV_PYTHON" -m pip install --quiet --disable-pip-version-check -r "$SOURCE/requirements.txt"
fi
if [ -n "${COURSE_LAB_EXTRA_SITE:-}" ]; then
    printf '%s\n' "$COURSE_LAB_EXTRA_SITE" > "$SITE/course_lab_1_dependencies.pth"
fi

cp -R "$SOURCE/workbook" "$PREFIX/workbook"
printf '%s\n' "$PREFIX/workbook" > "$SITE/course_lab_0_workbook.pth"
chmod -R a+rX "$PREFIX/venv"
chmod -R go-w "$PREFIX/workbook"
chmod @WORKBOOK_MODE@ "$PREFIX/workbook"

"$VENV_PYTHON" -I -m course_lib.grading.gradescope check --source "$SOURCE"
"""


def run_script() -> str:
    """``run_autograder``: the venv's Python runs ``run``; a missing venv still gets a result."""
    return _RUN_AUTOGRADER.replace("@PREFIX@", DEFAULT_PREFIX)


_RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this once per submission, as root, in a fresh container of the image
# setup.sh built. The workbook's grader judges /autograder/submission and writes
# /autograder/results/results.json last (python -m course_lib.grading.gradescope run).
# COURSE_LAB_AUTOGRADER_ROOT and COURSE_LAB_PREFIX move both folders, for a test.
set -u
ROOT="${COURSE_LAB_AUTOGRADER_ROOT:-/autograder}"
PREFIX="${COURSE_LAB_PREFIX:-@PREFIX@}"
PYTHON="$PREFIX/venv/bin/python"
if [ ! -x "$PYTHON" ]; then
    mkdir -p "$ROOT/results"
    printf '%s\n' '{"score": 0, "output": "The autograder is not installed (its setup did not finish). Ask your instructor.", "stdout_visibility": "hidden", "tests": []}' > "$ROOT/results/results.json"
    echo "run_autograder: $PYTHON is missing: setup.sh did not finish" >&2
    exit 1
fi
exec "$PYTHON" -I -m course_lib.grading.gradescope run --root "$ROOT"
"""


def _member(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    info.external_attr = (0o100000 | mode) << 16  # a regular file, as unzip restores it
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def build_autograder(out: Path, settings: Settings) -> Path:
    """Write the autograder zip to ``out`` (whole, then renamed into place) and return it.

    Its root: ``setup.sh`` and ``run_autograder`` (executable), ``SETTINGS_FILE``,
    ``REQUIREMENTS_FILE`` and ``workbook/``. Members are sorted and dated 1980,
    so the same checkout and settings always give the same bytes.
    """
    root = _checkout()
    project = _pyproject(root)
    if not settings.version:
        settings = replace(settings, version=str(project["project"].get("version", "")))
    text_members = {
        "setup.sh": (setup_script(settings.notebooks), 0o755),
        "run_autograder": (run_script(), 0o755),
        SETTINGS_FILE: (json.dumps(settings.to_json(), indent=2) + "\n", 0o600),
        REQUIREMENTS_FILE: ("\n".join(requirements(project, _extras(settings))) + "\n", 0o644),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".autograder-", suffix=".zip", dir=out.parent)
    os.close(handle)
    try:
        with zipfile.ZipFile(temporary, "w") as archive:
            for name, (text, mode) in text_members.items():
                archive.writestr(_member(name, mode), text.encode("utf-8"))
            for name, path in workbook_files(root, settings.notebooks):
                archive.writestr(_member(name, 0o644), path.read_bytes())
        os.chmod(temporary, 0o644)  # mkstemp's file is the owner's alone; a zip to upload is not
        os.replace(temporary, out)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return out


def gradescope_timeout_minutes(settings: Settings) -> int:
    """The least autograder timeout to set on Gradescope: the limits, run after each other."""
    seconds = settings.limits.timeout + _OVERHEAD_SECONDS
    if settings.notebooks:
        seconds += settings.limits.timeout + 10  # the notebook worker's own limit and grace
    return max(1, math.ceil(seconds / 60))


# --- the run, inside Gradescope's container --------------------------------------------------


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
            if child.is_dir() and not child.is_symlink() and not _skipped(child.name)
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
    entries = [path for path in sorted(folder.iterdir()) if not _skipped(path.name)]
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


@dataclass(frozen=True)
class _Test:
    """One entry of ``tests``: ``passed`` is the judge's verdict, whatever the points."""

    name: str
    passed: bool
    score: float
    max_score: float
    output: str
    visibility: Visibility

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "score": _rounded(self.score),
            "max_score": _rounded(self.max_score),
            "status": "passed" if self.passed else "failed",
            "output": escape_controls_by_line(self.output),
            "visibility": self.visibility,
        }


def _check_tests(grade: Grade, settings: Settings, lang: Lang) -> list[_Test]:
    """One test per public check: its points when passed, its message when not."""
    tests: list[_Test] = []
    for check in grade.checks:
        worth = settings.weights.of_check(check.name)
        if check.outcome == "passed":
            output = ""
        elif check.outcome == "failed":
            output = hint_in_language(check.message, lang)
        else:
            output = tr(lang, "Not run: see the status at the top.")
        name = tr(lang, "Lab {lab}: {check}", lab=check.lab, check=check.name)
        passed = check.outcome == "passed"
        tests.append(_Test(name, passed, worth if passed else 0.0, worth, output, "visible"))
    return tests


def _hidden_tests(grade: Grade, settings: Settings, lang: Lang) -> list[_Test]:
    """One test per lab's hidden cases, showing what ``grade``'s feedback shows of them.

    That is the count that agrees and the names of the first two that do not
    (their inputs and expected values only with ``--hidden-feedback``), so a
    reused seed gives no answers away.
    """
    tests: list[_Test] = []
    for lab in hidden_labs(settings):
        worth = settings.weights.of_hidden(lab)
        cases: list[HiddenResult] = [case for case in grade.hidden if case.lab == lab]
        name = tr(lang, "Lab {lab}: hidden cases", lab=lab)
        if not cases:
            output = tr(lang, "Not run: see the status at the top.")
            tests.append(_Test(name, False, 0.0, worth, output, HIDDEN_VISIBILITY))
            continue
        lines = hidden_case_lines(lab, cases, lang, show_inputs=settings.hidden_feedback)
        agree = sum(case.outcome == "passed" for case in cases)
        passed, score = agree == len(cases), worth * agree / len(cases)
        tests.append(_Test(name, passed, score, worth, "\n".join(lines), HIDDEN_VISIBILITY))
    return tests


def _exercise_output(status: str, lang: Lang) -> str:
    if status == "correct":
        return ""
    if status == "wrong":
        return tr(
            lang, "Wrong: check this exercise's answer in the notebook and run its cell again."
        )
    if status == "unanswered":
        return tr(lang, NOT_ANSWERED)
    return tr(lang, "Not reached: no notebook you handed in ran this exercise's check cell.")


def _notebook_tests(exercises: dict[str, str], settings: Settings, lang: Lang) -> list[_Test]:
    """One test per notebook exercise of the chosen labs: 1 point when ``correct``."""
    tests: list[_Test] = []
    for exercise in settings.exercises():
        status = exercises.get(exercise, "")
        name = tr(lang, "Notebook exercise {exercise}", exercise=exercise)
        passed = status == "correct"
        output = _exercise_output(status, lang)
        tests.append(_Test(name, passed, 1.0 if passed else 0.0, 1.0, output, "visible"))
    return tests


def _summary(grade: Grade, settings: Settings, lang: Lang, notebook_status: str) -> str:
    """The whole submission's ``output``: the count, why checks did not run, where to rerun."""
    lines = [
        tr(
            lang,
            "Chapter 11 checks: {passed}/{total} passed",
            passed=grade.passed,
            total=grade.total,
        )
    ]
    if grade.status != "ok":
        meaning = tr(lang, STATUS_MEANING[grade.status])
        lines.append(tr(lang, "Status: {status} ({meaning})", status=grade.status, meaning=meaning))
        if grade.note:
            lines.append(f"  {grade.note}")
    if settings.notebooks and notebook_status not in ("ok", "no notebook"):
        lines.append(tr(lang, "Notebooks: {status}", status=notebook_status))
    if settings.hidden is not None:
        lines.append(
            tr(lang, "The hidden cases are shown once your instructor publishes the grades.")
        )
    lines.append(tr(lang, "Run them yourself: course-lab check 11 --impl <your practice folder>"))
    return "\n".join(lines)


def results_for(
    grade: Grade,
    settings: Settings,
    *,
    exercises: dict[str, str] | None = None,
    notebook_status: str = "",
    seconds: float = 0.0,
    sandbox: str = "",
) -> dict[str, Any]:
    """Gradescope's ``results.json`` for one graded submission, from the judge's data alone.

    The total is the sum of the tests' scores, so what Gradescope adds up and
    what it shows as the score agree; ``extra_data`` keeps what only the
    instructor needs (status, labs identical to the reference, the fence).
    """
    lang = grade.facts.lang
    tests = [
        *_check_tests(grade, settings, lang),
        *_hidden_tests(grade, settings, lang),
        *_notebook_tests(exercises or {}, settings, lang),
    ]
    rows = [test.to_json() for test in tests]
    return {
        "score": _rounded(sum(row["score"] for row in rows)),
        "execution_time": round(seconds),
        "output": escape_controls_by_line(_summary(grade, settings, lang, notebook_status)),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": rows,
        "extra_data": {
            "status": grade.status,
            "identical_to_reference": list(grade.identical_labs),
            "notebooks": notebook_status,
            "sandbox": sandbox,
            "workbook": settings.version,
        },
    }


def failure_results(why: str) -> dict[str, Any]:
    """The results when the autograder itself could not grade: 0, and a word for the student."""
    output = (
        "The autograder could not grade this submission; nothing of it was scored. "
        "Your instructor sees why in the autograder's log."
    )
    return {
        "score": 0.0,
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [],
        "extra_data": {"status": "autograder error", "error": why},
    }


def write_results(folder: Path, results: dict[str, Any]) -> Path:
    """Write ``results.json`` whole and rename it into place: never a torn or mixed file."""
    text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
    handle, temporary = tempfile.mkstemp(prefix=".results-", suffix=".json", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as writer:
            writer.write(text)
            writer.flush()
            os.fsync(writer.fileno())
        os.chmod(temporary, 0o644)
        target = folder / RESULTS_FILE
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return target


def _grade_notebooks(
    submission: Submission, settings: Settings, kind: SandboxKind
) -> tuple[dict[str, str], str]:
    from .notebook_grading import grade_notebooks

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
    from ..track.checks import tests_directory

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


if __name__ == "__main__":
    sys.exit(main())
