"""01 — Lab 11.1: the compaction entry is an ordinary, strict session fact."""

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
        # Lab 11.1 — The compaction entry is an ordinary, strict session fact

        **Chapter section:** 「摘要先成为 session 中的一条普通事实」

        **Goal.** When older messages no longer fit the model's window, the session
        keeps a structured summary of them. That summary is not an overwrite: it is a
        new entry, `compaction`, appended after the current leaf. In this lab it
        becomes a session fact like any other: one strict parser checks it and
        copies it, and both session stores write and reopen it without a line of
        compaction-specific code.

        **Builds on.** Chapter 3's messages and Chapter 10's session entries,
        `parse_session_entry` (the one boundary every entry crosses) and the two
        stores, `InMemorySessionStore` and `JsonlSessionStore`.

        **Checks.** `tests/labs/test_lab_11_1.py` (3 checks).
        """,
        zh="""
        # 实验 11.1 — compaction entry 是一条普通而严格的 session 事实

        **本章小节：**「摘要先成为 session 中的一条普通事实」

        **目标。** 较早的消息不再放得进模型窗口时，session 要为它们留下一份结构化摘要。
        这份摘要不是对原记录的覆盖：它是一条新的 entry `compaction`，追加在当前 leaf
        后面。在本实验中，它和其他 session 事实一样：同一个严格的 parser 检查并复制它，
        两个 session Store 写入并重新打开它，不需要一行 compaction 专用代码。

        **基础。** 第 3 章的消息和第 10 章的 session entries：`parse_session_entry`（每条
        entry 都要经过的唯一边界），以及两个 Store，`InMemorySessionStore` 和
        `JsonlSessionStore`。

        **检查。** `tests/labs/test_lab_11_1.py`（3 项检查）。
        """,
    ),
    code(
        """
        import tempfile
        from pathlib import Path

        import pandas as pd
        from IPython.display import display

        from course_lib import (
            InMemorySessionStore,
            JsonlSessionStore,
            chapter_fixture,
            fixture_estimator,
            fixture_summary,
            parse_session_entry,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import (
            answer_box,
            checks_frame,
            entry_fields_frame,
            errors_frame,
            expected_failure,
            setup_notebook,
            styled_fixture_frame,
        )

        setup_notebook(LANG)
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — `compact-1` as it arrives from outside

        A compaction arrives as a wire dict (camelCase, as the course's JSONL
        uses). `compact-1` hangs after `a3` and says the kept part of the path
        starts at `u2`. The helper returns a fresh dict on every call, so each cell
        below starts from the same input.
        """,
        zh="""
        ## 第 1 步 — 从外部到达的 `compact-1`

        compaction 以 wire dict 的形式到达（camelCase，与课程的 JSONL 一致）。
        `compact-1` 挂在 `a3` 后面，并说明路径的保留部分从 `u2` 开始。这个辅助函数每次
        调用都返回一个新的 dict，所以下面每个单元格都从同样的输入开始。
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
        entry_fields_frame(entry)
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
        ## Step 2 — the parser returns a copy

        **Predict first.** We parse a wire dict, then append an item to the dict's
        `constraints` list, and an item to the parsed entry's `next` list. Does
        either change show up on the other side? Write down your answer, then click
        *Show the answer* under the next cell.
        """,
        zh="""
        ## 第 2 步 — parser 返回副本

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

        pd.DataFrame(
            {
                "parsed entry": [parsed.summary.constraints, parsed.summary.next],
                "wire dict": [wire["summary"]["constraints"], wire["summary"]["next"]],
            },
            index=["summary constraints", "summary next"],
        )
        """
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
        `tokensBefore` is recorded by the caller. The parser checks that it is a
        finite number >= 0 and never recomputes it:
        """,
        zh="""
        `tokensBefore` 由调用者写入。parser 只检查它是 >= 0 的有限数，从不重新估算它：
        """,
    ),
    code('parse_session_entry({**compact_1_wire(), "tokensBefore": 1000}).tokens_before'),
    md(
        """
        ## Step 3 — expected failure: the `files` alias

        An early draft of the course called `changedFiles` simply `files`. The
        parser refuses that shape at the boundary; the message names the entry id
        and both field paths. Nothing is written and no budget is ever computed
        from it.
        """,
        zh="""
        ## 第 3 步 — 预期的失败：别名 `files`

        课程的早期草案把 `changedFiles` 简单地叫作 `files`。parser 在边界上拒绝这种
        形状；错误消息指出 entry id 和两个字段路径。什么都不会写入，也不会用它计算
        任何预算。
        """,
    ),
    code(
        """
        old_draft = compact_1_wire()
        old_draft["summary"]["files"] = old_draft["summary"].pop("changedFiles")
        expected_failure(lambda: parse_session_entry(old_draft))
        """
    ),
    md(
        """
        The same boundary refuses every other drift: unknown keys at any level,
        missing keys, numbers that are not finite (or not numbers), list items that
        are not strings, blank strings. One row per bad input; notice that each
        message starts with `session entry compact-1` and names the field path.
        """,
        zh="""
        同一个边界拒绝其他所有偏差：任何层级上的未知键、缺少的键、不是有限数（或根本
        不是数）的数值、不是字符串的列表项、空白字符串。每个错误输入一行；注意每条
        消息都以 `session entry compact-1` 开头，并指出字段路径。
        """,
    ),
    code(
        """
        def parsing(change):
            \"\"\"A call that parses compact-1 after ``change`` edited its wire dict.\"\"\"
            wire = compact_1_wire()
            change(wire)
            return lambda: parse_session_entry(wire)


        errors_frame(
            {
                "summary.nextSteps (old name)": parsing(lambda w: w["summary"].update(nextSteps=[])),
                "summary.invariants (old field)": parsing(
                    lambda w: w["summary"].update(invariants=[])
                ),
                "compactedEntryIds (old field)": parsing(
                    lambda w: w.update(compactedEntryIds=["u1"])
                ),
                "no constraints": parsing(lambda w: w["summary"].pop("constraints")),
                "no firstKeptEntryId": parsing(lambda w: w.pop("firstKeptEntryId")),
                "tokensBefore -1": parsing(lambda w: w.update(tokensBefore=-1)),
                "tokensBefore infinity": parsing(lambda w: w.update(tokensBefore=float("inf"))),
                "tokensBefore true": parsing(lambda w: w.update(tokensBefore=True)),
                'timestamp "100"': parsing(lambda w: w.update(timestamp="100")),
                'completed ["valid", 7]': parsing(
                    lambda w: w["summary"].update(completed=["valid", 7])
                ),
                'goal "   "': parsing(lambda w: w["summary"].update(goal="   ")),
                "parentId null": parsing(lambda w: w.update(parentId=None)),
            }
        )
        """
    ),
    *exercise_cells(
        "11.1-q1",
        """
        ### Exercise 11.1-q1 — which of these does the parser accept?

        Each candidate is `compact_1_wire()` with one change. Decide for each one
        whether `parse_session_entry` accepts it, without running the parser, and
        give the set of the letters it accepts (for example `{"A", "B"}`).

        | letter | the change |
        |---|---|
        | A | `tokensBefore` is `0` |
        | B | `tokensBefore` is `29.5` |
        | C | `summary.next` is `["ok", ""]` |
        | D | `parentId` is `null` (`None`) |
        | E | `timestamp` is `-5` |
        | F | `summary.changedFiles` is renamed `summary.files` |
        | G | `tokensBefore` is `"29"` |
        | H | an extra `compactedEntryIds: []` |
        """,
        "answer_q1 = ...",
        zh="""
        ### 练习 11.1-q1 — parser 接受其中哪些？

        每个候选都是 `compact_1_wire()` 加上一处修改。不运行 parser，逐个判断
        `parse_session_entry` 是否接受它，然后给出它接受的字母集合（例如
        `{"A", "B"}`）。

        | 字母 | 修改 |
        |---|---|
        | A | `tokensBefore` 是 `0` |
        | B | `tokensBefore` 是 `29.5` |
        | C | `summary.next` 是 `["ok", ""]` |
        | D | `parentId` 是 `null`（`None`） |
        | E | `timestamp` 是 `-5` |
        | F | `summary.changedFiles` 改名为 `summary.files` |
        | G | `tokensBefore` 是 `"29"` |
        | H | 多了一个 `compactedEntryIds: []` |
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
        """
    ),
    md(
        """
        The reopened session, `compact-1` included. A compaction belongs to no
        group. Notice the `group` column: with `compact-1` on the path, a budget
        (Lab 11.5) considers only the part from its first kept entry `u2` on, so
        the groups are numbered from there, and `u1, a1` are *summarised*: the
        summary stands in for them. Nothing was deleted.
        """,
        zh="""
        重新打开的 session，包括 `compact-1`。compaction 不属于任何一组。注意 `group`
        列：路径上有 `compact-1` 时，预算（实验 11.5）只考虑从它的 first kept entry
        `u2` 开始的部分，所以分组从那里开始编号，而 `u1, a1` 标为 `summarised`：摘要
        代替它们进入上下文。没有删除任何东西。
        """,
    ),
    code('styled_fixture_frame(reopened.entries(), estimate, uuid="reopened")'),
    md(
        """
        Appending is still guarded: a second `compact-1` is a duplicate id, and the
        old `files` alias is refused by the parser before the store sees it. After
        both failures the store holds the same eleven entries.
        """,
        zh="""
        追加仍然受到保护：第二个 `compact-1` 是重复的 id，而旧别名 `files` 在 Store
        看到它之前就被 parser 拒绝了。两次失败之后，Store 里仍是同样的十一条 entries。
        """,
    ),
    code(
        """
        display(
            errors_frame(
                {
                    "append compact-1 again": lambda: memory.append(compact_1_wire()),
                    "append the files alias": lambda: memory.append(old_draft),
                }
            )
        )
        print("entries in memory:", len(memory.entries()))
        """
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
]
