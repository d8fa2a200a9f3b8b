"""What the browser test does with one notebook in JupyterLab, and what it looks for.

Each check returns a list of problems (empty when all is well) instead of
asserting, so one run reports everything wrong with a notebook at once, and
the checks themselves can be tested on notebooks made to fail them.
"""

from __future__ import annotations

import ast
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ipywidgets
from conftest import LabServer
from playwright.sync_api import Locator, Page

import course_lib.views

RUN_TIMEOUT_MS = 300_000
"""The slowest notebook runs in about 6 s alone; leave room for a busy machine."""

OPEN_TIMEOUT_MS = 90_000

STDERR = '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]'
"""JupyterLab draws both stderr streams and errors (tracebacks) with this mime type."""

PLACEHOLDER_TEXTS = ("Loading widget", "Error displaying widget", "model not found")
"""What JupyterLab shows where a widget view could not be drawn."""


TERMINAL_SCREEN = """() => {
    const terminal = document.querySelector(".jp-Terminal:not(.lm-mod-hidden)");
    if (!terminal) return "";
    const rows = terminal.querySelector(".xterm-accessibility-tree")
        || terminal.querySelector(".xterm-rows");
    return rows ? [...rows.children].map(row => row.textContent).join("\\n") : "";
}"""
"""JavaScript: the text of the terminal in view, row by row (the accessibility tree when
xterm.js keeps one), for a test to read what a command printed."""


def open_terminal(page: Page) -> None:
    """Open a JupyterLab terminal on ``page`` and wait for the shell's prompt: it has read its
    start-up files and waits for input."""
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.commands.hasCommand('terminal:create-new')",
        timeout=90_000,
    )
    page.evaluate("() => window.jupyterapp.commands.execute('terminal:create-new')")
    page.locator(".jp-Terminal .xterm").first.wait_for(timeout=30_000)
    page.wait_for_function(f"() => ({TERMINAL_SCREEN})().trim() !== ''", timeout=30_000)


def _widget_class_names() -> set[str]:
    names = {
        name
        for name, value in vars(ipywidgets).items()
        if isinstance(value, type) and issubclass(value, ipywidgets.Widget)
    }
    return names | {name for name in dir(course_lib.views) if name.endswith("Explorer")}


WIDGET_REPR = re.compile("^(?:" + "|".join(sorted(_widget_class_names())) + r")\(")
"""The plain-text form of a widget or explorer: shown only when its view was not drawn."""

EXPLORER_REPR = re.compile(r"^(?P<name>\w+Explorer)\((?P<arguments>.*)\)$", re.DOTALL)


# --- what the stored notebook says the page must show ------------------------------


@dataclass(frozen=True)
class ExplorerSpec:
    """One explorer a stored notebook displays: its class and its settings, from its repr."""

    cell: int
    name: str
    settings: dict[str, Any]

    def build(self) -> Any:
        """The same explorer in this process: what the page must show, computed here."""
        return getattr(course_lib.views, self.name)(**self.settings)


@dataclass(frozen=True)
class CollapsedAnswer:
    """A cell whose answer starts hidden: a ``<details>`` block in its output or its markdown."""

    cell: int
    kind: str  # "output" (an answer cell's closed block) or "details" (a markdown explanation)


@dataclass(frozen=True)
class StoredNotebook:
    """What the stored ``.ipynb`` promises: its explorers and its collapsed answers."""

    path: Path
    code_cells: int
    executions: int  # code cells with code in them: Run All sends only those
    explorers: list[ExplorerSpec] = field(default_factory=list)
    collapsed: list[CollapsedAnswer] = field(default_factory=list)

    @classmethod
    def read(cls, path: Path) -> StoredNotebook:
        """Read the cells; an explorer is recognised by the plain text its repr stored."""
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        explorers, collapsed = [], []
        for number, cell in enumerate(cells):
            source = "".join(cell["source"])
            html = [
                "".join(output.get("data", {}).get("text/html", []))
                for output in cell.get("outputs", [])
            ]
            if any(re.match(r"<details\b", text) for text in html):
                collapsed.append(CollapsedAnswer(number, "output"))
            if cell["cell_type"] == "markdown" and re.search(r"<details\b", source):
                collapsed.append(CollapsedAnswer(number, "details"))
            for output in cell.get("outputs", []):
                plain = "".join(output.get("data", {}).get("text/plain", []))
                match = EXPLORER_REPR.match(plain)
                if match:
                    explorers.append(
                        ExplorerSpec(number, match["name"], _keywords(match["arguments"]))
                    )
        code = [cell for cell in cells if cell["cell_type"] == "code"]
        executions = sum(bool("".join(cell["source"]).strip()) for cell in code)
        return cls(path, len(code), executions, explorers, collapsed)


def _keywords(arguments: str) -> dict[str, Any]:
    call = ast.parse(f"f({arguments})", mode="eval").body
    assert isinstance(call, ast.Call) and not call.args, arguments
    return {str(k.arg): ast.literal_eval(k.value) for k in call.keywords}


# --- driving JupyterLab --------------------------------------------------------------

_KERNEL_IDLE = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const context = panel && panel.sessionContext;
    const kernel = context && context.session && context.session.kernel;
    return !!(context && context.isReady && kernel && kernel.status === "idle");
}"""

_COUNT_REPLIES = """() => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    window.__replies = {count: 0, failed: false};
    kernel.anyMessage.connect((_, message) => {
        const msg = message.msg;
        if (message.direction === "recv" && msg.header.msg_type === "execute_reply") {
            window.__replies.count += 1;
            window.__replies.failed ||= msg.content.status !== "ok";
        }
    });
}"""
"""Count the kernel's answers to execute requests, from before Run All is chosen."""

_RUN_FINISHED = """(expected) => {
    const replies = window.__replies;
    return (KERNEL_IDLE)() && (replies.count >= expected || replies.failed);
}""".replace("KERNEL_IDLE", _KERNEL_IDLE)


def open_notebook(page: Page, lab: LabServer, relative: str) -> Locator:
    """Open ``relative`` in its own workspace and wait until its kernel is idle."""
    workspace = re.sub(r"[^A-Za-z0-9]+", "-", relative).strip("-")
    page.goto(lab.notebook_url(relative, workspace))
    notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
    notebook.locator(".jp-Cell").first.wait_for(timeout=OPEN_TIMEOUT_MS)
    page.wait_for_function(_KERNEL_IDLE, timeout=OPEN_TIMEOUT_MS)
    return notebook


_TABLE_BOXES = """(notebook) => [...notebook.querySelectorAll(".jp-OutputArea-output table")].map(t => {
    const box = t.getBoundingClientRect();
    const output = t.closest(".jp-OutputArea-output").getBoundingClientRect();
    const headers = [...t.querySelectorAll("th")].map(th => th.innerText.trim());
    return {right: box.right, outputRight: output.right, window: window.innerWidth, headers};
})"""

IDENTIFIER = re.compile(r"[A-Za-z]\w*(?:[._]\w+)+")
"""A code name in a header (``max_tokens``, ``tokens.messages``): the same in both editions."""


def table_problems(notebook: Locator, lang: str, kept_words: set[str]) -> list[str]:
    """Every table fits its output at this window width; a Chinese table has Chinese headers.

    ``kept_words``: headers that are the same in both editions by choice
    (the course's own terms, such as ``entry id``, and names such as ``Python``).
    """
    problems = []
    for table in notebook.evaluate(_TABLE_BOXES):
        if table["right"] > min(table["outputRight"], table["window"]) + 1:
            problems.append(f"a table is wider than its output: {table['headers'][:4]}")
        if lang == "zh":
            english = [
                header
                for header in table["headers"]
                if re.search("[A-Za-z]", header)
                and header not in kept_words
                and not IDENTIFIER.fullmatch(header)
                and not re.search("[\u4e00-\u9fff]", header)
            ]
            if english:
                problems.append(f"English headers in the Chinese edition: {english}")
    return problems


def save_changes_problems(page: Page, saved: Path, original: Path) -> list[str]:
    """Saving an untouched notebook must write back exactly the stored file.

    JupyterLab saves what it holds, metadata the kernel reported included; a
    difference would be written by autosave the first time a student opens it.
    """
    page.wait_for_timeout(1000)  # the kernel's info reply may arrive after it is idle
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    after, before = saved.read_text(encoding="utf-8"), original.read_text(encoding="utf-8")
    if after == before:
        return []
    changed = [
        f"{number}: {old!r} -> {new!r}"
        for number, (old, new) in enumerate(
            zip(before.splitlines(), after.splitlines(), strict=False), 1
        )
        if old != new
    ]
    return [f"saving the untouched notebook changed it: {(changed or ['its length'])[:3]}"]


def run_all(page: Page, executions: int) -> None:
    """Choose Run → Run All Cells and wait for the kernel's last reply.

    ``executions`` is how many cells send code (JupyterLab skips blank ones).
    The stored prompts are numbered 1, 2, 3 like a fresh run's, so the wait
    counts the kernel's replies instead; a run that stops at an error ends it
    too, and the error is reported by ``error_outputs``.
    """
    page.evaluate(_COUNT_REPLIES)
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-item", has_text=re.compile(r"^Run All Cells")).click()
    page.wait_for_function(_RUN_FINISHED, arg=executions, timeout=RUN_TIMEOUT_MS)


def cell(notebook: Locator, number: int) -> Locator:
    """The ``number``-th cell of the notebook (every cell is in the page: no windowing)."""
    return notebook.locator(".jp-WindowedPanel-viewport > .jp-Cell").nth(number)


def eventually(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Whether ``condition`` holds within ``timeout`` seconds (the page answers asynchronously)."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


# --- checks ------------------------------------------------------------------------


def error_outputs(notebook: Locator) -> list[str]:
    """Every stderr or error output, with the first lines of its text."""
    return [text[:500] for text in notebook.locator(STDERR).all_inner_texts()]


def placeholder_outputs(notebook: Locator) -> list[str]:
    """Outputs showing a widget's stand-in instead of its controls."""
    problems = []
    for text in notebook.locator(".jp-OutputArea-output").all_inner_texts():
        stripped = text.strip()
        if any(marker in stripped for marker in PLACEHOLDER_TEXTS):
            problems.append(f"widget placeholder: {stripped[:200]!r}")
        elif WIDGET_REPR.match(stripped):
            problems.append(f"widget shown as its plain text: {stripped[:200]!r}")
    return problems


_IMAGE_BOXES = """(notebook) => [...notebook.querySelectorAll(".jp-OutputArea-output img")].map(img => {
    const box = img.getBoundingClientRect();
    const output = img.closest(".jp-OutputArea-output").getBoundingClientRect();
    return {
        label: img.className || img.alt || img.src.slice(0, 40),
        complete: img.complete, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight,
        left: box.left, right: box.right, width: box.width, height: box.height,
        outputLeft: output.left, outputRight: output.right, window: window.innerWidth,
    };
})"""


def image_problems(notebook: Locator, tolerance: float = 0.02) -> list[str]:
    """Pictures drawn out of shape, or wider than their output or the window.

    Each image in a scrolled-into-view output is measured: its drawn
    width/height must equal its natural width/height within ``tolerance``, and
    it must lie inside both its output area and the window.
    """
    problems = []
    for box in notebook.evaluate(_IMAGE_BOXES):
        name = f"image {box['label']!r} ({box['naturalWidth']}x{box['naturalHeight']})"
        if not box["complete"] or not box["naturalWidth"] or not box["height"]:
            problems.append(f"{name}: not drawn ({box['width']:.0f}x{box['height']:.0f})")
            continue
        natural = box["naturalWidth"] / box["naturalHeight"]
        drawn = box["width"] / box["height"]
        if abs(drawn / natural - 1) > tolerance:
            problems.append(
                f"{name}: drawn {box['width']:.0f}x{box['height']:.0f}, "
                f"aspect {drawn:.3f} instead of {natural:.3f}"
            )
        right_edge = min(box["outputRight"], box["window"])
        if box["left"] < box["outputLeft"] - 1 or box["right"] > right_edge + 1:
            problems.append(
                f"{name}: spans x {box['left']:.0f}..{box['right']:.0f}, beyond its output "
                f"({box['outputLeft']:.0f}..{box['outputRight']:.0f}) or the "
                f"{box['window']}-px window"
            )
    return problems


_ANSWER_TEXT = """(details) => {
    const summary = details.querySelector(":scope > summary");
    const whole = details.innerText;
    const title = summary ? summary.innerText : "";
    return whole.replace(title, "").trim();
}"""


def _details_of(target: Locator, answer: CollapsedAnswer) -> Locator:
    area = ".jp-MarkdownOutput" if answer.kind == "details" else ".jp-OutputArea-output"
    return target.locator(f"{area} details").first


def _answer_visible(target: Locator, answer: CollapsedAnswer) -> str:
    """The part of the answer a reader sees now ("" when none): the block's text beyond its label."""
    return str(_details_of(target, answer).evaluate(_ANSWER_TEXT))


def _reveal(target: Locator, answer: CollapsedAnswer) -> None:
    _details_of(target, answer).locator(":scope > summary").click()


def collapsed_answer_problems(notebook: Locator, answers: list[CollapsedAnswer]) -> list[str]:
    """Each hidden answer must be hidden now, and visible after one click.

    An answer is a ``<details>`` block's text beyond its summary (a closed
    block draws none of it), in an answer cell's output or in a markdown
    explanation. The check holds as the notebook opens and after Run All.
    """
    problems = []
    for answer in answers:
        target = cell(notebook, answer.cell)
        if not eventually(lambda t=target, a=answer: _details_of(t, a).count() > 0):
            problems.append(f"cell {answer.cell}: its <details> block is not drawn")
            continue
        target.scroll_into_view_if_needed()
        if visible := _answer_visible(target, answer):
            problems.append(
                f"cell {answer.cell}: the {answer.kind} answer shows before a click: {visible[:120]!r}"
            )
            continue
        _reveal(target, answer)
        if not eventually(lambda t=target, a=answer: bool(_answer_visible(t, a))):
            problems.append(
                f"cell {answer.cell}: the {answer.kind} answer stays hidden after a click"
            )
    return problems


# --- screenshots ------------------------------------------------------------------------


def screenshot_pages(page: Page, folder: Path, limit: int = 60) -> list[Path]:
    """Scroll the notebook a window at a time and save each view (its cells are not windowed)."""
    folder.mkdir(parents=True, exist_ok=True)
    scroller = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer")
    # Up to the last cell's bottom: JupyterLab adds a window's height of blank space after it.
    end, step = scroller.evaluate(
        """e => {
            const cells = e.querySelectorAll(".jp-Cell");
            const last = cells[cells.length - 1].getBoundingClientRect().bottom;
            return [last - e.getBoundingClientRect().top + e.scrollTop, e.clientHeight];
        }"""
    )
    saved = []
    for number, top in enumerate(range(0, max(int(end), 1), max(int(step) - 40, 100))):
        if number >= limit:
            break
        scroller.evaluate(f"e => {{ e.scrollTop = {top}; }}")
        page.wait_for_timeout(100)
        path = folder / f"page-{number + 1:02d}.png"
        page.screenshot(path=str(path))
        saved.append(path)
    scroller.evaluate("e => { e.scrollTop = 0; }")
    return saved
