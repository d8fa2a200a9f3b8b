"""Load a student's practice package so the lab checks can run against it."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from .errors import CourseError

__all__ = ["PracticePackageError", "load_practice_package"]


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
    name = "practice_" + hashlib.sha1(str(directory).encode()).hexdigest()[:12]
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
