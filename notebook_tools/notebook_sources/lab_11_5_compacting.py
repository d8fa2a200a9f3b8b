"""05b — Lab 11.5, part 2: compacting again, and system state across the compaction boundary."""

from __future__ import annotations

from .cells import (
    Cell,
    answer,
    checks_cells,
    code,
    exercise_cells,
    md,
    reveal,
    your_turn_cells,
)

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.5, part 2 — Compacting again; system state across the boundary

        **Chapter sections:** 「恢复时把最新摘要接在保留后缀前面」 (its second half)
        and 「system 状态跨过 compaction 边界」

        **Goal.** A second compaction is made by the same function and appended
        like the first; restoring then reads only the newest one. System state is
        not part of any compaction: it is replayed from the system messages of the
        *whole* path, across the compaction boundary.

        **Builds on.** Part 1 (restoring from `compact-1`), Lab 11.4's
        `create_compaction_entry`, Lab 11.3's system replay.

        **Checks.** `tests/test_lab_11_5.py` (4 checks), at the end of this notebook.
        """
    ),
    code(
        """
        %matplotlib inline
        %config InlineBackend.figure_formats = ["png"]

        from pathlib import Path

        from IPython.display import display

        from course_lib import build_context, chapter_fixture_after_compaction, fixture_estimator
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import (
            checks_frame,
            group_budget_frame,
            messages_frame,
            path_arrow,
            setup_notebook,
            styled_fixture_frame,
        )

        setup_notebook()
        """
    ),
    md(
        """
        ## Where part 1 ended

        The fixture, `compact-1` (first kept `u2`), then `u4, a4`. The groups are
        numbered from the first kept entry on, as `build_context` considers them.
        """
    ),
    code(
        """
        estimate = fixture_estimator()
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        continued = chapter_fixture_after_compaction()
        print(path_arrow(continued))
        styled_fixture_frame(continued, estimate, uuid="continued")
        """
    ),
    md(
        """
        ## Step 1 — compacting again

        A second compaction uses the same function as the first, on the path as it
        is now. `compact-2` keeps `u3` onwards; its summary (written by a model in
        a real agent) now also covers `u2, a2`. `tokens_before` is the caller's
        record of what the messages cost with nothing trimmed: `compact-1`'s
        summary (5) plus every group from `u2` on (7 + 15 + 7).
        """
    ),
    code(
        """
        from course_lib import create_compaction_entry
        from course_lib.views import entry_fields_frame, second_summary, untrimmed_message_tokens

        compact_2 = create_compaction_entry(
            continued,
            id="compact-2",
            timestamp=200,
            summary=second_summary(),
            first_kept_entry_id="u3",
            tokens_before=untrimmed_message_tokens(continued, estimate),
        )
        twice = [*continued, compact_2]
        print(path_arrow(twice))
        entry_fields_frame(compact_2)
        """
    ),
    md(
        """
        `parentId` is `a4`, the leaf when it was created, and nothing before it
        changed. The explorer further down walks the chapter's four moments (no
        compaction, `compact-1`, `u4, a4`, `compact-2`); `compaction_steps` makes
        them with the same call, so its last path is this one:
        """
    ),
    code(
        """
        from course_lib.views import compaction_steps

        compaction_steps(estimate)[-1].path == twice
        """
    ),
    md(
        """
        **Predict first.** After `compact-2`, how many summary messages does the
        model read, and from which compaction? Decide, then open the folded output
        of the next cell (click the bar under it, or run it).
        """
    ),
    answer(
        """
        again = build_context(
            twice, max_tokens=40, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        messages_frame(again, estimate)
        """
    ),
    reveal(
        """
        One summary: `compact-2`'s. `compact-1` is still in the session, but older
        summaries are never sent. The newest one carries the earlier facts forward;
        sending all of them would repeat content and could set an old decision
        against a new one.
        """
    ),
    md("The summary the model reads is `compact-2`'s:"),
    answer(
        """
        import html

        from IPython.display import HTML

        from course_lib import text_of

        HTML("<pre>\\n" + html.escape(text_of(again.messages[1])) + "</pre>")
        """
    ),
    md(
        """
        The budget still keeps whole groups, newest first, numbered from the new
        first kept entry `u3`. With the chapter's 31 / 4 / 2 only `u4, a4` fits
        after the summary:
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
        ## Step 2 — expected failures

        A third compaction cannot keep from `calls` (inside an interaction). And a
        compaction whose first kept entry is not a user message before it (here
        `a2`, written by a broken tool: the parser accepts the shape) stops the
        restore with a `CompactionError` naming the compaction and the id.
        """
    ),
    code(
        """
        from course_lib import chapter_fixture, fixture_summary, parse_session_entry
        from course_lib.views import errors_frame

        compact_1 = continued[10]
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
        ## Step 3 — explore the steps

        Choose a step and move the budget. The explorer shows the active path (and
        which compaction it restores from), the messages sent, the reason, and the
        bar of the window: system, summary, kept groups, reserved output, margin,
        unused, with the groups left out beside it.
        """
    ),
    code(
        """
        from course_lib.views import CompactionExplorer, bar_frame

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
        ## Step 4 — system state across the compaction boundary

        **Chapter section:** 「system 状态跨过 compaction 边界」

        On this path `sys` and `patch-1` lie *before* the first kept entry `u2`, in
        the part the summary replaces, and `patch-2` comes after the compaction. If
        system messages were collected only from the kept suffix, the restored
        request would lose the base prompt.
        """
    ),
    code(
        """
        from course_lib import current_system_prompt, system_replay_fixture
        from course_lib.views import expected_failure, system_frame

        replay = system_replay_fixture()
        print(path_arrow(replay))
        styled_fixture_frame(replay, estimate, uuid="replay")
        """
    ),
    md(
        """
        These messages are not the chapter's ten, so the teaching estimator has no
        number for them: it charges one token per 4 characters of their text,
        rounded up (pi's own rough rule; only a summary message always costs 5).
        `u1` says "Start the refactor.", 19 characters, so 5 tokens. The estimator
        also accepts plain text:
        """
    ),
    code('print(len("Start the refactor."), estimate("Start the refactor."))'),
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
        **Think first.** `compact-1` has fields for the summary, the first kept
        entry and the size before compacting, but none for the system prompt.
        Should it keep a copy of the prompt, so that restoring cannot lose it?
        Decide, then open the answer.
        """
    ),
    reveal(
        """
        No. A compaction does not change system state: the summary message is
        made from the seven fields only and carries no prompt text, and only
        system messages set system state. Those stay on the path (a compaction
        deletes nothing), and `build_context` replays them from the whole path,
        so replaying gives exactly what a snapshot saved at the compaction
        boundary would give. That is why the course gives a compaction entry no
        system field: a second copy could only disagree with the first.
        """
    ),
    md("And a system message can never be a cut point:"),
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
    *exercise_cells(
        "11.5-q4",
        """
        ### Exercise 11.5-q4 — without `patch-1`

        Take the same path without `patch-1` (the entry that sets `rules` to
        `"RULE v2"`). What prompt text does the replayed system message give
        (`current_system_prompt` of the messages)? Answer with the string, using
        `"\\n"` for a line break.
        """,
        "answer_q4 = ...",
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
