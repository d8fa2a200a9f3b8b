"""The grader's notebook worker: runs a student's notebooks headless and records each exercise.

Started by ``notebook_grading`` inside the same fence, with the same limits,
as the checks' worker (``grade_worker``, whose set-up it shares: the user id
it drops to, its own SIGINT handler, the subreaper, the ``RLIMIT_*`` caps).
Each notebook's code cells run in order in one namespace, as *Run All*
would, in a plain interpreter: no kernel, so nothing to start or connect to.
IPython-only lines (``%magic``, ``!shell``) are skipped, and a cell that
raises is recorded and passed over, so a later exercise still runs.

``course_lib.track.exercises.check`` is replaced before any cell runs, so
each ``check("11.3-q1", answer)`` a cell makes is judged by ``evaluate`` and
sent at once on the report file (``{"row": {"name": id, "outcome": status}}``);
what the cell prints does not count. At the time limit the cell running is
interrupted and the exercises not reached are left out (the grader reports
them as not run).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .grade_worker import (
    _alarm,
    _become_subreaper,
    _Channel,
    _drop_to,
    _ImportTimeout,
    _limit_resources,
    _use_private_home,
)

__all__: list[str] = []

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
    from . import exercises

    def check(exercise_id: str, answer: object, *, lang: Any = None) -> None:
        feedback = exercises.evaluate(exercise_id, answer, lang=lang)
        channel.send("row", {"name": exercise_id, "outcome": feedback.status})
        print(feedback)

    exercises.check = check  # the notebooks import it from there
    deadline = time.monotonic() + seconds
    failed_cells = 0
    timed_out = False
    for notebook in sorted(folder.rglob("*.ipynb")):
        namespace: dict[str, Any] = {"__name__": "__main__"}
        for number, source in enumerate(code_cells(notebook), start=1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            try:
                code = compile(source, f"{notebook.name}, cell {number}", "exec")
                with _alarm(remaining):
                    exec(code, namespace)
            except _ImportTimeout:
                timed_out = True
                break
            except (Exception, SystemExit):
                failed_cells += 1
        if timed_out:
            break
    return {"timed_out": timed_out, "failed_cells": failed_cells}


def main(argv: Sequence[str]) -> int:
    """Run the notebooks in the staged folder and send each exercise's status on ``--channel-fd``."""
    parser = argparse.ArgumentParser(prog="python -m course_lib.track.notebook_worker")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--timeout", type=float, required=True)
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--file-mb", type=int, required=True)
    parser.add_argument("--processes", type=int, required=True)
    parser.add_argument("--copy-from", type=Path, default=None)
    parser.add_argument("--as-uid", type=int, default=None)
    parser.add_argument("--channel-fd", type=int, required=True)
    args = parser.parse_args(argv)
    if args.as_uid is not None:
        _drop_to(args.as_uid)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _become_subreaper()
    if args.copy_from is not None:
        shutil.copytree(args.copy_from, args.folder)
    _use_private_home()
    os.environ.setdefault("MPLBACKEND", "Agg")
    _limit_resources(args.memory_mb, args.file_mb, args.processes)
    channel = _Channel(args.channel_fd)
    with contextlib.suppress(MemoryError):
        channel.send("result", _run_notebooks(args.folder, channel, args.timeout))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
