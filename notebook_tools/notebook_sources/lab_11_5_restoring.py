"""05a — Lab 11.5, part 1: restoring from the newest compaction."""

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
    minutes=35,
    objectives=(
        "render a compaction's summary as the message the model reads, and say where it "
        "sits in `messages`",
        "compute what `build_context` keeps after a compaction, with the summary's cost "
        "in the budget",
        "number the groups after a compaction as the chapter does, over the whole active path",
        "say which entries a restore collects: from the first kept entry on, past the "
        "compaction, without metadata, compaction entries or other branches",
    ),
    objectives_zh=(
        "把一条 compaction 的摘要渲染成模型读到的消息，并说出它在 `messages` 中的位置",
        "把摘要的成本算进预算，算出 compaction 之后 `build_context` 保留什么",
        "像本章一样在整条活动路径上给 compaction 之后的分组编号",
        "说出恢复时收集哪些 entries：从保留起点开始，越过 compaction，不含 metadata、"
        "compaction entry 和其他分支",
    ),
    key_points=(
        "After a compaction nothing is deleted: `build_context` restores from the newest "
        "compaction, and the model reads `[system?, summary, ...kept suffix]`.",
        "The summary is one synthetic **user** message with the compaction's timestamp; its "
        "cost comes off the message allowance before any group, and it has no id in "
        "`kept_entry_ids`.",
        "Groups are counted over the whole active path: after `compact-1` (first kept `u2`), "
        "`u1, a1` are summarised, `u2, a2` is group 2, `u3 … a3` group 3, `u4, a4` group 4.",
        "When the summary leaves no room, the newest group is still sent whole "
        "(`single_group_overflow`); the allowance never goes below 0.",
    ),
    key_points_zh=(
        "compaction 之后什么都没有删除：`build_context` 从最新的 compaction 恢复，模型读到"
        "`[system?, 摘要, ...保留后缀]`。",
        "摘要是一条合成的 **user** 消息，timestamp 取自这条 compaction；它的成本在任何分组"
        "之前从消息额度中扣除，`kept_entry_ids` 里也没有它的 id。",
        "分组在整条活动路径上计数：`compact-1`（保留起点 `u2`）之后，`u1, a1` 已被摘要"
        "替代，`u2, a2` 是第 2 组，`u3 … a3` 是第 3 组，`u4, a4` 是第 4 组。",
        "摘要占满空间时，最新一组仍被完整发送（`single_group_overflow`）；额度永远不会低于 0。",
    ),
)

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.5, part 1 — Restoring from the newest compaction

        **Chapter section:** 「恢复时把最新摘要接在保留后缀前面」

        **Goal.** Once `compact-1` is appended, the conversation goes on. The next
        `build_context` finds the newest compaction on the active path and sends its
        summary instead of the entries it stands for. What message does the model
        get for it, where does it go, what does it cost, and which original entries
        still fit beside it?

        **Builds on.** Lab 11.3's budget (the same selection), Lab 11.4's
        `create_compaction_entry`.

        **Part 2** (the next notebook) compacts a second time and replays system
        state across the compaction boundary; it ends with the lab's practice
        cell and its checks, `tests/labs/test_lab_11_5.py` (4 checks).
        """,
        zh="""
        # 实验 11.5（上）— 从最新的 compaction 恢复

        **本章小节：**「恢复时把最新摘要接在保留后缀前面」

        **目标。** 追加 `compact-1` 以后，对话继续进行。下一次 `build_context` 在活动路径上
        找到最新的 compaction，发送它的摘要，代替摘要所代表的那些 entries。模型为它收到
        一条什么样的消息？这条消息放在哪里、成本多少？它旁边还放得下哪些原始 entries？

        **基础。** 实验 11.3 的预算（同样的选择），实验 11.4 的 `create_compaction_entry`。

        **实验 11.5（下）**（下一个 notebook）进行第二次压缩，并让 system 状态跨过
        compaction 边界重放；它以本实验的练习单元格和检查结束：`tests/labs/test_lab_11_5.py`
        （4 项检查）。
        """,
    ),
    lesson_cell(LESSON),
    code(
        """
        from IPython.display import display

        from course_lib import build_context, chapter_fixture, fixture_estimator, views
        from course_lib.track.exercises import check
        from course_lib.views import answer_box, setup_notebook, styled_fixture_frame, summary_labels

        setup_notebook(LANG)
        """
    ),
    *fixture_cells(),
    md(
        """
        ## The path after `compact-1`, `u4`, `a4`

        `compact-1` (Lab 11.4) hangs after `a3` with `firstKeptEntryId: "u2"`; the
        conversation then continues with `u4` and `a4`. Nothing is deleted: the ten
        entries above are still the start of the path (the second line below checks
        it).

        Notice the `group` column. The chapter counts groups over the whole path:
        「firstKeptEntryId: "u2" 表示恢复时从第二组开始保留原消息」 (first kept `u2`
        means restoring keeps the original messages from the *second* group on). So
        the groups keep the numbers they had: `u2, a2` is group 2, `u3 … a3` group 3,
        and the new `u4, a4` group 4, the numbers every budget table below uses.
        `u1, a1` are *summarised*: still in the session, but the summary stands in
        for them.

        The chapter does not give the costs of `u4`, `a4` and the summary; the
        workbook chose them: the test estimator charges `u4` 3 tokens, `a4` 4, and
        any summary message 5 (the `compact-1` row).
        """,
        zh="""
        ## `compact-1`、`u4`、`a4` 之后的路径

        `compact-1`（实验 11.4）挂在 `a3` 后面，`firstKeptEntryId: "u2"`；之后对话继续追加
        `u4` 和 `a4`。什么都没有删除：上面的十条 entries 仍是这条路径的开头（下面第二行
        输出检查了这一点）。

        注意 `group` 列。本章在整条路径上给分组计数：「firstKeptEntryId: "u2" 表示恢复时
        从第二组开始保留原消息」。所以分组保持原来的编号：`u2, a2` 是第 2 组，`u3 … a3`
        是第 3 组，新的 `u4, a4` 是第 4 组，下面每张预算表都用这些编号。`u1, a1` 已被
        *摘要*替代：它们仍在 session 中，只是由摘要代替它们。

        本章没有给出 `u4`、`a4` 和摘要的成本；本工作簿选用：测试估算器给 `u4` 3 个
        token，`a4` 4 个，任何摘要消息 5 个（就是 `compact-1` 这一行）。
        """,
    ),
    code(
        """
        from course_lib import chapter_fixture_after_compaction

        continued = chapter_fixture_after_compaction(LANG)
        compact_1 = next(entry for entry in continued if entry.id == "compact-1")
        print(views.path_arrow(continued))
        print("the ten fixture entries come first, unchanged:", continued[:10] == path)
        styled_fixture_frame(continued, estimate, uuid="continued")
        """,
        zh_strings={
            "the ten fixture entries come first, unchanged:": "fixture 的十条 entries 仍在最前面，没有改变：",
        },
    ),
    md(
        """
        ## Step 1 — the summary as a message

        The model never reads a compaction entry. `build_context` turns the seven
        fields of the newest compaction's summary into one ordinary message, which
        takes the place of `u1, a1`.

        **Predict first.** Which role does that message have (`system`, `user` or
        `assistant`), and which timestamp does it carry? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 1 步 — 作为消息的摘要

        模型从不读取 compaction entry。`build_context` 把最新 compaction 的摘要中的七个
        字段变成一条普通消息，代替 `u1, a1`。

        **先预测。** 这条消息是什么角色（`system`、`user` 还是 `assistant`），带着哪个
        timestamp？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        from course_lib import summary_message, text_of

        labels = summary_labels(LANG)  # this edition's labels
        message = summary_message(compact_1, labels)
        print("role:", message.role)
        print("timestamp:", message.timestamp, "| timestamp of compact-1:", compact_1.timestamp)
        print(text_of(message))
        """,
        zh_comments={"this edition's labels": "本版本的标签"},
        zh_strings={"| timestamp of compact-1:": "| compact-1 的 timestamp："},
    ),
    reveal(
        """
        A **user** message, stamped with the compaction's own timestamp (100), not
        the time of the build. The chapter: 「把七字段 summary 按固定顺序转换成一条
        synthetic user message」. It is not a system message: system state comes
        only from the system messages on the path (part 2), and the summary carries
        no prompt text. Its text is always the same seven fields in the same order
        with the same labels, so every build sends, and pays for, the same text.
        """,
        zh="""
        一条 **user** 消息，timestamp 是这条 compaction 自己的（100），而不是构建的时间。
        本章：「把七字段 summary 按固定顺序转换成一条 synthetic user message」。它不是
        system message：system 状态只来自路径上的 system message（下一部分），摘要也不
        携带 prompt 文本。它的文本总是同样的七个字段、同样的顺序、同样的标签，所以每次
        构建发送的、为之付出的都是同样的文本。
        """,
    ),
    md(
        """
        The labels above are this edition's: `summary_labels(LANG)` gives the English
        `SUMMARY_LABELS_EN` here and `SUMMARY_LABELS_ZH` in the Chinese edition, and
        every `build_context` call in this lab passes them
        (`summary_labels=labels`). The course's own labels are Chinese: full-width
        colons with no space after them, and `- （无）` for an empty list. The same
        summary with both, line by line:
        """,
        zh="""
        上面的标签是本版本的：`summary_labels(LANG)` 在英文版给出 `SUMMARY_LABELS_EN`，在
        中文版给出 `SUMMARY_LABELS_ZH`（`from course_lib import SUMMARY_LABELS_ZH`），
        本实验每次调用 `build_context` 都传入它（`summary_labels=labels`），所以中文版的
        模型输入用的是中文标签。课程自己的标签就是中文的：全角冒号后面不加空格，空列表
        写作 `- （无）`。同一份摘要用两套标签，逐行对照：
        """,
    ),
    code("views.summary_lines_frame(compact_1.summary)"),
    md(
        """
        With the test estimator the summary message costs 5 tokens, whichever
        labels it has. The chapter does not give this number; the workbook chose 5
        for any summary message:
        """,
        zh="""
        用测试估算器，摘要消息不论用哪套标签都是 5 个 token。本章没有给出这个数；
        本工作簿选用 5 作为任何摘要消息的成本：
        """,
    ),
    code(
        'print("summary tokens:", estimate(message), estimate(summary_message(compact_1)))',
        zh_strings={"summary tokens:": "摘要的 token 数："},
    ),
    md(
        """
        ## Step 2 — restore with the chapter's budget

        The fixed costs are deducted exactly as in Lab 11.3: 31 − 3 − 4 − 2 leaves 22
        for messages. This time there is one more message to send, the summary
        (5 tokens), besides whole groups from `u2` on: group 2 (`u2, a2`, 7 tokens),
        group 3 (`u3 … a3`, 15), group 4 (`u4, a4`, 7).

        **Predict first.** With the chapter's 31 / 4 / 2, which entries does
        `build_context` keep now, and what is `tokens.messages`? Decide, then click
        *Show the answer* under each of the next cells.
        """,
        zh="""
        ## 第 2 步 — 用本章的预算恢复

        固定成本的扣除与实验 11.3 完全一样：31 − 3 − 4 − 2，留给消息的还有 22。这一次
        除了从 `u2` 开始的完整分组——第 2 组（`u2, a2`，7 个 token）、第 3 组
        （`u3 … a3`，15）、第 4 组（`u4, a4`，7）——还要多发送一条消息：摘要（5 个
        token）。

        **先预测。** 用本章的 31 / 4 / 2，`build_context` 现在保留哪些 entries？
        `tokens.messages` 是多少？先决定，再点击后面每个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        restored = build_context(continued, **budget, estimate_tokens=estimate, summary_labels=labels)
        display(views.deduction_frame(restored, estimate))
        print("kept_entry_ids:", restored.kept_entry_ids)
        print("tokens.messages:", restored.tokens.messages)
        """
    ),
    answer("views.group_budget_frame(continued, **budget, estimate_tokens=estimate)"),
    reveal(
        """
        Only `u4, a4`, and `tokens.messages` is 12. The summary is paid first: the
        chapter says 「这个成本先从消息额度中扣除，余量才交给完整 groups」 (its cost
        comes off the message allowance first; what is left goes to whole groups).
        So 22 − 5 leaves 17 for groups. Newest first: group 4 (`u4, a4`) costs 7
        and fits in 17; adding group 3 (`u3 … a3`) would make 22 > 17, so the
        selection stops there, and group 2 is never reached. `tokens.messages` is
        the summary plus the kept group: 5 + 7 = 12. The summary itself costs room.
        """,
        zh="""
        只有 `u4, a4`，`tokens.messages` 是 12。摘要先付：本章说「这个成本先从消息额度中
        扣除，余量才交给完整 groups」。所以 22 − 5，留给分组的是 17。从最新一组向前：
        第 4 组（`u4, a4`）成本 7，放得进 17；再加上第 3 组（`u3 … a3`）就是 22 > 17，
        所以选择停在这里，根本轮不到第 2 组。`tokens.messages` 是摘要加上保留的那一组：
        5 + 7 = 12。摘要本身也占空间。
        """,
    ),
    md(
        """
        The chapter does not give these numbers (22 → 17, `tokens.messages` = 12);
        the workbook chose them: they follow from the chapter's rule and the
        workbook's 5-token summary.
        """,
        zh="""
        本章没有给出这些数（22 → 17，`tokens.messages` = 12）；本工作簿选用了它们：它们由
        本章的规则和本工作簿给摘要定的 5 个 token 算出。
        """,
    ),
    md(
        """
        ## The summary's slot in `messages`

        The chapter: 「结果的顺序是 [system?, 摘要, ...保留的后缀]」 (the result is
        `[system?, summary, ...kept suffix]`): the summary comes right after the
        replayed system message and before the kept entries. And
        「keptEntryIds 只列原 session 中保留的 message entries，不为合成消息制造虚假 id」:
        `kept_entry_ids` lists original entries only, so the summary has no id there,
        and neither has the replayed system message.
        """,
        zh="""
        ## 摘要在 `messages` 中的位置

        本章：「结果的顺序是 [system?, 摘要, ...保留的后缀]」：摘要紧跟在重放出的 system
        message 后面，在保留的 entries 前面。而且「keptEntryIds 只列原 session 中保留的
        message entries，不为合成消息制造虚假 id」：`kept_entry_ids` 只列原始 entries，
        所以其中没有摘要的 id，也没有重放出的 system message 的 id。
        """,
    ),
    code(
        """
        print("roles:", [message.role for message in restored.messages])
        print("messages[1] is the summary:", restored.messages[1] == message)
        print("kept_entry_ids:", restored.kept_entry_ids)
        print("messages before the kept entries:", views.head_size(restored))
        views.messages_frame(restored, estimate)
        """,
        zh_strings={
            "roles:": "各消息的 role：",
            "messages[1] is the summary:": "messages[1] 是摘要：",
            "messages before the kept entries:": "保留的 entries 之前的消息数：",
        },
    ),
    md(
        "`tokens.messages` = summary + kept groups = 5 + 7:",
        zh="`tokens.messages` = 摘要 + 保留的分组 = 5 + 7：",
    ),
    code("views.projection_frame(restored.tokens)"),
    *exercise_cells(
        "11.5-q1",
        """
        ### Exercise 11.5-q1 — a larger window after the compaction

        Same path, `max_tokens = 40` (still 4 reserved and a margin of 2). Which
        entries does `build_context` keep? Answer with `kept_entry_ids`, a list
        of entry ids in path order.
        """,
        "answer_q1 = ...",
        zh="""
        ### 练习 11.5-q1 — compaction 之后更大的窗口

        同一条路径，`max_tokens = 40`（仍然预留 4、安全余量 2）。`build_context` 保留哪些
        entries？用 `kept_entry_ids` 作答：按路径顺序排列的 entry id 列表。
        """,
    ),
    *exercise_cells(
        "11.5-q2",
        """
        ### Exercise 11.5-q2 — what the messages cost

        For the same build (`max_tokens = 40`), what is `tokens.messages`?
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 11.5-q2 — 消息的成本

        同一次构建（`max_tokens = 40`），`tokens.messages` 是多少？
        """,
    ),
    *exercise_cells(
        "11.5-q3",
        """
        ### Exercise 11.5-q3 — room for group 3

        Same path, still 4 reserved and a margin of 2. What is the smallest
        `max_tokens` at which `build_context` keeps group 3 (`u3 … a3`) as well?
        Answer with a number.
        """,
        "answer_q3 = ...",
        zh="""
        ### 练习 11.5-q3 — 给第 3 组留出空间

        同一条路径，仍然预留 4、安全余量 2。`max_tokens` 最小是多少时，`build_context`
        也保留第 3 组（`u3 … a3`）？用一个数作答。
        """,
    ),
    md(
        """
        ## Step 3 — a metadata entry and a sibling branch

        The same session gets two more entries: a metadata entry `meta-1` between
        `u4` and `a4` (so `a4`'s parent is now `meta-1`), and a message `u4-other`,
        a second child of `compact-1`, on a branch that is not selected. The active
        path is the one to `a4`:
        """,
        zh="""
        ## 第 3 步 — 一条 metadata entry 和一条兄弟分支

        同一个 session 再多两条 entries：`u4` 和 `a4` 之间的一条 metadata entry `meta-1`
        （于是 `a4` 的 parent 变成 `meta-1`），以及一条消息 `u4-other`：`compact-1` 的
        第二个子节点，在一条没有被选中的分支上。活动路径是通往 `a4` 的那一条：
        """,
    ),
    code(
        """
        from course_lib import InMemorySessionStore, MessageEntry, MetadataEntry, path_to, user_message

        store = InMemorySessionStore()
        for entry in continued[:-1]:
            store.append(entry)
        store.append(
            MetadataEntry(id="meta-1", parent_id="u4", timestamp=101.5, key="label", value="resumed")
        )
        store.append(
            MessageEntry(
                id="u4-other",
                parent_id="compact-1",
                timestamp=101,
                message=user_message("A branch that is not selected.", timestamp=101),
            )
        )
        store.append({**continued[-1].to_wire(), "parentId": "meta-1"})

        active = path_to(store.entries(), "a4")
        print(views.path_arrow(active))
        """
    ),
    md(
        """
        **Predict first.** With a roomy window, `max_tokens = 100` (4 reserved, a
        margin of 2), which ids does `kept_entry_ids` list? Think about `u1`,
        `compact-1`, `meta-1` and `u4-other`. Decide, then click *Show the answer*
        under the next cell.
        """,
        zh="""
        **先预测。** 窗口很宽裕时，`max_tokens = 100`（预留 4、安全余量 2），
        `kept_entry_ids` 列出哪些 id？想一想 `u1`、`compact-1`、`meta-1` 和 `u4-other`。
        先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        roomy = build_context(
            active,
            max_tokens=100,
            reserved_output=4,
            safety_margin=2,
            estimate_tokens=estimate,
            summary_labels=labels,
        )
        print("kept_entry_ids:", roomy.kept_entry_ids)
        print("reason:", roomy.reason)
        """
    ),
    reveal(
        """
        `u2, a2, u3, calls, r-test, r-read, a3, u4, a4`, reason `within_budget`.
        The chapter: 「从 u2 收集原消息，并继续收集 compaction 之后的 u4、a4；跳过
        metadata 与 compaction entry，再对消息后缀分组并应用预算」. Collecting starts
        at the first kept entry `u2` and runs past `compact-1`; `meta-1` and
        `compact-1` are not messages, so they are skipped. `u4-other` is not on the
        active path, so it plays no part. And `u1, a1` stay out however much room
        there is: the summary stands in for them.
        """,
        zh="""
        `u2, a2, u3, calls, r-test, r-read, a3, u4, a4`，reason 是 `within_budget`。本章：
        「从 u2 收集原消息，并继续收集 compaction 之后的 u4、a4；跳过 metadata 与
        compaction entry，再对消息后缀分组并应用预算」。收集从保留起点 `u2` 开始，越过
        `compact-1` 继续；`meta-1` 和 `compact-1` 不是消息，所以被跳过。`u4-other` 不在
        活动路径上，不起任何作用。而 `u1, a1` 无论空间多宽裕都不会出现：摘要代替了它们。
        """,
    ),
    md(
        """
        ## Step 4 — when the summary alone fills the room

        `max_tokens = 13` (4 reserved, a margin of 2): the fixed costs leave
        13 − 3 − 4 − 2 = 4 tokens for messages, and the summary alone costs 5.

        **Predict first.** What is left for groups, and what does `build_context` do:
        send the summary alone, send the summary with `u4, a4`, or raise an error?
        Which `reason`? Decide, then click *Show the answer* under each of the next
        cells.
        """,
        zh="""
        ## 第 4 步 — 摘要单独就占满空间时

        `max_tokens = 13`（预留 4、安全余量 2）：扣除固定成本后，留给消息的是
        13 − 3 − 4 − 2 = 4 个 token，而摘要单独就要 5 个。

        **先预测。** 留给分组的还有多少？`build_context` 会怎样：只发送摘要，发送摘要和
        `u4, a4`，还是抛出错误？`reason` 是什么？先决定，再点击后面每个单元格下面的
        *显示答案*。
        """,
    ),
    answer(
        """
        full = build_context(
            continued,
            max_tokens=13,
            reserved_output=4,
            safety_margin=2,
            estimate_tokens=estimate,
            summary_labels=labels,
        )
        display(views.deduction_frame(full, estimate))
        print("kept_entry_ids:", full.kept_entry_ids, "| reason:", full.reason)
        print("tokens.total:", full.tokens.total, "| max_tokens:", full.tokens.max_tokens)
        """
    ),
    answer(
        """
        views.group_budget_frame(
            continued, max_tokens=13, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        """
    ),
    reveal(
        """
        0 is left for groups, not −1, and `build_context` sends the summary with
        `u4, a4` anyway, whole: reason `single_group_overflow`, and `tokens.total`
        (21) exceeds `max_tokens` (13). The group allowance is
        `max(0, available_for_messages - summary tokens)`. As in Lab 11.3, the
        newest group is always returned, even alone over budget, because a group is
        never cut; the caller reads the reason and decides what to do (a shorter
        summary, a larger window).
        """,
        zh="""
        留给分组的是 0，而不是 −1；`build_context` 仍然把摘要和完整的 `u4, a4` 一起发送：
        reason 是 `single_group_overflow`，`tokens.total`（21）超过 `max_tokens`（13）。
        分组额度是 `max(0, available_for_messages - 摘要的 token 数)`。和实验 11.3 一样，
        最新一组总会被返回，即使它单独就超出预算，因为分组从不被切开；调用者读取这个
        reason，再决定怎么做（更短的摘要、更大的窗口）。
        """,
    ),
    md(
        """
        The chapter says the allowance never goes below 0 for the fixed costs
        (「消息额度降到 0，不会变成负数」); for the summary's cost the workbook
        applies the same rule.
        """,
        zh="""
        本章对固定成本说过额度不会变成负数（「消息额度降到 0，不会变成负数」）；对摘要的
        成本，本工作簿沿用同一条规则。
        """,
    ),
    md(
        """
        ## Next: part 2

        Part 2 creates a second compaction, `compact-2`, restores from it, and
        shows where the model's system message comes from when the system messages
        lie on both sides of a compaction. It ends with the lab's practice cell and
        its checks.
        """,
        zh="""
        ## 下一步：实验 11.5（下）

        下一部分创建第二次 compaction `compact-2`，从它恢复，并说明当 system message
        分布在 compaction 两侧时，模型看到的 system message 从哪里来。它以本实验的
        练习单元格和检查结束。
        """,
    ),
    key_points_cell(LESSON),
]
