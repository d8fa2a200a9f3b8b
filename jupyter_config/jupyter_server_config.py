"""The Jupyter server's settings for ``make lab`` (the Makefile puts this folder on
``JUPYTER_CONFIG_PATH``; a user's own ``~/.jupyter`` settings still take precedence).

Terminals: every JupyterLab terminal runs an interactive bash that reads
``terminal_rc.sh`` (the user's ``~/.bashrc``, then the workbook's ``.venv/bin`` at the
front of ``PATH``), so ``course-lab`` and the workbook's ``python`` work there however
the server was started. Without this, a server started with no terminal (in the
background, by ``nohup``) gives its terminals a login shell, whose ``/etc/profile``
rebuilds ``PATH`` without ``.venv/bin``. Without bash, a plain ``sh`` reads the same file.

Saving: a widget's output holds only the id of a model that lives in the kernel, so a
saved notebook would reopen with "Error displaying widget: model not found" where an
explorer was. Before a notebook is written, such outputs keep their other forms only
(the explorer's plain text), as ``notebook_tools/build.py`` stores them: saving after
Run All writes back the stored notebook, and running the cell draws the explorer again.
A widget whose state the notebook saves (JupyterLab's "Save Jupyter widget state in
notebooks") keeps its output. ``language_info.version`` is saved as major.minor, as the
notebooks are stored: JupyterLab writes the kernel's full version into every notebook it
opens, so a patch release other than the builder's would change the file.
"""

# ruff: noqa: F821  (``c`` is the configuration object traitlets provides)

from __future__ import annotations

import shutil
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

VENV_BIN = Path(sys.executable).parent
"""The folder of the Python that runs the server (``make lab``: the workbook's ``.venv/bin``)."""

TERMINAL_RC = HERE / "terminal_rc.sh"


def terminal_shell() -> list[str]:
    """The command a new terminal runs: bash with ``TERMINAL_RC``, or ``sh`` reading it."""
    variables = ["env", f"COURSE_LAB_BIN={VENV_BIN}"]
    bash = shutil.which("bash")
    if bash:
        return [*variables, bash, "--rcfile", str(TERMINAL_RC), "-i"]
    return [*variables, f"ENV={TERMINAL_RC}", shutil.which("sh") or "/bin/sh", "-i"]


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def drop_unsaved_widget_views(model: dict[str, Any], **_: Any) -> None:
    """Remove widget views whose model the notebook does not save, where another form remains."""
    notebook = model.get("content")
    if model.get("type") != "notebook" or not isinstance(notebook, dict):
        return
    widgets = (notebook.get("metadata") or {}).get("widgets") or {}
    saved = (widgets.get(WIDGET_STATE) or {}).get("state") or {}
    for cell in notebook.get("cells") or []:
        for output in cell.get("outputs") or []:
            data = output.get("data") or {}
            view = data.get(WIDGET_VIEW)
            if view is None or len(data) == 1:
                continue
            if isinstance(view, dict) and view.get("model_id") in saved:
                continue
            del data[WIDGET_VIEW]


def python_version_without_patch(model: dict[str, Any], **_: Any) -> None:
    """Write ``language_info.version`` as major.minor (``3.11``), as the workbook stores it.

    JupyterLab replaces a notebook's ``language_info`` with the kernel's as it opens it,
    patch release included (``3.11.9``), whatever the file says: a notebook opened under
    another patch release than the one that built it would be saved changed. The build
    (``notebook_tools/build.py``) stores major.minor, so saving writes back what was stored.
    """
    notebook = model.get("content")
    if model.get("type") != "notebook" or not isinstance(notebook, dict):
        return
    info = (notebook.get("metadata") or {}).get("language_info")
    if isinstance(info, dict) and info.get("name") == "python":
        version = info.get("version")
        if isinstance(version, str) and version.count(".") >= 2:
            info["version"] = ".".join(version.split(".")[:2])


def before_saving(model: dict[str, Any], **options: Any) -> None:
    """The save hook: widget views left out (``drop_unsaved_widget_views``), Python's patch
    release too (``python_version_without_patch``)."""
    drop_unsaved_widget_views(model, **options)
    python_version_without_patch(model, **options)


c.ServerApp.terminado_settings = {"shell_command": terminal_shell()}
c.ContentsManager.pre_save_hook = before_saving
# JupyterLab applies this file's settings twice: the hook then "overrides" itself.
warnings.filterwarnings(
    "ignore",
    message=r"Overriding existing pre_save_hook \(before_saving\) with a new one",
    category=UserWarning,
)
