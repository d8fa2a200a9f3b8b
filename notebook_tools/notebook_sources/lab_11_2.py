"""02 — Lab 11.2: interactions, split at user messages and checked by call/result ids."""

from __future__ import annotations

from .cells import (
    Cell,
    answer,
    checks_cells,
    code,
    exercise_cells,
    fixture_cells,
    md,
    reveal,
    your_turn_cells,
)

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.2 — Interactions: user boundaries and call/result ids

        **Chapter section:** 「两个 tool result 仍属于 u3 开始的同一组」

        **Goal.** A budget must never keep a tool call and drop its result (or the
        other way round). So before anything is counted, the path's messages are
        split into **interactions**: a user message opens one, everything up to the
        next user message belongs to it. Inside an interaction, tool calls and
        results are paired by id only. An interaction is the smallest unit a budget
        keeps or drops.

        **Builds on.** The active path from Chapter 10 (`path_to`) and the message
        types of Chapter 3 (`toolCall` blocks, `toolResult` messages).

        **Checks.** `tests/test_lab_11_2.py` (3 checks).
        """
    ),
    code(
        """
        from pathlib import Path

        from IPython.display import display

        from course_lib import (
            build_context,
            chapter_fixture,
            fixture_estimator,
            group_interactions,
            parse_session_entry,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import (
            checks_frame,
            cut_points_frame,
            errors_frame,
            fixture_frame,
            groups_frame,
            setup_notebook,
            styled_fixture_frame,
        )

        setup_notebook()
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — three groups

        `group_interactions` skips `sys` (system messages are prompt state, not
        conversation), opens a group at `u1`, `u2` and `u3`, and closes the last
        one at the end of the path. Notice the last two columns: `calls` declares
        `read-1` first, but `test-1` finished first, so its result comes first. The
        pairing is by id, so the order does not matter.
        """
    ),
    code(
        """
        groups = group_interactions(path)
        groups_frame(groups, estimate)
        """
    ),
    md("The groups hold the entries in path order, exactly as the chapter lists them:"),
    code(
        """
        for group in groups:
            print(group.entry_ids)
        """
    ),
    *exercise_cells(
        "11.2-q1",
        """
        ### Exercise 11.2-q1 — group another path

        `system_replay_fixture()` (from `course_lib`) is Lab 11.5's path:
        `sys → u1 → a1 → patch-1 → u2 → a2 → compact-1 → patch-2 → u3 → a3`, where
        `sys`, `patch-1` and `patch-2` are system messages and `compact-1` is a
        compaction entry. Which groups does `group_interactions` return for its
        message entries? Answer with a list of groups, each a list of entry ids in
        path order, e.g. `[["x1", "y1"], ["x2"]]`. Decide first; you may check
        with `group_interactions` afterwards (only message entries may be passed
        to it).
        """,
        "answer_q1 = ...",
    ),
    md(
        """
        ## Step 2 — where a budget may cut

        Every gap between two grouped messages, and whether a budget may cut there.
        Only `a1 | u2` and `a2 | u3` are allowed: a cut anywhere inside group 3
        would leave a tool call without its result, or a result without its call.
        """
    ),
    code("cut_points_frame(path)"),
    md(
        """
        ## Step 3 — results in any order

        **Predict first.** Move `r-test` *before* `calls`, in the same interaction,
        with its ids unchanged. Does `group_interactions` refuse the group, or does
        it still return one valid group? Decide, then open the folded output of the
        next cell (click the bar under it, or run it).
        """
    ),
    answer(
        """
        by_id = {entry.id: entry for entry in path}
        moved = [by_id[entry_id] for entry_id in ["sys", "u3", "r-test", "calls", "r-read", "a3"]]
        groups_frame(group_interactions(moved), estimate)
        """
    ),
    reveal(
        """
        Still one valid group: the user message sets the boundary, and the id
        rules look at ids only. `r-test` answers `test-1` before `calls` declares
        it, but a result is paired with its call when the group closes, once both
        are known. Positions, tool names and the final assistant message play no
        part.
        """
    ),
    md(
        """
        Inside a group, the tool facts are checked by id only, never by position,
        by `toolName` or by which assistant message comes last. Four rules:

        1. each tool call id is declared once in the group (else: *duplicate*,
           naming the call id);
        2. each result's `toolCallId` names a call of the same group (else:
           *unknown call*, naming the result entry and the call id);
        3. a call has at most one result (else: *duplicate*, naming the call id);
        4. when the group closes, every call has its result (else: *missing
           result*, naming the call id and the entry that declared it).

        Rules 1 and 3 are checked as each message arrives; rules 2 and 4 when the
        group closes, once all its messages are known.
        """
    ),
    md(
        """
        ## Step 4 — the groups are copies

        Changing a tool argument inside a returned group leaves the path as it was:
        """
    ),
    code(
        """
        groups[2].entries[1].message.content[0].arguments["path"] = "changed.ts"
        print("in the group:", groups[2].entries[1].message.content[0].arguments)
        print("on the path: ", by_id["calls"].message.content[0].arguments)
        """
    ),
    md(
        """
        ## Step 5 — expected failure: `unknown-1`

        Bad input stops before the budget. We change `r-test`'s `toolCallId` from
        `test-1` to `unknown-1`, going through the parser as a store would. The
        parser accepts it (the shape is fine), but the group can no longer pair it:
        """
    ),
    code(
        """
        def fixture_with(change) -> list:
            \"\"\"The fixture after ``change`` edited its wire dicts, parsed again.\"\"\"
            wires = {entry.id: entry.to_wire() for entry in chapter_fixture()}
            change(wires)
            return [parse_session_entry(wire) for wire in wires.values()]


        def unknown_call(wires: dict) -> None:
            wires["r-test"]["message"]["toolCallId"] = "unknown-1"


        broken = fixture_with(unknown_call)
        fixture_frame(broken, groups=False).tail(5)
        """
    ),
    md(
        """
        The error names the result entry `r-test` and the unknown call `unknown-1`.
        `build_context` groups first, so the same error stops the budget: group 3
        never reaches the selection.
        """
    ),
    code(
        """
        errors_frame(
            {
                "group_interactions(broken)": lambda: group_interactions(broken),
                "build_context(broken, ...)": lambda: build_context(
                    broken, max_tokens=31, estimate_tokens=estimate
                ),
            }
        )
        """
    ),
    *exercise_cells(
        "11.2-q2",
        """
        ### Exercise 11.2-q2 — a result goes missing

        Take the fixture without `r-read`. Which rule does `group_interactions`
        report, and which call id does its message name? Answer with a pair:
        the rule's word (`"duplicate"`, `"unknown call"`, `"missing result"` or
        `"before the first user message"`, or `"valid"` if you think the path is
        fine) and the call id, e.g. `("duplicate", "x-1")`.
        """,
        "answer_q2 = ...",
    ),
    md(
        """
        The other id rules, and a conversation that does not start with a user
        message. Each message names the entry or call id to look at first.
        """
    ),
    code(
        """
        def duplicate_call(wires: dict) -> None:
            wires["calls"]["message"]["content"][1]["id"] = "read-1"
            wires["r-test"]["message"]["toolCallId"] = "read-1"


        def duplicate_result(wires: dict) -> None:
            wires["r-test"]["message"]["toolCallId"] = "read-1"


        def missing_result(wires: dict) -> None:
            wires["r-test"]["message"] = wires["a3"]["message"]


        def assistant_first(wires: dict) -> None:
            wires["u1"]["message"] = wires["a1"]["message"]


        errors_frame(
            {
                name: lambda change=change: group_interactions(fixture_with(change))
                for name, change in {
                    "call id declared twice": duplicate_call,
                    "two results for read-1": duplicate_result,
                    "test-1 never answered": missing_result,
                    "assistant before any user": assistant_first,
                }.items()
            }
        )
        """
    ),
    *your_turn_cells(
        "11.2",
        "`group_interactions` and the two methods of its helper `_OpenGroup` "
        "(`add` records calls and results, `close` checks the four id rules) in "
        "`practice/ch11/groups.py`",
    ),
    *checks_cells("11.2"),
]
