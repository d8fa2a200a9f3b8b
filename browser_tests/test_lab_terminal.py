"""`course-lab` works in a JupyterLab terminal even when `make lab` runs in the background.

Started without a TTY (``nohup make lab &``), the server used to give its terminals a
login shell, whose ``/etc/profile`` rebuilt ``PATH`` without ``.venv/bin``: `course-lab`
was "command not found". Here ``make lab`` runs detached, with a ``HOME`` whose
``~/.bashrc`` also resets ``PATH`` (as many do); a terminal opened in Chromium must
still read that ``~/.bashrc``, run ``course-lab --help`` and find the workbook's
``python``. Stopping the server must leave no process behind (the terminal's shell runs
in a session of its own).
"""

from __future__ import annotations

from pathlib import Path

from background_lab import background_make_lab
from conftest import REPO, WINDOW
from lab_page import TERMINAL_SCREEN, open_terminal
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

HOSTILE_BASHRC = """\
# A start-up file that sets PATH from scratch, as /etc/profile does for a login shell.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export READ_USER_BASHRC=yes
"""

TERMINAL_SETTINGS = {
    # xterm.js then keeps the screen's text in the page (an accessibility tree), to be read.
    "@jupyterlab/terminal-extension/plugin": {"screenReaderMode": True},
}

COMMAND = (
    'course-lab --help; echo "py""thon: $(command -v python)"; echo "bash""rc: $READ_USER_BASHRC"'
)
"""Typed as one line; the quotes split the echoed labels, so only the answers hold them whole."""


def _screen(page: Page) -> str:
    return str(page.evaluate(TERMINAL_SCREEN))


def _shows(page: Page, text: str, timeout_ms: float = 30_000) -> bool:
    """Whether the terminal's screen holds ``text`` within the time."""
    try:
        page.wait_for_function(
            f"(text) => ({TERMINAL_SCREEN})().includes(text)", arg=text, timeout=timeout_ms
        )
    except PlaywrightTimeout:
        return False
    return True


def test_course_lab_in_a_terminal_of_a_background_make_lab(
    browser: Browser, tmp_path: Path, artifacts: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(HOSTILE_BASHRC, encoding="utf-8")
    log = artifacts / "make-lab-terminal.log"
    with background_make_lab(tmp_path, log, settings=TERMINAL_SETTINGS, home=home) as lab:
        context = browser.new_context(viewport=WINDOW, device_scale_factor=1)
        try:
            page = context.new_page()
            page.goto(lab.server.url("/lab/workspaces/terminal"))
            open_terminal(page)
            page.locator(".jp-Terminal .xterm").first.click()
            page.keyboard.type(COMMAND)
            page.keyboard.press("Enter")
            done = _shows(page, "bashrc: ")
            page.screenshot(path=str(artifacts / "make-lab-terminal.png"))
            screen = _screen(page)
        finally:
            context.close()
        left_behind = lab.stop()
    assert done, f"the command did not finish; the terminal shows:\n{screen}"
    assert "command not found" not in screen, screen
    assert "usage: course-lab" in screen, screen
    assert f"python: {REPO / '.venv' / 'bin' / 'python'}" in screen, screen
    assert "bashrc: yes" in screen, f"~/.bashrc was not read:\n{screen}"
    assert left_behind == [], f"processes left after the server stopped: {left_behind}"
