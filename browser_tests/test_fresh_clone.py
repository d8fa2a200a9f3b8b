"""The notebooks as a fresh clone shows them: untrusted, sanitized, in a 1280 px window.

A notebook a student has just cloned is not trusted, so JupyterLab sanitizes its
stored HTML outputs before drawing them: ``<style>`` blocks are dropped, and
only inline styles with the properties and values its sanitizer allows are
kept. These tests open the stored notebooks without running a cell (running
one would draw a fresh, trusted output) and look at what JupyterLab drew:

* the fixture table of notebook 01 keeps one background colour per group,
  in both editions;
* every table of every notebook, in both editions, fits its output in a
  1280 px window, and no header is broken inside a word (a header may wrap
  between words, or after an identifier's ``_``);
* saving a notebook untouched writes back the stored file, although
  JupyterLab puts the kernel's full Python version (``3.11.7``) into its
  metadata: the server's save hook (``jupyter_config/``) writes major.minor,
  as the build stores it.

The server's copy of ``notebooks/`` has no signature in its fresh data folder,
so every notebook it serves is untrusted; the tests check that too, so they
can never pass on a trusted notebook by mistake.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, LabServer
from lab_page import cell, open_notebook, save_changes_problems
from playwright.sync_api import Locator, Page
from traitlets.config.loader import PyFileConfigLoader

from course_lib.views import group_colour

NOTEBOOKS = [
    *sorted((REPO / "notebooks").glob("*.ipynb")),
    *sorted((REPO / "notebooks" / "zh").glob("*.ipynb")),
]
"""Both editions: the English notebooks, then the Chinese ones."""

FIXTURE_NOTEBOOK = "01-lab-11.1-compaction-entry.ipynb"
FIXTURE_CODE = "styled_fixture_frame(path, estimate)"
"""The code cell that shows the fixture table, right under "Notice the three colours"."""


def notebook_id(path: Path) -> str:
    """``01-lab-11.1-compaction-entry`` or ``zh/zh-01-lab-11.1-compaction-entry``."""
    return path.relative_to(REPO / "notebooks").with_suffix("").as_posix()


def language_of(path: Path) -> str:
    return "zh" if path.parent.name == "zh" else "en"


def fixture_cell(path: Path) -> int:
    """The number of the cell that draws the fixture table, read from the stored notebook."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for number, stored in enumerate(cells):
        if stored["cell_type"] == "code" and FIXTURE_CODE in "".join(stored["source"]):
            return number
    raise AssertionError(f"{path.name} has no cell running {FIXTURE_CODE}")


_UNTRUSTED_OUTPUTS = """() => {
    const notebook = window.jupyterapp.shell.currentWidget.content;
    return notebook.widgets.filter(c => c.model.type === "code" && c.model.outputs.length > 0)
        .map(c => c.model.trusted);
}"""
"""Whether each code cell with outputs is trusted (a notebook is untrusted if none is)."""

_ROW_COLOURS = """(table) => {
    const headers = [...table.querySelectorAll("thead th")].map(th => th.innerText.trim());
    return [...table.querySelectorAll("tbody tr")].map(tr => {
        const cells = [...tr.querySelectorAll("td")];
        return {
            values: cells.map(td => td.innerText.trim()),
            colours: cells.map(td => getComputedStyle(td).backgroundColor),
            headers,
        };
    });
}"""


def _rgb(colour: str) -> str:
    """``#dbeafe`` as the browser computes it: ``rgb(219, 234, 254)``."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def _opened_untrusted(page: Page, lab: LabServer, path: Path) -> Locator:
    notebook = open_notebook(page, lab, path.relative_to(REPO).as_posix())
    trusted = page.evaluate(_UNTRUSTED_OUTPUTS)
    assert trusted and not any(trusted), f"{notebook_id(path)} is not untrusted: {trusted}"
    return notebook


FIXTURE_EDITIONS = [
    REPO / "notebooks" / FIXTURE_NOTEBOOK,
    REPO / "notebooks" / "zh" / f"zh-{FIXTURE_NOTEBOOK}",
]


@pytest.mark.parametrize("path", FIXTURE_EDITIONS, ids=[notebook_id(p) for p in FIXTURE_EDITIONS])
def test_an_untrusted_fixture_table_keeps_its_group_colours(
    path: Path, page: Page, lab: LabServer
) -> None:
    notebook = _opened_untrusted(page, lab, path)
    table = cell(notebook, fixture_cell(path)).locator(".jp-OutputArea-output table")
    assert table.count() == 1
    rows: list[dict[str, Any]] = table.evaluate(_ROW_COLOURS)
    groups = [row["values"][-1] for row in rows]  # the group column: "group 1", "system" ...
    assert groups[:3] == ["system", "group 1", "group 1"], groups
    shown: dict[str, set[str]] = {}
    for group, row in zip(groups, rows, strict=True):
        shown.setdefault(group, set()).update(row["colours"])
    # One colour per group, on every cell of its rows, and the one the views chose for it.
    assert {group: sorted(colours) for group, colours in shown.items()} == {
        group: [_rgb(group_colour(group))] for group in shown
    }
    assert len({colours.pop() for colours in shown.values()}) == len(shown) >= 4


_TABLE_LAYOUT = """(notebook) => {
    const segmenter = new Intl.Segmenter(LANG, {granularity: "word"});
    const broken = (th) => {
        const words = [];
        const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
            const node = walker.currentNode;
            for (const part of segmenter.segment(node.textContent)) {
                if (!part.isWordLike || part.segment.length < 2) continue;
                const range = document.createRange();
                range.setStart(node, part.index);
                range.setEnd(node, part.index + part.segment.length);
                const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                if (lines.size > 1) words.push(part.segment);
            }
        }
        return words;
    };
    return [...notebook.querySelectorAll(".jp-OutputArea-output table")].map(table => {
        const box = table.getBoundingClientRect();
        const output = table.closest(".jp-OutputArea-output").getBoundingClientRect();
        const headers = [...table.querySelectorAll("th")];
        return {
            headers: headers.map(th => th.innerText.trim()).filter(Boolean).slice(0, 4),
            right: box.right,
            limit: Math.min(output.right, window.innerWidth),
            broken: headers.flatMap(broken),
        };
    });
}"""
"""Each output table: its first headers, its right edge, where it must end, its broken words.

A word is what the browser's word segmenter finds in a header's text (in the
edition's language, so a Chinese header's words too); it is broken when its
letters lie on more than one line.
"""


def _open_every_answer(notebook: Locator) -> None:
    """Open every closed ``<details>`` block in an output, so the tables inside are laid out."""
    notebook.evaluate(
        """(notebook) => notebook.querySelectorAll(".jp-OutputArea-output details")
            .forEach(details => { details.open = true; })"""
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[notebook_id(p) for p in NOTEBOOKS])
def test_every_stored_table_fits_1280_px_with_whole_header_words(
    path: Path, page: Page, lab: LabServer
) -> None:
    notebook = _opened_untrusted(page, lab, path)
    _open_every_answer(notebook)
    layout = _TABLE_LAYOUT.replace("LANG", json.dumps(language_of(path)))
    problems = []
    for table in notebook.evaluate(layout):
        if table["right"] > table["limit"] + 1:
            problems.append(
                f"table {table['headers']} ends at {table['right']:.0f} px, "
                f"beyond its output ({table['limit']:.0f} px)"
            )
        if table["broken"]:
            problems.append(f"table {table['headers']} breaks header words {table['broken']}")
    assert not problems, "\n".join(problems)


# --- saving writes back what was stored ------------------------------------------------


def _save_hook() -> Any:
    loader = PyFileConfigLoader("jupyter_server_config.py", path=str(REPO / "jupyter_config"))
    return loader.load_config().ContentsManager.pre_save_hook


@pytest.mark.parametrize("version", ["3.11.7", "3.11.12", "3.13.0"])
def test_the_save_hook_writes_python_s_version_without_its_patch_release(version: str) -> None:
    info = {"name": "python", "version": version}
    hook = _save_hook()
    hook(model={"type": "notebook", "content": {"metadata": {"language_info": info}, "cells": []}})
    assert info == {"name": "python", "version": version.rsplit(".", 1)[0]}


def test_the_stored_version_is_major_minor_whatever_the_patch_release() -> None:
    stored = json.loads((REPO / "notebooks" / "08-recap.ipynb").read_text(encoding="utf-8"))
    version = stored["metadata"]["language_info"]["version"]
    assert version == ".".join(platform.python_version_tuple()[:2])


@pytest.mark.parametrize("path", FIXTURE_EDITIONS, ids=[notebook_id(p) for p in FIXTURE_EDITIONS])
def test_saving_an_untouched_notebook_writes_back_the_stored_file(
    path: Path, page: Page, lab: LabServer
) -> None:
    """The kernel reports ``3.11.7``, the file says ``3.11``: the saved file is the stored one."""
    open_notebook(page, lab, path.relative_to(REPO).as_posix())
    # What JupyterLab puts in the notebook's model once the kernel has told its version:
    page.wait_for_function(
        """(version) => {
            const model = window.jupyterapp.shell.currentWidget.context.model;
            return (model.getMetadata("language_info") || {}).version === version;
        }""",
        arg=platform.python_version(),
    )
    assert save_changes_problems(page, lab.root / path.relative_to(REPO), path) == []
