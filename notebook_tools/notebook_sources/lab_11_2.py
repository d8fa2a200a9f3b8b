"""02 — Lab 11.2: interactions, split at user messages and checked by call/result ids."""

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
    minutes=40,
    objectives=(
        "split an active path into interactions, and say which group each message joins, "
        "system messages included",
        "name the places where a budget may cut a path, and why it may cut nowhere else",
        "decide whether a group whose tool results arrive in another order is valid",
        "read an `InteractionError` and find the entry or call id it names",
    ),
    objectives_zh=(
        "把一条活动路径分成交互，并说出每条消息归入哪一组，包括 system message",
        "指出预算可以在路径的哪些位置裁剪，以及为什么别处都不行",
        "判断 tool result 以别的顺序到达的一组是否合法",
        "读懂 `InteractionError`，找到它指出的 entry 或 call id",
    ),
    key_points=(
        "A user message closes the open group and opens the next. A system message belongs "
        "to no group wherever it stands: it never splits a group or joins one.",
        "Inside a group, calls and results are paired by id only, when the group closes: "
        "position, `toolName` and the final assistant message play no part, so a result may "
        "even come before its call.",
        "A group is the smallest unit a budget keeps or drops: on the fixture it may cut only "
        "at `a1 | u2` and `a2 | u3`.",
        "Bad ids stop at grouping, before any budget, with an error naming the result entry "
        "or the call id (duplicate, unknown call, missing result).",
    ),
    key_points_zh=(
        "一条 user 消息结束当前组，并开启下一组。system message 无论出现在哪里都不属于任何"
        "一组：它既不会切开一组，也不会混入一组。",
        "在一组之内，call 与 result 只按 id 配对，而且在这一组结束时才配对：位置、`toolName` "
        "和终态 assistant 消息都不参与，所以 result 甚至可以出现在它的 call 前面。",
        "组是预算整体保留或整体丢弃的最小单位：在 fixture 上，只能在 `a1 | u2` 和 "
        "`a2 | u3` 处裁剪。",
        "错误的 id 在分组时就停下，早于任何预算；错误消息指出 result entry 或 call id"
        "（duplicate、unknown call、missing result）。",
    ),
)

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.2 — Interactions: user boundaries and call/result ids

        **Chapter section:** 「两个 tool result 仍属于 u3 开始的同一组」

        **Goal.** A budget must never keep a tool call and drop its result (or the
        other way round). So before anything is counted, the path's messages are
        split into **interactions**: a user message opens one, and the messages up
        to the next user message belong to it. Inside an interaction, tool calls and
        results are checked against each other by their ids. An interaction is the
        smallest unit a budget keeps or drops.

        **Builds on.** The active path from Chapter 10 (`path_to`) and the message
        types of Chapter 3 (`toolCall` blocks, `toolResult` messages).

        **Checks.** `tests/labs/test_lab_11_2.py` (3 checks).
        """,
        zh="""
        # 实验 11.2 — 交互：user 边界与 call/result id

        **本章小节：**「两个 tool result 仍属于 u3 开始的同一组」

        **目标。** 预算绝不能保留一个 tool call 却丢掉它的 result（反过来也不行）。所以在
        计算任何成本之前，路径上的消息先被分成**交互**（interaction）：一条 user 消息开启
        一组，直到下一条 user 消息之前的消息都属于这一组。在一组之内，tool call 与
        result 按各自的 id 互相核对。交互是预算整体保留或整体丢弃的最小单位。

        **基础。** 第 10 章的活动路径（`path_to`），以及第 3 章的消息类型（`toolCall`
        块、`toolResult` 消息）。

        **检查。** `tests/labs/test_lab_11_2.py`（3 项检查）。
        """,
    ),
    lesson_cell(LESSON),
    code(
        """
        from pathlib import Path

        from IPython.display import display

        from course_lib import (
            build_context,
            chapter_fixture,
            fixture_estimator,
            group_interactions,
            parse_session_entry,
            views,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import answer_box, checks_frame, setup_notebook, styled_fixture_frame

        setup_notebook(LANG)
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — three groups

        `group_interactions` takes the active path's message entries. It skips
        `sys`, opens a group at `u1`, closes it and opens the next at `u2`, does
        the same at `u3`, and closes the last group at the end of the path. Notice
        the last two columns: `calls` declares `read-1` first, but `test-1`
        finished first, so its result comes first on the path, and the group
        still holds both results.
        """,
        zh="""
        ## 第 1 步 — 三组

        `group_interactions` 接收活动路径中的 message entries。它跳过 `sys`，在 `u1`
        处开启一组，到 `u2` 时结束这一组并开启下一组，在 `u3` 处做同样的事，并在路径末尾
        结算最后一组。注意最后两列：`calls` 先声明 `read-1`，但 `test-1` 先完成，所以它的
        result 在路径上排在前面，而这一组仍然包含两个 result。
        """,
    ),
    code(
        """
        groups = group_interactions(path)
        views.groups_frame(groups, estimate)
        """
    ),
    md(
        "The groups hold the entries in path order, exactly as the chapter lists them:",
        zh="各组按路径顺序保存 entries，与本章列出的完全一致：",
    ),
    code(
        """
        for group in groups:
            print(group.entry_ids)
        """
    ),
    md(
        """
        ## Step 2 — a system message in the middle of the path

        `sys` comes before any user message. Here is a path where a system
        message arrives later: `note` ("Prefer small diffs.") hangs after `a2`,
        and `u3` now hangs after `note`. The fixture's entries go through the
        parser again as wire dicts, as a store would read them:
        """,
        zh="""
        ## 第 2 步 — 路径中间的 system message

        `sys` 出现在任何 user 消息之前。下面这条路径里，一条 system message 来得更晚：
        `note`（"优先做小的改动：每次提交只改一个地方。"）挂在 `a2` 后面，而 `u3` 改为挂在 `note` 后面。
        fixture 的 entries 以 wire dict 的形式重新经过 parser，就像 Store 读取它们那样：
        """,
    ),
    code(
        """
        wires = [entry.to_wire() for entry in path]
        note = {
            "id": "note",
            "parentId": "a2",
            "timestamp": 5,
            "type": "message",
            "message": {"role": "system", "content": "Prefer small diffs.", "timestamp": 5},
        }
        wires.insert(5, note)
        wires[6]["parentId"] = "note"  # u3 now hangs after note
        with_note = [parse_session_entry(wire) for wire in wires]
        print(views.path_arrow(with_note))
        """,
        zh_comments={"u3 now hangs after note": "u3 改为挂在 note 后面"},
        zh_strings={"Prefer small diffs.": "优先做小的改动：每次提交只改一个地方。"},
    ),
    md(
        """
        **Predict first.** Which groups does `group_interactions(with_note)`
        return? Does `note` close group 2, join group 2 or group 3, open a group
        of its own, or stay out of every group? Write down the groups, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** `group_interactions(with_note)` 返回哪些组？`note` 会结束第 2 组、
        混入第 2 组或第 3 组、自己开启一组，还是不属于任何一组？先写下这些组，再点击
        下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        with_note_groups = group_interactions(with_note)
        for group in with_note_groups:
            print(group.entry_ids)
        print("same groups as without note:", [g.entry_ids for g in with_note_groups] == [g.entry_ids for g in groups])
        """,
        zh_strings={"same groups as without note:": "与没有 note 时的分组相同："},
    ),
    reveal(
        """
        The same three groups as without `note`, and `note` is in none of them.
        A system message records prompt state, not conversation, so
        `group_interactions` skips it wherever it stands: it neither closes
        group 2 nor joins a group. Only a user message opens a group.
        """,
        zh="""
        与没有 `note` 时同样的三组，而 `note` 不在其中任何一组。system message 记录的
        是 prompt 状态，不属于对话，所以无论它出现在哪里，`group_interactions` 都跳过
        它：它既不结束第 2 组，也不混入哪一组。只有 user 消息开启一组。
        """,
    ),
    md(
        """
        So **a system message is skipped wherever it stands**, as the chapter
        says: 「system message 出现在两组之间时也一样跳过，不会切开或混入哪一组」.
        The fixture table shows it too: `note` is labelled `system`, like `sys`.
        """,
        zh="""
        所以 **system message 无论出现在哪里都被跳过**，正如本章所说：「system message
        出现在两组之间时也一样跳过，不会切开或混入哪一组」。fixture 表格也显示了这一点：
        `note` 和 `sys` 一样标为 `system`。
        """,
    ),
    code('styled_fixture_frame(with_note, uuid="with-note")'),
    *exercise_cells(
        "11.2-q1",
        """
        ### Exercise 11.2-q1 — group another path

        `system_replay_fixture()` (from `course_lib`) is Lab 11.5's path:
        `sys → u1 → a1 → patch-1 → u2 → a2 → compact-1 → patch-2 → u3 → a3`, where
        `sys`, `patch-1` and `patch-2` are system messages and `compact-1` is a
        compaction entry. Which groups does `group_interactions` return for its
        message entries? Answer with a list of groups, each a list of entry ids in
        path order, e.g. `[["x1", "y1"], ["x2"]]`. Decide first; you may check
        with `group_interactions` afterwards (only message entries may be passed
        to it).
        """,
        "answer_q1 = ...",
        zh="""
        ### 练习 11.2-q1 — 给另一条路径分组

        `system_replay_fixture()`（来自 `course_lib`）是实验 11.5 的路径：
        `sys → u1 → a1 → patch-1 → u2 → a2 → compact-1 → patch-2 → u3 → a3`，其中
        `sys`、`patch-1` 和 `patch-2` 是 system message，`compact-1` 是一条 compaction
        entry。对它的 message entries，`group_interactions` 返回哪些组？用组的列表作答，
        每组是按路径顺序排列的 entry id 列表，例如 `[["x1", "y1"], ["x2"]]`。先自己决定；
        之后可以用 `group_interactions` 验证（只能把 message entries 传给它）。
        """,
    ),
    md(
        """
        ## Step 3 — where a budget may cut

        Every gap between two grouped messages, and whether a budget may cut there.
        Only `a1 | u2` and `a2 | u3` are allowed: a cut anywhere inside group 3
        would leave a tool call without its result, or a result without its call.
        """,
        zh="""
        ## 第 3 步 — 预算可以在哪里裁剪

        两条分组消息之间的每个间隙，以及预算能否在那里裁剪。只有 `a1 | u2` 和
        `a2 | u3` 允许：在第 3 组内部的任何位置裁剪，都会留下一个没有 result 的 tool
        call，或一个没有 call 的 result。
        """,
    ),
    code("views.cut_points_frame(path)"),
    md(
        """
        ## Step 4 — a result before its call

        **Predict first.** Move `r-test` *before* `calls`, in the same interaction,
        with its ids unchanged: `u3 → r-test → calls → r-read → a3`. Does
        `group_interactions` refuse the group, or does it still return one valid
        group? Decide, then click *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 4 步 — result 出现在它的 call 之前

        **先预测。** 把 `r-test` 移到 `calls` *前面*，仍在同一个交互里，id 不变：
        `u3 → r-test → calls → r-read → a3`。`group_interactions` 会拒绝这一组，还是
        仍然返回一个合法的组？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        by_id = {entry.id: entry for entry in path}
        moved = [by_id[entry_id] for entry_id in ["sys", "u3", "r-test", "calls", "r-read", "a3"]]
        views.groups_frame(group_interactions(moved), estimate)
        """
    ),
    reveal(
        """
        Still one valid group: the user message sets the boundary, and the id
        rules look at ids only. `r-test` answers `test-1` before `calls` declares
        it, but a result is paired with its call when the group closes, once both
        are known. Positions, tool names and the final assistant message play no
        part.
        """,
        zh="""
        仍然是一个合法的组：user 消息划定边界，而 id 规则只看 id。`r-test` 在 `calls`
        声明 `test-1` 之前就回答了它，但 result 与 call 的配对发生在这一组结束时，那时
        两者都已知道。数组位置、工具名和终态 assistant 消息都不参与配对。
        """,
    ),
    md(
        """
        So **results may come in any order**, even before their call: the chapter
        says 「若只把正常的 r-test(test-1) 移到 calls 前面，函数仍返回这一组」.

        Inside a group, the tool facts are checked by id only, never by position,
        by `toolName` or by which assistant message comes last. Four rules:

        1. each tool call id is declared once in the group (else: *duplicate*,
           naming the call id);
        2. each result's `toolCallId` names a call of the same group (else:
           *unknown call*, naming the result entry and the call id);
        3. a call has at most one result (else: *duplicate*, naming the call id);
        4. when the group closes, every call has its result (else: *missing
           result*, naming the call id and the entry that declared it).

        Rules 1 and 3 are checked as each message arrives; rules 2 and 4 when the
        group closes, once all its messages are known.
        """,
        zh="""
        所以 **result 可以任意顺序出现**，甚至出现在它的 call 之前：本章写道「若只把正常的
        r-test(test-1) 移到 calls 前面，函数仍返回这一组」。

        在一组之内，工具事实只按 id 核对，从不按位置、`toolName`，或最后出现的是哪条
        assistant 消息。四条规则：

        1. 每个 tool call id 在组内只声明一次（否则：*duplicate*，指出该 call id）；
        2. 每条 result 的 `toolCallId` 都指向同一组中的一个 call（否则：*unknown
           call*，指出该 result entry 和 call id）；
        3. 一个 call 至多对应一条 result（否则：*duplicate*，指出该 call id）；
        4. 这一组结束时，每个 call 都已有它的 result（否则：*missing result*，指出
           该 call id 和声明它的 entry）。

        规则 1 和 3 在每条消息到达时检查；规则 2 和 4 在这一组结束、所有消息都已知时
        检查。
        """,
    ),
    md(
        """
        ## Step 5 — changing a returned group

        **Predict first.** `groups` came from `group_interactions(path)` in Step 1.
        We change the `path` argument of `read-1` inside group 3 to
        `"changed.ts"`. Does the `calls` entry on `path` change too? Decide, then
        click *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 5 步 — 修改返回的组

        **先预测。** `groups` 来自第 1 步的 `group_interactions(path)`。我们把第 3 组里
        `read-1` 的 `path` 参数改成 `"changed.ts"`。`path` 上的 `calls` entry 也会跟着
        改变吗？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        calls_on_path = next(entry for entry in path if entry.id == "calls")
        groups[2].entries[1].message.content[0].arguments["path"] = "changed.ts"
        print("in the group:", groups[2].entries[1].message.content[0].arguments)
        print("on the path: ", calls_on_path.message.content[0].arguments)
        """,
        zh_strings={
            "in the group:": "组里的 arguments：  ",
            "on the path: ": "路径上的 arguments：",
        },
    ),
    reveal(
        """
        No: the path keeps `context.ts`. `group_interactions` returns deep
        copies, so a caller that edits a group (or a budget that hands one to a
        model) can never change the session's history.
        """,
        zh="""
        不会：路径上仍是 `context.ts`。`group_interactions` 返回深副本，所以修改一组的
        调用者（或把某组交给模型的预算）永远改不了 session 的历史。
        """,
    ),
    md(
        """
        So **the groups are copies**: the chapter's tests pin this for every public
        result (「公开副本隔离」).
        """,
        zh="所以 **分组是副本**：本章的测试对每个公开结果都固定了这一点（「公开副本隔离」）。",
    ),
    md(
        """
        ## Step 6 — expected failure: `unknown-1`

        Bad input stops before the budget. We change `r-test`'s `toolCallId` from
        `test-1` to `unknown-1`, going through the parser as a store would. The
        parser accepts it (the shape is fine), but the group can no longer pair it:
        """,
        zh="""
        ## 第 6 步 — 预期的失败：`unknown-1`

        错误输入在进入预算之前就会停下。我们把 `r-test` 的 `toolCallId` 从 `test-1`
        改成 `unknown-1`，并像 Store 一样经过 parser。parser 接受它（形状没有问题），
        但这一组再也无法为它配对：
        """,
    ),
    code(
        """
        def fixture_with(change) -> list:
            \"\"\"The fixture after ``change`` edited its wire dicts, parsed again.\"\"\"
            wires = {entry.id: entry.to_wire() for entry in chapter_fixture(LANG)}
            change(wires)
            return [parse_session_entry(wire) for wire in wires.values()]


        def unknown_call(wires: dict) -> None:
            wires["r-test"]["message"]["toolCallId"] = "unknown-1"


        broken = fixture_with(unknown_call)
        views.fixture_frame(broken, groups=False).tail(5)
        """
    ),
    md(
        """
        The error names the result entry `r-test` and the unknown call `unknown-1`.
        `build_context` groups first, so the same error stops the budget: group 3
        never reaches the selection.
        """,
        zh="""
        错误指出 result entry `r-test` 和未知的 call `unknown-1`。`build_context`
        先分组，所以同一个错误会让预算停下：第 3 组根本不会进入预算选择。
        """,
    ),
    code(
        """
        from functools import partial

        views.errors_frame(
            {
                "group_interactions(broken)": partial(group_interactions, broken),
                "build_context(broken, ...)": partial(
                    build_context, broken, max_tokens=31, estimate_tokens=estimate
                ),
            }
        )
        """
    ),
    *exercise_cells(
        "11.2-q2",
        """
        ### Exercise 11.2-q2 — a result goes missing

        Take the fixture without `r-read`. Which rule does `group_interactions`
        report, and which call id does its message name? Answer with a pair:
        the rule's word (`"duplicate"`, `"unknown call"`, `"missing result"` or
        `"before the first user message"`, or `"valid"` if you think the path is
        fine) and the call id, e.g. `("duplicate", "x-1")`.
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 11.2-q2 — 一个 result 不见了

        取去掉 `r-read` 的 fixture。`group_interactions` 报告哪一条规则，它的消息指出
        哪个 call id？用一个二元组作答：规则的词（`"duplicate"`、`"unknown call"`、
        `"missing result"` 或 `"before the first user message"`；如果你认为路径没有
        问题，就写 `"valid"`）和 call id，例如 `("duplicate", "x-1")`。
        """,
    ),
    md(
        """
        The other id rules, and a conversation that does not start with a user
        message. Each message names the entry or call id to look at first.
        """,
        zh="""
        其余的 id 规则，以及一段不以 user 消息开头的对话。每条错误消息都指出应当首先
        查看的 entry 或 call id。
        """,
    ),
    code(
        """
        def duplicate_call(wires: dict) -> None:
            wires["calls"]["message"]["content"][1]["id"] = "read-1"
            wires["r-test"]["message"]["toolCallId"] = "read-1"


        def duplicate_result(wires: dict) -> None:
            wires["r-test"]["message"]["toolCallId"] = "read-1"


        def missing_result(wires: dict) -> None:
            wires["r-test"]["message"] = wires["a3"]["message"]


        def assistant_first(wires: dict) -> None:
            wires["u1"]["message"] = wires["a1"]["message"]


        views.errors_frame(
            {
                name: partial(group_interactions, fixture_with(change))
                for name, change in {
                    "call id declared twice": duplicate_call,
                    "two results for read-1": duplicate_result,
                    "test-1 never answered": missing_result,
                    "assistant before any user": assistant_first,
                }.items()
            }
        )
        """,
        zh_strings={
            "call id declared twice": "同一个 call id 声明了两次",
            "two results for read-1": "read-1 有两个 result",
            "test-1 never answered": "test-1 一直没有得到回答",
            "assistant before any user": "assistant 出现在任何 user 之前",
        },
    ),
    *your_turn_cells(
        "11.2",
        "`split_interactions` and its two helpers (`record_tool_facts` records calls "
        "and results, `check_tool_pairs` checks that they pair up when the interaction "
        "closes) in `practice/ch11/groups.py`",
        what_zh="`practice/ch11/groups.py` 中的 `split_interactions` 及它的两个辅助函数"
        "（`record_tool_facts` 记录 call 与 result，`check_tool_pairs` 在交互结束时核对它们是否配对）",
    ),
    *checks_cells("11.2"),
    key_points_cell(LESSON),
]
