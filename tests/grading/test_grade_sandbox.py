"""``course-lab grade`` against a hostile class: isolation, results never lost, limits explained.

One roster holds every shape a real class hands in, accidental and curious:
correct work, a classic mistake, unfinished labs, a syntax error, an endless
loop, a sleep past the limit, a 20 GiB allocation, a 2 GiB file, 50 MB of
output, 200 processes with detached children, ``os._exit`` halfway through,
a submission that writes into the roster, the output folder, the grader's
package and ``/tmp``, names that are not UTF-8, an empty zip, a path-traversal
zip and a notebook. It is graded once per sandbox this machine offers
(bubblewrap where it works, and always without it), twice: by the command in
the foreground, and by a grader started with SIGINT ignored (as ``nohup``, cron
or a CI runner start it). Both gradebooks must be the same file for file.

What each sandbox level promises differs (``sandbox.GUARANTEES``), so the
isolation test asserts exactly the promise of the level in use: without
bubblewrap, as root, when this Python cannot run as another user, a submission
*can* write outside its copy, and the test says so by finding what it wrote.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from edited_submissions import prepend

from course_lib.grading.grader import Limits, Submission, grade_submission, visible_name
from course_lib.grading.sandbox import bwrap_works, level
from course_lib.tools.cli import main
from course_lib.track.catalogue import CHAPTER_LABS
from course_lib.track.starters import (
    chapter_exports,
    write_practice_package,
)

LABS = list(CHAPTER_LABS)
TIMEOUT = "12"  # a working submission takes 2-4 s in a sandbox; more on a loaded machine
SANDBOXES = ["bwrap", "none"] if bwrap_works() else ["none"]
"""Every level this machine has: both where bubblewrap works, else only the weaker one."""

STRAY_SLEEP = "4242.17"
"""The argument of every ``sleep`` a submission starts: how leftovers are found afterwards."""

WORKBOOK = Path(__file__).resolve().parents[2]
PLANTED = WORKBOOK / "course_lib" / "zz_planted_by_a_submission.txt"
"""Where the curious submission tries to write into the grader's own package."""

COURSE_LAB = Path(sys.executable).with_name("course-lab")
SIGINT_IGNORED = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)
"""A grader started the way nohup, cron and CI runners start it: SIGINT ignored, inherited."""


def starter(directory: Path) -> Path:
    write_practice_package(directory)
    return directory


def solved(directory: Path, labs: list[str] = LABS) -> Path:
    write_practice_package(directory, solved=labs)
    return directory


def append(directory: Path, module: str, code: str) -> Path:
    with (directory / f"{module}.py").open("a", encoding="utf-8") as handle:
        handle.write("\n" + code + "\n")
    return directory


SPAWNS = f"""\
import os as _os
import subprocess as _subprocess
for _ in range(200):
    try:
        _subprocess.Popen(["sleep", "{STRAY_SLEEP}"], start_new_session=True)
    except OSError:
        break
try:
    if _os.fork() == 0:  # a grandchild whose parent exits at once: detached
        try:
            if _os.fork() == 0:
                _os.execvp("sleep", ["sleep", "{STRAY_SLEEP}"])
        finally:
            _os._exit(0)
except OSError:
    pass
"""

CURIOUS = """\
import os as _os
from pathlib import Path as _Path

def _plant(path):
    try:
        _Path(path).write_text("planted by a submission")
    except Exception:
        pass

for _target in {targets!r}:
    _plant(_target)
try:  # the grader's command line names the roster and the output folder
    for _pid in _os.listdir("/proc"):
        if not _pid.isdigit():
            continue
        _args = _Path("/proc", _pid, "cmdline").read_bytes().split(b"\\0")
        if b"grade" in _args:
            for _arg in _args:
                if _arg.startswith(b"/") and _os.path.isdir(_arg):
                    _plant(_os.path.join(_os.fsdecode(_arg), "planted.txt"))
except Exception:
    pass
"""


REEXPORTS = "\n".join(
    f"from course_lib.chapter.{module} import {', '.join(names)}  # noqa: F401, E402"
    for module, names in chapter_exports().items()
)
"""An untouched starter whose ``__init__`` takes every rule from the workbook's own modules."""

PATCHES_THE_JUDGE = """\
def _yes(*args, **kwargs):
    return (True, "")
for _name, _attribute in [
    ("course_lib.track.checks", "judge_checks"),
    ("course_lib.track.checks", "run_checks"),
    ("course_lib.grading.hidden_checks", "judge"),
    ("course_lib.track.plugin", "failure_detail"),
]:
    try:
        import importlib as _importlib
        setattr(_importlib.import_module(_name), _attribute, _yes)
    except Exception:
        pass
"""
"""An untouched starter that replaces the check runner and the hidden-case judge at import."""

FORGES_THE_CHANNEL = """\
import json as _json
import os as _os
_report = {"result": {"schema": "course-lab-check/1", "passed": 15, "total": 15, "ok": True}}
_line = (_json.dumps(_report) + "\\n").encode()
_ready = _json.dumps({"ready": True}).encode()
_answer = _json.dumps({"value": ["list", 0, []]}).encode()
_frames = b"".join(len(x).to_bytes(4, "big") + x for x in [_ready] + [_answer] * 200)
for _fd in range(3, 64):
    for _data in (_line, _frames):
        try:
            _os.write(_fd, _data)
        except OSError:
            pass
_os._exit(0)
"""
"""An untouched starter that writes a made-up report and made-up answers on every descriptor."""

GARBAGE_ON_THE_CHANNEL = """\
import os as _os
for _fd in range(3, 64):
    try:
        _os.write(_fd, b"\\x7fgarbage\\x00\\xff\\xfe!!!")
    except OSError:
        pass
"""
"""A solved package that writes 14 bytes of garbage on every descriptor while importing."""

ALWAYS_EQUAL = """\
class _Yes(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


_right = group_interactions


def group_interactions(entries):
    return _Yes(_right(entries))
"""
"""A solved package whose ``group_interactions`` answers with a list equal to anything."""

USES_THE_ANSWER_KEY = "from answer_key import *  # noqa: F403, E402\n"
"""An untouched starter re-exporting an answer key that sits on the grader's ``PYTHONPATH``."""


def answer_key(root: Path) -> Path:
    """The grader's own folder on ``PYTHONPATH``, holding a module with every reference rule."""
    folder = root / "grader-keys"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answer_key.py").write_text(REEXPORTS + "\n", encoding="utf-8")
    return folder


def empty_zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w"):
        pass


HONEST = ("ada", "forgets_system_cost", "incomplete", "zed")
"""Students who hand in their own work, right or wrong: graded alike whoever else is graded."""


def add_honest_students(roster: Path) -> None:
    roster.mkdir(parents=True, exist_ok=True)
    solved(roster / "ada")
    mistake = solved(roster / "forgets_system_cost")
    budget = mistake / "budget.py"
    text = budget.read_text(encoding="utf-8")
    wrong = "budget.max_tokens - system_tokens - budget.reserved_output"
    assert text.count(wrong) == 1
    budget.write_text(
        text.replace(wrong, "budget.max_tokens - budget.reserved_output"), encoding="utf-8"
    )
    solved(roster / "incomplete", ["11.1", "11.2"])
    solved(roster / "zed")


def build_roster(root: Path, out: Path, tmp_marker: Path) -> Path:
    """Every shape of the issue's class, plus ``zed``: correct, graded after the curious one."""
    roster = root / "roster"
    add_honest_students(roster)
    append(solved(roster / "syntax_error"), "groups", "def oops(:")
    prepend(solved(roster / "loops"), "11.3", ["while True:", "    pass"])
    prepend(solved(roster / "sleeps"), "11.3", ["import time", "time.sleep(1000)"])
    prepend(solved(roster / "allocates_20_gib"), "11.2", ["hog = bytearray(20 * 2**30)"])
    big_file = ["with open('big.bin', 'wb') as big:", "    for _ in range(2048):"]
    prepend(solved(roster / "writes_2_gib"), "11.2", [*big_file, "        big.write(bytes(2**20))"])
    append(solved(roster / "prints_50_mb"), "groups", "print('x' * 50_000_000)")
    append(solved(roster / "spawns"), "groups", SPAWNS)
    prepend(solved(roster / "exits_halfway"), "11.3", ["import os", "os._exit(3)"])
    targets = [
        str(roster / "zed" / "groups.py"),
        str(roster / "planted.txt"),
        str(out / "planted.txt"),
        str(PLANTED),
        str(tmp_marker),
    ]
    append(solved(roster / "curious"), "groups", CURIOUS.format(targets=targets))
    # Students who write no rule and try to score anyway (each scores 0, with a note).
    for name, code in [
        ("re_exporter", REEXPORTS),
        ("patches_the_judge", PATCHES_THE_JUDGE),
        ("forges_the_channel", FORGES_THE_CHANNEL),
        ("uses_the_answer_key", USES_THE_ANSWER_KEY),
    ]:
        append(starter(roster / name), "__init__", code)
    append(solved(roster / "garbage_on_the_channel"), "__init__", GARBAGE_ON_THE_CHANNEL)
    append(solved(roster / "always_equal"), "groups", ALWAYS_EQUAL)
    solved(roster / os.fsdecode(b"jos\xe9"))  # a folder name that is not UTF-8
    (roster / "nora.ipynb").write_text("{}", encoding="utf-8")
    empty_zip(roster / "王 芳.zip")
    (roster / os.fsdecode(b"ren\xe9e.zip")).write_bytes(b"")
    with zipfile.ZipFile(roster / "sneaky.zip", "w") as opened:
        opened.writestr("__init__.py", "")
        opened.writestr("../../escaped.py", "print('escaped')")
    (roster / "README.txt").write_text("the instructor's notes", encoding="utf-8")
    return roster


EXPECTED = {
    "ada": ("15/15", "ok"),
    "allocates_20_gib": ("3/15", "ok"),
    "always_equal": ("13/15", "ok"),  # its one 11.2 check of errors still passes
    "curious": ("15/15", "ok"),
    "exits_halfway": ("8/15", "crashed"),
    "forges_the_channel": ("0/15", "error"),
    "garbage_on_the_channel": ("0/15", "error"),
    "patches_the_judge": ("0/15", "ok"),
    "re_exporter": ("0/15", "error"),
    "uses_the_answer_key": ("0/15", "error"),
    "forgets_system_cost": ("10/15", "ok"),
    "incomplete": ("6/15", "ok"),
    "jos\\xe9": ("15/15", "ok"),
    "loops": ("6/15", "timeout"),
    "nora.ipynb": ("0/15", "invalid"),
    "prints_50_mb": ("15/15", "ok"),
    "ren\\xe9e": ("0/15", "invalid"),
    "sleeps": ("6/15", "timeout"),
    "sneaky": ("0/15", "invalid"),
    "spawns": ("15/15", "ok"),
    "syntax_error": ("0/15", "error"),
    "writes_2_gib": ("3/15", "ok"),
    "zed": ("15/15", "ok"),
    "王 芳": ("0/15", "invalid"),
}
"""The roster's expected gradebook: student -> (total, status), whatever the sandbox."""


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def options(sandbox: str) -> list[str]:
    return ["--jobs", "2", "--timeout", TIMEOUT, "--file-size", "4", "--sandbox", sandbox]


def leftovers(root: Path) -> list[str]:
    """Processes a run left: a submission's marked ``sleep``, or anything working under ``root``.

    The grader's temporary folders are under ``root`` (``TMPDIR``), so a worker,
    its bubblewrap or anything started in its copy names ``root`` in its command
    line or working folder.
    """
    found: list[str] = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            command = Path("/proc", name, "cmdline").read_bytes()
            where = os.readlink(f"/proc/{name}/cwd") if os.path.exists(f"/proc/{name}") else ""
            if STRAY_SLEEP.encode() in command or str(root).encode() in command:
                found.append(f"{name}: {command!r}")
            elif where.startswith(str(root)):
                found.append(f"{name}: in {where}")
    return found


def read_book(out: Path) -> dict[str, dict[str, str]]:
    with (out / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def grade_foreground(sandbox: str, root: Path) -> dict[str, Any]:
    out = root / "grades"
    scratch = root / "tmp"
    scratch.mkdir(parents=True)
    roster = build_roster(root, out, Path("/tmp") / f"course-lab-test-{root.name}-planted.txt")
    before = tree_digest(roster)
    printed, errors = io.StringIO(), io.StringIO()
    saved, tempfile.tempdir = tempfile.tempdir, str(scratch)
    keys = str(answer_key(root))
    saved_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = keys  # the grader's own folder: never the submission's
    sys.path.insert(0, keys)
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
            status = main(["grade", str(roster), *options(sandbox), "--out", str(out)])
    finally:
        tempfile.tempdir = saved
        sys.path.remove(keys)
        if saved_path is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved_path
    return {
        "status": status,
        "out": out,
        "roster": roster,
        "before": before,
        "printed": printed.getvalue(),
        "stderr": errors.getvalue(),
        "scratch": scratch,
        "leftovers": leftovers(root),
    }


def grade_with_sigint_ignored(sandbox: str, root: Path) -> dict[str, Any]:
    out = root / "grades"
    scratch = root / "tmp"
    scratch.mkdir(parents=True)
    roster = build_roster(root, out, Path("/tmp") / f"course-lab-test-{root.name}-planted.txt")
    before = tree_digest(roster)
    command = [sys.executable, "-c", SIGINT_IGNORED, str(COURSE_LAB), "grade", str(roster)]
    command += [*options(sandbox), "--out", str(out)]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(answer_key(root))},
        timeout=900,
        check=False,
    )
    return {
        "status": done.returncode,
        "out": out,
        "roster": roster,
        "before": before,
        "printed": done.stdout,
        "stderr": done.stderr,
        "scratch": scratch,
        "leftovers": leftovers(root),
    }


@pytest.fixture(scope="module", params=SANDBOXES)
def graded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    sandbox: str = request.param
    runs = {}
    try:
        runs["foreground"] = grade_foreground(sandbox, tmp_path_factory.mktemp(f"fg-{sandbox}"))
        runs["sigint_ignored"] = grade_with_sigint_ignored(
            sandbox, tmp_path_factory.mktemp(f"ign-{sandbox}")
        )
        yield {
            "sandbox": sandbox,
            "level": level("bwrap" if sandbox == "bwrap" else "none"),
            **runs,
        }
    finally:
        PLANTED.unlink(missing_ok=True)  # only a sandbox-less root grader lets it be written
        for path in Path("/tmp").glob("course-lab-test-*-planted.txt"):
            path.unlink(missing_ok=True)


RUNS = ["foreground", "sigint_ignored"]


@pytest.mark.parametrize("run", RUNS)
def test_every_student_gets_the_expected_row(graded: dict[str, Any], run: str) -> None:
    result = graded[run]
    assert result["status"] == 0, result["stderr"]
    book = read_book(result["out"])
    assert {student: (row["total"], row["status"]) for student, row in book.items()} == EXPECTED
    assert "  (skipped README.txt: not a folder or a .zip)" in result["printed"]
    assert "Traceback" not in result["stderr"]


@pytest.mark.parametrize("run", RUNS)
def test_the_guarantee_is_said_once_on_stderr_and_in_the_report(
    graded: dict[str, Any], run: str
) -> None:
    result = graded[run]
    lines = [line for line in result["stderr"].splitlines() if line.startswith("sandbox: ")]
    assert len(lines) == 1, result["stderr"]
    expected = "sandbox: bubblewrap" if graded["sandbox"] == "bwrap" else "sandbox: none"
    assert lines[0].startswith(expected)
    page = (result["out"] / "report.html").read_text(encoding="utf-8")
    assert lines[0].split(". ")[0] in page


def judged(out: Path, students: Sequence[str]) -> dict[str, dict[str, Any]]:
    """What the judge decided for ``students``: scores, checks, status and note (not how
    alike their work is to the others', which depends on who else handed in)."""
    data = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    keys = ("status", "note", "labs", "passed", "total", "points", "checks")
    return {
        entry["student"]: {key: entry[key] for key in keys}
        for entry in data["students"]
        if entry["student"] in students
    }


def test_honest_rows_are_the_same_whoever_else_is_graded_and_at_every_level(
    graded: dict[str, Any], tmp_path: Path
) -> None:
    """The hostile students change nothing of the honest ones' rows, nor does the sandbox."""
    with_hostile = judged(graded["foreground"]["out"], HONEST)
    assert sorted(with_hostile) == sorted(HONEST)
    roster = tmp_path / "roster"
    add_honest_students(roster)
    for sandbox in SANDBOXES:
        out = tmp_path / f"grades-{sandbox}"
        status, _printed, errors = run_cli(
            ["grade", str(roster), *options(sandbox), "--out", str(out)]
        )
        assert status == 0, errors
        assert judged(out, HONEST) == with_hostile, sandbox


def test_foreground_and_sigint_ignored_write_the_same_files(graded: dict[str, Any]) -> None:
    first = tree_digest(graded["foreground"]["out"])
    second = tree_digest(graded["sigint_ignored"]["out"])
    planted = {name for name in first.keys() | second.keys() if "planted" in name}
    for name in planted:  # written only where the level allows it, checked below
        first.pop(name, None)
        second.pop(name, None)
    assert first == second


@pytest.mark.parametrize("run", RUNS)
def test_no_process_is_left_behind(graded: dict[str, Any], run: str) -> None:
    assert graded[run]["leftovers"] == []


@pytest.mark.parametrize("run", RUNS)
def test_a_curious_submission_is_held_to_the_levels_promise(
    graded: dict[str, Any], run: str
) -> None:
    """What the submission could reach is exactly what ``GUARANTEES`` says for this level."""
    result = graded[run]
    book = read_book(result["out"])
    assert book["zed"]["total"] == "15/15"  # staged before any code ran, whatever the level
    planted_out = (result["out"] / "planted.txt").exists()
    roster_changed = tree_digest(result["roster"]) != result["before"]
    if graded["level"] in ("bwrap", "none-root"):
        assert not roster_changed and not planted_out
        assert not PLANTED.exists()
        assert not list(Path("/tmp").glob(f"course-lab-test-*{result['out'].parent.name}*"))
    else:  # the grader's own rights: the submission reached the live roster, as promised
        assert roster_changed and (result["roster"] / "zed" / "groups.py").read_text(
            encoding="utf-8"
        ) == ("planted by a submission")


@pytest.mark.parametrize("run", RUNS)
def test_nothing_is_left_in_the_graders_temporary_folder(graded: dict[str, Any], run: str) -> None:
    assert list(graded[run]["scratch"].iterdir()) == []


@pytest.mark.parametrize("run", RUNS)
def test_notes_name_the_limit_and_never_advise_losing_work(
    graded: dict[str, Any], run: str
) -> None:
    book = read_book(graded[run]["out"])
    note = book["writes_2_gib"]["note"]
    assert "went over the file-size limit of 4 MiB (--file-size)" in note, note
    assert not note.startswith("OSError")
    assert book["prints_50_mb"]["note"] == ""  # what a package prints goes nowhere
    assert (
        "ran out of memory: each process may use at most 1024 MiB"
        in (book["allocates_20_gib"]["note"])
    )
    syntax = book["syntax_error"]["note"]
    assert "fails to import (groups.py, line " in syntax and "SyntaxError" in syntax
    assert "--force" not in syntax
    assert "check again with `course-lab check 11 --impl <your practice folder>`" in syntax
    assert book["exits_halfway"]["note"] == (
        "the process running the rules ended with exit status 3 during a call of "
        "build_context (4 times); the checks it ended failed"
    )
    assert book["loops"]["note"] == f"stopped after {TIMEOUT} s; the checks that finished count"
    assert book["ren\\xe9e"]["note"] == "the zip file is empty (0 bytes): nothing was handed in"
    assert book["王 芳"]["note"] == "the zip is empty: it holds no files"
    assert book["sneaky"]["note"] == "the zip holds an unsafe path '../../escaped.py'"
    assert book["nora.ipynb"]["note"].startswith("a notebook, not a practice package")
    for row in book.values():
        assert "Errno" not in row["note"] and "Traceback" not in row["note"], row


def test_names_are_escaped_in_every_file(graded: dict[str, Any]) -> None:
    out = graded["foreground"]["out"]
    data = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    students = [entry["student"] for entry in data["students"]]
    assert "jos\\xe9" in students and "王 芳" in students
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "jos\\xe9" in page and "王 芳" in page
    feedback = sorted(path.name for path in (out / "feedback").iterdir())
    assert "jos_xe9.txt" in feedback and "王_芳.txt" in feedback and "ren_xe9e.txt" in feedback
    assert len(feedback) == len(EXPECTED)


# --- Ctrl-C, and earlier runs' folders ----------------------------------------------------


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_ctrl_c_keeps_the_finished_students_and_ends_every_submission(
    sandbox: str, tmp_path: Path
) -> None:
    roster = tmp_path / "roster"
    solved(roster / "ada")
    for name in ("sleeper_1", "sleeper_2"):
        append(solved(roster / name), "groups", f"import time\ntime.sleep({STRAY_SLEEP})")
    out = tmp_path / "grades"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    command = [str(COURSE_LAB), "grade", str(roster), "--jobs", "1", "--timeout", "120"]
    command += ["--sandbox", sandbox, "--out", str(out)]
    grader = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    try:
        deadline = time.monotonic() + 300  # waiting for ada's row, not timing anything
        while not (out / "gradebook.csv").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert list(read_book(out)) == ["ada"]
        time.sleep(1)  # the first sleeper is running now
        grader.send_signal(signal.SIGINT)
        _printed, errors = grader.communicate(timeout=120)
    finally:
        grader.kill()
        grader.wait()
    assert grader.returncode == 130, errors
    assert "Traceback" not in errors
    assert errors.splitlines()[-1] == (
        f"Interrupted: the 1 of 3 students graded so far are in {out / 'gradebook.csv'}; "
        "grade again into a new folder for the rest."
    )
    assert read_book(out)["ada"]["total"] == "15/15"
    assert (out / "feedback" / "ada.txt").is_file()
    assert leftovers(tmp_path) == []
    assert list(scratch.iterdir()) == []


def small_roster(root: Path) -> Path:
    """A roster that needs no worker at all (every entry is refused before any code runs)."""
    roster = root / "class"
    (roster / "notes_only").mkdir(parents=True)
    (roster / "notes_only" / "notes.md").write_text("my notes", encoding="utf-8")
    for name in ("a b", "a_b", os.fsdecode(b"jos\xe9"), "王 芳"):
        (roster / name).mkdir()
    (roster / "nora.ipynb").write_text("{}", encoding="utf-8")
    (roster / "README.txt").write_text("notes", encoding="utf-8")
    return roster


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    printed, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
        status = main(argv)
    return status, printed.getvalue(), errors.getvalue()


def test_an_earlier_runs_folder_is_never_overwritten(tmp_path: Path) -> None:
    roster = small_roster(tmp_path)
    status, printed, _ = run_cli(["grade", str(roster), "--sandbox", "none"])
    first = tmp_path / "class-grades"
    assert status == 0 and first.is_dir()
    kept = tree_digest(first)
    status, printed, _ = run_cli(["grade", str(roster), "--sandbox", "none"])
    assert status == 0 and f"Wrote {tmp_path / 'class-grades-2' / 'gradebook.csv'}" in printed
    assert tree_digest(first) == kept
    status, printed, errors = run_cli(["grade", str(roster), "--out", str(first)])
    assert status == 2 and printed == ""
    assert errors == (
        f"course-lab: error: --out {first} already holds files (an earlier run's gradebook?); "
        "it is never overwritten: choose a new folder, or move that one away yourself\n"
    )
    assert tree_digest(first) == kept


def test_every_entry_gets_a_row_with_its_name_escaped(tmp_path: Path) -> None:
    roster = small_roster(tmp_path)
    out = tmp_path / "grades"
    status, printed, _ = run_cli(["grade", str(roster), "--sandbox", "none", "--out", str(out)])
    assert status == 0
    assert "  (skipped README.txt: not a folder or a .zip)" in printed
    book = read_book(out)
    assert sorted(book) == sorted(["a b", "a_b", "jos\\xe9", "nora.ipynb", "notes_only", "王 芳"])
    assert {row["status"] for row in book.values()} == {"invalid"}
    assert book["nora.ipynb"]["note"] == (
        "a notebook, not a practice package: hand in the folder `course-lab practice 11` "
        "wrote, or a .zip of it"
    )
    feedback = sorted(path.name for path in (out / "feedback").iterdir())
    assert feedback == sorted(
        ["a_b.txt", "a_b-2.txt", "jos_xe9.txt", "nora.ipynb.txt", "notes_only.txt", "王_芳.txt"]
    )
    raw = (out / "gradebook.csv").read_bytes()
    assert b"jos\\xe9" in raw and "王 芳".encode() in raw  # valid UTF-8 throughout
    raw.decode("utf-8")


def test_empty_and_traversal_zips_are_explained(tmp_path: Path) -> None:
    empty_zip(tmp_path / "empty.zip")
    (tmp_path / "nothing.zip").write_bytes(b"")
    with zipfile.ZipFile(tmp_path / "up.zip", "w") as opened:
        opened.writestr("ch11/__init__.py", "")
        opened.writestr("ch11/../../../up.py", "")
    expected = {
        "empty": "the zip is empty: it holds no files",
        "nothing": "the zip file is empty (0 bytes): nothing was handed in",
        "up": "the zip holds an unsafe path 'ch11/../../../up.py'",
    }
    for name, note in expected.items():
        grade = grade_submission(Submission(name, tmp_path / f"{name}.zip"), LABS, Limits())
        assert (grade.status, grade.note) == ("invalid", note)
    assert not (tmp_path.parent / "up.py").exists()


def test_without_bwrap_the_weaker_guarantee_is_said_once(tmp_path: Path) -> None:
    """A machine without bubblewrap (here: a PATH that does not reach it) grades, and says so.

    As root, ``--sandbox auto`` refuses rather than fall back by surprise: the instructor
    passes ``--sandbox none`` to accept the weaker level.
    """
    roster = small_roster(tmp_path)
    environment = {**os.environ, "PATH": str(tmp_path / "no-programs-here")}
    command = [str(COURSE_LAB), "grade", str(roster), "--out", str(tmp_path / "grades")]
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    if os.geteuid() == 0:
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr.startswith("course-lab: error: --sandbox auto as root: bubblewrap")
        assert done.stderr.count("\n") == 1 and "--sandbox none" in done.stderr
        assert not (tmp_path / "grades").exists()
        accepted = [*command, "--sandbox", "none"]
        done = subprocess.run(
            accepted, capture_output=True, text=True, env=environment, check=False
        )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("sandbox: ")]
    assert len(lines) == 1 and lines[0].startswith(
        "sandbox: none (bubblewrap is not installed or does not work here"
    )
    assert "apt-get install bubblewrap" in lines[0] or "cannot write the roster" in lines[0]
    page = (tmp_path / "grades" / "report.html").read_text(encoding="utf-8")
    assert "sandbox: none (bubblewrap is not installed or does not work here" in page

    insisted = subprocess.run(
        [*command[:-1], str(tmp_path / "grades-2"), "--sandbox", "bwrap"],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert insisted.returncode == 2 and insisted.stdout == ""
    assert insisted.stderr.startswith(
        "course-lab: error: --sandbox bwrap: bubblewrap is not installed or cannot create "
        "namespaces here"
    )
    assert not (tmp_path / "grades-2").exists()


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"jos\xe9", "jos\\xe9"),
        (b"ana maria", "ana maria"),
        ("王 芳".encode(), "王 芳"),
        (b"tab\there", "tab\\there"),
        (b"new\nline", "new\\nline"),
    ],
)
def test_names_are_shown_as_readable_text(raw: bytes, shown: str) -> None:
    assert visible_name(os.fsdecode(raw)) == shown
