"""The browser test's checks, on pages made to pass them and pages made to fail them.

Without this, a check that never finds a problem could not be told from a
check that cannot find one: the notebooks may have no folded answer yet, and
the explorers' charts are no longer stretched.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import WINDOW, LabServer
from lab_page import (
    STDERR,
    CollapsedAnswer,
    StoredNotebook,
    collapsed_answer_problems,
    error_outputs,
    image_problems,
    open_notebook,
    placeholder_outputs,
)
from PIL import Image
from playwright.sync_api import Browser, Page

ANSWER = "<details><summary>Show the answer</summary>\n<b>7 tokens</b>\n</details>"


def _cell(number: int, kind: str, source: str, **extra: Any) -> dict[str, Any]:
    cell: dict[str, Any] = {
        "cell_type": kind,
        "id": f"cell-{number}",
        "metadata": extra.pop("metadata", {}),
        "source": source,
    }
    if kind == "code":
        cell |= {"execution_count": number, "outputs": extra.pop("outputs", [])}
    return cell


def _html(text: str) -> dict[str, Any]:
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {"text/html": text, "text/plain": "an answer"},
    }


def _stdout(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


CELLS = [
    _cell(0, "markdown", "**Predict first.** How many tokens does group 2 cost?"),
    # An answer cell's closed block: hidden, then shown by a click.
    _cell(1, "code", "answer()", outputs=[_html(ANSWER)]),
    _cell(2, "markdown", "<details><summary>Show the answer</summary>\n\nSeven.\n\n</details>"),
    # An answer cell's block that starts open: caught.
    _cell(3, "code", "answer()", outputs=[_html(ANSWER.replace("<details>", "<details open>"))]),
    # A <details> block that starts open: caught.
    _cell(
        4, "markdown", "<details open><summary>Show the answer</summary>\n\nSeven.\n\n</details>"
    ),
    # Not collapsed, so not an answer the check looks at.
    _cell(5, "code", "print('shown')", outputs=[_stdout("shown\n")]),
]


def _write(folder: Path) -> Path:
    notebook = {
        "cells": CELLS,
        "metadata": {
            "kernelspec": {
                "display_name": "Python 3 (ipykernel)",
                "language": "python",
                "name": "python3",
            }
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "collapsed-answers.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def test_the_check_finds_hidden_answers_and_catches_visible_ones(
    page: Page, lab: LabServer
) -> None:
    path = _write(lab.root / "check-the-check")
    stored = StoredNotebook.read(path)
    assert stored.collapsed == [
        CollapsedAnswer(1, "output"),
        CollapsedAnswer(2, "details"),
        CollapsedAnswer(3, "output"),
        CollapsedAnswer(4, "details"),
    ]
    notebook = open_notebook(page, lab, "check-the-check/collapsed-answers.ipynb")

    problems = collapsed_answer_problems(notebook, stored.collapsed)

    assert problems == [
        "cell 3: the output answer shows before a click: '7 tokens'",
        "cell 4: the details answer shows before a click: 'Seven.'",
    ]


# --- the output checks, on a plain page shaped like JupyterLab's outputs ----------------


@pytest.fixture
def plain_page(browser: Browser) -> Iterator[Page]:
    """A 1280-px page without JupyterLab, for content written by the test."""
    context = browser.new_context(viewport=WINDOW, device_scale_factor=1)
    try:
        yield context.new_page()
    finally:
        context.close()


def _png(width: int, height: int) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "#fde68a").save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def _output(inner: str, style: str = "width: 900px") -> str:
    return f'<div class="jp-OutputArea-output" style="{style}">{inner}</div>'


def test_the_image_check_catches_a_stretched_chart_and_one_cut_by_the_window(
    plain_page: Page,
) -> None:
    chart = _png(800, 220)
    plain_page.set_content(
        "<body style='margin: 0'>"
        # Fine: natural size, and scaled down with its height following.
        + _output(f'<img class="natural" src="{chart}">')
        + _output(f'<img class="scaled" src="{chart}" style="width: 400px; height: auto">')
        # The finding of issue 12: 800x220 drawn at 640x308.
        + _output(f'<img class="stretched" src="{chart}" style="width: 640px; height: 308px">')
        # Wider than its output and than the 1280-px window.
        + _output(f'<img class="cut" src="{_png(1400, 200)}">', "width: 1500px")
        + "</body>"
    )
    problems = image_problems(plain_page.locator("body"))
    assert [problem.split(" ")[1] for problem in problems] == ["'stretched'", "'cut'"]
    assert "drawn 640x308, aspect 2.078 instead of 3.636" in problems[0]
    assert "1280-px window" in problems[1]


def test_the_output_checks_catch_errors_and_widgets_that_were_not_drawn(
    plain_page: Page,
) -> None:
    stderr = STDERR.split("[")[0].lstrip(".")
    plain_page.set_content(
        "<body><div class='notebook'>"
        + _output("<pre>kept_entry_ids: ['u2', 'a2']</pre>")
        + _output("<pre>BuildContextResult(reason='trimmed')</pre>")  # not a widget
        + _output("<pre>BudgetExplorer(max_tokens=31, reserved_output=4, safety_margin=2)</pre>")
        + _output("<pre>VBox(children=(IntSlider(value=31),))</pre>")
        + _output("Loading widget...")
        + _output(
            f'<div class="{stderr}" data-mime-type="application/vnd.jupyter.stderr">'
            "ValueError: max_tokens must be a non-negative integer</div>"
        )
        + "</div></body>"
    )
    notebook = plain_page.locator(".notebook")
    assert [problem.split(":")[0] for problem in placeholder_outputs(notebook)] == [
        "widget shown as its plain text",
        "widget shown as its plain text",
        "widget placeholder",
    ]
    assert error_outputs(notebook) == ["ValueError: max_tokens must be a non-negative integer"]
