"""The browser test's machinery: a throw-away JupyterLab, the system Chromium, one page per test.

Why a real browser: the stored notebooks only prove what the kernel printed.
Whether the explorers are drawn as controls, react to the mouse and the
keyboard, and fit a laptop's window is decided in JupyterLab's front end, so
it is checked there. Playwright drives the Chromium the system installed (on
Debian, ``apt-get install chromium``); it never downloads a browser.

JupyterLab serves a copy of ``notebooks/`` and ``data/`` in a temporary folder,
with its own settings, configuration, runtime and workspace folders and a
random token, on a free loopback port: nothing a developer has set up is read,
and nothing in the repository is written (the runs would otherwise be saved).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
"""Screenshots and the server's log, kept after the run (git-ignored)."""

WINDOW = {"width": 1280, "height": 900}
"""A common laptop window: every chart must fit its width."""

CHROMIUM_NAMES = ("chromium", "chromium-browser")
START_TIMEOUT = 90.0

LAB_SETTINGS: dict[str, dict[str, Any]] = {
    # Run All makes a notebook dirty; never save it, even in the throw-away copy.
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    # Every cell in the page, so every output and every answer can be looked at.
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    # No "Would you like to receive news?" toast over the notebook, no network call.
    "@jupyterlab/apputils-extension/notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}
"""JupyterLab user settings for the run, written as ``<plugin>.jupyterlab-settings`` files."""


def chromium_executable() -> str:
    """The system Chromium: ``$CHROMIUM`` if set, else the first ``chromium`` on ``PATH``."""
    configured = os.environ.get("CHROMIUM")
    if configured:
        return configured
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(
        "No Chromium found: install Debian's package (apt-get install chromium) "
        "or set CHROMIUM to a Chromium executable.",
        pytrace=False,
    )


def free_port() -> int:
    """A port nobody listens on now (JupyterLab is told not to try another one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LabServer:
    """A running JupyterLab: where it listens, its token, and the folder it serves."""

    base_url: str
    token: str
    root: Path
    process: subprocess.Popen[bytes]

    def url(self, path: str) -> str:
        """``path`` on this server, with the token (which also logs the page in)."""
        separator = "&" if "?" in path else "?"
        return f"{self.base_url}{path}{separator}token={self.token}"

    def notebook_url(self, relative: str, workspace: str) -> str:
        """Open ``relative`` in its own workspace, so no other notebook is restored beside it."""
        return self.url(f"/lab/workspaces/{workspace}/tree/{relative}")

    def api(self, method: str, path: str) -> Any:
        """Call the server's REST API (JSON in, JSON out; ``None`` for an empty answer)."""
        request = urllib.request.Request(
            f"{self.base_url}{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            body = answer.read()
        return json.loads(body) if body else None

    def shut_down_kernels(self) -> None:
        """End every session and its kernel: two cores are shared, an idle kernel still costs."""
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")


def _write_settings(folder: Path) -> None:
    for plugin, values in LAB_SETTINGS.items():
        file = folder / f"{plugin}.jupyterlab-settings"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(values), encoding="utf-8")


def _wait_until_serving(server: LabServer, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"JupyterLab stopped while starting:\n{log.read_text()[-3000:]}")
        try:
            server.api("GET", "/api/status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    pytest.fail(
        f"JupyterLab did not answer within {START_TIMEOUT:.0f} s:\n{log.read_text()[-3000:]}"
    )


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """The artefact folder, emptied at the start so it shows only this run."""
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory, artifacts: Path) -> Iterator[LabServer]:
    """JupyterLab on a free loopback port, serving a copy of the notebooks and their data."""
    scratch = tmp_path_factory.mktemp("jupyterlab")
    root = scratch / "root"
    shutil.copytree(REPO / "notebooks", root / "notebooks")
    shutil.copytree(REPO / "data", root / "data")
    settings = scratch / "settings"
    _write_settings(settings)
    port, token = free_port(), secrets.token_hex(24)
    environment = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(scratch / "config"),
        "JUPYTER_DATA_DIR": str(scratch / "data"),
        "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
        "IPYTHONDIR": str(scratch / "ipython"),
        # The server's settings `make lab` adds: terminals' shell, widget views left out on save.
        "JUPYTER_CONFIG_PATH": str(REPO / "jupyter_config"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={scratch / 'workspaces'}",
        # window.jupyterapp: the test asks the kernel's status and runs commands through it.
        "--LabApp.expose_app_in_browser=True",
    ]
    if os.geteuid() == 0:  # a container's CI runs as root
        command.append("--allow-root")
    log = artifacts / "jupyterlab.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, env=environment, stdout=output, stderr=subprocess.STDOUT, cwd=scratch
        )
    server = LabServer(f"http://127.0.0.1:{port}", token, root, process)
    try:
        _wait_until_serving(server, log)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    """Playwright's driver, once per run."""
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """The system Chromium, headless."""
    chromium = playwright.chromium.launch(executable_path=chromium_executable())
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture
def page(browser: Browser, lab: LabServer) -> Iterator[Page]:
    """A fresh 1280-px page; afterwards its kernels are shut down."""
    context = browser.new_context(viewport=WINDOW, device_scale_factor=1)
    try:
        yield context.new_page()
    finally:
        context.close()
        lab.shut_down_kernels()
