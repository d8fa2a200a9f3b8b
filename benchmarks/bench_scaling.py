"""How close the rules run to their floors, how they scale to 100,000 entries, and LangChain.

Every figure is a ratio of two measurements taken alternately in this one run
(best of a few rounds, see ``paired_seconds``), printed beside its target:

1. ``build_context`` with ``chars_estimator()`` against its floor, the same
   estimator called once per message of the path and nothing else, at 1k, 10k
   and 100k entries; and t(100k) / t(10k) (linear is 10), both sizes timed
   alternately.
2. ``build_context`` against LangChain's ``trim_messages`` (``strategy="last"``,
   ``start_on="human"``, ``include_system=True``) on the same messages,
   converted once beforehand, counted with the same chars/4 rule and given the
   same ``max_tokens``; whether both keep the same messages; and, over random
   paths, how often each drops the newest user turn or keeps a tool result
   whose call was dropped (``langchain_comparison``). LangChain is optional:
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.bench_build_context import SAMPLE, Figure, paired_seconds, peak_bytes, render
from course_lib import (
    JsonlSessionStore,
    MessageEntry,
    SystemMessage,
    ToolCall,
    assistant_message,
    build_context,
    system_message_text,
    tool_result,
    user_message,
)
from course_lib.estimators import chars_estimator, priced_texts
from course_lib.importers import import_pi_session
from course_lib.wire import dumps_line

SIZES = (1_000, 10_000, 100_000)
QUICK_SIZES = (1_000, 10_000)
LANGCHAIN_SIZES = (10_000, 100_000)
BIG_SIZE = 100_000
BIG_REPEATS = 3  # a 100k-entry call lasts long enough that a few rounds suffice
PI_COPIES, QUICK_PI_COPIES = 10, 3
COMPARISON_PATHS, COMPARISON_SEED = 200, 20_251_203
SCALING_SEED = 11
LANGCHAIN_MISSING = "langchain-core not installed (pip install -e '.[bench]')"

_WORDS = [
    "session",
    "recovery",
    "branch",
    "active",
    "path",
    "entry",
    "parent",
    "compaction",
    "summary",
    "budget",
    "window",
    "tokens",
    "group",
    "interaction",
    "tool",
    "call",
    "result",
    "read",
    "test",
    "context",
    "store",
    "jsonl",
    "line",
    "newline",
    "commit",
    "tail",
    "repair",
    "parser",
    "schema",
    "field",
    "message",
    "system",
    "assistant",
    "user",
    "estimate",
    "trim",
    "keep",
    "drop",
    "newest",
    "oldest",
    "allowance",
    "reserved",
]


# --- generated paths --------------------------------------------------------


def _words(rng: random.Random, low: int, high: int) -> str:
    """Between ``low`` and ``high`` words of plausible text (deterministic for a seeded ``rng``)."""
    return " ".join(rng.choices(_WORDS, k=rng.randint(low, high)))


class _PathBuilder:
    """Message entries whose parent ids chain them in order, ids ``e1``, ``e2``, ..."""

    def __init__(self, system_text: str) -> None:
        system = SystemMessage(content=system_text, timestamp=0)
        self.entries: list[MessageEntry] = [
            MessageEntry(id="e0", parent_id=None, timestamp=0, message=system)
        ]

    def add(self, message: Any) -> None:
        index = len(self.entries)
        self.entries.append(
            MessageEntry(
                id=f"e{index}", parent_id=f"e{index - 1}", timestamp=index, message=message
            )
        )

    def fixture_shaped(self, rng: random.Random, turn: int, result_words: int = 400) -> None:
        """Seven entries shaped like the fixture; the two results arrive in either order."""
        self.add(user_message(_words(rng, 3, 40), timestamp=turn))
        self.add(assistant_message(_words(rng, 5, 120), timestamp=turn))
        self.add(user_message(_words(rng, 3, 20), timestamp=turn))
        read = ToolCall(id=f"read-{turn}", name="read", arguments={"path": f"src/m{turn}.ts"})
        test = ToolCall(id=f"test-{turn}", name="test", arguments={"command": "npm test"})
        self.add(assistant_message([read, test], stop_reason="toolUse", timestamp=turn))
        results = [read, test] if rng.random() < 0.5 else [test, read]
        for call in results:
            self.add(tool_result(call, _words(rng, 5, result_words), timestamp=turn))
        self.add(assistant_message(_words(rng, 3, 60), timestamp=turn))

    def chat(self, rng: random.Random, turn: int) -> None:
        self.add(user_message(_words(rng, 1, 60), timestamp=turn))
        self.add(assistant_message(_words(rng, 1, 200), timestamp=turn))

    def tool_rounds(self, rng: random.Random, turn: int, result_words: int) -> None:
        """A user turn, one or two rounds of 1-4 calls answered out of order, a closing answer."""
        self.add(user_message(_words(rng, 1, 40), timestamp=turn))
        for round_ in range(rng.randint(1, 2)):
            calls = [
                ToolCall(id=f"c{turn}-{round_}-{k}", name="bash", arguments={"n": k})
                for k in range(rng.randint(1, 4))
            ]
            self.add(assistant_message(calls, stop_reason="toolUse", timestamp=turn))
            rng.shuffle(calls)
            for index, call in enumerate(calls):
                if index and rng.random() < 0.2:  # a progress note between two results
                    self.add(assistant_message(_words(rng, 1, 10), timestamp=turn))
                self.add(tool_result(call, _words(rng, 1, result_words), timestamp=turn))
        self.add(assistant_message(_words(rng, 1, 80), timestamp=turn))


def scaling_path(size: int, seed: int = SCALING_SEED) -> list[MessageEntry]:
    """A fixture-shaped path of about ``size`` entries (whole interactions only)."""
    rng = random.Random(seed)
    builder = _PathBuilder(_words(rng, 40, 80))
    turn = 0
    while len(builder.entries) + 7 <= size:
        builder.fixture_shaped(rng, turn)
        turn += 1
    return builder.entries


def random_path(rng: random.Random) -> list[MessageEntry]:
    """A varied path: chats, fixture-shaped turns and tool rounds; sometimes a huge newest turn."""
    builder = _PathBuilder(_words(rng, 5, 60))
    interactions = rng.randint(1, 25)
    large_newest = rng.random() < 0.3
    for turn in range(interactions):
        result_words = 3000 if large_newest and turn == interactions - 1 else 300
        kind = rng.random()
        if kind < 0.3:
            builder.chat(rng, turn)
        elif kind < 0.6:
            builder.fixture_shaped(rng, turn, result_words)
        else:
            builder.tool_rounds(rng, turn, result_words)
    return builder.entries


def _whole_cost(path: Sequence[MessageEntry], estimate: Callable[[Any], int]) -> int:
    return sum(estimate(entry.message) for entry in path)


# --- LangChain --------------------------------------------------------------


@dataclass(frozen=True)
class _LangChain:
    """The few LangChain names this benchmark uses, imported only when it is installed."""

    trim_messages: Callable[..., list[Any]]
    system: type
    human: type
    ai: type
    tool: type


def _langchain() -> _LangChain | None:
    try:
        from langchain_core.messages import (
            AIMessage,
            HumanMessage,
            SystemMessage,
            ToolMessage,
            trim_messages,
        )
    except ImportError:
        return None
    return _LangChain(trim_messages, SystemMessage, HumanMessage, AIMessage, ToolMessage)


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _langchain_texts(message: Any) -> Iterator[str]:
    """What the model reads of a converted message: its text, each call's name and JSON arguments."""
    yield message.content
    for call in getattr(message, "tool_calls", ()):
        yield call["name"]
        yield json.dumps(call["args"], separators=(",", ":"), ensure_ascii=False)


def langchain_tokens(message: Any) -> int:
    """chars/4 of a LangChain message, rounded up per message: ``chars_estimator``'s rule."""
    return math.ceil(sum(_utf16_length(text) for text in _langchain_texts(message)) / 4)


def langchain_counter(messages: Sequence[Any]) -> int:
    """The ``token_counter`` given to ``trim_messages``: the sum over the messages."""
    return sum(map(langchain_tokens, messages))


def to_langchain(lc: _LangChain, path: Sequence[MessageEntry]) -> list[Any]:
    """The path's messages as LangChain messages (``id`` = entry id), counted as the course counts."""
    estimate = chars_estimator()
    converted = []
    for entry in path:
        message = entry.message
        role = message.role
        if role == "system":
            item = lc.system(content=system_message_text(message), id=entry.id)
        elif role == "user":
            item = lc.human(content="".join(priced_texts(message)), id=entry.id)
        elif role == "toolResult":
            item = lc.tool(
                content="".join(priced_texts(message)),
                tool_call_id=message.tool_call_id,
                id=entry.id,
            )
        else:
            item = lc.ai(
                content="".join(b.text for b in message.content if b.type == "text"),
                tool_calls=[
                    {"name": c.name, "args": c.arguments, "id": c.id, "type": "tool_call"}
                    for c in message.tool_calls
                ],
                id=entry.id,
            )
        if langchain_tokens(item) != estimate(message):
            raise AssertionError(f"entry {entry.id}: the two counters disagree")
        converted.append(item)
    return converted


def _trim(lc: _LangChain, messages: list[Any], max_tokens: int, **options: Any) -> list[Any]:
    return lc.trim_messages(
        messages,
        max_tokens=max_tokens,
        token_counter=langchain_counter,
        strategy="last",
        include_system=True,
        **options,
    )


def _newest_user_id(path: Sequence[MessageEntry]) -> str:
    return next(entry.id for entry in reversed(path) if entry.message.role == "user")


def _orphaned_results(messages: Sequence[Any]) -> int:
    """Tool results kept whose call is not in a kept assistant message (course or LangChain)."""
    calls: set[str] = set()
    orphans = 0
    for message in messages:
        for call in getattr(message, "tool_calls", ()):
            calls.add(call["id"] if isinstance(call, dict) else call.id)
        call_id = getattr(message, "tool_call_id", None)
        if call_id is not None and call_id not in calls:
            orphans += 1
    return orphans


def langchain_comparison(
    paths: int = COMPARISON_PATHS, seed: int = COMPARISON_SEED
) -> list[dict[str, Any]]:
    """Over ``paths`` random paths, how often each trimmer breaks the interaction rules.

    Each path gets a random budget (10% to 90% of its whole cost, chars/4).
    Rows: the trimmer, the number of paths whose newest user turn it drops,
    and the number of paths where it keeps a tool result whose call it dropped.
    LangChain is run with ``start_on="human"`` and without it. Raises
    ``ImportError`` when ``langchain-core`` is not installed.
    """
    lc = _langchain()
    if lc is None:
        raise ImportError(LANGCHAIN_MISSING)
    rng = random.Random(seed)
    estimate = chars_estimator()
    names = (
        'LangChain trim_messages, start_on="human"',
        "LangChain trim_messages, no start_on",
        "course_lib build_context",
    )
    dropped = dict.fromkeys(names, 0)
    orphaned = dict.fromkeys(names, 0)
    for _ in range(paths):
        path = random_path(rng)
        budget = max(1, int(_whole_cost(path, estimate) * rng.uniform(0.1, 0.9)))
        newest = _newest_user_id(path)
        messages = to_langchain(lc, path)
        result = build_context(path, max_tokens=budget, estimate_tokens=estimate)
        kept = {
            names[0]: [m.id for m in _trim(lc, messages, budget, start_on="human")],
            names[1]: [m.id for m in _trim(lc, messages, budget)],
            names[2]: result.kept_entry_ids,
        }
        by_id = dict(zip((entry.id for entry in path), messages, strict=True))
        for name, ids in kept.items():
            dropped[name] += newest not in ids
            if name == names[2]:
                orphaned[name] += _orphaned_results(result.messages) > 0
            else:
                orphaned[name] += _orphaned_results([by_id[i] for i in ids]) > 0
    return [
        {
            "tool": name,
            "drops newest user turn": dropped[name],
            "orphaned tool results": orphaned[name],
        }
        for name in names
    ]


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
    if 10_000 in paths and BIG_SIZE in paths:
        small_s, big_s = paired_seconds(paths[10_000].build, paths[BIG_SIZE].build, BIG_REPEATS)
        figure = Figure(
            "build_context t(100k) / t(10k)",
            big_s / small_s,
            f"{_ms(big_s)} vs {_ms(small_s)} (linear is 10)",
        )
        targets.append(Target(figure, 11.0))
    return targets


def _langchain_targets(paths: dict[int, _Sized], repeats: int) -> tuple[list[Target], list[str]]:
    """build_context against trim_messages; the notes say whether both kept the same messages."""
    lc = _langchain()
    sizes = [size for size in LANGCHAIN_SIZES if size in paths]
    if lc is None:
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
        messages = to_langchain(lc, sized.path)

        def trim(messages: list[Any] = messages, budget: int = sized.budget) -> list[Any]:
            return _trim(lc, messages, budget, start_on="human")

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
        rows = langchain_comparison(paths, seed)
    except ImportError:
        return LANGCHAIN_MISSING + "\n"
    width = max(len(row["tool"]) for row in rows)
    lines = [
        f"over {paths} random paths (seed {seed}): paths where the trimmer ...",
        f"{'tool':<{width}}  {'drops newest user turn':>22}  {'orphaned tool results':>21}",
        "-" * (width + 47),
    ]
    lines += [
        f"{row['tool']:<{width}}  {row['drops newest user turn']:>22}  "
        f"{row['orphaned tool results']:>21}"
        for row in rows
    ]
    return "\n".join(lines) + "\n"


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
