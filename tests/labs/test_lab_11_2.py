"""Lab 11.2 — interactions: user boundaries and call/result ids (3 checks)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType
from typing import Any

import pytest
from lab_checks import N_, expect_equal, expect_error, expect_no_error, shown
from path_oracle import groups_of, random_paths

pytestmark = pytest.mark.lab_11_2

CHAPTER_GROUPS = [["u1", "a1"], ["u2", "a2"], ["u3", "calls", "r-test", "r-read", "a3"]]

GROUP_RULE = N_(
    "a user message closes the open group and opens the next; every other message "
    "(assistant, tool result) stays in the open group; system messages belong to no group"
)
COPY_RULE = N_("group_interactions returns deep copies that share nothing with the path")
BY_ID_RULE = N_(
    "calls and results are paired by id, not by position: a result may come before its "
    "call, so 'unknown call' and 'missing result' are checked when the group closes"
)


def by_id(entries: list) -> dict:
    return {entry.id: entry for entry in entries}


def entry_ids_of(groups: list) -> list[list[str]]:
    return [group.entry_ids for group in groups]


def test_groups_split_at_user_messages_and_are_copies(impl: ModuleType) -> None:
    path = impl.chapter_fixture()
    case = "group_interactions(the chapter fixture)"
    groups = expect_no_error(
        case,
        lambda: impl.group_interactions(path),
        expected=f"the groups {shown(CHAPTER_GROUPS)}",
        hint=GROUP_RULE,
    )

    expect_equal(
        f"{case}: entry_ids of each group", CHAPTER_GROUPS, entry_ids_of(groups), hint=GROUP_RULE
    )
    calls = groups[2].entries[1]
    calls.message.content[0].arguments["path"] = "changed.ts"
    expect_equal(
        "after changing read-1's arguments in a returned group: the path's calls arguments",
        {"path": "context.ts"},
        by_id(path)["calls"].message.content[0].arguments,
        hint=COPY_RULE,
    )
    by_id(path)["u1"].message.content[0].text = "changed on the path"
    expect_equal(
        "after changing u1's text on the path: the returned group's u1 text",
        "Check the session recovery logic.",
        groups[0].entries[0].message.content[0].text,
        hint=COPY_RULE,
    )
    _random_paths_group_as_the_oracle_says(impl)


def test_out_of_order_results_with_a_progress_message_stay_in_one_group(
    impl: ModuleType,
) -> None:
    entries = by_id(impl.chapter_fixture())
    progress = impl.MessageEntry(
        id="progress",
        parent_id="r-test",
        timestamp=8.5,
        message=impl.assistant_message("Tests are done; still reading.", timestamp=8.5),
    )
    # r-test before its call (same group, valid ids) is still one valid group.
    moved = [entries["u3"], entries["r-test"], entries["calls"], entries["r-read"], entries["a3"]]
    expected = [["u3", "r-test", "calls", "r-read", "a3"]]
    case = "group_interactions(u3, r-test moved before calls, calls, r-read, a3)"
    groups = expect_no_error(
        case,
        lambda: impl.group_interactions(moved),
        expected=f"one group {shown(expected[0])}",
        hint=BY_ID_RULE,
    )
    expect_equal(
        f"{case}: entry_ids of each group",
        expected,
        entry_ids_of(groups),
        hint=N_(
            "entries keep their path order; calls and results are paired by id, not by "
            "position: a result may come before its call, so 'unknown call' and 'missing "
            "result' are checked when the group closes"
        ),
    )

    # A system message is skipped, and a progress message may sit between the results.
    path = [entries["sys"], entries["u3"], entries["calls"], entries["r-test"], progress]
    path += [entries["r-read"], entries["a3"]]
    expected = [["u3", "calls", "r-test", "progress", "r-read", "a3"]]
    case = "group_interactions(sys, u3, calls, r-test, progress (assistant), r-read, a3)"
    groups = expect_no_error(
        case,
        lambda: impl.group_interactions(path),
        expected=f"one group {shown(expected[0])}",
        hint=GROUP_RULE,
    )
    expect_equal(
        f"{case}: entry_ids of each group",
        expected,
        entry_ids_of(groups),
        hint=N_(
            "a system message is skipped wherever it appears, and an assistant message "
            "between two results stays in their group"
        ),
    )

    # An assistant may write text before its calls: every toolCall block is a call.
    read, test = (block for block in entries["calls"].message.content)
    says_first = impl.MessageEntry(
        id="calls",
        parent_id="u3",
        timestamp=7,
        message=impl.assistant_message(
            [impl.text("Reading and testing."), read, impl.text("Then testing."), test],
            stop_reason="toolUse",
            timestamp=7,
        ),
    )
    path = [entries["u3"], says_first, entries["r-test"], entries["r-read"], entries["a3"]]
    case = "group_interactions(u3, calls [text, read-1, text, test-1], r-test, r-read, a3)"
    groups = expect_no_error(
        case,
        lambda: impl.group_interactions(path),
        expected="one group [u3, calls, r-test, r-read, a3]",
        hint=N_(
            "a text block declares no call, but the blocks after it still may: look at every "
            "block of an assistant message, skipping (continue) the text ones"
        ),
    )
    expect_equal(
        f"{case}: entry_ids of each group",
        [["u3", "calls", "r-test", "r-read", "a3"]],
        entry_ids_of(groups),
        hint=BY_ID_RULE,
    )


def test_orphan_duplicate_and_missing_results_are_errors_naming_ids(impl: ModuleType) -> None:
    def fixture_with(change: Callable[[dict[str, Any]], None]) -> list:
        wires = [entry.to_wire() for entry in impl.chapter_fixture()]
        change({wire["id"]: wire for wire in wires})
        return [impl.parse_session_entry(wire) for wire in wires]

    def unknown_call(w: dict[str, Any]) -> None:
        w["r-test"]["message"]["toolCallId"] = "unknown-1"

    def duplicate_call(w: dict[str, Any]) -> None:
        w["calls"]["message"]["content"][1]["id"] = "read-1"
        w["r-test"]["message"]["toolCallId"] = "read-1"

    def duplicate_result(w: dict[str, Any]) -> None:
        w["r-test"]["message"]["toolCallId"] = "read-1"

    def missing_result(w: dict[str, Any]) -> None:
        w["r-test"]["message"] = {
            "role": "assistant",
            "content": [{"type": "text", "text": "still waiting for the tests"}],
            "provider": "course",
            "model": "scripted",
            "usage": {"input": 0, "output": 0, "totalTokens": 0},
            "stopReason": "stop",
            "timestamp": 8,
        }

    def assistant_first(w: dict[str, Any]) -> None:
        w["u1"]["message"] = w["a1"]["message"]

    # Each case: what changed in the fixture, the words the error must contain, the rule.
    cases = [
        (
            "r-test's toolCallId changed to unknown-1",
            unknown_call,
            ["r-test", "unknown-1", "unknown call"],
            N_(
                "a result whose toolCallId matches no call of its group is an 'unknown call' "
                "error naming the result entry and the call id"
            ),
        ),
        (
            "calls declaring read-1 twice",
            duplicate_call,
            ["calls", "read-1", "duplicate"],
            N_(
                "each toolCall id is declared once: a 'duplicate' error naming the entry and the id"
            ),
        ),
        (
            "r-test and r-read both answering read-1",
            duplicate_result,
            ["r-read", "read-1", "duplicate"],
            N_(
                "a call has at most one result: a 'duplicate' error naming the second result "
                "entry and the call id"
            ),
        ),
        (
            "r-test replaced by an assistant message, so test-1 has no result",
            missing_result,
            ["test-1", "calls", "missing result"],
            N_(
                "when the group closes every call has its result, else 'missing result' "
                "naming the call id and its entry"
            ),
        ),
        (
            "u1 replaced by an assistant message",
            assistant_first,
            ["u1", "before the first user message"],
            N_(
                "a message other than system before the first user message is an error naming its id"
            ),
        ),
    ]
    for name, change, words, rule in cases:
        expect_error(
            f"group_interactions(the chapter fixture with {name})",
            impl.InteractionError,
            partial(impl.group_interactions, fixture_with(change)),
            words=words,
            hint=rule,
        )

    # The same two pairing errors when the next user message closes the broken group
    # (here u4, then a4), not the end of the path: every group is checked as it closes.
    later = [e for e in impl.chapter_fixture_after_compaction() if e.id in ("u4", "a4")]
    closed_later = [
        (
            cases[0][:3],
            N_(
                "a result whose toolCallId matches no call of its group is an 'unknown call' "
                "error naming the result entry and the call id; a group closes when the next "
                "user message opens one"
            ),
        ),
        (
            cases[3][:3],
            N_(
                "when the group closes every call has its result, else 'missing result' naming "
                "the call id and its entry; a group closes when the next user message opens one"
            ),
        ),
    ]
    for (name, change, words), rule in closed_later:
        expect_error(
            f"group_interactions(the chapter fixture with {name}, then u4 and a4)",
            impl.InteractionError,
            partial(impl.group_interactions, [*fixture_with(change), *later]),
            words=words,
            hint=rule,
        )

    metadata = impl.MetadataEntry(id="meta-1", parent_id="a3", timestamp=11, key="k", value=1)
    expect_error(
        "group_interactions(the chapter fixture, then metadata entry meta-1)",
        impl.InteractionError,
        partial(impl.group_interactions, [*impl.chapter_fixture(), metadata]),
        words=["meta-1"],
        hint=N_(
            "only message entries can be grouped: a metadata or compaction entry is an "
            "error naming its id"
        ),
    )


def _random_paths_group_as_the_oracle_says(impl: ModuleType) -> None:
    """Beyond the fixture: seeded paths with tool calls in any order, text before calls."""
    for number, (path, _budget, _estimate) in enumerate(random_paths(impl, count=60)):
        messages = [entry for entry in path if entry.type == "message"]
        case = f"group_interactions(random path {number} of {len(messages)} message entries)"
        groups = expect_no_error(case, partial(impl.group_interactions, messages))
        expect_equal(
            f"{case}: entry_ids of each group",
            [[entry.id for entry in group] for group in groups_of(messages)],
            entry_ids_of(groups),
            hint=GROUP_RULE,
        )
