"""05b — Lab 11.5, part 2: compacting again, and system state across the compaction boundary."""

from __future__ import annotations

from .cells import (
    Cell,
    Lesson,
    answer,
    checks_cells,
    code,
    exercise_cells,
    key_points_cell,
    lesson_cell,
    md,
    reveal,
    your_turn_cells,
)

TRANSLATED = True

LESSON = Lesson(
    minutes=55,
    objectives=(
        "work out what the model reads after a second compaction: which summary, and "
        "which entries from its first kept entry on",
        "explain in a sentence why an older summary is never sent",
        "work out the replayed system message of a path whose system messages lie on "
        "both sides of a compaction",
        "implement `newest_compaction`, `restored_suffix`, `render_summary` and "
        "`summary_message`, and pass the lab's 4 checks",
    ),
    objectives_zh=(
        "算出第二次压缩之后模型读到什么：哪一份摘要，以及从它的保留起点开始的哪些 entries",
        "用一句话说明为什么更早的摘要永远不会发送",
        "算出 system message 分布在 compaction 两侧的路径重放出的 system message",
        "实现 `newest_compaction`、`restored_suffix`、`render_summary` 和 `summary_message`，"
        "并通过本实验的 4 项检查",
    ),
    key_points=(
        "A second compaction is made by the same function and appended at the leaf; the "
        "groups keep their numbers (`u3 … a3` is still group 3, `u4, a4` group 4).",
        "Only the newest compaction is read: one summary, and the entries before its first "
        "kept entry are not sent, even when there is room for them.",
        "System state is replayed from the whole active path, across the compaction "
        "boundary; a compaction stores no prompt, and a system message is never a cut point.",
        "A first kept entry that is not a user message before the compaction stops the "
        "restore with a `CompactionError`.",
    ),
    key_points_zh=(
        "第二次 compaction 由同一个函数创建，追加在 leaf 后面；分组保持原来的编号"
        "（`u3 … a3` 仍是第 3 组，`u4, a4` 是第 4 组）。",
        "只读取最新的 compaction：一份摘要；它的保留起点之前的 entries 不会发送，即使还有空间。",
        "system 状态从整条活动路径重放，跨过 compaction 边界；compaction 不保存 prompt，"
        "system message 也永远不能成为切点。",
        "保留起点若不是 compaction 之前的一条 user 消息，恢复就以 `CompactionError` 停下。",
    ),
)

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.5, part 2 — Compacting again; system state across the boundary

        **Chapter sections:** 「恢复时把最新摘要接在保留后缀前面」 (its second half)
        and 「system 状态跨过 compaction 边界」

        **Goal.** A second compaction is made and appended like the first. Then two
        questions: when the path holds two compactions, what does the model read?
        And system state is part of no compaction, so where does the model's system
        message come from once a compaction boundary lies between its parts?

        **Builds on.** Part 1 (restoring from `compact-1`), Lab 11.4's
        `create_compaction_entry`, Lab 11.3's system replay.

        **Checks.** `tests/labs/test_lab_11_5.py` (4 checks), at the end of this notebook.
        """,
        zh="""
        # 实验 11.5（下）— 再次压缩；跨过边界的 system 状态

        **本章小节：**「恢复时把最新摘要接在保留后缀前面」（后半部分）
        和「system 状态跨过 compaction 边界」

        **目标。** 创建第二次 compaction，也像第一次一样追加。接着回答两个问题：路径上有
        两条 compaction 时，模型读到什么？system 状态不属于任何 compaction，那么当它的
        几部分之间隔着一条 compaction 边界时，模型看到的 system message 从哪里来？

        **基础。** 实验 11.5（上）（从 `compact-1` 恢复），实验 11.4 的
        `create_compaction_entry`，实验 11.3 的 system 重放。

        **检查。** `tests/labs/test_lab_11_5.py`（4 项检查），在本 notebook 末尾。
        """,
    ),
    lesson_cell(LESSON),
    code(
        """
        %matplotlib inline
        %config InlineBackend.figure_formats = ["png"]

        from pathlib import Path

        from IPython.display import display

        from course_lib import build_context, chapter_fixture_after_compaction, fixture_estimator, views
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import answer_box, checks_frame, setup_notebook, summary_labels

        setup_notebook(LANG)
        """
    ),
    md(
        """
        ## Where part 1 ended

        The fixture, `compact-1` (first kept `u2`), then `u4, a4`. The `group`
        column counts groups over the whole active path, as the chapter does:
        `u1, a1` are summarised, `u2, a2` is group 2, `u3 … a3` group 3 and
        `u4, a4` group 4. `labels` are this edition's summary labels: every
        `build_context` call below passes them.
        """,
        zh="""
        ## 上一部分结束时的状态

        fixture、`compact-1`（保留起点是 `u2`），然后是 `u4, a4`。`group` 列像本章一样在
        整条活动路径上给分组计数：`u1, a1` 已被摘要替代，`u2, a2` 是第 2 组，`u3 … a3`
        是第 3 组，`u4, a4` 是第 4 组。`labels` 是本版本的摘要标签：下面每次调用
        `build_context` 都传入它们。
        """,
    ),
    code(
        """
        estimate = fixture_estimator()
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        labels = summary_labels(LANG)
        continued = chapter_fixture_after_compaction(LANG)
        print(views.path_arrow(continued))
        views.styled_fixture_frame(continued, estimate, uuid="continued")
        """
    ),
    md(
        """
        ## Step 1 — compacting again

        The chapter: 「第二次 compaction 使用同一个创建函数。假设 compact-2 保留 u3，它会
        追加在当时的 leaf 后面」 (a second compaction uses the same function; if
        `compact-2` keeps `u3`, it is appended after the leaf of that moment). Its
        summary (written by a model in a real agent) now also covers `u2, a2`.

        `tokens_before` is the caller's record of what the messages cost with nothing
        trimmed. The chapter does not give this number; the workbook chose
        `compact-1`'s summary (5) plus every group from `u2` on (7 + 15 + 7) = 34.
        """,
        zh="""
        ## 第 1 步 — 再次压缩

        本章：「第二次 compaction 使用同一个创建函数。假设 compact-2 保留 u3，它会追加在
        当时的 leaf 后面」。它的摘要（真实的 agent 中由模型写出）现在也涵盖 `u2, a2`。

        `tokens_before` 是调用者自己记录的不裁剪时消息的成本。本章没有给出这个数；本工作簿
        选用 `compact-1` 的摘要（5）加上从 `u2` 开始的每一组（7 + 15 + 7），即 34。
        """,
    ),
    code(
        """
        from course_lib import create_compaction_entry
        from course_lib.views import entry_fields_frame, second_summary, untrimmed_message_tokens

        compact_2 = create_compaction_entry(
            continued,
            id="compact-2",
            timestamp=200,
            summary=second_summary(LANG),
            first_kept_entry_id="u3",
            tokens_before=untrimmed_message_tokens(continued, estimate),
        )
        twice = [*continued, compact_2]
        print(views.path_arrow(twice))
        entry_fields_frame(compact_2)
        """
    ),
    md(
        """
        `parentId` is `a4`, the leaf when it was created, and nothing before it
        changed. The explorer further down walks the chapter's four moments (no
        compaction, `compact-1`, `u4, a4`, `compact-2`); its `steps` are made with
        the same calls (`compaction_steps`), so its last path is this one:
        """,
        zh="""
        `parentId` 是 `a4`，即创建时的 leaf，它之前的内容都没有变化。后面的探索器依次展示
        本章的四个时刻（没有 compaction、`compact-1`、`u4, a4`、`compact-2`）；它的
        `steps` 用同样的调用创建，所以它的最后一条路径就是这一条：
        """,
    ),
    code("views.CompactionExplorer(estimate, lang=LANG).steps[-1].path == twice"),
    md(
        """
        **Predict first.** The path now holds two compactions. Take a roomy window,
        `max_tokens = 50` (4 reserved, a margin of 2). Which entry ids does
        `kept_entry_ids` list, and what is `tokens.messages`? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** 现在路径上有两条 compaction。取一个宽裕的窗口，`max_tokens = 50`
        （预留 4、安全余量 2）。`kept_entry_ids` 列出哪些 entry id？`tokens.messages`
        是多少？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        roomy = build_context(
            twice,
            max_tokens=50,
            reserved_output=4,
            safety_margin=2,
            estimate_tokens=estimate,
            summary_labels=labels,
        )
        print("kept_entry_ids:", roomy.kept_entry_ids, "| reason:", roomy.reason)
        print("tokens.messages:", roomy.tokens.messages)
        views.messages_frame(roomy, estimate)
        """
    ),
    reveal(
        """
        `u3, calls, r-test, r-read, a3, u4, a4`, reason `within_budget`, and
        `tokens.messages` is 27: one summary (5) plus groups 3 and 4 (15 + 7). The
        chapter: 「路径中若已经有 compact-2，恢复只读取它。compact-1 及更早消息仍在
        session 中，但不会再生成第二份摘要消息」 (with `compact-2` on the path,
        restoring reads only it; `compact-1` and the earlier messages stay in the
        session, but no second summary message is made). Collecting starts at
        `compact-2`'s first kept entry `u3`, so `u2, a2` are not sent, although the
        window has room for them (41 − 5 − 22 = 14 tokens free, and they cost 7):
        `compact-2`'s summary stands in for them now.
        """,
        zh="""
        `u3, calls, r-test, r-read, a3, u4, a4`，reason 是 `within_budget`，
        `tokens.messages` 是 27：一条摘要（5）加上第 3、4 组（15 + 7）。本章：「路径中若
        已经有 compact-2，恢复只读取它。compact-1 及更早消息仍在 session 中，但不会再生成
        第二份摘要消息」。收集从 `compact-2` 的保留起点 `u3` 开始，所以 `u2, a2` 不会发送，
        尽管窗口放得下它们（41 − 5 − 22 = 14 个 token 空闲，而它们只要 7）：现在由
        `compact-2` 的摘要代替它们。
        """,
    ),
    md(
        """
        The summary the model reads is `compact-2`'s, with this edition's labels, and
        `compact-1` is still on the path:
        """,
        zh="模型读到的是 `compact-2` 的摘要，用本版本的标签；而 `compact-1` 仍在路径上：",
    ),
    code(
        """
        from course_lib import render_summary, text_of

        summary_text = text_of(roomy.messages[1])
        print("compact-2's summary:", summary_text == render_summary(compact_2.summary, labels))
        print("compact-1 still on the path:", any(entry.id == "compact-1" for entry in twice))
        print(summary_text)
        """,
        zh_strings={
            "compact-2's summary:": "compact-2 的摘要：",
            "compact-1 still on the path:": "compact-1 仍在路径上：",
        },
    ),
    md(
        """
        ### Exercise 11.5-e1 — why only the newest summary?

        `compact-1`'s summary is still in the session, and a window could have room
        for it. In one sentence: why does `build_context` send `compact-2`'s summary
        alone, and never `compact-1`'s as well? Write your sentence, then open the
        model answer.
        """,
        zh="""
        ### 练习 11.5-e1 — 为什么只发送最新的摘要？

        `compact-1` 的摘要仍在 session 中，窗口也可能放得下它。用一句话回答：为什么
        `build_context` 只发送 `compact-2` 的摘要，而从不同时发送 `compact-1` 的？先写下
        你的句子，再打开参考答案。
        """,
    ),
    reveal(
        """
        The newest summary already carries the earlier facts forward, so sending
        both would repeat content and could set an old decision against a newer one.
        The chapter: 「最新摘要负责接续此前事实；把所有摘要同时放入模型窗口会重复内容，
        也可能让旧决策和新决策互相冲突」. The next cell shows the carrying forward:
        what `compact-1` recorded as completed is in `compact-2`'s summary too.
        """,
        zh="""
        最新的摘要已经接续了此前的事实，所以两份都发送会重复内容，也可能让旧决策和新决策
        互相冲突。本章：「最新摘要负责接续此前事实；把所有摘要同时放入模型窗口会重复内容，
        也可能让旧决策和新决策互相冲突」。下一个单元格显示这种接续：`compact-1` 记录为
        已完成的内容，`compact-2` 的摘要里也有。
        """,
    ),
    code(
        """
        compact_1 = continued[10]
        print("compact-1 completed:", compact_1.summary.completed)
        print("compact-2 completed:", compact_2.summary.completed)
        print("carried forward:", set(compact_1.summary.completed) <= set(compact_2.summary.completed))
        """,
        zh_strings={
            "compact-1 completed:": "compact-1 的 completed：",
            "compact-2 completed:": "compact-2 的 completed：",
            "carried forward:": "已接续：",
        },
    ),
    md(
        """
        ## The budget after `compact-2`

        The chapter: 「后续 buildContext() 先读取 compact-2，再从 u3 收集原消息。预算选择
        仍从最新组向前进行，工具组仍不会被拆开」 (the next build reads `compact-2`,
        collects from `u3`; the selection still goes newest group first, and a tool
        group is never split). The groups keep their numbers: `u1 … a2` are now
        summarised, `u3 … a3` is still group 3 and `u4, a4` group 4. A later
        compaction moves where the kept part starts; it does not renumber the groups.
        With the chapter's 31 / 4 / 2:
        """,
        zh="""
        ## `compact-2` 之后的预算

        本章：「后续 buildContext() 先读取 compact-2，再从 u3 收集原消息。预算选择仍从
        最新组向前进行，工具组仍不会被拆开」。分组保持原来的编号：`u1 … a2` 现在都已被
        摘要替代，`u3 … a3` 仍是第 3 组，`u4, a4` 是第 4 组。后来的 compaction 移动的是
        保留部分的开始位置，不会给分组重新编号。用本章的 31 / 4 / 2：
        """,
    ),
    code(
        """
        display(views.styled_fixture_frame(twice, estimate, uuid="twice"))
        views.group_budget_frame(twice, **budget, estimate_tokens=estimate)
        """
    ),
    md(
        """
        The chapter: 「在确定性、无状态的估算器下，相同 active path 与 options 应得到深
        相等结果。每次结果又是独立副本」. With a deterministic estimator the same path
        and options give equal results, and each result is an independent copy:
        changing the summary text of one result changes neither the session nor the
        next build.
        """,
        zh="""
        本章：「在确定性、无状态的估算器下，相同 active path 与 options 应得到深相等结果。
        每次结果又是独立副本：修改第一次返回的摘要文字或工具参数，不会影响第二次构建，也
        不会改写 session entries」。
        """,
    ),
    code(
        """
        first = build_context(twice, **budget, estimate_tokens=estimate, summary_labels=labels)
        second = build_context(twice, **budget, estimate_tokens=estimate, summary_labels=labels)
        print("equal results:", first == second)
        first.messages[1].content[0].text = "changed by the caller"
        again = build_context(twice, **budget, estimate_tokens=estimate, summary_labels=labels)
        print("next build unaffected:", again == second)
        print("session unchanged:", compact_2.summary == second_summary(LANG))
        """,
        zh_strings={
            "equal results:": "两次结果相等：",
            "next build unaffected:": "下一次构建不受影响：",
            "session unchanged:": "session 没有改变：",
        },
    ),
    md(
        """
        ## Step 2 — a first kept entry inside an interaction

        A third compaction cannot keep from `calls`: Lab 11.4's rule, a first kept
        entry can only be the first user message of a group
        (「只能指向一组的首条 user message」):
        """,
        zh="""
        ## 第 2 步 — 落在交互内部的保留起点

        第三次 compaction 不能从 `calls` 开始保留：这是实验 11.4 的规则，保留起点
        「只能指向一组的首条 user message」：
        """,
    ),
    code(
        """
        from course_lib import chapter_fixture, fixture_summary, parse_session_entry
        from course_lib.views import expected_failure

        expected_failure(
            lambda: create_compaction_entry(
                twice,
                id="compact-3",
                timestamp=300,
                summary=fixture_summary(LANG),
                first_kept_entry_id="calls",
                tokens_before=1,
            )
        )
        """
    ),
    md(
        """
        But a broken tool can still write one: the parser reads one entry and
        checks its shape, not the path. Here `compact-1` is written with
        `firstKeptEntryId: "a2"`, the assistant message inside group 2.

        **Predict first.** What does `build_context` do with it: restore from `a2`,
        move back to the group's start `u2`, or stop? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        但一个有缺陷的工具仍然可能写出这样一条：parser 只读一条 entry，检查它的形状，
        不检查路径。这里 `compact-1` 被写成 `firstKeptEntryId: "a2"`，即第 2 组内部的
        assistant 消息。

        **先预测。** `build_context` 会怎样处理它：从 `a2` 恢复，退回到这一组的开头 `u2`，
        还是停下？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        broken_restore = [
            *chapter_fixture(LANG),
            parse_session_entry({**compact_1.to_wire(), "firstKeptEntryId": "a2"}),
        ]
        expected_failure(lambda: build_context(broken_restore, **budget, estimate_tokens=estimate))
        """
    ),
    reveal(
        """
        It stops, with a `CompactionError` naming the compaction and the id. The
        restore checks the rule again: the first kept entry must be a user message
        entry that lies before the compaction on the path. It neither sends `a2`
        without the user message it answers nor guesses `u2` on the record's
        behalf: a broken record stops before any budget is worked out.
        """,
        zh="""
        它会停下，抛出 `CompactionError`，错误信息指出这条 compaction 和那个 id。恢复时会
        再检查一次这条规则：保留起点必须是路径上位于这条 compaction 之前的一条 user 消息
        entry。它既不会发送缺少对应 user 消息的 `a2`，也不会替这条记录猜成 `u2`：损坏的
        记录在计算任何预算之前就停下。
        """,
    ),
    md(
        """
        The chapter checks this rule when a compaction is created; checking it again
        when restoring is the workbook's (the course's contract asks for it), since a
        record on disk may not have been made by `create_compaction_entry`.
        """,
        zh="""
        本章在创建 compaction 时检查这条规则；恢复时再检查一次是本工作簿的做法（课程的
        契约要求这样做），因为磁盘上的记录不一定是由 `create_compaction_entry` 创建的。
        """,
    ),
    md(
        """
        ## Step 3 — explore the steps *(optional)*

        Choose a step and move the budget. The explorer shows the active path (and
        which compaction it restores from), the messages sent, the reason, and the
        bar of the window: system, summary, kept groups, reserved output, margin,
        unused, with the groups left out beside it.
        """,
        zh="""
        ## 第 3 步 — 逐步探索 *（选做）*

        选择一个步骤，再调整预算。探索器显示活动路径（以及从哪一次 compaction 恢复）、
        发送的消息、reason，以及窗口的条形图：system、摘要、保留的分组、预留输出、安全
        余量、未使用的部分，旁边是被留在外面的分组。
        """,
    ),
    code(
        """
        explorer = views.CompactionExplorer(estimate, **budget, lang=LANG)
        explorer
        """
    ),
    md(
        """
        The explorer's state as plain, compared tables: every step under the current
        budget, then the messages sent at the selected step and its bar.
        """,
        zh="""
        把探索器的状态写成普通的表格，每次运行都会比较：当前预算下的每个步骤，然后是所选
        步骤发送的消息和它的条形图。
        """,
    ),
    code(
        """
        display(explorer.steps_frame())
        state = explorer.state()
        print("step:", state.step, "| kept_entry_ids:", state.kept_entry_ids, "| reason:", state.reason)
        display(explorer.state_frame())
        views.bar_frame(state.bar)
        """,
        zh_strings={"step:": "所选步骤："},
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
        """,
        zh="""
        ## 第 4 步 — system 状态跨过 compaction 边界

        **本章小节：**「system 状态跨过 compaction 边界」

        在这条路径上，`sys` 和 `patch-1` 位于保留起点 `u2` *之前*，属于被摘要替代的那一段，
        而 `patch-2` 在 compaction 之后。若 system message 只从保留后缀里收集，恢复后的
        请求就会丢掉基础 prompt。
        """,
    ),
    code(
        """
        from course_lib import current_system_prompt, system_replay_fixture

        replay = system_replay_fixture(LANG)
        print(views.path_arrow(replay))
        for entry in replay:
            if entry.id in ("sys", "patch-1", "patch-2"):
                message = entry.message
                print(f"{entry.id}: content={message.content!r} sections={message.sections}")
        views.styled_fixture_frame(replay, estimate, uuid="replay")
        """
    ),
    md(
        """
        These messages are not the chapter's ten, so the test estimator has no
        number for them. The chapter does not give these numbers; the workbook
        chose one token per 4 characters of the text, rounded up (pi's own rough
        rule), and 5 for a summary message as before. `u1` says
        "Start the refactor.", 19 characters, so 5 tokens. The estimator also
        accepts plain text:
        """,
        zh="""
        这些消息不是本章的那十条，所以测试估算器的表里没有它们的数字。本章没有给出这些数；
        本工作簿选用按文本每 4 个字符收 1 个 token，向上取整（pi 自己的粗略规则），摘要
        消息仍是 5。中文版的每条文本都和英文版对应的文本一样长，所以两个版本的数字一样。
        `u1` 的文本是 `"开始重构：先把解析器拆成几个小的模块。"`，19 个字符，所以是 5 个 token。
        估算器也接受纯文本：
        """,
    ),
    code(
        'print(len("Start the refactor."), estimate("Start the refactor."))',
        zh_strings={"Start the refactor.": "开始重构：先把解析器拆成几个小的模块。"},
    ),
    md(
        """
        **Predict first.** `build_context` gives the model one system message at the
        head of `messages`. For this path, what are its `content`, its `rules`
        section and its timestamp, and which messages follow it? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** `build_context` 在 `messages` 开头给模型一条 system message。对这条
        路径，它的 `content`、`rules` 段落和 timestamp 各是什么？它后面跟着哪些消息？
        先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        replayed = build_context(replay, max_tokens=1000, estimate_tokens=estimate, summary_labels=labels)
        display(views.system_frame(replayed.messages[0]))
        print("prompt:", repr(current_system_prompt(replayed.messages)))
        views.messages_frame(replayed, estimate)
        """
    ),
    reveal(
        """
        `content` is `"BASE\\n\\nPrefer small diffs."`, `rules` is `"RULE v2"`, and the
        timestamp is `sys`'s (1). Then the summary and `u2, a2, u3, a3`. The chapter:
        「replayedSystemMessage() 读取的是整条 active path，包括 compaction 之前的部分」:
        the system messages of the *whole* path are replayed in order, contents
        appended (`patch-1`'s is empty), `rules` overwritten by `patch-1`, and the
        timestamp is the first system message's. 「patch-2 已经折进开头，不再在后缀中
        原位出现」: `patch-2` is folded into the head and does not appear in place.
        """,
        zh="""
        `content` 是 `"基础提示\\n\\n优先做小的改动：每次提交只改一个地方。"`，`rules` 是 `"规则版本 v2"`，timestamp 是
        `sys` 的（1）。后面是摘要和 `u2, a2, u3, a3`。本章：「replayedSystemMessage() 读取的
        是整条 active path，包括 compaction 之前的部分」：*整条*路径的 system message 按顺序
        重放，content 依次追加（`patch-1` 的是空的），`rules` 被 `patch-1` 覆盖，timestamp
        取第一条 system message 的。「patch-2 已经折进开头，不再在后缀中原位出现」。
        """,
    ),
    md(
        """
        **Think first.** `compact-1` has fields for the summary, the first kept
        entry and the size before compacting, but none for the system prompt.
        Should it keep a copy of the prompt, so that restoring cannot lose it?
        Decide, then open the answer.
        """,
        zh="""
        **先想一想。** `compact-1` 有摘要、保留起点和压缩前规模这些字段，却没有 system prompt
        的字段。它是否应该保存一份 prompt 副本，让恢复不可能丢掉它？先决定，再打开答案。
        """,
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
        """,
        zh="""
        不应该。compaction 不改变 system 状态：摘要消息只由七个字段生成，不携带 prompt
        文本，而只有 system message 决定 system 状态。这些 system message 留在路径上
        （compaction 什么也不删除），`build_context` 从整条路径重放它们，所以重放得到的
        结果与在压缩边界另存一份快照完全相同。课程因此不给 compaction entry 增加 system
        字段：第二份副本只可能与第一份不一致。
        """,
    ),
    md(
        """
        And 「system message 也不能成为切点」: a system message can never be a
        first kept entry:
        """,
        zh="而且「system message 也不能成为切点」：system message 永远不能成为保留起点：",
    ),
    code(
        """
        expected_failure(
            lambda: create_compaction_entry(
                replay,
                id="compact-2",
                timestamp=11,
                summary=fixture_summary(LANG),
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
        zh="""
        ### 练习 11.5-q4 — 没有 `patch-1` 时

        取同一条路径，但去掉 `patch-1`（把 `rules` 设为 `"规则版本 v2"` 的那条 entry）。重放
        出的 system message 给出什么 prompt 文本（这些消息的 `current_system_prompt`）？
        用字符串作答，换行写作 `"\\n"`。
        """,
    ),
    *your_turn_cells(
        "11.5",
        "the four functions of `practice/ch11/restoring.py`: `newest_compaction` and "
        "`restored_suffix` (find the newest compaction, check its first kept entry), "
        "`render_summary` and `summary_message` (the seven fields as one user message)",
        what_zh="`practice/ch11/restoring.py` 中的四个函数：`newest_compaction` 和 "
        "`restored_suffix`（找到最新的 compaction，检查它的保留起点），"
        "`render_summary` 和 `summary_message`（把七个字段变成一条 user message）",
    ),
    *checks_cells("11.5"),
    key_points_cell(LESSON),
]
