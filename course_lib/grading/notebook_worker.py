"""The grader's notebook worker: runs a student's notebooks headless and records each exercise.

Started by ``notebook_grading`` inside the same fence, with the same limits,
as the rule server (``judge.confinement``, whose set-up it shares: the user id
it drops to, its own SIGINT handler, the subreaper, the ``RLIMIT_*`` caps).
Each notebook's code cells run in order in one namespace, as *Run All*
would, in a plain interpreter: no kernel, so nothing to start or connect to.
IPython-only lines (``%magic``, ``!shell``) are skipped, and a cell that
raises is recorded and passed over, so a later exercise still runs.

``course_lib.track.exercises.check`` is replaced before any cell runs, so
each ``check("11.3-q1", answer)`` a cell makes sends the *answer* at once on
the report file, as plain data (``judge.codec``) with the cell it came from
(``{"row": {"name": id, "cell": [notebook, n], "value": ...}}``). This process
never judges: the grader does, outside the sandbox (``notebook_grading``), so
a notebook that patches the exercises or writes rows of its own decides
nothing. What a cell prints does not count. At the time limit the cell
running is interrupted and the exercises not reached are left out (the
grader reports them as not run).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..judge.codec import Codec, given_types
from ..judge.confinement import ImportTimeout, add_confinement_options, alarm, confine

__all__: list[str] = []


class _Channel:
    """The report file: whole JSON lines, written with one ``write`` each."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()

    def send(self, kind: str, value: Any) -> None:
        data = (json.dumps({kind: value}) + "\n").encode("utf-8")
        with self.lock, contextlib.suppress(OSError):
            os.write(self.fd, data)


def _encoded(value: object) -> Any:
    """``value`` as plain data (``judge.codec``); what cannot cross is sent as what it is."""
    try:
        return Codec(given_types()).encode(value)
    except Exception as error:  # too deep, or a repr that fails
        return ["other", type(value).__name__, f"<not sendable: {type(error).__name__}>"]


class Recording:
    """A function answer, called as the exercise calls it: each call's arguments and outcome."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.calls: list[list[Any]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        asked = _encoded((args, kwargs))
        try:
            result = self.function(*args, **kwargs)
        except Exception as error:
            self.calls.append([asked, None, {"type": type(error).__name__, "message": str(error)}])
            raise
        self.calls.append([asked, _encoded(result), None])
        return result


SKIPPED_PREFIXES = ("%", "!")
"""Lines only IPython understands; the notebooks' exercises never need them."""


def code_cells(notebook: Path) -> list[str]:
    """The code cells' sources, in order, without IPython-only lines; ``[]`` if it is not a notebook."""
    try:
        data = json.loads(notebook.read_text(encoding="utf-8"))
        cells = data["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    sources: list[str] = []
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        lines = [
            line for line in text.splitlines() if not line.lstrip().startswith(SKIPPED_PREFIXES)
        ]
        sources.append("\n".join(lines))
    return sources


def _run_notebooks(folder: Path, channel: _Channel, seconds: float) -> dict[str, Any]:
    from ..track import exercises

    cell: list[Any] = ["", 0]  # the notebook and code cell running now
    calls_as_exercises_do = exercises.evaluate  # taken before any cell could replace it

    def check(exercise_id: str, answer: object, *, lang: Any = None) -> None:
        """Send the answer, not a verdict: the grader judges it, outside this process.

        A function answer cannot cross: it is called here as the exercise calls it
        (``evaluate``, whose verdict is thrown away), and what each call gave is sent;
        the grader's own ``evaluate`` then meets those answers again (``Replay``).
        """
        row: dict[str, Any] = {"name": str(exercise_id), "cell": list(cell), "lang": lang}
        if callable(answer) and not isinstance(answer, type):
            recording = Recording(answer)
            with contextlib.suppress(Exception):
                calls_as_exercises_do(exercise_id, recording, lang=lang)
            row["calls"] = recording.calls
        else:
            row["value"] = _encoded(answer)
        channel.send("row", row)

    exercises.check = check  # the notebooks import it from there
    deadline = time.monotonic() + seconds
    failed_cells = 0
    timed_out = False
    for notebook in sorted(folder.rglob("*.ipynb")):
        namespace: dict[str, Any] = {"__name__": "__main__"}
        for number, source in enumerate(code_cells(notebook), start=1):
            cell[:] = [notebook.name, number]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            try:
                code = compile(source, f"{notebook.name}, cell {number}", "exec")
                with alarm(remaining):
                    exec(code, namespace)
            except ImportTimeout:
                timed_out = True
                break
            except (Exception, SystemExit):
                failed_cells += 1
        if timed_out:
            break
    return {"timed_out": timed_out, "failed_cells": failed_cells}


def main(argv: Sequence[str]) -> int:
    """Run the notebooks in the staged folder and send each exercise's status on ``--channel-fd``."""
    parser = argparse.ArgumentParser(prog="python -m course_lib.grading.notebook_worker")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--channel-fd", type=int, required=True)
    add_confinement_options(parser)
    args = parser.parse_args(argv)
    args.private_home = True  # the notebooks write where the grader cleans up, always
    confine(args, args.folder)
    channel = _Channel(args.channel_fd)
    with contextlib.suppress(MemoryError):
        channel.send("result", _run_notebooks(args.folder, channel, args.timeout))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
