"""The notebooks' builder (``notebook_tools/build.py``), imported once for every notebook test."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).resolve().parents[2] / "notebook_tools"


@cache
def load_builder() -> ModuleType:
    """Import ``build.py`` by its path (a module named ``build`` could shadow another one)."""
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))  # build.py imports ``notebook_sources`` next to it
    spec = importlib.util.spec_from_file_location("notebook_build", TOOLS / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
