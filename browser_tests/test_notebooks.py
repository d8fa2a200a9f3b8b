"""Every notebook in a real browser: Run All, no error, explorers drawn and answering, charts in shape.

For each notebook in ``notebooks/`` and its Chinese edition in ``notebooks/zh/``
(found, not listed), JupyterLab opens it
in headless Chromium at 1280 px; collapsed answers must start hidden and open
with a click; Run All must finish without an error or stderr output and draw
every widget as controls; each explorer is moved by mouse and keyboard and
must show what the same explorer computes here; every picture must keep its
aspect ratio and fit its output and the window. Screenshots go to
``browser_tests/artifacts``.

Each notebook's problems are collected and reported together, so one run
shows everything that is wrong with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, LabServer
from explorers import control_problems, differences, exercise, settle
from lab_page import (
    StoredNotebook,
    cell,
    collapsed_answer_problems,
    error_outputs,
    image_problems,
    open_notebook,
    placeholder_outputs,
    run_all,
    save_changes_problems,
    screenshot_pages,
    table_problems,
)
from playwright.sync_api import Locator, Page

from course_lib.views.headers import HEADERS, header_in

NOTEBOOKS = [
    *sorted((REPO / "notebooks").glob("*.ipynb")),
    *sorted((REPO / "notebooks" / "zh").glob("*.ipynb")),
]
"""Both editions: the English notebooks, then the Chinese ones (``zh/zh-<name>``)."""


def notebook_id(path: Path) -> str:
    """``03-lab-11.3-budget-projection`` or ``zh/zh-03-lab-11.3-budget-projection``."""
    return path.relative_to(REPO / "notebooks").with_suffix("").as_posix()


KEPT_HEADERS = {*(header_in(h, "zh") for h in HEADERS), "Python", "bpe", "chars"}
"""Headers the Chinese edition shows as they are: the course's own terms and names."""

WIDGET_VIEW = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.widget-view+json"]'


def test_the_notebooks_are_found() -> None:
    # The start page and the labs at least; a new notebook joins the run by itself.
    assert len(NOTEBOOKS) >= 8
    assert NOTEBOOKS[0].name == "00-start-here.ipynb"
    assert REPO / "notebooks" / "zh" / "zh-00-start-here.ipynb" in NOTEBOOKS


def _prompt_problems(notebook: Locator, stored: StoredNotebook) -> list[str]:
    prompts = [
        text.strip() for text in notebook.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()
    ]
    problems = []
    if len(prompts) != stored.code_cells:
        problems.append(f"{len(prompts)} code cells drawn, the notebook has {stored.code_cells}")
    not_run = [number for number, text in enumerate(prompts) if text in ("[ ]:", "[*]:", "")]
    if not_run:
        problems.append(f"code cells not run by Run All: {not_run}")
    return problems


def _explorer_problems(
    page: Page, notebook: Locator, stored: StoredNotebook, shots: Path
) -> list[str]:
    problems = []
    for index in range(notebook.locator(WIDGET_VIEW).count()):
        if notebook.locator(WIDGET_VIEW).nth(index).locator(".jupyter-widgets").count() == 0:
            problems.append(f"widget output {index} is drawn empty")
    drawn = notebook.locator(".course-explorer").count()
    if drawn != len(stored.explorers):
        problems.append(
            f"{drawn} explorers drawn, the stored notebook shows {len(stored.explorers)}"
        )
    for number, spec in enumerate(stored.explorers, start=1):
        name = f"cell {spec.cell} {spec.name}"
        root = cell(notebook, spec.cell).locator(".course-explorer")
        if root.count() != 1:
            problems.append(f"{name}: not drawn as controls")
            continue
        root.scroll_into_view_if_needed()
        twin = spec.build()
        problems += [f"{name}: {problem}" for problem in control_problems(root, twin)]
        shown, expected = settle(root, twin)
        if shown != expected:
            problems.append(f"{name}: does not start as built here: {differences(shown, expected)}")
            continue
        root.screenshot(path=str(shots / f"explorer-{number}-start.png"))
        problems += [f"{name} at start: {problem}" for problem in image_problems(notebook)]

        moves = exercise(page, root, twin, shots / f"explorer-{number}-moved.png")
        for move in moves:
            if not move.reached:
                problems.append(f"{name}, {move.description}: the control did not get there")
            if move.shown != move.expected:
                problems.append(
                    f"{name}, {move.description}: {differences(move.shown, move.expected)}"
                )
            if "step" not in move.description and not move.outcome_changed:
                problems.append(f"{name}, {move.description}: the outcome did not change")
        methods = {move.description.split(":")[0] for move in moves}
        if methods != {"mouse", "keyboard"}:
            problems.append(f"{name}: moved only by {sorted(methods)}")
        problems += [f"{name} after moving: {problem}" for problem in image_problems(notebook)]
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[notebook_id(path) for path in NOTEBOOKS])
def test_notebook_in_the_browser(path: Path, page: Page, lab: LabServer, artifacts: Path) -> None:
    stored = StoredNotebook.read(path)
    shots = artifacts / notebook_id(path)
    notebook = open_notebook(page, lab, path.relative_to(REPO).as_posix())
    page.screenshot(path=str(shots / "opened.png"))
    # Opened and saved untouched, the file is what was stored (the server's copy of it).
    relative = path.relative_to(REPO)
    problems = save_changes_problems(page, lab.root / relative, path)
    # Hidden answers: hidden as the notebook opens, shown by one click.
    problems += collapsed_answer_problems(notebook, stored.collapsed)

    run_all(page, stored.executions)
    # Run All redraws every answer cell's output: each answer is hidden again.
    answer_cells = [answer for answer in stored.collapsed if answer.kind == "output"]
    problems += [f"after Run All, {p}" for p in collapsed_answer_problems(notebook, answer_cells)]
    screenshot_pages(page, shots)
    problems += [f"error output: {text}" for text in error_outputs(notebook)]
    problems += placeholder_outputs(notebook)
    problems += _prompt_problems(notebook, stored)
    problems += image_problems(notebook)
    lang = "zh" if path.parent.name == "zh" else "en"
    problems += table_problems(notebook, lang, KEPT_HEADERS)
    problems += _explorer_problems(page, notebook, stored, shots)
    assert problems == []
