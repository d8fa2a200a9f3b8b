"""JupyterLab started as ``make lab`` starts it, but in the background: no terminal at all.

A student may start ``make lab`` with ``nohup ... &`` or from a script, and then the
server has no TTY: that is when its terminals used to get a login shell without
``.venv/bin``. Here ``make lab`` runs in a session of its own (as ``setsid nohup``
would put it), with no standard input and its output in a log file.

It runs in a throw-away checkout: the repository's ``Makefile``, ``pyproject.toml``,
``jupyter_config/``, ``notebooks/`` and ``data/`` copied into a temporary folder, with
``.venv`` a link to the repository's. ``make lab`` serves that folder as it would serve
a clone, so saving a notebook writes nothing in the repository. ``LAB_ARGS`` adds only
what a test needs: a free loopback port, a random token, JupyterLab settings and
workspaces in the temporary folder. Jupyter's own configuration, data, runtime and
IPython folders are temporary too, so nothing a developer set up is read (``make lab``
still adds ``jupyter_config/``).

Every process the server starts (kernels and terminal shells start sessions of their
own) inherits a marker in its environment; ``stop`` ends the server and then checks
that no process carrying the marker is left.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from conftest import LAB_SETTINGS, REPO, LabServer, _wait_until_serving, free_port

MARKER = "COURSE_LAB_BACKGROUND_TEST"
"""An environment variable every process of one background server inherits."""

STOP_TIMEOUT = 30.0

CHECKOUT_FILES = ("Makefile", "pyproject.toml")
CHECKOUT_FOLDERS = ("jupyter_config", "notebooks", "data")


def write_settings(folder: Path, extra: dict[str, dict[str, Any]]) -> None:
    """The browser tests' JupyterLab settings, plus ``extra`` (plugin id → values)."""
    for plugin, values in {**LAB_SETTINGS, **extra}.items():
        file = folder / f"{plugin}.jupyterlab-settings"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(values), encoding="utf-8")


def marked_processes(marker: str) -> list[int]:
    """Every live process whose environment holds ``MARKER=marker`` (read from ``/proc``)."""
    wanted = f"{MARKER}={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes()
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if wanted in environment.split(b"\0"):
            found.append(int(entry.name))
    return found


def _describe(pids: list[int]) -> list[str]:
    described = []
    for pid in pids:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            command = b"?"
        described.append(f"{pid}: {command.decode(errors='replace').strip()[:120]}")
    return described


class BackgroundLab:
    """``make lab`` running detached; ``server`` talks to it, ``stop`` ends it and checks."""

    def __init__(self, server: LabServer, marker: str, log: Path) -> None:
        self.server = server
        self.marker = marker
        self.log = log
        self.left_behind: list[str] = []

    def stop(self) -> list[str]:
        """Send SIGTERM to ``make``'s session and wait; the processes left (killed), if any."""
        process = self.server.process
        if process.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        deadline = time.monotonic() + STOP_TIMEOUT
        while (remaining := marked_processes(self.marker)) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.left_behind = _describe(remaining)
        for pid in remaining:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return self.left_behind


@contextmanager
def background_make_lab(
    scratch: Path,
    log: Path,
    *,
    settings: dict[str, dict[str, Any]] | None = None,
    home: Path | None = None,
) -> Iterator[BackgroundLab]:
    """Start ``make lab`` detached in a throw-away checkout; stop it afterwards.

    ``home``: a ``HOME`` for the server and everything it starts (a terminal's ``~/.bashrc``).
    """
    root = scratch / "checkout"
    for folder in CHECKOUT_FOLDERS:
        shutil.copytree(REPO / folder, root / folder)
    for file in CHECKOUT_FILES:
        shutil.copy2(REPO / file, root / file)
    (root / ".venv").symlink_to(REPO / ".venv", target_is_directory=True)
    write_settings(scratch / "settings", settings or {})
    port, token, marker = free_port(), secrets.token_hex(24), secrets.token_hex(8)
    lab_args = [
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--LabApp.user_settings_dir={scratch / 'settings'}",
        f"--LabApp.workspaces_dir={scratch / 'workspaces'}",
        "--LabApp.expose_app_in_browser=True",
    ]
    environment = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(scratch / "config"),
        "JUPYTER_DATA_DIR": str(scratch / "data"),
        "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
        "IPYTHONDIR": str(scratch / "ipython"),
        MARKER: marker,
    }
    if home is not None:
        environment["HOME"] = str(home)
    for variable in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):  # under `make test-browser`
        environment.pop(variable, None)
    # -o: never re-install the packages, even when pyproject.toml is newer than the stamp.
    command = ["nohup", "make", "--no-print-directory", "-o", ".venv/.installed", "lab"]
    command.append(f"LAB_ARGS={' '.join(lab_args)}")
    with log.open("wb") as output:
        process = subprocess.Popen(
            command,
            cwd=root,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # setsid: no controlling terminal
        )
    lab = BackgroundLab(LabServer(f"http://127.0.0.1:{port}", token, root, process), marker, log)
    try:
        _wait_until_serving(lab.server, log)
        yield lab
    finally:
        lab.stop()
