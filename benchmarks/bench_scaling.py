"""How close the rules run to the floor, and how they scale to 100,000 entries.

Every figure is a ratio of two measurements taken alternately in this run
(best of a few rounds), printed beside its target:

* ``build_context`` with ``chars_estimator()`` against the floor: the same
  estimator called once per message of the path and nothing else, at 1k, 10k
  and 100k entries; and t(100k) / t(10k) (linear is 10);
* ``JsonlSessionStore.open`` of a 100k-entry file against
  ``[json.loads(line) for line in file]``;
* ``import_pi_session`` of the sample pi file against ``json.loads`` of its
  lines, and the import's peak memory against the file's size.

The paths are generated deterministically, shaped like the chapter's fixture:
a system message, then interactions of a user message, a text answer, a
user message, an assistant turn with two tool calls, their two results in
the other order, and a closing answer, with text of varied lengths. The
budget keeps about a quarter of the path, so both trimming and copying the
kept messages are measured.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.bench_build_context import SAMPLE, Figure, paired_seconds, peak_bytes
from course_lib import (
    JsonlSessionStore,
    MessageEntry,
    SystemMessage,
    ToolCall,
    assistant_message,
    build_context,
    tool_result,
    user_message,
)
from course_lib.estimators import chars_estimator
from course_lib.importers import import_pi_session
from course_lib.wire import dumps_line

SIZES = (1_000, 10_000, 100_000)


def generated_path(size: int) -> list[MessageEntry]:
    """A fixture-shaped path of about ``size`` entries, whole interactions only (deterministic)."""
    entries = [
        MessageEntry(
            id="sys",
            parent_id=None,
            timestamp=0,
            message=SystemMessage(content="You are a careful coding agent. " * 4, timestamp=0),
        )
    ]

    def add(message: Any) -> None:
        entries.append(
            MessageEntry(
                id=f"e{len(entries)}",
                parent_id=entries[-1].id,
                timestamp=len(entries),
                message=message,
            )
        )

    turn = 0
    while len(entries) + 7 <= size:
        words = 1 + turn % 5
        add(user_message("check the session recovery logic " * words, timestamp=turn))
        add(assistant_message("the active path restores one branch " * words, timestamp=turn))
        add(user_message("read the implementation and run the tests", timestamp=turn))
        read = ToolCall(id=f"read-{turn}", name="read", arguments={"path": f"src/m{turn}.ts"})
        test = ToolCall(id=f"test-{turn}", name="test", arguments={"command": "npm test"})
        add(assistant_message([read, test], stop_reason="toolUse", timestamp=turn))
        add(tool_result(test, "14 tests passed " * (1 + turn % 3), timestamp=turn))
        add(tool_result(read, "context.ts loaded " * (1 + turn % 7), timestamp=turn))
        add(assistant_message("implementation and tests agree", timestamp=turn))
        turn += 1
    return entries


def _build_figures(repeats: int, sizes: Sequence[int]) -> tuple[list[Figure], dict[int, float]]:
    estimate = chars_estimator()
    figures: list[Figure] = []
    seconds: dict[int, float] = {}
    for size in sizes:
        path = generated_path(size)
        whole = build_context(path, max_tokens=2**53 - 1, estimate_tokens=estimate).tokens.total
        budget = whole // 4

        def floor(path: list[MessageEntry] = path) -> None:
            for entry in path:
                estimate(entry.message)

        def build(path: list[MessageEntry] = path, budget: int = budget) -> Any:
            return build_context(path, max_tokens=budget, estimate_tokens=estimate)

        floor_s, build_s = paired_seconds(floor, build, repeats if size < 100_000 else 3)
        seconds[size] = build_s
        kept = len(build().kept_entry_ids)
        figures.append(
            Figure(
                f"build_context / floor at {size:,} entries",
                build_s / floor_s,
                f"target <= 2 at 100k; {build_s * 1000:,.1f} ms vs {floor_s * 1000:,.1f} ms, "
                f"{kept:,} kept",
            )
        )
    return figures, seconds


def _open_figure(repeats: int, size: int) -> Figure:
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "session.jsonl"
        file.write_text(
            "".join(dumps_line(entry.to_wire()) for entry in generated_path(size)), encoding="utf-8"
        )

        def floor() -> list[Any]:
            with file.open(encoding="utf-8") as handle:
                return [json.loads(line) for line in handle]

        floor_s, open_s = paired_seconds(floor, lambda: JsonlSessionStore.open(file), repeats)
    return Figure(
        f"JsonlSessionStore.open / json.loads at {size:,} entries",
        open_s / floor_s,
        f"target <= 2.5; {open_s * 1000:,.0f} ms vs {floor_s * 1000:,.0f} ms",
    )


def _import_figures(repeats: int) -> list[Figure]:
    data = SAMPLE.read_bytes()
    lines = data.decode("utf-8").splitlines()
    floor_s, import_s = paired_seconds(
        lambda: [json.loads(line) for line in lines if line],
        lambda: import_pi_session(SAMPLE),
        repeats,
    )
    json_peak = peak_bytes(lambda: [json.loads(line) for line in lines if line])
    import_peak = peak_bytes(lambda: import_pi_session(SAMPLE))
    return [
        Figure(
            "import_pi_session / json.loads (sample)",
            import_s / floor_s,
            f"target <= 2.5; {import_s * 1000:,.1f} ms vs {floor_s * 1000:,.1f} ms",
        ),
        Figure(
            "peak memory of import / file size",
            import_peak / len(data),
            f"target <= 5; json.loads alone {json_peak / len(data):.1f}x",
        ),
    ]


def measure(repeats: int, sizes: Sequence[int]) -> list[Figure]:
    """Take every measurement of this benchmark in one run."""
    figures, seconds = _build_figures(repeats, sizes)
    if 10_000 in seconds and 100_000 in seconds:
        figures.append(
            Figure(
                "build_context t(100k) / t(10k)",
                seconds[100_000] / seconds[10_000],
                "target <= 11 (linear is 10)",
            )
        )
    figures.append(_open_figure(repeats, max(sizes)))
    figures.extend(_import_figures(repeats))
    return figures


def render(figures: Sequence[Figure]) -> str:
    """A small fixed-width table: figure, ratio, target and what was measured."""
    width = max(len(figure.name) for figure in figures)
    lines = [f"{'figure':<{width}}  {'ratio':>8}  target and measurements", "-" * (width + 60)]
    lines += [f"{f.name:<{width}}  {f.ratio:>7.2f}x  {f.basis}" for f in figures]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the table (``--quick`` stops at 10k entries)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_scaling")
    parser.add_argument("--repeats", type=int, default=5, help="best of N rounds (default 5)")
    parser.add_argument("--quick", action="store_true", help="1k and 10k entries only")
    args = parser.parse_args(argv)
    sizes = SIZES[:2] if args.quick else SIZES
    print("build_context, the JSONL store and the pi import against their floors")
    print(render(measure(args.repeats, sizes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
