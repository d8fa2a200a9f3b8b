"""08 — the chapter in review: its summary, what the 15 checks fix, a short questionnaire."""

from __future__ import annotations

from .cells import Cell, code, exercise_cells, md, reveal

TRANSLATED = True

CELLS: list[Cell] = [
    md(
        """
        # Chapter 11 in review

        **Chapter sections:** 「小结」 and 「15 项测试固定到哪里」

        The chapter's summary in English (its key terms in Chinese in brackets),
        what its 15 checks fix and what they leave to later layers, and a short
        questionnaire. Every answer is checked by the same functions the labs
        built; nothing here is new.
        """,
        zh="""
        # 第 11 章回顾

        **本章小节：**「小结」和「15 项测试固定到哪里」

        本章的小结（引自原文）、15 项测试固定了什么、又把什么留给了后面的层，以及一份简短的
        问卷。每个答案都由各实验写出的同一批函数检查；这里没有新内容。

        引文保留本章 TypeScript 代码的函数名：`groupInteractions()`、`buildContext()` 和
        `createCompactionEntry()` 在课程的 Python 实现里分别是
        `group_interactions`、`build_context` 和 `create_compaction_entry`。
        """,
    ),
    code(
        """
        from course_lib.track.exercises import check
        from course_lib.views import setup_notebook
        from course_lib.views.lab_map import checks_catalogue_frame

        setup_notebook(LANG)
        """
    ),
    md(
        """
        ## The chapter's summary 「小结」

        The ten opening messages stay in the session the whole time.
        `group_interactions` skips `sys` and splits the other nine into three user
        interactions; the third keeps its two calls, the two results that arrived
        in reverse order and the final assistant message together, whole. After
        deducting the fixed costs (固定成本), `build_context` selects from the
        newest group (最新组) backwards, so the 31-token example hands only the
        second and third groups to the model.

        Compaction (压缩) appends the summary (摘要), the first kept entry
        (保留起点) and the size before compacting (压缩前规模) as one new record
        (记录). Restoring (恢复) reads the newest summary (最新摘要) on the active
        path (活动路径), then attaches the complete message suffix (完整消息后缀);
        a second compaction (第二次压缩) again only appends and deletes no old
        fact (旧事实). System messages are always replayed (重放) from the whole
        path, come before the summary, and belong to no group. Chapter 12 turns the
        project's resources into a named section (具名段落) of the system message;
        it goes through the same replay and keeps using the same context entry
        point (上下文入口).
        """,
        zh="""
        ## 本章的「小结」

        > 开篇十条消息始终留在 session 中。`groupInteractions()` 跳过 `sys`，把其余九条分成
        三个 user interactions，第三组完整保存两个 call、反序到达的两个 result 和终态
        assistant。`buildContext()` 扣除固定成本后，从最新组向前选择，因此 31 token 的例子
        只把第二、三组交给模型。
        >
        > compaction 把摘要、first kept 和压缩前规模追加成一条新记录。恢复读取活动路径上的
        最新摘要，再接上完整消息后缀；第二次压缩仍然只追加，不删除旧事实。system message
        始终从整条路径重放，排在摘要之前，不进入任何一组。第 12 章会把项目资源整理成 system
        message 中的一个具名段落，它同样经过这里的重放，继续使用同一个上下文入口。
        """,
    ),
    md(
        """
        ## What the 15 checks fix 「15 项测试固定到哪里」

        The checks fix the course implementation's deterministic rules: a strict
        compaction schema, reopening both stores, grouping at user messages,
        call/result pairing, fixed costs, trimming whole groups, the newest group's
        overflow, pure creation, restoring from the newest summary, compacting a
        second time, system replay across the compaction boundary, and results
        that share nothing with the session.
        """,
        zh="""
        ## 「15 项测试固定到哪里」

        > 这些测试固定了课程实现的确定性规则：严格 compaction schema、两个 Store 的重开、user
        分组、call/result 配对、固定成本、完整组裁剪、最新组超限、纯创建、最新摘要恢复、
        二次压缩、跨压缩边界的 system 重放和公开副本隔离。
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
        ## Questionnaire

        Six short questions on the chapter's fixture. Answer each in its cell,
        then run the check under it: `○` not answered yet, `✓` right, `✗` a hint
        about what to look at again. Two questions to think about close the
        notebook; their answers are hidden.
        """,
        zh="""
        ## 问卷

        六道关于本章 fixture 的小题。在各自的单元格里作答，再运行下面的检查：`○`
        尚未作答，`✓` 正确，`✗` 给出提示，告诉你该回头看什么。最后是两道思考题，答案是隐藏的。
        """,
    ),
    *exercise_cells(
        "recap-q1",
        """
        ### Question 1 (`recap-q1`) — cut points

        On the fixture's path (`sys`, then the groups `u1, a1` / `u2, a2` /
        `u3 … a3`), in how many places may a budget cut? Answer with a number.
        """,
        "answer_q1 = ...",
        zh="""
        ### 第 1 题（`recap-q1`）— 切点

        在 fixture 的路径上（`sys`，然后是 `u1, a1` / `u2, a2` / `u3 … a3` 三组），预算可以在
        几个位置裁剪？用一个数字作答。
        """,
    ),
    *exercise_cells(
        "recap-q2",
        """
        ### Question 2 (`recap-q2`) — a larger margin

        The chapter's budget (31 tokens, 4 reserved) with `safety_margin = 9`
        instead of 2: which entry is the first of `kept_entry_ids`?
        """,
        "answer_q2 = ...",
        zh="""
        ### 第 2 题（`recap-q2`）— 更大的安全余量

        本章的预算（31 个 token，预留 4），把 `safety_margin` 从 2 改成 9：`kept_entry_ids`
        的第一条是哪个 entry？
        """,
    ),
    *exercise_cells(
        "recap-q3",
        """
        ### Question 3 (`recap-q3`) — what compaction deletes

        A store holds the fixture's ten entries; `compact-1` is appended. How many
        of the ten original entries are still in the store?
        """,
        "answer_q3 = ...",
        zh="""
        ### 第 3 题（`recap-q3`）— compaction 删除了什么

        一个 Store 保存着 fixture 的十条 entries，然后追加了 `compact-1`。十条原始 entries
        中还有几条在 Store 里？
        """,
    ),
    *exercise_cells(
        "recap-q4",
        """
        ### Question 4 (`recap-q4`) — two compactions

        The path holds `compact-1` and, later, `compact-2`. How many summary
        messages does `build_context` send, with a window large enough for
        everything?
        """,
        "answer_q4 = ...",
        zh="""
        ### 第 4 题（`recap-q4`）— 两次 compaction

        路径上有 `compact-1`，后面还有 `compact-2`。窗口大到能放下一切时，`build_context`
        发送几条摘要消息？
        """,
    ),
    *exercise_cells(
        "recap-q5",
        """
        ### Question 5 (`recap-q5`) — the compaction entry

        Which of these wire fields does a compaction entry have? Choose among
        `"parentId"`, `"firstKeptEntryId"`, `"tokensBefore"`, `"summary"` and
        `"system"`, and answer with a set, e.g. `{"parentId"}`.
        """,
        "answer_q5 = ...",
        zh="""
        ### 第 5 题（`recap-q5`）— compaction entry

        compaction entry 有下面哪些 wire 字段？从 `"parentId"`、`"firstKeptEntryId"`、`"tokensBefore"`、`"summary"`
        和 `"system"` 中选择，用集合作答，例如
        `{"parentId"}`。
        """,
    ),
    *exercise_cells(
        "recap-q6",
        """
        ### Question 6 (`recap-q6`) — a group that cannot fit

        The fixture with `max_tokens = 19` (4 reserved, a margin of 2): the newest
        group alone costs more than the allowance. Which `reason` does
        `build_context` give?
        """,
        "answer_q6 = ...",
        zh="""
        ### 第 6 题（`recap-q6`）— 放不下的一组

        fixture 使用 `max_tokens = 19`（预留 4，安全余量 2）：仅最新一组的成本就超过了消息
        额度。`build_context` 给出哪个 `reason`？
        """,
    ),
    md(
        """
        ### To think about — why whole groups?

        A budget could drop single messages instead of whole interactions and fit
        the window more tightly. Why does the chapter never do that?
        """,
        zh="""
        ### 思考 — 为什么要整组保留或丢弃？

        预算也可以只丢弃单条消息，而不是整个交互，从而更紧地填满窗口。为什么本章从不这样做？
        """,
    ),
    reveal(
        """
        A group is a user message and everything up to the next one: an
        assistant's tool calls, their results, the final answer. Cutting inside
        it would send a tool result whose call is gone, or a call without its
        result: half a round trip the model cannot make sense of (most providers
        refuse such a request outright). So the only
        cut points are between groups, and the newest group is sent whole even
        when it alone does not fit (`single_group_overflow`): the caller, who
        knows more, decides what to do then.
        """,
        zh="""
        一组是一条 user 消息，以及直到下一条 user 消息之前的所有内容：assistant 的 tool
        call、它们的 result、最终回答。在组内裁剪，就会发出一个 call 已经不在的 tool result，
        或一个没有 result 的 call：模型无法理解的半次往返（大多数 provider 会直接拒绝这样的
        请求）。所以切点只能落在组与组之间；最新一组即使单独放不下，也会整组发送
        （`single_group_overflow`）：接下来怎么办，由掌握更多信息的调用者决定。
        """,
    ),
    md(
        """
        ### To think about — why is history never rewritten?

        Compaction could delete the messages its summary covers, and the session
        file would shrink. Why does the chapter append a compaction entry instead?
        """,
        zh="""
        ### 思考 — 为什么历史从不改写？

        compaction 本可以删除摘要覆盖的那些消息，让 session 文件变小。为什么本章改为追加一条
        compaction entry？
        """,
    ),
    reveal(
        """
        The session is the record of what happened; the context is only a view of
        it, rebuilt for each model call. Appending keeps every fact: another
        window, another budget, or a better summary later can still be built from
        the same history, and a second compaction needs nothing the first one
        threw away. The compaction entry says where the kept part starts
        (`firstKeptEntryId`) and how large the context was (`tokensBefore`), so
        restoring needs nothing else.
        """,
        zh="""
        session 是发生过的事情的记录；上下文只是它的一个视图，每次调用模型时重新构建。追加
        保留了每一条事实：换一个窗口、换一个预算，或者以后有了更好的摘要，都仍然能从同一段
        历史构建；第二次 compaction 也用不到任何被第一次丢掉的东西。compaction entry 写明
        保留部分从哪里开始（`firstKeptEntryId`）以及上下文原来有多大（`tokensBefore`），所以
        恢复不再需要别的信息。
        """,
    ),
]
