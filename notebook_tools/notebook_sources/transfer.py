"""06 — the chapter's optional transfer exercise: a per-group budget ledger."""

from __future__ import annotations

from .cells import PRACTICE_HINT, Cell, answer, code, exercise_cells, fixture_cells, md, reveal

CELLS: list[Cell] = [
    md(
        """
        # Transfer exercise — a per-group budget ledger

        **Chapter section:** 「可选迁移练习」 (optional in the chapter; this workbook
        asks for it, but it is not a numbered lab, so its checks are not among the
        chapter's 15)

        **Goal.** `build_context` answers "what goes into this call?". A ledger
        answers "what happened to each group, and why?": for the same path and
        options it reports every group's entry ids, its token cost and a status,

        * `kept`: the group is in the context;
        * `trimmed`: the group did not fit and was left out;
        * `overflow`: the newest group was kept whole although it alone does not fit
          (the projection's reason is then `single_group_overflow`).

        The ledger must never re-decide the selection rules. `budget_ledger` reads
        the same plan `build_context` follows, so the two cannot disagree; the last
        step checks that they do not.

        **Builds on.** Labs 11.2, 11.3 and 11.5.

        **Checks.** `tests/test_transfer.py` (3 checks): `course-lab check transfer`.
        """
    ),
    code(
        """
        from pathlib import Path

        from IPython.display import display

        from course_lib import (
            budget_ledger,
            build_context,
            chapter_fixture,
            chapter_fixture_after_compaction,
            fixture_estimator,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import (
            checks_frame,
            ledger_agreement_frame,
            ledger_frame,
            path_arrow,
            setup_notebook,
            styled_fixture_frame,
        )
        from course_lib.track.practice import load_practice_package

        setup_notebook()
        """
    ),
    *fixture_cells(),
    md(
        """
        ## The fixture with the chapter's budget

        One row per group, oldest first. Group 1 is trimmed, groups 2 and 3 are kept,
        exactly the 31 / 4 / 2 result of Lab 11.3:
        """
    ),
    code(
        """
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        ledger_frame(budget_ledger(path, **budget, estimate_tokens=estimate))
        """
    ),
    md("The ledger's kept entries are exactly `build_context`'s `kept_entry_ids`:"),
    code(
        """
        rows = budget_ledger(path, **budget, estimate_tokens=estimate)
        from_ledger = [entry_id for row in rows if row.status != "trimmed" for entry_id in row.entry_ids]
        result = build_context(path, **budget, estimate_tokens=estimate)
        print("ledger:       ", from_ledger)
        print("build_context:", result.kept_entry_ids)
        print("agree:", from_ledger == result.kept_entry_ids)
        """
    ),
    *exercise_cells(
        "transfer-q1",
        """
        ### Exercise transfer-q1 — the ledger of a smaller window

        With `max_tokens = 26` (still 4 reserved and a margin of 2), what are the
        statuses of the fixture's three groups, oldest first? Answer with a list
        of statuses, e.g. `["kept", "kept", "kept"]`.
        """,
        "answer_q1 = ...",
    ),
    md(
        """
        ## The newest tool group overflowing

        With `max_tokens = 19` the allowance is 10 and the tool group alone costs 15:
        it is kept whole and marked `overflow`; the two older groups are trimmed.
        """
    ),
    code(
        """
        ledger_frame(
            budget_ledger(
                path, max_tokens=19, reserved_output=4, safety_margin=2, estimate_tokens=estimate
            )
        )
        """
    ),
    md(
        """
        ## A single group with no tools

        The path `sys → u1 → a1`: one group of two plain messages (7 tokens). It is
        `kept` when it fits and `overflow` when it does not; it is never `trimmed`,
        because the newest group is always returned.
        """
    ),
    code(
        """
        single = chapter_fixture()[:3]
        print(path_arrow(single))
        ledger_agreement_frame(
            single, [31, 13, 8], reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        """
    ),
    md(
        """
        ## After a compaction

        After `compact-1` (first kept `u2`), the ledger covers only the groups
        `build_context` considers: from `u2` on, with `u4, a4` as the newest group.
        The summary's 5 tokens are paid from the allowance but are not a row, so 17
        tokens are left for these groups and only `u4, a4` fits.
        """
    ),
    *exercise_cells(
        "transfer-q2",
        """
        ### Exercise transfer-q2 — which group number?

        On this path (`sys → u1 → … → a3 → compact-1 → u4 → a4`), what is the
        `group` number of the ledger row for `u4, a4`? The folded outputs below
        show the ledger (click the bar under each cell, or run it).
        """,
        "answer_q2 = ...",
    ),
    answer(
        """
        continued = chapter_fixture_after_compaction()
        ledger_frame(budget_ledger(continued, **budget, estimate_tokens=estimate))
        """
    ),
    reveal(
        """
        The groups are numbered within what `build_context` considers, from the
        first kept entry on: `u2, a2` is group 1 and `u4, a4` group 3, not 4.
        The notebooks' fixture tables number them the same way, and mark
        `u1, a1` as *summarised* (the next cell).
        """
    ),
    answer('styled_fixture_frame(continued, estimate, uuid="continued")'),
    md(
        """
        ## Your turn

        The ledger is yours to write. In the `practice/ch11/ledger.py` that
        `.venv/bin/course-lab practice 11` writes, `budget_ledger` is given: it asks
        `plan_budget` for the plan `build_context` follows and hands it to
        `ledger_from_plan`. The body of `ledger_from_plan` is a blank starter region,
        between `# --- Lab transfer budget ledger: begin ---` and
        `# --- Lab transfer: end ---`, that starts as `raise LabNotImplemented(...)`;
        its docstring lists the rules the checks hold you to. Replace the `raise`
        with your code. Do not copy the selection rules into it: read the plan,
        which your Labs 11.3 and 11.5 code builds (until your Lab 11.3 is written,
        the checks fail naming it).

        Check it: `.venv/bin/course-lab check transfer --impl practice/ch11`, which
        runs the same 3 checks as
        `.venv/bin/pytest tests/test_transfer.py --impl practice/ch11`; add
        `--extended` for the wider suite, `tests/test_ledger.py`. They are not part
        of the chapter's `15/15`.

        The next cell runs those checks from here when your practice package exists,
        then your ledger beside your `build_context` on a sweep of windows from 0 to
        60 tokens, and compares its statuses with the reference ledger's. Its
        output depends on your code, so it is not compared; the last cells run the
        reference: the same sweep, and the exercise's checks.
        """
    ),
    code(
        """
        # NBVAL_IGNORE_OUTPUT
        practice = Path("..") / "practice" / "ch11"
        if not practice.is_dir():
            print("{PRACTICE_HINT}")
        else:
            checked = run_lab_checks("transfer", impl=practice)
            print(checked.summary_line())
            display(checks_frame(checked))
            mine = load_practice_package(practice)
            sweep = {"reserved_output": 4, "safety_margin": 2}
            reference = ledger_agreement_frame(
                continued, range(0, 61, 5), **sweep, estimate_tokens=estimate
            )
            try:
                yours = ledger_agreement_frame(
                    mine.chapter_fixture_after_compaction(),
                    range(0, 61, 5),
                    **sweep,
                    estimate_tokens=mine.fixture_estimator(),
                    ledger_function=mine.budget_ledger,
                    build_function=mine.build_context,
                )
            except mine.LabNotImplemented as error:
                print(f"Not yet: {error}.")
            else:
                print("agrees with your build_context:", bool(yours["agree"].all()))
                print("same statuses as the reference:", yours["statuses"].equals(reference["statuses"]))
                display(yours)
        """.replace("{PRACTICE_HINT}", PRACTICE_HINT)
    ),
    md(
        """
        ## The reference ledger agrees with `build_context`

        For every window from 0 to 60 tokens, on the path after the compaction: the
        statuses of the groups (oldest first), the entries the ledger marks as sent,
        `build_context`'s reason, and whether the two agree.
        """
    ),
    code(
        """
        agreement = ledger_agreement_frame(
            continued, range(0, 61, 5), reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        print("all agree:", bool(agreement["agree"].all()))
        agreement
        """
    ),
    md(
        """
        ## The exercise's checks

        The checks `course-lab check transfer` runs, here against the reference
        `course_lib` (each in a fresh interpreter). Your practice package passes the
        exercise when its table looks like this one.
        """
    ),
    code(
        """
        report = run_lab_checks("transfer")
        print(report.summary_line())
        checks_frame(report)
        """
    ),
]
