"""Run All, save, reopen: the notebooks with an explorer come back whole and unchanged.

A widget's output names a model that lives only in the running kernel, so a notebook
saved after Run All used to gain a widget view with a random ``model_id`` and reopen
with "Error displaying widget: model not found" where the explorer was. Under
``make lab`` (started here in the background, serving a throw-away checkout), each
notebook with an explorer, in both editions, is run in Chromium, saved, and reopened
with a fresh kernel: no widget error may show, and the saved file must be the stored
one, byte for byte (the differences are listed cell by cell and output by output).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from background_lab import background_make_lab
from conftest import REPO, WINDOW, LabServer
from lab_page import (
    PLACEHOLDER_TEXTS,
    StoredNotebook,
    error_outputs,
    open_notebook,
    placeholder_outputs,
    run_all,
)
from playwright.sync_api import Browser, Locator, Page
from traitlets.config.loader import PyFileConfigLoader

NOTEBOOKS = [
    f"notebooks/{edition}{name}"
    for edition in ("", "zh/zh-")  # the Chinese file's name starts with zh-
    for name in ("03-lab-11.3-budget-projection.ipynb", "05b-lab-11.5-compacting-again.ipynb")
]
"""The notebooks that display an explorer, English and Chinese."""

WIDGETS_SETTLE_MS = 3000
"""Time for the widget manager to restore (or fail to find) the models of a reopened notebook."""


# --- what changed between two notebook files ------------------------------------------


def _short(value: Any, width: int = 100) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _first_difference(old: str, new: str, context: int = 40) -> str:
    """Where two texts part, with a little of each around that place."""
    at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    at = min(len(old), len(new)) if at is None else at
    start = max(0, at - context)
    return f"at character {at}: {old[start : at + context]!r} -> {new[start : at + context]!r}"


def _mime_difference(where: str, mime: str, old: Any, new: Any) -> str:
    if old is None or new is None:
        return f"{where}: {mime} {'added' if old is None else 'removed'}: {_short(new or old)}"
    if mime.startswith("image/"):
        digests = [hashlib.sha256("".join(v).encode()).hexdigest()[:12] for v in (old, new)]
        return f"{where}: {mime} bytes differ (sha256 {digests[0]} -> {digests[1]})"
    old_text, new_text = ("".join(v) if isinstance(v, list) else json.dumps(v) for v in (old, new))
    return f"{where}: {mime} {_first_difference(old_text, new_text)}"


def _output_differences(where: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    problems = [
        f"{where}: {key} {_short(old.get(key))} -> {_short(new.get(key))}"
        for key in sorted((set(old) | set(new)) - {"data"})
        if old.get(key) != new.get(key)
    ]
    old_data, new_data = old.get("data", {}), new.get("data", {})
    problems += [
        _mime_difference(where, mime, old_data.get(mime), new_data.get(mime))
        for mime in sorted(set(old_data) | set(new_data))
        if old_data.get(mime) != new_data.get(mime)
    ]
    return problems


def notebook_differences(before: str, after: str) -> list[str]:
    """What differs between two ``.ipynb`` texts: metadata, then cell by cell, output by output."""
    if before == after:
        return []
    old, new = json.loads(before), json.loads(after)
    problems = [
        f"notebook {key}: {_short(old.get(key))} -> {_short(new.get(key))}"
        for key in sorted((set(old) | set(new)) - {"cells"})
        if old.get(key) != new.get(key)
    ]
    old_cells, new_cells = old.get("cells", []), new.get("cells", [])
    if len(old_cells) != len(new_cells):
        problems.append(f"{len(old_cells)} cells, then {len(new_cells)}")
    for number, (a, b) in enumerate(zip(old_cells, new_cells, strict=False)):
        where = f"cell {number}"
        problems += [
            f"{where}: {key} {_short(a.get(key))} -> {_short(b.get(key))}"
            for key in sorted((set(a) | set(b)) - {"outputs"})
            if a.get(key) != b.get(key)
        ]
        outputs_a, outputs_b = a.get("outputs", []), b.get("outputs", [])
        if len(outputs_a) != len(outputs_b):
            problems.append(f"{where}: {len(outputs_a)} outputs, then {len(outputs_b)}")
        for index, (x, y) in enumerate(zip(outputs_a, outputs_b, strict=False)):
            problems += _output_differences(f"{where} output {index}", x, y)
    if not problems:  # the same JSON, written differently
        line = next(
            number
            for number, (x, y) in enumerate(
                zip(before.splitlines(), after.splitlines(), strict=False), 1
            )
            if x != y
        )
        problems.append(f"the same content written differently, from line {line}")
    return problems


def test_the_differences_are_told_apart() -> None:
    stored = (REPO / NOTEBOOKS[0]).read_text(encoding="utf-8")
    notebook = json.loads(stored)
    explorer = next(
        output
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
        if "BudgetExplorer(" in "".join(output.get("data", {}).get("text/plain", []))
    )
    explorer["data"]["application/vnd.jupyter.widget-view+json"] = {"model_id": "abc"}
    problems = notebook_differences(stored, json.dumps(notebook, indent=1, ensure_ascii=False))
    assert len(problems) == 1
    assert "application/vnd.jupyter.widget-view+json added" in problems[0]
    assert notebook_differences(stored, stored) == []


# --- the server's save hook (no browser) ------------------------------------------------

VIEW = "application/vnd.jupyter.widget-view+json"


def _save_hook() -> Any:
    config = PyFileConfigLoader(
        "jupyter_server_config.py", path=str(REPO / "jupyter_config")
    ).load_config()
    return config.ContentsManager.pre_save_hook


def _widget_output(model_id: str, **more: Any) -> dict[str, Any]:
    data = {VIEW: {"model_id": model_id, "version_major": 2, "version_minor": 0}, **more}
    return {"output_type": "display_data", "metadata": {}, "data": data}


def test_the_save_hook_keeps_only_what_can_be_drawn_again() -> None:
    hook = _save_hook()
    explorer = _widget_output("random", **{"text/plain": ["BudgetExplorer()"]})
    alone = _widget_output("alone")  # nothing else to show: kept as it was
    kept = _widget_output("saved", **{"text/plain": ["IntSlider()"]})
    state = {"state": {"saved": {}}, "version_major": 2, "version_minor": 0}
    content = {
        "metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": state}},
        "cells": [
            {"cell_type": "code", "outputs": [explorer, alone, kept]},
            {"cell_type": "markdown", "source": "no outputs"},
        ],
    }
    hook(model={"type": "notebook", "content": content}, path="x.ipynb", contents_manager=None)
    assert explorer["data"] == {"text/plain": ["BudgetExplorer()"]}
    assert VIEW in alone["data"] and VIEW in kept["data"]

    other = {"type": "file", "format": "text", "content": "{}"}
    hook(model=other, path="x.json", contents_manager=None)
    assert other["content"] == "{}"


# --- in the browser ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def make_lab(tmp_path_factory: pytest.TempPathFactory, artifacts: Path) -> Iterator[LabServer]:
    """One background ``make lab`` for the module; stopping it must leave no process behind."""
    scratch = tmp_path_factory.mktemp("make-lab")
    with background_make_lab(scratch, artifacts / "make-lab-run-all-save.log") as lab:
        yield lab.server
    assert lab.left_behind == [], f"processes left after the server stopped: {lab.left_behind}"


@pytest.fixture
def fresh_page(browser: Browser, make_lab: LabServer) -> Iterator[Any]:
    """Pages in contexts of their own; each closed with its kernels when the next opens."""
    contexts = []

    def new_page() -> Page:
        for context in contexts:
            context.close()
        make_lab.shut_down_kernels()
        contexts.append(browser.new_context(viewport=WINDOW, device_scale_factor=1))
        return contexts[-1].new_page()

    try:
        yield new_page
    finally:
        for context in contexts:
            context.close()
        make_lab.shut_down_kernels()


def _widget_errors(notebook: Locator) -> list[str]:
    return [
        f"reopened, an output shows {text.strip()[:200]!r}"
        for text in notebook.locator(".jp-OutputArea-output").all_inner_texts()
        if any(marker in text for marker in PLACEHOLDER_TEXTS)
    ]


@pytest.mark.parametrize(
    "relative", NOTEBOOKS, ids=[n.removeprefix("notebooks/") for n in NOTEBOOKS]
)
def test_run_all_save_and_reopen(
    relative: str, fresh_page: Any, make_lab: LabServer, artifacts: Path
) -> None:
    original, saved = REPO / relative, make_lab.root / relative
    stored = StoredNotebook.read(original)
    assert stored.explorers, f"{relative} displays no explorer any more"
    shots = artifacts / "run-all-save" / Path(relative).relative_to("notebooks").with_suffix("")
    shots.mkdir(parents=True, exist_ok=True)

    page = fresh_page()
    notebook = open_notebook(page, make_lab, relative)
    run_all(page, stored.executions)
    problems = [f"error output: {text}" for text in error_outputs(notebook)]
    problems += placeholder_outputs(notebook)
    drawn = notebook.locator(".course-explorer").count()
    if drawn != len(stored.explorers):
        problems.append(f"after Run All, {drawn} explorers drawn of {len(stored.explorers)}")
    page.wait_for_timeout(1000)  # the kernel's info reply may arrive after it is idle
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.screenshot(path=str(shots / "run-all.png"))

    problems += [
        f"saved after Run All: {difference}"
        for difference in notebook_differences(
            original.read_text(encoding="utf-8"), saved.read_text(encoding="utf-8")
        )
    ]

    page = fresh_page()  # the kernel that made the widgets is gone
    notebook = open_notebook(page, make_lab, relative)
    page.wait_for_timeout(WIDGETS_SETTLE_MS)
    problems += _widget_errors(notebook)
    page.screenshot(path=str(shots / "reopened.png"))
    assert problems == [], "\n".join(problems)
