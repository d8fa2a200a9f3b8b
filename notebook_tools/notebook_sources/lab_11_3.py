"""03 — Lab 11.3: the budget projection, whole groups newest first."""

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
        # Lab 11.3 — Budget projection over whole groups

        **Chapter section:** 「31 个 token 怎样留下第二、三组」

        **Goal.** `build_context` turns the active path into the messages of one
        model call. Fixed costs come first: the replayed system message, the room
        reserved for the answer, a safety margin. What is left is the message
        allowance, spent on whole interaction groups from the newest backwards. The
        history is never changed; the result is a fresh *context projection*.

        **Builds on.** Lab 11.2's `group_interactions`, and Chapter 3's system
        replay (`current_system_message`).

        **Checks.** `tests/test_lab_11_3.py` (3 checks).
        """
    ),
    code(
        """
        %matplotlib inline
        %config InlineBackend.figure_formats = ["png"]

        from pathlib import Path

        from IPython.display import display

        from course_lib import (
            MessageEntry,
            build_context,
            chapter_fixture,
            fixture_estimator,
            group_interactions,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import (
            checks_frame,
            deduction_frame,
            errors_frame,
            expected_failure,
            fixture_frame,
            group_budget_frame,
            messages_frame,
            projection_frame,
            setup_notebook,
            styled_fixture_frame,
        )
        from course_lib.views import BudgetExplorer, bar_frame

        setup_notebook()
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — fixed costs first

        The chapter's numbers: a window of 31 tokens, 4 reserved for the answer, a
        safety margin of 2. The system prompt is not an option: it is read from the
        path itself and priced like any message (3 tokens). Notice the last column:
        22 tokens are left for messages.
        """
    ),
    code(
        """
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        result = build_context(path, **budget, estimate_tokens=estimate)
        deduction_frame(result)
        """
    ),
    *exercise_cells(
        "11.3-q1",
        """
        ### Exercise 11.3-q1 — the allowance

        The same fixture with `max_tokens = 40`, `reserved_output = 8` and
        `safety_margin = 3`. What is `tokens.available_for_messages`? Work it out
        from the deduction table's rule, then check.
        """,
        "answer_q1 = ...",
    ),
    md(
        """
        ## Step 2 — whole groups, newest first

        Group 3 costs 15 and fits; adding group 2 makes exactly 22 and still fits;
        adding group 1 would make 29 > 22, so the selection stops at `u2`. This
        table only adds the running total a student computes by hand: the status
        column is not decided here but read from the budget's own plan, the one
        `build_context` follows (the transfer exercise builds its ledger on the
        same plan).
        """
    ),
    code("group_budget_frame(path, **budget, estimate_tokens=estimate)"),
    *exercise_cells(
        "11.3-q2",
        """
        ### Exercise 11.3-q2 — one token less

        With `max_tokens = 30` (still 4 reserved and a margin of 2), which entry
        is the first of `kept_entry_ids`? Give its id, e.g. `"x1"`.
        """,
        "answer_q2 = ...",
    ),
    md(
        """
        **Predict first.** Why groups at all? Suppose the budget simply kept the
        *last three messages* of the path. Which three entries would they be, and
        what would the model read first? Decide, then open the folded outputs of
        the next cells (click the bar under each, or run them).
        """
    ),
    answer(
        """
        message_entries = [entry for entry in path if isinstance(entry, MessageEntry)]
        last_three = message_entries[-3:]
        fixture_frame(last_three, estimate, groups=False)
        """
    ),
    reveal(
        """
        `r-test`, `r-read`, `a3`: the context would start with two tool results
        whose calls (in `calls`) are gone. `group_interactions` refuses such a
        slice at its very first entry: `r-test` is a tool result that comes before
        any user message, so no interaction is open that could hold it.
        """
    ),
    answer("expected_failure(lambda: group_interactions(last_three))"),
    md(
        """
        ## Step 3 — the result

        `messages` is `[system, ...kept messages]`, all deep copies. Notice that
        `sys` comes first but is not in `kept_entry_ids`: the replayed system message
        may be folded from several entries, so no single entry id stands for it.
        `u1` and `a1` are still in the session; they are only left out of this call.
        """
    ),
    code(
        """
        print("kept_entry_ids:", result.kept_entry_ids)
        print("reason:", result.reason)
        messages_frame(result, estimate)
        """
    ),
    md(
        """
        The token projection: `messages` is what the kept groups cost, and
        `total = system + messages + reserved_output + safety_margin`.
        """
    ),
    code("projection_frame(result.tokens)"),
    md(
        """
        ## Step 4 — a lone group that does not fit

        **Predict first.** With `max_tokens = 19` the allowance is 19 - 3 - 4 - 2 = 10,
        but the newest group alone costs 15. Will `build_context` cut group 3,
        return no conversation at all, or keep group 3 whole? Decide, then open the
        folded output of the next cell (click the bar under it, or run it).
        """
    ),
    answer(
        """
        squeezed = build_context(
            path, max_tokens=19, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        display(
            group_budget_frame(
                path, max_tokens=19, reserved_output=4, safety_margin=2, estimate_tokens=estimate
            )
        )
        print("available_for_messages:", squeezed.tokens.available_for_messages)
        print("kept_entry_ids:", squeezed.kept_entry_ids)
        print("reason:", squeezed.reason)
        print("total:", squeezed.tokens.total, "> max_tokens:", squeezed.tokens.max_tokens)
        """
    ),
    reveal(
        """
        Kept whole, with `reason = "single_group_overflow"`: the total may exceed
        `max_tokens`, because this function cannot safely remove a call, a result or
        the final answer from inside a group. A caller that sees this reason decides
        what to do next (summarise, shorten tool output, choose a larger model).
        """
    ),
    md(
        """
        ## Step 5 — no system message, fixed costs larger than the window, bad numbers

        Without a system message `tokens.system` is 0 and the allowance grows by 3:
        """
    ),
    code(
        """
        no_system = [entry for entry in chapter_fixture() if entry.id != "sys"]
        deduction_frame(build_context(no_system, **budget, estimate_tokens=estimate))
        """
    ),
    md(
        """
        The allowance never goes below 0:
        `available_for_messages = max(0, max_tokens - system - reserved_output - safety_margin)`.
        With `max_tokens = 8` the fixed costs (3 + 4 + 2 = 9) are more than the
        window: the allowance is 0, not -1, and the newest group is still
        returned whole, as an overflow.
        """
    ),
    code(
        """
        tiny = build_context(path, max_tokens=8, reserved_output=4, safety_margin=2, estimate_tokens=estimate)
        print("available_for_messages:", tiny.tokens.available_for_messages)
        print("reason:", tiny.reason)
        deduction_frame(tiny)
        """
    ),
    *exercise_cells(
        "11.3-q3",
        """
        ### Exercise 11.3-q3 — write the allowance

        Complete `allowance` so that it returns `available_for_messages` for a
        window of `max_tokens`, a replayed system message costing `system`, and the
        given `reserved_output` and `safety_margin`. The check compares it with
        `build_context` on several windows, some smaller than the fixed costs.
        """,
        """
        def allowance(max_tokens, system, reserved_output, safety_margin):
            return ...
        """,
        name="allowance",
    ),
    md(
        """
        The three budget numbers (`max_tokens`, `reserved_output`, `safety_margin`),
        and every value the estimator returns, must be finite and >= 0. The error
        names which number or which message is wrong:
        """
    ),
    code(
        """
        errors_frame(
            {
                "reserved_output -1": lambda: build_context(
                    path, max_tokens=31, reserved_output=-1, estimate_tokens=estimate
                ),
                "max_tokens infinity": lambda: build_context(
                    path, max_tokens=float("inf"), estimate_tokens=estimate
                ),
                "estimator returns NaN": lambda: build_context(
                    path, max_tokens=31, estimate_tokens=lambda message: float("nan")
                ),
            }
        )
        """
    ),
    md(
        """
        ## Step 6 — explore the budget

        Move the three sliders. The explorer recomputes `build_context` and its
        per-group plan on every change and shows the group table, the kept ids and the
        reason, and a bar of where the window goes (system, kept groups, reserved
        output, margin, unused), with the groups left out drawn beside it. Try
        `max_tokens` 40 (everything fits), 24 (only group 3) and 19 (overflow).
        """
    ),
    code(
        """
        explorer = BudgetExplorer(path, estimate, **budget)
        explorer
        """
    ),
    md(
        """
        The explorer's current state as plain tables (these are compared on every
        run; the sliders above are live only while the kernel runs):
        """
    ),
    code(
        """
        state = explorer.state()
        print("kept_entry_ids:", state.kept_entry_ids)
        print("reason:", state.reason)
        display(explorer.state_frame())
        bar_frame(state.bar)
        """
    ),
    md("The same bar as a picture (pictures are not compared; the table above is):"),
    code("explorer.figure()"),
    *your_turn_cells(
        "11.3",
        "the Lab 11.3 parts of `practice/ch11/budget.py`: `_select_newest_groups` "
        "(whole groups, newest first, the newest always kept) and the marked parts of "
        "`plan_budget` and `build_context` (check the numbers, replay and price the "
        "system message, deduct the fixed costs, assemble the result)",
    ),
    *checks_cells("11.3"),
]
