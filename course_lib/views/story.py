"""Lab 11.5's story as data: the fixture, compact-1, u4 and a4, then compact-2.

Each compaction is made by the lab's own ``create_compaction_entry``, so the
story can never disagree with the rules it illustrates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..base.i18n import N_, tr
from ..base.pricing import Estimator, Number
from ..base.wire import MAX_SAFE_INTEGER
from ..chapter.budget import build_context
from ..chapter.compaction import create_compaction_entry
from ..chapter.fixture import (
    FixtureLanguage,
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_summary,
)
from ..chapter.models import CompactionSummary, SessionEntry

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


_SECOND_SUMMARY_WORDS: tuple[str, str] = (
    N_("Confirmed the JSONL write boundary"),
    N_("Continue with the context projection"),
)
"""What ``compact-2`` adds to ``compact-1``'s summary: (completed, next), translated when used."""


def second_summary(lang: FixtureLanguage = "en") -> CompactionSummary:
    """The summary ``compact-2`` records when it keeps ``u3`` onwards (it also covers ``u2, a2``).

    It grows from ``compact-1``'s: the same goal and constraint, one more completed
    item, and a new next step, in the fixture's language.
    """
    first = fixture_summary(lang)
    completed, next_step = (tr(lang, words) for words in _SECOND_SUMMARY_WORDS)
    return CompactionSummary(
        goal=first.goal,
        constraints=list(first.constraints),
        completed=[*first.completed, completed],
        decisions=[],
        changed_files=[],
        unresolved=[],
        next=[next_step],
    )


@dataclass(frozen=True)
class CompactionStep:
    """One moment of Lab 11.5's story: a label and the active path at that moment."""

    label: str
    path: list[SessionEntry]


def compaction_steps(
    estimate_tokens: Estimator, lang: FixtureLanguage = "en"
) -> list[CompactionStep]:
    """no compaction -> compact-1 -> u4, a4 -> compact-2, each compaction made by the lab's function.

    ``compact-1`` keeps ``u2`` (as in the chapter), ``compact-2`` keeps ``u3``;
    each records ``untrimmed_message_tokens`` of the path it is appended to. The
    texts are the fixture's in ``lang``; the ids and the numbers are the same.
    """
    base = chapter_fixture(lang)
    compact_1 = create_compaction_entry(
        base,
        id="compact-1",
        timestamp=100,
        summary=fixture_summary(lang),
        first_kept_entry_id="u2",
        tokens_before=untrimmed_message_tokens(base, estimate_tokens),
    )
    continued = [*base, compact_1, *chapter_fixture_after_compaction(lang)[-2:]]
    compact_2 = create_compaction_entry(
        continued,
        id="compact-2",
        timestamp=200,
        summary=second_summary(lang),
        first_kept_entry_id="u3",
        tokens_before=untrimmed_message_tokens(continued, estimate_tokens),
    )
    return [
        CompactionStep("no compaction", base),
        CompactionStep("compact-1", [*base, compact_1]),
        CompactionStep("u4, a4", continued),
        CompactionStep("compact-2", [*continued, compact_2]),
    ]
