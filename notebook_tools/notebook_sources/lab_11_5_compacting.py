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

TRANSLATED = True

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.5, part 2 — Compacting again; system state across the boundary

        **Chapter sections:** 「恢复时把最新摘要接在保留后缀前面」 (its second half)
        and 「system 状态跨过 compaction 边界」

        **Goal.** A second compaction is made by the same function and appended
        like the first. Then two questions: when the path holds two summaries,
        which does the model read? And system state is part of no compaction, so
        where does the model's system message come from once a compaction
        boundary lies between its parts?

        **Builds on.** Part 1 (restoring from `compact-1`), Lab 11.4's
        `create_compaction_entry`, Lab 11.3's system replay.

        **Checks.** `tests/labs/test_lab_11_5.py` (4 checks), at the end of this notebook.
        """,
        zh="""
        # 实验 11.5（下）— 再次压缩；跨过边界的 system 状态

        **本章小节：**「恢复时把最新摘要接在保留后缀前面」（后半部分）
        和「system 状态跨过 compaction 边界」

        **目标。** 第二次 compaction 由同一个函数创建，也像第一次一样追加。接着回答两个问题：
        路径上有两份摘要时，模型读哪一份？system 状态不属于任何 compaction，那么当它的几部分
        之间隔着一条 compaction 边界时，模型看到的 system message 从哪里来？

        **基础。** 实验 11.5（上）（从 `compact-1` 恢复），实验 11.4 的
        `create_compaction_entry`，实验 11.3 的 system 重放。

        **检查。** `tests/labs/test_lab_11_5.py`（4 项检查），在本 notebook 末尾。
        """,
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
            answer_box,
            checks_frame,
            group_budget_frame,
            messages_frame,
            path_arrow,
            setup_notebook,
            styled_fixture_frame,
        )

        setup_notebook(LANG)
        """
    ),
    md(
        """
        ## Where part 1 ended

        The fixture, `compact-1` (first kept `u2`), then `u4, a4`. The groups are
        numbered from the first kept entry on, as `build_context` considers them.
        """,
        zh="""
        ## 上一部分结束时的状态

        fixture、`compact-1`（第一条保留 entry 是 `u2`），然后是 `u4, a4`。分组从第一条
        保留 entry 开始编号，与 `build_context` 考虑它们的方式一致。
        """,
    ),
    code(
        """
        estimate = fixture_estimator()
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        continued = chapter_fixture_after_compaction(LANG)
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
        """,
        zh="""
        ## 第 1 步 — 再次压缩

        第二次 compaction 在当前的路径上使用与第一次相同的函数。`compact-2` 保留 `u3`
        及之后的内容；它的摘要（真实的 agent 中由模型写出）现在也涵盖 `u2, a2`。
        `tokens_before` 是调用者自己记录的不裁剪时消息的成本：`compact-1` 的摘要（5）
        加上从 `u2` 开始的每一组（7 + 15 + 7）。
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
        print(path_arrow(twice))
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
    code(
        """
        from course_lib.views import CompactionExplorer

        CompactionExplorer(estimate, lang=LANG).steps[-1].path == twice
        """
    ),
    md(
        """
        **Predict first.** After `compact-2`, how many summary messages does the
        model read, and from which compaction? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** `compact-2` 之后，模型读到几条摘要消息，来自哪一次 compaction？先决定，
        再点击下一个单元格下面的*显示答案*。
        """,
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
        """,
        zh="""
        一条摘要：`compact-2` 的。`compact-1` 仍在 session 中，但更早的摘要永远不会再发送。
        最新摘要负责接续此前的事实；把所有摘要同时发送会重复内容，也可能让旧决策和新决策
        互相冲突。
        """,
    ),
    md("The summary the model reads is `compact-2`'s:", zh="模型读到的是 `compact-2` 的摘要："),
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
        """,
        zh="""
        预算仍然保留完整分组，从最新一组向前，并从新的第一条保留 entry `u3` 开始编号。
        用本章的 31 / 4 / 2，摘要之后只放得下 `u4, a4`：
        """,
    ),
    code("group_budget_frame(twice, **budget, estimate_tokens=estimate)"),
    md(
        """
        With a deterministic estimator the same path and options give equal results,
        and each result is an independent copy: changing the summary text of one
        result changes neither the session nor the next build.
        """,
        zh="""
        在确定性的估算器下，相同的路径与选项得到相等的结果，而且每个结果都是独立副本：
        修改其中一个结果的摘要文字，既不会改动 session，也不会影响下一次构建。
        """,
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
        """,
        zh="""
        ## 第 2 步 — 预期的失败

        第三次 compaction 不能从 `calls`（位于交互内部）开始保留。而如果一条 compaction
        的第一条保留 entry 不是它之前的某条 user 消息（这里是 `a2`，由一个有缺陷的工具
        写入：parser 接受这种形状），恢复就会以 `CompactionError` 停下，错误信息指出这条
        compaction 和那个 id。
        """,
    ),
    code(
        """
        from course_lib import chapter_fixture, fixture_summary, parse_session_entry
        from course_lib.views import errors_frame

        compact_1 = continued[10]
        broken_restore = [
            *chapter_fixture(LANG),
            parse_session_entry({**compact_1.to_wire(), "firstKeptEntryId": "a2"}),
        ]
        errors_frame(
            {
                "compact-3 keeping calls": lambda: create_compaction_entry(
                    twice,
                    id="compact-3",
                    timestamp=300,
                    summary=fixture_summary(LANG),
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
        """,
        zh="""
        ## 第 3 步 — 逐步探索

        选择一个步骤，再调整预算。探索器显示活动路径（以及从哪一次 compaction 恢复）、
        发送的消息、reason，以及窗口的条形图：system、摘要、保留的分组、预留输出、安全
        余量、未使用的部分，旁边是被留在外面的分组。
        """,
    ),
    code(
        """
        from course_lib.views import bar_frame

        explorer = CompactionExplorer(estimate, **budget, lang=LANG)
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
        """,
        zh="""
        ## 第 4 步 — system 状态跨过 compaction 边界

        **本章小节：**「system 状态跨过 compaction 边界」

        在这条路径上，`sys` 和 `patch-1` 位于第一条保留 entry `u2` *之前*，属于被摘要替代的
        那一段，而 `patch-2` 在 compaction 之后。若 system message 只从保留后缀里收集，
        恢复后的请求就会丢掉基础 prompt。
        """,
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
        """,
        zh="""
        这些消息不是本章的那十条，所以教学估算器的表里没有它们的数字：它按文本每 4 个
        字符收 1 个 token，向上取整（pi 自己的粗略规则；只有摘要消息总是 5）。`u1` 的文本是
        `"Start the refactor."`，19 个字符，所以是 5 个 token。估算器也接受纯文本：
        """,
    ),
    code('print(len("Start the refactor."), estimate("Start the refactor."))'),
    md(
        """
        `build_context` replays the system messages of the *whole* path: contents are
        appended, `rules` is overwritten by `patch-1`, and the timestamp is the first
        system message's.
        """,
        zh="""
        `build_context` 重放*整条*路径的 system message：content 依次追加，`rules` 被
        `patch-1` 覆盖，timestamp 取第一条 system message 的。
        """,
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
        """,
        zh="""
        messages 依次是重放出的开头、摘要，然后是 `u2, a2, u3, a3`：`patch-2` 已经折进
        开头，不再在原位出现。
        """,
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
        """,
        zh="""
        **先想一想。** `compact-1` 有摘要、第一条保留 entry 和压缩前规模这些字段，却没有
        system prompt 的字段。它是否应该保存一份 prompt 副本，让恢复不可能丢掉它？先决定，
        再打开答案。
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
        "And a system message can never be a cut point:",
        zh="而且 system message 永远不能成为切点：",
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

        取同一条路径，但去掉 `patch-1`（把 `rules` 设为 `"RULE v2"` 的那条 entry）。重放
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
        "`restored_suffix`（找到最新的 compaction，检查它的第一条保留 entry），"
        "`render_summary` 和 `summary_message`（把七个字段变成一条 user message）",
    ),
    *checks_cells("11.5"),
]
