"""Load a student's practice package so the lab checks can run against it."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import traceback
import uuid
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from ..base.errors import CourseError

__all__ = ["PracticePackageError", "check_practice_package", "load_practice_package"]


class PracticePackageError(CourseError):
    """A practice folder is missing, incomplete or fails to import."""


def load_practice_package(directory: Path) -> ModuleType:
    """Import the package in ``directory`` under a private name and return it."""
    directory = directory.resolve()
    init = directory / "__init__.py"
    if not init.is_file():
        raise PracticePackageError(
            f"{directory.name}: not a practice package (no __init__.py); "
            "create one with `course-lab practice 11 DIR`"
        )
    name = "practice_" + hashlib.sha1(os.fsencode(directory)).hexdigest()[:12]  # any bytes
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, init, submodule_search_locations=[str(directory)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise PracticePackageError(
            f"{directory.name}: the practice package fails to import: "
            f"{type(error).__name__}: {error}"
        ) from error
    return module


def _where(error: BaseException, directory: Path) -> str:
    """`` (budget.py, line 12)`` for the innermost frame inside the practice folder."""
    if isinstance(error, SyntaxError) and error.filename:
        return f" ({Path(error.filename).name}, line {error.lineno})"
    spot = ""
    for frame, line in traceback.walk_tb(error.__traceback__):
        file = Path(frame.f_code.co_filename)
        if file.parent == directory:
            spot = f" ({file.name}, line {line})"
    return spot


def check_practice_package(directory: Path, required: Iterable[str] = ()) -> None:
    """Import the package in ``directory`` once, so a broken folder is one clear line.

    The import uses a throwaway name and is forgotten afterwards, so the next
    check sees the student's latest edits. ``required`` lists public names the
    package must export. Raises ``PracticePackageError`` saying what to fix.
    """
    if not directory.is_dir():
        raise PracticePackageError(
            f"practice folder {directory} does not exist; "
            f"create it with `course-lab practice 11 {directory}`"
        )
    if not (directory / "__init__.py").is_file():
        raise PracticePackageError(
            f"{directory}: not a practice package (no __init__.py); "
            f"regenerate it with `course-lab practice 11 {directory} --force`"
        )
    given, directory = directory, directory.resolve()
    name = f"practice_check_{uuid.uuid4().hex[:12]}"
    spec = importlib.util.spec_from_file_location(
        name, directory / "__init__.py", submodule_search_locations=[str(directory)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        detail = error.msg if isinstance(error, SyntaxError) else str(error)
        problem = " ".join(f"{type(error).__name__}: {detail}".split()).replace(name, given.name)
        raise PracticePackageError(
            f"{given}: the practice package fails to import{_where(error, directory)}: "
            f"{problem}; fix that, or regenerate it with `course-lab practice 11 {given} --force`"
        ) from None
    finally:
        for loaded in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
            del sys.modules[loaded]
    missing = [export for export in required if not hasattr(module, export)]
    if missing:
        raise PracticePackageError(
            f"{given}: the practice package does not export {', '.join(missing)}; restore its "
            f"__init__.py, or regenerate it with `course-lab practice 11 {given} --force`"
        )
