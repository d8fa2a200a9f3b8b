"""Build the autograder zip: the two scripts Gradescope runs, the settings, the workbook.

This is the instructor's side, run on their machine by ``course-lab grade gradescope``;
the container borrows only ``DEFAULT_PREFIX`` (where ``setup.sh`` installs) and ``skipped``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
import tomllib
import zipfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...base.errors import CourseError
from ..sandbox import workbook_root
from .settings import SETTINGS_FILE, Settings

REQUIREMENTS_FILE = "requirements.txt"
"""The workbook's dependencies with the lower bounds ``pyproject.toml`` pins."""

WORKBOOK_FOLDER = "workbook"
"""Where the zip carries the workbook: ``course_lib``, ``tests`` and ``pyproject.toml``."""

DEFAULT_PREFIX = "/opt/course-lab"
"""Where ``setup.sh`` installs the venv and the workbook (``COURSE_LAB_PREFIX`` overrides)."""

_WORKBOOK_PARTS = ("pyproject.toml", "README.md", "course_lib", "tests")
"""What of the checkout the autograder needs: the grader, the lab checks and their helpers."""

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Every member's date: the same checkout and settings give the same zip, byte for byte."""

_OVERHEAD_SECONDS = 90
"""Start-up, staging and writing the results, on top of the time limits, per submission."""


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


def skipped(name: str) -> bool:
    """Hidden files and caches: never put in the zip, never taken for the submission."""
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
            names[:] = sorted(name for name in names if not skipped(name))
            for name in sorted(file_names):
                file = Path(folder) / name
                if skipped(name) or name.endswith(".pyc") or file.is_symlink():
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
