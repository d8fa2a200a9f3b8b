"""01 — Lab 11.1: the compaction entry is an ordinary session fact, read by the one parser."""

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
    minutes=35,
    objectives=(
        "write `compact-1` as the wire dict the chapter describes and name its seven summary "
        "fields",
        "decide whether `parse_session_entry` accepts a changed compaction wire dict, and read "
        "the entry id and field path its error names",
        "say where a record in an old shape is brought to the current one, and why",
        "show that both session stores write and reopen a compaction through the same parser "
        "as every other entry",
    ),
    objectives_zh=(
        "按本章的描述把 `compact-1` 写成 wire dict，并说出摘要的七个字段",
        "判断 `parse_session_entry` 是否接受一个改动过的 compaction wire dict，并读懂错误消息"
        "指出的 entry id 和字段路径",
        "说出旧形状的记录在哪里被改成当前形状，以及为什么",
        "说明两个 session Store 写入并重新打开 compaction 时，用的是与其他 entry 相同的 parser",
    ),
    key_points=(
        "A compaction is a new entry appended after the leaf; nothing is deleted. After "
        "`compact-1` (first kept entry `u2`), `u2, a2` is group 2 and `u3 … a3` group 3, "
        "counted over the whole active path; `u1, a1` are summarised.",
        "`parse_session_entry` is the one boundary: unknown or missing keys, bad numbers, "
        "non-string list items and a blank `goal`, `parentId` or `firstKeptEntryId` are "
        "refused, and the error names `compact-1` and the field path.",
        "The parser returns a new deep copy, so neither the caller's dict nor the stored entry "
        "can change the other.",
        "The parser knows only the current seven-field summary: migrating an old record is the "
        "caller's job, before the boundary. `tokensBefore` is the caller's number; the parser "
        "checks it, never recomputes it.",
    ),
    key_points_zh=(
        "compaction 是追加在 leaf 后面的一条新 entry，不删除任何东西。`compact-1`（保留起点 "
        "`u2`）之后，按整条活动路径计数，`u2, a2` 是第 2 组，`u3 … a3` 是第 3 组；`u1, a1` "
        "由摘要代替。",
        "`parse_session_entry` 是唯一的边界：未知键或缺少的键、错误的数值、不是字符串的列表项，"
        "以及空白的 `goal`、`parentId` 或 `firstKeptEntryId` 都会被拒绝，错误消息指出 "
        "`compact-1` 和字段路径。",
        "parser 返回一份新的深副本，所以调用者的 dict 和存下的 entry 互不影响。",
        "parser 只认识当前的七字段摘要：旧记录由调用者在边界外迁移。`tokensBefore` 是调用者"
        "写入的数；parser 检查它，从不重新估算。",
    ),
)

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.1 — The compaction entry is an ordinary session fact

        **Chapter section:** 「摘要先成为 session 中的一条普通事实」

        **Goal.** When older messages no longer fit the model's window, the session
        keeps a structured summary of them. That summary is not an overwrite: it is a
        new entry, `compaction`, appended after the current leaf. In this lab it
        becomes a session fact like any other: it crosses the same parser as every
        entry, and both session stores write and reopen it without a line of
        compaction-specific code.

        **Builds on.** Chapter 3's messages and Chapter 10's session entries,
        `parse_session_entry` (the one boundary every entry crosses) and the two
        stores, `InMemorySessionStore` and `JsonlSessionStore`.

        **Checks.** `tests/labs/test_lab_11_1.py` (3 checks).
        """,
        zh="""
        # 实验 11.1 — compaction entry 是一条普通的 session 事实

        **本章小节：**「摘要先成为 session 中的一条普通事实」

        **目标。** 较早的消息不再放得进模型窗口时，session 要为它们留下一份结构化摘要。
        这份摘要不是对原记录的覆盖：它是一条新的 entry `compaction`，追加在当前 leaf
        后面。在本实验中，它和其他 session 事实一样：经过与每条 entry 相同的 parser，
        两个 session Store 写入并重新打开它，不需要一行 compaction 专用代码。

        **基础。** 第 3 章的消息和第 10 章的 session entries：`parse_session_entry`（每条
        entry 都要经过的唯一边界），以及两个 Store，`InMemorySessionStore` 和
        `JsonlSessionStore`。

        **检查。** `tests/labs/test_lab_11_1.py`（3 项检查）。
        """,
    ),
    lesson_cell(LESSON),
    code(
        """
        from pathlib import Path

        from IPython.display import display

        from course_lib import (
            InMemorySessionStore,
            JsonlSessionStore,
            chapter_fixture,
            fixture_estimator,
            fixture_summary,
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
        ## Step 1 — `compact-1` as it arrives from outside

        A compaction arrives as a wire dict (camelCase, as the course's JSONL
        uses). `compact-1` hangs after `a3` (`parentId`), and its first kept entry
        is `u2` (`firstKeptEntryId`): when the context is rebuilt, the original
        messages are kept from `u2` on. `tokensBefore` (29) is the size of the
        path before compaction, as the caller estimated it. The helper returns a
        fresh dict on every call, so each cell below starts from the same input.

        The chapter gives these ids and numbers but not the summary's text; the
        workbook chose the one `fixture_summary()` returns.
        """,
        zh="""
        ## 第 1 步 — 从外部到达的 `compact-1`

        compaction 以 wire dict 的形式到达（camelCase，与课程的 JSONL 一致）。
        `compact-1` 挂在 `a3` 后面（`parentId`），它的保留起点是 `u2`
        （`firstKeptEntryId`）：重建上下文时，从 `u2` 开始保留原消息。`tokensBefore`
        （29）是压缩前路径的规模，由调用者估算。这个辅助函数每次调用都返回一个新的
        dict，所以下面每个单元格都从同样的输入开始。

        本章给出了这些 id 和数，但没有给出摘要的文字；本工作簿选用
        `fixture_summary()` 返回的那一份。
        """,
    ),
    code(
        """
        def compact_1_wire() -> dict:
            \"\"\"compact-1 as the chapter describes it, as a new wire dict on every call.\"\"\"
            return {
                "id": "compact-1",
                "parentId": "a3",
                "timestamp": 100,
                "type": "compaction",
                "summary": fixture_summary(LANG).to_wire(),
                "firstKeptEntryId": "u2",
                "tokensBefore": 29,
            }


        entry = parse_session_entry(compact_1_wire())
        views.entry_fields_frame(entry)
        """
    ),
    md(
        """
        Notice the seven summary fields: `goal` is a non-blank string, the other
        six are lists of strings. The parsed entry is a Python object with
        snake_case attributes:
        """,
        zh="""
        注意摘要的七个字段：`goal` 是非空白的字符串，其余六个都是字符串列表。解析出的
        entry 是一个 Python 对象，属性名用 snake_case：
        """,
    ),
    code(
        """
        print(type(entry).__name__, entry.parent_id, entry.first_kept_entry_id, entry.tokens_before)
        print(list(type(entry.summary).model_fields))
        """
    ),
    md(
        """
        ## Step 2 — changing the input after parsing

        **Predict first.** We parse a wire dict, then append an item to the dict's
        `constraints` list, and an item to the parsed entry's `next` list. Does
        either change show up on the other side? Write down your answer, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 2 步 — 解析之后再修改输入

        **先预测。** 我们解析一个 wire dict，然后向这个 dict 的 `constraints` 列表追加
        一项，再向解析出的 entry 的 `next` 列表追加一项。任何一边的修改会出现在另一边吗？
        先写下你的答案，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        wire = compact_1_wire()
        parsed = parse_session_entry(wire)
        wire["summary"]["constraints"].append("added to the dict after parsing")
        parsed.summary.next.append("added to the parsed entry")

        print("parsed entry, constraints:", parsed.summary.constraints)
        print("wire dict,    constraints:", wire["summary"]["constraints"])
        print("parsed entry, next:       ", parsed.summary.next)
        print("wire dict,    next:       ", wire["summary"]["next"])
        """,
        zh_strings={
            "added to the dict after parsing": "解析之后追加到 dict",
            "added to the parsed entry": "追加到解析出的 entry",
            "parsed entry, constraints:": "解析出的 entry，constraints：",
            "wire dict,    constraints:": "wire dict，     constraints：",
            "parsed entry, next:       ": "解析出的 entry，next：       ",
            "wire dict,    next:       ": "wire dict，     next：       ",
        },
    ),
    reveal(
        """
        Neither side sees the other's change: the parser returns a new deep copy.
        A store keeps what the parser returned, so no caller can edit history by
        holding on to a reference.
        """,
        zh="""
        两边都看不到对方的修改：parser 返回一份新的深副本。Store 保存的是 parser 返回的
        对象，所以任何调用者都无法靠持有一个引用来修改历史。
        """,
    ),
    md(
        """
        So **the parser returns a copy**, as the chapter says: 「解析器返回新对象」.

        `tokensBefore` is recorded by the caller. The parser checks that it is a
        finite number >= 0 and never recomputes it:
        """,
        zh="""
        所以 **parser 返回副本**，正如本章所说：「解析器返回新对象」。

        `tokensBefore` 由调用者写入。parser 只检查它是 >= 0 的有限数，从不重新估算它：
        """,
    ),
    code('parse_session_entry({**compact_1_wire(), "tokensBefore": 1000}).tokens_before'),
    md(
        """
        ## Step 3 — a record from an early draft

        An early draft of the course called `changedFiles` simply `files`. A record
        written by that draft is `compact-1` with `summary.changedFiles` removed
        and `summary.files = ["context.ts"]`, as the chapter shows it:
        """,
        zh="""
        ## 第 3 步 — 早期草案留下的记录

        课程的早期草案把 `changedFiles` 简单地叫作 `files`。那份草案写下的记录，就是
        去掉 `summary.changedFiles`、加上 `summary.files = ["context.ts"]` 的
        `compact-1`，与本章所举的一样：
        """,
    ),
    code(
        """
        old_draft = compact_1_wire()
        del old_draft["summary"]["changedFiles"]
        old_draft["summary"]["files"] = ["context.ts"]
        old_draft["summary"]
        """
    ),
    md(
        """
        **Predict first.** What does `parse_session_entry` do with it: accept it
        as it is, rename `files` to `changedFiles` and accept it, or refuse it?
        If it refuses, what does the message name? Decide, then click *Show the
        answer* under the next cell.
        """,
        zh="""
        **先预测。** `parse_session_entry` 会怎样处理它：原样接受、把 `files` 改名为
        `changedFiles` 后接受，还是拒绝？如果拒绝，错误消息指出什么？先决定，再点击
        下一个单元格下面的*显示答案*。
        """,
    ),
    answer(
        """
        from functools import partial

        views.expected_failure(partial(parse_session_entry, old_draft))
        """
    ),
    reveal(
        """
        Refused, at the boundary. The message starts with `session entry
        compact-1` and names both field paths: `summary.changedFiles` is
        missing, `summary.files` is an unknown field. The parser never guesses
        that `files` meant `changedFiles`: it knows only the current
        seven-field summary. So the error stops at `compact-1`: nothing is
        written, and no budget is ever computed from the record.
        """,
        zh="""
        拒绝，就在边界上。错误消息以 `session entry compact-1` 开头，并指出两个字段
        路径：缺少 `summary.changedFiles`，`summary.files` 是未知字段。parser 从不猜测
        `files` 指的就是 `changedFiles`：它只认识当前的七字段摘要。所以错误停在
        `compact-1`：什么都不会写入，也不会用这条记录计算任何预算。
        """,
    ),
    md(
        """
        **Old records are migrated outside the boundary.** The chapter:
        「这里的 parser 只生成前文定义的七字段 CompactionSummary。旧记录需要先在边界外迁移成当前形状；
        缺少当前字段或加入旧别名时，错误停在 compact-1，不会延后成预算差异。」 A caller
        that still has early-draft records converts them itself, then hands the
        current shape to the same parser:
        """,
        zh="""
        **旧记录在边界外迁移。** 本章写道：
        「这里的 parser 只生成前文定义的七字段 CompactionSummary。旧记录需要先在边界外迁移成当前形状；
        缺少当前字段或加入旧别名时，错误停在 compact-1，不会延后成预算差异。」
        仍持有早期草案记录的调用者自己先转换它们，再把当前形状交给同一个 parser：
        """,
    ),
    code(
        """
        def migrate_files_alias(record: dict) -> dict:
            \"\"\"An early draft's record in the current shape: the caller's step, before the parser.\"\"\"
            summary = dict(record["summary"])
            summary["changedFiles"] = summary.pop("files")
            return {**record, "summary": summary}


        migrated = parse_session_entry(migrate_files_alias(old_draft))
        print("changed_files after migration:", migrated.summary.changed_files)
        print("the old record still says files:", "files" in old_draft["summary"])
        """,
        zh_strings={
            "changed_files after migration:": "迁移之后的 changed_files：",
            "the old record still says files:": "旧记录里仍然是 files：",
        },
    ),
    md(
        """
        The same boundary refuses every other drift: unknown keys at any level,
        missing keys, numbers that are not finite (or not numbers), list items that
        are not strings, and blank strings where the chapter asks for text
        (`goal`, `parentId` and `firstKeptEntryId` must not be blank). One row per
        bad input, each a single change to `compact_1_wire()` (the rows are
        `views.COMPACTION_DRIFTS`); notice that each message starts with
        `session entry compact-1` and names the field path.
        """,
        zh="""
        同一个边界拒绝其他所有偏差：任何层级上的未知键、缺少的键、不是有限数（或根本
        不是数）的数值、不是字符串的列表项，以及本章要求有文字之处的空白字符串
        （`goal`、`parentId` 和 `firstKeptEntryId` 都不能为空）。每个错误输入一行，
        每行都是对 `compact_1_wire()` 的一处修改（这些行就是 `views.COMPACTION_DRIFTS`）；
        注意每条消息都以 `session entry compact-1` 开头，并指出字段路径。
        """,
    ),
    code("views.parser_refusals_frame(compact_1_wire())"),
    *exercise_cells(
        "11.1-q1",
        """
        ### Exercise 11.1-q1 — which of these does the parser accept?

        Each candidate is `compact_1_wire()` with one change that the tables
        above do not show. Decide for each one whether `parse_session_entry`
        accepts it, without running the parser, and give the set of the letters
        it accepts (for example `{"A", "B"}`).

        | letter | the change |
        |---|---|
        | A | `tokensBefore` is `0` |
        | B | `tokensBefore` is `29.5` |
        | C | `summary.next` is `["ok", ""]` |
        | D | `firstKeptEntryId` is `""` |
        | E | `timestamp` is `-5` |
        | F | `summary.completed` is renamed `summary.done` |
        | G | `summary.unresolved` is `"none"` (one string) |
        | H | `firstKeptEntryId` is `"a2"` |
        """,
        "answer_q1 = ...",
        zh="""
        ### 练习 11.1-q1 — parser 接受其中哪些？

        每个候选都是 `compact_1_wire()` 加上一处上面表格里没有出现过的修改。不运行
        parser，逐个判断 `parse_session_entry` 是否接受它，然后给出它接受的字母集合
        （例如 `{"A", "B"}`）。

        | 字母 | 修改 |
        |---|---|
        | A | `tokensBefore` 是 `0` |
        | B | `tokensBefore` 是 `29.5` |
        | C | `summary.next` 是 `["ok", ""]` |
        | D | `firstKeptEntryId` 是 `""` |
        | E | `timestamp` 是 `-5` |
        | F | `summary.completed` 改名为 `summary.done` |
        | G | `summary.unresolved` 是 `"none"`（一个字符串） |
        | H | `firstKeptEntryId` 是 `"a2"` |
        """,
    ),
    md(
        """
        ## Step 4 — both stores write and reopen `compact-1`

        Both stores append what `parse_session_entry` returns, so a compaction needs
        no store code of its own. We append the ten entries and `compact-1` to each
        store, then open the JSONL file again, as a restarted agent would.
        """,
        zh="""
        ## 第 4 步 — 两个 Store 都写入并重新打开 `compact-1`

        两个 Store 追加的都是 `parse_session_entry` 返回的对象，所以 compaction 不需要
        专用的 Store 代码。我们把十条 entries 和 `compact-1` 追加到每个 Store，再像
        重启后的 agent 那样重新打开 JSONL 文件。
        """,
    ),
    code(
        """
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            file = Path(folder) / "sessions" / "chapter11.jsonl"
            memory = InMemorySessionStore()
            jsonl = JsonlSessionStore.open(file)
            for store in (memory, jsonl):
                for item in [*chapter_fixture(LANG), compact_1_wire()]:
                    store.append(item)
            reopened = JsonlSessionStore.open(file)
            lines = file.read_text(encoding="utf-8").splitlines()
            warnings = reopened.read().warnings

        print("entries in memory:", len(memory.entries()), "| lines in the file:", len(lines))
        print("reopened equals memory:", reopened.entries() == memory.entries())
        print("warnings:", warnings)
        print("last line:", lines[-1])
        """,
        zh_strings={
            "entries in memory:": "内存中的 entries：",
            "| lines in the file:": "| 文件中的行数：",
            "reopened equals memory:": "重新打开后与内存中相同：",
            "warnings:": "警告：",
            "last line:": "最后一行：",
        },
    ),
    md(
        """
        **Predict first.** Next we show the reopened session with its `group`
        column, as the fixture table above shows the ten entries. With `compact-1`
        on the path (first kept entry `u2`), what does the column say for `u1`,
        `a1`, `u2` and `u3`: are the groups numbered again from 1 at `u2`, or do
        they keep their numbers? Decide, then click *Show the answer* under the
        next cell.
        """,
        zh="""
        **先预测。** 接下来展示重新打开的 session 及其 `group` 列，就像上面的 fixture
        表格展示十条 entries 那样。路径上有 `compact-1`（保留起点 `u2`）时，这一列对
        `u1`、`a1`、`u2` 和 `u3` 写的是什么：各组从 `u2` 起重新从 1 编号，还是保留原来的
        编号？先决定，再点击下一个单元格下面的*显示答案*。
        """,
    ),
    answer('styled_fixture_frame(reopened.entries(), estimate, uuid="reopened")'),
    reveal(
        """
        The groups keep their numbers: `u2, a2` is group 2 and `u3 … a3` group 3,
        because the chapter counts groups over the whole active path
        (「firstKeptEntryId: "u2" 表示恢复时从第二组开始保留原消息」). `u1, a1` are
        *summarised*: the summary stands in for them. The budget (Lab 11.5)
        considers only groups 2 and 3, from the first kept entry `u2` on.
        `compact-1` itself belongs to no group, and nothing was deleted.
        """,
        zh="""
        各组保留原来的编号：`u2, a2` 是第 2 组，`u3 … a3` 是第 3 组，因为本章按整条活动路径
        给组计数（「firstKeptEntryId: "u2" 表示恢复时从第二组开始保留原消息」）。`u1, a1`
        标为 `summarised`：摘要代替它们进入上下文。预算（实验 11.5）只考虑第 2、3 组，即从
        保留起点 `u2` 开始的部分。`compact-1` 本身不属于任何一组，也没有删除任何东西。
        """,
    ),
    md(
        """
        So **after `compact-1`, `u2` still opens group 2**; the numbers are the
        ones Lab 11.5's budget and the transfer exercise's ledger use. The line
        below asks for them directly.

        The `tokens` of the `compact-1` row is what the test estimator charges for
        the summary message it becomes. The chapter does not give this number;
        the workbook chose 5 tokens for any summary message.
        """,
        zh="""
        所以 **`compact-1` 之后，`u2` 仍然开启第 2 组**；实验 11.5 的预算和迁移练习的账本
        用的都是这些编号。下面这一行直接取出它们。

        `compact-1` 这一行的 `tokens` 是测试估算器为它变成的摘要消息给出的成本。本章
        没有给出这个数；本工作簿选用每条摘要消息 5 个 token。
        """,
    ),
    code(
        """
        labels = views.group_labels(reopened.entries())
        {entry_id: labels[entry_id] for entry_id in ["u1", "a1", "u2", "a2", "u3", "a3", "compact-1"]}
        """
    ),
    md(
        """
        Appending is still guarded: a second `compact-1` is a duplicate id, and the
        old `files` record is refused by the parser before the store sees it. After
        both failures the store holds the same eleven entries.
        """,
        zh="""
        追加仍然受到保护：第二个 `compact-1` 是重复的 id，而旧的 `files` 记录在 Store
        看到它之前就被 parser 拒绝了。两次失败之后，Store 里仍是同样的十一条 entries。
        """,
    ),
    code(
        """
        from functools import partial

        display(
            views.errors_frame(
                {
                    "append compact-1 again": partial(memory.append, compact_1_wire()),
                    "append the old files record": partial(memory.append, old_draft),
                }
            )
        )
        print("entries in memory:", len(memory.entries()))
        """,
        zh_strings={
            "append compact-1 again": "再次追加 compact-1",
            "append the old files record": "追加旧的 files 记录",
            "entries in memory:": "内存中的 entries：",
        },
    ),
    md(
        """
        ### Exercise 11.1-e1 — one parser for every entry

        `InMemorySessionStore`, `JsonlSessionStore` (when it writes and when it
        reopens a file) and Lab 11.4's `create_compaction_entry` all pass a
        compaction through `parse_session_entry`. Suppose instead that the JSONL
        store checked compactions with code of its own when it reopens a file.
        Explain in one or two sentences what could go wrong. Write your answer
        down, then open the model answer.
        """,
        zh="""
        ### 练习 11.1-e1 — 每条 entry 都走同一个 parser

        `InMemorySessionStore`、`JsonlSessionStore`（写入时和重新打开文件时）以及实验
        11.4 的 `create_compaction_entry`，都让 compaction 经过 `parse_session_entry`。
        假设 JSONL Store 重新打开文件时改用自己的代码检查 compaction，请用一两句话说明
        会出什么问题。先写下你的答案，再打开参考答案。
        """,
    ),
    reveal(
        """
        *A model answer.* Two checks can disagree: a session the memory store
        accepted might not reopen from its file, or an old `files` record might
        pass the file's check and show up much later as a different budget
        instead of an error naming `compact-1`. With one parser, every boundary
        (write, reopen, create) applies the same seven-field rules and stops bad
        input at the entry, before any store write or budget.
        """,
        zh="""
        *参考答案。* 两套检查可能不一致：内存 Store 接受的 session 可能无法从文件重新
        打开，或者一条旧的 `files` 记录通过了文件那边的检查，直到很久以后才表现为一个
        不同的预算，而不是一条指出 `compact-1` 的错误。只有一个 parser 时，每个边界
        （写入、重新打开、创建）都执行同样的七字段规则，在 entry 处就拦下错误输入，
        早于任何 Store 写入或预算。
        """,
    ),
    *exercise_cells(
        "11.1-q2",
        """
        ### Exercise 11.1-q2 — write a compaction yourself

        Write `compact-2` as a wire dict the parser accepts: it is appended to
        the path of `chapter_fixture_after_compaction()` (`… → a3 → compact-1 →
        u4 → a4`) and hangs after that path's last entry, keeps the path from `u3` on,
        has timestamp 200 and `tokensBefore` 34, and a summary of your own with
        all seven fields (camelCase keys, as in `compact_1_wire()`). When the
        parser refuses it, the check shows the parser's message: it names the
        field to fix.

        The chapter does not give these two numbers; the workbook chose
        timestamp 200 and `tokensBefore` 34.
        """,
        "answer_q2 = ...",
        zh="""
        ### 练习 11.1-q2 — 自己写一条 compaction

        把 `compact-2` 写成一个 parser 接受的 wire dict：它追加到
        `chapter_fixture_after_compaction()` 的路径（`… → a3 → compact-1 → u4 → a4`）上，
        挂在这条路径的最后一条 entry 后面，从 `u3` 起保留路径，timestamp
        为 200，`tokensBefore` 为 34，摘要由你自己写，包含全部七个字段（camelCase
        键，与 `compact_1_wire()` 一样）。parser 拒绝它时，检查会显示 parser 的错误
        消息：它指出要修改的字段。

        本章没有给出这两个数；本工作簿选用 timestamp 200 和 `tokensBefore` 34。
        """,
    ),
    *your_turn_cells(
        "11.1",
        "the compaction branch of the parser: `parse_compaction` in "
        "`practice/ch11/entries.py` (it turns a wire dict into a `CompactionEntry` and "
        "must refuse every bad input above)",
        what_zh="parser 的 compaction 分支：`practice/ch11/entries.py` 中的 "
        "`parse_compaction`（它把 wire dict 变成 `CompactionEntry`，并且必须拒绝上面"
        "所有的错误输入）",
    ),
    *checks_cells("11.1"),
    key_points_cell(LESSON),
]
