"""05 — Lab 11.5: restore from the newest compaction, compact again, replay system state."""

from __future__ import annotations

from .cells import Cell, checks_cells, code, fixture_cells, md, your_turn_cells

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.5 — Restoring from the newest compaction, compacting again

        **Chapter sections:** 「恢复时把最新摘要接在保留后缀前面」 and
        「system 状态跨过 compaction 边界」

        **Goal.** Once `compact-1` is appended, nothing is deleted: the ten messages
        stay in the session. The next `build_context` finds the newest compaction on
        the path, renders its summary as one synthetic user message right after the
        replayed system message, pays for it from the message allowance, and spends
        the rest on whole groups from the first kept entry onwards. System state is
        still replayed from the *whole* path, across the compaction boundary.

        **Builds on.** Lab 11.3's budget (the same selection, with the summary
        plugged in), Lab 11.4's `create_compaction_entry`.

        **Checks.** `tests/test_lab_11_5.py` (4 checks).
        """
    ),
    code(
        """
        %matplotlib inline
        %config InlineBackend.figure_formats = ["png"]

        from pathlib import Path

        from IPython.display import display

        from course_lib import (
            InMemorySessionStore,
            MessageEntry,
            MetadataEntry,
            build_context,
            chapter_fixture,
            chapter_fixture_after_compaction,
            create_compaction_entry,
            current_system_prompt,
            fixture_estimator,
            fixture_summary,
            parse_session_entry,
            path_to,
            system_replay_fixture,
            text_of,
            user_message,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.views import (
            checks_frame,
            compaction_steps,
            deduction_frame,
            errors_frame,
            expected_failure,
            group_budget_frame,
            messages_frame,
            path_arrow,
            projection_frame,
            setup_notebook,
            styled_fixture_frame,
            summary_lines_frame,
            system_frame,
        )
        from course_lib.views import CompactionExplorer, bar_frame

        setup_notebook()
        """
    ),
    *fixture_cells(),
    md(
        """
        ## The path after `compact-1`, `u4`, `a4`

        `compact-1` (Lab 11.4) hangs after `a3` and keeps the path from `u2` on; the
        conversation then continues with `u4` and `a4`. The fixture estimator prices
        any summary message at 5 tokens.
        """
    ),
    code(
        """
        continued = chapter_fixture_after_compaction()
        compact_1 = next(entry for entry in continued if entry.id == "compact-1")
        print(path_arrow(continued))
        styled_fixture_frame(continued, estimate, uuid="continued")
        """
    ),
    md(
        """
        ## Step 1 — restore with the chapter's budget

        The fixed costs are deducted exactly as in Lab 11.3 (22 left). Then the
        summary is paid from that allowance: 17 tokens are left for whole groups.
        """
    ),
    code(
        """
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        restored = build_context(continued, **budget, estimate_tokens=estimate)
        deduction_frame(restored, estimate)
        """
    ),
    md(
        """
        Only the groups from the first kept entry `u2` onwards are considered
        (`u1, a1` are covered by the summary). Newest first: `u4, a4` costs 7 and
        fits in 17; adding group `u3 … a3` would make 22 > 17.
        """
    ),
    code("group_budget_frame(continued, **budget, estimate_tokens=estimate)"),
    md(
        """
        The result is the replayed system message, the summary, `u4`, `a4`. Notice
        that `kept_entry_ids` lists only original entries: the synthetic summary
        gets no fake id.
        """
    ),
    code(
        """
        print("kept_entry_ids:", restored.kept_entry_ids)
        print("reason:", restored.reason)
        messages_frame(restored, estimate)
        """
    ),
    md("`tokens.messages` is 5 + 7 = 12: the summary itself costs room."),
    code("projection_frame(restored.tokens)"),
    md(
        """
        ## Step 2 — the summary the model reads

        The seven fields, always in the same order, with fixed labels, as the text of
        one user message. Its timestamp is the compaction's.
        """
    ),
    code(
        """
        summary_message = restored.messages[1]
        print("role:", summary_message.role, "| timestamp:", summary_message.timestamp)
        print(text_of(summary_message))
        """
    ),
    md(
        """
        The course's own labels are Chinese: full-width colons with no space after
        them, and `- （无）` for an empty list. The same summary, line by line:
        """
    ),
    code("summary_lines_frame(compact_1.summary)"),
    md(
        """
        ## Step 3 — with room to spare, the kept suffix runs past the compaction

        Collecting starts at the first kept entry and continues after the
        compaction, skipping metadata and compaction entries. A sibling branch that
        is not on the active path plays no part. Here a metadata entry sits between
        `u4` and `a4`, and `u4-other` branches off `compact-1`:
        """
    ),
    code(
        """
        store = InMemorySessionStore()
        for entry in continued[:-1]:
            store.append(entry)
        store.append(
            MetadataEntry(id="meta-1", parent_id="u4", timestamp=101.5, key="label", value="resumed")
        )
        store.append(
            MessageEntry(
                id="u4-other",
                parent_id="compact-1",
                timestamp=101,
                message=user_message("A branch that is not selected.", timestamp=101),
            )
        )
        store.append({**continued[-1].to_wire(), "parentId": "meta-1"})

        active = path_to(store.entries(), "a4")
        print(path_arrow(active))
        roomy = build_context(
            active, max_tokens=100, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        print("kept_entry_ids:", roomy.kept_entry_ids)
        print("reason:", roomy.reason)
        """
    ),
    md(
        """
        ## Step 4 — compacting again

        A second compaction uses the same function. `compact-2` keeps `u3` onwards
        and is appended after `a4`, the leaf at that moment. `compaction_steps`
        builds the chapter's four moments with the lab's own functions: no
        compaction, `compact-1`, `u4, a4`, `compact-2`.

        **Predict first.** After `compact-2`, how many summary messages does the
        model read, and from which compaction? Decide, then run the next cell.
        """
    ),
    code(
        """
        steps = compaction_steps(estimate)
        twice = steps[-1].path
        print(path_arrow(twice))
        again = build_context(
            twice, max_tokens=40, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        messages_frame(again, estimate)
        """
    ),
    md(
        """
        One summary: `compact-2`'s. `compact-1` is still in the session, but older
        summaries are never sent. The newest one carries the earlier facts forward;
        sending all of them would repeat content and could set an old decision
        against a new one.
        """
    ),
    code("print(text_of(again.messages[1]))"),
    md(
        """
        The budget still keeps whole groups, newest first. With the chapter's 31 / 4
        / 2 only `u4, a4` fits after the summary:
        """
    ),
    code("group_budget_frame(twice, **budget, estimate_tokens=estimate)"),
    md(
        """
        With a deterministic estimator the same path and options give equal results,
        and each result is an independent copy: changing the summary text of one
        result changes neither the session nor the next build.
        """
    ),
    code(
        """
        first = build_context(twice, **budget, estimate_tokens=estimate)
        second = build_context(twice, **budget, estimate_tokens=estimate)
        print("equal results:", first == second)
        first.messages[1].content[0].text = "changed by the caller"
        print("next build unaffected:", build_context(twice, **budget, estimate_tokens=estimate) == second)
        """
    ),
    md(
        """
        ## Step 5 — expected failures

        A third compaction cannot keep from `calls` (inside an interaction). And a
        compaction whose first kept entry is not a user message before it (here
        `a2`, written by a broken tool: the parser accepts the shape) stops the
        restore with a `CompactionError` naming the compaction and the id.
        """
    ),
    code(
        """
        broken_restore = [
            *chapter_fixture(),
            parse_session_entry({**compact_1.to_wire(), "firstKeptEntryId": "a2"}),
        ]
        errors_frame(
            {
                "compact-3 keeping calls": lambda: create_compaction_entry(
                    twice,
                    id="compact-3",
                    timestamp=300,
                    summary=fixture_summary(),
                    first_kept_entry_id="calls",
                    tokens_before=1,
                ),
                "restore from first kept a2": lambda: build_context(
                    broken_restore, **budget, estimate_tokens=estimate
                ),
            }
        )
        """
    ),
    md(
        """
        ## Step 6 — explore the steps

        Choose a step and move the budget. The explorer shows the active path (and
        which compaction it restores from), the messages sent, the reason, and the
        bar of the window: system, summary, kept groups, reserved output, margin,
        unused, with the groups left out beside it.
        """
    ),
    code(
        """
        explorer = CompactionExplorer(estimate, **budget)
        explorer
        """
    ),
    md(
        """
        The explorer's state as plain, compared tables: every step under the current
        budget, then the messages sent at the selected step and its bar.
        """
    ),
    code(
        """
        display(explorer.steps_frame())
        state = explorer.state()
        print("step:", state.step, "| kept_entry_ids:", state.kept_entry_ids, "| reason:", state.reason)
        display(explorer.state_frame())
        bar_frame(state.bar)
        """
    ),
    code("explorer.figure()"),
    md(
        """
        ## Step 7 — system state across the compaction boundary

        **Chapter section:** 「system 状态跨过 compaction 边界」

        On this path `sys` and `patch-1` lie *before* the first kept entry `u2`, in
        the part the summary replaces, and `patch-2` comes after the compaction. If
        system messages were collected only from the kept suffix, the restored
        request would lose the base prompt.
        """
    ),
    code(
        """
        replay = system_replay_fixture()
        print(path_arrow(replay))
        styled_fixture_frame(replay, estimate, uuid="replay")
        """
    ),
    md(
        """
        `build_context` replays the system messages of the *whole* path: contents are
        appended, `rules` is overwritten by `patch-1`, and the timestamp is the first
        system message's.
        """
    ),
    code(
        """
        replayed = build_context(replay, max_tokens=1000, estimate_tokens=estimate)
        system_frame(replayed.messages[0])
        """
    ),
    md(
        """
        The messages are the replayed head, the summary, then `u2, a2, u3, a3`:
        `patch-2` is folded into the head and does not appear in place.
        """
    ),
    code(
        """
        print("prompt:", repr(current_system_prompt(replayed.messages)))
        messages_frame(replayed, estimate)
        """
    ),
    md(
        """
        A compaction does not change system state, and a system message can never be
        a cut point:
        """
    ),
    code(
        """
        expected_failure(
            lambda: create_compaction_entry(
                replay,
                id="compact-2",
                timestamp=11,
                summary=fixture_summary(),
                first_kept_entry_id="patch-2",
                tokens_before=1,
            )
        )
        """
    ),
    *your_turn_cells(
        "11.5",
        "the Lab 11.5 parts of `practice/ch11/budget.py` (`_newest_compaction`, "
        "`_restored_suffix` and `_resume_from_newest_compaction`: find the newest "
        "compaction, check its first kept entry, price the summary) and of "
        "`practice/ch11/summary.py` (`render_summary` and `summary_message`)",
    ),
    *checks_cells("11.5"),
]
