"""``JsonlSessionStore.open`` on text shaped like real sessions, with the garbage collector on.

Why a benchmark of its own: ``bench_scaling`` opens a file of plain words and
pauses the garbage collector while timing. Real sessions are not like that:
their texts hold newlines, quotes, tabs and non-ASCII characters (escapes the
JSON reader must decode), and a notebook opens a store while it already holds
large objects (a 100k-entry path it built), so every full collection the
reading triggers walks that old heap too. Here both are measured as a user
meets them:

* the file: the scaling benchmark's fixture-shaped path, its texts replaced by
  the texts of the pi sample (``data/pi-sessions``), cycled in a seeded order;
* the process: a fresh child process (nothing else held), and a child that
  first builds a 100k-entry path and keeps it;
* the timing: ``JsonlSessionStore.open`` against ``[json.loads(line) for line
  in f]`` on the same file, alternately, best of a few rounds, with the
  garbage collector left as the process has it (on).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.bench_build_context import SAMPLE, Figure, render
from benchmarks.bench_scaling import Target, render_targets, scaling_path
from course_lib import JsonlSessionStore
from course_lib.base.wire import dumps_line
from course_lib.beyond.importers import import_pi_session

SIZES = (20_000, 100_000)
QUICK_SIZES = (20_000,)
HELD_PATH = 100_000  # what the "holding" child builds and keeps before timing
TARGET = 2.5
TEXT_SEED = 7


def sample_texts() -> list[str]:
    """Every text block of the pi sample, in a seeded order (about 720 texts, 320k characters)."""
    texts = [
        block.text
        for entry in import_pi_session(SAMPLE).entries
        for block in getattr(getattr(entry, "message", None), "content", [])
        if getattr(block, "text", "")
    ]
    random.Random(TEXT_SEED).shuffle(texts)
    return texts


def realistic_lines(size: int) -> str:
    """The scaling path of ``size`` entries as JSONL, its texts replaced by the sample's."""
    texts = sample_texts()
    counter = 0
    lines = []
    for entry in scaling_path(size):
        wire = entry.to_wire()
        for block in wire["message"]["content"]:
            if "text" in block:
                block["text"] = texts[counter % len(texts)]
                counter += 1
        lines.append(dumps_line(wire))
    return "".join(lines)


def _json_floor(file: Path) -> list[Any]:
    with file.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _paired_seconds_as_used(
    first: Callable[[], Any], second: Callable[[], Any], repeats: int
) -> tuple[float, float]:
    """Best-of-``repeats`` seconds of two pieces of work, timed alternately, the collector on.

    Each result is dropped (and collected) before the next call, so neither
    pays for the other's garbage.
    """
    best = [float("inf"), float("inf")]
    for _ in range(max(1, repeats)):
        for index, work in enumerate((first, second)):
            gc.collect()
            start = time.perf_counter()
            result = work()
            best[index] = min(best[index], time.perf_counter() - start)
            del result
    return best[0], best[1]


def child(mode: str, file: Path, repeats: int) -> dict[str, float]:
    """Run in the child process: hold what ``mode`` says, then time the floor and the open."""
    held = scaling_path(HELD_PATH) if mode == "holding" else None
    assert gc.isenabled()
    floor_s, open_s = _paired_seconds_as_used(
        lambda: _json_floor(file), lambda: JsonlSessionStore.open(file), repeats
    )
    del held
    return {"floor": floor_s, "open": open_s}


def _run_child(mode: str, file: Path, repeats: int) -> dict[str, float]:
    command = [sys.executable, "-m", "benchmarks.bench_store_open", "--child", mode, str(file)]
    command += ["--repeats", str(repeats)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(output.strip().splitlines()[-1])
    return result


def measure(sizes: Sequence[int], repeats: int) -> list[Target]:
    targets = []
    with tempfile.TemporaryDirectory() as name:
        for size in sizes:
            file = Path(name) / f"realistic-{size}.jsonl"
            file.write_text(realistic_lines(size), encoding="utf-8")
            megabytes = file.stat().st_size / 1e6
            for mode, label in (("fresh", "a fresh process"), ("holding", "holding a 100k path")):
                seconds = _run_child(mode, file, repeats)
                figure = Figure(
                    f"JsonlSessionStore.open / json.loads, realistic text, {size // 1000}k "
                    f"entries ({megabytes:.0f} MB), {label}",
                    seconds["open"] / seconds["floor"],
                    f"{seconds['open'] * 1000:,.1f} ms vs {seconds['floor'] * 1000:,.1f} ms",
                )
                targets.append(Target(figure, TARGET))
                print(render([figure]), flush=True)
    return targets


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the table (``--quick``: 20k entries only)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_store_open")
    parser.add_argument("--repeats", type=int, default=3, help="best of N rounds (default 3)")
    parser.add_argument("--quick", action="store_true", help="20k entries only")
    parser.add_argument("--child", choices=("fresh", "holding"), help=argparse.SUPPRESS)
    parser.add_argument("file", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.file, args.repeats)))
        return 0
    start = time.perf_counter()
    print("JsonlSessionStore.open on realistic text, the garbage collector on")
    targets = measure(QUICK_SIZES if args.quick else SIZES, args.repeats)
    print(render_targets(targets))
    print(f"measured in {time.perf_counter() - start:,.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
