"""05a — Lab 11.5, part 1: restoring from the newest compaction."""

from __future__ import annotations

from .cells import Cell, answer, code, exercise_cells, fixture_cells, md, reveal

TRANSLATED = True

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.5, part 1 — Restoring from the newest compaction

        **Chapter section:** 「恢复时把最新摘要接在保留后缀前面」

        **Goal.** Once `compact-1` is appended, nothing is deleted: the ten messages
        stay in the session. The next `build_context` finds the newest compaction on
        the path, renders its summary as one synthetic user message right after the
        replayed system message, pays for it from the message allowance, and spends
        the rest on whole groups from the first kept entry onwards.

        **Builds on.** Lab 11.3's budget (the same selection, with the summary
        plugged in), Lab 11.4's `create_compaction_entry`.

        **Part 2** (the next notebook) compacts a second time and replays system
        state across the compaction boundary; it ends with the lab's practice
        cell and its checks, `tests/labs/test_lab_11_5.py` (4 checks).
        """,
        zh="""
        # 实验 11.5（上）— 从最新的 compaction 恢复

        **本章小节：**「恢复时把最新摘要接在保留后缀前面」

        **目标。** 追加 `compact-1` 以后，什么都没有删除：十条消息仍在 session 中。下一次
        `build_context` 在路径上找到最新的 compaction，把它的摘要渲染成一条合成的 user
        消息，紧跟在重放出的 system message 后面，先从消息额度中扣除它的成本，再把余量
        交给从第一条保留 entry 开始的完整分组。

        **基础。** 实验 11.3 的预算（同样的选择，只是接上了摘要），实验 11.4 的
        `create_compaction_entry`。

        **实验 11.5（下）**（下一个 notebook）进行第二次压缩，并让 system 状态跨过
        compaction 边界重放；它以本实验的练习单元格和检查结束：`tests/labs/test_lab_11_5.py`
        （4 项检查）。
        """,
    ),
    code(
        """
        from IPython.display import display

        from course_lib import (
            build_context,
            chapter_fixture,
            chapter_fixture_after_compaction,
            fixture_estimator,
        )
        from course_lib.track.exercises import check
        from course_lib.views import (
            answer_box,
            deduction_frame,
            group_budget_frame,
            messages_frame,
            path_arrow,
            projection_frame,
            setup_notebook,
            styled_fixture_frame,
        )

        setup_notebook(LANG)
        """
    ),
    *fixture_cells(),
    md(
        """
        ## The path after `compact-1`, `u4`, `a4`

        `compact-1` (Lab 11.4) hangs after `a3` and keeps the path from `u2` on; the
        conversation then continues with `u4` and `a4`. The fixture estimator knows
        these messages too (3 and 4 tokens) and prices any summary message at 5
        tokens: that is the `compact-1` row.

        Notice the `group` column. After a compaction, `build_context` considers
        only the part of the path from the first kept entry on, so the groups are
        numbered from there: `u2, a2` is group 1, `u3 … a3` group 2 and `u4, a4`
        group 3, the numbers every budget table below uses. `u1, a1` are
        *summarised*: still in the session, but the summary stands in for them.
        """,
        zh="""
        ## `compact-1`、`u4`、`a4` 之后的路径

        `compact-1`（实验 11.4）挂在 `a3` 后面，保留从 `u2` 开始的路径；之后对话继续追加
        `u4` 和 `a4`。fixture 估算器也认识这两条消息（3 和 4 个 token），并且任何摘要消息
        都按 5 个 token 计价：就是 `compact-1` 这一行。

        注意 `group` 列。compaction 之后，`build_context` 只考虑路径上从第一条保留 entry
        开始的部分，所以分组从那里开始编号：`u2, a2` 是第 1 组，`u3 … a3` 是第 2 组，
        `u4, a4` 是第 3 组，下面每张预算表都用这些编号。`u1, a1` 已被*摘要*替代：它们仍在
        session 中，只是由摘要代替它们。
        """,
    ),
    code(
        """
        continued = chapter_fixture_after_compaction(LANG)
        compact_1 = next(entry for entry in continued if entry.id == "compact-1")
        print(path_arrow(continued))
        styled_fixture_frame(continued, estimate, uuid="continued")
        """
    ),
    md(
        """
        ## Step 1 — restore with the chapter's budget

        The fixed costs are deducted exactly as in Lab 11.3, which leaves 22. Then
        the summary is paid from that allowance, and what is left goes to whole
        groups from `u2` on, newest first.

        **Predict first.** With the chapter's 31 / 4 / 2, which entries does
        `build_context` keep now? Decide, then click
        *Show the answer* under each of the next cells.
        """,
        zh="""
        ## 第 1 步 — 用本章的预算恢复

        固定成本的扣除与实验 11.3 完全一样，剩下 22。然后先从这份额度中支付摘要，剩下的
        从 `u2` 开始分给完整的分组，从最新一组向前。

        **先预测。** 用本章的 31 / 4 / 2，`build_context` 现在保留哪些 entries？先决定，
        再点击后面每个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        budget = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
        restored = build_context(continued, **budget, estimate_tokens=estimate)
        deduction_frame(restored, estimate)
        """
    ),
    answer("group_budget_frame(continued, **budget, estimate_tokens=estimate)"),
    reveal(
        """
        Only `u4, a4`. The summary's 5 tokens leave 17 for whole groups. Only the
        groups from the first kept entry `u2` onwards are considered, numbered 1,
        2, 3 in that part, as in the fixture table above. Newest first: group 3
        (`u4, a4`) costs 7 and fits in 17; adding group 2 (`u3 … a3`) would make
        22 > 17, so the selection stops there.
        """,
        zh="""
        只有 `u4, a4`。摘要的 5 个 token 之后，完整分组还剩 17。只考虑从第一条保留 entry
        `u2` 开始的分组，它们在这一段里编号为 1、2、3，和上面的 fixture 表一样。从最新
        一组向前：第 3 组（`u4, a4`）成本 7，放得进 17；再加上第 2 组（`u3 … a3`）就是
        22 > 17，所以选择停在这里。
        """,
    ),
    md(
        """
        The result is the replayed system message, the summary, `u4`, `a4`. Notice
        that `kept_entry_ids` lists only original entries: the synthetic summary
        gets no fake id.
        """,
        zh="""
        结果依次是重放出的 system message、摘要、`u4`、`a4`。注意 `kept_entry_ids` 只列出
        原始 entries：合成的摘要不会得到虚假的 id。
        """,
    ),
    code(
        """
        print("kept_entry_ids:", restored.kept_entry_ids)
        print("reason:", restored.reason)
        messages_frame(restored, estimate)
        """
    ),
    md(
        "`tokens.messages` is 5 + 7 = 12: the summary itself costs room.",
        zh="`tokens.messages` 是 5 + 7 = 12：摘要本身也占空间。",
    ),
    code("projection_frame(restored.tokens)"),
    md(
        """
        ## Step 2 — the summary the model reads

        The seven fields, always in the same order, with fixed labels, as the text of
        one user message. Its timestamp is the compaction's.
        """,
        zh="""
        ## 第 2 步 — 模型读到的摘要

        七个字段，总是同样的顺序、固定的标签，作为一条 user 消息的文本。它的 timestamp
        取自这条 compaction。
        """,
    ),
    code(
        """
        from course_lib import text_of

        summary_message = restored.messages[1]
        print("role:", summary_message.role, "| timestamp:", summary_message.timestamp)
        print(text_of(summary_message))
        """
    ),
    md(
        """
        The course's own labels are Chinese: full-width colons with no space after
        them, and `- （无）` for an empty list. The same summary, line by line:
        """,
        zh="""
        上面这条消息用的是英文标签（`summary_message` 总是用 `SUMMARY_LABELS_EN` 渲染），
        字段内容则是本版本 fixture 的中文。课程自己的标签是中文的：它们就是 `course_lib`
        中的 `SUMMARY_LABELS_ZH`（`from course_lib import SUMMARY_LABELS_ZH`），
        `render_summary(summary, SUMMARY_LABELS_ZH)` 用它们渲染，`course_lib.views` 的
        `summary_labels(LANG)` 按本版本的语言选出它们。全角冒号后面不加空格，空列表写作
        `- （无）`。同一份摘要，逐行对照：
        """,
    ),
    code(
        """
        from course_lib.views import summary_lines_frame

        summary_lines_frame(compact_1.summary)
        """
    ),
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
    md(
        """
        ## Step 3 — with room to spare, the kept suffix runs past the compaction

        Collecting starts at the first kept entry and continues after the
        compaction, skipping metadata and compaction entries. A sibling branch that
        is not on the active path plays no part. Here a metadata entry sits between
        `u4` and `a4`, and `u4-other` branches off `compact-1`:
        """,
        zh="""
        ## 第 3 步 — 空间充裕时，保留后缀越过 compaction 继续

        收集从第一条保留 entry 开始，越过 compaction 继续进行，跳过 metadata 与 compaction
        entry。不在活动路径上的兄弟分支不起任何作用。这里 `u4` 和 `a4` 之间有一条
        metadata entry，而 `u4-other` 从 `compact-1` 分出另一条分支：
        """,
    ),
    code(
        """
        from course_lib import (
            InMemorySessionStore,
            MessageEntry,
            MetadataEntry,
            path_to,
            user_message,
        )

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
        print(path_arrow(active))
        roomy = build_context(
            active, max_tokens=100, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        print("kept_entry_ids:", roomy.kept_entry_ids)
        print("reason:", roomy.reason)
        """
    ),
    md(
        """
        ## Step 4 — when the summary alone fills the room

        The group allowance after a compaction is
        `max(0, available_for_messages - summary tokens)`: never negative, like
        the allowance of Lab 11.3. What happens when the summary costs more than
        the fixed costs leave?
        """,
        zh="""
        ## 第 4 步 — 摘要单独就占满空间时

        compaction 之后，分组的额度是 `max(0, available_for_messages - summary tokens)`：
        和实验 11.3 的额度一样，永远不会是负数。如果摘要的成本超过固定成本扣除后剩下的
        额度，会怎样？
        """,
    ),
    *exercise_cells(
        "11.5-q3",
        """
        ### Exercise 11.5-q3 — a window the summary fills

        Same path, `max_tokens = 13` (4 reserved, a margin of 2). Which `reason`
        does `build_context` give? Work out the two allowances first, then check.
        *Show the answer* under
        the cells below gives the numbers.
        """,
        "answer_q3 = ...",
        zh="""
        ### 练习 11.5-q3 — 被摘要占满的窗口

        同一条路径，`max_tokens = 13`（预留 4、安全余量 2）。`build_context` 给出哪个
        `reason`？先算出两份额度，再检查。下面每个单元格的*显示答案*给出这些数字。
        """,
    ),
    answer(
        """
        full = build_context(
            continued, max_tokens=13, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        display(deduction_frame(full, estimate))
        print("available_for_messages:", full.tokens.available_for_messages)
        print("kept_entry_ids:", full.kept_entry_ids)
        print("reason:", full.reason)
        """
    ),
    answer(
        """
        group_budget_frame(
            continued, max_tokens=13, reserved_output=4, safety_margin=2, estimate_tokens=estimate
        )
        """
    ),
    reveal(
        """
        The summary (5) costs more than the 4 tokens left after the fixed costs:
        the group allowance is 0, not -1. The newest group `u4, a4` is returned
        anyway, whole, as an overflow (`single_group_overflow`), and
        `tokens.total` exceeds `max_tokens`; the caller reads the reason and
        decides what to do (a shorter summary, a larger window).
        """,
        zh="""
        摘要（5）比扣除固定成本后剩下的 4 个 token 还多：分组额度是 0，而不是 -1。最新
        一组 `u4, a4` 仍被完整返回，作为一次超限（`single_group_overflow`），
        `tokens.total` 超过 `max_tokens`；调用者读取这个 reason，再决定怎么做（更短的
        摘要、更大的窗口）。
        """,
    ),
    md(
        """
        ## Next: part 2

        Part 2 creates a second compaction, `compact-2`, restores from it, and
        shows that system state is replayed from the whole path, across the
        compaction boundary. It ends with the lab's practice cell and its checks.
        """,
        zh="""
        ## 下一步：实验 11.5（下）

        下一部分创建第二次 compaction `compact-2`，从它恢复，并说明 system 状态是从整条
        路径重放的，跨过 compaction 边界。它以本实验的练习单元格和检查结束。
        """,
    ),
]
