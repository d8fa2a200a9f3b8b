"""05a — Lab 11.5, part 1: restoring from the newest compaction."""

from __future__ import annotations

from .cells import Cell, answer, code, exercise_cells, fixture_cells, md, reveal

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.5, part 1 — Restoring from the newest compaction

        **Chapter section:** 「恢复时把最新摘要接在保留后缀前面」

        **Goal.** Once `compact-1` is appended, nothing is deleted: the ten messages
        stay in the session. The next `build_context` finds the newest compaction on
        the path, renders its summary as one synthetic user message right after the
        replayed system message, pays for it from the message allowance, and spends
        the rest on whole groups from the first kept entry onwards.

        **Builds on.** Lab 11.3's budget (the same selection, with the summary
        plugged in), Lab 11.4's `create_compaction_entry`.

        **Part 2** (the next notebook) compacts a second time and replays system
        state across the compaction boundary; it ends with the lab's practice
        cell and its checks, `tests/test_lab_11_5.py` (4 checks).
        """
    ),
    code(
        """
        from IPython.display import display

        from course_lib import (
            build_context,
            chapter_fixture,
            chapter_fixture_after_compaction,
            fixture_estimator,
        )
        from course_lib.track.exercises import check
        from course_lib.views import (
            deduction_frame,
            group_budget_frame,
            messages_frame,
            path_arrow,
            projection_frame,
            setup_notebook,
            styled_fixture_frame,
        )

        setup_notebook()
        """
    ),
    *fixture_cells(),
    md(
        """
        ## The path after `compact-1`, `u4`, `a4`

        `compact-1` (Lab 11.4) hangs after `a3` and keeps the path from `u2` on; the
        conversation then continues with `u4` and `a4`. The fixture estimator knows
        these messages too (3 and 4 tokens) and prices any summary message at 5
        tokens: that is the `compact-1` row.

        Notice the `group` column. After a compaction, `build_context` considers
        only the part of the path from the first kept entry on, so the groups are
        numbered from there: `u2, a2` is group 1, `u3 … a3` group 2 and `u4, a4`
        group 3, the numbers every budget table below uses. `u1, a1` are
        *summarised*: still in the session, but the summary stands in for them.
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

        The fixed costs are deducted exactly as in Lab 11.3, which leaves 22. Then
        the summary is paid from that allowance, and what is left goes to whole
        groups from `u2` on, newest first.

        **Predict first.** With the chapter's 31 / 4 / 2, which entries does
        `build_context` keep now? Decide, then open the folded outputs of the
        next cells (click the bar under each, or run them).
        """
    ),
    answer(
        """
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        restored = build_context(continued, **budget, estimate_tokens=estimate)
        deduction_frame(restored, estimate)
        """
    ),
    answer("group_budget_frame(continued, **budget, estimate_tokens=estimate)"),
    reveal(
        """
        Only `u4, a4`. The summary's 5 tokens leave 17 for whole groups. Only the
        groups from the first kept entry `u2` onwards are considered, numbered 1,
        2, 3 in that part, as in the fixture table above. Newest first: group 3
        (`u4, a4`) costs 7 and fits in 17; adding group 2 (`u3 … a3`) would make
        22 > 17, so the selection stops there.
        """
    ),
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
        from course_lib import text_of

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
    code(
        """
        from course_lib.views import summary_lines_frame

        summary_lines_frame(compact_1.summary)
        """
    ),
    *exercise_cells(
        "11.5-q1",
        """
        ### Exercise 11.5-q1 — a larger window after the compaction

        Same path, `max_tokens = 40` (still 4 reserved and a margin of 2). Which
        entries does `build_context` keep? Answer with `kept_entry_ids`, a list
        of entry ids in path order.
        """,
        "answer_q1 = ...",
    ),
    *exercise_cells(
        "11.5-q2",
        """
        ### Exercise 11.5-q2 — what the messages cost

        For the same build (`max_tokens = 40`), what is `tokens.messages`?
        """,
        "answer_q2 = ...",
    ),
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
        from course_lib import (
            InMemorySessionStore,
            MessageEntry,
            MetadataEntry,
            path_to,
            user_message,
        )

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
        ## Step 4 — when the summary alone fills the room

        The group allowance after a compaction is
        `max(0, available_for_messages - summary tokens)`: never negative, like
        the allowance of Lab 11.3. What happens when the summary costs more than
        the fixed costs leave?
        """
    ),
    *exercise_cells(
        "11.5-q3",
        """
        ### Exercise 11.5-q3 — a window the summary fills

        Same path, `max_tokens = 13` (4 reserved, a margin of 2). Which `reason`
        does `build_context` give? Work out the two allowances first, then check.
        The folded outputs below show the numbers (click the bar under each cell,
        or run it).
        """,
        "answer_q3 = ...",
    ),
    answer(
        """
        full = build_context(
            continued, max_tokens=13, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        display(deduction_frame(full, estimate))
        print("available_for_messages:", full.tokens.available_for_messages)
        print("kept_entry_ids:", full.kept_entry_ids)
        print("reason:", full.reason)
        """
    ),
    answer(
        """
        group_budget_frame(
            continued, max_tokens=13, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        """
    ),
    reveal(
        """
        The summary (5) costs more than the 4 tokens left after the fixed costs:
        the group allowance is 0, not -1. The newest group `u4, a4` is returned
        anyway, whole, as an overflow (`single_group_overflow`), and
        `tokens.total` exceeds `max_tokens`; the caller reads the reason and
        decides what to do (a shorter summary, a larger window).
        """
    ),
    md(
        """
        ## Next: part 2

        Part 2 creates a second compaction, `compact-2`, restores from it, and
        shows that system state is replayed from the whole path, across the
        compaction boundary. It ends with the lab's practice cell and its checks.
        """
    ),
]
