"""How ``build_context`` scales from the 10-entry fixture to a real ~1,000-entry pi session.

Every figure is a ratio of two measurements taken in this one run:

* per-entry cost of ``build_context`` on the imported real session, relative
  to its per-entry cost on the chapter's fixture (1.0 = linear scaling);
* ``budget_ledger`` relative to ``build_context`` on the same path (it reads
  the same plan, so it should cost about the same);
* the BPE estimator relative to pi's chars/4 heuristic inside ``build_context``;
* ``import_pi_session`` relative to plain ``json.loads`` of every line of the
  same file (the price of validation, mapping and repair);
* peak memory (tracemalloc) of importing, and of one ``build_context``,
  relative to the file's size in bytes.

Times are the best of a few repeats (the least disturbed run), each repeat
averaging enough calls to last a few milliseconds; the two sides of a ratio
are timed alternately so that both see the same machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from course_lib import budget_ledger, build_context, chapter_fixture
from course_lib.beyond.estimators import EstimatorError, bpe_estimator, chars_estimator
from course_lib.beyond.importers import import_pi_session

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "pi-sessions" / "large-session.v1.jsonl"
PI_WINDOW, PI_RESERVED = 200_000, 16_384
MIN_REPEAT_SECONDS = 0.005


@dataclass(frozen=True)
class Figure:
    """One line of the report: a ratio and the two measurements it compares."""

    name: str
    ratio: float
    basis: str


def _calls_per_repeat(work: Callable[[], Any]) -> int:
    """Warm ``work`` up once and size a repeat so it lasts at least a few milliseconds."""
    start = time.perf_counter()
    work()
    return max(1, int(MIN_REPEAT_SECONDS / max(time.perf_counter() - start, 1e-7)))


def paired_seconds(
    first: Callable[[], Any], second: Callable[[], Any], repeats: int
) -> tuple[float, float]:
    """Best-of-``repeats`` seconds per call of two pieces of work, timed alternately.

    Why alternate: on a shared machine the speed drifts; timing A and B in
    turn exposes both to the same drift, so their ratio stays meaningful. The
    garbage collector is paused while timing (as ``timeit`` does).
    """
    works = (first, second)
    calls = [_calls_per_repeat(work) for work in works]
    best = [float("inf"), float("inf")]
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(max(1, repeats)):
            for index, work in enumerate(works):
                start = time.perf_counter()
                for _ in range(calls[index]):
                    work()
                best[index] = min(best[index], (time.perf_counter() - start) / calls[index])
    finally:
        if collecting:
            gc.enable()
    return best[0], best[1]


def peak_bytes(work: Callable[[], Any]) -> int:
    """Peak memory tracemalloc sees while ``work`` runs (its result kept alive until the end)."""
    tracemalloc.start()
    try:
        result = work()
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.2f} ms"


def measure(repeats: int = 7, sample: Path = SAMPLE) -> list[Figure]:
    """Take every measurement in one run and return the figures."""
    chars = chars_estimator()
    fixture = chapter_fixture()
    real = import_pi_session(sample).active_path()

    def build(path: list[Any], estimate: Any = chars) -> Any:
        return build_context(
            path, max_tokens=PI_WINDOW, reserved_output=PI_RESERVED, estimate_tokens=estimate
        )

    fixture_s, real_s = paired_seconds(lambda: build(fixture), lambda: build(real), repeats)
    ledger_s, build_s = paired_seconds(
        lambda: budget_ledger(
            real, max_tokens=PI_WINDOW, reserved_output=PI_RESERVED, estimate_tokens=chars
        ),
        lambda: build(real),
        repeats,
    )
    figures = [
        Figure(
            "build_context per entry: real / fixture",
            (real_s / len(real)) / (fixture_s / len(fixture)),
            f"{len(real):,} entries {_ms(real_s)}; {len(fixture)} entries {_ms(fixture_s)}",
        ),
        Figure(
            "budget_ledger / build_context (real)",
            ledger_s / build_s,
            f"{_ms(ledger_s)} vs {_ms(build_s)}",
        ),
    ]
    figures.extend(_bpe_figure(real, build, repeats))

    data = sample.read_bytes()
    lines = data.decode("utf-8").splitlines()
    json_s, import_s = paired_seconds(
        lambda: [json.loads(line) for line in lines if line],
        lambda: import_pi_session(sample),
        repeats,
    )
    figures.append(
        Figure(
            "import_pi_session / json.loads of each line",
            import_s / json_s,
            f"{_ms(import_s)} vs {_ms(json_s)} for {len(data):,} bytes",
        )
    )
    import_peak = peak_bytes(lambda: import_pi_session(sample))
    build_peak = peak_bytes(lambda: build(real))
    figures.append(
        Figure(
            "peak memory of import / file size",
            import_peak / len(data),
            f"{import_peak:,} bytes peak for a {len(data):,}-byte file",
        )
    )
    figures.append(
        Figure(
            "peak memory of build_context / file size",
            build_peak / len(data),
            f"{build_peak:,} bytes peak",
        )
    )
    return figures


def _bpe_figure(real: list[Any], build: Callable[..., Any], repeats: int) -> list[Figure]:
    """BPE pricing against chars pricing, when the tokenizer is installed."""
    try:
        bpe = bpe_estimator()
    except EstimatorError as error:
        return [Figure("bpe / chars estimator in build_context", float("nan"), str(error))]
    bpe_s, chars_s = paired_seconds(lambda: build(real, bpe), lambda: build(real), repeats)
    return [
        Figure(
            "bpe / chars estimator in build_context",
            bpe_s / chars_s,
            f"{_ms(bpe_s)} vs {_ms(chars_s)}",
        )
    ]


def render(figures: Sequence[Figure]) -> str:
    """A small fixed-width table."""
    width = max(len(f.name) for f in figures)
    lines = [f"{'figure':<{width}}  {'ratio':>8}  measured in this run", "-" * (width + 40)]
    lines += [f"{f.name:<{width}}  {f.ratio:>7.2f}x  {f.basis}" for f in figures]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_build_context")
    parser.add_argument("--repeats", type=int, default=7, help="best of N repeats (default 7)")
    args = parser.parse_args(argv)
    print(f"build_context on a real pi session vs the chapter fixture ({SAMPLE.name})")
    print(render(measure(repeats=args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
