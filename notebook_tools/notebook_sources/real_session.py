"""07 — beyond the fixture: the labs' functions on a real pi session."""

from __future__ import annotations

from .cells import Cell, code, exercise_cells, md

CELLS: list[Cell] = [
    md(
        """
        # Beyond the fixture — a real session

        **Goal.** Run what the labs built on a real pi session instead of the
        ten-entry fixture: import it with every change made visible, look at its
        interactions, project it under pi's own budget and under a smaller one,
        compact it and restore from the compaction, and compare two token
        estimators on real text. Every table is computed from the file; nothing is
        typed by hand.

        **Builds on.** Lab 11.2 (`group_interactions`), Lab 11.3 (`build_context`),
        Labs 11.4 and 11.5 (`create_compaction_entry`, restoring from a
        compaction), the transfer exercise (`budget_ledger`), the pi importer
        (`course_lib.importers`) and the two real-text estimators
        (`course_lib.estimators`).

        **Checks.** None of its own: this notebook goes beyond the chapter. The
        importer is tested by `tests/test_import_pi.py`, the estimators by
        `tests/test_estimators.py`.
        """
    ),
    code(
        """
        %matplotlib inline
        %config InlineBackend.figure_formats = ["png"]

        import contextlib
        import io
        from pathlib import Path

        import pandas as pd
        from IPython.display import display
        from matplotlib.figure import Figure

        from course_lib import (
            CompactionSummary,
            bpe_estimator,
            budget_ledger,
            build_context,
            chapter_fixture,
            chars_estimator,
            create_compaction_entry,
            fixture_estimator,
            import_pi_session,
        )
        from course_lib.tools.cli import main as course_lab
        from course_lib.track.exercises import check
        from course_lib.views import (
            import_notes_frame,
            deduction_frame,
            entry_counts_frame,
            entry_fields_frame,
            estimator_comparison_frame,
            fixture_frame,
            group_budget_frame,
            interaction_sizes_frame,
            kept_range_frame,
            ledger_excerpt_frame,
            message_tokens_frame,
            messages_frame,
            pi_compactions_frame,
            pi_source_frame,
            projection_frame,
            setup_notebook,
            untrimmed_message_tokens,
        )
        from course_lib.tools.inspect_session import DEFAULT_MAX_TOKENS, DEFAULT_RESERVED_OUTPUT

        setup_notebook()
        """
    ),
    md(
        """
        ## Step 1 — import the sample

        `data/pi-sessions/large-session.v1.jsonl` is a real pi session file
        (format v1). `import_pi_session` turns every line into a course entry that
        crosses the same strict parser as the fixture's. Notice what the file held
        *before* any mapping: every pi entry type is listed, so a type the file
        lacks shows as 0, and there is no `compaction` line in this session.
        """
    ),
    code(
        """
        SAMPLE = Path("..") / "data" / "pi-sessions" / "large-session.v1.jsonl"
        imported = import_pi_session(SAMPLE)
        source = imported.source
        print(f"{SAMPLE.name}: pi format v{source.version}, {source.records:,} lines")
        print(f"course entries: {len(imported.entries):,}, leaf: {imported.leaf_id}")
        pi_source_frame(source)
        """
    ),
    md(
        """
        What the lines became. A v1 file has no ids, so an entry's id is its line
        number (`L0005` is line 5) and its parent is the line before. Notice that
        there are more message entries than pi message lines: the extra ones are
        results the importer added (Step 2). Settings lines (`model_change`,
        `thinking_level_change`) and the header become metadata, which is never
        sent to a model.
        """
    ),
    code("entry_counts_frame(imported.entries)"),
    md(
        """
        ## Step 2 — every change the importer made

        A real session breaks rules the fixture never breaks: turns aborted in
        the middle of a tool call, fields the course schema does not have. The
        importer repairs what it can and writes a note for every change, with the
        pi line and the course entry it concerns. The notes by kind, most
        frequent first:
        """
    ),
    code(
        """
        notes = import_notes_frame(imported)
        (
            notes.groupby("kind", sort=False)
            .agg(
                notes=("kind", "size"),
                lines=("line", lambda lines: ", ".join(str(line) for line in lines.unique())),
            )
            .sort_values("notes", ascending=False, kind="stable")
        )
        """
    ),
    md(
        """
        Every note. Notice the `missing_result_repaired` rows: each tool call that
        never got a result (the user aborted the turn, or the provider failed) now
        has a synthetic error result, as pi itself sends one, so the interaction
        is complete again. The routine drops (`field_dropped`,
        `usage_total_computed`) are one note per field, with a count and a line
        range in `detail`.
        """
    ),
    code("notes"),
    md(
        """
        ## Step 3 — the interactions

        `group_interactions` splits the active path into interactions, exactly as
        it split the fixture into three. Each row: where the interaction starts
        and ends, how many messages and tool calls it holds, its cost under pi's
        own heuristic (`chars_estimator`: characters / 4, rounded up), and
        `provider tokens`, the largest context the provider reported for one of
        its calls (`usage.totalTokens`; none for aborted or failed turns). Notice how
        uneven the sizes are: the mean is far above the median.
        """
    ),
    code(
        """
        path = imported.active_path()
        chars = chars_estimator()
        sizes = interaction_sizes_frame(path, {"tokens": chars})
        print(f"active path: {len(path):,} entries, {len(sizes)} interactions")
        sizes.drop(columns="group").describe().round(1)
        """
    ),
    md(
        """
        The ten largest interactions. Notice that they are the ones with many tool
        calls or large tool results (files read in full): a budget keeps or drops
        each of them whole.
        """
    ),
    code('sizes.nlargest(10, "tokens")'),
    md(
        """
        The same numbers over the session. Top: what each interaction costs.
        Bottom: the history so far (the running sum of the top bars) and what the
        provider counted for its largest call in each interaction. Notice the gap
        between the two lines: the provider counted with its own tokenizer and
        also read what the file does not hold (pi's system prompt and tool
        definitions). The dashed line is where pi's automatic compaction starts
        with its default settings: a 200,000-token window minus the 16,384
        tokens it reserves.
        """
    ),
    code(
        """
        figure = Figure(figsize=(9, 5.5), dpi=100)
        top, bottom = figure.subplots(2, 1, sharex=True)
        top.bar(sizes["group"], sizes["tokens"], color="#93c5fd", edgecolor="#1d4ed8", linewidth=0.4)
        top.set_ylabel("tokens (chars / 4)")
        top.set_title("tokens per interaction, oldest to newest", fontsize=10)
        bottom.plot(sizes["group"], sizes["tokens"].cumsum(), color="#1f2937", label="history so far (chars / 4)")
        bottom.plot(
            sizes["group"],
            sizes["provider tokens"].to_numpy(dtype=float, na_value=float("nan")),
            ".",
            color="#dc2626",
            label="provider's count, largest call",
        )
        bottom.axhline(
            DEFAULT_MAX_TOKENS - DEFAULT_RESERVED_OUTPUT,
            color="#6b7280",
            linestyle="--",
            linewidth=1,
            label="pi's compaction threshold",
        )
        bottom.set_xlabel("interaction")
        bottom.set_ylabel("tokens")
        bottom.legend(loc="upper left", fontsize=8)
        figure.subplots_adjust(left=0.1, right=0.98, bottom=0.1, top=0.94, hspace=0.12)
        figure
        """
    ),
    md("The data the plot draws, one row per interaction:"),
    code("sizes"),
    md(
        """
        ## Step 4 — the ledger under pi's defaults

        pi's defaults: a 200,000-token window with 16,384 tokens reserved for the
        answer, and no safety margin. The file holds no system message (pi does
        not store its system prompt in the session), so the replayed system
        message costs 0 here. Notice the allowance left for messages:
        """
    ),
    code(
        """
        pi_budget = {"max_tokens": DEFAULT_MAX_TOKENS, "reserved_output": DEFAULT_RESERVED_OUTPUT}
        at_pi = build_context(path, **pi_budget, estimate_tokens=chars)
        deduction_frame(at_pi)
        """
    ),
    md(
        """
        The ledger, compacted: the three oldest and the three newest groups (and
        both sides of the cut, when there is one). Notice that every status is
        `kept`: there is no cut at all.
        """
    ),
    code("ledger_excerpt_frame(budget_ledger(path, **pi_budget, estimate_tokens=chars))"),
    md(
        """
        The kept range and the reason. Every message entry fits, so `reason` is
        `within_budget` and the context starts with the session's first message.
        """
    ),
    code(
        """
        kept = at_pi.kept_entry_ids
        print(f"kept: {kept[0]} .. {kept[-1]} ({len(kept):,} message entries)")
        print("reason:", at_pi.reason)
        projection_frame(at_pi.tokens)
        """
    ),
    md(
        """
        ## Step 5 — a smaller window: a real cut

        The same session with a 50,000-token window (the same 16,384 reserved).
        Notice the allowance: far less than the history costs, so older
        interactions must go.
        """
    ),
    code(
        """
        small_budget = {"max_tokens": 50_000, "reserved_output": DEFAULT_RESERVED_OUTPUT}
        at_small = build_context(path, **small_budget, estimate_tokens=chars)
        deduction_frame(at_small)
        """
    ),
    md(
        """
        The ledger now has a cut. Notice that it falls between two groups: the
        groups above the `cut` row are left out whole, the groups below it are
        kept whole, so no tool call loses its result.
        """
    ),
    code("ledger_excerpt_frame(budget_ledger(path, **small_budget, estimate_tokens=chars))"),
    md(
        """
        The entries on both sides of the cut (`sent` says whether each one is in
        the context). Notice that the first kept entry is a user message: a
        context always starts where an interaction starts.
        """
    ),
    code(
        """
        kept = at_small.kept_entry_ids
        print(f"kept: {kept[0]} .. {kept[-1]} ({len(kept):,} message entries)")
        print("reason:", at_small.reason)
        start = next(index for index, entry in enumerate(path) if entry.id == kept[0])
        around_cut = path[start - 3 : start + 3]
        fixture_frame(around_cut, chars, groups=False).assign(sent=[entry.id in kept for entry in around_cut])
        """
    ),
    md(
        """
        Where the cut falls, as a picture: the groups newest first (right to
        left), each bar the running total from the newest group, coloured by the
        ledger's status. Notice that the cut is where the running total would
        cross the allowance (the dashed line). The data is `group_budget_frame`,
        the table Lab 11.3 showed for the fixture; below the plot are its rows
        down to the first two groups left out (without the long `entry ids`).
        """
    ),
    code(
        """
        walk = group_budget_frame(path, **small_budget, estimate_tokens=chars)
        colours = walk["status"].map({"kept": "#86efac", "trimmed": "#e5e7eb", "overflow": "#fca5a5"})
        figure = Figure(figsize=(9, 3), dpi=100)
        axes = figure.add_subplot()
        axes.bar(walk["group"], walk["cumulative (newest first)"], color=colours, edgecolor="#6b7280", linewidth=0.3)
        axes.axhline(at_small.tokens.available_for_messages, color="#111827", linestyle="--", linewidth=1)
        axes.set_xlabel("interaction (the walk starts at the newest, on the right)")
        axes.set_ylabel("tokens, newest first")
        axes.set_title("max_tokens=50,000: green groups are kept, grey groups are left out", fontsize=10)
        figure.subplots_adjust(left=0.1, right=0.98, bottom=0.17, top=0.88)
        figure
        """
    ),
    code(
        """
        kept_groups = int((walk["status"] != "trimmed").sum())
        walk.drop(columns="entry ids").head(kept_groups + 2)
        """
    ),
    *exercise_cells(
        "real-q1",
        """
        ### Exercise real-q1 — a window of 100,000 tokens

        Run `build_context` on the session's `path` yourself, with
        `max_tokens = 100_000`, pi's reserved output (`DEFAULT_RESERVED_OUTPUT`)
        and `chars_estimator()`, as in Step 5. Which entry starts the kept range?
        Give its id (or the expression that computes it).
        """,
        "answer_q1 = ...",
    ),
    *exercise_cells(
        "real-q2",
        """
        ### Exercise real-q2 — how many interactions fit?

        Under the same budget, how many interactions (groups) does the budget
        keep? `budget_ledger` has one row per interaction.
        """,
        "answer_q2 = ...",
    ),
    md(
        """
        ## Step 6 — what pi's compaction kept, and what `build_context` keeps

        When a file holds pi compactions, `pi_compactions_frame` puts each one
        beside `build_context`: pi's first kept entry as imported (the importer
        moves it back to the user message that starts its interaction, and says
        so in a note), and what `build_context` keeps of the same path with the
        20,000 tokens of recent history pi's compaction aims to keep. Notice what
        this file says:
        """
    ),
    code(
        """
        print("compaction lines in the file:", source.entry_counts.get("compaction", 0))
        compactions = pi_compactions_frame(imported, estimate_tokens=chars)
        if compactions.empty:
            print("pi never compacted this session, so there is no pi cut to compare with.")
        else:
            display(compactions)
        peak = sizes["provider tokens"].max()
        threshold = DEFAULT_MAX_TOKENS - DEFAULT_RESERVED_OUTPUT
        print(f"largest context the provider reported: {peak:,} tokens")
        print(f"pi's default threshold for automatic compaction: {threshold:,} tokens")
        """
    ),
    md(
        """
        No compaction, and the largest call stayed below pi's default threshold.
        So instead of comparing with something pi never did, we compact the
        session ourselves, where `build_context` cut it at 50,000 tokens.
        Writing a real summary is a model's job (outside this chapter), so the
        summary below is a stand-in that says what it is; only its cost matters
        here. `tokens_before` is what the whole history costs, as Lab 11.4
        recorded it.
        """
    ),
    code(
        """
        left_out = [row for row in budget_ledger(path, **small_budget, estimate_tokens=chars) if row.status == "trimmed"]
        stand_in = CompactionSummary(
            goal="Stand-in summary written by this notebook, not by pi or a model",
            constraints=[],
            completed=[
                f"Interactions 1-{len(left_out)} ({left_out[0].entry_ids[0]} .. "
                f"{left_out[-1].entry_ids[-1]}) are left out of the context"
            ],
            decisions=[],
            changed_files=[],
            unresolved=["What happened in them is not summarised: a real summary is a model's job"],
            next=[],
        )
        compaction = create_compaction_entry(
            path,
            id="demo-compaction",
            timestamp=path[-1].timestamp + 1,
            summary=stand_in,
            first_kept_entry_id=at_small.kept_entry_ids[0],
            tokens_before=untrimmed_message_tokens(path, chars),
        )
        entry_fields_frame(compaction)
        """
    ),
    md(
        """
        Restore: append the compaction to (a copy of) the path and project again
        with the 50,000-token window. Nothing is written to the file. Notice the
        summary's own row in the deduction table: it is paid from the allowance
        before any group. The same entries are kept, but the reason is now
        `within_budget`: the interactions before the first kept entry are no
        longer candidates, the summary stands in for them.
        """
    ),
    code(
        """
        compacted = [*path, compaction]
        restored = build_context(compacted, **small_budget, estimate_tokens=chars)
        kept = restored.kept_entry_ids
        print(f"kept: {kept[0]} .. {kept[-1]} ({len(kept):,} message entries)")
        print("reason:", restored.reason)
        deduction_frame(restored, chars)
        """
    ),
    md(
        """
        The first messages of the restored context: the summary comes first, as
        one synthetic user message, then the kept suffix from the compaction's
        first kept entry.
        """
    ),
    code("messages_frame(restored, chars).head(4)"),
    md(
        """
        With and without the compaction, under both windows. Notice the last two
        rows: once the compaction is on the path, even pi's 200,000-token window
        starts at its first kept entry, because restoring starts from the newest
        summary. The history itself is unchanged.
        """
    ),
    code(
        """
        windows = [DEFAULT_MAX_TOKENS, 50_000]
        options = {"reserved_output": DEFAULT_RESERVED_OUTPUT, "estimators": {"chars": chars}}
        pd.concat(
            [
                kept_range_frame(path, windows, **options).assign(path="as imported"),
                kept_range_frame(compacted, windows, **options).assign(path="with demo-compaction"),
            ],
            ignore_index=True,
        )
        """
    ),
    md(
        """
        ## Step 7 — two estimators: characters / 4 and BPE

        `chars_estimator` is pi's heuristic; `bpe_estimator` counts real BPE
        tokens (`o200k_base`, from a vocabulary that ships with the package, so
        it works offline). Neither is the tokenizer of the model that ran this
        session: only the provider's own counts are exact. First the fixture,
        beside the chapter's teaching estimator. Notice that its short English
        sentences cost fewer BPE tokens than characters / 4 suggests:
        """
    ),
    code(
        """
        bpe = bpe_estimator()
        fixture_tokens = message_tokens_frame(
            chapter_fixture(), {"fixture": fixture_estimator(), "chars": chars, "bpe": bpe}
        )
        display(fixture_tokens)
        estimator_comparison_frame(fixture_tokens, "chars", "bpe")
        """
    ),
    md(
        """
        The real session, per message kind (all its messages are priced).
        Notice that the ratio depends on the kind of text: tool calls (JSON
        arguments, code) cost more BPE tokens than characters / 4 suggests, and
        over the whole file the heuristic underestimates.
        """
    ),
    code(
        """
        real_tokens = message_tokens_frame(path, {"chars": chars, "bpe": bpe})
        estimator_comparison_frame(real_tokens, "chars", "bpe")
        """
    ),
    md(
        """
        Every message as one point, chars / 4 against BPE, on log scales, with the
        line where the two agree. Messages that cost 0 under both (aborted turns
        with no text) cannot sit on a log scale and are left out; the cell says
        how many. Notice that the points spread on both sides of the line: the
        ratio per kind above is an average, not a rule for one message.
        """
    ),
    code(
        """
        priced = real_tokens[(real_tokens["chars"] > 0) & (real_tokens["bpe"] > 0)]
        print(f"{len(priced)} of {len(real_tokens)} messages drawn; {len(real_tokens) - len(priced)} cost 0 under both")
        figure = Figure(figsize=(6.5, 5), dpi=100)
        axes = figure.add_subplot()
        for kind, rows in priced.groupby("kind", sort=False):
            axes.scatter(rows["chars"], rows["bpe"], s=9, alpha=0.6, label=kind)
        largest = max(priced["chars"].max(), priced["bpe"].max())
        axes.plot([1, largest], [1, largest], color="#111827", linewidth=1, label="y = x")
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xlabel("chars / 4 (pi's heuristic)")
        axes.set_ylabel("BPE tokens (o200k_base)")
        axes.legend(fontsize=8)
        figure.subplots_adjust(left=0.13, right=0.97, bottom=0.11, top=0.97)
        figure
        """
    ),
    md(
        """
        What the estimator changes in the budget. Notice the 50,000-token rows:
        BPE prices the same messages higher, so fewer interactions fit and the
        cut moves later. Under pi's window everything fits either way.
        """
    ),
    code(
        """
        kept_range_frame(
            path,
            [DEFAULT_MAX_TOKENS, 50_000],
            reserved_output=DEFAULT_RESERVED_OUTPUT,
            estimators={"chars": chars, "bpe": bpe},
        )
        """
    ),
    md(
        """
        ## Your own pi session

        pi keeps every session as a JSONL file under
        `~/.pi/agent/sessions/--<working folder>--/<time>_<id>.jsonl`. Open one
        in a notebook cell like this (the file name is yours to fill in):

        ```python
        from pathlib import Path

        from course_lib import import_pi_session

        mine = import_pi_session(Path.home() / ".pi/agent/sessions/--your-folder--/your-file.jsonl")
        import_notes_frame(mine)
        ```

        Every step above works on `mine` instead of `imported`. Or, from the
        repository root, ask the command line for the same report in one go:

        ```bash
        .venv/bin/course-lab inspect FILE
        .venv/bin/course-lab inspect FILE --max-tokens 50000 --estimator bpe
        .venv/bin/course-lab inspect FILE --format json
        ```

        The next cell runs `course-lab inspect` on the sample with the
        50,000-token window of Step 5 (from the sample's folder, so the report
        names the file only) and shows what it prints. Notice that its deduction
        table, its ledger and its kept range are the ones of Step 5.
        """
    ),
    code(
        """
        printed = io.StringIO()
        with contextlib.chdir(SAMPLE.parent), contextlib.redirect_stdout(printed):
            status = course_lab(["inspect", SAMPLE.name, "--max-tokens", "50000"])
        print(printed.getvalue(), end="")
        print("exit status:", status)
        """
    ),
]
