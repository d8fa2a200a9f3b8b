"""Lab 11.5's story as data: the fixture, compact-1, u4 and a4, then compact-2.

Each compaction is made by the lab's own ``create_compaction_entry``, so the
story can never disagree with the rules it illustrates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..budget import build_context
from ..compaction import create_compaction_entry
from ..entries import CompactionSummary, SessionEntry
from ..fixture import chapter_fixture, chapter_fixture_after_compaction, fixture_summary
from ..pricing import Estimator, Number
from ..wire import MAX_SAFE_INTEGER

__all__ = [
    "CompactionStep",
    "compaction_steps",
    "second_summary",
    "untrimmed_message_tokens",
]

# --- Lab 11.5: the steps, the summary and the replayed system message -----------------


def untrimmed_message_tokens(path: Sequence[SessionEntry], estimate_tokens: Estimator) -> Number:
    """What the path's messages cost with nothing trimmed (summary included, system not).

    This is the figure a caller records as ``tokens_before`` when it compacts:
    ``build_context`` under a budget no path reaches keeps every group.
    """
    return build_context(
        path, max_tokens=MAX_SAFE_INTEGER, estimate_tokens=estimate_tokens
    ).tokens.messages


def second_summary() -> CompactionSummary:
    """The summary ``compact-2`` records when it keeps ``u3`` onwards (it also covers ``u2, a2``)."""
    return CompactionSummary(
        goal="Check the session recovery logic",
        constraints=["Restore only the selected branch of the session tree"],
        completed=[
            "Confirmed that the active path restores only the selected branch",
            "Confirmed the JSONL write boundary",
        ],
        decisions=[],
        changed_files=[],
        unresolved=[],
        next=["Continue with the context projection"],
    )


@dataclass(frozen=True)
class CompactionStep:
    """One moment of Lab 11.5's story: a label and the active path at that moment."""

    label: str
    path: list[SessionEntry]


def compaction_steps(estimate_tokens: Estimator) -> list[CompactionStep]:
    """no compaction -> compact-1 -> u4, a4 -> compact-2, each compaction made by the lab's function.

    ``compact-1`` keeps ``u2`` (as in the chapter), ``compact-2`` keeps ``u3``;
    each records ``untrimmed_message_tokens`` of the path it is appended to.
    """
    base = chapter_fixture()
    compact_1 = create_compaction_entry(
        base,
        id="compact-1",
        timestamp=100,
        summary=fixture_summary(),
        first_kept_entry_id="u2",
        tokens_before=untrimmed_message_tokens(base, estimate_tokens),
    )
    continued = [*base, compact_1, *chapter_fixture_after_compaction()[-2:]]
    compact_2 = create_compaction_entry(
        continued,
        id="compact-2",
        timestamp=200,
        summary=second_summary(),
        first_kept_entry_id="u3",
        tokens_before=untrimmed_message_tokens(continued, estimate_tokens),
    )
    return [
        CompactionStep("no compaction", base),
        CompactionStep("compact-1", [*base, compact_1]),
        CompactionStep("u4, a4", continued),
        CompactionStep("compact-2", [*continued, compact_2]),
    ]
