""" "Your turn" with a practice package: the failure text a student acts on is on screen.

The notebook tests serve the notebooks without ``practice/``, so the cell that
runs a student's checks only prints its hint there. Here a practice package is
written into the served folder, fresh and then half-solved (Labs 11.1 and 11.2
solved, Lab 11.3 solved with one wrong comparison), and notebook 03's "Your
turn" cell must show its checks table inside the output area, every failure
message whole, without scrolling sideways, in both editions.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import LabServer
from lab_page import StoredNotebook, cell, open_notebook, run_all
from playwright.sync_api import Page

from course_lib.track.starters import write_practice_package

NOTEBOOK = "03-lab-11.3-budget-projection.ipynb"

_CELL_BOXES = """(output) => {
    const area = output.getBoundingClientRect();
    const table = output.querySelector("table");
    const cells = [...output.querySelectorAll("td")].map(td => {
        const box = td.getBoundingClientRect();
        return {text: td.innerText, left: box.left, right: box.right};
    });
    return {
        areaLeft: area.left, areaRight: area.right, window: window.innerWidth,
        tableRight: table ? table.getBoundingClientRect().right : null,
        scrolls: output.scrollWidth > output.clientWidth + 1, cells,
    };
}"""


def _half_solved(folder: Path) -> None:
    """Labs 11.1–11.3 solved, then one wrong rule: a group that fits exactly is left out."""
    write_practice_package(folder, force=True, solved=["11.1", "11.2", "11.3"])
    budget = folder / "budget.py"
    text = budget.read_text(encoding="utf-8")
    wrong = text.replace(
        "used + costs[first - 1] <= allowance", "used + costs[first - 1] < allowance"
    )
    assert wrong != text, "the comparison to break is no longer in budget.py"
    budget.write_text(wrong, encoding="utf-8")


@pytest.fixture(params=["fresh", "half-solved"])
def practice(request: pytest.FixtureRequest, lab: LabServer) -> Iterator[str]:
    folder = lab.root / "practice" / "ch11"
    if request.param == "fresh":
        write_practice_package(folder, force=True)
    else:
        _half_solved(folder)
    try:
        yield str(request.param)
    finally:
        shutil.rmtree(lab.root / "practice")


def _your_turn_output(notebook_path: Path) -> int:
    """The index of the "Your turn" code cell: the one that runs the practice package."""
    cells = json.loads(notebook_path.read_text(encoding="utf-8"))["cells"]
    numbers = [
        number
        for number, source in enumerate("".join(c["source"]) for c in cells)
        if 'run_lab_checks("11.3", impl=practice)' in source
    ]
    assert len(numbers) == 1
    return numbers[0]


@pytest.mark.parametrize("edition", ["", "zh/zh-"])  # the Chinese file's name starts with zh-
def test_your_turn_shows_every_failure_whole(
    edition: str, practice: str, page: Page, lab: LabServer, artifacts: Path
) -> None:
    relative = f"notebooks/{edition}{NOTEBOOK}"
    stored = StoredNotebook.read(lab.root / relative)
    number = _your_turn_output(lab.root / relative)
    notebook = open_notebook(page, lab, relative)
    run_all(page, stored.executions)
    output = cell(notebook, number).locator(".jp-OutputArea-output").last
    output.scroll_into_view_if_needed()
    name = f"{edition.split('/')[-1]}03-your-turn-{practice}.png"
    page.screenshot(path=str(artifacts / name))

    boxes = output.evaluate(_CELL_BOXES)
    failures = [c for c in boxes["cells"] if c["text"].strip() in ("failed", "失败")]
    problems = []
    if not failures:
        problems.append(f"no failure shown: {[c['text'][:60] for c in boxes['cells']]}")
    if boxes["scrolls"]:
        problems.append("the checks table scrolls sideways")
    for box in boxes["cells"]:
        if box["right"] > min(boxes["areaRight"], boxes["window"]) + 1:
            problems.append(f"cut at the right edge: {box['text'][:80]!r}")
    assert problems == []
