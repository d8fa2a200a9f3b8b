"""How close the rules run to their floors, how they scale to 100,000 entries, and LangChain.

Every figure is a ratio of two measurements taken alternately in this one run
(best of a few rounds, see ``paired_seconds``), printed beside its target:

1. ``build_context`` with ``chars_estimator()`` against its floor, the same
   estimator called once per message of the path and nothing else, at 1k, 10k
   and 100k entries; and t(100k) / t(10k) (linear is 10), both sizes timed
   alternately. ``course_lib.build_context`` takes the chapter's steps in one
   walk over the path for a pure estimator (``course_lib.beyond.one_pass``);
   the chapter's own, a pass per step, is shown beside it at 100k entries.
2. ``build_context`` against LangChain's ``trim_messages`` (``strategy="last"``,
   ``start_on="human"``, ``include_system=True``) on the same messages,
   converted once beforehand, counted with the same chars/4 rule and given the
   same ``max_tokens``; whether both keep the same messages; and, over random
   paths, how often each drops the newest user turn or keeps a tool result
   whose call was dropped (``course_lib.views.trimmers.trimmer_comparison``). LangChain is optional:
   without ``langchain-core`` these figures are reported as not measured.
3. ``JsonlSessionStore.open`` of a 100k-entry file against
   ``[json.loads(line) for line in f]`` over the same file.
4. ``import_pi_session`` against the same ``json.loads`` floor, over the
   sample pi file and over a larger one made by repeating its lines, and the
   import's peak memory (tracemalloc) against the file's size.

The scaling paths are generated deterministically (a seeded generator):
a system message, then interactions shaped like the chapter's fixture (user,
answer, user, an assistant turn with two tool calls, their two results in
either order, a closing answer) with text of varied lengths. The budget is a
quarter of the whole path's cost, so both trimming and copying the kept
messages are measured.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.bench_build_context import SAMPLE, Figure, paired_seconds, peak_bytes, render
from course_lib import JsonlSessionStore, MessageEntry, build_context
from course_lib.base.pricing import Estimator, Number
from course_lib.base.wire import dumps_line
from course_lib.beyond.estimators import chars_estimator
from course_lib.beyond.importers import import_pi_session
from course_lib.chapter.budget import build_context as chapter_build_context
from course_lib.views.trimmers import (
    COMPARISON_PATHS,
    COMPARISON_SEED,
    LANGCHAIN_MISSING,
    PathBuilder,
    langchain_available,
    to_langchain,
    trim_with_langchain,
    trimmer_comparison,
    words,
)

SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
LANGCHAIN_SIZES = (10_000, 100_000)
BIG_SIZE = 100_000
BIG_REPEATS = 5  # a 100k-entry call lasts long enough that a few rounds suffice
PI_COPIES, QUICK_PI_COPIES = 10, 3
SCALING_SEED = 11

# --- generated paths --------------------------------------------------------


def scaling_path(size: int, seed: int = SCALING_SEED) -> list[MessageEntry]:
    """A fixture-shaped path of about ``size`` entries (whole interactions only)."""
    rng = random.Random(seed)
    builder = PathBuilder(words(rng, 40, 80))
    turn = 0
    while len(builder.entries) + 7 <= size:
        builder.fixture_shaped(rng, turn)
        turn += 1
    return builder.entries


def _whole_cost(path: Sequence[MessageEntry], estimate: Estimator) -> Number:
    return sum(estimate(entry.message) for entry in path)


# --- targets and the report -------------------------------------------------


@dataclass(frozen=True)
class Target:
    """A figure and the bound its ratio should respect (``None``: shown, no target)."""

    figure: Figure
    limit: float | None = None
    strict: bool = False  # True: the ratio must be below the limit, not just at most

    @property
    def wanted(self) -> str:
        if self.limit is None:
            return "-"
        return f"{'<' if self.strict else '<='} {self.limit:g}"

    @property
    def met(self) -> str:
        if self.limit is None:
            return "-"
        if math.isnan(self.figure.ratio):
            return "not measured"
        ok = self.figure.ratio < self.limit if self.strict else self.figure.ratio <= self.limit
        return "yes" if ok else "no"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def _repeats_for(size: int, repeats: int) -> int:
    return min(repeats, BIG_REPEATS) if size >= BIG_SIZE else repeats


@dataclass
class _Sized:
    """One generated path with its budget (a quarter of its whole cost)."""

    path: list[MessageEntry]
    budget: int

    @classmethod
    def make(cls, size: int) -> _Sized:
        path = scaling_path(size)
        return cls(path, _whole_cost(path, chars_estimator()) // 4)

    def build(self) -> Any:
        return build_context(self.path, max_tokens=self.budget, estimate_tokens=chars_estimator())


def _build_targets(paths: dict[int, _Sized], repeats: int) -> list[Target]:
    estimate = chars_estimator()
    targets = []
    for size, sized in paths.items():

        def floor(path: list[MessageEntry] = sized.path) -> None:
            for entry in path:
                estimate(entry.message)

        def build(sized: _Sized = sized) -> Any:
            return build_context(sized.path, max_tokens=sized.budget, estimate_tokens=estimate)

        floor_s, build_s = paired_seconds(floor, build, _repeats_for(size, repeats))
        kept = len(build().kept_entry_ids)
        figure = Figure(
            f"build_context / floor, {size:,} entries",
            build_s / floor_s,
            f"{_ms(build_s)} vs {_ms(floor_s)}; {kept:,} of {len(sized.path):,} kept",
        )
        targets.append(Target(figure, 2.0 if size == BIG_SIZE else None))
        if size == BIG_SIZE:
            targets.append(_chapter_reading_target(sized, floor, repeats))
    if 10_000 in paths and BIG_SIZE in paths:
        small_s, big_s = paired_seconds(paths[10_000].build, paths[BIG_SIZE].build, BIG_REPEATS)
        figure = Figure(
            "build_context t(100k) / t(10k)",
            big_s / small_s,
            f"{_ms(big_s)} vs {_ms(small_s)} (linear is 10)",
        )
        targets.append(Target(figure, 11.0))
    return targets


def _chapter_reading_target(sized: _Sized, floor: Callable[[], None], repeats: int) -> Target:
    """The chapter's own ``build_context`` (a pass per step) against the same floor; no target.

    ``course_lib.build_context`` takes the same steps in one walk over the path for a pure
    estimator (``course_lib.beyond.one_pass``); this figure shows what that walk saves.
    """
    estimate = chars_estimator()

    def build() -> Any:
        return chapter_build_context(sized.path, max_tokens=sized.budget, estimate_tokens=estimate)

    floor_s, build_s = paired_seconds(floor, build, _repeats_for(BIG_SIZE, repeats))
    figure = Figure(
        f"the chapter's build_context (a pass per step) / floor, {BIG_SIZE:,} entries",
        build_s / floor_s,
        f"{_ms(build_s)} vs {_ms(floor_s)}",
    )
    return Target(figure)


def _langchain_targets(paths: dict[int, _Sized], repeats: int) -> tuple[list[Target], list[str]]:
    """build_context against trim_messages; the notes say whether both kept the same messages."""
    sizes = [size for size in LANGCHAIN_SIZES if size in paths]
    if not langchain_available():
        missing = [
            Target(
                Figure(
                    f"build_context / trim_messages, {s:,} entries", math.nan, LANGCHAIN_MISSING
                ),
                1.0,
                strict=True,
            )
            for s in sizes
        ]
        return missing, [LANGCHAIN_MISSING]
    targets, notes = [], []
    for size in sizes:
        sized = paths[size]
        messages = to_langchain(sized.path)

        def trim(messages: list[Any] = messages, budget: int = sized.budget) -> list[Any]:
            return trim_with_langchain(messages, budget, start_on="human")

        build_s, trim_s = paired_seconds(sized.build, trim, _repeats_for(size, repeats))
        ours = sized.build().kept_entry_ids
        theirs = [m.id for m in trim() if m.type != "system"]
        same = "yes" if ours == theirs else "no"
        notes.append(
            f"{size:,} entries: same messages kept: {same} "
            f"(build_context {len(ours):,}, trim_messages {len(theirs):,})"
        )
        figure = Figure(
            f"build_context / trim_messages, {size:,} entries",
            build_s / trim_s,
            f"{_ms(build_s)} vs {_ms(trim_s)}; same messages kept: {same}",
        )
        targets.append(Target(figure, 1.0, strict=True))
    return targets, notes


def _json_floor(file: Path) -> list[Any]:
    with file.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _open_target(folder: Path, sized: _Sized, repeats: int) -> Target:
    file = folder / "session.jsonl"
    file.write_text("".join(dumps_line(entry.to_wire()) for entry in sized.path), encoding="utf-8")
    size = len(sized.path)
    floor_s, open_s = paired_seconds(
        lambda: _json_floor(file), lambda: JsonlSessionStore.open(file), _repeats_for(size, repeats)
    )
    figure = Figure(
        f"JsonlSessionStore.open / json.loads, {size:,} entries",
        open_s / floor_s,
        f"{_ms(open_s)} vs {_ms(floor_s)} for {file.stat().st_size:,} bytes",
    )
    return Target(figure, 2.5)


def _pi_copy(folder: Path, copies: int) -> Path:
    """The sample with its lines after the header repeated ``copies`` times (v1 has no ids)."""
    header, *rest = SAMPLE.read_bytes().splitlines(keepends=True)
    file = folder / f"sample-x{copies}.v1.jsonl"
    file.write_bytes(header + b"".join(rest) * copies)
    return file


def _import_targets(folder: Path, copies: int, repeats: int) -> list[Target]:
    targets = []
    for file, label in ((SAMPLE, "sample"), (_pi_copy(folder, copies), f"sample x{copies}")):
        size = file.stat().st_size
        floor_s, import_s = paired_seconds(
            lambda file=file: _json_floor(file),
            lambda file=file: import_pi_session(file),
            repeats if file == SAMPLE else min(repeats, BIG_REPEATS),
        )
        targets.append(
            Target(
                Figure(
                    f"import_pi_session / json.loads, {label}",
                    import_s / floor_s,
                    f"{_ms(import_s)} vs {_ms(floor_s)} for {size:,} bytes",
                ),
                2.5,
            )
        )
        json_peak = peak_bytes(lambda file=file: _json_floor(file))
        import_peak = peak_bytes(lambda file=file: import_pi_session(file))
        targets.append(
            Target(
                Figure(
                    f"peak memory of import / file size, {label}",
                    import_peak / size,
                    f"{import_peak:,} bytes peak; json.loads alone {json_peak / size:.1f}x",
                ),
                5.0,
            )
        )
    return targets


def _comparison_table(paths: int, seed: int) -> str:
    try:
        rows = trimmer_comparison(paths, seed)
    except ImportError:
        return LANGCHAIN_MISSING + "\n"
    table = [list(rows[0]), *([str(value) for value in row.values()] for row in rows)]
    widths = [max(len(cells[i]) for cells in table) for i in range(len(table[0]))]
    lines = [
        "  ".join(f"{cell:<{width}}" for cell, width in zip(cells, widths, strict=True)).rstrip()
        for cells in table
    ]
    lines.insert(1, "-" * len(lines[0]))
    return f"over {paths} random paths (seed {seed}):\n" + "\n".join(lines) + "\n"


def render_targets(targets: Sequence[Target]) -> str:
    """The final table: figure, measured ratio, target, met."""
    width = max(len(t.figure.name) for t in targets)
    lines = [f"{'figure':<{width}}  {'ratio':>8}  {'target':>7}  met", "-" * (width + 36)]
    for t in targets:
        ratio = "n/a" if math.isnan(t.figure.ratio) else f"{t.figure.ratio:.2f}x"
        lines.append(f"{t.figure.name:<{width}}  {ratio:>8}  {t.wanted:>7}  {t.met}")
    return "\n".join(lines) + "\n"


def measure(
    repeats: int, sizes: Sequence[int], pi_copies: int, paths: int = COMPARISON_PATHS
) -> list[Target]:
    """Take every measurement and print each section as it is done; return the targets."""
    sized = {size: _Sized.make(size) for size in sizes}
    sections: list[Target] = []

    build = _build_targets(sized, repeats)
    print(render([t.figure for t in build]))
    sections += build

    compared, notes = _langchain_targets(sized, repeats)
    print(render([t.figure for t in compared]))
    print("\n".join(notes) + "\n")
    print(_comparison_table(paths, COMPARISON_SEED))
    sections += compared

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        io = [_open_target(folder, sized[max(sizes)], repeats)]
        io += _import_targets(folder, pi_copies, repeats)
    print(render([t.figure for t in io]))
    sections += io
    return sections


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the tables (``--quick``: up to 10k entries, a smaller pi copy)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_scaling")
    parser.add_argument("--repeats", type=int, default=5, help="best of N rounds (default 5)")
    parser.add_argument("--quick", action="store_true", help="1k and 10k entries only")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print("build_context, the JSONL store and the pi import against their floors and LangChain")
    targets = measure(
        args.repeats,
        QUICK_SIZES if args.quick else SIZES,
        QUICK_PI_COPIES if args.quick else PI_COPIES,
    )
    print(render_targets(targets))
    print(f"measured in {time.perf_counter() - start:,.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
