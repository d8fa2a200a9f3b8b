"""Shared test set-up: which implementation the tests run against.

By default every test runs against the reference ``course_lib``; the hooks
below do nothing at all without ``--impl``.

With ``--impl DIR`` the tests run against a student's practice package
(``course-lab practice 11 DIR``: the chapter layer alone) instead:

* The lab checks ask for it explicitly: their tests take the ``impl``
  fixture, which is the practice package.
* The wider suite (``course-lab check LAB --extended``) imports the chapter's
  names from ``course_lib`` as any user of the library does, so
  ``pytest_configure`` points ``course_lib.chapter.<module>`` and the public
  names of ``course_lib`` at the practice package's modules, and imports again
  the ``course_lib`` modules already built on the chapter (the importers, the
  estimators), so that a test never mixes two sets of classes. The base layer
  is shared: the practice package imports it from ``course_lib`` too.
  ``pytest_unconfigure`` puts every module and name back.

Which wider modules run against a practice package is decided by
``course_lib.track.checks.extended_test_files``: only those whose every
``course_lib`` import is something the practice package provides.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import course_lib
import course_lib.chapter
from course_lib.track.practice import PracticePackageError, load_practice_package

_MISSING = object()
_SWITCHED = pytest.StashKey[list[tuple[object, str, object]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--impl",
        metavar="DIR",
        default=None,
        help="run the tests against the practice package in DIR (default: course_lib)",
    )


def _switch_course_lib_to(package: ModuleType) -> list[tuple[object, str, object]]:
    """Point ``course_lib``'s chapter modules and public names at ``package``.

    Returns what was replaced, as ``(namespace, name, old value)``, to undo it.
    """
    replaced: list[tuple[object, str, object]] = []

    def put(namespace: object, name: str, value: object) -> None:
        if isinstance(namespace, dict):
            replaced.append((namespace, name, namespace.get(name, _MISSING)))
            namespace[name] = value
        else:
            replaced.append((namespace, name, getattr(namespace, name, _MISSING)))
            setattr(namespace, name, value)

    # 1. The chapter's modules and public names: the practice package's.
    prefix = package.__name__ + "."
    switched: set[str] = set()
    for name, module in sorted(sys.modules.items()):
        if not name.startswith(prefix) or "." in name[len(prefix) :]:
            continue
        short = name[len(prefix) :]
        if importlib.util.find_spec(f"course_lib.chapter.{short}") is None:
            continue  # e.g. ``labs``: the practice package's own module
        importlib.import_module(f"course_lib.chapter.{short}")  # the reference's is loaded first
        put(sys.modules, f"course_lib.chapter.{short}", module)
        put(course_lib.chapter, short, module)
        switched.add(f"course_lib.chapter.{short}")
    for name in set(course_lib.__all__) & set(getattr(package, "__all__", ())):
        put(course_lib, name, getattr(package, name))

    # 2. The other course_lib modules already loaded (``import course_lib`` loads
    # the estimators and importers) are imported again, so that they too build
    # on the practice package, as any module a test imports later does.
    keep = {"course_lib", "course_lib.chapter", "course_lib.track.practice", *switched}
    loaded = {
        n: m
        for n, m in sys.modules.items()
        if n.startswith("course_lib.") and n not in keep and not n.startswith("course_lib.base")
    }
    built_on = set(switched)
    while grown := {n for n, m in loaded.items() if n not in built_on and _uses_any(m, built_on)}:
        built_on |= grown
    again = sorted(built_on - switched)
    old = {name: sys.modules[name] for name in again}
    for name in again:
        parent, _, short = name.rpartition(".")
        namespace = old.get(parent) or sys.modules[parent]
        put(namespace, short, old[name])  # remembered; the import below replaces it
        put(sys.modules, name, old[name])
        del sys.modules[name]
    for name in again:
        module = importlib.import_module(name)
        parent, _, short = name.rpartition(".")
        setattr(sys.modules[parent], short, module)
        for public in course_lib.__all__:
            value = vars(old[name]).get(public, _MISSING)
            if value is not _MISSING and getattr(course_lib, public, None) is value:
                put(course_lib, public, getattr(module, public))
    return replaced


def _uses_any(module: ModuleType, modules: set[str]) -> bool:
    """Whether ``module`` holds something it imported from one of ``modules``."""
    for value in list(vars(module).values()):
        origin = (
            value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", "")
        )
        if isinstance(origin, str) and origin in modules:
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    directory = config.getoption("--impl")
    if directory is None:
        return
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
def impl(request: pytest.FixtureRequest) -> ModuleType:
    """The implementation under test: ``course_lib`` or the practice package given by --impl."""
    directory = request.config.getoption("--impl")
    if directory is None:
        return course_lib
    return load_practice_package(Path(directory))


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
