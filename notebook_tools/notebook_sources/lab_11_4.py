"""04 — Lab 11.4: creating a compaction entry is a pure function of the path."""

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
        # Lab 11.4 — Creating a compaction entry (pure)

        **Chapter section:** 「compact-1 记录摘要与保留起点」

        **Goal.** Lab 11.3 left group 1 out, but `build_context` is read-only: it
        never writes a summary. When the caller has a summary ready, it asks
        `create_compaction_entry` for the entry. The function derives the parent from
        the path, checks that the first kept entry starts a complete interaction,
        validates and copies the result through the parser, and returns it. It
        touches no store: the caller shows it, audits it or asks for confirmation,
        then appends it explicitly.

        **Builds on.** Lab 11.1's compaction entry and parser, Lab 11.2's groups.

        **Checks.** `tests/test_lab_11_4.py` (2 checks).
        """
    ),
    code(
        """
        from pathlib import Path

        from IPython.display import display

        from course_lib import (
            InMemorySessionStore,
            chapter_fixture,
            create_compaction_entry,
            fixture_estimator,
            fixture_summary,
            path_to,
            system_replay_fixture,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import (
            checks_frame,
            entry_fields_frame,
            errors_frame,
            first_kept_frame,
            path_arrow,
            setup_notebook,
            styled_fixture_frame,
            untrimmed_message_tokens,
        )

        setup_notebook()
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — what the caller brings

        A summary (written by a model in a real agent; here the course's
        `fixture_summary()`), the id and time of the new entry, where the kept part
        starts, and `tokens_before`: the caller's own record of how large the
        context was before compacting. Here that is what the path's messages cost
        with nothing trimmed, 7 + 7 + 15:
        """
    ),
    code(
        """
        tokens_before = untrimmed_message_tokens(path, estimate)
        tokens_before
        """
    ),
    md(
        """
        **Predict first.** The caller does not pass a parent id. Which entry will
        `compact-1` hang after? Decide, then open the folded output of the next
        cell (click the bar under it, or run it).
        """
    ),
    answer(
        """
        before = [entry.to_wire() for entry in path]
        summary = fixture_summary()
        compact_1 = create_compaction_entry(
            path,
            id="compact-1",
            timestamp=100,
            summary=summary,
            first_kept_entry_id="u2",
            tokens_before=tokens_before,
        )
        entry_fields_frame(compact_1)
        """
    ),
    reveal(
        """
        `parentId` is `a3`, the last entry of the path. Because the caller cannot
        pass it, there can never be two answers to "where does this summary hang?".
        `firstKeptEntryId` means something else: where restoring will start keeping
        original messages.
        """
    ),
    md(
        """
        The function is pure. The path is unchanged (nothing was appended), and the
        entry shares nothing with the summary it was given:
        """
    ),
    code(
        """
        summary.constraints.append("added to the caller's summary afterwards")
        compact_1.summary.next.append("added to the returned entry")

        print("path unchanged:", [entry.to_wire() for entry in path] == before)
        print("entries on the path:", len(path))
        print("entry constraints:", compact_1.summary.constraints)
        print("caller's next:    ", summary.next)
        """
    ),
    md(
        """
        ## Step 2 — which entries may start the kept part?

        Only the first message of a complete interaction. `create_compaction_entry`
        finds those the way Lab 11.2 does: it groups every message entry of the
        path with `group_interactions` and accepts `first_kept_entry_id` only when
        it is the first entry of one of those groups (so a path whose tool ids do
        not pair up is refused with the same `InteractionError`). Only then does
        it build the candidate and pass it through `parse_session_entry`.

        Each row below is a real call of `create_compaction_entry` with that entry
        as `first_kept_entry_id`: exactly `u1`, `u2` and `u3` are accepted, the
        group starts of Lab 11.2.
        """
    ),
    code(
        """
        first_kept_frame(
            path,
            id="compact-1",
            timestamp=100,
            summary=fixture_summary(),
            tokens_before=tokens_before,
        )
        """
    ),
    *exercise_cells(
        "11.4-q1",
        """
        ### Exercise 11.4-q1 — cut points after a compaction

        `chapter_fixture_after_compaction()` is the path once `compact-1` is
        appended and the conversation goes on with `u4, a4`:
        `sys → u1 → … → a3 → compact-1 → u4 → a4`. A second compaction is created
        on it. Which ids may be its `first_kept_entry_id`? Answer with a set of
        entry ids, e.g. `{"x1", "x2"}`.
        """,
        "answer_q1 = ...",
    ),
    md(
        """
        ## Step 3 — expected failures

        Cutting inside an interaction (`a2`, `calls`, `r-test`), an empty path, an id
        already on the path, and a system message as the first kept entry: `patch-2`
        on the path of Lab 11.5's system-replay example. Every message names the id.
        """
    ),
    code(
        """
        def create(active_path: list, **changes):
            \"\"\"A call that creates compact-1 with the chapter's options, some of them changed.\"\"\"
            options = {
                "id": "compact-1",
                "timestamp": 100,
                "summary": fixture_summary(),
                "first_kept_entry_id": "u2",
                "tokens_before": tokens_before,
            }
            return lambda: create_compaction_entry(active_path, **{**options, **changes})


        errors_frame(
            {
                "first kept a2": create(path, first_kept_entry_id="a2"),
                "first kept calls": create(path, first_kept_entry_id="calls"),
                "first kept r-test": create(path, first_kept_entry_id="r-test"),
                "empty path": create([]),
                "id a3 is taken": create(path, id="a3"),
                "first kept patch-2": create(
                    system_replay_fixture(), id="compact-2", first_kept_entry_id="patch-2"
                ),
                "summary with files": create(
                    path, summary={**fixture_summary().to_wire(), "files": []}
                ),
            }
        )
        """
    ),
    md(
        """
        ## Step 4 — the caller appends it

        The store keeps the right to write. Appending `compact-1` after the ten
        entries makes it the new leaf; the active path now ends in it, and nothing
        before it was removed. Notice the `group` column: a budget now considers
        only the part from `u2` on (Lab 11.5), so the groups are numbered from
        there and `u1, a1` are *summarised*, still in the session.
        """
    ),
    code(
        """
        store = InMemorySessionStore()
        for entry in [*path, compact_1]:
            store.append(entry)
        active = path_to(store.entries(), "compact-1")
        print(path_arrow(active))
        display(styled_fixture_frame(active, estimate, uuid="appended"))
        """
    ),
    *exercise_cells(
        "11.4-q2",
        """
        ### Exercise 11.4-q2 — where does `compact-2` hang?

        On `chapter_fixture_after_compaction()`, `compact-2` is created with
        `first_kept_entry_id="u3"`. What will its `parent_id` be? Give the id.
        """,
        "answer_q2 = ...",
    ),
    *your_turn_cells(
        "11.4",
        "`create_compaction_entry` in `practice/ch11/compaction.py` (derive the "
        "parent, refuse an empty path, a duplicate id and a cut inside an interaction, "
        "then pass the candidate through `parse_session_entry`)",
    ),
    *checks_cells("11.4"),
]
