"""08 — the chapter in review: its summary run line by line, what the 15 checks fix, questions."""

from __future__ import annotations

from .cells import Cell, Lesson, code, exercise_cells, key_points_cell, lesson_cell, md, reveal

TRANSLATED = True

LESSON = Lesson(
    minutes=30,
    objectives=(
        "retell the chapter's summary and run, for each of its statements, the line that shows "
        "it on the fixture",
        "apply the budget's rules (fixed costs first, the newest summary next, then whole groups, "
        "newest first) to a new window and to a new path",
        "explain in a sentence why a budget keeps whole groups and why compaction appends instead "
        "of deleting",
        "say what the chapter's 15 checks fix and what they leave to the provider layer and to "
        "the layers above",
    ),
    objectives_zh=(
        "复述本章的小结，并为其中每一句运行一行在 fixture 上演示它的代码",
        "把预算的规则（先扣固定成本，再付最新摘要，然后从最新一组起保留完整的组）用到新的窗口和"
        "新的路径上",
        "用一句话解释为什么预算整组保留，以及为什么 compaction 追加而不删除",
        "说出本章 15 项测试固定了什么，又把什么留给了 Provider 层和上层",
    ),
    key_points=(
        "The session only grows: a compaction, and a second one, append an entry and delete no "
        "old fact; the context is a view rebuilt for every model call.",
        "A budget deducts the fixed costs (the replayed system message, the reserved output, the "
        "safety margin), pays the newest summary, then keeps whole groups newest first while they "
        "fit; the newest group is returned whole even when it alone overflows.",
        "Only the newest compaction is read; its first kept entry starts the kept suffix, and "
        "groups keep the chapter's numbers over the whole active path (after `compact-1`: groups "
        "2, 3 and 4).",
        "System messages are replayed from the whole path into the one message before the "
        "summary: Chapter 12 adds its named section there, and Chapter 13 hands `messages` to "
        "the model unchanged.",
    ),
    key_points_zh=(
        "session 只会增长：一次 compaction、第二次 compaction 都只追加一条 entry，不删除旧事实；"
        "上下文是每次调用模型时重新构建的视图。",
        "预算先扣除固定成本（重放出的 system message、回答预留、安全余量），再付最新摘要的成本，"
        "然后从最新一组起保留放得下的完整组；最新一组即使单独放不下，也整组返回。",
        "只读取最新的 compaction；它的保留起点开始保留后缀，而各组沿用本章在整条活动路径上的编号"
        "（`compact-1` 之后是第 2、3、4 组）。",
        "system message 从整条路径重放成摘要之前的那一条消息：第 12 章把它的具名段落放在这里，"
        "第 13 章把 `messages` 原样交给模型。",
    ),
)

CELLS: list[Cell] = [
    md("# Chapter 11 in review", zh="# 第 11 章回顾"),
    lesson_cell(LESSON),
    md(
        """
        **Chapter sections:** 「小结」 and 「15 项测试固定到哪里」

        The chapter's summary, one statement at a time, each with a line you can
        run; what its 15 checks fix and what they leave to later layers; then six
        questions that apply the chapter's rules to new numbers and new paths, and
        two rules to explain in a sentence. Every answer is checked by the same
        functions the labs built; nothing here is new.

        The quotes are the chapter's, in English; its TypeScript names
        `groupInteractions()`, `buildContext()` and `createCompactionEntry()` are
        `group_interactions`, `build_context` and `create_compaction_entry` in
        Python.
        """,
        zh="""
        **本章小节：**「小结」和「15 项测试固定到哪里」

        逐句读本章的小结，每一句都配一行可以运行的代码；15 项测试固定了什么、又把什么
        留给了后面的层；最后是六道把本章规则用到新数字和新路径上的练习，以及两条要用
        一句话解释的规则。每个答案都由各实验写出的同一批函数检查；这里没有新内容。

        引文保留本章 TypeScript 代码的函数名：`groupInteractions()`、`buildContext()` 和
        `createCompactionEntry()` 在课程的 Python 实现里分别是
        `group_interactions`、`build_context` 和 `create_compaction_entry`。
        """,
    ),
    code(
        """
        from course_lib import (
            InMemorySessionStore,
            build_context,
            chapter_fixture,
            chapter_fixture_after_compaction,
            create_compaction_entry,
            fixture_estimator,
            fixture_summary,
            group_interactions,
            system_replay_fixture,
            views,
        )
        from course_lib.track.exercises import check
        from course_lib.views.lab_map import checks_catalogue_frame

        views.setup_notebook(LANG)
        """
    ),
    # --- the summary, statement by statement ------------------------------------------
    md(
        """
        ## Step 1 — the ten opening messages

        > The ten opening messages stay in the session the whole time.

        Append the whole path of Lab 11.5 to a store: the ten, then `compact-1`,
        `u4` and `a4`. Every one of the ten is still there.
        """,
        zh="""
        ## 第 1 步 — 开篇的十条消息

        > 开篇十条消息始终留在 session 中。

        把实验 11.5 的整条路径追加到一个 Store：十条，然后是 `compact-1`、`u4` 和 `a4`。
        十条中的每一条都还在。
        """,
    ),
    code(
        """
        store = InMemorySessionStore()
        for entry in chapter_fixture_after_compaction(LANG):
            store.append(entry)
        print(views.path_arrow(store.entries()))
        ten = {entry.id for entry in chapter_fixture(LANG)}
        ten <= {entry.id for entry in store.entries()}
        """
    ),
    md(
        """
        ## Step 2 — three user interactions

        > `group_interactions` skips `sys` and splits the other nine into three
        > user interactions; the third keeps its two calls, the two results that
        > arrived in reverse order and the final assistant message together, whole.
        """,
        zh="""
        ## 第 2 步 — 三个 user interactions

        > `groupInteractions()` 跳过 `sys`，把其余九条分成三个 user interactions，第三组
        完整保存两个 call、反序到达的两个 result 和终态 assistant。
        """,
    ),
    code(
        """
        path = chapter_fixture(LANG)
        estimate = fixture_estimator()
        [group.entry_ids for group in group_interactions(path)]
        """
    ),
    md(
        """
        ## Step 3 — 31 tokens

        > After deducting the fixed costs, `build_context` selects from the newest
        > group backwards, so the 31-token example hands only the second and third
        > groups to the model.

        The fixed costs are the replayed system message, the reserved output
        (`reserved_output`) and the safety margin (`safety_margin`); 22 tokens are
        left for messages:
        """,
        zh="""
        ## 第 3 步 — 31 个 token

        > `buildContext()` 扣除固定成本后，从最新组向前选择，因此 31 token 的例子只把
        第二、三组交给模型。

        固定成本是重放出的 system message、`reserved_output`（回答预留）和
        `safety_margin`（安全余量）；留给消息的还有 22 个 token：
        """,
    ),
    code(
        """
        result = build_context(
            path, max_tokens=31, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        views.deduction_frame(result)
        """
    ),
    md(
        """
        Groups 3 and 2 cost 15 + 7 = 22, which fits; group 1 would make 29:
        """,
        zh="第 3、2 组合计 15 + 7 = 22，放得下；再加第 1 组就是 29：",
    ),
    code("result.kept_entry_ids, result.reason"),
    md(
        """
        ## Step 4 — compaction appends one record

        > Compaction appends the summary, the first kept entry and the size before
        > compacting as one new record.

        `compact-1` is that record, hung after the last entry `a3`: the seven
        summary fields, the first kept entry `u2` and the size before compacting
        (`tokensBefore`, 29 = 7 + 7 + 15).
        """,
        zh="""
        ## 第 4 步 — compaction 追加一条记录

        > compaction 把摘要、first kept 和压缩前规模追加成一条新记录。

        `compact-1` 就是这条记录，挂在最后一条 entry `a3` 后面：七个摘要字段、保留起点
        `u2`，以及压缩前规模（`tokensBefore`，29 = 7 + 7 + 15）。
        """,
    ),
    code(
        """
        compact_1 = store.entries()[10]
        print(compact_1.parent_id, compact_1.first_kept_entry_id, compact_1.tokens_before)
        list(compact_1.summary.to_wire())
        """
    ),
    md(
        """
        ## Step 5 — restoring from the newest summary

        > Restoring reads the newest summary on the active path, then attaches the
        > complete message suffix.

        The groups keep the chapter's numbers over the whole active path:
        `firstKeptEntryId: "u2"` means the original messages are kept from the
        second group on (「从第二组开始保留原消息」). So after `compact-1`, `u2, a2`
        is group 2, `u3 … a3` group 3 and `u4, a4` group 4; `u1, a1` are
        *summarised*: the summary stands in for them.
        """,
        zh="""
        ## 第 5 步 — 从最新摘要恢复

        > 恢复读取活动路径上的最新摘要，再接上完整消息后缀。

        各组沿用本章在整条活动路径上的编号：`firstKeptEntryId: "u2"` 表示恢复时从第二组
        开始保留原消息。所以 `compact-1` 之后，`u2, a2` 是第 2 组，`u3 … a3` 是第 3 组，
        `u4, a4` 是第 4 组；`u1, a1` 是 *summarised*（已摘要）：由摘要代替它们。
        """,
    ),
    code(
        """
        after = store.entries()
        views.styled_fixture_frame(after, estimate, uuid="after")
        """
    ),
    md(
        """
        The chapter does not give the summary's cost; the workbook chose 5 tokens
        (its test estimator prices every summary message at 5). With the chapter's
        budget, the 22 tokens for messages pay the summary first, and 17 are left
        for whole groups: group 4 (7) fits, group 3 would make 22.
        """,
        zh="""
        本章没有给出摘要的成本；本工作簿选用 5 个 token（它的测试估算器给每条摘要消息都
        计 5）。使用本章的预算时，留给消息的 22 个 token 先支付摘要，剩下 17 个留给完整的
        组：第 4 组（7）放得下，再加第 3 组就是 22。
        """,
    ),
    code(
        """
        views.group_budget_frame(
            after, max_tokens=31, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        """
    ),
    md(
        """
        The messages sent: the replayed system message, the summary, then the
        kept suffix. The chapter does not give `tokens.messages` here either; with
        the workbook's 5 tokens for the summary it is 5 + 7 = 12.
        """,
        zh="""
        发送的消息：重放出的 system message、摘要，然后是保留后缀。本章同样没有给出这里的
        `tokens.messages`；本工作簿选用摘要 5 个 token，所以它是 5 + 7 = 12。
        """,
    ),
    code(
        """
        restored = build_context(
            after,
            max_tokens=31,
            reserved_output=4,
            safety_margin=2,
            estimate_tokens=estimate,
            summary_labels=views.summary_labels(LANG),
        )
        display(views.messages_frame(restored, estimate))
        restored.reason, restored.tokens.messages
        """
    ),
    md(
        """
        ## Step 6 — compacting a second time

        > A second compaction again only appends and deletes no old fact.

        The chapter's example: `compact-2` keeps from `u3` and is appended after
        `a4`. The chapter gives neither its timestamp nor its size; the workbook
        chose timestamp 200 and, as for `compact-1`'s 29, the messages' cost with
        nothing trimmed: 5 + 7 + 15 + 7 = 34.
        """,
        zh="""
        ## 第 6 步 — 第二次压缩

        > 第二次压缩仍然只追加，不删除旧事实。

        本章的例子：`compact-2` 的保留起点是 `u3`，追加在 `a4` 后面。本章没有给出它的
        timestamp 和规模；本工作簿选用 timestamp 200，规模则和 `compact-1` 的 29 一样，
        取什么都不裁剪时消息的成本：5 + 7 + 15 + 7 = 34。
        """,
    ),
    code(
        """
        size = build_context(after, max_tokens=1000, estimate_tokens=estimate).tokens.messages
        compact_2 = create_compaction_entry(
            after,
            id="compact-2",
            timestamp=200,
            summary=fixture_summary(LANG),
            first_kept_entry_id="u3",
            tokens_before=size,
        )
        store.append(compact_2)
        print(views.path_arrow(store.entries()))
        len(store.entries())
        """
    ),
    md(
        """
        Nothing left the store: `compact-1` and every entry before it are still
        there. After `compact-2`, `u3 … a3` is group 3 and `u4, a4` group 4;
        `u1` to `a2` are summarised.
        """,
        zh="""
        没有任何东西离开 Store：`compact-1` 和它之前的每条 entry 都还在。`compact-2`
        之后，`u3 … a3` 是第 3 组，`u4, a4` 是第 4 组；从 `u1` 到 `a2` 都已摘要。
        """,
    ),
    code('views.styled_fixture_frame(store.entries(), estimate, uuid="twice")'),
    md(
        """
        With a window large enough for everything, one summary is sent (the
        newest), and the suffix starts at `compact-2`'s first kept entry `u3`, not
        at `u2`: `compact-1`'s summary is simply not sent again.
        """,
        zh="""
        窗口大到能放下一切时，也只发送一份摘要（最新的那份），后缀从 `compact-2` 的保留
        起点 `u3` 开始，而不是 `u2`：`compact-1` 的摘要只是不再发送。
        """,
    ),
    code(
        """
        labels = views.summary_labels(LANG)
        twice = build_context(
            store.entries(), max_tokens=1000, estimate_tokens=estimate, summary_labels=labels
        )
        views.messages_frame(twice, estimate)
        """
    ),
    md(
        """
        ## Step 7 — system messages

        > System messages are always replayed from the whole path, come before the
        > summary, and belong to no group.

        The system-replay path of Lab 11.5: `sys` and `patch-1` lie before
        `compact-1`'s first kept entry `u2`, `patch-2` after `compact-1`. All three
        are replayed into the one system message that opens `messages`, before the
        summary:
        """,
        zh="""
        ## 第 7 步 — system message

        > system message 始终从整条路径重放，排在摘要之前，不进入任何一组。

        实验 11.5 的 system 重放路径：`sys` 和 `patch-1` 位于 `compact-1` 的保留起点
        `u2` 之前，`patch-2` 位于 `compact-1` 之后。三条都重放进开头的那一条 system
        message，排在摘要之前：
        """,
    ),
    code(
        """
        replay_path = system_replay_fixture(LANG)
        print(views.path_arrow(replay_path))
        replayed = build_context(
            replay_path, max_tokens=1000, estimate_tokens=estimate, summary_labels=labels
        )
        display(views.messages_frame(replayed))
        views.system_frame(replayed.messages[0])
        """
    ),
    md(
        """
        ## Where the next chapters pick up

        > Chapter 12 turns the project's resources into a named section of the
        > system message; it goes through the same replay and keeps using the same
        > context entry point.

        A named section lives in the system message's `sections`. On the replay
        path, `rules` was written by `sys` and overwritten by `patch-1`, both
        before the first kept entry; it still reaches the model, because the
        replay reads the whole path:
        """,
        zh="""
        ## 后面的章节从这里接着走

        > 第 12 章会把项目资源整理成 system message 中的一个具名段落，它同样经过这里的
        重放，继续使用同一个上下文入口。

        具名段落位于 system message 的 `sections` 中。在重放路径上，`rules` 由 `sys`
        写入、被 `patch-1` 覆盖，两者都在保留起点之前；它仍然会到达模型，因为重放读取的是
        整条路径：
        """,
    ),
    code("replayed.messages[0].sections"),
    md(
        """
        > Chapter 13 hands these `messages` to the model unchanged; the prompt is
        > already inside.

        The first of the 31-token example's messages is the replayed system
        message (the prompt), and `kept_entry_ids` never names it:
        """,
        zh="""
        > 第 13 章把这份 messages 原样交给模型，prompt 已经在里面。

        31 token 例子的第一条消息就是重放出的 system message（prompt），而
        `kept_entry_ids` 从不包含它：
        """,
    ),
    code(
        """
        first = result.messages[0]
        print(first.role, repr(first.content))
        [message.role for message in result.messages], result.kept_entry_ids
        """
    ),
    # --- the 15 checks ---------------------------------------------------------------------
    md(
        """
        ## What the 15 checks fix 「15 项测试固定到哪里」

        > The checks fix the course implementation's deterministic rules: a strict
        > compaction schema, reopening both stores, grouping at user messages,
        > call/result pairing, fixed costs, trimming whole groups, the newest
        > group's overflow, pure creation, restoring from the newest summary,
        > compacting a second time, system replay across the compaction boundary,
        > and results that share nothing with the session.
        """,
        zh="""
        ## 「15 项测试固定到哪里」

        > 这些测试固定了课程实现的确定性规则：严格 compaction schema、两个 Store 的重开、
        user 分组、call/result 配对、固定成本、完整组裁剪、最新组超限、纯创建、最新摘要
        恢复、二次压缩、跨压缩边界的 system 重放和公开副本隔离。
        """,
    ),
    code("checks_catalogue_frame()"),
    md(
        """
        They fix compaction within four bounds (四个范围). Each row: what the
        checks hold to, and what they leave to another layer.

        | | what the checks fix | what they leave out |
        |---|---|---|
        | budget | the budget uses the deterministic estimator the caller gives (确定性估算器) and deducts the fixed costs this chapter lists | real tokenizers, tool schemas, images and cache costs: the provider layer (Provider 层) needs its own estimate |
        | creating a compaction | `create_compaction_entry` checks the shape of the seven-field summary (七字段 summary) | the summary's text and `tokens_before` come from the caller: the function neither judges whether the facts are complete nor recomputes the size before compacting |
        | groups | `group_interactions` builds indivisible groups (不可拆分组) from user boundaries and the four call/result id rules | a result's position, `toolName` and the final assistant message are not part of this layer's pairing |
        | overflow | `single_group_overflow` only reports that the newest group does not fit the current window | shortening tool output, writing a dedicated summary, switching models, when to compact automatically and concurrent summary writes: the layer above decides (上层生命周期) |
        """,
        zh="""
        > 这 15 项测试把 compaction 固定在四个范围内：

        每一行是原文的一条：测试固定了什么，又把什么留给了另一层。

        | | 测试固定的内容 | 留给其他层的内容 |
        |---|---|---|
        | 预算 | 预算使用调用者提供的确定性估算器，并扣除本章列出的固定成本。 | 真实 tokenizer、tool schema、图片和缓存成本需要由 Provider 层给出另一套估算。 |
        | 创建 compaction | `createCompactionEntry()` 校验七字段 summary 的形状； | summary 正文与 `tokensBefore` 由调用者提供，函数不重新判断业务事实是否完整，也不重算压缩前规模。 |
        | 分组 | `groupInteractions()` 以 user 边界和四个 call/result id 关系组成不可拆分组。 | Result 位置、`toolName` 和终态 assistant 不属于这层配对规则。 |
        | 超限 | `single_group_overflow` 只报告最新一组无法放入当前窗口。 | 截短工具输出、生成专用摘要、换模型、自动触发时机和并发摘要写入都由上层生命周期选择。 |
        """,
    ),
    md(
        """
        The budget's estimator and the groups' pairing by id ran in Steps 2 and 3.
        The other two bounds, run: `tokens_before` is the caller's number, never
        recomputed (here an absurd 999 is accepted) ...
        """,
        zh="""
        预算的估算器和按 id 配对的分组已在第 2、3 步运行过。另外两个范围，运行一下：
        `tokens_before` 是调用者给的数，从不重算（这里一个离谱的 999 也被接受）……
        """,
    ),
    code(
        """
        create_compaction_entry(
            path,
            id="compact-x",
            timestamp=1,
            summary=fixture_summary(LANG),
            first_kept_entry_id="u2",
            tokens_before=999,
        ).tokens_before
        """
    ),
    md(
        """
        ... and `single_group_overflow` only reports: at `max_tokens = 19` the
        newest group is returned whole, the total goes past 19, and what to do
        next is the caller's choice.
        """,
        zh="""
        ……而 `single_group_overflow` 只是报告：`max_tokens = 19` 时，最新一组整组返回，
        总数超过 19，接下来怎么办由调用者选择。
        """,
    ),
    code(
        """
        overflow = build_context(
            path, max_tokens=19, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        overflow.reason, overflow.kept_entry_ids, overflow.tokens.total
        """
    ),
    # --- questions ---------------------------------------------------------------------------
    md(
        """
        ## Questions

        Six questions apply the chapter's rules to new numbers and new paths.
        Answer each in its cell, then run the check under it: `○` not answered
        yet, `✓` right, `✗` a hint about what to look at again. Two rules to
        explain in a sentence close the notebook; their model answers are hidden.
        """,
        zh="""
        ## 练习

        六道题把本章的规则用到新的数字和新的路径上。在各自的单元格里作答，再运行下面的
        检查：`○` 尚未作答，`✓` 正确，`✗` 给出提示，告诉你该回头看什么。最后是两条要用
        一句话解释的规则，参考答案是隐藏的。
        """,
    ),
    *exercise_cells(
        "recap-q1",
        """
        ### Exercise recap-q1 — cut points on another path

        The system-replay path of Step 7: `sys`, `u1`, `a1`, `patch-1` (system),
        `u2`, `a2`, `compact-1` (first kept entry `u2`), `patch-2` (system), `u3`,
        `a3`. In how many places may `build_context`'s budget cut it? Answer with
        a number.
        """,
        "answer_q1 = ...",
        zh="""
        ### 练习 recap-q1 — 另一条路径上的切点

        第 7 步的 system 重放路径：`sys`、`u1`、`a1`、`patch-1`（system）、`u2`、`a2`、
        `compact-1`（保留起点 `u2`）、`patch-2`（system）、`u3`、`a3`。`build_context`
        的预算可以在几个位置裁剪它？用一个数字作答。
        """,
    ),
    *exercise_cells(
        "recap-q2",
        """
        ### Exercise recap-q2 — another window

        The fixture with `max_tokens = 38`, `reserved_output = 3` and
        `safety_margin = 5`: which entry is the first of `kept_entry_ids`?
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 recap-q2 — 另一个窗口

        fixture 使用 `max_tokens = 38`、`reserved_output = 3`、`safety_margin = 5`：
        `kept_entry_ids` 的第一条是哪个 entry？
        """,
    ),
    *exercise_cells(
        "recap-q3",
        """
        ### Exercise recap-q3 — a second compaction on another path

        A store holds the ten entries of the system-replay path (`compact-1` among
        them). A `compact-2` keeping from `u3` is created with
        `create_compaction_entry` and appended. How many entries does the store
        hold now?
        """,
        "answer_q3 = ...",
        zh="""
        ### 练习 recap-q3 — 另一条路径上的第二次压缩

        一个 Store 保存着 system 重放路径的十条 entries（其中有 `compact-1`）。用
        `create_compaction_entry` 创建保留起点为 `u3` 的 `compact-2`，并把它追加进去。
        现在 Store 里有几条 entry？
        """,
    ),
    *exercise_cells(
        "recap-q4",
        """
        ### Exercise recap-q4 — which compaction is read?

        The path of Step 5 (`compact-1` keeps from `u2`, then `u4`, `a4`), and
        this time a `compact-2` that keeps from `u4` is appended after `a4`. With
        `max_tokens = 45` (4 reserved, a safety margin of 2), which entry is the
        first of `kept_entry_ids`?
        """,
        "answer_q4 = ...",
        zh="""
        ### 练习 recap-q4 — 读取哪一次 compaction？

        第 5 步的路径（`compact-1` 的保留起点是 `u2`，然后是 `u4`、`a4`），这一次在 `a4`
        后面追加一条保留起点为 `u4` 的 `compact-2`。`max_tokens = 45`（回答预留 4，
        安全余量 2）时，`kept_entry_ids` 的第一条是哪个 entry？
        """,
    ),
    *exercise_cells(
        "recap-q5",
        """
        ### Exercise recap-q5 — where may a kept part start?

        On the system-replay path, a new compaction is created with
        `create_compaction_entry`. Which entry ids does it accept as
        `first_kept_entry_id`? Answer with a set, e.g. `{"x", "y"}`.
        """,
        "answer_q5 = ...",
        zh="""
        ### 练习 recap-q5 — 保留部分可以从哪里开始？

        在 system 重放路径上用 `create_compaction_entry` 创建一条新的 compaction。它接受
        哪些 entry id 作为 `first_kept_entry_id`？用集合作答，例如 `{"x", "y"}`。
        """,
    ),
    *exercise_cells(
        "recap-q6",
        """
        ### Exercise recap-q6 — which reason?

        The fixture with `max_tokens = 28`, `reserved_output = 8` and
        `safety_margin = 2`: which `reason` does `build_context` give?
        """,
        "answer_q6 = ...",
        zh="""
        ### 练习 recap-q6 — 哪个 reason？

        fixture 使用 `max_tokens = 28`、`reserved_output = 8`、`safety_margin = 2`：
        `build_context` 给出哪个 `reason`？
        """,
    ),
    md(
        """
        ### Exercise recap-e1 — why whole groups?

        A budget could drop single messages instead of whole interactions and fill
        the window more tightly. In one sentence: why does the chapter never do
        that? Write your sentence down, then open the model answer.
        """,
        zh="""
        ### 练习 recap-e1 — 为什么整组保留？

        预算也可以只丢弃单条消息，而不是整个交互，从而更紧地填满窗口。用一句话回答：为什么
        本章从不这样做？先写下你的句子，再打开参考答案。
        """,
    ),
    reveal(
        """
        **Model answer.** A cut inside an interaction would send a tool result
        whose call is gone, or a call without its result: half a tool round trip
        the model cannot make sense of, so a budget keeps or drops whole groups
        and cuts only between them.

        The chapter puts it on the fixture: a cut may fall only at `a1 | u2` or
        `a2 | u3`; at `calls | r-test`, `r-test | r-read` or `r-read | a3` it
        would lose part of a tool round trip. That is also why the newest group is
        sent whole even when it alone does not fit (`single_group_overflow`): the
        caller, who knows more, decides what to do then.
        """,
        zh="""
        **参考答案。** 在交互内部裁剪，就会发出一个 call 已经不在的 tool result，或一个
        没有 result 的 call：模型无法理解的半次工具往返，所以预算整组保留或整组丢弃，只在
        组与组之间裁剪。

        本章在 fixture 上这样说：裁剪位置只能落在 `a1 | u2` 或 `a2 | u3` 之间；落在
        `calls | r-test`、`r-test | r-read` 或 `r-read | a3` 之间都会丢掉一次工具往返的
        一部分。这也是为什么最新一组即使单独放不下也整组发送（`single_group_overflow`）：
        接下来怎么办，由掌握更多信息的调用者决定。
        """,
    ),
    md(
        """
        ### Exercise recap-e2 — why append, not delete?

        Compaction could delete the messages its summary covers, and the session
        file would shrink. In one sentence: why does the chapter append a
        compaction entry instead, the second time too?
        """,
        zh="""
        ### 练习 recap-e2 — 为什么追加而不删除？

        compaction 本可以删除摘要覆盖的那些消息，让 session 文件变小。用一句话回答：为什么
        本章改为追加一条 compaction entry，第二次也一样？
        """,
    ),
    reveal(
        """
        **Model answer.** The session is the record of what happened and the
        context only a view rebuilt for each model call, so compaction appends a
        fact and deletes none: another window, another budget or a later
        compaction can still be computed from the same history.

        A second compaction again only appends and deletes no old fact:
        `compact-1` and every entry before it stay in the session (Step 6 counted
        them). `compact-1`'s summary is simply not sent again: the newest summary
        carries the earlier facts on, and sending both would repeat them and could
        set an old decision against a new one. The compaction entry records where
        the kept part starts (`firstKeptEntryId`) and the size before compacting
        (`tokensBefore`), so restoring needs nothing else.
        """,
        zh="""
        **参考答案。** session 是发生过的事情的记录，上下文只是每次调用模型时重新构建的
        视图，所以 compaction 追加一条事实，不删除任何事实：换一个窗口、换一个预算，或者
        以后再压缩一次，都仍然能从同一段历史算出来。

        第二次压缩仍然只追加，不删除旧事实：`compact-1` 和它之前的每条 entry 都留在
        session 中（第 6 步数过）。`compact-1` 的摘要只是不再发送：最新摘要负责接续此前的
        事实，把两份摘要都发出去会重复内容，也可能让旧决策和新决策互相冲突。compaction
        entry 记下保留起点（`firstKeptEntryId`）和压缩前规模（`tokensBefore`），所以恢复
        不再需要别的信息。
        """,
    ),
    key_points_cell(LESSON),
]
