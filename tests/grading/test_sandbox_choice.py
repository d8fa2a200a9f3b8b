"""The grader's confinement is never weaker than the instructor chose.

``--sandbox auto`` means bubblewrap where it works. As an ordinary user the
fallback is ``none``, whose worker runs with that user's rights; as root the
fallback would hand every submission root's rights, so ``auto`` refuses and
says how to choose. ``--sandbox bwrap`` insists; ``--sandbox none`` accepts.
And what bubblewrap shows a submission is the environment, never the grader's own
``PYTHONPATH`` folders.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from course_lib.base.errors import CourseError
from course_lib.grading import sandbox


@pytest.fixture
def no_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "bwrap_works", lambda: False)


def as_root(monkeypatch: pytest.MonkeyPatch, root: bool) -> None:
    monkeypatch.setattr(sandbox, "_is_root", lambda: root)


@pytest.mark.usefixtures("no_bubblewrap")
def test_auto_as_root_without_bubblewrap_refuses_naming_both_ways_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    as_root(monkeypatch, True)
    with pytest.raises(CourseError, match="--sandbox auto as root") as refused:
        sandbox.choose("auto")
    assert "apt-get install bubblewrap" in str(refused.value)
    assert "--sandbox none" in str(refused.value)
    assert sandbox.choose("none") == "none"  # the instructor's explicit choice stands


@pytest.mark.usefixtures("no_bubblewrap")
def test_auto_as_a_user_falls_back_and_bwrap_insists(monkeypatch: pytest.MonkeyPatch) -> None:
    as_root(monkeypatch, False)
    assert sandbox.choose("auto") == "none"
    with pytest.raises(CourseError, match="--sandbox bwrap: bubblewrap is not installed"):
        sandbox.choose("bwrap")


def test_bubblewrap_is_chosen_wherever_it_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "bwrap_works", lambda: True)
    for root in (True, False):
        as_root(monkeypatch, root)
        assert sandbox.choose("auto") == sandbox.choose("bwrap") == "bwrap"


def test_a_folder_on_the_graders_pythonpath_is_never_bound_into_the_sandbox(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    keys = tmp_path / "answer-keys"
    keys.mkdir()
    monkeypatch.setenv("PYTHONPATH", str(keys))
    monkeypatch.setattr(sys, "path", [*sys.path, str(keys)])
    folders = sandbox._python_folders(sandbox.workbook_root())
    assert keys.resolve() not in folders
    assert Path(sys.prefix).resolve() in folders or any(
        Path(sys.prefix).resolve().is_relative_to(folder) for folder in folders
    )
