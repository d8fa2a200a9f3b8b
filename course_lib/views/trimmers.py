"""Other trimmers on the same paths: what LangChain's ``trim_messages`` keeps, and what it breaks.

Why it is here: the chapter keeps or drops *whole* interactions, so a context
never starts with a tool result whose call is gone and never loses the newest
user turn. A message-by-message trimmer has no such rule. ``trimmer_comparison``
runs LangChain's ``trim_messages`` (``strategy="last"``, ``include_system=True``,
with and without ``start_on="human"``) and ``build_context`` over the same
random paths, with the same budget and the same chars/4 counter, and counts the
paths where each one drops the newest user turn or keeps a result whose call it
dropped.

The paths are generated from a seeded ``random.Random``, so every count is the
same on every run. LangChain is imported only when a comparison is asked for.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..base.messages import (
    SystemMessage,
    ToolCall,
    assistant_message,
    system_message_text,
    tool_result,
    user_message,
)
from ..base.pricing import Estimator, Number
from ..beyond.estimators import chars_estimator, priced_texts
from ..chapter.budget import build_context
from ..chapter.models import MessageEntry

__all__ = [
    "COMPARISON_PATHS",
    "COMPARISON_SEED",
    "LANGCHAIN_MISSING",
    "TRIMMERS",
    "PathBuilder",
    "langchain_available",
    "langchain_counter",
    "langchain_tokens",
    "random_path",
    "to_langchain",
    "trim_with_langchain",
    "trimmer_comparison",
    "trimmer_comparison_frame",
    "words",
]

COMPARISON_PATHS, COMPARISON_SEED = 200, 20_251_203
LANGCHAIN_MISSING = "langchain-core not installed (pip install -e '.[notebook]')"

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


def words(rng: random.Random, low: int, high: int) -> str:
    """Between ``low`` and ``high`` words of plausible text (deterministic for a seeded ``rng``)."""
    return " ".join(rng.choices(_WORDS, k=rng.randint(low, high)))


class PathBuilder:
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
        self.add(user_message(words(rng, 3, 40), timestamp=turn))
        self.add(assistant_message(words(rng, 5, 120), timestamp=turn))
        self.add(user_message(words(rng, 3, 20), timestamp=turn))
        read = ToolCall(id=f"read-{turn}", name="read", arguments={"path": f"src/m{turn}.ts"})
        test = ToolCall(id=f"test-{turn}", name="test", arguments={"command": "npm test"})
        self.add(assistant_message([read, test], stop_reason="toolUse", timestamp=turn))
        results = [read, test] if rng.random() < 0.5 else [test, read]
        for call in results:
            self.add(tool_result(call, words(rng, 5, result_words), timestamp=turn))
        self.add(assistant_message(words(rng, 3, 60), timestamp=turn))

    def chat(self, rng: random.Random, turn: int) -> None:
        self.add(user_message(words(rng, 1, 60), timestamp=turn))
        self.add(assistant_message(words(rng, 1, 200), timestamp=turn))

    def tool_rounds(self, rng: random.Random, turn: int, result_words: int) -> None:
        """A user turn, one or two rounds of 1-4 calls answered out of order, a closing answer."""
        self.add(user_message(words(rng, 1, 40), timestamp=turn))
        for round_ in range(rng.randint(1, 2)):
            calls = [
                ToolCall(id=f"c{turn}-{round_}-{k}", name="bash", arguments={"n": k})
                for k in range(rng.randint(1, 4))
            ]
            self.add(assistant_message(calls, stop_reason="toolUse", timestamp=turn))
            rng.shuffle(calls)
            for index, call in enumerate(calls):
                if index and rng.random() < 0.2:  # a progress note between two results
                    self.add(assistant_message(words(rng, 1, 10), timestamp=turn))
                self.add(tool_result(call, words(rng, 1, result_words), timestamp=turn))
        self.add(assistant_message(words(rng, 1, 80), timestamp=turn))


def random_path(rng: random.Random) -> list[MessageEntry]:
    """A varied path: chats, fixture-shaped turns and tool rounds; sometimes a huge newest turn."""
    builder = PathBuilder(words(rng, 5, 60))
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


def _whole_cost(path: Sequence[MessageEntry], estimate: Estimator) -> Number:
    return sum(estimate(entry.message) for entry in path)


# --- LangChain --------------------------------------------------------------


@dataclass(frozen=True)
class _LangChain:
    """The few LangChain names used here, imported only when a comparison is asked for."""

    trim_messages: Callable[..., list[Any]]
    system: type
    human: type
    ai: type
    tool: type


def _langchain() -> _LangChain:
    """LangChain's message types and ``trim_messages``; ``ImportError`` naming the extra."""
    try:
        from langchain_core.messages import (
            AIMessage,
            HumanMessage,
            SystemMessage,
            ToolMessage,
            trim_messages,
        )
    except ImportError:
        raise ImportError(LANGCHAIN_MISSING) from None
    return _LangChain(trim_messages, SystemMessage, HumanMessage, AIMessage, ToolMessage)


def langchain_available() -> bool:
    """True when ``langchain-core`` can be imported (the ``notebook`` and ``bench`` extras)."""
    try:
        _langchain()
    except ImportError:
        return False
    return True


def _langchain_texts(message: Any) -> Iterator[str]:
    """What the model reads of a converted message: its text, each call's name and JSON arguments."""
    yield message.content
    for call in getattr(message, "tool_calls", ()):
        yield call["name"]
        yield json.dumps(call["args"], separators=(",", ":"), ensure_ascii=False)


_CHARS_PER_4 = chars_estimator()


def langchain_tokens(message: Any) -> int:
    """chars/4 of a LangChain message, rounded up per message: ``chars_estimator``'s rule."""
    return int(_CHARS_PER_4("".join(_langchain_texts(message))))  # chars/4 is always an int


def langchain_counter(messages: Sequence[Any]) -> int:
    """The ``token_counter`` given to ``trim_messages``: the sum over the messages."""
    return sum(map(langchain_tokens, messages))


def to_langchain(path: Sequence[MessageEntry]) -> list[Any]:
    """The path's messages as LangChain messages (``id`` = entry id), counted as the course counts.

    Each converted message must cost what ``chars_estimator`` says its course
    message costs, so both trimmers see the same numbers.
    """
    lc = _langchain()
    converted = []
    for entry in path:
        message = entry.message
        if isinstance(message, SystemMessage):
            item = lc.system(content=system_message_text(message), id=entry.id)
        elif message.role == "user":
            item = lc.human(content="".join(priced_texts(message)), id=entry.id)
        elif message.role == "toolResult":
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
        if langchain_tokens(item) != _CHARS_PER_4(message):
            raise AssertionError(f"entry {entry.id}: the two counters disagree")
        converted.append(item)
    return converted


def trim_with_langchain(messages: list[Any], max_tokens: int, **options: Any) -> list[Any]:
    """LangChain's ``trim_messages``: the newest messages that fit, the system message kept."""
    return _langchain().trim_messages(
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


TRIMMERS = (
    'LangChain trim_messages, start_on="human"',
    "LangChain trim_messages, no start_on",
    "course_lib build_context",
)


def trimmer_comparison(
    paths: int = COMPARISON_PATHS, seed: int = COMPARISON_SEED
) -> list[dict[str, Any]]:
    """Over ``paths`` random paths, how often each trimmer breaks the interaction rules.

    Each path gets a random budget (10% to 90% of its whole cost, chars/4).
    Rows: the trimmer, the number of paths whose newest user turn it drops,
    and the number of paths where it keeps a tool result whose call it dropped.
    LangChain is run with ``start_on="human"`` and without it. Raises
    ``ImportError`` when ``langchain-core`` is not installed.
    """
    _langchain()  # fail before any work when LangChain is missing
    rng = random.Random(seed)
    dropped = dict.fromkeys(TRIMMERS, 0)
    orphaned = dict.fromkeys(TRIMMERS, 0)
    for _ in range(paths):
        path = random_path(rng)
        budget = max(1, int(_whole_cost(path, _CHARS_PER_4) * rng.uniform(0.1, 0.9)))
        newest = _newest_user_id(path)
        messages = to_langchain(path)
        by_id = dict(zip((entry.id for entry in path), messages, strict=True))
        result = build_context(path, max_tokens=budget, estimate_tokens=_CHARS_PER_4)
        kept = {
            TRIMMERS[0]: [m.id for m in trim_with_langchain(messages, budget, start_on="human")],
            TRIMMERS[1]: [m.id for m in trim_with_langchain(messages, budget)],
            TRIMMERS[2]: result.kept_entry_ids,
        }
        for name, ids in kept.items():
            dropped[name] += newest not in ids
            orphaned[name] += _orphaned_results([by_id[i] for i in ids]) > 0
    return [
        {
            "trimmer": name,
            "paths where it drops the newest user turn": dropped[name],
            "paths where it keeps a result without its call": orphaned[name],
        }
        for name in TRIMMERS
    ]


def trimmer_comparison_frame(
    paths: int = COMPARISON_PATHS, seed: int = COMPARISON_SEED
) -> pd.DataFrame:
    """``trimmer_comparison`` as a table, one row per trimmer."""
    return pd.DataFrame(trimmer_comparison(paths, seed)).set_index("trimmer")
