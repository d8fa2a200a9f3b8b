"""How fast ``course-lab grade`` checks a class, and how it scales with ``--jobs``.

A class of 100 submissions is generated from the starters and solutions: most
correct, some partially done, some broken (a syntax error, an import error,
``sys.exit`` while importing, a crash) and some hanging (an endless loop in a
lab, or while importing), which cost their whole time limit. The same roster
is graded with ``--jobs 1`` and ``--jobs 2``; the figures are submissions per
minute for each, their ratio (2.0 = perfect scaling on two cores), and
whether the two gradebooks are identical (they must be).

The class is shuffled with a fixed seed so that slow and fast submissions
mix as they would in a real roster. No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from course_lib.grading.grader import Grade, Limits, find_submissions, grade_roster
from course_lib.grading.sandbox import choose
from course_lib.track.catalogue import LAB_TOPICS
from course_lib.track.starters import (
    lab_modules,
    replace_region_bodies,
    solution_bodies,
    write_practice_package,
)
from course_lib.views.grade_report import gradebook_json

LABS = list(LAB_TOPICS)

# How many of each kind in a class of 100 (scaled for other sizes).
MIX = {"correct": 55, "partial": 22, "broken": 15, "hanging": 8}


def _prepend(directory: Path, lab: str, lines: list[str]) -> None:
    """Put ``lines`` at the top of each of ``lab``'s regions, before the reference code."""
    for module in lab_modules(lab):
        path = directory / f"{module}.py"
        bodies = [[*lines, *body] for body in solution_bodies(module, lab)]
        text = path.read_text(encoding="utf-8")
        path.write_text(replace_region_bodies(text, lab, bodies, path.name), encoding="utf-8")


def _append(directory: Path, module: str, code: str) -> None:
    with (directory / f"{module}.py").open("a", encoding="utf-8") as handle:
        handle.write("\n" + code + "\n")


def _correct(directory: Path, index: int) -> None:
    write_practice_package(directory, solved=LABS)


def _partial(directory: Path, index: int) -> None:
    write_practice_package(directory, solved=LABS[: 1 + index % 4])


_BROKEN: list[Callable[[Path], None]] = [
    lambda d: _append(d, "groups", "def oops(:"),
    lambda d: _append(d, "groups", "import no_such_module_anywhere"),
    lambda d: _append(d, "groups", "import sys\nsys.exit(3)"),
    lambda d: _prepend(d, "11.3", ["import ctypes", "ctypes.string_at(0)"]),
]


def _broken(directory: Path, index: int) -> None:
    write_practice_package(directory, solved=LABS)
    _BROKEN[index % len(_BROKEN)](directory)


def _hanging(directory: Path, index: int) -> None:
    write_practice_package(directory, solved=LABS)
    if index % 4 == 3:
        _append(directory, "groups", "import time\ntime.sleep(1000)")
    else:
        _prepend(directory, LABS[1 + index % 4], ["while True:", "    pass"])


KINDS: dict[str, Callable[[Path, int], None]] = {
    "correct": _correct,
    "partial": _partial,
    "broken": _broken,
    "hanging": _hanging,
}


def generate_class(roster: Path, size: int = 100, seed: int = 11) -> dict[str, str]:
    """Write ``size`` submissions into ``roster``; returns each student's kind."""
    counts = {kind: round(share * size / 100) for kind, share in MIX.items()}
    counts["correct"] += size - sum(counts.values())
    kinds = [kind for kind, count in counts.items() for _ in range(count)]
    random.Random(seed).shuffle(kinds)
    roster.mkdir(parents=True, exist_ok=True)
    students: dict[str, str] = {}
    seen: dict[str, int] = {}
    for number, kind in enumerate(kinds, start=1):
        student = f"student-{number:03d}"
        KINDS[kind](roster / student, seen.get(kind, 0))
        seen[kind] = seen.get(kind, 0) + 1
        students[student] = kind
    return students


def _timed(roster: Path, jobs: int, limits: Limits, sandbox: str) -> tuple[float, list[Grade]]:
    submissions, _ = find_submissions(roster)
    start = time.perf_counter()
    grades = grade_roster(submissions, LABS, limits=limits, jobs=jobs, sandbox=sandbox)
    return time.perf_counter() - start, grades


def _per_kind(grades: Sequence[Grade], kinds: dict[str, str]) -> str:
    """Median seconds per submission of each kind (with ``--jobs 1``)."""
    parts = []
    for kind in KINDS:
        seconds = [grade.seconds for grade in grades if kinds[grade.student] == kind]
        if seconds:
            parts.append(f"{kind} {statistics.median(seconds):.1f} s x{len(seconds)}")
    return ", ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """Generate the class, grade it with each ``--jobs`` value and print the figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_grade")
    parser.add_argument("--submissions", type=int, default=100, help="class size (default 100)")
    parser.add_argument(
        "--timeout", type=float, default=5.0, help="seconds per submission (default 5)"
    )
    parser.add_argument("--jobs", default="1,2", help="the --jobs values to compare (default 1,2)")
    parser.add_argument(
        "--sandbox", choices=["auto", "bwrap", "none"], default="auto", help="as for grade"
    )
    args = parser.parse_args(argv)
    jobs = [int(value) for value in args.jobs.split(",")]
    limits = Limits(timeout=args.timeout)
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as folder:
        roster = Path(folder) / "roster"
        kinds = generate_class(roster, args.submissions)
        mix = ", ".join(f"{count} {kind}" for kind, count in _counts(kinds).items())
        print(f"course-lab grade on a generated class of {len(kinds)} ({mix}),")
        print(f"timeout {args.timeout:g} s per submission, sandbox {choose(args.sandbox)}")
        results = {n: _timed(roster, n, limits, args.sandbox) for n in jobs}
    width = max(len(str(n)) for n in jobs)
    for n, (seconds, _) in results.items():
        rate = len(kinds) / seconds * 60
        print(f"  --jobs {n:<{width}}  {rate:6.1f} submissions per minute ({seconds:.1f} s)")
    first, *others = jobs
    for n in others:
        print(f"  scaling --jobs {n} / --jobs {first}: {results[first][0] / results[n][0]:.2f}x")
    print(f"  gradebooks identical across --jobs: {_differences(results, kinds) or 'yes'}")
    print(f"  median per submission (--jobs {first}): {_per_kind(results[first][1], kinds)}")
    return 0


def _differences(results: dict[int, tuple[float, list[Grade]]], kinds: dict[str, str]) -> str:
    """``""`` when every run wrote the same gradebook, else the students whose grade differs."""
    runs = [grades for _, grades in results.values()]
    books = [gradebook_json(grades, LABS, Limits()) for grades in runs]
    if all(book == books[0] for book in books):
        return ""
    differ = {
        f"{a.student} ({kinds[a.student]}: {a.status} {a.passed} {a.note!r} "
        f"vs {b.status} {b.passed} {b.note!r})"
        for grades in runs[1:]
        for a, b in zip(runs[0], grades, strict=True)
        if a != b
    }
    return "NO, " + ", ".join(sorted(differ))


def _counts(kinds: dict[str, str]) -> dict[str, int]:
    return {kind: sum(value == kind for value in kinds.values()) for kind in KINDS}


if __name__ == "__main__":
    raise SystemExit(main())
