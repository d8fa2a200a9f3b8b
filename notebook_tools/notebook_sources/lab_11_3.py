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

TRANSLATED = True

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

        **Checks.** `tests/labs/test_lab_11_3.py` (3 checks).
        """,
        zh="""
        # 实验 11.3 — 以完整分组为单位的预算投影

        **本章小节：**「31 个 token 怎样留下第二、三组」

        **目标。** `build_context` 把活动路径变成一次模型调用的消息。先扣固定成本：重放出的
        system message、给回答预留的空间、安全余量。剩下的是消息额度，从最新一组向前，按完整
        的交互分组使用。历史从不改动；结果是一份新的*上下文投影*（context projection）。

        **基础。** 实验 11.2 的 `group_interactions`，以及第 3 章的 system 重放
        （`current_system_message`）。

        **检查。** `tests/labs/test_lab_11_3.py`（3 项检查）。
        """,
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
            answer_box,
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
            trimmer_comparison_frame,
        )
        from course_lib.views import BudgetExplorer, bar_frame

        setup_notebook(LANG)
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
        """,
        zh="""
        ## 第 1 步 — 先扣固定成本

        本章的数字：窗口 31 个 token，为回答预留 4，安全余量 2。system prompt 不是一个选项：
        它从路径本身读出，像任何消息一样计价（3 个 token）。注意最后一列：留给消息的还有
        22 个 token。
        """,
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
        zh="""
        ### 练习 11.3-q1 — 消息额度

        同一个 fixture，`max_tokens = 40`、`reserved_output = 8`、`safety_margin = 3`。
        `tokens.available_for_messages` 是多少？按扣除表的规则算出来，再检查。
        """,
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
        """,
        zh="""
        ## 第 2 步 — 完整分组，从最新开始

        第 3 组成本 15，放得下；加上第 2 组正好 22，仍然放得下；再加第 1 组会变成 29 > 22，
        于是选择停在 `u2`。这张表只是补上了学生手算的累计成本：状态列不是在这里判定的，
        而是读自预算本身的计划，也就是 `build_context` 所遵循的那一份（迁移练习的账本也
        建立在同一份计划上）。
        """,
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
        zh="""
        ### 练习 11.3-q2 — 少一个 token

        `max_tokens = 30`（仍然预留 4、安全余量 2）时，`kept_entry_ids` 的第一项是哪条
        entry？给出它的 id，例如 `"x1"`。
        """,
    ),
    md(
        """
        **Predict first.** Why groups at all? Suppose the budget simply kept the
        *last three messages* of the path. Which three entries would they be, and
        what would the model read first? Decide, then click
        *Show the answer* under each of the next cells.
        """,
        zh="""
        **先预测。** 为什么要分组？假设预算只保留路径上的*最后三条消息*。它们是哪三条
        entry，模型最先读到的又是什么？先决定，再点击接下来每个单元格下面的*显示答案*。
        """,
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
        """,
        zh="""
        `r-test`、`r-read`、`a3`：上下文会以两条 tool result 开头，而它们的 call（在
        `calls` 中）已经不在了。`group_interactions` 在这一段的第一条 entry 就拒绝了它：
        `r-test` 是一条出现在任何 user 消息之前的 tool result，没有已开启的交互能容纳它。
        """,
    ),
    answer("expected_failure(lambda: group_interactions(last_three))"),
    md(
        """
        ## Step 3 — the result

        `messages` is `[system, ...kept messages]`, all deep copies. Notice that
        `sys` comes first but is not in `kept_entry_ids`: the replayed system message
        may be folded from several entries, so no single entry id stands for it.
        `u1` and `a1` are still in the session; they are only left out of this call.
        """,
        zh="""
        ## 第 3 步 — 结果

        `messages` 是 `[system, ...kept messages]`，全部是深副本。注意 `sys` 排在最前面，
        却不在 `kept_entry_ids` 里：重放出的 system message 可能由好几条 entry 合成，没有一个
        entry id 能单独代表它。`u1` 和 `a1` 仍在 session 中，只是没有进入这次调用。
        """,
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
        """,
        zh="""
        token 投影：`messages` 是保留的分组的成本，而
        `total = system + messages + reserved_output + safety_margin`。
        """,
    ),
    code("projection_frame(result.tokens)"),
    md(
        """
        ## Step 4 — a lone group that does not fit

        **Predict first.** With `max_tokens = 19` the allowance is 19 - 3 - 4 - 2 = 10,
        but the newest group alone costs 15. Will `build_context` cut group 3,
        return no conversation at all, or keep group 3 whole? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 4 步 — 放不下的单独一组

        **先预测。** `max_tokens = 19` 时，消息额度是 19 - 3 - 4 - 2 = 10，但仅最新一组就
        需要 15。`build_context` 会把第 3 组剪短、完全不返回对话，还是完整保留第 3 组？先
        决定，再点击下一个单元格下面的*显示答案*。
        """,
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
        """,
        zh="""
        完整保留，并且 `reason = "single_group_overflow"`：总数可以超过 `max_tokens`，因为
        这个函数不能安全地从组内剪掉 call、result 或终态回答。看到这个 reason 的调用者再
        决定下一步（写摘要、缩短工具输出、换更大的模型）。
        """,
    ),
    md(
        """
        ## Step 5 — no system message, fixed costs larger than the window, bad numbers

        Without a system message `tokens.system` is 0 and the allowance grows by 3:
        """,
        zh="""
        ## 第 5 步 — 没有 system message、固定成本超过窗口、错误的数值

        没有 system message 时，`tokens.system` 为 0，消息额度增加 3：
        """,
    ),
    code(
        """
        no_system = [entry for entry in chapter_fixture(LANG) if entry.id != "sys"]
        deduction_frame(build_context(no_system, **budget, estimate_tokens=estimate))
        """
    ),
    md(
        """
        The allowance never goes below 0. With `max_tokens = 8` the fixed costs (3 + 4 + 2 = 9) are more than the
        window: the allowance is 0, not -1, and the newest group is still
        returned whole, as an overflow.
        """,
        zh="""
        消息额度永远不会低于 0。`max_tokens = 8` 时，固定成本（3 + 4 + 2 = 9）超过了窗口：额度是 0，而不是 -1，
        最新一组仍然作为超限情况被完整返回。
        """,
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
        zh="""
        ### 练习 11.3-q3 — 写出消息额度

        补全 `allowance`，让它返回 `available_for_messages`：窗口为 `max_tokens`，重放
        出的 system message 成本为 `system`，另有给定的 `reserved_output` 和
        `safety_margin`。检查会在几个窗口上把它与 `build_context` 比较，其中一些窗口
        比固定成本还小。
        """,
    ),
    md(
        """
        The three budget numbers (`max_tokens`, `reserved_output`, `safety_margin`),
        and every value the estimator returns, must be finite and >= 0. The error
        names which number or which message is wrong:
        """,
        zh="""
        三个预算数值（`max_tokens`、`reserved_output`、`safety_margin`）以及估算器返回的
        每个值，都必须是有限数且 >= 0。错误消息会指出是哪个数值或哪条消息有问题：
        """,
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
        """,
        zh="""
        ## 第 6 步 — 探索预算

        拖动三个滑块。每次改动，探索器都会重新计算 `build_context` 及其逐组计划，显示分组表、
        保留的 id 和 reason，以及窗口去向的条形图（system、保留的分组、预留输出、安全余量、
        未使用的部分），旁边是被留在外面的分组。试试 `max_tokens` 取 40（全部放得下）、
        24（只有第 3 组）和 19（超限）。
        """,
    ),
    code(
        """
        explorer = BudgetExplorer(path, estimate, **budget, lang=LANG)
        explorer
        """
    ),
    md(
        """
        The explorer's current state as plain tables (these are compared on every
        run; the sliders above are live only while the kernel runs):
        """,
        zh="""
        把探索器的当前状态写成普通的表格（每次运行都会比较；上面的滑块只在 kernel 运行时
        才能拖动）：
        """,
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
    md(
        "The same bar as a picture (pictures are not compared; the table above is):",
        zh="同一条形图的图片（图片不比较；上面的表格会比较）：",
    ),
    code("explorer.figure()"),
    md(
        """
        ## Step 7 — what a message-by-message trimmer does

        Other libraries trim a conversation one message at a time. LangChain's
        `trim_messages` (`strategy="last"`, `include_system=True`) keeps the newest
        messages whose total fits `max_tokens`; with `start_on="human"` it then
        drops messages until the first kept one is a user message. Below, it and
        `build_context` trim the same 200 random paths (chats, fixture-shaped turns
        and rounds of tool calls answered out of order; seed 20251203), each with a
        random budget between 10% and 90% of the path's cost, counted by the same
        chars/4 rule. Each count is a number of paths (out of 200):
        """,
        zh="""
        ## 第 7 步 — 逐条消息裁剪的做法

        别的库按单条消息裁剪对话。LangChain 的 `trim_messages`（`strategy="last"`、
        `include_system=True`）保留总和不超过 `max_tokens` 的最新消息；加上
        `start_on="human"` 时，它再丢掉开头的消息，直到第一条保留的是 user 消息。下面让它和
        `build_context` 裁剪同样的 200 条随机路径（闲聊、和开篇形状相同的轮次、乱序作答的
        多轮工具调用；种子 20251203），每条路径的预算随机取其成本的 10% 到 90%，用同一条
        chars/4 规则计数。每个数字都是路径的条数（共 200 条）：
        """,
    ),
    code("trimmer_comparison_frame()"),
    md(
        """
        Without `start_on`, a kept tool result whose call was cut off reaches the
        model: providers refuse such a request. With `start_on="human"` that cannot
        happen, but when the newest interaction alone is larger than the budget,
        `trim_messages` keeps only the system message (it never goes over
        `max_tokens`), and the model is sent no user turn at all. `build_context`
        keeps the newest group whole and says so with `reason =
        "single_group_overflow"`, so the caller decides (compact, shorten a tool
        result, pick a larger window). `make bench` prints the same table, and
        times both trimmers on the same messages.
        """,
        zh="""
        不加 `start_on` 时，一条工具结果被保留、而它的调用已被剪掉，这样的请求会到达模型：
        提供方会拒绝它。加上 `start_on="human"` 后不会再这样，但当最新的一次交互单独就超过
        预算时，`trim_messages` 只保留 system message（它从不超过 `max_tokens`），模型收到的
        请求里根本没有 user 轮次。`build_context` 完整保留最新一组，并用 `reason =
        "single_group_overflow"` 说明这一点，由调用者决定怎么办（压缩、缩短某个工具结果、
        换更大的窗口）。`make bench` 打印同一张表，并在同样的消息上给两种裁剪计时。
        """,
    ),
    *your_turn_cells(
        "11.3",
        "the six Lab 11.3 functions of `practice/ch11/budget.py`, in the order "
        "`plan_budget` calls them: `replay_system`, `group_costs`, `message_allowances`, "
        "`select_newest_groups` (whole groups, newest first, the newest always kept), "
        "`token_projection` and `context_from_plan`. Two of them already take "
        "`summary_tokens`: the chapter's own `buildContext` keeps a slot for the summary "
        "from the start (`fixedMessages`, 「留给后文的压缩摘要」). Until Lab 11.5 makes a "
        "summary it is 0; write the rule so that a summary's cost, when there is one, is paid "
        "from the allowance first and counted in `tokens.messages`. The three budget numbers "
        "reach you as one `Budget` value, which has already checked them (rule 1)",
        what_zh="`practice/ch11/budget.py` 中实验 11.3 的六个函数，按 `plan_budget` 调用它们的"
        "顺序：`replay_system`、`group_costs`、`message_allowances`、"
        "`select_newest_groups`（完整分组，从最新开始，最新一组总是保留）、`token_projection` "
        "和 `context_from_plan`。其中两个已经带有 `summary_tokens`：本章自己的 `buildContext` "
        "从一开始就给摘要留了位置（`fixedMessages`，「留给后文的压缩摘要」）。在实验 11.5 "
        "生成摘要之前它是 0；规则要写成：有摘要时，先从额度中支付它的成本，并计入 "
        "`tokens.messages`。三个预算数值以一个 `Budget` 值交给你，它已经检查过它们（规则 1）",
    ),
    *checks_cells("11.3"),
]
