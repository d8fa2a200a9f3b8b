"""Lab 11.5 — restoring from the newest compaction and compacting again (4 checks)."""

from __future__ import annotations

from functools import partial
from types import ModuleType
from typing import Any

import pytest
from lab_checks import N_, expect, expect_equal, expect_error, expect_no_error, expect_values
from path_oracle import (
    available_for_messages,
    group_costs,
    groups_of,
    matching,
    random_paths,
    walk_choices,
    whole_costs,
)

pytestmark = pytest.mark.lab_11_5

BUDGET = "reserved_output=4, safety_margin=2"
FIXTURE_SUMMARY_TEXT = "\n".join(
    [
        "[Session compaction summary]",
        "Goal: Check the session recovery logic",
        "Constraints:",
        "- Restore only the selected branch of the session tree",
        "Completed:",
        "- Confirmed that the active path restores only the selected branch",
        "Decisions:",
        "- (none)",
        "Changed files:",
        "- (none)",
        "Unresolved:",
        "- (none)",
        "Next:",
        "- Confirm the JSONL write boundary",
    ]
)
"""``render_summary(fixture_summary())``: title, goal, then each list under its label."""

FIRST_KEPT_RULE = N_(
    "the newest compaction's first kept id must be a user message entry before it on the "
    "path, else a CompactionError naming both ids"
)


def build(impl: ModuleType, path: list, max_tokens: int = 31) -> Any:
    return impl.build_context(
        path,
        max_tokens=max_tokens,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=impl.fixture_estimator(),
    )


def with_first_kept(impl: ModuleType, first_kept: str) -> list:
    """The fixture after compact-1, with compact-1's first kept id set to ``first_kept``."""
    wires = [entry.to_wire() for entry in impl.chapter_fixture_after_compaction()]
    for wire in wires:
        if wire["id"] == "compact-1":
            wire["firstKeptEntryId"] = first_kept
    return [impl.parse_session_entry(wire) for wire in wires]


def test_restore_starts_from_first_kept_skipping_metadata_and_other_branches(
    impl: ModuleType,
) -> None:
    entries = impl.chapter_fixture_after_compaction()
    sibling = impl.MessageEntry(
        id="u4-other",
        parent_id="compact-1",
        timestamp=101,
        message=impl.user_message("A branch that is not selected.", timestamp=101),
    )
    note = impl.MetadataEntry(
        id="meta-1", parent_id="u4", timestamp=101.5, key="label", value="resumed"
    )
    a4 = entries[-1]
    a4.parent_id = "meta-1"
    store = impl.InMemorySessionStore(parser=impl.parse_session_entry)
    for entry in [*entries[:-1], sibling, note, a4]:
        expect_no_error(
            f"appending the fixture after compact-1, a sibling branch and meta-1 (at {entry.id})",
            partial(store.append, entry),
        )

    path = impl.path_to(store.entries(), "a4")
    expect_equal(
        "path_to(a4): the last five entry ids",
        ["a3", "compact-1", "u4", "meta-1", "a4"],
        [entry.id for entry in path][-5:],
    )
    case = f"build_context(path to a4 past compact-1 and meta-1, max_tokens=100, {BUDGET})"
    result = expect_no_error(case, lambda: build(impl, path, max_tokens=100), expected="a result")

    roles = [m.role for m in result.messages[:2]]
    expect_equal(
        f"{case}: roles of the first two messages",
        ["system", "user"],
        roles,
        hint=N_("the summary is one synthetic user message, right after the system message"),
    )
    expect_equal(
        f"{case}: text of the summary message",
        FIXTURE_SUMMARY_TEXT,
        impl.text_of(result.messages[1]),
        hint=N_(
            "render_summary: the title line, 'Goal: ...', then each list field under its "
            "label, one '- item' per line, '- (none)' for an empty list"
        ),
    )
    expect_equal(
        f"{case}: timestamp of the summary message",
        100,
        result.messages[1].timestamp,
        hint=N_("the summary message takes the compaction's timestamp"),
    )
    expect_equal(
        f"{case}: kept_entry_ids",
        ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3", "u4", "a4"],
        result.kept_entry_ids,
        hint=N_(
            "group the message entries from the first kept entry (u2) on, also those after "
            "the compaction; skip metadata and compaction entries"
        ),
    )
    expect_equal(
        f"{case}: reason",
        "within_budget",
        result.reason,
        hint=N_("100 - 3 - 4 - 2 - 5 (summary) = 86 holds the groups from u2 on (7 + 15 + 7)"),
    )

    # With the chapter's 31 / 4 / 2 the summary's 5 tokens leave 17 for groups.
    case = f"build_context(the same path, max_tokens=31, {BUDGET})"
    tight = expect_no_error(case, lambda: build(impl, path), expected="a result")
    expect_values(
        case,
        {
            "kept_entry_ids": ["u4", "a4"],
            "reason": "trimmed",
            "tokens.available_for_messages": 22,
            "tokens.messages": 12,
        },
        {
            "kept_entry_ids": tight.kept_entry_ids,
            "reason": tight.reason,
            "tokens.available_for_messages": tight.tokens.available_for_messages,
            "tokens.messages": tight.tokens.messages,
        },
        hint=N_(
            "the summary is paid first: 31 - 3 - 4 - 2 = 22, - 5 (summary) leaves 17 for "
            "whole groups newest first: [u4, a4] 7 fits, + [u3 ... a3] 15 = 22 does not; "
            "tokens.messages = 5 + 7"
        ),
    )

    # The summary alone is over what is left: the groups get 0, the newest is still kept.
    case = f"build_context(fixture after compact-1, u4, a4, max_tokens=12, {BUDGET})"
    squeezed = expect_no_error(case, lambda: build(impl, entries[:13], max_tokens=12))
    expect_values(
        case,
        {
            "kept_entry_ids": ["u4", "a4"],
            "reason": "single_group_overflow",
            "tokens.available_for_messages": 3,
            "tokens.messages": 12,
        },
        {
            "kept_entry_ids": squeezed.kept_entry_ids,
            "reason": squeezed.reason,
            "tokens.available_for_messages": squeezed.tokens.available_for_messages,
            "tokens.messages": squeezed.tokens.messages,
        },
        hint=N_(
            "12 - 3 - 4 - 2 = 3 is less than the summary's 5: the groups get max(0, 3 - 5) = 0, "
            "and the newest group [u4, a4] (7) is still kept whole: 5 + 7 = 12"
        ),
    )

    for first_kept, what in [
        ("a2", "an assistant message before compact-1"),
        ("sys", "the system message"),
        ("u4", "a user message after compact-1"),
        ("nope", "an id not on the path"),
    ]:
        broken = with_first_kept(impl, first_kept)
        expect_error(
            f"build_context(compact-1 with first kept {first_kept}, {what})",
            impl.CompactionError,
            partial(build, impl, broken, max_tokens=100),
            words=["compact-1", first_kept],
            hint=FIRST_KEPT_RULE,
        )


def test_only_the_newest_compaction_is_used_and_results_are_deterministic(
    impl: ModuleType,
) -> None:
    path = impl.chapter_fixture_after_compaction()
    empty = impl.CompactionSummary(
        goal="Continue the projection",
        constraints=[],
        completed=[],
        decisions=[],
        changed_files=[],
        unresolved=[],
        next=[],
    )
    compact_2 = expect_no_error(
        "create_compaction_entry(fixture after compact-1, id=compact-2, first_kept_entry_id=u4)",
        lambda: impl.create_compaction_entry(
            path,
            id="compact-2",
            timestamp=200,
            summary=empty,
            first_kept_entry_id="u4",
            tokens_before=31,
        ),
        expected="a compaction entry",
    )
    path = [*path, compact_2]

    case = f"build_context(compact-1, then compact-2 keeping u4, max_tokens=31, {BUDGET})"
    first = expect_no_error(case, lambda: build(impl, path), expected="a result")
    second = build(impl, path)
    summaries = [
        impl.text_of(m)
        for m in first.messages
        if impl.text_of(m).startswith("[Session compaction summary]")
    ]
    expect(
        case,
        len(summaries) == 1 and "Goal: Continue the projection" in summaries[0],
        expected="one summary message, compact-2's ('Goal: Continue the projection')",
        got=f"{len(summaries)} summary message(s)"
        + (f", the first with {summaries[0].splitlines()[1:2]}" if summaries else ""),
        hint=N_("only the newest compaction on the path is used; older summaries are never sent"),
    )
    expect_equal(
        f"{case}: lines '- (none)' in compact-2's summary",
        6,
        summaries[0].count("- (none)"),
        hint=N_("each of the six empty lists renders as one line '- (none)'"),
    )
    expect_equal(f"{case}: kept_entry_ids", ["u4", "a4"], first.kept_entry_ids)
    expect(
        case,
        first == second,
        expected="two builds of the same path that are equal",
        got="two different results",
        hint=N_("with a deterministic estimator, the same path and options give equal results"),
    )
    first.messages[1].content[0].text = "changed"
    expect(
        f"after changing the first build's summary text: a third build of {case}",
        build(impl, path) == second,
        expected="a result equal to the second build",
        got="a different result",
        hint=N_("each result is an independent copy: the summary message is built fresh each time"),
    )


def test_compacting_the_restored_path_again_trims_whole_groups(impl: ModuleType) -> None:
    path = impl.chapter_fixture_after_compaction()
    case = "create_compaction_entry(fixture after compact-1, id=compact-2, first_kept_entry_id=u3)"
    compact_2 = expect_no_error(
        case,
        lambda: impl.create_compaction_entry(
            path,
            id="compact-2",
            timestamp=200,
            summary=impl.fixture_summary(),
            first_kept_entry_id="u3",
            tokens_before=34,
        ),
        expected="a compaction entry",
    )
    expect_equal(
        f"{case}: parent_id",
        "a4",
        compact_2.parent_id,
        hint=N_("the parent is the path's last entry"),
    )
    path = [*path, compact_2]

    for max_tokens, kept, reason in [
        (40, ["u3", "calls", "r-test", "r-read", "a3", "u4", "a4"], "within_budget"),
        (31, ["u4", "a4"], "trimmed"),
        (14, ["u4", "a4"], "single_group_overflow"),
    ]:
        case = f"build_context(path ending at compact-2, max_tokens={max_tokens}, {BUDGET})"
        result = expect_no_error(case, partial(build, impl, path, max_tokens), expected="a result")
        expect_values(
            case,
            {"kept_entry_ids": kept, "reason": reason},
            {"kept_entry_ids": result.kept_entry_ids, "reason": result.reason},
            hint=N_(
                "restore from compact-2's first kept entry (u3), pay its summary first, then "
                "keep whole groups newest first; the newest group is always kept"
            ),
        )

    expect_error(
        "create_compaction_entry(path ending at compact-2, first_kept_entry_id=calls)",
        impl.CompactionError,
        lambda: impl.create_compaction_entry(
            path,
            id="compact-3",
            timestamp=300,
            summary=impl.fixture_summary(),
            first_kept_entry_id="calls",
            tokens_before=1,
        ),
        words=["calls"],
        hint=N_("a first kept entry must start a complete interaction"),
    )
    _random_compactions_restore_as_the_oracle_says(impl)


def test_system_state_is_replayed_across_the_compaction_boundary(impl: ModuleType) -> None:
    path = impl.system_replay_fixture()
    case = f"build_context(system replay fixture, max_tokens=1000, {BUDGET})"
    result = expect_no_error(case, lambda: build(impl, path, max_tokens=1000), expected="a result")
    replay_rule = N_(
        "system state is replayed from the whole path, also from before the compaction: "
        "non-empty contents joined by a blank line, sections overwritten by name"
    )

    head = result.messages[0]
    expect_values(
        f"{case}: messages[0]",
        {
            "role": "system",
            "content": "BASE\n\nPrefer small diffs.",
            "sections": {"rules": "RULE v2"},
            "timestamp": path[0].message.timestamp,
        },
        {
            "role": head.role,
            "content": getattr(head, "content", None),
            "sections": getattr(head, "sections", None),
            "timestamp": head.timestamp,
        },
        hint=N_(
            "system state is replayed from the whole path, also from before the compaction: "
            "non-empty contents joined by a blank line, sections overwritten by name; the "
            "timestamp is the first system message's"
        ),
    )
    expect_equal(
        f"{case}: current_system_prompt(messages)",
        "BASE\n\nPrefer small diffs.\n\nRULE v2",
        impl.current_system_prompt(result.messages),
        hint=replay_rule,
    )
    expect(
        case,
        impl.text_of(result.messages[1]).startswith("[Session compaction summary]"),
        expected="messages[1] the summary message",
        got=f"messages[1] {result.messages[1].role} {impl.text_of(result.messages[1])[:30]!r}",
        hint=N_("the summary comes right after the replayed system message"),
    )
    expect_equal(
        f"{case}: kept_entry_ids",
        ["u2", "a2", "u3", "a3"],
        result.kept_entry_ids,
        hint=N_("system messages in the kept suffix (patch-2) fold into the head"),
    )
    expect_equal(
        f"{case}: number of messages (head, summary, u2, a2, u3, a3)",
        6,
        len(result.messages),
        hint=N_("patch-2 is folded into the head and does not appear in place"),
    )


def _random_compactions_restore_as_the_oracle_says(impl: ModuleType) -> None:
    """Beyond the fixture: a compaction at any group start of a seeded path, then one more
    interaction; the fixture estimator prices any summary at 5."""
    estimate = impl.fixture_estimator()
    for number, (path, budget, _estimate) in enumerate(random_paths(impl, count=60)):
        starts = [group[0].id for group in groups_of(path)]
        if not starts:
            continue
        first = starts[number % len(starts)]
        compaction = impl.parse_session_entry(
            {"id": "compact-r", "parentId": path[-1].id, "timestamp": 100, "type": "compaction",
             "summary": impl.fixture_summary().to_wire(), "firstKeptEntryId": first,
             "tokensBefore": 1}
        )  # fmt: skip
        after = [
            impl.MessageEntry(id="u-next", parent_id="compact-r", timestamp=101,
                              message=impl.user_message("next step", timestamp=101)),
            impl.MessageEntry(id="a-next", parent_id="u-next", timestamp=102,
                              message=impl.assistant_message("done", timestamp=102)),
        ]  # fmt: skip
        full = [*path, compaction, *after]
        case = f"build_context(random path {number} + compact-r keeping {first} + 2, {budget})"
        got = expect_no_error(
            case, partial(impl.build_context, full, **budget, estimate_tokens=estimate)
        )
        suffix = full[[entry.id for entry in full].index(first) :]
        groups = groups_of(suffix)
        available = available_for_messages(path, budget, estimate)
        choices = walk_choices(  # the summary (5) is paid first
            group_costs(groups, estimate), max(0, available - 5), exact=whole_costs(full, estimate)
        )
        answers = [
            ([entry.id for group in groups[choice.first :] for entry in group], 5 + choice.messages)
            for choice in choices
        ]
        kept, messages = matching(answers, lambda answer, got=got: answer[0] == got.kept_entry_ids)
        expect_values(
            case,
            {"kept_entry_ids": kept, "tokens.messages": messages},
            {"kept_entry_ids": got.kept_entry_ids, "tokens.messages": got.tokens.messages},
            hint=N_(
                "restore from the first kept entry on (after the compaction too), pay the "
                "summary (5) first, then whole groups newest first while they fit"
            ),
        )
