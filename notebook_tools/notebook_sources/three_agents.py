"""09 — three agents, one chapter: pi, Claude Code and Codex CLI sessions under the same budget."""

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

CLAUDE_CODE_LINE = (
    'MY_SESSION = Path.home() / ".claude" / "projects" / "-your-project-folder" / '
    '"your-session-uuid.jsonl"'
)
CODEX_LINE = (
    'MY_SESSION = Path.home() / ".codex" / "sessions" / "2026" / "03" / "02" / '
    '"rollout-your-file.jsonl"'
)
"""The two commented-out lines of the "your own session" cell: code, the same in both editions."""

LESSON = Lesson(
    minutes=30,
    objectives=(
        "import a Claude Code, a Codex CLI and a pi session with one function, and read the "
        "notes on what each import changed",
        "predict where the chapter's budget starts the kept range of a session its agent has "
        "already compacted",
        "compare an agent's compaction summaries with the chapter's seven summary fields",
        "explain why the tokens an agent counts differ from the chapter's estimate of the "
        "same file",
    ),
    objectives_zh=(
        "用同一个函数导入 Claude Code、Codex CLI 和 pi 的 session，并读懂每次导入改动了什么的说明",
        "预测本章的预算在一个已经被 agent 自己压缩过的 session 上，保留范围从哪里开始",
        "把 agent 的 compaction 摘要与本章摘要的七个字段对照",
        "解释为什么 agent 统计的 token 与本章对同一个文件的估算不同",
    ),
    key_points=(
        "Three agents, one chapter: every import yields strict course entries, and the "
        "chapter's functions run on them unchanged.",
        "With a compaction on the active path, the kept range starts at its first kept entry "
        "however much room is left: the summary stands in for what came before.",
        "The agents' summaries fill the seven fields unevenly; text that fits no field is kept "
        "in `unresolved`, never lost.",
        "An agent counts everything it sends (system prompt, tool definitions) with its own "
        "tokenizer; the chapter can only estimate what the file holds.",
    ),
    key_points_zh=(
        "三个 agent，一章内容：每次导入都得到严格的课程 entry，本章的函数原样在上面运行。",
        "活动路径上有 compaction 时，无论还剩多少空间，保留范围都从它的保留起点开始：摘要代替"
        "了之前的内容。",
        "agent 的摘要填写七个字段的情况参差不齐；不属于任何字段的文字放进 `unresolved`，不会丢失。",
        "agent 用自己的 tokenizer 统计它发送的一切（system prompt、工具定义）；本章只能估算"
        "文件里有的内容。",
    ),
)

CELLS: list[Cell] = [
    md(
        """
        # Three agents, one chapter

        **Goal.** Notebook 07 put one real pi session under the chapter's lens.
        Most of us work with Claude Code or Codex CLI every day, and both keep
        every session as JSONL on disk, with compaction records of their own.
        Here the same chapter reads all three: one sample session per agent,
        imported by one function, held to one budget (a 50,000-token window
        with 16,384 tokens reserved for the answer, as in notebook 07). For
        each agent we ask what the import changed, what the budget keeps,
        where the agent's own compactions fell against the chapter's
        projection, which of the seven summary fields its summaries fill, and
        how the tokens the agent counted compare with the chapter's estimate.
        At the end, one cell points the same tables at a file of your own.

        **Builds on.** Notebook 07 (importing a real session), Lab 11.2
        (`group_interactions`), Lab 11.3 (`build_context`), Labs 11.4 and 11.5
        (compaction entries, restoring from the newest one), and the importers
        in `course_lib.beyond.importers` (`import_session` recognises which
        agent wrote a file).

        **Checks.** Two exercises with instant checks. The importers are
        tested by `tests/beyond/test_import_claude_code.py`,
        `tests/beyond/test_import_codex.py` and
        `tests/beyond/test_import_detect.py`; this notebook's tables by
        `tests/views/test_agents.py`.
        """,
        zh="""
        # 三个 agent，一章内容

        **目标。** Notebook 07 用本章的视角看了一个真实的 pi session。我们大多数人每天用的
        是 Claude Code 或 Codex CLI，它们同样把每个 session 以 JSONL 保存在磁盘上，还有
        各自的 compaction 记录。这里用同一章的规则读这三种文件：每个 agent 一个样例
        session，由同一个函数导入，按同一个预算投影（50,000 token 的窗口，为回答预留
        16,384 个 token，与 notebook 07 相同）。对每个 agent 我们都问同样的问题：导入改动了
        什么，预算保留了什么，agent 自己的 compaction 落在哪里、与本章的上下文投影相比如何，
        它的摘要填写了七个字段中的哪几个，以及 agent 统计的 token 与本章的估算相比如何。
        最后，一个单元格把同样的表格指向你自己的文件。

        **基础。** Notebook 07（导入真实 session）、实验 11.2（`group_interactions`）、
        实验 11.3（`build_context`）、实验 11.4 和 11.5（compaction entry，从最新的
        compaction 恢复），以及 `course_lib.beyond.importers` 中的导入器（`import_session`
        能认出文件是哪个 agent 写的）。

        **检查。** 两道带即时检查的练习。导入器由 `tests/beyond/test_import_claude_code.py`、
        `tests/beyond/test_import_codex.py` 和 `tests/beyond/test_import_detect.py` 测试；
        本 notebook 的表格由 `tests/views/test_agents.py` 测试。
        """,
    ),
    lesson_cell(LESSON),
    code(
        """
        %matplotlib inline

        from pathlib import Path

        from IPython.display import display
        from matplotlib.figure import Figure
        from matplotlib.ticker import LogLocator, NullFormatter, StrMethodFormatter

        from course_lib import (
            CompactionEntry,
            build_context,
            chars_estimator,
            import_session,
            render_summary,
            views,
        )
        from course_lib.track.exercises import check
        from course_lib.views import answer_box

        views.setup_notebook(LANG)
        """
    ),
    md(
        """
        ## Step 1 — three files, one import

        The pi session is notebook 07's. The Claude Code and Codex CLI samples
        were written for this workbook from the documented record shapes
        (nobody's logs): each holds tool round trips, an aborted turn, a tool
        call without a result, a rewind or a branch, and two compactions.
        `import_session` looks at a file's first record, says which agent wrote
        it, and imports it with that agent's importer. Notice that all three
        come back as the same kind of object, asked the same questions.
        """,
        zh="""
        ## 第 1 步 — 三个文件，一次导入

        pi session 就是 notebook 07 的那个。Claude Code 和 Codex CLI 的样例是按公开文档
        描述的记录格式为本练习册编写的（不是任何人的日志）：每个都有 tool 往返、一个被中止
        的轮次、一个没有 result 的 tool call、一次回退或分支，以及两次 compaction。
        `import_session` 查看文件的第一条记录，说出是哪个 agent 写的，再用该 agent 的
        导入器导入。注意三个文件导入后都是同一种对象，可以问同样的问题。
        """,
    ),
    code(
        """
        DATA = views.workbook_root() / "data"
        SAMPLES = [
            DATA / "pi-sessions" / "large-session.v1.jsonl",
            DATA / "claude-code-sessions" / "sample-session.jsonl",
            DATA / "codex-sessions" / "sample-rollout.jsonl",
        ]
        imports = {path.name: import_session(path) for path in SAMPLES}
        for name, imported in imports.items():
            print(f"{name}: {imported.label} ({imported.format}), {len(imported.entries):,} entries, leaf {imported.leaf_id}")
        """,
        zh_strings={
            "{name}: {imported.label} ({imported.format}), {len(imported.entries):,} entries, leaf {imported.leaf_id}": (
                "{name}：{imported.label}（{imported.format}），{len(imported.entries):,} 条 entry，"
                "leaf 是 {imported.leaf_id}"
            ),
        },
    ),
    md(
        """
        ## Step 2 — every change the import made

        Each importer follows the pi importer's contract: strict course
        entries out, and a note for every change, with the line and the entry
        it concerns. Each note has a severity: a `warning` when the import
        changed what the model is sent (it changed the active path, dropped or
        moved a summary or the range a compaction keeps, or invented a message
        such as a synthetic result), `info` for routine trimming and
        bookkeeping. The notes by kind, one column per agent, warnings first.
        Notice the kinds all three share (a tool call that never got its
        result is repaired the same way everywhere) and the kinds only Claude
        Code and Codex need: records merged into one message, records that
        are never sent to a model, compactions whose first kept entry the
        chapter had to choose.
        """,
        zh="""
        ## 第 2 步 — 导入做的每一处改动

        每个导入器都遵守 pi 导入器的约定：输出严格的课程 entry，每一处改动都写一条
        note，注明它涉及的行和 entry。每条 note 都有一个严重程度：如果导入改变了发给模型
        的内容（改变了活动路径，丢弃或移动了摘要或 compaction 的保留范围，或者编造了一条
        消息，比如合成的 result），就是 `warning`；常规的裁剪和记账则是 `info`。下表按
        种类统计 notes，每个 agent 一列，warning 在前。注意三者共有的种类（从未得到
        result 的 tool call，在哪里都以同样的方式修复），以及只有 Claude Code 和 Codex
        才需要的种类：合并成一条消息的多条记录、永远不会发给模型的记录、由本章规则选出
        保留起点的 compaction。
        """,
    ),
    code("views.note_kinds_frame(imports)"),
    md(
        """
        ## Step 3 — one budget for three agents

        The same window for every path: 50,000 tokens, 16,384 reserved for the
        answer, no safety margin, every message priced by `chars_estimator()`
        (characters / 4, pi's heuristic). None of the three files holds a
        system prompt, so the allowance for messages is the same for all:
        """,
        zh="""
        ## 第 3 步 — 三个 agent，同一个预算

        每条路径用同一个窗口：50,000 token，为回答预留 16,384，没有安全余量，每条消息都用
        `chars_estimator()` 计价（字符数 / 4，pi 的启发式）。三个文件都没有保存 system
        prompt，所以三者的消息额度相同：
        """,
    ),
    code(
        """
        chars = chars_estimator()
        BUDGET = {"max_tokens": 50_000, "reserved_output": 16_384, "estimate_tokens": chars}
        for imported in imports.values():
            result = build_context(imported.active_path(), **BUDGET)
            print(f"{imported.label}: available_for_messages {result.tokens.available_for_messages:,}, messages cost {result.tokens.messages:,}")
        """,
        zh_strings={
            "{imported.label}: available_for_messages {result.tokens.available_for_messages:,}, messages cost {result.tokens.messages:,}": (
                "{imported.label}：消息额度 available_for_messages {result.tokens.available_for_messages:,}，"
                "消息的成本 {result.tokens.messages:,}"
            ),
        },
    ),
    md(
        """
        **Predict first.** The Claude Code and Codex samples cost a few hundred
        tokens each: far less than the allowance. So where does each kept
        range start: at the path's first user message, or later? And what
        `reason` does `build_context` give? Decide, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        **先预测。** Claude Code 和 Codex 的样例各自只花几百个 token，远小于消息额度。那么
        各自的保留范围从哪里开始：路径上的第一条 user 消息，还是更晚？`build_context` 给出
        的 `reason` 又是什么？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        overview = views.agent_overview_frame(imports, **BUDGET)
        overview
        """
    ),
    reveal(
        """
        Later, yet nothing was cut. Both kept ranges start at the first kept
        entry of the agent's newest compaction, and the reason is
        `within_budget`: restoring starts from the newest summary on the
        active path (Lab 11.5), so the interactions before that entry are no
        longer candidates, whatever room is left. The summary stands in for
        them. Only pi's session, which never compacted, is long enough for the
        budget to cut it (`trimmed`).
        """,
        zh="""
        更晚，但并没有裁剪。两个保留范围都从 agent 最新一次 compaction 的保留起点
        开始，`reason` 是 `within_budget`：恢复从活动路径上最新的摘要开始（实验 11.5），
        所以那条 entry 之前的交互不再是候选，无论还剩多少空间。摘要代替了它们。只有从未
        压缩过的 pi session 长到需要预算来裁剪（`trimmed`）。
        """,
    ),
    *exercise_cells(
        "three-q1",
        """
        ### Exercise three-q1 — a much smaller window

        Run `build_context` on the Codex sample's active path
        (`imports["sample-rollout.jsonl"].active_path()`) with
        `max_tokens = 16_600`, the same 16,384 reserved and `chars`: 216
        tokens are left for messages. Which entry starts the kept range? Give
        its id (or the expression that computes it).
        """,
        "answer_q1 = ...",
        zh="""
        ### 练习 three-q1 — 小得多的窗口

        在 Codex 样例的活动路径（`imports["sample-rollout.jsonl"].active_path()`）上运行
        `build_context`，参数为 `max_tokens = 16_600`、同样预留 16,384、估算器 `chars`：
        留给消息的只有 216 个 token。保留范围从哪条 entry 开始？给出它的 id（或算出它的
        表达式）。
        """,
    ),
    md(
        """
        ### Context the agent injected

        Codex CLI sends the model a few user messages that nobody typed: the
        environment it runs in (`<environment_context>`), your standing
        instructions (`<user_instructions>`) and a project's `AGENTS.md`. The
        importer keeps each as the user message it was and marks it with an
        `injected_context` note. The chapter's budget treats them as user
        interactions, because that is what the model was sent: each user
        message starts an interaction (Lab 11.2), so under a tight window
        `build_context` may trim one like any other, oldest first. The agent
        does not lose them that way: it injects them again whenever it builds
        its context anew (after a compaction, for one), which a projection of
        the file cannot know. The Codex sample's injected entries, and what
        each costs under `chars`. Both come before the sample's compactions,
        so neither is in Step 3's kept range: the chapter's context no longer
        holds them, where Codex would send them again.
        """,
        zh="""
        ### agent 注入的上下文

        Codex CLI 会给模型发送几条没有人输入过的 user 消息：它运行的环境
        （`<environment_context>`）、你的长期指令（`<user_instructions>`），以及项目的
        `AGENTS.md`。导入器把每一条都保留为原来的 user 消息，并用一条 `injected_context`
        note 标出。本章的预算把它们当作 user 交互，因为模型收到的正是这些：每条 user 消息
        开始一个交互（实验 11.2），所以窗口很紧时，`build_context` 可能像裁剪其他交互一样
        裁掉其中一条，从最旧的开始。agent 自己不会这样丢掉它们：每当它重新构建上下文
        （例如 compaction 之后），都会再次注入，而对文件的上下文投影无从知道这一点。下表是
        Codex 样例中被注入的 entry，以及每条在 `chars` 下的成本。两条都在样例的
        compaction 之前，所以都不在第 3 步的保留范围里：本章的上下文已经不再包含它们，而
        Codex 会再次发送它们。
        """,
    ),
    code('views.injected_context_frame(imports["sample-rollout.jsonl"], chars)'),
    md(
        """
        ## Step 4 — where each agent's own compaction fell

        An agent compacts by its own rule: on its own when its count nears
        its window, or when you type `/compact`. Claude Code records which
        (`trigger`: `auto` or `manual`); a Codex CLI `compacted` record does not.
        The import hangs each compaction where it
        fell (`after entry`) and records what the agent said it kept (`agent
        kept`: 0 means its summary stands for the whole history). The chapter
        always keeps at least one whole interaction, so `first kept` is chosen
        by the chapter's rule, with a note. On the right, the chapter's
        projection of the same history, up to `after entry`, under our budget.
        Notice `tokens before`: the agent's count beside the chapter's
        estimate of the same messages.
        """,
        zh="""
        ## 第 4 步 — 每个 agent 自己的 compaction 落在哪里

        agent 按自己的规则压缩：在它的计数接近窗口时自动压缩，或在你输入 `/compact` 时
        压缩。Claude Code 会记下是哪一种（`trigger`：`auto` 或 `manual`）；Codex CLI 的
        `compacted` 记录则没有写明。导入器把每次 compaction 挂在
        它发生的位置（「落在哪条 entry 之后」一列），并记录 agent 说它保留了多少条 entry
        （「agent 保留的 entry 数」：0 表示它的摘要代表整段历史）。本章至少保留一个完整的
        交互，所以 first kept 一列（保留起点）由本章的规则选出，并附一条 note。右边是本章在我们的预算下
        对同一段历史（到那条 entry 为止）的上下文投影。注意两列「压缩前 token」：agent 的
        计数与本章对同样这些消息的估算并排。
        """,
    ),
    code(
        """
        compactions = views.agent_compactions_frame(imports, **BUDGET)
        for imported in imports.values():
            if not imported.compactions:
                print(f"{imported.label} never compacted this session.")
        compactions
        """,
        zh_strings={
            "{imported.label} never compacted this session.": "{imported.label} 从未压缩过这个 session。"
        },
    ),
    md(
        """
        Every `build_context reason` is `within_budget`: under our window the
        chapter would not have cut anything at the moment either agent
        compacted. The agents counted far more than the chapter's estimate of
        the file: their count includes the system prompt and the tool
        definitions, which the session file does not hold, measured with their
        own tokenizer. An agent compacts by what it counts; the chapter can
        only estimate what the file holds. Step 6 sets the two side by side
        for every interaction.
        """,
        zh="""
        「build_context 的 reason」一列全是 `within_budget`：在我们的窗口下，无论哪个 agent
        压缩的那一刻，本章都不需要裁剪任何内容。agent 统计的数远大于本章对文件的估算：
        它的计数包括 system prompt 和工具定义，而 session 文件里没有这些；而且它用的是自己的
        tokenizer。agent 按自己统计的数来决定压缩；本章只能估算文件里有的内容。第 6 步把
        两者按每个交互并排列出。
        """,
    ),
    md(
        """
        ## Step 5 — what the summaries hold, against the seven fields

        The chapter's summary has seven fields (`goal`, `constraints`,
        `completed`, `decisions`, `changedFiles`, `unresolved`, `next`).
        Claude Code writes its summary as Markdown sections and Codex CLI as a
        handoff note; the importers map each section onto a field, and keep
        text that fits no field in `unresolved`, under its own heading, so
        nothing is lost. First the Codex sample's second summary, as the model
        reads it after restoring. Notice that the whole handoff note landed in
        `unresolved`: it has no headings, so no field claims any of it, and the
        `goal` line says so instead of inventing one.
        """,
        zh="""
        ## 第 5 步 — 摘要里有什么：对照七个字段

        本章的摘要有七个字段（`goal`、`constraints`、`completed`、`decisions`、
        `changedFiles`、`unresolved`、`next`）。Claude Code 把摘要写成若干 Markdown 小节，
        Codex CLI 写成一份交接说明；导入器把每一节映射到一个字段，不属于任何字段的文字放进
        `unresolved`，前面带着它原来的标题，所以不会丢失任何内容。先看 Codex 样例的第二份
        摘要，恢复后模型读到的就是这样。注意整份交接说明都落进了 `unresolved`：它没有标题，
        没有哪个字段能认领其中任何一句；`goal` 这一行也如实说明了这一点，而不是编造一个目标。
        """,
    ),
    code(
        """
        codex = imports["sample-rollout.jsonl"]
        newest = [entry for entry in codex.active_path() if isinstance(entry, CompactionEntry)][-1]
        print(render_summary(newest.summary, views.summary_labels(LANG)))
        """
    ),
    *exercise_cells(
        "three-q2",
        """
        ### Exercise three-q2 — the fields every summary filled

        Do the same for the Claude Code sample (`imports["sample-session.jsonl"]`):
        which of the seven fields did *every* one of its compactions fill? Render
        its summaries as the cell above does, or read each import compaction's
        `fields_filled` (`imports["sample-session.jsonl"].compactions`). Give
        their wire names as a set, such as `{"goal"}`.
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 three-q2 — 每份摘要都填写了的字段

        对 Claude Code 样例（`imports["sample-session.jsonl"]`）做同样的事：它的*每一次*
        compaction 都填写了七个字段中的哪几个？可以像上面的单元格那样渲染它的摘要，也可以读
        每次导入的 compaction 的 `fields_filled`（`imports["sample-session.jsonl"].compactions`）。
        用 wire 名称写成一个集合，例如 `{"goal"}`。
        """,
    ),
    md(
        """
        The fields each compaction filled, one row per compaction (pi's session
        has none; `unmapped items` counts the items kept in `unresolved` under
        their own heading). Notice that no summary fills `constraints`, and that
        the two agents fill different fields from one compaction to the next.
        """,
        zh="""
        每一次 compaction 填写了哪些字段，每次 compaction 一行（pi 的 session 没有
        compaction；「未归入字段的条目」统计以原标题放进 `unresolved` 的条目）。注意没有哪份
        摘要填写了 `constraints`，而且两个 agent 每次 compaction 填写的字段都不一样。
        """,
    ),
    code("views.summary_fields_frame(imports)"),
    md(
        """
        ## Step 6 — the tokens the agent counted, next to the chapter's estimate

        Each agent records its own token counts for every model call
        (`usage`). `prompt (agent)` is every input token the model read for
        the largest call of an interaction, cached or not; `context
        (chapter)` is what `build_context` would send before that same call
        with nothing cut, priced by `chars`. First the first and the last
        interaction of each agent that has counts. Notice the gap already at
        the first one: it is what the agent sends besides the file's messages
        (its system prompt and tool definitions), counted by its own
        tokenizer.
        """,
        zh="""
        ## 第 6 步 — agent 统计的 token 与本章的估算

        每个 agent 都为每次模型调用记录自己的 token 计数（`usage`）。「prompt（agent 计数）」
        是一个交互中最大的那次调用里模型读到的全部输入 token，无论是否命中缓存；「上下文
        （本章估算）」是在同一次调用之前，`build_context` 不做任何裁剪时会发送的内容，用
        `chars` 计价。先看每个 agent 有计数的第一个和最后一个交互。注意差距在第一个交互里
        就已经存在：那是 agent 在文件里的消息之外还发送的内容（它的 system prompt 和工具
        定义），用它自己的 tokenizer 计数。
        """,
    ),
    code(
        """
        usage = {imported.label: views.agent_usage_frame(imported, chars) for imported in imports.values()}
        views.usage_summary_frame(usage)
        """
    ),
    md(
        """
        The same two counts over each session, one panel per agent, on a log
        scale so that both lines show. The dashed lines mark the agent's
        compactions. Notice the chapter's line after each one: restoring
        sends the summary and the kept interactions instead of the whole
        history, so the next context is smaller, unless the interaction that
        follows adds more than the compaction saved (Claude Code's first).
        Then look whether the agent's own count falls there too. The Claude
        Code and Codex samples' counts were written for this workbook, not
        measured: read them for their shape, and check the pattern on a
        session of your own.
        """,
        zh="""
        同样的两种计数，沿着每个 session 画出来，每个 agent 一幅图，用对数刻度，让两条线
        都看得见。虚线标出 agent 的 compaction。注意本章那条线在每次 compaction 之后的变化：
        恢复时发送的是摘要和保留的交互，而不是整段历史，所以下一次的上下文更小；除非紧接着
        的那个交互增加的比 compaction 省下的还多（Claude Code 的第一次）。再看看 agent 自己
        的计数是不是也在那里下降。Claude Code 和 Codex 样例里的计数是为本练习册编写的，不是
        实测的：看它们的形状就好，这个规律请在你自己的 session 上核对。
        """,
    ),
    code(
        """
        figure = Figure(figsize=(10, 3.4), dpi=100)
        panels = figure.subplots(1, len(usage))
        for axes, imported in zip(panels, imports.values(), strict=True):
            rows = usage[imported.label]
            axes.plot(rows["group"], rows["prompt (agent)"], ".-", color="#dc2626", label="prompt (agent's count)")
            axes.plot(rows["group"], rows["context (chapter)"], ".-", color="#1f2937", label="context (chapter, chars / 4)")
            for last_before in views.compaction_groups(imported):
                axes.axvline(last_before + 0.5, color="#6b7280", linestyle="--", linewidth=1)
            axes.set_title(imported.label, fontsize=10)
            axes.set_xlabel("interaction")
            axes.set_yscale("log")
            axes.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
            axes.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
            axes.yaxis.set_minor_formatter(NullFormatter())
        panels[0].set_ylabel("tokens (log scale)")
        panels[0].legend(loc="lower right", fontsize=8)
        figure.subplots_adjust(left=0.09, right=0.98, bottom=0.15, top=0.895, wspace=0.35)
        figure
        """,
        zh_strings={
            "prompt (agent's count)": "prompt（agent 计数）",
            "context (chapter, chars / 4)": "上下文（本章估算，字符数 / 4）",
            "interaction": "交互",
            "tokens (log scale)": "token（对数刻度）",
        },
    ),
    md(
        "The data the chart draws, one table per agent:",
        zh="图中画的数据，每个 agent 一张表：",
    ),
    code(
        """
        for agent, rows in usage.items():
            print(agent)
            display(rows)
        """
    ),
    md(
        """
        ## Your own session *(optional)*

        Claude Code keeps each session in
        `~/.claude/projects/<project folder, with / written as ->/<session uuid>.jsonl`,
        Codex CLI in `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`.
        In a terminal, `ls -t ~/.claude/projects/*/*.jsonl | head -3` or
        `ls -t ~/.codex/sessions/*/*/*/rollout-*.jsonl | head -3` lists your
        newest ones. Uncomment one of the two lines in the next cell, put your
        file's name in it, and run the cell: it shows the tables of this
        notebook for your session, under the same budget. The file is only
        read, and nothing is sent anywhere. Your session's text then sits in
        the notebook's outputs: clear them before you share or commit the
        notebook. As stored, the cell reads nothing.
        """,
        zh="""
        ## 你自己的 session *（选做）*

        Claude Code 把每个 session 保存在
        `~/.claude/projects/<project folder, with / written as ->/<session uuid>.jsonl`，
        Codex CLI 保存在 `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`。
        在终端里运行 `ls -t ~/.claude/projects/*/*.jsonl | head -3` 或
        `ls -t ~/.codex/sessions/*/*/*/rollout-*.jsonl | head -3`，就能列出你最新的几个。
        把下一个单元格中两行之一的注释去掉，填上你的文件名，再运行这个单元格：它在同样的
        预算下，为你的 session 显示本 notebook 的各张表。文件只会被读取，不会发送到任何
        地方。之后你的 session 文本会留在 notebook 的输出里：分享或提交 notebook 之前先
        清除输出。按存储时的样子，这个单元格什么也不读。
        """,
    ),
    code(
        """
        MY_SESSION = None  # as stored, nothing is read: uncomment one line below
        # MY_SESSION = Path.home() / ".claude" / "projects" / "-your-project-folder" / "your-session-uuid.jsonl"
        # MY_SESSION = Path.home() / ".codex" / "sessions" / "2026" / "03" / "02" / "rollout-your-file.jsonl"

        if MY_SESSION is None:
            print("MY_SESSION is not set: every table above shows the samples in data/.")
        else:
            mine = {Path(MY_SESSION).name: import_session(MY_SESSION)}
            display(views.agent_overview_frame(mine, **BUDGET))
            display(views.note_kinds_frame(mine))
            display(views.injected_context_frame(*mine.values(), chars))
            display(views.agent_compactions_frame(mine, **BUDGET))
            display(views.summary_fields_frame(mine))
            display(views.usage_summary_frame({m.label: views.agent_usage_frame(m, chars) for m in mine.values()}))
        """,
        zh_comments={
            "as stored, nothing is read: uncomment one line below": "按存储时的样子什么也不读：去掉下面一行的注释",
            # the commented-out code stays code in both editions
            CLAUDE_CODE_LINE: CLAUDE_CODE_LINE,
            CODEX_LINE: CODEX_LINE,
        },
        zh_strings={
            "MY_SESSION is not set: every table above shows the samples in data/.": (
                "没有设置 MY_SESSION：上面每张表显示的都是 data/ 里的样例。"
            ),
        },
    ),
    md(
        """
        ## What the three samples gave

        For each sample under the 50,000-token window: the entries the import
        made, the interactions on its active path, the notes it wrote, and the
        kept range `build_context` chose (Step 3's table, in short).
        """,
        zh="""
        ## 三个样例的结果

        每个样例在 50,000 token 窗口下的情况：导入生成的 entry 数、活动路径上的交互数、
        导入写下的 notes 数，以及 `build_context` 选出的保留范围（第 3 步那张表的简版）。
        """,
    ),
    code(
        """
        overview[["agent", "entries", "interactions", "notes", "first kept", "last kept", "entries kept", "reason"]]
        """
    ),
    key_points_cell(LESSON),
]
