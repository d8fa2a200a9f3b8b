"""Moving an explorer in the page by mouse and keyboard, and what it must show afterwards.

The expected view is computed in this process by a twin explorer from
``course_lib.views``, built with the settings the stored notebook's repr names
and moved to the values the page's controls read back: the page must show
the twin's outcome, path, table and chart (the PNG's bytes, by digest).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from lab_page import eventually
from playwright.sync_api import Locator, Page

from course_lib.views import CompactionExplorer
from course_lib.views.headers import header_in

UPDATE_TIMEOUT = 20.0
"""Seconds for a change to reach the kernel and the redrawn parts to come back."""

MIN_DRAG = 3
"""A mouse move of at least this many values, so it is a drag and not a nudge."""

MAX_PRESSES = 8


def normalise(text: str | None) -> str | None:
    """Collapse whitespace (``&nbsp;`` included): the page's line breaks are layout, not text."""
    return None if text is None else " ".join(text.replace("\xa0", " ").split())


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._style = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._style += tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._style -= tag == "style"

    def handle_data(self, data: str) -> None:
        if not self._style:
            self.parts.append(data)


def html_text(value: str) -> str | None:
    """The text a browser draws for ``value`` (tags dropped, entities decoded), normalised."""
    parser = _Text()
    parser.feed(value)
    return normalise("".join(parser.parts))


@dataclass(frozen=True)
class Shown:
    """What an explorer shows, in a form the page and the library can both produce."""

    sliders: dict[str, int]
    step: str | None
    outcome: str | None
    path: str | None
    table: list[list[str]]
    chart_sha256: str | None


def expected_view(twin: Any) -> Shown:
    """What ``twin`` (an explorer from ``course_lib.views``) shows now."""
    frame = twin.state_frame()
    table = [[header_in(name, twin.lang) for name in frame.columns]]  # the edition's headers
    table += [[str(value) for value in row] for row in frame.itertuples(index=False)]
    compaction = isinstance(twin, CompactionExplorer)
    return Shown(
        sliders={slider.description: int(slider.value) for slider in twin.sliders},
        step=twin.step.value if compaction else None,
        outcome=html_text(twin.outcome.value),
        path=html_text(twin.path_line.value) if compaction else None,
        table=table,
        chart_sha256=hashlib.sha256(bytes(twin.chart.value)).hexdigest(),
    )


def differences(shown: Shown, expected: Shown) -> str:
    """The fields that differ, page first, library second (the chart by digest)."""
    parts = [
        f"{name}: page {getattr(shown, name)!r}, library {getattr(expected, name)!r}"
        for name in Shown.__dataclass_fields__
        if getattr(shown, name) != getattr(expected, name)
    ]
    return "; ".join(parts) or "no difference"


_READ = """async (root) => {
    const text = selector => {
        const found = root.querySelector(selector);
        return found ? found.innerText : null;
    };
    const sliders = {};
    for (const slider of root.querySelectorAll(".widget-slider")) {
        const name = slider.querySelector(".widget-label").innerText.trim();
        sliders[name] = slider.querySelector(".widget-readout").innerText.trim();
    }
    const pressed = root.querySelector(".explorer-step button.mod-active");
    const table = [...root.querySelectorAll(".explorer-table tr")].map(
        row => [...row.querySelectorAll("th, td")].map(cell => cell.innerText.trim())
    );
    const chart = root.querySelector("img.explorer-chart");
    let digest = null;
    if (chart && chart.src) {
        const bytes = await (await fetch(chart.src)).arrayBuffer();
        const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
        digest = [...hash].map(byte => byte.toString(16).padStart(2, "0")).join("");
    }
    return {
        sliders, table, chart: digest,
        step: pressed ? pressed.innerText.trim() : null,
        outcome: text(".explorer-outcome .widget-html-content"),
        path: text(".explorer-path .widget-html-content"),
    };
}"""


def page_view(root: Locator) -> Shown:
    """What the explorer at ``root`` shows in the page now."""
    raw = root.evaluate(_READ)
    return Shown(
        sliders={name: int(value) for name, value in raw["sliders"].items()},
        step=raw["step"],
        outcome=normalise(raw["outcome"]),
        path=normalise(raw["path"]),
        table=raw["table"],
        chart_sha256=raw["chart"],
    )


def settle(root: Locator, twin: Any) -> tuple[Shown, Shown]:
    """Wait until the page shows what ``twin`` shows; return both (equal unless timed out)."""
    deadline = time.monotonic() + UPDATE_TIMEOUT
    while True:
        expected, shown = expected_view(twin), page_view(root)
        if shown == expected or time.monotonic() > deadline:
            return shown, expected
        time.sleep(0.1)


_CLIPPED = """(root) => [...root.querySelectorAll(".widget-label, button, .widget-readout")]
    .filter(element => element.scrollWidth > element.clientWidth + 1)
    .map(element => element.innerText.trim())"""


def control_problems(root: Locator, twin: Any) -> list[str]:
    """The explorer must be drawn as controls: its sliders, its step buttons, table and chart."""
    problems = []
    for slider in twin.sliders:
        found = root.locator(f".explorer-{slider.description} .noUi-handle")
        if found.count() != 1 or not found.is_visible():
            problems.append(f"slider {slider.description}: no handle drawn")
    if isinstance(twin, CompactionExplorer):
        buttons = root.locator(".explorer-step button")
        labels = [text.strip() for text in buttons.all_inner_texts()]
        if labels != list(twin.step.options):
            problems.append(f"step buttons {labels}, expected {list(twin.step.options)}")
    for part in (".explorer-outcome", ".explorer-table table", "img.explorer-chart"):
        if not root.locator(part).first.is_visible():
            problems.append(f"{part}: not drawn")
    problems += [f"label cut off: {text!r}" for text in root.evaluate(_CLIPPED)]
    return problems


# --- moving the controls ---------------------------------------------------------------


def drag(page: Page, root: Locator, name: str, value: int, limits: tuple[int, int]) -> None:
    """Drag the slider's handle with the mouse to where ``value`` sits on its track."""
    slider = root.locator(f".explorer-{name}")
    track = slider.locator(".noUi-base").bounding_box()
    handle = slider.locator(".noUi-handle").bounding_box()
    assert track is not None and handle is not None, f"slider {name} is not drawn"
    low, high = limits
    start_x = handle["x"] + handle["width"] / 2
    y = handle["y"] + handle["height"] / 2
    page.mouse.move(start_x, y)
    page.mouse.down()
    page.mouse.move(track["x"] + (value - low) / (high - low) * track["width"], y, steps=10)
    page.mouse.up()


def press(page: Page, root: Locator, name: str, key: str, times: int) -> None:
    """Focus the slider's handle (as Tab would) and press an arrow key ``times`` times."""
    root.locator(f".explorer-{name} .noUi-handle").focus()
    for _ in range(times):
        page.keyboard.press(key)


def choose_step(page: Page, root: Locator, label: str, *, keyboard: bool) -> None:
    """Choose a step by clicking its button, or by focusing it and pressing Enter."""
    button = root.locator(".explorer-step").get_by_role("button", name=label, exact=True)
    if keyboard:
        button.focus()
        page.keyboard.press("Enter")
    else:
        button.click()


def _changes_outcome(twin: Any, name: str, value: int) -> bool:
    slider = getattr(twin, name)
    before, old = expected_view(twin).outcome, slider.value
    slider.value = value
    changed = expected_view(twin).outcome != before
    slider.value = old
    return changed


def mouse_target(twin: Any, name: str) -> int | None:
    """The nearest value at least ``MIN_DRAG`` away whose outcome differs from the current one."""
    slider = getattr(twin, name)
    current = int(slider.value)
    candidates = sorted(
        (v for v in range(slider.min, slider.max + 1) if abs(v - current) >= MIN_DRAG),
        key=lambda v: (abs(v - current), v),
    )
    return next((v for v in candidates if _changes_outcome(twin, name, v)), None)


def key_target(twin: Any, name: str) -> tuple[str, int] | None:
    """The fewest arrow presses (right first) that change the outcome."""
    slider = getattr(twin, name)
    for times in range(1, MAX_PRESSES + 1):
        for key, sign in (("ArrowRight", 1), ("ArrowLeft", -1)):
            value = int(slider.value) + sign * times
            if slider.min <= value <= slider.max and _changes_outcome(twin, name, value):
                return key, times
    return None


@dataclass
class Move:
    """One user action and the check that followed it."""

    description: str
    reached: bool  # the control shows the value or step the action aimed at
    shown: Shown
    expected: Shown
    outcome_changed: bool


def exercise(page: Page, root: Locator, twin: Any, screenshots: Path) -> list[Move]:
    """Move every slider by mouse and by keyboard, and choose every step both ways.

    After each action the twin is moved to the values the page's controls read
    back, and the page must then show exactly what the twin shows. Slider
    targets are chosen so that each action changes the outcome text.
    """
    moves: list[Move] = []

    def record(description: str, reached: bool) -> None:
        before = expected_view(twin).outcome
        shown = page_view(root)
        # Follow the page's controls: the twin takes the values a user set.
        for name, value in shown.sliders.items():
            getattr(twin, name).value = value
        if shown.step is not None and isinstance(twin, CompactionExplorer):
            twin.step.value = shown.step
        shown, expected = settle(root, twin)
        moves.append(Move(description, reached, shown, expected, expected.outcome != before))

    for slider in twin.sliders:
        name, limits = slider.description, (slider.min, slider.max)
        target = mouse_target(twin, name)
        assert target is not None, f"no value of {name} changes the outcome"
        drag(page, root, name, target, limits)
        record(f"mouse: drag {name} to {target}", _wait_for_value(root, name, target))

        keys = key_target(twin, name)
        assert keys is not None, f"no arrow press on {name} changes the outcome"
        key, times = keys
        start = page_view(root).sliders[name]
        press(page, root, name, key, times)
        aim = start + (times if key == "ArrowRight" else -times)
        record(f"keyboard: {key} x{times} on {name}", _wait_for_value(root, name, aim))

    if isinstance(twin, CompactionExplorer):
        first = twin.step.value
        for label in twin.step.options:
            if label != first:
                choose_step(page, root, label, keyboard=False)
                record(f"mouse: click step {label!r}", _wait_for_step(root, label))
        choose_step(page, root, first, keyboard=True)
        record(f"keyboard: Enter on step {first!r}", _wait_for_step(root, first))
    root.screenshot(path=str(screenshots))
    return moves


def _wait_for_value(root: Locator, name: str, value: int) -> bool:
    return eventually(lambda: page_view(root).sliders.get(name) == value, UPDATE_TIMEOUT)


def _wait_for_step(root: Locator, label: str) -> bool:
    return eventually(lambda: page_view(root).step == label, UPDATE_TIMEOUT)
