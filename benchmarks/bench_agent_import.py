"""The Claude Code and Codex importers against ``json.loads``, their scaling and their memory.

Every figure is a ratio of two measurements taken alternately in this one run
(best of a few rounds, see ``paired_seconds``), printed beside its target:

1. ``import_claude_code_session`` and ``import_codex_session`` against
   ``[json.loads(line) for line in f]`` over the same file of about 10 MB
   (``--quick``: 2.5 MB), with the cycle collector paused as ``timeit`` pauses
   it, and again with it on, as a user's program runs both;
2. each import's t(10 MB) / t(2.5 MB), both sizes timed alternately (linear is 4);
3. each import's peak memory (tracemalloc) against the file's size, beside
   ``import_pi_session``'s on a pi file of the same size, for comparison.

The files are made from the samples in ``data/``: their conversation repeated,
each copy with ids of its own (Claude Code's uuids, message ids and tool call
ids; Codex's call ids), so every copy stays a valid session. Claude Code's
copies form one path (each copy's first record hangs under the last one of the
copy before); Codex's header is written once and its line ids come from line
numbers. Each file is imported once before it is timed, so a broken copy is
an error, not a figure.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.bench_build_context import SAMPLE as PI_SAMPLE
from benchmarks.bench_build_context import Figure, paired_seconds, peak_bytes, render
from benchmarks.bench_scaling import Target, render_targets
from course_lib.beyond.importers import (
    import_claude_code_session,
    import_codex_session,
    import_pi_session,
)

DATA = Path(__file__).resolve().parent.parent / "data"
CLAUDE_CODE_SAMPLE = DATA / "claude-code-sessions" / "sample-session.jsonl"
CODEX_SAMPLE = DATA / "codex-sessions" / "sample-rollout.jsonl"
MB = 1_000_000
BIG, SMALL = 10 * MB, 10 * MB // 4
QUICK_BIG, QUICK_SMALL = 10 * MB // 4, 10 * MB // 16
IMPORT_TARGET, LINEAR_TARGET = 3.0, 5.0

Importer = Callable[[Path], Any]

# --- the files --------------------------------------------------------------

_CLAUDE_UUID = re.compile(r"00000000-0000-4000-8000-(\d{12})")
_CLAUDE_IDS = re.compile(r"\b(msg|toolu)_(\w+?)\b")
_CODEX_IDS = re.compile(r"\bcall_(\d+)\b")
_PREVIOUS = "PREVIOUS-COPY-LAST-UUID"


def _copies_for(one_copy: int, size: int) -> int:
    return max(1, -(-size // one_copy))  # rounded up: the file is at least ``size`` bytes


def _claude_uuid(text: str, number: int) -> str:
    """The sample's uuids in ``text`` as copy ``number`` writes them."""
    return _CLAUDE_UUID.sub(lambda match: f"{number:08d}-0000-4000-8000-{match[1]}", text)


def claude_code_file(folder: Path, size: int) -> Path:
    """The Claude Code sample's records repeated to about ``size`` bytes, ids fresh in each copy.

    From the second copy on, the copy's first record (a root in the sample)
    hangs under the last record of the copy before, so the file is one path.
    """
    text = CLAUDE_CODE_SAMPLE.read_text("utf-8")
    lines = text.splitlines()
    root, last_uuid = lines[2], json.loads(lines[-1])["uuid"]  # the first conversation record
    assert '"parentUuid":null' in root and '"type":"user"' in root
    chained = text.replace(root, root.replace('"parentUuid":null', f'"parentUuid":"{_PREVIOUS}"'))

    def copy(number: int) -> str:
        body = _CLAUDE_IDS.sub(lambda match: f"{match[1]}_{match[2]}x{number}", chained)
        previous = _claude_uuid(last_uuid, number - 1) if number else None
        body = _claude_uuid(body, number)
        if previous is None:
            return body.replace(f'"parentUuid":"{_PREVIOUS}"', '"parentUuid":null')
        return body.replace(_PREVIOUS, previous)

    copies = _copies_for(len(text.encode("utf-8")), size)
    file = folder / f"claude-code-{size // 1000}k.jsonl"
    file.write_text("".join(copy(number) for number in range(copies)), encoding="utf-8")
    return file


def codex_file(folder: Path, size: int) -> Path:
    """The Codex sample's header, then its other records repeated to about ``size`` bytes."""
    header, *rest = CODEX_SAMPLE.read_text("utf-8").splitlines(keepends=True)
    body = "".join(rest)

    def copy(number: int) -> str:
        return _CODEX_IDS.sub(lambda match: f"call_{match[1]}x{number}", body)

    copies = _copies_for(len(body.encode("utf-8")), size)
    file = folder / f"codex-{size // 1000}k.jsonl"
    file.write_text(header + "".join(copy(number) for number in range(copies)), encoding="utf-8")
    return file


def pi_file(folder: Path, size: int) -> Path:
    """The pi sample (a v1 file: no ids) with its lines after the header repeated to ``size``."""
    header, *rest = PI_SAMPLE.read_bytes().splitlines(keepends=True)
    body = b"".join(rest)
    file = folder / f"pi-{size // 1000}k.jsonl"
    file.write_bytes(header + body * _copies_for(len(body), size))
    return file


# --- the figures ------------------------------------------------------------


def json_floor(file: Path) -> list[Any]:
    """What any reader of the file pays: ``json.loads`` of every line."""
    with file.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def _mb(file: Path) -> str:
    return f"{file.stat().st_size / MB:.1f} MB"


def collecting(work: Callable[[Path], Any], file: Path) -> Any:
    """``work(file)`` with the cycle collector on, as a user's program runs it.

    ``paired_seconds`` pauses the collector, as ``timeit`` does, which measures
    the work alone; the importers pause it themselves (``base.collector``), and
    ``json.loads`` cannot, so this figure says what each costs where it runs.
    """
    gc.enable()
    try:
        return work(file)
    finally:
        gc.disable()


def import_targets(
    label: str, importer: Importer, small: Path, big: Path, repeats: int
) -> list[Target]:
    """The import against its floor on the big file, its scaling, and its peak memory."""
    entries = len(importer(big).entries)  # a broken file fails here, before any timing
    floor_s, import_s = paired_seconds(lambda: json_floor(big), lambda: importer(big), repeats)
    floor_on, import_on = paired_seconds(
        lambda: collecting(json_floor, big), lambda: collecting(importer, big), repeats
    )
    small_s, big_s = paired_seconds(lambda: importer(small), lambda: importer(big), repeats)
    peak = peak_bytes(lambda: importer(big))
    size = big.stat().st_size
    return [
        Target(
            Figure(
                f"{label} / json.loads, {_mb(big)}",
                import_s / floor_s,
                f"{_ms(import_s)} vs {_ms(floor_s)}; {entries:,} entries",
            ),
            IMPORT_TARGET,
        ),
        Target(
            Figure(
                f"{label} / json.loads, collector on, {_mb(big)}",
                import_on / floor_on,
                f"{_ms(import_on)} vs {_ms(floor_on)}: what a user waits for",
            ),
            IMPORT_TARGET,
        ),
        Target(
            Figure(
                f"{label} t({_mb(big)}) / t({_mb(small)})",
                big_s / small_s,
                f"{_ms(big_s)} vs {_ms(small_s)} (linear is {size / small.stat().st_size:.1f})",
            ),
            LINEAR_TARGET,
        ),
        Target(
            Figure(
                f"peak memory of {label} / file size, {_mb(big)}",
                peak / size,
                f"{peak:,} bytes peak",
            ),
        ),
    ]


def pi_targets(file: Path, repeats: int) -> list[Target]:
    """The pi importer's figures on a file of the same size, for comparison (no targets)."""
    floor_s, import_s = paired_seconds(
        lambda: json_floor(file), lambda: import_pi_session(file), repeats
    )
    peak = peak_bytes(lambda: import_pi_session(file))
    return [
        Target(
            Figure(
                f"import_pi_session / json.loads, {_mb(file)}",
                import_s / floor_s,
                f"{_ms(import_s)} vs {_ms(floor_s)}",
            )
        ),
        Target(
            Figure(
                f"peak memory of import_pi_session / file size, {_mb(file)}",
                peak / file.stat().st_size,
                f"{peak:,} bytes peak",
            )
        ),
    ]


def measure(repeats: int, small_size: int, big_size: int) -> list[Target]:
    """Make the files, take every measurement, print each section as it is done."""
    targets: list[Target] = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        formats: list[tuple[str, Importer, Callable[[Path, int], Path]]] = [
            ("import_claude_code_session", import_claude_code_session, claude_code_file),
            ("import_codex_session", import_codex_session, codex_file),
        ]
        for label, importer, make in formats:
            small, big = make(folder, small_size), make(folder, big_size)
            section = import_targets(label, importer, small, big, repeats)
            print(render([t.figure for t in section]))
            targets += section
        section = pi_targets(pi_file(folder, big_size), repeats)
        print(render([t.figure for t in section]))
        targets += section
    return targets


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the tables (``--quick``: 2.5 MB files against 0.6 MB ones)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_agent_import")
    parser.add_argument("--repeats", type=int, default=5, help="best of N rounds (default 5)")
    parser.add_argument("--quick", action="store_true", help="2.5 MB files, not 10 MB")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print("the Claude Code and Codex importers against json.loads, their scaling, their memory")
    small, big = (QUICK_SMALL, QUICK_BIG) if args.quick else (SMALL, BIG)
    targets = measure(args.repeats, small, big)
    print(render_targets(targets))
    print(f"measured in {time.perf_counter() - start:,.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
