"""The package's layers: each imports only the layers before it, and nothing imports in a circle.

``course_lib`` reads bottom-up: ``base`` (the boundary and the machinery),
``chapter`` (the chapter's rules), ``beyond`` (real sessions and tokenizers),
``judge`` (rules called across a process boundary), then ``track`` (what a
student runs), ``grading`` (the instructor's side), ``views`` and ``tools``.
Each layer may import only the layers before it, imports inside functions
included: the base never imports the chapter, the track never the grading.
pandas, ipywidgets and matplotlib appear in ``views`` alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "course_lib"

LAYERS: tuple[str, ...] = (
    "base",
    "chapter",
    "beyond",
    "judge",
    "track",
    "grading",
    "views",
    "tools",
)
"""In reading order; a module may import from its own layer and the ones before it."""

VIEW_LIBRARIES = ("pandas", "ipywidgets", "matplotlib", "IPython")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FACADES = {"errors": "base"}
"""Top-level modules that only re-export a layer (``course_lib.errors``: the base's errors)."""


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 2 and parts[1] in FACADES:
        return FACADES[parts[1]]
    assert len(parts) > 1 and parts[1] in LAYERS, f"{module} lies in no layer"
    return parts[1]


def imports_of(path: Path) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports (absolute names), with the line it does so on."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield node.lineno, target
            for alias in node.names:  # ``from . import x`` may name a submodule
                candidate = f"{target}.{alias.name}"
                if (PACKAGE.parent / candidate.replace(".", "/")).with_suffix(".py").is_file():
                    yield node.lineno, candidate


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_a_module_imports_only_its_layer_and_the_ones_before(path: Path) -> None:
    here = module_name(path)
    mine = LAYERS.index(layer_of(here))
    upward = [
        f"line {line}: {target} ({layer_of(target)})"
        for line, target in imports_of(path)
        if target.startswith("course_lib.") and LAYERS.index(layer_of(target)) > mine
    ]
    assert upward == [], f"{here} ({LAYERS[mine]}) imports a later layer: {upward}"


def test_the_base_never_imports_the_chapter_and_the_chapter_takes_the_base_by_name() -> None:
    """The direction of the two layers; and the chapter names the base and its own given
    modules absolutely (``course_lib.base``, ``course_lib.chapter.models``…), so a practice
    package (the rule modules alone) imports the same base and the same types."""
    from course_lib.track.starters import GIVEN_CHAPTER_MODULES

    base_to_chapter = [
        f"{module_name(path)} line {line}: {target}"
        for path in MODULES
        if layer_of(module_name(path)) == "base"
        for line, target in imports_of(path)
        if target.startswith("course_lib.") and layer_of(target) != "base"
    ]
    assert base_to_chapter == []
    chapter_files = [path for path in MODULES if layer_of(module_name(path)) == "chapter"]
    assert len(chapter_files) >= 9
    relative_out: list[str] = []
    for path in chapter_files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level > 1:
                relative_out.append(f"{path.name} line {node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                target = node.module
                given = {f"course_lib.chapter.{name}" for name in GIVEN_CHAPTER_MODULES}
                outside = target.startswith("course_lib.") and layer_of(target) != "base"
                if outside and target not in given:
                    relative_out.append(f"{path.name} line {node.lineno}: {target}")
            relative = isinstance(node, ast.ImportFrom) and node.level == 1
            if relative and node.module in GIVEN_CHAPTER_MODULES:
                relative_out.append(f"{path.name} line {node.lineno}: .{node.module}")
    assert relative_out == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_view_libraries_appear_only_in_views(path: Path) -> None:
    here = module_name(path)
    found = [
        f"line {line}: {target}"
        for line, target in imports_of(path)
        if target.split(".")[0] in VIEW_LIBRARIES
    ]
    if layer_of(here) != "views":
        assert found == [], f"{here} imports a view library outside views/: {found}"


def test_no_module_imports_in_a_circle() -> None:
    graph = {
        module_name(path): {
            target
            for _, target in imports_of(path)
            if target.startswith("course_lib.") and target != module_name(path)
        }
        for path in MODULES
    }
    known = set(graph)
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph[node] & known):
            if state.get(target) == "open":
                cycle = [*stack[stack.index(target) :], target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert len(state) == len(MODULES) > 30
