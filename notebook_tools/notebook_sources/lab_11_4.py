"""04 — Lab 11.4: creating a compaction entry is a pure function of the path."""

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
        # Lab 11.4 — Creating a compaction entry (pure)

        **Chapter section:** 「compact-1 记录摘要与保留起点」

        **Goal.** Lab 11.3 left group 1 out, but `build_context` is read-only: it
        never writes a summary. When the caller has a summary ready, it asks
        `create_compaction_entry` for the entry. The function derives the parent from
        the path, checks that the first kept entry starts a complete interaction,
        validates and copies the result through the parser, and returns it. It
        touches no store: the caller shows it, audits it or asks for confirmation,
        then appends it explicitly.

        **Builds on.** Lab 11.1's compaction entry and parser, Lab 11.2's groups.

        **Checks.** `tests/labs/test_lab_11_4.py` (2 checks).
        """,
        zh="""
        # 实验 11.4 — 创建 compaction entry（纯函数）

        **本章小节：**「compact-1 记录摘要与保留起点」

        **目标。** 实验 11.3 把第 1 组留在了外面，但 `build_context` 只读：它从不写入
        摘要。调用者准备好摘要后，向 `create_compaction_entry` 要这条 entry。函数从路径
        推导出 parent，检查第一条保留的 entry 是否开启一个完整的交互，经过 parser 校验
        并复制结果，再把它返回。它不接触任何 Store：调用者展示它、审计它或请求确认，
        然后再显式地追加它。

        **基础。** 实验 11.1 的 compaction entry 与 parser，实验 11.2 的分组。

        **检查。** `tests/labs/test_lab_11_4.py`（2 项检查）。
        """,
    ),
    code(
        """
        from pathlib import Path

        from IPython.display import display

        from course_lib import (
            InMemorySessionStore,
            chapter_fixture,
            create_compaction_entry,
            fixture_estimator,
            fixture_summary,
            path_to,
            system_replay_fixture,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import (
            answer_box,
            checks_frame,
            entry_fields_frame,
            errors_frame,
            first_kept_frame,
            path_arrow,
            setup_notebook,
            styled_fixture_frame,
            untrimmed_message_tokens,
        )

        setup_notebook(LANG)
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — what the caller brings

        A summary (written by a model in a real agent; here the course's
        `fixture_summary()`), the id and time of the new entry, where the kept part
        starts, and `tokens_before`: the caller's own record of how large the
        context was before compacting. Here that is what the path's messages cost
        with nothing trimmed, 7 + 7 + 15:
        """,
        zh="""
        ## 第 1 步 — 调用者带来什么

        一份摘要（真实的 agent 中由模型写出；这里是课程的 `fixture_summary()`）、新
        entry 的 id 和时间、保留部分从哪里开始，以及 `tokens_before`：调用者自己记录的
        压缩前上下文规模。这里就是路径上的消息在不裁剪时的成本，7 + 7 + 15：
        """,
    ),
    code(
        """
        tokens_before = untrimmed_message_tokens(path, estimate)
        tokens_before
        """
    ),
    md(
        """
        **Predict first.** The caller does not pass a parent id. Suppose the agent
        had compacted earlier, on the path that ended at `a2` (before `u3` was
        sent), keeping from `u2`. Which entry would that compaction hang after:
        `u2`, where keeping starts, `a1`, the last entry it summarises, or
        another? Decide, then click *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** 调用者没有传入 parent id。假设 agent 更早就压缩过一次：那时路径
        结束于 `a2`（`u3` 还没有发出），从 `u2` 起保留。这次 compaction 会挂在哪条
        entry 后面：开始保留的 `u2`、它所总结的最后一条 `a1`，还是别的 entry？先决定，
        再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        earlier_path = path[:5]
        print(path_arrow(earlier_path))
        earlier = create_compaction_entry(
            earlier_path,
            id="compact-early",
            timestamp=50,
            summary=fixture_summary(LANG),
            first_kept_entry_id="u2",
            tokens_before=untrimmed_message_tokens(earlier_path, estimate),
        )
        entry_fields_frame(earlier)
        """
    ),
    reveal(
        """
        `parentId` is `a2`, the last entry of the path it was given: neither
        where keeping starts nor the last summarised entry. Because the caller
        cannot pass it, there can never be two answers to "where does this
        summary hang?". `firstKeptEntryId` means something else: where restoring
        will start keeping original messages.
        """,
        zh="""
        `parentId` 是 `a2`，即传入路径的最后一条 entry：既不是开始保留的位置，也不是
        被总结的最后一条。因为调用者不能传入它，“这份摘要挂在哪里？”永远不会出现两个
        答案。`firstKeptEntryId` 的含义不同：它是恢复时开始保留原消息的位置。
        """,
    ),
    md(
        """
        On the whole ten-entry path the same call makes the chapter's `compact-1`,
        hanging after `a3`:
        """,
        zh="""
        在完整的十条 entry 路径上，同样的调用得到本章的 `compact-1`，它挂在 `a3` 后面：
        """,
    ),
    code(
        """
        before = [entry.to_wire() for entry in path]
        summary = fixture_summary(LANG)
        compact_1 = create_compaction_entry(
            path,
            id="compact-1",
            timestamp=100,
            summary=summary,
            first_kept_entry_id="u2",
            tokens_before=tokens_before,
        )
        entry_fields_frame(compact_1)
        """
    ),
    md(
        """
        The function is pure. The path is unchanged (nothing was appended), and the
        entry shares nothing with the summary it was given:
        """,
        zh="""
        这个函数是纯函数。路径没有变化（没有追加任何东西），返回的 entry 也不与传入的
        摘要共享任何对象：
        """,
    ),
    code(
        """
        summary.constraints.append("added to the caller's summary afterwards")
        compact_1.summary.next.append("added to the returned entry")

        print("path unchanged:", [entry.to_wire() for entry in path] == before)
        print("entries on the path:", len(path))
        print("entry constraints:", compact_1.summary.constraints)
        print("caller's next:    ", summary.next)
        """
    ),
    md(
        """
        ## Step 2 — which entries may start the kept part?

        Only the first message of a complete interaction. `create_compaction_entry`
        finds those the way Lab 11.2 does: it groups every message entry of the
        path with `group_interactions` and accepts `first_kept_entry_id` only when
        it is the first entry of one of those groups (so a path whose tool ids do
        not pair up is refused with the same `InteractionError`). Only then does
        it build the candidate and pass it through `parse_session_entry`.

        Each row below is a real call of `create_compaction_entry` with that entry
        as `first_kept_entry_id`: exactly `u1`, `u2` and `u3` are accepted, the
        group starts of Lab 11.2.
        """,
        zh="""
        ## 第 2 步 — 哪些 entry 可以作为保留部分的起点？

        只有一个完整交互的第一条消息。`create_compaction_entry` 用实验 11.2 的方式找到
        它们：用 `group_interactions` 给路径上的每条 message entry 分组，只有当
        `first_kept_entry_id` 是其中某一组的第一条 entry 时才接受它（所以 tool id 无法
        配对的路径会以同样的 `InteractionError` 被拒绝）。只有这之后，它才构造候选对象
        并交给 `parse_session_entry`。

        下面每一行都是一次真实的 `create_compaction_entry` 调用，以该 entry 作为
        `first_kept_entry_id`：被接受的恰好是 `u1`、`u2` 和 `u3`，即实验 11.2 的组首。
        """,
    ),
    code(
        """
        first_kept_frame(
            path,
            id="compact-1",
            timestamp=100,
            summary=fixture_summary(LANG),
            tokens_before=tokens_before,
        )
        """
    ),
    *exercise_cells(
        "11.4-q1",
        """
        ### Exercise 11.4-q1 — cut points after a compaction

        `chapter_fixture_after_compaction()` is the path once `compact-1` is
        appended and the conversation goes on with `u4, a4`:
        `sys → u1 → … → a3 → compact-1 → u4 → a4`. A second compaction is created
        on it. Which ids may be its `first_kept_entry_id`? Answer with a set of
        entry ids, e.g. `{"x1", "x2"}`.
        """,
        "answer_q1 = ...",
        zh="""
        ### 练习 11.4-q1 — 压缩之后的切点

        `chapter_fixture_after_compaction()` 是追加 `compact-1`、对话又继续了
        `u4, a4` 之后的路径：`sys → u1 → … → a3 → compact-1 → u4 → a4`。在它上面创建
        第二次 compaction。哪些 id 可以作为它的 `first_kept_entry_id`？用 entry id 的
        集合作答，例如 `{"x1", "x2"}`。
        """,
    ),
    md(
        """
        ## Step 3 — expected failures

        Cutting inside an interaction (`a2`, `calls`, `r-test`), an empty path, an id
        already on the path, and a system message as the first kept entry: `patch-2`
        on the path of Lab 11.5's system-replay example. Every message names the id.
        """,
        zh="""
        ## 第 3 步 — 预期的失败

        在交互内部裁剪（`a2`、`calls`、`r-test`）、空路径、路径上已有的 id，以及把
        system message 作为第一条保留的 entry：实验 11.5 的 system 重放例子路径上的
        `patch-2`。每条错误消息都指出相应的 id。
        """,
    ),
    code(
        """
        def create(active_path: list, **changes):
            \"\"\"A call that creates compact-1 with the chapter's options, some of them changed.\"\"\"
            options = {
                "id": "compact-1",
                "timestamp": 100,
                "summary": fixture_summary(LANG),
                "first_kept_entry_id": "u2",
                "tokens_before": tokens_before,
            }
            return lambda: create_compaction_entry(active_path, **{**options, **changes})


        errors_frame(
            {
                "first kept a2": create(path, first_kept_entry_id="a2"),
                "first kept calls": create(path, first_kept_entry_id="calls"),
                "first kept r-test": create(path, first_kept_entry_id="r-test"),
                "empty path": create([]),
                "id a3 is taken": create(path, id="a3"),
                "first kept patch-2": create(
                    system_replay_fixture(), id="compact-2", first_kept_entry_id="patch-2"
                ),
                "summary with files": create(
                    path, summary={**fixture_summary(LANG).to_wire(), "files": []}
                ),
            }
        )
        """
    ),
    md(
        """
        ## Step 4 — the caller appends it

        The store keeps the right to write. Appending `compact-1` after the ten
        entries makes it the new leaf; the active path now ends in it, and nothing
        before it was removed. Notice the `group` column: a budget now considers
        only the part from `u2` on (Lab 11.5), so the groups are numbered from
        there and `u1, a1` are *summarised*, still in the session.
        """,
        zh="""
        ## 第 4 步 — 由调用者追加

        写入权仍由 Store 持有。把 `compact-1` 追加在十条 entry 之后，它就成为新的 leaf；
        活动路径现在以它结尾，它之前的内容一条也没有删除。注意 `group` 列：预算现在
        只考虑从 `u2` 开始的部分（实验 11.5），所以分组从那里开始编号，而 `u1, a1` 被
        *摘要*替代，但仍在 session 中。
        """,
    ),
    code(
        """
        store = InMemorySessionStore()
        for entry in [*path, compact_1]:
            store.append(entry)
        active = path_to(store.entries(), "compact-1")
        print(path_arrow(active))
        display(styled_fixture_frame(active, estimate, uuid="appended"))
        """
    ),
    *exercise_cells(
        "11.4-q2",
        """
        ### Exercise 11.4-q2 — where does `compact-2` hang?

        On `chapter_fixture_after_compaction()`, `compact-2` is created with
        `first_kept_entry_id="u3"`. What will its `parent_id` be? Give the id.
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 11.4-q2 — `compact-2` 挂在哪里？

        在 `chapter_fixture_after_compaction()` 上以 `first_kept_entry_id="u3"` 创建
        `compact-2`。它的 `parent_id` 会是什么？给出这个 id。
        """,
    ),
    *your_turn_cells(
        "11.4",
        "`create_compaction_entry` in `practice/ch11/compaction.py` (derive the "
        "parent, refuse an empty path, a duplicate id and a cut inside an interaction, "
        "then pass the candidate through `parse_session_entry`)",
        what_zh="`practice/ch11/compaction.py` 中的 `create_compaction_entry`（推导出 "
        "parent，拒绝空路径、重复的 id 和落在交互内部的切点，再把候选对象交给 "
        "`parse_session_entry`）",
    ),
    *checks_cells("11.4"),
]
