"""06 — the chapter's optional transfer exercise: a per-group budget ledger."""

from __future__ import annotations

from .cells import Cell, answer, code, exercise_cells, fixture_cells, md, reveal

TRANSLATED = True

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

        **Checks.** `tests/labs/test_transfer.py` (3 checks): `course-lab check transfer`.
        """,
        zh="""
        # 迁移练习 — 按组记账的预算账本

        **本章小节：**「可选迁移练习」（本章中是可选的；这本 workbook 要求完成它，但它
        不是编号实验，所以它的检查不计入本章的 15 项）

        **目标。** `build_context` 回答“这次调用放进什么？”。账本（ledger）回答“每一组
        发生了什么，为什么？”：对同样的路径和选项，它报告每一组的 entry id、token 成本
        和一个状态：

        * `kept`：这一组在上下文中；
        * `trimmed`：这一组放不下，被留在外面；
        * `overflow`：最新一组单独也放不下，但仍被完整保留（这时上下文投影的 reason
          是 `single_group_overflow`）。

        账本绝不能重新决定选择规则。`budget_ledger` 读取的是 `build_context` 所遵循的
        同一份计划，所以两者不可能不一致；最后一步会检查它们确实一致。

        **基础。** 实验 11.2、11.3 和 11.5。

        **检查。** `tests/labs/test_transfer.py`（3 项检查）：`course-lab check transfer`。
        """,
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
            answer_box,
            checks_frame,
            ledger_agreement_frame,
            ledger_frame,
            path_arrow,
            setup_notebook,
            styled_fixture_frame,
            practice_hint,
            workbook_root,
        )
        from course_lib.track.practice import load_practice_package

        setup_notebook(LANG)
        """
    ),
    *fixture_cells(),
    md(
        """
        ## The fixture with the chapter's budget

        One row per group, oldest first. Group 1 is trimmed, groups 2 and 3 are kept,
        exactly the 31 / 4 / 2 result of Lab 11.3:
        """,
        zh="""
        ## 本章预算下的 fixture

        每组一行，从最旧的一组开始。第 1 组被裁掉（`trimmed`），第 2、3 组保留，正是
        实验 11.3 中 31 / 4 / 2 的结果：
        """,
    ),
    code(
        """
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        ledger_frame(budget_ledger(path, **budget, estimate_tokens=estimate))
        """
    ),
    md(
        "The ledger's kept entries are exactly `build_context`'s `kept_entry_ids`:",
        zh="账本中发送的 entries 与 `build_context` 的 `kept_entry_ids` 完全相同：",
    ),
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
        zh="""
        ### 练习 transfer-q1 — 更小窗口下的账本

        `max_tokens = 26` 时（仍是回答预留 4、安全余量 2），fixture 三组的状态从最旧的
        一组开始依次是什么？用状态的列表作答，例如 `["kept", "kept", "kept"]`。
        """,
    ),
    md(
        """
        ## The newest tool group overflowing

        With `max_tokens = 19` the allowance is 10 and the tool group alone costs 15:
        it is kept whole and marked `overflow`; the two older groups are trimmed.
        """,
        zh="""
        ## 最新的工具组超限

        `max_tokens = 19` 时消息额度是 10，而工具组单独就要 15：它被完整保留并标为
        `overflow`；较早的两组被裁掉。
        """,
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
        """,
        zh="""
        ## 没有工具的单独一组

        路径 `sys → u1 → a1`：一组，两条普通消息（7 个 token）。放得下时它是 `kept`，
        放不下时是 `overflow`；它永远不会是 `trimmed`，因为最新一组总会被返回。
        """,
    ),
    code(
        """
        single = chapter_fixture(LANG)[:3]
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
        """,
        zh="""
        ## compaction 之后

        追加 `compact-1`（first kept 为 `u2`）之后，账本只覆盖 `build_context` 考虑的
        那些组：从 `u2` 开始，最新一组是 `u4, a4`。摘要的 5 个 token 从消息额度中扣除，
        但不占一行，所以留给这些组的只有 17 个 token，只放得下 `u4, a4`。
        """,
    ),
    *exercise_cells(
        "transfer-q2",
        """
        ### Exercise transfer-q2 — which group number?

        On this path (`sys → u1 → … → a3 → compact-1 → u4 → a4`), what is the
        `group` number of the ledger row for `u4, a4`? *Show the answer* under
        the cells below shows the ledger.
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 transfer-q2 — 第几组？

        在这条路径上（`sys → u1 → … → a3 → compact-1 → u4 → a4`），账本中 `u4, a4`
        那一行的 `group` 编号是多少？下面每个单元格的*显示答案*显示了账本。
        """,
    ),
    answer(
        """
        continued = chapter_fixture_after_compaction(LANG)
        ledger_frame(budget_ledger(continued, **budget, estimate_tokens=estimate))
        """
    ),
    reveal(
        """
        The groups are numbered within what `build_context` considers, from the
        first kept entry on: `u2, a2` is group 1 and `u4, a4` group 3, not 4.
        The notebooks' fixture tables number them the same way, and mark
        `u1, a1` as *summarised* (the next cell).
        """,
        zh="""
        分组在 `build_context` 考虑的范围内、从 first kept entry 起编号：`u2, a2` 是
        第 1 组，`u4, a4` 是第 3 组，而不是第 4 组。notebook 里的 fixture 表格也这样
        编号，并把 `u1, a1` 标为 `summarised`（下一个单元格）。
        """,
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
        `.venv/bin/pytest tests/labs/test_transfer.py --impl practice/ch11`; add
        `--extended` for the wider suite, `tests/chapter/test_ledger.py`. They are not part
        of the chapter's `15/15`.

        The next cell runs those checks from here when your practice package exists,
        then your ledger beside your `build_context` on a sweep of windows from 0 to
        60 tokens, and compares its statuses with the reference ledger's. Its
        output depends on your code, so it is not compared; the last cells run the
        reference: the same sweep, and the exercise's checks.
        """,
        zh="""
        ## 轮到你了

        账本由你来写。在 `.venv/bin/course-lab practice 11 --lang zh` 写出的
        `practice/ch11/ledger.py` 中，`budget_ledger` 已经给出：它向 `plan_budget` 要
        `build_context` 所遵循的计划，再把计划交给 `ledger_from_plan`。
        `ledger_from_plan` 的函数体是一段空白的起始区域，位于
        `# --- Lab transfer budget ledger: begin ---` 和 `# --- Lab transfer: end ---`
        之间，开始时是 `raise LabNotImplemented(...)`；它的 docstring 列出了检查要求你
        遵守的规则。把 `raise` 换成你的代码。不要把选择规则抄进去：读取计划即可，计划
        由你在实验 11.3 和 11.5 写的代码构建（在你的实验 11.3 写好之前，检查会失败并
        指出它）。

        检查：`.venv/bin/course-lab check transfer --impl practice/ch11`，它运行的 3 项
        检查与 `.venv/bin/pytest tests/labs/test_transfer.py --impl practice/ch11` 相同；加上
        `--extended` 可以运行范围更广的 `tests/chapter/test_ledger.py`。它们不计入本章的
        `15/15`。

        你的练习包存在时，下一个单元格就在这里运行这些检查，然后在 0 到 60 个 token 的
        一系列窗口上把你的账本与你的 `build_context` 对照，并把它的状态与参考账本比较。
        它的输出取决于你的代码，所以不与存储的 notebook 比较；最后几个单元格运行参考
        实现：同样的一系列窗口，以及本练习的检查。
        """,
    ),
    code(
        """
        # NBVAL_IGNORE_OUTPUT
        practice = Path(workbook_root(), "practice", "ch11")
        if not practice.is_dir():
            print(practice_hint(LANG))
        else:
            checked = run_lab_checks("transfer", impl=practice)
            print(checked.summary_line(LANG))
            display(checks_frame(checked, LANG))
            mine = load_practice_package(practice)
            sweep = {"reserved_output": 4, "safety_margin": 2}
            reference = ledger_agreement_frame(
                continued, range(0, 61, 5), **sweep, estimate_tokens=estimate
            )
            try:
                yours = ledger_agreement_frame(
                    mine.chapter_fixture_after_compaction(LANG),
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
        """
    ),
    md(
        """
        ## The reference ledger agrees with `build_context`

        For every window from 0 to 60 tokens, on the path after the compaction: the
        statuses of the groups (oldest first), the entries the ledger marks as sent,
        `build_context`'s reason, and whether the two agree.
        """,
        zh="""
        ## 参考账本与 `build_context` 一致

        在 compaction 之后的路径上，对 0 到 60 个 token 的每个窗口：各组的状态（从最旧的
        一组开始）、账本标为发送的 entries、`build_context` 的 reason，以及两者是否一致。
        """,
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
        """,
        zh="""
        ## 本练习的检查

        `course-lab check transfer` 运行的检查，这里针对参考实现 `course_lib` 运行（每项
        在一个新的解释器中）。你的练习包的表格和这一张一样时，就通过了本练习。
        """,
    ),
    code(
        """
        report = run_lab_checks("transfer")
        print(report.summary_line(LANG))
        checks_frame(report, LANG)
        """
    ),
]
