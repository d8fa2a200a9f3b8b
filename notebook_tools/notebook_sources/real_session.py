"""07 — beyond the fixture: the labs' functions on a real pi session."""

from __future__ import annotations

from .cells import (
    Cell,
    Lesson,
    answer,
    code,
    exercise_cells,
    key_points_cell,
    lesson_cell,
    md,
    reveal,
)

TRANSLATED = True

LESSON = Lesson(
    minutes=40,
    objectives=(
        "import a real pi session and say what the importer had to change before the "
        "chapter's functions accept it",
        "predict where `build_context` cuts a real session for a given window, and check the "
        "prediction against the ledger",
        "compact a real session, restore from the compaction, and predict where the restored "
        "context starts",
        "compare two token estimators on real text and explain what the chapter's safety "
        "margin is for",
    ),
    objectives_zh=(
        "导入一个真实的 pi session，说出本章的函数接受它之前导入器必须改动什么",
        "对给定的窗口预测 `build_context` 在真实 session 上的切点，并用账本核对你的预测",
        "压缩一个真实 session，再从 compaction 恢复，并预测恢复后的上下文从哪里开始",
        "在真实文本上比较两种 token 估算器，并解释本章的安全余量是做什么用的",
    ),
    key_points=(
        "The chapter's rules hold unchanged on a real session: groups start at user "
        "messages, every cut falls between two interactions, and restoring starts from the "
        "newest compaction's first kept entry.",
        "A real file needs repairs first: a tool call that never got its result is given a "
        "synthetic error result, so that every interaction is complete; the importer writes a "
        "note for every change.",
        "An estimator is not the provider's tokenizer: on this session characters / 4 counts "
        "fewer tokens than BPE (Step 7 measures by how much). The safety margin is there to "
        "absorb that error (「safetyMargin 吸收估算误差」).",
    ),
    key_points_zh=(
        "本章的规则在真实 session 上原样成立：组从 user 消息开始，每个切点都落在两个交互之间，"
        "恢复从最新 compaction 的保留起点开始。",
        "真实文件要先修复：从未得到 result 的 tool call 会补上一条合成的错误 result，让每个"
        "交互都完整；导入器为每一处改动写一条 note。",
        "估算器不是 provider 的 tokenizer：在这个 session 上，字符数 / 4 比 BPE 计数少"
        "（第 7 步测出少多少）。安全余量就是用来吸收这种误差的（「safetyMargin 吸收估算误差」）。",
    ),
)

CELLS: list[Cell] = [
    md(
        """
        # Beyond the fixture — a real session

        **Goal.** Run what the labs built on a real pi session instead of the
        ten-entry fixture: import it with every change made visible, look at its
        interactions, project it under pi's own budget and under a smaller one,
        compact it and restore from the compaction, and compare two token
        estimators on real text. Every table is computed from the file; nothing is
        typed by hand.

        **Builds on.** Lab 11.2 (`group_interactions`), Lab 11.3 (`build_context`),
        Labs 11.4 and 11.5 (`create_compaction_entry`, restoring from a
        compaction), the transfer exercise (`budget_ledger`), the pi importer
        (`course_lib.beyond.importers`) and the two real-text estimators
        (`course_lib.beyond.estimators`).

        **Checks.** None of its own: this notebook goes beyond the chapter. The
        importer is tested by `tests/beyond/test_import_pi.py`, the estimators by
        `tests/beyond/test_estimators.py`.
        """,
        zh="""
        # 超越 fixture — 一个真实的 session

        **目标。** 把各实验写出的函数用在一个真实的 pi session 上，而不是十条 entries 的
        fixture：导入它，让导入时的每一处改动都可见；查看它的交互；按 pi 自己的预算和一个
        更小的预算做上下文投影；对它做 compaction，再从 compaction 恢复；最后在真实文本上
        比较两种 token 估算器。每张表都由文件算出，没有一个数是手写的。

        **基础。** 实验 11.2（`group_interactions`）、实验 11.3（`build_context`）、
        实验 11.4 和 11.5（`create_compaction_entry`、从 compaction 恢复）、迁移练习
        （`budget_ledger`）、pi 导入器（`course_lib.beyond.importers`），以及两种针对真实文本的
        估算器（`course_lib.beyond.estimators`）。

        **检查。** 本 notebook 没有自己的检查：它超越了本章的范围。导入器由
        `tests/beyond/test_import_pi.py` 测试，估算器由 `tests/beyond/test_estimators.py` 测试。
        """,
    ),
    lesson_cell(LESSON),
    code(
        """
        %matplotlib inline

        from IPython.display import display
        from matplotlib.figure import Figure

        from course_lib import (
            bpe_estimator,
            budget_ledger,
            build_context,
            chars_estimator,
            create_compaction_entry,
            import_pi_session,
            views,
        )
        from course_lib.tools.inspect_session import DEFAULT_MAX_TOKENS, DEFAULT_RESERVED_OUTPUT
        from course_lib.track.exercises import check
        from course_lib.views import answer_box

        views.setup_notebook(LANG)
        """
    ),
    md(
        """
        ## Step 1 — import the sample

        `data/pi-sessions/large-session.v1.jsonl` is a real pi session file
        (format v1). `import_pi_session` turns every line into a course entry that
        crosses the same strict parser as the fixture's. A v1 file has no ids, so
        an entry's id is its line number (`L0005` is line 5) and its parent is the
        line before. First, what the file held *before* any mapping: every pi
        entry type is listed, so a type the file lacks shows as 0; there is no
        `compaction` line in this session.
        """,
        zh="""
        ## 第 1 步 — 导入样例

        `data/pi-sessions/large-session.v1.jsonl` 是一个真实的 pi session 文件（格式 v1）。
        `import_pi_session` 把每一行变成一条课程 entry，并让它经过与 fixture 相同的严格
        parser。v1 文件没有 id，所以一条 entry 的 id 就是它的行号（`L0005` 是第 5 行），
        它的 parent 是前一行。先看文件在任何映射*之前*保存了什么：每种 pi entry 类型都会
        列出，文件里没有的类型显示为 0；这个 session 里没有 `compaction` 行。
        """,
    ),
    code(
        """
        SAMPLE = views.workbook_root() / "data" / "pi-sessions" / "large-session.v1.jsonl"
        imported = import_pi_session(SAMPLE)
        source = imported.source
        print(f"{SAMPLE.name}: pi format v{source.version}, {source.records:,} lines")
        print(f"course entries: {len(imported.entries):,}, leaf: {imported.leaf_id}")
        views.pi_source_frame(source)
        """,
        zh_strings={
            "{SAMPLE.name}: pi format v{source.version}, {source.records:,} lines": (
                "{SAMPLE.name}：pi 格式 v{source.version}，{source.records:,} 行"
            ),
            "course entries: {len(imported.entries):,}, leaf: {imported.leaf_id}": (
                "课程 entries：{len(imported.entries):,}，leaf：{imported.leaf_id}"
            ),
        },
    ),
    md(
        """
        **Predict first.** The file holds 914 `message` lines. How many course
        message entries does the import make: fewer, exactly 914, or more? Think of
        Lab 11.2's rules for a tool call, then click *Show the answer* under the
        next cell.
        """,
        zh="""
        **先预测。** 文件里有 914 行 `message`。导入后会得到多少条课程 message entry：更少、
        正好 914 条，还是更多？想一想实验 11.2 对 tool call 的规则，再点击下一个单元格下面的
        *显示答案*。
        """,
    ),
    answer(
        """
        lines = source.entry_counts["message"]
        messages = sum(entry.type == "message" for entry in imported.entries)
        print(f"message lines in the file: {lines:,}")
        print(f"course message entries:    {messages:,}")
        views.entry_counts_frame(imported.entries)
        """,
        zh_strings={
            "message lines in the file: {lines:,}": "文件里的 message 行：  {lines:,}",
            "course message entries:    {messages:,}": "课程 message entries： {messages:,}",
        },
    ),
    reveal(
        """
        More: 932, that is 914 + 18 `toolResult` entries the file does not hold.
        Lab 11.2's fourth rule says that when a group closes, every call has its
        result; some turns of this session ended in the middle of a tool call, so
        the importer added a result for each call left without one (Step 2 lists
        them). Settings lines (`model_change`, `thinking_level_change`) and the
        header became metadata, which is never sent to a model.
        """,
        zh="""
        更多：932 条，也就是 914 条再加上文件里没有的 18 条 `toolResult`。实验 11.2 的第四
        条规则说，一组结束时每个 call 都要有它的 result；这个 session 有些轮次在 tool call
        中途结束，于是导入器为每个缺少 result 的 call 补上了一条（第 2 步列出了它们）。设置
        行（`model_change`、`thinking_level_change`）和文件头变成了 metadata，metadata 永远
        不会发给模型。
        """,
    ),
    md(
        """
        ## Step 2 — every change the importer made

        A real session breaks rules the fixture never breaks: turns aborted in
        the middle of a tool call, fields the course schema does not have. The
        importer repairs what it can and writes a note for every change, with the
        pi line and the course entry it concerns. The notes by kind, most
        frequent first:
        """,
        zh="""
        ## 第 2 步 — 导入器做的每一处改动

        真实 session 会打破 fixture 从不打破的规则：在 tool call 中途被中止的轮次、课程
        schema 里没有的字段。导入器修复它能修复的部分，并为每一处改动写一条 note，注明它涉及的
        pi 行和课程 entry。按种类统计的 notes，最常见的在前：
        """,
    ),
    code(
        """
        notes = views.import_notes_frame(imported)
        notes.value_counts("kind").reset_index()
        """
    ),
    md(
        """
        Every note, with its line. Notice the `missing_result_repaired` rows: each
        tool call that never got a result (the user aborted the turn, or the
        provider failed) now has a synthetic error result, as pi itself sends one,
        so the interaction is complete again. The routine drops (`field_dropped`,
        `usage_total_computed`) are one note per field, with a count and a line
        range in `detail`.
        """,
        zh="""
        全部 notes 及其所在的行。注意 `missing_result_repaired` 这几行：每个从未得到 result
        的 tool call（用户中止了这一轮，或 provider 出错）现在都有一条合成的错误 result，
        就像 pi 自己发送的那样，于是这个交互重新完整。常规的丢弃（`field_dropped` 和
        `usage_total_computed`）每个字段一条 note，`detail` 里写着次数和行范围。
        """,
    ),
    code("notes"),
    md(
        """
        ## Step 3 — the interactions

        `group_interactions` splits the active path into interactions, exactly as
        it split the fixture into three. The file has 88 user messages (Step 1's
        table).

        **Predict first.** How many interactions does the active path hold? Decide,
        then click *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 3 步 — 交互

        `group_interactions` 把活动路径分成交互，与它把 fixture 分成三组的做法完全相同。
        文件里有 88 条 user 消息（第 1 步的表格）。

        **先预测。** 活动路径上有多少个交互？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        path = imported.active_path()
        chars = chars_estimator()
        sizes = views.interaction_sizes_frame(path, {"tokens": chars})
        users = sum(entry.type == "message" and entry.message.role == "user" for entry in path)
        print(f"active path: {len(path):,} entries, {users} user messages, {len(sizes)} interactions")
        """,
        zh_strings={
            "active path: {len(path):,} entries, {users} user messages, {len(sizes)} interactions": (
                "活动路径：{len(path):,} 条 entry，{users} 条 user 消息，{len(sizes)} 个交互"
            ),
        },
    ),
    reveal(
        """
        88, one per user message: 「groupInteractions() … 以 user 消息为起点」, a user
        message closes the open interaction and opens the next one, however many
        assistant turns and tool results follow it.
        """,
        zh="""
        88 个，每条 user 消息一个：「groupInteractions() … 以 user 消息为起点」，一条 user
        消息结束当前的交互并开启下一个，无论它后面跟着多少 assistant 轮次和 tool result。
        """,
    ),
    md(
        """
        Each interaction as one row: where it starts and ends, how many messages
        and tool calls it holds, its cost under pi's own heuristic
        (`chars_estimator`: characters / 4, rounded up), and `provider tokens`, the
        largest context the provider reported for one of its calls
        (`usage.totalTokens`; none for aborted or failed turns). In short first.
        Notice how uneven the sizes are: the mean is far above the median.
        """,
        zh="""
        每个交互一行：它从哪里开始、到哪里结束，包含多少条消息和多少个 tool call，按 pi
        自己的启发式算出的成本（`chars_estimator`：字符数 / 4，向上取整），以及
        `provider tokens`：provider 为其中某次调用报告的最大上下文（`usage.totalTokens`；
        被中止或失败的轮次没有这一项）。先看概况。注意各交互的大小多么不均：平均值远高于
        中位数。
        """,
    ),
    code('sizes.drop(columns="group").describe().round(1)'),
    md(
        """
        The ten largest interactions. Notice that they are the ones with many tool
        calls or large tool results (files read in full): a budget keeps or drops
        each of them whole.
        """,
        zh="""
        最大的十个交互。注意它们都是 tool call 很多或 tool result 很大（整个文件被读入）的
        交互：预算会把每一个整体保留或整体丢弃。
        """,
    ),
    code('sizes.nlargest(10, "tokens")'),
    md(
        """
        The same numbers over the session. Top: what each interaction costs.
        Bottom: the history so far (the running sum of the top bars) and what the
        provider counted for its largest call in each interaction. Notice the gap
        between the two lines: the provider counted with its own tokenizer and
        also read what the file does not hold (pi's system prompt and tool
        definitions). The dashed line is where pi's automatic compaction starts
        with its default settings: a 200,000-token window minus the 16,384
        tokens it reserves.
        """,
        zh="""
        同样的数字，沿着 session 从旧到新画出来。上图：每个交互的成本。下图：到目前为止的
        历史（上图柱子的累计和），以及 provider 为每个交互中最大的那次调用统计的 token 数。
        注意两条线之间的差距：provider 用自己的 tokenizer 计数，而且还读到了文件里没有的
        内容（pi 的 system prompt 和工具定义）。虚线是 pi 在默认设置下开始自动 compaction
        的位置：200,000 token 的窗口减去它预留的 16,384 个 token。
        """,
    ),
    code(
        """
        figure = Figure(figsize=(9, 5.5), dpi=100)
        top, bottom = figure.subplots(2, 1, sharex=True)
        top.bar(sizes["group"], sizes["tokens"], color="#93c5fd", edgecolor="#1d4ed8", linewidth=0.4)
        top.set_ylabel("tokens (chars / 4)")
        top.set_title("tokens per interaction, oldest to newest", fontsize=10)
        bottom.plot(sizes["group"], sizes["tokens"].cumsum(), color="#1f2937", label="history so far (chars / 4)")
        bottom.plot(
            sizes["group"],
            sizes["provider tokens"].to_numpy(dtype=float, na_value=float("nan")),
            ".",
            color="#dc2626",
            label="provider's count, largest call",
        )
        bottom.axhline(
            DEFAULT_MAX_TOKENS - DEFAULT_RESERVED_OUTPUT,
            color="#6b7280",
            linestyle="--",
            linewidth=1,
            label="pi's compaction threshold",
        )
        bottom.set_xlabel("interaction")
        bottom.set_ylabel("token count")
        bottom.legend(loc="upper left", fontsize=8)
        figure.subplots_adjust(left=0.1, right=0.98, bottom=0.1, top=0.935, hspace=0.12)
        figure
        """,
        zh_strings={
            "tokens (chars / 4)": "token（字符数 / 4）",
            "tokens per interaction, oldest to newest": "每个交互的 token，从最早到最新",
            "history so far (chars / 4)": "到此为止的历史（字符数 / 4）",
            "provider's count, largest call": "provider 的计数，最大的一次调用",
            "pi's compaction threshold": "pi 的 compaction 阈值",
            "interaction": "交互",
            "token count": "token 数",
        },
    ),
    md(
        "The data the plot draws, one row per interaction:",
        zh="图中画的数据，每个交互一行：",
    ),
    code("sizes"),
    md(
        """
        ## Step 4 — the ledger under pi's defaults

        pi's defaults: a 200,000-token window with 16,384 tokens reserved for the
        answer, and no safety margin. The file holds no system message (pi does
        not store its system prompt in the session), so the replayed system
        message costs 0 here. The allowance left for messages, and what the whole
        history costs by characters / 4:
        """,
        zh="""
        ## 第 4 步 — pi 默认设置下的账本

        pi 的默认设置：200,000 token 的窗口，为回答预留 16,384 个 token，没有安全余量。文件里
        没有 system message（pi 不把它的 system prompt 存进 session），所以这里重放出的
        system message 成本为 0。留给消息的额度，以及按字符数 / 4 计算的整段历史的成本：
        """,
    ),
    code(
        """
        pi_budget = {"max_tokens": DEFAULT_MAX_TOKENS, "reserved_output": DEFAULT_RESERVED_OUTPUT}
        at_pi = build_context(path, **pi_budget, estimate_tokens=chars)
        history = sizes["tokens"].sum()
        print(f"the whole history: {history:,} tokens")
        views.deduction_frame(at_pi)
        """,
        zh_strings={"the whole history: {history:,} tokens": "整段历史：{history:,} 个 token"},
    ),
    md(
        """
        **Predict first.** Which `reason` does `build_context` give under pi's
        window, and which entry starts the kept range? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** 在 pi 的窗口下，`build_context` 给出的 `reason` 是什么？保留范围从哪条
        entry 开始？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        kept = at_pi.kept_entry_ids
        print(f"kept: {kept[0]} .. {kept[-1]} ({len(kept):,} message entries)")
        print("reason:", at_pi.reason)
        views.projection_frame(at_pi.tokens)
        """,
        zh_strings={
            "kept: {kept[0]} .. {kept[-1]} ({len(kept):,} message entries)": "保留：{kept[0]} .. {kept[-1]}（{len(kept):,} 条 message entry）"
        },
    ),
    reveal(
        """
        `within_budget`, from `L0002`, the session's first message: the whole
        history fits the allowance, so no group is left out and the context starts
        where the session starts. `tokens.messages` is the whole history's cost.
        """,
        zh="""
        `within_budget`，从 session 的第一条消息 `L0002` 开始：整段历史都放得下消息额度，
        没有哪一组被留在外面，上下文从 session 的开头开始。`tokens.messages` 就是整段历史
        的成本。
        """,
    ),
    md(
        """
        The ledger, compacted: the three oldest and the three newest groups (and
        both sides of the cut, when there is one). Every status is `kept`.
        """,
        zh="""
        账本的节选：最早的三组和最新的三组（有切点时，再加上切点两侧）。每个状态都是
        `kept`。
        """,
    ),
    code("views.ledger_excerpt_frame(budget_ledger(path, **pi_budget, estimate_tokens=chars))"),
    md(
        """
        ## Step 5 — a smaller window

        The same session with a 50,000-token window (the same 16,384 reserved).
        The allowance is far less than the history costs, so older interactions
        must go:
        """,
        zh="""
        ## 第 5 步 — 更小的窗口

        同一个 session，换成 50,000 token 的窗口（同样预留 16,384）。消息额度远小于历史的
        成本，所以较早的交互必须离开上下文：
        """,
    ),
    code(
        """
        small_budget = {"max_tokens": 50_000, "reserved_output": DEFAULT_RESERVED_OUTPUT}
        at_small = build_context(path, **small_budget, estimate_tokens=chars)
        views.deduction_frame(at_small)
        """
    ),
    md(
        """
        **Predict first.** Where can the cut fall: at any message, wherever the
        running total reaches the allowance, or only at some? What kind of message
        is the first kept entry, and can the cut separate a tool call from its
        result? Decide, then click *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** 切点可以落在哪里：累计到额度的任何一条消息处，还是只能落在某些位置？
        保留起点是哪一种消息？切点会不会把一个 tool call 和它的 result 分开？先决定，再点击
        下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        display(views.ledger_excerpt_frame(budget_ledger(path, **small_budget, estimate_tokens=chars)))
        kept = at_small.kept_entry_ids
        print(f"kept: {kept[0]} .. {kept[-1]} ({len(kept):,} message entries)")
        print("reason:", at_small.reason)
        start = next(index for index, entry in enumerate(path) if entry.id == kept[0])
        print("the first kept entry is a", path[start].message.role, "message")
        around_cut = path[start - 3 : start + 3]
        views.fixture_frame(around_cut, chars, groups=False).assign(sent=[entry.id in kept for entry in around_cut])
        """,
        zh_strings={
            "kept: {kept[0]} .. {kept[-1]} ({len(kept):,} message entries)": "保留：{kept[0]} .. {kept[-1]}（{len(kept):,} 条 message entry）",
            "the first kept entry is a": "保留起点是一条",
            "message": "消息",
        },
    ),
    reveal(
        """
        Only between two groups. The ledger shows the cut between group 54 and
        group 55: groups above the `cut` row are left out whole, groups below it
        are kept whole. The first kept entry, `L0703`, is a user message: a context
        always starts where an interaction starts, so no tool call loses its
        result. This is the chapter's rule for the fixture, 「裁剪位置只能落在 a1/u2
        或 a2/u3 之间」 (a cut may only fall between `a1|u2` or `a2|u3`), on 88
        interactions instead of 3.
        """,
        zh="""
        只能落在两组之间。账本显示切点在第 54 组和第 55 组之间：`cut` 行以上的组整体留在
        外面，以下的组整体保留。保留起点 `L0703` 是一条 user 消息：上下文总是从一个交互的
        开头开始，所以没有哪个 tool call 会丢掉它的 result。这正是本章对 fixture 说的规则
        「裁剪位置只能落在 a1/u2 或 a2/u3 之间」，只是这里有 88 个交互，而不是 3 个。
        """,
    ),
    md(
        """
        Where the cut falls, as a picture: the groups newest first (right to
        left), each bar the running total from the newest group, coloured by the
        ledger's status. Notice that the cut is where the running total would
        cross the allowance (the dashed line). The data is `group_budget_frame`,
        the table Lab 11.3 showed for the fixture; below the plot are its rows
        down to the first two groups left out (without the long `entry ids`).
        """,
        zh="""
        切点落在哪里，画成图：各组从新到旧排列（从右往左），每根柱子是从最新一组起算的累计
        成本，颜色表示账本中的状态。注意切点正好在累计成本将要越过消息额度（虚线）的地方。
        数据来自 `group_budget_frame`，也就是实验 11.3 为 fixture 展示过的那张表；图下面列出
        它的行，一直到最先被留在外面的两组（去掉了很长的 `entry ids` 列）。
        """,
    ),
    code(
        """
        walk = views.group_budget_frame(path, **small_budget, estimate_tokens=chars)
        colours = walk["status"].map({"kept": "#86efac", "trimmed": "#e5e7eb", "overflow": "#fca5a5"})
        figure = Figure(figsize=(9, 3), dpi=100)
        axes = figure.add_subplot()
        axes.bar(walk["group"], walk["cumulative (newest first)"], color=colours, edgecolor="#6b7280", linewidth=0.3)
        axes.axhline(at_small.tokens.available_for_messages, color="#111827", linestyle="--", linewidth=1)
        axes.set_xlabel("interaction (the walk starts at the newest, on the right)")
        axes.set_ylabel("tokens, newest first")
        axes.set_title("max_tokens=50,000: green groups are kept, grey groups are left out", fontsize=10)
        figure.subplots_adjust(left=0.1, right=0.98, bottom=0.17, top=0.881)
        figure
        """,
        zh_strings={
            "interaction (the walk starts at the newest, on the right)": "交互（从右边最新的一组开始往回走）",
            "tokens, newest first": "token，从最新的一组起累计",
            "max_tokens=50,000: green groups are kept, grey groups are left out": (
                "max_tokens=50,000：绿色的组被保留，灰色的组被留在外面"
            ),
        },
    ),
    code(
        """
        kept_groups = int((walk["status"] != "trimmed").sum())
        walk.drop(columns="entry ids").head(kept_groups + 2)
        """
    ),
    *exercise_cells(
        "real-q1",
        """
        ### Exercise real-q1 — a window of 100,000 tokens

        Run `build_context` on the session's `path` yourself, with
        `max_tokens = 100_000`, pi's reserved output (`DEFAULT_RESERVED_OUTPUT`)
        and `chars_estimator()`, as in Step 5. Which entry starts the kept range?
        Give its id (or the expression that computes it).
        """,
        "answer_q1 = ...",
        zh="""
        ### 练习 real-q1 — 100,000 token 的窗口

        像第 5 步那样，自己在 session 的 `path` 上运行 `build_context`，参数为
        `max_tokens = 100_000`、pi 的回答预留（`DEFAULT_RESERVED_OUTPUT`）和
        `chars_estimator()`。保留范围从哪条 entry 开始？给出它的 id（或算出它的表达式）。
        """,
    ),
    *exercise_cells(
        "real-q2",
        """
        ### Exercise real-q2 — how many interactions fit?

        Under the same budget, how many interactions (groups) does the budget
        keep? `budget_ledger` has one row per interaction.
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 real-q2 — 能放下几个交互？

        同样的预算下，预算保留了多少个交互（组）？`budget_ledger` 每个交互一行。
        """,
    ),
    md(
        """
        ## Step 6 — compacting the session, and restoring from it

        When a file holds pi compactions, `pi_compactions_frame` puts each one
        beside `build_context`: pi's first kept entry as imported (the importer
        moves it back to the user message that starts its interaction, and says
        so in a note), and what `build_context` keeps of the same path with the
        20,000 tokens of recent history pi's compaction aims to keep. What this
        file says:
        """,
        zh="""
        ## 第 6 步 — 压缩这个 session，再从压缩中恢复

        文件里有 pi 的 compaction 时，`pi_compactions_frame` 把每一次都与 `build_context`
        并排列出：导入后 pi 的保留起点（导入器把它移回开启该交互的那条 user 消息，并用一条
        note 说明），以及 `build_context` 在同一条路径上、按 pi 的 compaction 想要保留的
        20,000 token 近期历史所保留的部分。这个文件给出的结果：
        """,
    ),
    code(
        """
        print("compaction lines in the file:", source.entry_counts.get("compaction", 0))
        compactions = views.pi_compactions_frame(imported, estimate_tokens=chars)
        if compactions.empty:
            print("pi never compacted this session, so there is no pi cut to compare with.")
        else:
            display(compactions)
        peak = sizes["provider tokens"].max()
        threshold = DEFAULT_MAX_TOKENS - DEFAULT_RESERVED_OUTPUT
        print(f"largest context the provider reported: {peak:,} tokens")
        print(f"pi's default threshold for automatic compaction: {threshold:,} tokens")
        """,
        zh_strings={
            "compaction lines in the file:": "文件里的 compaction 行：",
            "pi never compacted this session, so there is no pi cut to compare with.": (
                "pi 从未压缩过这个 session，所以没有 pi 的切点可以比较。"
            ),
            "largest context the provider reported: {peak:,} tokens": "provider 报告的最大上下文：{peak:,} 个 token",
            "pi's default threshold for automatic compaction: {threshold:,} tokens": (
                "pi 自动 compaction 的默认阈值：{threshold:,} 个 token"
            ),
        },
    ),
    md(
        """
        No compaction, and the largest call stayed below pi's default threshold.
        So instead of comparing with something pi never did, we compact the
        session ourselves, where `build_context` cut it at 50,000 tokens: the
        first kept entry is Step 5's. Writing a real summary is a model's job
        (outside this chapter), so the summary below is a stand-in that says what
        it is; only its cost matters here. `tokens_before` is what the whole
        history costs, as Lab 11.4 recorded it.
        """,
        zh="""
        没有 compaction，而且最大的那次调用也低于 pi 的默认阈值。所以我们不去和 pi 从未做过
        的事比较，而是自己压缩这个 session，切点就取 `build_context` 在 50,000 token 下裁剪
        的位置：保留起点就是第 5 步的那一条。写出真正的摘要是模型的工作（不在本章范围内），
        所以下面的摘要只是一个替身，它自己也这么说；这里只关心它的成本。`tokens_before`
        是整段历史的成本，与实验 11.4 的记录方式相同。
        """,
    ),
    code(
        """
        left_out = [row for row in budget_ledger(path, **small_budget, estimate_tokens=chars) if row.status == "trimmed"]
        stand_in = {
            "goal": "Stand-in summary written by this notebook, not by pi or a model",
            "constraints": [],
            "completed": [
                f"Interactions 1-{len(left_out)} ({left_out[0].entry_ids[0]} .. "
                f"{left_out[-1].entry_ids[-1]}) are left out of the context"
            ],
            "decisions": [],
            "changedFiles": [],
            "unresolved": ["What happened in them is not summarised: a real summary is made by a model"],
            "next": [],
        }
        compaction = create_compaction_entry(
            path,
            id="demo-compaction",
            timestamp=path[-1].timestamp + 1,
            summary=stand_in,
            first_kept_entry_id=at_small.kept_entry_ids[0],
            tokens_before=views.untrimmed_message_tokens(path, chars),
        )
        views.entry_fields_frame(compaction)
        """,
        # Each Chinese text is about as long as its English one, so that the stand-in
        # costs the same by characters / 4 in both editions (every number stays the same).
        zh_strings={
            "Stand-in summary written by this notebook, not by pi or a model": (
                "替身摘要：由本 notebook 写出，不是 pi 或模型写的；真正的摘要要由模型根据被留在外面的"
                "交互写出，这里只关心它的 token 成本"
            ),
            "Interactions 1-{len(left_out)} ({left_out[0].entry_ids[0]} .. ": "交互 1-{len(left_out)}（{left_out[0].entry_ids[0]} .. ",
            "{left_out[-1].entry_ids[-1]}) are left out of the context": (
                "{left_out[-1].entry_ids[-1]}）被留在上下文之外：它们仍在 session 文件里，只是不再发给模型，"
                "由这份摘要代替它们进入上下文"
            ),
            "What happened in them is not summarised: a real summary is made by a model": (
                "这些交互里发生了什么，这里没有总结：写出真正的摘要是模型的工作，它要读完被留在外面的"
                "全部消息，这不在本章范围之内"
            ),
        },
    ),
    md(
        """
        Restore: append the compaction to (a copy of) the path and project again.
        Nothing is written to the file, and the summary message has a cost of its
        own.

        **Predict first.** With the compaction on the path, where does the kept
        range start at 50,000 tokens, and where at pi's 200,000? Which `reason`
        does each give? Decide, then click *Show the answer* under the next cell.
        """,
        zh="""
        恢复：把 compaction 追加到路径（的一份副本）上，再做一次上下文投影。文件里什么也
        没有写入；摘要消息有它自己的成本。

        **先预测。** compaction 在路径上以后，50,000 token 时保留范围从哪里开始？pi 的
        200,000 token 时又从哪里开始？各自的 `reason` 是什么？先决定，再点击下一个单元格
        下面的*显示答案*。
        """,
    ),
    answer(
        """
        compacted = [*path, compaction]
        restored = build_context(compacted, **small_budget, estimate_tokens=chars)
        display(views.deduction_frame(restored, chars))
        windows = [DEFAULT_MAX_TOKENS, 50_000]
        options = {"reserved_output": DEFAULT_RESERVED_OUTPUT, "estimators": {"chars": chars}}
        views.kept_range_frame(compacted, windows, **options)
        """
    ),
    reveal(
        """
        At the compaction's first kept entry, `L0703`, in both windows, and the
        reason is `within_budget` in both. Restoring starts from the newest
        compaction on the path (Lab 11.5): only the messages from its first kept
        entry on are candidates, so the interactions before it are no longer
        candidates however much room is left; the summary stands in for them. At
        50,000 the summary is paid first, from the same allowance, and the kept
        groups still fit beside it. The history itself is unchanged: the next
        table projects the path as imported.
        """,
        zh="""
        两个窗口下都从 compaction 的保留起点 `L0703` 开始，`reason` 都是 `within_budget`。
        恢复从路径上最新的 compaction 开始（实验 11.5）：只有从它的保留起点开始的消息是候选，
        所以无论还剩多少空间，它之前的交互都不再是候选；摘要代替了它们。在 50,000 token 下，
        摘要先从同一份额度中付出，保留的各组在它旁边仍然放得下。历史本身没有改变：下一张表
        对导入时的路径做上下文投影。
        """,
    ),
    code("views.kept_range_frame(path, windows, **options)"),
    md(
        """
        The first messages of the restored context: the summary comes first, as
        one synthetic user message, then the kept suffix from the compaction's
        first kept entry.
        """,
        zh="""
        恢复后上下文的前几条消息：摘要排在最前面，是一条合成的 user 消息，后面是从
        compaction 的保留起点开始的保留后缀。
        """,
    ),
    code("views.messages_frame(restored, chars).head(4)"),
    md(
        """
        ## Step 7 — two estimators: characters / 4 and BPE

        `chars_estimator` is pi's heuristic; `bpe_estimator` counts real BPE
        tokens (`o200k_base`, from a vocabulary that ships with the package, so
        it works offline). Neither is the tokenizer of the model that ran this
        session: only the provider's own counts are exact. First the fixture,
        beside the chapter's test estimator, in its English text
        (`chapter_fixture()`), the language of this real session. Notice that its
        short English sentences cost fewer BPE tokens than characters / 4 suggests
        (with `chapter_fixture("zh")`'s Chinese sentences it is the other way
        round: more BPE tokens than characters / 4):
        """,
        zh="""
        ## 第 7 步 — 两种估算器：字符数 / 4 与 BPE

        `chars_estimator` 是 pi 的启发式；`bpe_estimator` 计算真实的 BPE
        token（`o200k_base`，词表随包一起提供，所以离线也能用）。两者都不是运行这个 session 的
        模型的 tokenizer：只有 provider 自己的计数是精确的。先看 fixture，旁边是本章的测试
        估算器。这里用的是 fixture 的英文文本（`chapter_fixture()`），与这个真实 session
        同一种语言。注意这些简短的英文句子按 BPE 计价，比字符数 / 4 预估的少（换成
        `chapter_fixture("zh")` 的中文句子，结论正好相反：中文的 BPE token 多于字符数 / 4）：
        """,
    ),
    code(
        """
        from course_lib import chapter_fixture, fixture_estimator

        bpe = bpe_estimator()
        fixture_tokens = views.message_tokens_frame(
            chapter_fixture(), {"fixture": fixture_estimator(), "chars": chars, "bpe": bpe}
        )
        display(fixture_tokens)
        views.estimator_comparison_frame(fixture_tokens, "chars", "bpe")
        """
    ),
    md(
        """
        The real session, per message kind (all its messages are priced).
        Notice that the ratio depends on the kind of text: tool calls (JSON
        arguments, code) cost more BPE tokens than characters / 4 suggests, and
        over the whole file the heuristic underestimates.
        """,
        zh="""
        真实 session，按消息种类统计（所有消息都计价）。注意比例取决于文本的种类：tool
        call（JSON 参数、代码）的 BPE token 比字符数 / 4 预估的多，而就整个文件而言，这个
        启发式估低了。
        """,
    ),
    code(
        """
        real_tokens = views.message_tokens_frame(path, {"chars": chars, "bpe": bpe})
        views.estimator_comparison_frame(real_tokens, "chars", "bpe")
        """
    ),
    md(
        """
        Every message as one point, chars / 4 against BPE, on log scales, with the
        line where the two agree. Messages that cost 0 under both (aborted turns
        with no text) cannot sit on a log scale and are left out; the cell says
        how many. Notice that the points spread on both sides of the line: the
        ratio per kind above is an average, not a rule for one message.
        """,
        zh="""
        每条消息是一个点：横轴字符数 / 4，纵轴 BPE，都用对数刻度，再画一条两者相等的线。
        两种估算下成本都为 0 的消息（没有文本的中止轮次）无法放上对数刻度，所以省去；
        单元格会打印省去了多少条。注意这些点分布在线的两侧：上面按种类的比例是平均值，不是
        单条消息的规律。
        """,
    ),
    code(
        """
        priced = real_tokens[(real_tokens["chars"] > 0) & (real_tokens["bpe"] > 0)]
        print(f"{len(priced)} of {len(real_tokens)} messages drawn; {len(real_tokens) - len(priced)} cost 0 under both")
        figure = Figure(figsize=(6.5, 5), dpi=100)
        axes = figure.add_subplot()
        for kind, rows in priced.groupby("kind", sort=False):
            axes.scatter(rows["chars"], rows["bpe"], s=9, alpha=0.6, label=kind)
        largest = max(priced["chars"].max(), priced["bpe"].max())
        axes.plot([1, largest], [1, largest], color="#111827", linewidth=1, label="y = x")
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xlabel("chars / 4 (pi's heuristic)")
        axes.set_ylabel("BPE tokens (o200k_base)")
        axes.legend(fontsize=8)
        figure.subplots_adjust(left=0.13, right=0.97, bottom=0.11, top=0.97)
        figure
        """,
        zh_strings={
            "{len(priced)} of {len(real_tokens)} messages drawn; {len(real_tokens) - len(priced)} cost 0 under both": (
                "{len(priced)} / {len(real_tokens)} 条消息画在图上；"
                "{len(real_tokens) - len(priced)} 条在两种估算下成本都是 0"
            ),
            "chars / 4 (pi's heuristic)": "字符数 / 4（pi 的启发式）",
            "BPE tokens (o200k_base)": "BPE token（o200k_base）",
        },
    ),
    md(
        """
        **Predict first.** At 50,000 tokens (Step 5), characters / 4 chose the
        messages that fill the allowance as far as whole groups allow. Priced by
        BPE, do the same messages still fit in that allowance? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** 在 50,000 token 下（第 5 步），字符数 / 4 选出的消息在完整组允许的范围
        内尽量填满了消息额度。按 BPE 计价，同样这些消息还放得进这份额度吗？先决定，再点击
        下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        allowance = at_small.tokens.available_for_messages
        sent = real_tokens[real_tokens["entry id"].isin(at_small.kept_entry_ids)]
        ratio = real_tokens["bpe"].sum() / real_tokens["chars"].sum()
        print(f"allowance for messages:       {allowance:,}")
        kept_chars, kept_bpe = sent["chars"].sum(), sent["bpe"].sum()
        print(f"the kept messages, chars / 4: {kept_chars:,}")
        print(f"the same messages, BPE:       {kept_bpe:,}")
        print(f"BPE / chars over the file:    {ratio:.3f}")
        """,
        zh_strings={
            "allowance for messages:       {allowance:,}": "消息额度：               {allowance:,}",
            "the kept messages, chars / 4: {kept_chars:,}": "保留的消息，字符数 / 4： {kept_chars:,}",
            "the same messages, BPE:       {kept_bpe:,}": "同样的消息，BPE：        {kept_bpe:,}",
            "BPE / chars over the file:    {ratio:.3f}": "整个文件的 BPE / 字符数：{ratio:.3f}",
        },
    ),
    reveal(
        """
        No: by BPE the same messages cost more than the allowance. Over this file
        characters / 4 counts about 1 / 1.102 of the BPE tokens (the ratio printed
        above), so a context that fills the allowance by characters / 4 overflows
        it by BPE. This is what the chapter's safety margin is for: 「reservedOutput
        给本轮 assistant 回复留空间，safetyMargin 吸收估算误差」 (the reserved output
        leaves room for the answer, the safety margin absorbs the estimator's
        error). pi's defaults set no margin.
        """,
        zh="""
        放不进：按 BPE 计价，同样的消息超过了消息额度。就整个文件而言，字符数 / 4 只数出
        BPE token 的大约 1 / 1.102（上面打印的比例），所以按字符数 / 4 填满额度的上下文，
        按 BPE 就会超出。这正是本章安全余量的用途：「reservedOutput 给本轮 assistant 回复留
        空间，safetyMargin 吸收估算误差」。pi 的默认设置没有安全余量。
        """,
    ),
    md(
        """
        A margin sized from the measured error. If the estimator counts 1 / ratio
        of the real tokens, messages it prices at *A* / ratio really cost about *A*:
        so a safety margin of *A* × (1 − 1 / ratio) keeps the real cost within the
        allowance *A*. The chapter does not give this rule; the workbook chose it
        as a rough one: the ratio is an average over the whole file, not a bound
        for one context. The same 50,000-token window with that margin:
        """,
        zh="""
        根据测得的误差确定安全余量。如果估算器只数出真实 token 的 1 / ratio，它定价为
        *A* / ratio 的消息实际大约花费 *A*：所以 *A* × (1 − 1 / ratio) 的安全余量能让真实
        成本留在额度 *A* 之内。本章没有给出这条规则；本工作簿选用它作为粗略的估计：这个比例
        是整个文件的平均值，不是某一份上下文的上限。同样 50,000 token 的窗口，加上这个安全
        余量：
        """,
    ),
    code(
        """
        margin = round(allowance * (1 - 1 / ratio))
        with_margin = build_context(path, **small_budget, safety_margin=margin, estimate_tokens=chars)
        sent = real_tokens[real_tokens["entry id"].isin(with_margin.kept_entry_ids)]
        print(f"safety_margin: {margin:,}")
        print(f"first kept:    {with_margin.kept_entry_ids[0]}")
        kept_bpe = sent["bpe"].sum()
        print(f"the kept messages, BPE: {kept_bpe:,} of the {allowance:,} without a margin")
        """,
        zh_strings={
            "safety_margin: {margin:,}": "安全余量 safety_margin：{margin:,}",
            "first kept:    {with_margin.kept_entry_ids[0]}": "保留起点：              {with_margin.kept_entry_ids[0]}",
            "the kept messages, BPE: {kept_bpe:,} of the {allowance:,} without a margin": (
                "保留的消息按 BPE 计：{kept_bpe:,}，不留安全余量时的消息额度是 {allowance:,}"
            ),
        },
    ),
    md(
        """
        The other way to absorb the error: price with BPE in the first place.
        Notice the 50,000-token rows: BPE prices the same messages higher, so fewer
        interactions fit and the cut moves later. Under pi's window everything fits
        either way.
        """,
        zh="""
        吸收误差的另一种办法：一开始就按 BPE 计价。注意 50,000 token 的几行：BPE 给同样的
        消息定价更高，所以放下的交互更少，切点向更新的一侧移动。在 pi 的窗口下，两种估算都
        能全部放下。
        """,
    ),
    code(
        """
        views.kept_range_frame(
            path,
            [DEFAULT_MAX_TOKENS, 50_000],
            reserved_output=DEFAULT_RESERVED_OUTPUT,
            estimators={"chars": chars, "bpe": bpe},
        )
        """
    ),
    md(
        """
        ### Exercise real-e1 — no safety margin

        pi's defaults set no safety margin. Say in a sentence when a context
        chosen with characters / 4 could then exceed the real window, and why it
        did not happen in this session. Then open the model answer.
        """,
        zh="""
        ### 练习 real-e1 — 没有安全余量

        pi 的默认设置没有安全余量。用一句话说明：用字符数 / 4 选出的上下文在什么情况下会超过
        真实的窗口，以及为什么这个 session 没有发生这种情况。然后打开参考答案。
        """,
    ),
    reveal(
        """
        When the chosen messages nearly fill the allowance: their real count is
        about 10% higher than characters / 4 says, and nothing is left to absorb
        it. In this session the whole history costs far less than pi's 183,616
        tokens for messages, by either estimator (Step 4 and the table above), so
        the error never reaches the edge.
        """,
        zh="""
        当选出的消息几乎填满额度时：它们的真实计数比字符数 / 4 给出的多大约 10%，却没有
        余量来吸收。在这个 session 里，无论用哪种估算器，整段历史都远小于 pi 留给消息的
        183,616 个 token（第 4 步和上面的表），所以误差从未碰到边界。
        """,
    ),
    md(
        """
        ## Your own pi session *(optional)*

        pi keeps every session as a JSONL file under
        `~/.pi/agent/sessions/--<working folder>--/<time>_<id>.jsonl`. Open one
        in a notebook cell like this (the file name is yours to fill in):

        ```python
        from pathlib import Path

        from course_lib import import_pi_session

        mine = import_pi_session(Path.home() / ".pi/agent/sessions/--your-folder--/your-file.jsonl")
        views.import_notes_frame(mine)
        ```

        Every step above works on `mine` instead of `imported`. Or, from the
        repository root, ask the command line for the same report in one go:

        ```bash
        .venv/bin/course-lab inspect FILE
        .venv/bin/course-lab inspect FILE --max-tokens 50000 --estimator bpe
        .venv/bin/course-lab inspect FILE --format json
        ```

        The next cell runs `course-lab inspect` on the sample with the
        50,000-token window of Step 5 (from the sample's folder, so the report
        names the file only) and shows what it prints. Notice that its deduction
        table, its ledger and its kept range are the ones of Step 5.
        """,
        zh="""
        ## 你自己的 pi session *（选做）*

        pi 把每个 session 保存为一个 JSONL 文件，路径是
        `~/.pi/agent/sessions/--<working folder>--/<time>_<id>.jsonl`。在 notebook 单元格里
        这样打开一个（文件名由你填写）：

        ```python
        from pathlib import Path

        from course_lib import import_pi_session

        mine = import_pi_session(Path.home() / ".pi/agent/sessions/--your-folder--/your-file.jsonl")
        views.import_notes_frame(mine)
        ```

        上面的每一步都可以把 `imported` 换成 `mine` 来运行。也可以在仓库根目录让命令行一次
        给出同样的报告（加上 `--lang zh`，表格报告就用中文；JSON 报告总是英文的）：

        ```bash
        .venv/bin/course-lab inspect FILE --lang zh
        .venv/bin/course-lab inspect FILE --max-tokens 50000 --estimator bpe --lang zh
        .venv/bin/course-lab inspect FILE --format json
        ```

        下一个单元格以第 5 步的 50,000 token 窗口在样例上运行 `course-lab inspect`（在样例
        所在的文件夹里运行，所以报告里只有文件名；本版本加上了 `--lang zh`），并显示它打印的
        内容。注意它的扣除表、
        账本和保留范围都与第 5 步相同。
        """,
    ),
    code(
        """
        import contextlib
        import io

        from course_lib.tools.cli import main as course_lab

        printed = io.StringIO()
        with contextlib.chdir(SAMPLE.parent), contextlib.redirect_stdout(printed):
            status = course_lab(["inspect", SAMPLE.name, "--max-tokens", "50000", "--lang", LANG])
        print(printed.getvalue(), end="")
        print("exit status:", status)
        """,
        zh_strings={"exit status:": "退出状态："},
    ),
    key_points_cell(LESSON),
]
