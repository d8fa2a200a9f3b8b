"""03 — Lab 11.3: the budget projection, whole groups newest first."""

from __future__ import annotations

from .cells import (
    Cell,
    Lesson,
    answer,
    checks_cells,
    code,
    exercise_cells,
    fixture_cells,
    key_points_cell,
    lesson_cell,
    md,
    reveal,
    your_turn_cells,
)

TRANSLATED = True

LESSON = Lesson(
    minutes=90,
    objectives=(
        "compute the message allowance from `max_tokens`, the replayed system message, "
        "`reserved_output` and `safety_margin`, and say what each of the two reserves is for",
        "pick the whole interaction groups a window keeps, newest first, and name the entry "
        "`kept_entry_ids` starts with",
        "predict what `build_context` returns when the newest group alone does not fit, and "
        "explain why trimming message by message is unsafe",
        "say what `build_context` is given (an active path from `path_to`, the budget options) "
        "and what it returns (`messages`, `kept_entry_ids`, `reason`, `tokens`)",
    ),
    objectives_zh=(
        "由 `max_tokens`、重放出的 system message、`reserved_output` 和 `safety_margin` "
        "算出消息额度，并说出两项预留各自的用途",
        "从最新一组向前，找出一个窗口保留哪些完整的交互分组，并说出 `kept_entry_ids` 的第一项",
        "预测最新一组单独就放不下时 `build_context` 返回什么，并解释为什么逐条消息裁剪不安全",
        "说明 `build_context` 接收什么（用 `path_to` 得到的活动路径、预算选项）、返回什么"
        "（`messages`、`kept_entry_ids`、`reason`、`tokens`）",
    ),
    key_points=(
        "Fixed costs first: `available_for_messages = max(0, max_tokens - system - "
        "reserved_output - safety_margin)`. `reserved_output` is room for this turn's reply; "
        "`safety_margin` absorbs the estimator's error.",
        "Groups are kept whole, newest first, while they fit. The newest group is always "
        'returned, even alone over budget, and then `reason = "single_group_overflow"`.',
        "The system message is replayed from the whole path (a `None` section is deleted), "
        "comes first in `messages` and is never in `kept_entry_ids`; with none on the path, "
        "`tokens.system` is 0.",
        "`build_context` only reads: the caller picks the leaf with `path_to`, and decides what "
        "to do with the result. The history is never changed.",
    ),
    key_points_zh=(
        "先扣固定成本：`available_for_messages = max(0, max_tokens - system - "
        "reserved_output - safety_margin)`。`reserved_output` 给本轮回复留空间，"
        "`safety_margin` 吸收估算误差。",
        "分组整组保留，从最新一组向前，直到放不下为止。最新一组总会返回，即使它单独就超出"
        '预算；这时 `reason = "single_group_overflow"`。',
        "system message 从整条路径重放（值为 `None` 的段落被删除），排在 `messages` 最前面，"
        "但从不进入 `kept_entry_ids`；路径上没有 system message 时，`tokens.system` 为 0。",
        "`build_context` 只读：调用者用 `path_to` 选定 leaf，并决定怎样处理结果。历史从不改动。",
    ),
)

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.3 — Budget projection over whole groups

        **Chapter section:** 「31 个 token 怎样留下第二、三组」

        **Goal.** `build_context` turns an active path into the messages of one
        model call. The caller brings the path and the budget options. Fixed costs
        come first: the replayed system message, the room reserved for the answer, a
        safety margin. What is left is the message allowance, spent on whole
        interaction groups from the newest backwards. The history is never changed;
        the result is a fresh *context projection*.

        **Builds on.** Chapter 10's `path_to`, Lab 11.2's `group_interactions`, and
        Chapter 3's system replay (`current_system_message`).

        **Checks.** `tests/labs/test_lab_11_3.py` (3 checks).
        """,
        zh="""
        # 实验 11.3 — 以完整分组为单位的预算投影

        **本章小节：**「31 个 token 怎样留下第二、三组」

        **目标。** `build_context` 把活动路径变成一次模型调用的消息。路径和预算选项由调用者
        带来。先扣固定成本：重放出的 system message、给回答预留的空间、安全余量。剩下的是
        消息额度，从最新一组向前，按完整的交互分组使用。历史从不改动；结果是一份新的
        *上下文投影*（context projection）。

        **基础。** 第 10 章的 `path_to`、实验 11.2 的 `group_interactions`，以及第 3 章的
        system 重放（`current_system_message`）。

        **检查。** `tests/labs/test_lab_11_3.py`（3 项检查）。
        """,
    ),
    lesson_cell(LESSON),
    code(
        """
        %matplotlib inline
        %config InlineBackend.figure_formats = ["png"]

        from functools import partial
        from pathlib import Path

        from IPython.display import display

        from course_lib import build_context, chapter_fixture, fixture_estimator, group_interactions, views
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import answer_box, checks_frame, styled_fixture_frame

        views.setup_notebook(LANG)
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — the caller brings the active path

        「buildContext() 不负责从整棵 session tree 选择 leaf。调用者先用第 10 章的
        pathTo() 得到活动路径」: `build_context` does not choose a leaf from the
        whole session tree. The caller first gets the active path with Chapter 10's
        `path_to`, then passes that path and the budget options. Below, a store holds
        the ten entries and a second branch: `u3-retry` hangs after `a2` (the user
        asked again, differently). `path_to` follows the parent ids back from the
        leaf it is given:
        """,
        zh="""
        ## 第 1 步 — 调用者带来活动路径

        「buildContext() 不负责从整棵 session tree 选择 leaf。调用者先用第 10 章的
        pathTo() 得到活动路径」，再把这条路径和预算选项传进来。下面的 Store 里有十条
        entry，外加第二条分支：`u3-retry` 挂在 `a2` 后面（用户换了一种说法重新提问）。
        `path_to` 从给定的 leaf 出发，沿 parent id 向回走：
        """,
    ),
    code(
        """
        from course_lib import InMemorySessionStore, MessageEntry, path_to, user_message

        store = InMemorySessionStore()
        for entry in path:
            store.append(entry)
        retry = user_message("Run only the JSONL tests.", timestamp=11)
        store.append(MessageEntry(id="u3-retry", parent_id="a2", timestamp=11, message=retry))

        print("in the store:         ", [entry.id for entry in store.entries()])
        print("path_to(..., a3):      ", views.path_arrow(path_to(store.entries(), "a3")))
        print("path_to(..., u3-retry):", views.path_arrow(path_to(store.entries(), "u3-retry")))
        """,
        zh_strings={
            "Run only the JSONL tests.": "只运行 JSONL 的测试。",
            "in the store:         ": "Store 中的 entries：  ",
        },
    ),
    md(
        """
        ### Exercise 11.3-e1 — the whole store instead of a path

        A caller skips `path_to` and hands `store.entries()`, both branches, to
        `build_context` with the chapter's budget (31 / 4 / 2). Explain in a sentence
        what the model would be sent, and why `build_context` cannot notice. Then
        open the two blocks below.
        """,
        zh="""
        ### 练习 11.3-e1 — 整个 Store 而不是一条路径

        调用者跳过 `path_to`，把 `store.entries()`（两条分支都在内）连同本章的预算（31 / 4 / 2）
        交给 `build_context`。用一句话解释模型会收到什么，以及为什么 `build_context` 察觉
        不到。然后打开下面的两个折叠块。
        """,
    ),
    answer(
        """
        mixed = build_context(
            store.entries(), max_tokens=31, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        print("kept_entry_ids:", mixed.kept_entry_ids)
        """
    ),
    reveal(
        """
        Both branches, one after the other: `u3 … a3` and then `u3-retry`, a
        conversation that never happened. `build_context` never follows parent ids:
        it takes the entries it is given, in their order, as one path, so
        `u3-retry` simply opens one more group. Which branch the conversation is on
        is the caller's decision, made with `path_to`. From here on `path` is the
        path to `a3`, the chapter's active path.
        """,
        zh="""
        两条分支前后相接：先是 `u3 … a3`，再是 `u3-retry`，一段从未发生过的对话。
        `build_context` 从不沿 parent id 走：它把收到的 entries 按原顺序当作一条路径，
        所以 `u3-retry` 只是又开启了一组。对话在哪条分支上由调用者决定，用的是
        `path_to`。从这里开始，`path` 就是通向 `a3` 的路径，即本章的活动路径。
        """,
    ),
    md(
        """
        ## Step 2 — fixed costs first

        The chapter calls `buildContext(activePath, {maxTokens: 31, reservedOutput: 4,
        safetyMargin: 2, estimateTokens})`. Those four entries of the options object
        are its 「四个配置数值」 (four configuration values): three numbers and the
        estimator. The workbook keeps the three numbers together as one
        `Budget(max_tokens, reserved_output, safety_margin)` and passes the estimator
        beside it as `estimate_tokens`; `build_context` takes the same three numbers
        as keywords, which `budget.keywords()` spells out. The system prompt is not
        an option: it is read from the path itself and priced like any message (3
        tokens). Each fixed cost is deducted from the window in turn:
        """,
        zh="""
        ## 第 2 步 — 先扣固定成本

        本章的调用是 `buildContext(activePath, {maxTokens: 31, reservedOutput: 4,
        safetyMargin: 2, estimateTokens})`。预算选项对象里的这四项，就是本章说的
        「四个配置数值」：三个数值加上估算器。本工作簿把三个数值合成一个
        `Budget(max_tokens, reserved_output, safety_margin)`，估算器则作为 `estimate_tokens`
        放在它旁边传入；`build_context` 以关键字参数接收同样的三个数值，`budget.keywords()`
        把它们逐个写出来。system prompt 不是一个选项：它从路径本身读出，像任何消息一样计价
        （3 个 token）。各项固定成本依次从窗口中扣除：
        """,
    ),
    code(
        """
        from course_lib import Budget, message_allowances

        budget = Budget(max_tokens=31, reserved_output=4, safety_margin=2)
        result = build_context(path, **budget.keywords(), estimate_tokens=estimate)
        views.deduction_frame(result)
        """
    ),
    md(
        """
        What the two reserves are for: 「reservedOutput 给本轮 assistant 回复留空间，
        safetyMargin 吸收估算误差」. `reserved_output` keeps room for this turn's
        assistant reply, which the model writes into the same window;
        `safety_margin` absorbs the estimator's error, because a test estimator is
        not the provider's tokenizer. Below, a stand-in for the provider's count
        charges each tool result one token more than the estimate. The chapter does
        not give these counts; the workbook chose one extra token per tool result.
        The request is then 2 tokens larger than estimated, and the margin of 2
        takes them: the reply still has its 4 tokens.
        """,
        zh="""
        两项预留的用途：「reservedOutput 给本轮 assistant 回复留空间，safetyMargin 吸收
        估算误差」。`reserved_output` 为本轮 assistant 回复留出空间，模型把回复写进同一个
        窗口；`safety_margin` 吸收估算误差，因为测试估算器不是 provider 的 tokenizer。下面用
        一个函数代替 provider 的计数：每条 tool result 比估算多算 1 个 token。本章没有给出
        这些数；本工作簿选用每条 tool result 多 1 个 token。于是请求比估算多出 2 个 token，
        正好由 2 个 token 的安全余量吸收：回复仍有它的 4 个 token。
        """,
    ),
    code(
        """
        def provider_count(message):
            \"\"\"A stand-in for the provider's tokenizer: the estimate, plus 1 for a tool result.\"\"\"
            return estimate(message) + (1 if message.role == "toolResult" else 0)


        estimated = result.tokens.system + result.tokens.messages
        counted = sum(provider_count(message) for message in result.messages)
        print("request, estimated:", estimated)
        print("request, counted:  ", counted)
        print("left for the reply:", result.tokens.max_tokens - counted)
        print("reserved_output:   ", result.tokens.reserved_output)
        """,
        zh_strings={
            "request, estimated:": "请求，估算：         ",
            "request, counted:  ": "请求，provider 计数：",
            "left for the reply:": "留给回复：           ",
            "reserved_output:   ": "reserved_output：    ",
        },
    ),
    md(
        """
        The table's last column is what `message_allowances(budget, system_tokens,
        summary_tokens=0)` returns, one of the six functions you write in this lab.
        It already takes `summary_tokens`: the chapter assembles the result as
        `[system?, ...fixedMessages, ...selected messages]`, and `fixedMessages`
        「目前为空，留给后文的压缩摘要」 (is empty for now, a slot for the compaction
        summary to come). Until Lab 11.5 writes a summary it costs 0, so the two
        allowances the function returns, for messages and then for groups, are
        the same:
        """,
        zh="""
        表格最后一列就是 `message_allowances(budget, system_tokens, summary_tokens=0)` 的
        返回值，它是你在本实验中要写的六个函数之一。它已经带有 `summary_tokens`：本章把结果
        拼成 `[system?, ...fixedMessages, ...selected messages]`，而 `fixedMessages`
        「目前为空，留给后文的压缩摘要」。在实验 11.5 写出摘要之前，摘要的成本是 0，所以
        这个函数返回的两个额度（先是消息的，再是分组的）相同：
        """,
    ),
    code("message_allowances(budget, result.tokens.system)"),
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
        ## Step 3 — whole groups, newest first

        Group 3 costs 15 and fits; adding group 2 makes exactly 22 and still fits;
        adding group 1 would make 29 > 22, so the selection stops at `u2`. This
        table only adds the running total a student computes by hand: the status
        column is not decided here but read from the budget's own plan, the one
        `build_context` follows (the transfer exercise builds its ledger on the
        same plan).
        """,
        zh="""
        ## 第 3 步 — 完整分组，从最新开始

        第 3 组成本 15，放得下；加上第 2 组正好 22，仍然放得下；再加第 1 组会变成 29 > 22，
        于是选择停在 `u2`。这张表只是补上了学生手算的累计成本：状态列不是在这里判定的，
        而是读自预算本身的计划，也就是 `build_context` 所遵循的那一份（迁移练习的账本也
        建立在同一份计划上）。
        """,
    ),
    code("views.group_budget_frame(path, **budget.keywords(), estimate_tokens=estimate)"),
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
        views.fixture_frame(last_three, estimate, groups=False)
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
    answer("views.expected_failure(partial(group_interactions, last_three))"),
    md(
        """
        ## Step 4 — the result

        `messages` is `[system, ...kept messages]`, all deep copies. Notice that
        `sys` comes first but is not in `kept_entry_ids`: the replayed system message
        may be folded from several entries, so no single entry id stands for it.
        `u1` and `a1` are still in the session; they are only left out of this call.
        """,
        zh="""
        ## 第 4 步 — 结果

        `messages` 是 `[system, ...kept messages]`，全部是深副本。注意 `sys` 排在最前面，
        却不在 `kept_entry_ids` 里：重放出的 system message 可能由好几条 entry 合成，没有一个
        entry id 能单独代表它。`u1` 和 `a1` 仍在 session 中，只是没有进入这次调用。
        """,
    ),
    code(
        """
        print("kept_entry_ids:", result.kept_entry_ids)
        print("reason:", result.reason)
        views.messages_frame(result, estimate)
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
    code("views.projection_frame(result.tokens)"),
    md(
        """
        Nothing is added to this list later: 「第 13 章把这份 messages 原样交给模型，
        prompt 已经在里面」. Chapter 13 hands `messages` to the model as it is, and
        the prompt is already inside, as its first message:
        """,
        zh="""
        之后不会再往这份列表里添加任何东西：「第 13 章把这份 messages 原样交给模型，prompt
        已经在里面」。prompt 就是它的第一条消息：
        """,
    ),
    code(
        """
        from course_lib import system_message_text

        first = result.messages[0]
        print(first.role, repr(system_message_text(first)))
        """
    ),
    md(
        """
        ## Step 5 — the system message comes from the path

        `build_context` replays every system message of the whole path with
        Chapter 3's `current_system_message`: 「非空 content 依次追加，sections 按名字
        覆盖，null 删除段落」. Non-empty contents are appended, `sections` overwrite by
        name, and `null` (`None` in Python) deletes a section. The fixture has one
        system message, so its replay is `sys` itself. Below, two system messages
        the workbook made up: `adds` sets a `rules` section and `deletes` sets it
        to `None`. The chapter does not give their costs; the test estimator prices
        a message it does not know at one token per 4 characters, rounded up, a
        rule the workbook chose.
        """,
        zh="""
        ## 第 5 步 — system message 来自路径

        `build_context` 用第 3 章的 `current_system_message` 重放整条路径上的每条 system
        message：「非空 content 依次追加，sections 按名字覆盖，null 删除段落」（Python 里的
        null 是 `None`）。fixture 只有一条 system message，所以重放结果就是 `sys` 本身。
        下面是本工作簿编写的两条 system message：`adds` 设置一个 `rules` 段落，`deletes`
        把它设为 `None`。本章没有给出它们的成本；本工作簿选用的规则是：测试估算器对它不认识
        的消息按每 4 个字符 1 个 token 计价，向上取整。
        """,
    ),
    code(
        """
        from course_lib import SystemMessage, current_system_message

        base = path[0].message
        adds = SystemMessage(content="", sections={"rules": "Keep every diff small."}, timestamp=11)
        deletes = SystemMessage(content="", sections={"rules": None}, timestamp=12)
        for messages in ([base], [base, adds], [base, adds, deletes]):
            replayed = current_system_message(messages)
            prompt = system_message_text(replayed)
            print(f"{prompt!r:32} sections: {replayed.sections}, tokens: {estimate(replayed)}")
        """,
        zh_strings={
            "Keep every diff small.": "每次改动都要小：一个 diff 只做一件事。",
            "{prompt!r:32} sections: {replayed.sections}, tokens: {estimate(replayed)}": (
                "{prompt!r:32} sections：{replayed.sections}，token 数：{estimate(replayed)}"
            ),
        },
    ),
    md(
        """
        ### Exercise 11.3-e2 — a deleted section in the budget

        Suppose the path held `adds` and then `deletes` as two more system messages
        after `sys`, and the budget were the chapter's 31 / 4 / 2. Explain in a
        sentence what `tokens.system` and `available_for_messages` would be, and
        what they would be with `adds` alone.
        """,
        zh="""
        ### 练习 11.3-e2 — 预算中被删除的段落

        假设路径在 `sys` 之后还有 `adds` 和 `deletes` 两条 system message，预算仍是本章的
        31 / 4 / 2。用一句话解释 `tokens.system` 和 `available_for_messages` 会是多少，以及
        只有 `adds` 时它们又是多少。
        """,
    ),
    reveal(
        """
        With both: 3 and 22, as for the fixture, because the budget prices the one
        replayed message, not each system message, and the deleted section is no
        longer in it. With `adds` alone the replay carries the section: 7 tokens,
        so the allowance is 31 - 7 - 4 - 2 = 18.
        """,
        zh="""
        两条都有时：3 和 22，与 fixture 相同，因为预算计价的是重放出的那一条消息，而不是
        每一条 system message，被删除的段落已经不在其中。只有 `adds` 时，重放结果带着这个
        段落：7 个 token，所以额度是 31 - 7 - 4 - 2 = 18。
        """,
    ),
    md(
        """
        **Predict first.** Take `sys` off the fixture's path and keep the chapter's
        budget, 31 / 4 / 2. Which entry does `kept_entry_ids` start with now, and
        what is the first message of `messages`? Decide, then open the answer.
        """,
        zh="""
        **先预测。** 从 fixture 的路径上去掉 `sys`，预算仍是本章的 31 / 4 / 2。现在
        `kept_entry_ids` 从哪条 entry 开始？`messages` 的第一条消息是什么？先想好，再打开答案。
        """,
    ),
    answer(
        """
        no_system = [entry for entry in path if entry.id != "sys"]
        bare = build_context(no_system, **budget.keywords(), estimate_tokens=estimate)
        print("tokens.system:", bare.tokens.system)
        print("messages[0]:", bare.messages[0].role, "=", bare.kept_entry_ids[0])
        views.deduction_frame(bare)
        """
    ),
    reveal(
        """
        「路径上没有 system message 时，这一项为 0，结果里也没有开头的 system」: with no
        system message `tokens.system` is 0 and `messages` has no leading system message;
        it starts with the first kept message. The allowance grows by 3, to 25, but the
        selection still stops at `u2`: 15 + 7 = 22 fits, and adding group 1 would make
        29 > 25. Three tokens more do not buy a group of 7.
        """,
        zh="""
        「路径上没有 system message 时，这一项为 0，结果里也没有开头的 system」：没有 system
        message 时 `tokens.system` 为 0，`messages` 开头也没有 system message，而是从第一条
        保留的消息开始。消息额度增加 3，变成 25，但选择仍停在 `u2`：15 + 7 = 22 放得下，再加
        第 1 组就是 29 > 25。多出的 3 个 token 买不下一个 7 个 token 的组。
        """,
    ),
    md(
        """
        ## Step 6 — a lone group that does not fit

        **Predict first.** With `max_tokens = 19` the allowance is 19 - 3 - 4 - 2 = 10,
        but the newest group alone costs 15. Will `build_context` cut group 3,
        return no conversation at all, or keep group 3 whole? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 6 步 — 放不下的单独一组

        **先预测。** `max_tokens = 19` 时，消息额度是 19 - 3 - 4 - 2 = 10，但仅最新一组就
        需要 15。`build_context` 会把第 3 组剪短、完全不返回对话，还是完整保留第 3 组？先
        决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        tight = Budget(max_tokens=19, reserved_output=4, safety_margin=2)
        squeezed = build_context(path, **tight.keywords(), estimate_tokens=estimate)
        display(views.group_budget_frame(path, **tight.keywords(), estimate_tokens=estimate))
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
        ## Step 7 — a window smaller than the fixed costs, and bad numbers

        「固定成本超过总窗口时，消息额度降到 0，不会变成负数」: the allowance never
        goes below 0. With `max_tokens = 8` the fixed costs (3 + 4 + 2 = 9) are more
        than the window: the allowance is 0, not -1, and the newest group is still
        returned whole, as an overflow.
        """,
        zh="""
        ## 第 7 步 — 比固定成本还小的窗口，以及错误的数值

        「固定成本超过总窗口时，消息额度降到 0，不会变成负数」。`max_tokens = 8` 时，固定
        成本（3 + 4 + 2 = 9）超过了窗口：额度是 0，而不是 -1，最新一组仍然作为超限情况被
        完整返回。
        """,
    ),
    code(
        """
        tiny = build_context(path, **Budget(8, 4, 2).keywords(), estimate_tokens=estimate)
        print("available_for_messages:", tiny.tokens.available_for_messages)
        print("reason:", tiny.reason)
        views.deduction_frame(tiny)
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
        The chapter's rule 1: 「四个配置数值和估算器的每次返回值都要是非负有限数」. The
        three numbers and every value the estimator returns must be finite and >= 0.
        In the workbook a `Budget` checks its three numbers as it is made, so a wrong
        one never reaches the budget code, and each estimate is checked where it is
        priced; `build_context` makes a `Budget` from its keywords, so both ways of
        calling are checked. The error names which number or which message is wrong:
        """,
        zh="""
        本章的规则 1：「四个配置数值和估算器的每次返回值都要是非负有限数」。三个数值以及估算器
        返回的每个值，都必须是有限数且 >= 0。在本工作簿中，`Budget` 在创建时就检查它的三个
        数值，错误的数值到不了预算代码；每个估算值则在计价时检查。`build_context` 用它的
        关键字参数创建一个 `Budget`，所以两种调用方式都会被检查。错误消息会指出是哪个数值或
        哪条消息有问题：
        """,
    ),
    code(
        """
        def nan_estimator(message):
            \"\"\"An estimator whose every answer is NaN, which no budget can add up.\"\"\"
            return float("nan")


        views.errors_frame(
            {
                "Budget(31, -1, 2)": partial(Budget, 31, -1, 2),
                "max_tokens infinity": partial(
                    build_context, path, max_tokens=float("inf"), estimate_tokens=estimate
                ),
                "estimator returns NaN": partial(
                    build_context, path, max_tokens=31, estimate_tokens=nan_estimator
                ),
            }
        )
        """,
        zh_strings={
            "max_tokens infinity": "max_tokens 为无穷大",
            "estimator returns NaN": "估算器返回 NaN",
        },
    ),
    md(
        """
        ## Step 8 — explore the budget *(optional)*

        Move the three sliders. The explorer recomputes `build_context` and its
        per-group plan on every change and shows the group table, the kept ids and the
        reason, and a bar of where the window goes (system, kept groups, reserved
        output, margin, unused), with the groups left out drawn beside it. Try
        `max_tokens` 40 (everything fits), 24 (only group 3) and 19 (overflow).
        """,
        zh="""
        ## 第 8 步 — 探索预算 *（选做）*

        拖动三个滑块。每次改动，探索器都会重新计算 `build_context` 及其逐组计划，显示分组表、
        保留的 id 和 reason，以及窗口去向的条形图（system、保留的分组、预留输出、安全余量、
        未使用的部分），旁边是被留在外面的分组。试试 `max_tokens` 取 40（全部放得下）、
        24（只有第 3 组）和 19（超限）。
        """,
    ),
    code(
        """
        explorer = views.BudgetExplorer(path, estimate, **budget.keywords(), lang=LANG)
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
        views.bar_frame(state.bar)
        """
    ),
    md(
        "The same bar as a picture (pictures are not compared; the table above is):",
        zh="同一条形图的图片（图片不比较；上面的表格会比较）：",
    ),
    code("explorer.figure()"),
    md(
        """
        ## Step 9 — what a message-by-message trimmer does *(optional)*

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
        ## 第 9 步 — 逐条消息裁剪的做法 *（选做）*

        别的库按单条消息裁剪对话。LangChain 的 `trim_messages`（`strategy="last"`、
        `include_system=True`）保留总和不超过 `max_tokens` 的最新消息；加上
        `start_on="human"` 时，它再丢掉开头的消息，直到第一条保留的是 user 消息。下面让它和
        `build_context` 裁剪同样的 200 条随机路径（闲聊、和开篇形状相同的轮次、乱序作答的
        多轮工具调用；种子 20251203），每条路径的预算随机取其成本的 10% 到 90%，用同一条
        chars/4 规则计数。每个数字都是路径的条数（共 200 条）：
        """,
    ),
    code("views.trimmer_comparison_frame()"),
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
    key_points_cell(LESSON),
]
