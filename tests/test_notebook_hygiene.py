"""The stored notebooks are current, executed and clean, so what nbval compares cannot drift.

nbval re-runs each notebook and compares outputs; these tests guard what it
does not look at: that each notebook was rebuilt from its source in
``notebook_sources/`` after the last change, that no editor added metadata,
and that every lab notebook ends the way the workbook promises.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from itertools import pairwise
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "notebook_tools"
NOTEBOOKS = ROOT / "notebooks"


def _load_builder() -> ModuleType:
    """Import ``build.py`` by its path (a module named ``build`` could shadow another one)."""
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))  # build.py imports ``notebook_sources`` next to it
    spec = importlib.util.spec_from_file_location("notebook_build", TOOLS / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


builder = _load_builder()
NAMES = list(builder.NOTEBOOKS)
LAB_NAMES = [name for name in NAMES if "-lab-11." in name]
PRACTICE_NAMES = [*LAB_NAMES, *(name for name in NAMES if "-transfer-" in name)]
"""Notebooks with a practice cell: the labs and the transfer exercise (not 00, not beyond)."""


def stored(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def code_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def test_every_stored_notebook_has_a_source_and_the_reverse() -> None:
    assert sorted(path.name for path in NOTEBOOKS.glob("*.ipynb")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_stored_notebook_is_clean(name: str) -> None:
    assert builder.hygiene_problems(stored(name)) == []


@pytest.mark.parametrize("name", NAMES)
def test_stored_notebook_was_built_from_its_current_source(name: str) -> None:
    expected = builder.ruff_formatted(builder.new_notebook(builder.NOTEBOOKS[name]), name)
    cells = [(cell.cell_type, cell.source) for cell in stored(name).cells]
    assert cells == [(cell.cell_type, cell.source) for cell in expected.cells], (
        f"{name} is out of date: run `.venv/bin/python notebook_tools/build.py`"
    )


@pytest.mark.parametrize("name", LAB_NAMES)
def test_lab_notebook_ends_with_its_own_checks_beside_the_practice_cell(name: str) -> None:
    lab = re.search(r"-lab-(11\.\d)-", name).group(1)
    notebook = stored(name)
    *_, practice, reference = code_cells(notebook)

    assert practice.source.startswith("# NBVAL_IGNORE_OUTPUT\n")
    assert f'run_lab_checks("{lab}", impl=practice)' in practice.source
    assert f'run_lab_checks("{lab}")' in reference.source
    printed = "".join(o.text for o in reference.outputs if o.output_type == "stream")
    assert re.fullmatch(rf"Lab {re.escape(lab)}: (\d+)/\1 passed\n", printed)


@pytest.mark.parametrize("name", NAMES)
def test_only_practice_cells_are_exempt_from_comparison(name: str) -> None:
    ignored = [c for c in code_cells(stored(name)) if "NBVAL_IGNORE_OUTPUT" in c.source]
    assert all('practice = Path("..") / "practice" / "ch11"' in c.source for c in ignored)
    assert len(ignored) == (1 if name in PRACTICE_NAMES else 0)


def test_the_chapter_predict_first_questions_are_asked_in_lab_11_3() -> None:
    notebook = stored("03-lab-11.3-budget-projection.ipynb")
    prompts = [c.source for c in notebook.cells if "**Predict first.**" in c.source]
    assert len(prompts) == 2
    assert "*last three messages*" in prompts[0] and "keep group 3 whole" in prompts[1]


@pytest.mark.parametrize("name", NAMES)
def test_each_predict_first_question_is_answered_by_the_next_cell(name: str) -> None:
    cells = stored(name).cells
    for question, answer in pairwise(cells):
        if "**Predict first.**" in question.source:
            assert question.cell_type == "markdown" and answer.cell_type == "code"
            assert answer.outputs, f"{answer.id} answers a prediction but shows nothing"
