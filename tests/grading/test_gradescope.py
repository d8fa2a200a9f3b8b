"""``course-lab grade gradescope``: the autograder zip, unpacked and run as Gradescope would.

Gradescope's own servers are not here. What is exercised, exactly:

* the zip is built by the command line (``main(["grade", "gradescope", ...])``);
* it is unpacked into a scratch root laid out like ``/autograder`` (``source/``,
  ``submission/``, ``results/``, ``run_autograder`` copied beside them), each
  member with the mode the zip records, as ``unzip`` would;
* ``setup.sh`` runs for real, but offline (``COURSE_LAB_SETUP_OFFLINE=1``): no
  ``apt-get`` and no download. It still builds the venv (from this
  interpreter, ``COURSE_LAB_PYTHON``) in a scratch prefix
  (``COURSE_LAB_PREFIX``), installs the workbook the zip carries, reads the
  dependencies already installed in this venv (``COURSE_LAB_EXTRA_SITE``) and
  ends with its own check of the installed autograder;
* ``run_autograder`` runs once per submission, as a program, with
  ``COURSE_LAB_AUTOGRADER_ROOT`` at the scratch root, so the grading runs
  in the installed copy of the workbook, not in this checkout.

The submissions: a correct solution (``course-lab solution 11``) whose files sit
directly in ``submission/``, a wrong one a folder down, the correct one as a zip, a
notebook alone, and hostile ones: one that forges ``results.json`` in the results
folder and every place it can guess (and keeps doing so from a detached process),
one that never returns, one that prints fake results as JSON. Every
``results.json`` is checked against Gradescope's format, its total against its
tests, and its scores against what the weights give.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from edited_submissions import prepend

from course_lib.grading.grader import CheckResult, Grade
from course_lib.grading.gradescope import Settings, results_for
from course_lib.grading.hidden_checks import HiddenPlan, HiddenResult
from course_lib.grading.lms import Weights
from course_lib.grading.sandbox import level
from course_lib.grading.submission_facts import SubmissionFacts
from course_lib.tools.cli import main
from course_lib.track.checks import check_names
from course_lib.track.exercises import EXERCISES, NOT_ANSWERED
from course_lib.track.starters import (
    write_practice_package,
)

LABS = ["11.1", "11.2", "11.3", "11.4", "11.5"]
WEIGHTS = {
    "test_fixed_costs_are_deducted_before_any_message": 2,
    "hidden 11.1": 1,
    "hidden 11.3": 3,
}
HIDDEN_CASES = 2
TIMEOUT = 30  # notebook 03 takes 7-10 s to run on a loaded machine
SHORT_TIMEOUT = 4  # the zip for the submission that never returns

CHECKS = [(lab, name) for lab in LABS for name in check_names(lab)]
EXERCISES_OF_LABS = [e for e in EXERCISES if e.split("-")[0] in LABS]
CHECK_POINTS = sum(WEIGHTS.get(name, 1) for _, name in CHECKS)
HIDDEN_POINTS = WEIGHTS["hidden 11.1"] + WEIGHTS["hidden 11.3"]
MAX_POINTS = CHECK_POINTS + HIDDEN_POINTS + len(EXERCISES_OF_LABS)
LAB_11_1_POINTS = sum(WEIGHTS.get(name, 1) for lab, name in CHECKS if lab == "11.1")

VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
"""Gradescope's visibility values (its autograder specification)."""
TOP_KEYS = {
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
TEST_KEYS = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}

FORGED = {
    "score": 1000,
    "output": "forged",
    "tests": [{"name": "forged", "score": 1000, "max_score": 1000, "visibility": "visible"}],
}


# --- building and installing -------------------------------------------------------------------


def build(folder: Path, name: str, *options: str) -> tuple[Path, str]:
    """``course-lab grade gradescope --out folder/name OPTIONS``; the zip and what it printed."""
    out = folder / name
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = main(["grade", "gradescope", "--out", str(out), *options])
    assert status == 0, printed.getvalue()
    return out, printed.getvalue()


def unpack(archive: Path, root: Path) -> Path:
    """Lay ``archive`` out as Gradescope does: ``root/source`` and ``root/run_autograder``."""
    source = root / "source"
    with zipfile.ZipFile(archive) as opened:
        for info in opened.infolist():
            opened.extract(info, source)
            (source / info.filename).chmod((info.external_attr >> 16) & 0o777)
    shutil.copy2(source / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    return root


def setup_offline(source: Path, prefix: Path) -> subprocess.CompletedProcess[str]:
    """``setup.sh`` as Gradescope runs it, minus apt-get and downloads (see the module)."""
    environment = dict(
        os.environ,
        COURSE_LAB_PREFIX=str(prefix),
        COURSE_LAB_PYTHON=sys.executable,
        COURSE_LAB_SETUP_OFFLINE="1",
        COURSE_LAB_EXTRA_SITE=sysconfig.get_paths()["purelib"],
    )
    done = subprocess.run(
        ["bash", str(source / "setup.sh")],
        cwd=source,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def run_autograder(root: Path, prefix: Path) -> tuple[dict[str, Any], str, float]:
    """``root/run_autograder`` as a program; the results it wrote, its log and its seconds."""
    environment = dict(
        os.environ, COURSE_LAB_PREFIX=str(prefix), COURSE_LAB_AUTOGRADER_ROOT=str(root)
    )
    start = time.monotonic()
    done = subprocess.run(
        [str(root / "run_autograder")],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    seconds = time.monotonic() - start
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    return data, done.stdout, seconds


# --- submissions -------------------------------------------------------------------------------


def correct_with_the_cli(folder: Path) -> Path:
    """A practice folder filled by ``course-lab solution 11``, as an instructor makes one."""
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["practice", "11", str(folder)]) == 0
        assert main(["solution", "11", str(folder)]) == 0
    return folder


def practice(folder: Path, labs: list[str]) -> Path:
    """A practice folder with ``labs`` filled from the reference (the rest still to write)."""
    write_practice_package(folder, solved=labs)
    return folder


def append(directory: Path, module: str, code: str) -> Path:
    with (directory / f"{module}.py").open("a", encoding="utf-8") as handle:
        handle.write("\n" + code + "\n")
    return directory


def forger_code(root: Path, marker: str) -> str:
    """Module code that writes ``FORGED`` wherever results might go, now and from a detached
    process that keeps at it for 30 s (``marker`` in its command line, to look for it later)."""
    targets = [
        root / "results" / "results.json",
        root / "results" / "forged.json",
        root / "results.json",
        root / "source" / "results.json",
    ]
    return f"""
import json as _json, os as _os, subprocess as _subprocess, sys as _sys
from pathlib import Path as _Path
_FORGED = {json.dumps(json.dumps(FORGED))}
_TARGETS = [_Path(p) for p in {[str(t) for t in targets]!r}]
_TARGETS += [_Path.cwd() / "results.json", _Path.cwd().parent / "results" / "results.json"]
_TARGETS += [_Path.home() / "results.json", _Path(_os.environ.get("TMPDIR", "/tmp")) / "results.json"]
_TARGETS += [p / "results" / "results.json" for p in _Path(__file__).resolve().parents]
def _forge():
    for target in _TARGETS:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_FORGED)
        except OSError:
            pass
_forge()
_LOOP = "import time, pathlib\\n# {marker}\\nfor _ in range(150):\\n    time.sleep(0.2)\\n"
_LOOP += "".join(f"    try: pathlib.Path({{str(t)!r}}).write_text({{_FORGED!r}})\\n    except OSError: pass\\n" for t in _TARGETS)
_subprocess.Popen([_sys.executable, "-c", _LOOP], start_new_session=True,
                  stdout=_subprocess.DEVNULL, stderr=_subprocess.DEVNULL)
"""


PRINTS_FAKE_JSON = f"""
import json as _json, sys as _sys
print(_json.dumps({FORGED!r}))
print(_json.dumps({FORGED!r}), file=_sys.stderr)
"""


def answered_notebook(target: Path, replacements: dict[str, str]) -> None:
    """A copy of notebook 03 with some cells' sources replaced, as a student would save it."""
    notebook = Path(__file__).resolve().parents[2] / "notebooks"
    data = json.loads((notebook / "03-lab-11.3-budget-projection.ipynb").read_text("utf-8"))
    for cell in data["cells"]:
        source = "".join(cell["source"]).strip()
        if source in replacements:
            cell["source"] = [replacements[source]]
    target.write_text(json.dumps(data), encoding="utf-8")


def zip_folder(folder: Path, archive: Path, prefix: str) -> None:
    with zipfile.ZipFile(archive, "w") as opened:
        for path in sorted(folder.iterdir()):
            opened.write(path, f"{prefix}{path.name}")


# --- what every results.json must be -------------------------------------------------------------


def assert_gradescope_results(data: dict[str, Any]) -> None:
    """Gradescope's format: known keys, numbers, visibilities, and a total equal to its tests."""
    assert set(data) <= TOP_KEYS, set(data) - TOP_KEYS
    assert isinstance(data["score"], float | int) and not isinstance(data["score"], bool)
    assert data["visibility"] in VISIBILITIES
    assert data["stdout_visibility"] in VISIBILITIES
    assert isinstance(data["output"], str)
    names = []
    for test in data["tests"]:
        assert set(test) <= TEST_KEYS, set(test) - TEST_KEYS
        assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(test)
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["output"], str)
        assert 0 <= test["score"] <= test["max_score"]
        assert test["visibility"] in VISIBILITIES
        assert test["status"] in ("passed", "failed")
        names.append(test["name"])
    assert len(names) == len(set(names))
    assert math.isclose(data["score"], sum(t["score"] for t in data["tests"]), abs_tol=1e-9)


def summary(data: dict[str, Any]) -> list[tuple[str, float, float, str, str]]:
    return [
        (t["name"], t["score"], t["max_score"], t["status"], t["visibility"]) for t in data["tests"]
    ]


# --- the runs ----------------------------------------------------------------------------------


@contextlib.contextmanager
def scratch_prefix() -> Iterator[Path]:
    """A prefix every user can traverse (as ``/opt/course-lab`` is), removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="course-lab-gradescope-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Build the zips, install them offline, and run every submission once."""
    base = tmp_path_factory.mktemp("gradescope")
    weights = base / "points.json"
    weights.write_text(json.dumps(WEIGHTS), encoding="utf-8")
    full_zip, printed = build(
        base,
        "full.zip",
        "--hidden-seed",
        "4711",
        "--hidden-cases",
        str(HIDDEN_CASES),
        "--weights",
        str(weights),
        "--notebooks",
        "--timeout",
        str(TIMEOUT),
    )
    short_zip, _ = build(base, "short.zip", "--timeout", str(SHORT_TIMEOUT))
    no_sandbox_zip, _ = build(base, "none.zip", "--timeout", str(TIMEOUT), "--sandbox", "none")
    solved = correct_with_the_cli(base / "solved" / "ch11")
    marker = f"forger-{uuid.uuid4().hex}"
    found: dict[str, Any] = {"base": base, "printed": printed, "marker": marker}
    found["zips"] = {"full": full_zip, "short": short_zip, "none": no_sandbox_zip}
    with scratch_prefix() as full_prefix, scratch_prefix() as short_prefix:
        found["setup"] = setup_offline(
            unpack(full_zip, base / "install-full").joinpath("source"), full_prefix
        )
        found["setup_short"] = setup_offline(
            unpack(short_zip, base / "install-short").joinpath("source"), short_prefix
        )
        found["modes"] = {
            "full": (full_prefix / "workbook").stat().st_mode & 0o777,
            "short": (short_prefix / "workbook").stat().st_mode & 0o777,
        }

        def one(name: str, archive: Path, prefix: Path, fill: Any) -> None:
            root = unpack(archive, base / "runs" / name)
            fill(root)
            data, log, seconds = run_autograder(root, prefix)
            found[name] = {"data": data, "log": log, "seconds": seconds, "root": root}

        one(
            "correct",
            full_zip,
            full_prefix,
            lambda r: shutil.copytree(solved, r / "submission", dirs_exist_ok=True),
        )
        one(
            "wrong",
            full_zip,
            full_prefix,
            lambda r: write_practice_package(r / "submission" / "ch11", solved=["11.1"]),
        )
        one(
            "zip",
            full_zip,
            full_prefix,
            lambda r: zip_folder(solved, r / "submission" / "ch11.zip", "practice/ch11/"),
        )
        one(
            "notebook",
            full_zip,
            full_prefix,
            lambda r: answered_notebook(
                r / "submission" / "lab3.ipynb", {"answer_q1 = ...": "answer_q1 = 26\n"}
            ),
        )

        def forger(root: Path) -> None:
            (root / "results" / "results.json").write_text(json.dumps(FORGED), encoding="utf-8")
            package = practice(root / "submission" / "ch11", ["11.1"])
            append(package, "entries", forger_code(root, marker))

        one("forger", full_zip, full_prefix, forger)

        def fake_json(root: Path) -> None:
            package = practice(root / "submission" / "ch11", ["11.1"])
            append(package, "entries", PRINTS_FAKE_JSON)
            prepend(package, "11.1", [f"print({json.dumps(FORGED)!r})"])

        one("fake_json", full_zip, full_prefix, fake_json)

        def never_returns(root: Path) -> None:
            package = practice(root / "submission" / "ch11", LABS)
            append(package, "groups", "while True:\n    pass")

        one("never_returns", short_zip, short_prefix, never_returns)
        # The zip built with --sandbox none installs exactly as the short one does (same
        # setup.sh and requirements; only the settings differ), so it runs on that install.
        one("no_sandbox", no_sandbox_zip, short_prefix, forger)
        found["forger_after"] = hashlib.sha256(
            (found["forger"]["root"] / "results" / "results.json").read_bytes()
        ).hexdigest()
        time.sleep(2)  # a detached forger that escaped would write again by now
        yield found


# --- the zip -----------------------------------------------------------------------------------


def test_the_zip_holds_the_contract_files_at_its_root_and_the_workbook(
    graded: dict[str, Any],
) -> None:
    with zipfile.ZipFile(graded["zips"]["full"]) as opened:
        infos = {info.filename: info for info in opened.infolist()}
        settings = json.loads(opened.read("course-lab-gradescope.json"))
        requirements = opened.read("requirements.txt").decode().split()
        setup = opened.read("setup.sh").decode()
    roots = {name.split("/")[0] for name in infos}
    assert roots == {
        "setup.sh",
        "run_autograder",
        "course-lab-gradescope.json",
        "requirements.txt",
        "workbook",
    }
    for script in ("setup.sh", "run_autograder"):
        assert (infos[script].external_attr >> 16) & 0o777 == 0o755
    assert setup.startswith("#!/usr/bin/env bash\n")
    for needed in (
        "workbook/pyproject.toml",
        "workbook/course_lib/__init__.py",
        "workbook/course_lib/grading/gradescope/__init__.py",
        "workbook/course_lib/grading/gradescope/__main__.py",  # python -m ... run, check
        "workbook/course_lib/locale/zh/LC_MESSAGES/course_lib.mo",
        "workbook/tests/conftest.py",
        "workbook/tests/lab_checks.py",
        "workbook/tests/labs/test_lab_11_3.py",
        "workbook/notebooks/03-lab-11.3-budget-projection.ipynb",  # with --notebooks only
    ):
        assert needed in infos, needed
    assert not [name for name in infos if "__pycache__" in name or name.endswith(".pyc")]
    assert settings["labs"] == LABS
    assert settings["hidden"] == {"seed": 4711, "cases": HIDDEN_CASES}
    assert settings["weights"] == {
        "checks": {"test_fixed_costs_are_deducted_before_any_message": 2.0},
        "hidden": {"11.1": 1.0, "11.3": 3.0},
    }
    assert settings["limits"]["timeout"] == TIMEOUT
    assert settings["notebooks"] is True and settings["sandbox"] == "auto"
    assert "pydantic>=2.12" in requirements and "pytest>=8.0" in requirements
    assert "langchain-core>=0.3" in requirements  # the notebooks' imports, with --notebooks
    assert not [line for line in requirements if line.startswith("course-lib")]
    with zipfile.ZipFile(graded["zips"]["short"]) as short:
        short_names = short.namelist()
        with zipfile.ZipFile(graded["zips"]["none"]) as none:  # installed alike: one install
            for name in ("setup.sh", "requirements.txt"):
                assert short.read(name) == none.read(name)
            assert json.loads(none.read("course-lab-gradescope.json"))["sandbox"] == "none"
    assert not [name for name in short_names if name.startswith("workbook/notebooks/")]
    assert (
        f"{len(CHECKS) + len(LABS) + len(EXERCISES_OF_LABS)} tests worth {MAX_POINTS} points"
        in (graded["printed"])
    )


def test_the_same_settings_build_the_same_zip_byte_for_byte(tmp_path: Path) -> None:
    first, _ = build(tmp_path, "a.zip", "--labs", "11.3", "--timeout", "9")
    second, _ = build(tmp_path, "b.zip", "--labs", "11.3", "--timeout", "9")
    assert first.read_bytes() == second.read_bytes()
    assert first.stat().st_mode & 0o777 == 0o644


def test_setup_installs_the_bundled_workbook_and_checks_it(graded: dict[str, Any]) -> None:
    assert "setup.sh: offline: not downloading the requirements" in graded["setup"].stdout
    ready = f"setup.sh: ready: workbook 0.1.0, labs {', '.join(LABS)}; "
    assert (
        ready
        + f"{len(CHECKS) + len(LABS) + len(EXERCISES_OF_LABS)} tests worth {MAX_POINTS} points"
        in (graded["setup"].stdout)
    )
    # The reference is root's alone unless the notebook worker must import it.
    assert graded["modes"] == {"full": 0o755, "short": 0o700}


# --- honest submissions ------------------------------------------------------------------------


def test_every_results_file_has_gradescope_s_format(graded: dict[str, Any]) -> None:
    for name in ("correct", "wrong", "zip", "notebook", "forger", "fake_json", "never_returns"):
        assert_gradescope_results(graded[name]["data"])


def test_a_correct_solution_scores_every_point_but_the_notebook_exercises(
    graded: dict[str, Any],
) -> None:
    data = graded["correct"]["data"]
    checks = data["tests"][: len(CHECKS)]
    assert [t["name"] for t in checks] == [f"Lab {lab}: {name}" for lab, name in CHECKS]
    assert {t["status"] for t in checks} == {"passed"}
    assert [t["max_score"] for t in checks] == [float(WEIGHTS.get(n, 1)) for _, n in CHECKS]
    hidden = data["tests"][len(CHECKS) : len(CHECKS) + len(LABS)]
    assert [(t["name"], t["score"], t["visibility"]) for t in hidden] == [
        (f"Lab {lab}: hidden cases", float(WEIGHTS.get(f"hidden {lab}", 0)), "after_published")
        for lab in LABS
    ]
    assert all(f"{HIDDEN_CASES}/{HIDDEN_CASES} agree" in t["output"] for t in hidden)
    notebooks = data["tests"][len(CHECKS) + len(LABS) :]
    assert [t["name"] for t in notebooks] == [f"Notebook exercise {e}" for e in EXERCISES_OF_LABS]
    assert {t["score"] for t in notebooks} == {0.0}  # a practice folder holds no notebook
    assert sum(t["max_score"] for t in data["tests"]) == MAX_POINTS
    assert data["score"] == CHECK_POINTS + HIDDEN_POINTS
    assert data["output"].startswith(f"Chapter 11 checks: {len(CHECKS)}/{len(CHECKS)} passed")
    assert data["extra_data"]["status"] == "ok"
    assert "Submission: submission\n" in graded["correct"]["log"]  # its files, directly there


def test_a_zip_of_the_solution_scores_the_same(graded: dict[str, Any]) -> None:
    assert summary(graded["zip"]["data"]) == summary(graded["correct"]["data"])
    assert "Submission: submission/ch11.zip" in graded["zip"]["log"]


def test_a_wrong_solution_scores_only_what_it_got_right(graded: dict[str, Any]) -> None:
    data = graded["wrong"]["data"]
    passed = [t["name"] for t in data["tests"] if t["status"] == "passed"]
    assert passed == [f"Lab 11.1: {name}" for name in check_names("11.1")] + [
        "Lab 11.1: hidden cases"
    ]
    assert data["score"] == LAB_11_1_POINTS + WEIGHTS["hidden 11.1"]
    failed = [t for t in data["tests"][: len(CHECKS)] if t["status"] == "failed"]
    assert len(failed) == len(CHECKS) - len(check_names("11.1"))
    assert all("LabNotImplemented" in t["output"] for t in failed)
    hidden_11_3 = next(t for t in data["tests"] if t["name"] == "Lab 11.3: hidden cases")
    assert hidden_11_3["score"] == 0 and hidden_11_3["max_score"] == WEIGHTS["hidden 11.3"]
    assert hidden_11_3["output"].startswith(f"Lab 11.3: 0/{HIDDEN_CASES} agree with the reference")
    assert "expected" not in hidden_11_3["output"]  # no input or answer without --hidden-feedback


def test_a_notebook_alone_scores_its_exercises_and_says_why_the_checks_did_not_run(
    graded: dict[str, Any],
) -> None:
    data = graded["notebook"]["data"]
    assert data["score"] == 1.0
    by_name = {t["name"]: t for t in data["tests"]}
    assert by_name["Notebook exercise 11.3-q1"]["status"] == "passed"
    assert by_name["Notebook exercise 11.3-q2"]["output"] == NOT_ANSWERED
    assert by_name["Notebook exercise 11.1-q1"]["output"].startswith("Not reached")
    checks = data["tests"][: len(CHECKS)]
    assert {t["output"] for t in checks} == {"Not run: see the status at the top."}
    assert "Status: invalid" in data["output"]
    assert "a notebook, not a practice package" in data["output"]
    assert data["extra_data"]["notebooks"] == "ok"


# --- hostile submissions -----------------------------------------------------------------------


def test_a_forged_results_file_is_never_what_is_reported(graded: dict[str, Any]) -> None:
    forger, honest = graded["forger"], graded["wrong"]
    assert summary(forger["data"]) == summary(honest["data"])
    assert forger["data"]["score"] == honest["data"]["score"] != FORGED["score"]
    results = forger["root"] / "results"
    assert sorted(path.name for path in results.iterdir()) == ["results.json"]
    assert results.stat().st_mode & 0o777 == 0o700
    assert not (forger["root"] / "results.json").exists()
    assert not (forger["root"] / "source" / "results.json").exists()
    # Nothing of it still runs, and the file did not change after the run.
    now = hashlib.sha256((results / "results.json").read_bytes()).hexdigest()
    assert now == graded["forger_after"]
    marker = graded["marker"].encode()
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                assert marker not in Path("/proc", name, "cmdline").read_bytes()


def test_fake_json_printed_by_a_submission_counts_for_nothing(graded: dict[str, Any]) -> None:
    data = graded["fake_json"]["data"]
    assert summary(data) == summary(graded["wrong"]["data"])
    assert "forged" not in json.dumps(data)


def test_a_submission_that_never_returns_is_stopped_at_the_time_limit(
    graded: dict[str, Any],
) -> None:
    run = graded["never_returns"]
    data = run["data"]
    assert data["score"] == 0
    assert [t["max_score"] for t in data["tests"]] == [1.0] * len(CHECKS)
    assert {t["status"] for t in data["tests"]} == {"failed"}
    assert "Status: timeout" in data["output"]
    assert data["extra_data"]["status"] == "timeout"
    assert run["seconds"] < SHORT_TIMEOUT + 60


def test_without_bubblewrap_the_grader_s_fallback_applies(graded: dict[str, Any]) -> None:
    """``--sandbox none``: a user id of its own, or no run at all where that cannot be had."""
    run = graded["no_sandbox"]
    data = run["data"]
    assert_gradescope_results(data)
    results = run["root"] / "results"
    refused = {
        "none-root-private-python": "cannot be started by an unprivileged user",  # under /root
        "none-user": "no bubblewrap and not root",
    }
    fallback = level("none")
    if fallback in refused:  # the submission would share the grader's rights: not run at all
        assert data["score"] == 0 and data["tests"] == []
        assert data["output"].startswith("The autograder could not grade this submission")
        assert refused[fallback] in data["extra_data"]["error"]
        assert "Traceback" in run["log"]
    else:  # "none-root": a user id of its own, which cannot reach the results
        assert fallback == "none-root"
        assert summary(data) == summary(graded["forger"]["data"])
    assert sorted(path.name for path in results.iterdir()) == ["results.json"]


# --- the command -------------------------------------------------------------------------------


def test_a_folder_named_gradescope_is_pointed_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gradescope").mkdir()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["grade", "gradescope", "--labs", "11.1"]) == 0
    assert (
        "A folder named gradescope is here too: to grade the submissions in it, run "
        "`course-lab grade ./gradescope`." in printed.getvalue()
    )
    assert (tmp_path / "autograder.zip").is_file()
    with contextlib.redirect_stdout(io.StringIO()):  # never overwritten: the next free name
        assert main(["grade", "gradescope", "--labs", "11.1"]) == 0
    assert (tmp_path / "autograder-2.zip").is_file()


def test_options_that_only_a_roster_knows_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    students = tmp_path / "students.csv"
    students.write_text("folder,student_id\nada,1\n", encoding="utf-8")
    out = tmp_path / "ag.zip"
    assert main(["grade", "gradescope", "--students", str(students), "--out", str(out)]) == 2
    assert "--students do not apply to `course-lab grade gradescope`" in capsys.readouterr().err
    assert not out.exists()
    points = tmp_path / "points.json"
    points.write_text('{"hidden 11.3": 2}', encoding="utf-8")
    assert main(["grade", "gradescope", "--weights", str(points), "--out", str(out)]) == 2
    assert "gives points to hidden cases, but no --hidden-seed" in capsys.readouterr().err
    out.write_bytes(b"an earlier zip")
    assert main(["grade", "gradescope", "--out", str(out)]) == 2
    assert "is never overwritten" in capsys.readouterr().err
    assert out.read_bytes() == b"an earlier zip"


# --- the results, from a grade (no run) --------------------------------------------------------


def test_results_speak_the_folder_s_language_and_add_up_fractions() -> None:
    """A Chinese practice folder's results are in Chinese; 1 of 3 hidden cases earns 1/3."""
    names = check_names("11.3")
    checks = (
        CheckResult("11.3", names[0], "passed"),
        CheckResult("11.3", names[1], "passed"),
        CheckResult("11.3", names[2], "failed", "case: expected 1, got 2"),
    )
    hidden = tuple(
        HiddenResult("11.3", f"hidden 11.3 #{n}: build_context", outcome, "q: expected 1, got 2")
        for n, outcome in ((1, "passed"), (2, "failed"), (3, "failed"))
    )
    grade = Grade("submission", "ok", checks, hidden=hidden, facts=SubmissionFacts(lang="zh"))
    settings = Settings(
        labs=("11.3",), hidden=HiddenPlan(1, 3), weights=Weights(hidden={"11.3": 1.0})
    )
    data = results_for(grade, settings)
    assert_gradescope_results(data)
    assert data["score"] == 2.3333
    assert [t["name"] for t in data["tests"]] == [
        *(f"Lab 11.3：{name}" for name in names),
        "Lab 11.3：隐藏用例",
    ]
    assert data["tests"][3]["score"] == 0.3333 and data["tests"][3]["status"] == "failed"
    assert data["tests"][3]["output"].splitlines() == [
        "Lab 11.3：1/3 项与参考实现一致",
        "  FAILED  hidden 11.3 #2: build_context",  # no input or answer without the option
        "  FAILED  hidden 11.3 #3: build_context",
    ]
    assert data["output"].splitlines()[0] == "第 11 章检查：2/3 项通过"
