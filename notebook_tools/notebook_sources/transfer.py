"""06 — the chapter's optional transfer exercise: a per-group budget ledger."""

from __future__ import annotations

from .cells import (
    Cell,
    Lesson,
    answer,
    code,
    exercise_cells,
    fixture_cells,
    key_points_cell,
    lesson_cell,
    md,
    reveal,
)

TRANSLATED = True

LESSON = Lesson(
    minutes=45,
    objectives=(
        "predict the ledger status (`kept`, `trimmed` or `overflow`) of every group for a "
        "given budget, by walking the groups newest first",
        "number the groups after a compaction the way the chapter does, and pay the summary's "
        "cost before any group",
        "explain why a ledger that reads `build_context`'s own plan cannot disagree with it",
        "write `ledger_from_plan` in your practice package and check it with "
        "`course-lab check transfer`",
    ),
    objectives_zh=(
        "对给定的预算，从最新一组起逐组向前走，预测每一组在账本中的状态（`kept`、`trimmed` "
        "或 `overflow`）",
        "按本章的方式给 compaction 之后的组编号，并在任何一组之前先付摘要的成本",
        "解释为什么读取 `build_context` 自己那份计划的账本不可能与它不一致",
        "在你的练习包里写出 `ledger_from_plan`，并用 `course-lab check transfer` 检查它",
    ),
    key_points=(
        "A group's status is what the budget did to it: `kept` when its entries are in "
        "`kept_entry_ids`, `trimmed` when they are left out, `overflow` when it is the newest "
        "group, returned whole although it alone exceeds the allowance (`single_group_overflow`).",
        "A ledger has at most one `overflow` row, the newest group's; a path with a single "
        "group is never `trimmed`.",
        "After a compaction the rows start at the group of the first kept entry and keep the "
        "chapter's numbers (groups 2, 3 and 4 after `compact-1`); the summary is paid first "
        "and is not a row.",
        "The ledger reads the plan `build_context` follows: it never re-decides a rule, so the "
        "two cannot disagree.",
    ),
    key_points_zh=(
        "一组的状态就是预算对它做了什么：它的 entries 在 `kept_entry_ids` 里时是 `kept`，"
        "被留在外面时是 `trimmed`；它是最新一组、单独就超过消息额度却仍被完整返回时是 "
        "`overflow`（`single_group_overflow`）。",
        "一本账本至多有一行 `overflow`，就是最新一组那一行；只有一组的路径永远不会是 `trimmed`。",
        "compaction 之后，账本从保留起点所在的组开始，并沿用本章的编号（`compact-1` 之后是"
        "第 2、3、4 组）；摘要先付，但不占一行。",
        "账本读取 `build_context` 所遵循的计划：它从不重新决定任何规则，所以两者不可能不一致。",
    ),
)

CELLS: list[Cell] = [
    md(
        """
        # Transfer exercise — a per-group budget ledger

        **Chapter section:** 「可选迁移练习」 (optional in the chapter; this workbook
        asks for it, but it is not a numbered lab, so its checks are not among the
        chapter's 15)

        **Goal.** `build_context` answers "what goes into this call?". A ledger
        answers "what happened to each group?": for the same path and budget
        options it reports every group's number, its entry ids, its token cost and
        a status, one of `kept`, `trimmed` and `overflow`. Which status a group gets
        is not written here: you predict it from the budget rules of Labs 11.3 and
        11.5, then compare with the ledger.

        The ledger must never re-decide the selection rules. `budget_ledger` reads
        the same plan `build_context` follows, so the two cannot disagree; Step 6
        checks that they do not.

        **Builds on.** Labs 11.2, 11.3 and 11.5.

        **Checks.** `tests/labs/test_transfer.py` (3 checks): `course-lab check transfer`.
        """,
        zh="""
        # 迁移练习 — 按组记账的预算账本

        **本章小节：**「可选迁移练习」（本章中是可选的；这本 workbook 要求完成它，但它
        不是编号实验，所以它的检查不计入本章的 15 项）

        **目标。** `build_context` 回答“这次调用放进什么？”。账本（ledger）回答“每一组
        怎么样了？”：对同样的路径和预算选项，它报告每一组的编号、entry id、token 成本和
        一个状态，状态是 `kept`、`trimmed`、`overflow` 三者之一。一组得到哪个状态，这里
        不写出来：你先根据实验 11.3 和 11.5 的预算规则预测，再与账本对照。

        账本绝不能重新决定选择规则。`budget_ledger` 读取的是 `build_context` 所遵循的
        同一份计划，所以两者不可能不一致；第 6 步会检查它们确实一致。

        **基础。** 实验 11.2、11.3 和 11.5。

        **检查。** `tests/labs/test_transfer.py`（3 项检查）：`course-lab check transfer`。
        """,
    ),
    lesson_cell(LESSON),
    code(
        """
        from IPython.display import display

        from course_lib import (
            budget_ledger,
            build_context,
            chapter_fixture,
            chapter_fixture_after_compaction,
            fixture_estimator,
            views,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import answer_box, styled_fixture_frame

        views.setup_notebook(LANG)
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — the chapter's budget, group by group

        The chapter's budget: `max_tokens = 31`, `reserved_output = 4`,
        `safety_margin = 2`. The ledger has one row per group, oldest first: its
        number, its entry ids, what it costs, and its status.

        **Predict first.** Which of the three words, `kept`, `trimmed` or
        `overflow`, does each of the fixture's three groups get? Write down three
        words, group 1 first, then click *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 1 步 — 本章的预算，逐组来看

        本章的预算：`max_tokens = 31`、`reserved_output = 4`、`safety_margin = 2`。账本
        每组一行，从最旧的一组开始：组的编号、它的 entry id、它的成本和它的状态。

        **先预测。** fixture 的三组各得到 `kept`、`trimmed`、`overflow` 中的哪一个？从
        第 1 组开始写下三个词，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        rows = budget_ledger(path, **budget, estimate_tokens=estimate)
        display(views.ledger_frame(rows))
        result = build_context(path, **budget, estimate_tokens=estimate)
        print("build_context keeps:", result.kept_entry_ids)
        print("reason:", result.reason)
        """,
        zh_strings={"build_context keeps:": "build_context 保留："},
    ),
    reveal(
        """
        Group 1 (`u1, a1`) is `trimmed`, groups 2 and 3 are `kept`: the 31 / 4 / 2
        result of Lab 11.3 (22 tokens for messages; 15 + 7 fit, + 7 more would make
        29). Set the two outputs side by side and the rule shows: a group is `kept`
        when its entries are in `build_context`'s `kept_entry_ids`, `trimmed` when
        they are not. The ledger decides nothing; it reports what the budget did to
        each group.
        """,
        zh="""
        第 1 组（`u1, a1`）是 `trimmed`，第 2、3 组是 `kept`：正是实验 11.3 中 31 / 4 / 2
        的结果（消息额度 22；15 + 7 放得下，再加 7 就是 29）。把两个输出并排看，规则就
        出来了：一组的 entries 在 `build_context` 的 `kept_entry_ids` 里，它就是 `kept`；
        不在，就是 `trimmed`。账本什么也不决定，它只报告预算对每一组做了什么。
        """,
    ),
    md(
        "The entries of the `kept` rows, read from the ledger, are exactly `kept_entry_ids`:",
        zh="账本中 `kept` 各行的 entries，正好就是 `build_context` 的 `kept_entry_ids`：",
    ),
    code(
        """
        from_ledger = [entry_id for row in rows if row.status == "kept" for entry_id in row.entry_ids]
        print("ledger:       ", from_ledger)
        print("build_context:", result.kept_entry_ids)
        print("agree:", from_ledger == result.kept_entry_ids)
        """,
        zh_strings={"ledger:       ": "账本：         ", "agree:": "两者一致："},
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
        ## Step 2 — the tool group against a small window

        With `max_tokens = 19` (still 4 reserved and a margin of 2) the allowance is
        19 − 3 − 4 − 2 = 10, and the newest group, the tool group, costs 15 by
        itself.

        **Predict first.** What are the three statuses now, oldest first, and what
        `reason` does `build_context` give? Decide, then click *Show the answer*
        under the next cell.
        """,
        zh="""
        ## 第 2 步 — 工具组遇上小窗口

        `max_tokens = 19` 时（仍是回答预留 4、安全余量 2），消息额度是
        19 − 3 − 4 − 2 = 10，而最新一组，也就是工具组，单独就要 15。

        **先预测。** 现在三组的状态从最旧的一组开始依次是什么？`build_context` 给出的
        `reason` 是什么？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        squeezed = {"max_tokens": 19, "reserved_output": 4, "safety_margin": 2}
        rows = budget_ledger(path, **squeezed, estimate_tokens=estimate)
        display(views.ledger_frame(rows))
        result = build_context(path, **squeezed, estimate_tokens=estimate)
        print("build_context keeps:", result.kept_entry_ids)
        print("reason:", result.reason)
        print("total:", result.tokens.total, "> max_tokens:", result.tokens.max_tokens)
        from_ledger = [entry_id for row in rows if row.status != "trimmed" for entry_id in row.entry_ids]
        print("groups not trimmed hold kept_entry_ids:", from_ledger == result.kept_entry_ids)
        """,
        zh_strings={
            "build_context keeps:": "build_context 保留：",
            "groups not trimmed hold kept_entry_ids:": "没有被裁掉的各组正好是 kept_entry_ids：",
        },
    ),
    reveal(
        """
        `trimmed`, `trimmed`, `overflow`, and the reason is
        `single_group_overflow`. The newest group is always returned whole (Lab
        11.3), even when it alone exceeds the allowance; the ledger marks it
        `overflow` rather than `kept`, so a reader sees at once that the total (24)
        is over `max_tokens` (19). An `overflow` group is in the context too: the
        entries of the groups that are not `trimmed` are exactly `kept_entry_ids`.
        """,
        zh="""
        `trimmed`、`trimmed`、`overflow`，`reason` 是 `single_group_overflow`。最新一组
        总会被完整返回（实验 11.3），即使它单独就超过消息额度；账本把它标为 `overflow`
        而不是 `kept`，读者一眼就能看出总数（24）超过了 `max_tokens`（19）。`overflow`
        的组同样在上下文中：不是 `trimmed` 的各组的 entries 正好就是 `kept_entry_ids`。
        """,
    ),
    md(
        """
        ### Exercise transfer-e1 — how many `overflow` rows?

        Can a ledger have two `overflow` rows, or an `overflow` row that is not the
        newest group? Say why in a sentence, then open the model answer.
        """,
        zh="""
        ### 练习 transfer-e1 — 有几行 `overflow`？

        一本账本能有两行 `overflow` 吗？能有一行不是最新一组的 `overflow` 吗？用一句话说明
        原因，再打开参考答案。
        """,
    ),
    reveal(
        """
        No to both. The walk starts at the newest group and always returns it; that
        group is `overflow` only when it alone does not fit, and then no older group
        fits beside it, so all of them are `trimmed`. An older group is kept only
        when it fits together with every newer one, so it is never over the
        allowance.
        """,
        zh="""
        两个都不能。选择从最新一组开始，并且总会返回它；只有它单独放不下时它才是
        `overflow`，这时更早的组都放不进来，全部是 `trimmed`。更早的组只有在与所有更新的组
        一起放得下时才会被保留，所以它永远不会超过消息额度。
        """,
    ),
    md(
        """
        ## Step 3 — a path with one group and no tools

        The path `sys → u1 → a1`: one group of two plain messages, 7 tokens. Three
        windows, each with 4 reserved and a margin of 2: `max_tokens` 31, 13 and 8,
        which leave 22, 4 and 0 tokens for messages (fixed costs larger than the
        window leave 0, never less).

        **Predict first.** Which status does the group get in each window? Is there
        a window in which it is `trimmed`? Decide, then click *Show the answer*
        under the next cell.
        """,
        zh="""
        ## 第 3 步 — 只有一组、没有工具的路径

        路径 `sys → u1 → a1`：一组，两条普通消息，7 个 token。三个窗口，都是回答预留 4、
        安全余量 2：`max_tokens` 为 31、13 和 8，留给消息的分别是 22、4 和 0（固定成本
        超过窗口时额度是 0，不会更少）。

        **先预测。** 在每个窗口下，这一组各得到什么状态？有没有哪个窗口让它成为
        `trimmed`？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        single = chapter_fixture(LANG)[:3]
        print(views.path_arrow(single))
        views.ledger_agreement_frame(
            single, [31, 13, 8], reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        """
    ),
    reveal(
        """
        `kept` at 31, `overflow` at 13 and at 8, never `trimmed`: the only group is
        also the newest, and the newest group is always returned. So `trimmed` needs
        at least two groups, and a one-group path's status only says whether it
        fits.
        """,
        zh="""
        31 时是 `kept`，13 和 8 时是 `overflow`，永远不会是 `trimmed`：唯一的一组同时也是
        最新一组，而最新一组总会被返回。所以 `trimmed` 至少需要两组；只有一组的路径，它的
        状态只说明它放不放得下。
        """,
    ),
    md(
        """
        ## Step 4 — the ledger after a compaction

        `compact-1` (first kept entry `u2`) was appended after `a3`, and the
        conversation went on with `u4, a4`: the path is now
        `sys → u1 → … → a3 → compact-1 → u4 → a4`, and nothing was deleted. The test
        estimator prices the summary message at 5 tokens (the chapter does not give
        this number; the workbook chose 5), and the summary is paid from the
        allowance before any group.

        **Predict first.** With the chapter's 31 / 4 / 2, which groups does the
        ledger list now, under which numbers, and which status does each get?
        Decide, then click *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 4 步 — compaction 之后的账本

        `compact-1`（保留起点为 `u2`）追加在 `a3` 之后，对话又继续了 `u4, a4`：现在的
        路径是 `sys → u1 → … → a3 → compact-1 → u4 → a4`，什么也没有删除。测试估算器
        给摘要消息定价 5 个 token（本章没有给出这个数；本工作簿选用 5），摘要在任何一组
        之前先从消息额度中扣除。

        **先预测。** 仍按本章的 31 / 4 / 2，账本现在列出哪些组、各是第几组、各得到什么
        状态？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        continued = chapter_fixture_after_compaction(LANG)
        display(styled_fixture_frame(continued, estimate, uuid="continued"))
        display(views.ledger_frame(budget_ledger(continued, **budget, estimate_tokens=estimate)))
        after = build_context(continued, **budget, estimate_tokens=estimate)
        print("u2 opens:", views.group_labels(continued)["u2"])
        print("kept_entry_ids:", after.kept_entry_ids)
        print("available_for_messages:", after.tokens.available_for_messages)
        print("tokens.messages:", after.tokens.messages)
        """,
        zh_strings={"u2 opens:": "u2 所在的组："},
    ),
    reveal(
        """
        Three rows: groups 2, 3 and 4. The chapter counts groups over the whole
        active path: 「firstKeptEntryId: "u2" 表示恢复时从第二组开始保留原消息」 (first
        kept `u2` means that restoring keeps the original messages from the second
        group on). So after `compact-1`, `u2, a2` is group 2, `u3 … a3` group 3 and
        the new `u4, a4` group 4. `u1, a1` get no row: the summary stands in for
        them, and the fixture table marks them *summarised*. The summary is not a
        row either, but it is paid first: the allowance is 22 as before, and the
        summary's 5 leave 17 for the groups. Group 4 (7) fits; adding group 3 (15)
        would make 22 > 17, so groups 2 and 3 are `trimmed` and only group 4 is
        `kept`. The chapter does not give these numbers; the workbook chose the
        summary's 5, so 22 → 17 and `tokens.messages` = 5 + 7 = 12.
        """,
        zh="""
        三行：第 2、3、4 组。本章在整条活动路径上给组编号：「firstKeptEntryId: "u2"
        表示恢复时从第二组开始保留原消息」。所以 `compact-1` 之后，`u2, a2` 是第 2 组，
        `u3 … a3` 是第 3 组，新的 `u4, a4` 是第 4 组。`u1, a1` 没有行：摘要代替了它们，
        fixture 表格把它们标为 *summarised*。摘要也不占一行，但它先付：消息额度和之前一样
        是 22，扣掉摘要的 5 之后，留给各组的是 17。第 4 组（7）放得下；再加第 3 组（15）
        就是 22 > 17，所以第 2、3 组是 `trimmed`，只有第 4 组是 `kept`。本章没有给出这些
        数；本工作簿选用摘要成本 5，于是 22 → 17，`tokens.messages` = 5 + 7 = 12。
        """,
    ),
    *exercise_cells(
        "transfer-q2",
        """
        ### Exercise transfer-q2 — a larger window after the compaction

        On the same path (after `compact-1`, `u4`, `a4`), with `max_tokens = 38`
        (still 4 reserved and a margin of 2): which groups does the ledger keep,
        that is, which rows are not `trimmed`? Answer with their group numbers as
        the chapter counts them, oldest first, e.g. `[1, 2]`.
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 transfer-q2 — compaction 之后更大的窗口

        在同一条路径上（`compact-1`、`u4`、`a4` 之后），`max_tokens = 38`（仍是回答预留
        4、安全余量 2）：账本保留了哪些组，也就是哪些行不是 `trimmed`？按本章的编号写出
        它们的组号，从最旧的开始，例如 `[1, 2]`。
        """,
    ),
    answer(
        """
        wider = {"max_tokens": 38, "reserved_output": 4, "safety_margin": 2}
        display(views.ledger_frame(budget_ledger(continued, **wider, estimate_tokens=estimate)))
        print("available_for_messages:", build_context(continued, **wider, estimate_tokens=estimate).tokens.available_for_messages)
        """
    ),
    reveal(
        """
        `[3, 4]`. The allowance is 38 − 3 − 4 − 2 = 29, and the summary's 5 leave
        24 for the groups. Newest first: group 4 (7) fits, 7 + group 3 (15) = 22
        fits, 22 + group 2 (7) = 29 does not, so the walk stops at `u3`. The numbers
        are the chapter's, counted over the whole active path: `u2` opens group 2,
        so the groups kept are 3 and 4.
        """,
        zh="""
        `[3, 4]`。消息额度是 38 − 3 − 4 − 2 = 29，扣掉摘要的 5 之后，留给各组的是 24。
        从最新一组起：第 4 组（7）放得下，7 + 第 3 组（15）= 22 放得下，22 + 第 2 组（7）
        = 29 放不下，所以选择停在 `u3`。编号是本章的编号，在整条活动路径上计数：`u2`
        开启第 2 组，所以保留的是第 3、4 组。
        """,
    ),
    md(
        """
        ## Step 5 — your turn: write the ledger

        In the `practice/ch11/ledger.py` that `.venv/bin/course-lab practice 11`
        writes, `budget_ledger` is given: it asks `plan_budget` for the plan
        `build_context` follows and hands it to `ledger_from_plan`. The body of
        `ledger_from_plan` is a blank starter region, between
        `# --- Lab transfer budget ledger: begin ---` and
        `# --- Lab transfer: end ---`, that starts as `raise LabNotImplemented(...)`.
        Its docstring says where each row's number and cost come from, and that its
        status must agree with what `context_from_plan` keeps of the same plan;
        which fields of the plan decide the status is yours to find (Steps 1–4
        showed you the rule). Replace the `raise` with your code, reading the plan,
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
        ## 第 5 步 — 轮到你了：写出账本

        在 `.venv/bin/course-lab practice 11 --lang zh` 写出的 `practice/ch11/ledger.py`
        中，`budget_ledger` 已经给出：它向 `plan_budget` 要 `build_context` 所遵循的计划，
        再把计划交给 `ledger_from_plan`。`ledger_from_plan` 的函数体是一段空白的起始区域，
        位于 `# --- Lab transfer budget ledger: begin ---` 和 `# --- Lab transfer: end ---`
        之间，开始时是 `raise LabNotImplemented(...)`。它的 docstring 说明每一行的编号和成本
        从哪里来，以及状态必须与 `context_from_plan` 从同一份计划中保留的内容一致；计划里
        哪些字段决定状态，由你自己找出来（第 1 到 4 步已经让你看到了规则）。把 `raise` 换成
        你的代码，读取计划即可，计划由你在实验 11.3 和 11.5 写的代码构建（在你的实验 11.3
        写好之前，检查会失败并指出它）。

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
        from pathlib import Path

        from course_lib.judge.practice import load_practice_package
        from course_lib.views import practice_hint, workbook_root

        practice = Path(workbook_root(), "practice", "ch11")
        if not practice.is_dir():
            print(practice_hint(LANG))
        else:
            checked = run_lab_checks("transfer", impl=practice)
            print(checked.summary_line(LANG))
            display(views.checks_frame(checked, LANG))
            mine = load_practice_package(practice)
            sweep = {"reserved_output": 4, "safety_margin": 2}
            reference = views.ledger_agreement_frame(
                continued, range(0, 61, 5), **sweep, estimate_tokens=estimate
            )
            try:
                yours = views.ledger_agreement_frame(
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
        """,
        zh_strings={
            "Not yet: {error}.": "还没有完成：{error}。",
            "agrees with your build_context:": "与你的 build_context 一致：",
            "same statuses as the reference:": "状态与参考实现相同：",
        },
    ),
    md(
        """
        ## Step 6 — the reference ledger beside `build_context`

        For every window from 0 to 60 tokens, on the path after the compaction: the
        statuses of groups 2, 3 and 4 (oldest first), the entries of the groups
        that are not `trimmed`, `build_context`'s reason, and whether the two
        agree.
        """,
        zh="""
        ## 第 6 步 — 参考账本与 `build_context` 对照

        在 compaction 之后的路径上，对 0 到 60 个 token 的每个窗口：第 2、3、4 组的状态
        （从最旧的一组开始）、不是 `trimmed` 的各组的 entries、`build_context` 的 reason，
        以及两者是否一致。
        """,
    ),
    code(
        """
        agreement = views.ledger_agreement_frame(
            continued, range(0, 61, 5), reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        print("all agree:", bool(agreement["agree"].all()))
        agreement
        """,
        zh_strings={"all agree:": "全部一致："},
    ),
    md(
        """
        ### Exercise transfer-e2 — why read the plan?

        Why must the ledger read the plan `build_context` follows instead of
        walking the groups with its own copy of the budget rules? Say it in a
        sentence, then open the model answer.
        """,
        zh="""
        ### 练习 transfer-e2 — 为什么要读取计划？

        为什么账本必须读取 `build_context` 所遵循的计划，而不是用自己的一份预算规则副本
        去逐组计算？用一句话说明，再打开参考答案。
        """,
    ),
    reveal(
        """
        A second copy of the rules can drift from the first (forget the summary's
        cost, or the rule that the newest group is always returned), and then the
        ledger would explain a context that was never built; reading the one plan
        both of them follow makes a disagreement impossible.
        """,
        zh="""
        规则的第二份副本可能与第一份走样（忘了摘要的成本，或忘了最新一组总会被返回），
        那样账本解释的就是一份从未构建过的上下文；两者读取同一份计划，就不可能不一致。
        """,
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
        views.checks_frame(report, LANG)
        """
    ),
    key_points_cell(LESSON),
]
