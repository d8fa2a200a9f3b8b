"""Shared test set-up: which implementation the tests run against.

By default every test runs against the reference ``course_lib``; the hooks
below do nothing at all without ``--impl``.

With ``--impl DIR`` the tests run against a student's practice package
(``course-lab practice 11 DIR``: the chapter's rule modules alone; the types,
fixture, stores and errors are ``course_lib``'s own, shared by both):

* The lab checks ask for it explicitly: their tests take the ``impl``
  fixture, a ``course_lib.judge.remote.RemotePackage``. The package's rules
  run in a process of their own and answer through the call channel, exactly
  as ``course-lab check`` and ``course-lab grade`` judge them; without
  ``--impl`` the reference's rules are judged the same way.
* The wider suite (``course-lab check LAB --extended``, which passes
  ``--switch-course-lib``) imports the chapter's rules from ``course_lib`` as
  any user of the library does, so ``pytest_configure`` points
  ``course_lib.chapter.<module>`` and the public rule names of ``course_lib``
  at the practice package's, and binds the stores to its parser: that suite
  runs the student's rules in this process, on the student's own machine.
  ``pytest_unconfigure`` puts every module and name back.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

import course_lib
import course_lib.chapter
from course_lib.judge.practice import PracticePackageError, load_practice_package
from course_lib.judge.remote import RemotePackage, RuleServerError, local_launcher
from course_lib.track.starters import chapter_exports, practice_modules

_MISSING = object()
_SWITCHED = pytest.StashKey[list[tuple[object, str, object]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--impl",
        metavar="DIR",
        default=None,
        help="run the tests against the practice package in DIR (default: course_lib)",
    )
    parser.addoption(
        "--switch-course-lib",
        action="store_true",
        help="with --impl, also point course_lib's rules at DIR in this process (the wider suite)",
    )


def _switch_course_lib_to(package: ModuleType) -> list[tuple[object, str, object]]:
    """Point ``course_lib``'s rule modules, rule names and stores at ``package``.

    Returns what was replaced, as ``(namespace, name, old value)``, to undo it.
    """
    from course_lib.chapter import sessions

    replaced: list[tuple[object, str, object]] = []

    def put(namespace: object, name: str, value: object) -> None:
        if isinstance(namespace, dict):
            replaced.append((namespace, name, namespace.get(name, _MISSING)))
            namespace[name] = value
        else:
            replaced.append((namespace, name, getattr(namespace, name, _MISSING)))
            setattr(namespace, name, value)

    for short in practice_modules():
        module = importlib.import_module(f"{package.__name__}.{short}")
        importlib.import_module(f"course_lib.chapter.{short}")  # the reference's is loaded first
        put(sys.modules, f"course_lib.chapter.{short}", module)
        put(course_lib.chapter, short, module)
    for names in chapter_exports().values():
        for name in names:
            put(course_lib, name, getattr(package, name))
    put(sessions, "SESSION_ENTRIES", sessions.session_codec(package.parse_session_entry))
    put(sessions, "parse_session_entry", package.parse_session_entry)
    return replaced


def pytest_configure(config: pytest.Config) -> None:
    directory = config.getoption("--impl")
    if directory is None or not config.getoption("--switch-course-lib"):
        return  # the lab checks need no switch: their ``impl`` judges the package apart
    try:
        package = load_practice_package(Path(directory))
    except PracticePackageError as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_SWITCHED] = _switch_course_lib_to(package)


def _switch_back(replaced: list[tuple[object, str, object]]) -> None:
    """Undo ``_switch_course_lib_to``: every module and name as it was, newest change first."""
    for namespace, name, old in reversed(replaced):
        if isinstance(namespace, dict):
            namespace.pop(name, None)
            if old is not _MISSING:
                namespace[name] = old
        elif old is _MISSING:
            if hasattr(namespace, name):
                delattr(namespace, name)
        else:
            setattr(namespace, name, old)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--impl``, leave out the mutation tests and the notebook exercises' tests.

    They test the checks on packages they build from the reference, never on
    the practice package given, so under ``--impl`` they would pass whatever
    the student wrote and be counted beside the lab's own checks
    (``pytest tests -m lab_11_3 --impl DIR`` must run exactly Lab 11.3's three).
    """
    if config.getoption("--impl") is None:
        return

    def reference_only(item: pytest.Item) -> bool:
        return any(item.get_closest_marker(name) for name in ("mutants", "reference_only"))

    left_out = [item for item in items if reference_only(item)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not reference_only(item)]


def pytest_unconfigure(config: pytest.Config) -> None:
    _switch_back(config.stash.get(_SWITCHED, []))


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> Iterator[RemotePackage]:
    """The rules under test, judged apart: the practice package given by --impl, else the reference.

    Either way the rules run in a process of their own and answer through the call
    channel (``course_lib.judge``), exactly as ``course-lab check`` and the grader judge.
    """
    directory = request.config.getoption("--impl")
    package = None if directory is None else Path(directory).resolve()
    rules = [name for names in chapter_exports().values() for name in names]
    with RemotePackage(local_launcher(package, rules), rules) as remote:
        if package is not None:
            try:
                remote.start()
            except RuleServerError as error:
                pytest.exit(str(error), returncode=pytest.ExitCode.USAGE_ERROR)
        yield remote


@pytest.fixture
def course_lab(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str, str]]:
    """Run the real ``course-lab`` entry point with ``inspect``; returns (status, out, err)."""
    from course_lib.tools import cli

    inspect_module = "course_lib.tools.inspect_session"
    if inspect_module not in cli._COMMAND_MODULES:
        monkeypatch.setattr(cli, "_COMMAND_MODULES", (*cli._COMMAND_MODULES, inspect_module))

    def run(*argv: str) -> tuple[int, str, str]:
        status = cli.main(["inspect", *argv])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run
