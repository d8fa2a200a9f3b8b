"""How the pi summary parser scales: the time at size N against the time at 10N.

Each figure parses one hostile summary shape at two sizes and divides the
times: a linear parser gives about 10x, a quadratic one about 100x, a cubic
one about 1000x. The shapes are the ones that used to backtrack or copy:

* a heading padded with spaces (``"## a" + " " * N + "b"``);
* a heading full of opening brackets (``"## a " + "(" * N``);
* an item with N continuation lines, which used to be re-copied line by line;
* a list marker followed by N spaces.

For contrast, the heading pattern the parser used before,
``^(#{1,6})\\s+(.*?)\\s*#*\\s*$``, is timed on the padded heading at small
sizes (it needs seconds for a 1,200-space line). No test asserts on these
numbers.
"""

from __future__ import annotations

import argparse
import gc
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from course_lib.beyond.importers._pi_summary import map_pi_summary

OLD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
SIZE = 50_000  # N for the current parser; every shape is also parsed at 10N
OLD_SIZE = 60  # N for the old pattern (10N = 600 spaces already takes a while)

SHAPES: dict[str, Callable[[int], str]] = {
    "heading padded with spaces": lambda n: "## a" + " " * n + "b",
    "heading full of '('": lambda n: "## a " + "(" * n,
    "item with n continuation lines": lambda n: "## Goal\n- x\n" + "  y\n" * n,
    "list marker then n spaces": lambda n: "## Done\n- " + " " * n + "x",
}


@dataclass(frozen=True)
class Figure:
    """One line of the report: the time ratio between size N and size 10N."""

    name: str
    ratio: float
    basis: str


def best_seconds(work: Callable[[], Any], repeats: int) -> float:
    """The fastest of ``repeats`` runs of ``work`` (the least disturbed one), GC paused."""
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        best = float("inf")
        for _ in range(max(1, repeats)):
            start = time.perf_counter()
            work()
            best = min(best, time.perf_counter() - start)
        return best
    finally:
        if collecting:
            gc.enable()


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.2f} ms"


def _ratio(name: str, parse: Callable[[str], Any], make: Callable[[int], str], n: int,
           repeats: int) -> Figure:  # fmt: skip
    """Time ``parse`` on the shape at ``n`` and at ``10 * n``."""
    small, large = make(n), make(10 * n)
    small_s = best_seconds(lambda: parse(small), repeats)
    large_s = best_seconds(lambda: parse(large), repeats)
    return Figure(
        name,
        large_s / small_s,
        f"N={n:,}: {_ms(small_s)}; 10N={10 * n:,}: {_ms(large_s)}",
    )


def measure(repeats: int = 3, size: int = SIZE, old_size: int = OLD_SIZE) -> list[Figure]:
    """Every figure of this run: the current parser per shape, then the old heading pattern."""
    figures = [_ratio(name, map_pi_summary, make, size, repeats) for name, make in SHAPES.items()]
    if old_size > 0:
        figures.append(
            _ratio(
                "old heading pattern, padded heading",
                OLD_HEADING.match,
                SHAPES["heading padded with spaces"],
                old_size,
                repeats,
            )
        )
    return figures


def render(figures: Sequence[Figure]) -> str:
    """A small fixed-width table."""
    width = max(len(f.name) for f in figures)
    lines = [f"{'shape':<{width}}  {'10N / N':>8}  measured in this run", "-" * (width + 40)]
    lines += [f"{f.name:<{width}}  {f.ratio:>7.1f}x  {f.basis}" for f in figures]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_summary_parser")
    parser.add_argument("--repeats", type=int, default=3, help="best of N repeats (default 3)")
    parser.add_argument("--size", type=int, default=SIZE, help=f"N (default {SIZE:,})")
    args = parser.parse_args(argv)
    print("pi summary parser: time at 10N / time at N (10x is linear, 1000x cubic)")
    print(render(measure(repeats=args.repeats, size=args.size)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
