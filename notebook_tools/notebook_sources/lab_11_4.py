"""04 — Lab 11.4: creating a compaction entry is a pure function of the path."""

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
    minutes=50,
    objectives=(
        "create a compaction entry with `create_compaction_entry` and say where its "
        "`parentId` comes from",
        "tell which entries of a path may be the first kept entry, and why",
        "explain why creating the entry is pure: no path changes and no store is written "
        "until the caller appends it",
    ),
    objectives_zh=(
        "用 `create_compaction_entry` 创建一条 compaction entry，并说出它的 `parentId` 从哪里来",
        "判断路径上哪些 entry 可以作为保留起点，并说出原因",
        "解释为什么创建这条 entry 是纯函数：在调用者追加它之前，路径不变，也没有写入任何 Store",
    ),
    key_points=(
        "`parentId` is the last entry of the path the function is given, whatever its type; "
        "the caller never passes it, so there is one answer to where the summary hangs.",
        "The first kept entry (`firstKeptEntryId`) is where restoring starts keeping original "
        "messages: only the first message of a complete interaction, a group start that "
        "`group_interactions` finds.",
        "The function validates and copies the entry through `parse_session_entry` and writes "
        "nothing; the caller appends it explicitly, and no entry before it is deleted.",
    ),
    key_points_zh=(
        "`parentId` 是函数收到的路径的最后一条 entry，不论它是什么类型；调用者从不传入它，"
        "所以“摘要挂在哪里”只有一个答案。",
        "保留起点（`firstKeptEntryId`）是恢复时开始保留原消息的位置：只能是一个完整交互的"
        "首条消息，即 `group_interactions` 找到的组首。",
        "函数经过 `parse_session_entry` 校验并复制这条 entry，不写入任何东西；由调用者显式"
        "追加它，它之前的 entry 一条也不删除。",
    ),
)

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.4 — Creating a compaction entry (pure)

        **Chapter section:** 「compact-1 记录摘要与保留起点」

        **Goal.** Lab 11.3 left group 1 out, but `build_context` is read-only: it
        never writes a summary. When the caller has a summary ready, it asks
        `create_compaction_entry` for the entry. The function derives the parent from
        the path, checks the first kept entry, validates and copies the result
        through the parser, and returns it. It touches no store: the caller shows it,
        audits it or asks for confirmation, then appends it explicitly.

        **Builds on.** Lab 11.1's compaction entry and parser, Lab 11.2's groups.

        **Checks.** `tests/labs/test_lab_11_4.py` (2 checks).
        """,
        zh="""
        # 实验 11.4 — 创建 compaction entry（纯函数）

        **本章小节：**「compact-1 记录摘要与保留起点」

        **目标。** 实验 11.3 把第 1 组留在了外面，但 `build_context` 只读：它从不写入
        摘要。调用者准备好摘要后，向 `create_compaction_entry` 要这条 entry。函数从路径
        推导出 parent，检查保留起点，经过 parser 校验并复制结果，再把它返回。它不接触任何
        Store：调用者展示它、审计它或请求确认，然后再显式地追加它。

        **基础。** 实验 11.1 的 compaction entry 与 parser，实验 11.2 的分组。

        **检查。** `tests/labs/test_lab_11_4.py`（2 项检查）。
        """,
    ),
    lesson_cell(LESSON),
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
            views,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import answer_box, checks_frame, styled_fixture_frame

        views.setup_notebook(LANG)
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — what the caller brings

        A summary (written by a model in a real agent; here the course's
        `fixture_summary()`), the id and time of the new entry, the first kept
        entry, and `tokens_before`: the caller's own record of how large the context
        was before compacting. The chapter passes `tokensBefore: 29` but does not say
        how the caller got it; the workbook chose what the path's messages cost with
        nothing trimmed and without the system message, 7 + 7 + 15:
        """,
        zh="""
        ## 第 1 步 — 调用者带来什么

        一份摘要（真实的 agent 中由模型写出；这里是课程的 `fixture_summary()`）、新
        entry 的 id 和时间、保留起点，以及 `tokens_before`：调用者自己记录的压缩前上下文
        规模。本章传入 `tokensBefore: 29`，但没有说明调用者怎样得到这个数；本工作簿选用
        路径上的消息在不裁剪、不计 system message 时的成本，7 + 7 + 15：
        """,
    ),
    code(
        """
        tokens_before = views.untrimmed_message_tokens(path, estimate)
        tokens_before
        """
    ),
    md(
        """
        **Predict first.** The caller does not pass a parent id. Suppose the agent
        had compacted earlier, on the path that ended at `a2` (before `u3` was
        sent), keeping from `u2` (a compaction the chapter does not have; the
        workbook made it up). Which entry would that compaction hang after:
        `u2`, where keeping starts, `a1`, the last entry it summarises, or
        another? Decide, then click *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** 调用者没有传入 parent id。假设 agent 更早就压缩过一次：那时路径
        结束于 `a2`（`u3` 还没有发出），从 `u2` 起保留（本章没有这次压缩，是本工作簿假设
        的）。这次 compaction 会挂在哪条 entry 后面：开始保留的 `u2`、它所总结的最后一条
        `a1`，还是别的 entry？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        earlier_path = path[:5]
        print(views.path_arrow(earlier_path))
        earlier = create_compaction_entry(
            earlier_path,
            id="compact-early",
            timestamp=50,
            summary=fixture_summary(LANG),
            first_kept_entry_id="u2",
            tokens_before=views.untrimmed_message_tokens(earlier_path, estimate),
        )
        views.entry_fields_frame(earlier)
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
        views.entry_fields_frame(compact_1)
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
        """,
        zh_strings={
            "added to the caller's summary afterwards": "事后追加到调用者的摘要",
            "added to the returned entry": "追加到返回的 entry",
            "path unchanged:": "路径没有变化：",
            "entries on the path:": "路径上的 entries：",
            "entry constraints:": "entry 的 constraints：",
            "caller's next:    ": "调用者的 next：       ",
        },
    ),
    md(
        """
        ## Step 2 — which entries may start the kept part?

        **Predict first.** Below, `create_compaction_entry` is called once for each
        of the ten message entries of the path, each time with that entry as
        `first_kept_entry_id` and everything else as for `compact-1`. Which ids
        will it accept, and what do they have in common? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 2 步 — 哪些 entry 可以作为保留起点？

        **先预测。** 下面对路径上的十条 message entry 各调用一次 `create_compaction_entry`，
        每次把该 entry 作为 `first_kept_entry_id`，其余参数与 `compact-1` 相同。它会接受
        哪些 id，它们有什么共同点？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        views.first_kept_frame(
            path,
            id="compact-1",
            timestamp=100,
            summary=fixture_summary(LANG),
            tokens_before=tokens_before,
        )
        """
    ),
    reveal(
        """
        Exactly `u1`, `u2` and `u3`, the group starts of Lab 11.2. The first kept
        entry 「只能指向一组的首条 user message」: it may only be the first (user)
        message of a group. `a2`, `calls` and `r-test` lie inside a group, so a cut
        there would split an interaction; `sys` belongs to no group at all.
        """,
        zh="""
        恰好是 `u1`、`u2` 和 `u3`，即实验 11.2 的组首。保留起点「只能指向一组的首条 user
        message」。`a2`、`calls`、`r-test` 都位于组内，在那里切开会拆散一个交互；`sys`
        则根本不属于任何一组。
        """,
    ),
    md(
        """
        How the function knows: 「函数复用 groupInteractions() 找到这些组首」. It groups
        every message entry of the path with `group_interactions` and accepts
        `first_kept_entry_id` only when it is the first entry of one of those groups
        (so a path whose tool ids do not pair up is refused with the same
        `InteractionError`). Only then does it build the candidate and pass it
        through `parse_session_entry`.
        """,
        zh="""
        函数怎样知道：「函数复用 groupInteractions() 找到这些组首」。它用
        `group_interactions` 给路径上的每条 message entry 分组，只有当
        `first_kept_entry_id` 是其中某一组的第一条 entry 时才接受它（所以 tool id 无法
        配对的路径会以同样的 `InteractionError` 被拒绝）。只有这之后，它才构造候选对象
        并交给 `parse_session_entry`。
        """,
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
    reveal(
        """
        `{"u1", "u2", "u3", "u4"}`. `u4` opens the interaction after `compact-1`
        (a compaction entry is not a message, so it starts nothing).

        Why `u1` is accepted is the workbook's own reasoning, not the chapter's: the
        chapter does not say whether a second compaction may keep from before the
        first one's first kept entry. `create_compaction_entry` groups every message
        entry of the path it is given, as the chapter describes, and `u1` still
        starts a complete interaction there, so nothing refuses it. A compaction
        that kept from `u1` would send `u1, a1` again as original messages.
        """,
        zh="""
        `{"u1", "u2", "u3", "u4"}`。`u4` 开启 `compact-1` 之后的交互（compaction entry
        不是消息，不开启任何交互）。

        `u1` 为什么被接受，是本工作簿自己的推理，不是本章的说法：本章没有说第二次压缩的
        保留起点能否落在第一次压缩的保留起点之前。`create_compaction_entry` 按本章的描述，
        对它收到的路径上的每条 message entry 分组，而 `u1` 在那里仍然开启一个完整的交互，
        所以没有规则拒绝它。从 `u1` 起保留的 compaction 会把 `u1, a1` 作为原消息再次发送。
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
        system message 作为保留起点：实验 11.5 的 system 重放例子路径上的 `patch-2`。
        每条错误消息都指出相应的 id。
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


        views.errors_frame(
            {
                "first kept a2": create(path, first_kept_entry_id="a2"),
                "first kept calls": create(path, first_kept_entry_id="calls"),
                "first kept r-test": create(path, first_kept_entry_id="r-test"),
                "empty path": create([]),
                "id a3 is taken": create(path, id="a3"),
                "first kept patch-2": create(
                    system_replay_fixture(LANG), id="compact-2", first_kept_entry_id="patch-2"
                ),
                "summary with files": create(
                    path, summary={**fixture_summary(LANG).to_wire(), "files": []}
                ),
            }
        )
        """,
        zh_strings={
            "first kept a2": "保留起点 a2",
            "first kept calls": "保留起点 calls",
            "first kept r-test": "保留起点 r-test",
            "empty path": "空路径",
            "id a3 is taken": "id a3 已被占用",
            "first kept patch-2": "保留起点 patch-2",
            "summary with files": "摘要带有 files 字段",
        },
    ),
    md(
        """
        ## Step 4 — the caller appends it

        「写入权仍由 Session Store 持有」: the store keeps the right to write.
        Appending `compact-1` after the ten entries makes it the new leaf; the active
        path now ends in it, and nothing before it was removed:
        """,
        zh="""
        ## 第 4 步 — 由调用者追加

        「写入权仍由 Session Store 持有」。把 `compact-1` 追加在十条 entry 之后，它就成为
        新的 leaf；活动路径现在以它结尾，它之前的内容一条也没有删除：
        """,
    ),
    code(
        """
        store = InMemorySessionStore()
        for entry in [*path, compact_1]:
            store.append(entry)
        active = path_to(store.entries(), "compact-1")
        print(views.path_arrow(active))
        """
    ),
    md(
        """
        **Predict first.** A budget on this path keeps original messages only from
        `compact-1`'s first kept entry, `u2`, on (Lab 11.5). The table below labels
        each entry of the path with its group. What will the `group` column say for
        `u1, a1`, and which group numbers will `u2, a2` and `u3 … a3` carry? Decide,
        then click *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** 这条路径上的预算只从 `compact-1` 的保留起点 `u2` 开始保留原消息
        （实验 11.5）。下面的表格在「组」一列给路径上的每条 entry 标出它所在的组。`u1, a1`
        在这一列会写什么？`u2, a2` 和 `u3 … a3` 又是第几组？先决定，再点击下一个单元格
        下面的*显示答案*。
        """,
    ),
    answer('styled_fixture_frame(active, estimate, uuid="appended")'),
    reveal(
        """
        `u2, a2` stays group 2 and `u3 … a3` group 3: the chapter counts groups over
        the whole active path, 「firstKeptEntryId: "u2" 表示恢复时从第二组开始保留原消息」
        (restoring keeps original messages from the second group on), so the numbers
        do not start again at the first kept entry. `u1, a1`, group 1, the one Lab
        11.3 left out, are *summarised*: still in the session, with the summary
        standing in for them. The `tokens` column prices `compact-1` as the summary
        message it becomes, 5 tokens: the chapter does not give this number; the
        workbook chose 5.
        """,
        zh="""
        `u2, a2` 仍是第 2 组，`u3 … a3` 仍是第 3 组：本章在整条活动路径上给组编号，
        「firstKeptEntryId: "u2" 表示恢复时从第二组开始保留原消息」，所以编号不会从保留起点
        重新开始。`u1, a1` 即第 1 组，也就是实验 11.3 留在外面的那一组，现在标为
        *summarised*（已由摘要替代）：它们仍在 session 中，由摘要代表它们。`tokens` 列按
        `compact-1` 将成为的摘要消息计价，5 个 token：本章没有给出这个数；本工作簿选用 5。
        """,
    ),
    *exercise_cells(
        "11.4-q2",
        """
        ### Exercise 11.4-q2 — a label after `a4`

        The conversation goes on after `compact-1` with `u4, a4`
        (`chapter_fixture_after_compaction()`), and then the caller labels the
        session: a metadata entry `label-1` (key `"label"`) is appended after `a4`
        and becomes the leaf. On the active path to `label-1`, `compact-2` is
        created with `first_kept_entry_id="u3"`. What will its `parent_id` be?
        Give the id.
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 11.4-q2 — `a4` 之后的标签

        `compact-1` 之后对话继续了 `u4, a4`（`chapter_fixture_after_compaction()`），随后
        调用者给 session 加了一个标签：一条 metadata entry `label-1`（key 为 `"label"`）
        追加在 `a4` 之后，成为 leaf。在通向 `label-1` 的活动路径上，以
        `first_kept_entry_id="u3"` 创建 `compact-2`。它的 `parent_id` 会是什么？给出这个 id。
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
    key_points_cell(LESSON),
]
