"""00-start-here: what the workbook is, the lab map, the chapter's names, how a notebook works."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from course_lib.track.catalogue import TS_TO_PYTHON

from .cells import Cell, Lang, Lesson, code, edition_file_name, key_points_cell, lesson_cell, md

TRANSLATED = True

TITLES: dict[str, tuple[str, str]] = {
    "00-start-here.ipynb": ("Start here", "从这里开始"),
    "01-lab-11.1-compaction-entry.ipynb": (
        "Lab 11.1 — the compaction entry and the two stores",
        "实验 11.1 — compaction entry 与两个 Store",
    ),
    "02-lab-11.2-interaction-groups.ipynb": (
        "Lab 11.2 — interactions: user boundaries and call/result ids",
        "实验 11.2 — 交互：user 边界与 call/result id",
    ),
    "03-lab-11.3-budget-projection.ipynb": (
        "Lab 11.3 — the budget projection over whole groups",
        "实验 11.3 — 以完整分组为单位的预算投影",
    ),
    "04-lab-11.4-create-compaction.ipynb": (
        "Lab 11.4 — creating a compaction entry (pure)",
        "实验 11.4 — 创建 compaction entry（纯函数）",
    ),
    "05a-lab-11.5-restoring.ipynb": (
        "Lab 11.5, part 1 — restoring from the newest compaction",
        "实验 11.5（上）— 从最新的 compaction 恢复",
    ),
    "05b-lab-11.5-compacting-again.ipynb": (
        "Lab 11.5, part 2 — compacting again; system state across the boundary",
        "实验 11.5（下）— 再次压缩；跨过边界的 system 状态",
    ),
    "06-transfer-budget-ledger.ipynb": (
        "Transfer exercise — a per-group budget ledger",
        "迁移练习 — 按组记账的预算账本",
    ),
    "07-beyond-the-fixture-real-session.ipynb": (
        "Beyond the fixture — a real pi session",
        "超越 fixture — 一个真实的 pi session",
    ),
    "08-recap.ipynb": ("Chapter 11 in review", "第 11 章回顾"),
    "09-three-agents-one-chapter.ipynb": (
        "Three agents, one chapter — pi, Claude Code and Codex CLI",
        "三个 agent，一章内容 — pi、Claude Code 与 Codex CLI",
    ),
}
"""Each notebook's title in the start page's list, in English and in Chinese."""


def _english_list(names: Sequence[str]) -> str:
    return "\n".join(
        f"{number}. [{TITLES[name][0]}](./{name})" for number, name in enumerate(names, 1)
    )


def _chinese_list(names: Sequence[str], chinese: Collection[str]) -> str:
    """Links to the Chinese editions; a notebook not yet translated links its English one."""
    return "\n".join(
        f"{number}. [{TITLES[name][1]}](./{edition_file_name(name, 'zh')})"
        if name in chinese
        else f"{number}. [{TITLES[name][1]}](../{name})（尚未翻译，链接到英文版）"
        for number, name in enumerate(names, 1)
    )


def notebook_list(names: Sequence[str], chinese: Collection[str]) -> Cell:
    """The notebooks in reading order, linked, and the way to the other edition."""
    after = [name for name in names if name != "00-start-here.ipynb"]
    return md(
        "## The notebooks\n\n"
        "Read them in this order. The same notebooks in Chinese, with the same code "
        "and the same numbers: [中文版](./zh/zh-00-start-here.ipynb).\n\n" + _english_list(after),
        zh="## Notebook 列表\n\n"
        "按这个顺序阅读。同样的 notebook 的英文版，代码与数字完全相同："
        "[English edition](../00-start-here.ipynb)。\n\n" + _chinese_list(after, chinese),
    )


LESSON = Lesson(
    minutes=10,
    objectives=(
        "find each lab's notebook, the chapter section it follows and its number of checks",
        "translate a name from the chapter's TypeScript into its Python name in `course_lib`, "
        "and tell the chapter's names from the workbook's own",
        "work through a notebook: predict before you open an answer, read an instant check's "
        "`○` / `✓` / `✗`, and run one lab's checks on your practice package",
    ),
    objectives_zh=(
        "找到每个实验的 notebook、它对应的本章小节和它的检查数",
        "把本章 TypeScript 中的名字对应到 `course_lib` 里的 Python 名字，并分清哪些是本章的名字、"
        "哪些是本工作簿自有的",
        "按 notebook 的方式学习：先预测再打开答案，读懂即时检查的 `○` / `✓` / `✗`，"
        "并在你的练习包上运行一个实验的检查",
    ),
    key_points=(
        "The chapter's acceptance test is 15 checks in 5 labs; the transfer exercise's 3 checks "
        "come on top of them.",
        "A Python name is the chapter's word in snake_case; the JSONL files keep the camelCase "
        "keys, so a session file reads the same in both courses.",
        "`course-lab practice 11` writes your practice package once; "
        "`course-lab check <lab> --impl practice/ch11` checks one lab of it.",
    ),
    key_points_zh=(
        "本章的验收测试是 5 个实验中的 15 项检查；迁移练习的 3 项检查在它们之外。",
        "Python 名字就是本章的词改写成 snake_case；JSONL 文件保留 camelCase 键，所以同一个"
        "session 文件在两门课程里读起来完全一样。",
        "`course-lab practice 11 --lang zh` 一次性写出你的练习包；"
        "`course-lab check <lab> --impl practice/ch11` 检查其中的一个实验。",
    ),
)


def cells(names: Sequence[str], chinese: Collection[str]) -> list[Cell]:
    """The start page; ``names`` are every notebook, ``chinese`` those with a Chinese edition."""
    return [
        TITLE,
        lesson_cell(LESSON),
        *BEFORE_THE_LIST,
        notebook_list(names, chinese),
        *AFTER_THE_LIST,
        key_points_cell(LESSON),
    ]


# --- the chapter's names ------------------------------------------------------------------

NOT_IN_THE_CHAPTER: dict[str, tuple[str, str]] = {
    "renderSummary": (
        "the workbook's own: the seven fields as text, in the chapter's fixed order",
        "本工作簿自有：按本章的固定顺序把七个字段写成文本",
    ),
    "summaryMessage": (
        "the workbook's own: the summary as the one synthetic user message",
        "本工作簿自有：把摘要变成那一条合成的 user message",
    ),
    "isError": (
        "a field of the course's messages (JSONL key `isError`)",
        "课程消息的字段（JSONL 键 `isError`）",
    ),
    "stopReason": (
        "a field of the course's messages (JSONL key `stopReason`)",
        "课程消息的字段（JSONL 键 `stopReason`）",
    ),
    "errorMessage": (
        "a field of the course's messages (JSONL key `errorMessage`)",
        "课程消息的字段（JSONL 键 `errorMessage`）",
    ),
    "rawArguments": (
        "a field of the course's messages (JSONL key `rawArguments`)",
        "课程消息的字段（JSONL 键 `rawArguments`）",
    ),
    "totalTokens": (
        "a field of the course's messages (JSONL key `totalTokens`)",
        "课程消息的字段（JSONL 键 `totalTokens`）",
    ),
}
"""Rows of ``TS_TO_PYTHON`` whose name the chapter's text does not have, and what each is.

Every other row's TypeScript name is written in the chapter's text. The Python
names come from ``course_lib.track.catalogue`` (``tests/views/test_names.py``
checks each one exists where the table says), so only this note is kept here.
"""

_UNKNOWN = set(NOT_IN_THE_CHAPTER) - {typescript for typescript, _, _ in TS_TO_PYTHON}
if _UNKNOWN:
    raise ValueError(f"NOT_IN_THE_CHAPTER names no row of TS_TO_PYTHON: {sorted(_UNKNOWN)}")


def _home(where: str) -> str:
    """``course_lib``, a function as ``build_context(...)``, or a class name as it is."""
    if not where:
        return "course_lib"
    return f"{where}(...)" if where[0].islower() else where


def chapter_names_table(lang: Lang) -> str:
    """The chapter's TypeScript names beside their Python names, as a markdown table."""
    header = {
        "en": "| chapter (TypeScript) | Python | in |",
        "zh": "| 本章（TypeScript） | Python | 所在位置 |",
    }[lang]
    rows = [
        f"| `{typescript}` | `{python}` | `{_home(where)}` |"
        for typescript, python, where in TS_TO_PYTHON
        if typescript not in NOT_IN_THE_CHAPTER
    ]
    return "\n".join([header, "|---|---|---|", *rows])


def other_names_table(lang: Lang) -> str:
    """The Python names a student meets that the chapter's text does not have, and whose they are."""
    header = {"en": "| Python | in | whose |", "zh": "| Python | 所在位置 | 来源 |"}[lang]
    note = 1 if lang == "zh" else 0
    rows = [
        f"| `{python}` | `{_home(where)}` | {NOT_IN_THE_CHAPTER[typescript][note]} |"
        for typescript, python, where in TS_TO_PYTHON
        if typescript in NOT_IN_THE_CHAPTER
    ]
    return "\n".join([header, "|---|---|---|", *rows])


TITLE = md(
    """
    # Chapter 11 workbook: history stays, context is rebuilt to a budget

    *第 11 章：历史不动，上下文按预算重建*
    """,
    zh="""
    # 第 11 章练习册：历史不动，上下文按预算重建

    *Chapter 11 workbook: history stays, context is rebuilt to a budget*
    """,
)

BEFORE_THE_LIST: list[Cell] = [
    md(
        """
        This workbook rebuilds Chapter 11 of the course that rebuilds the **pi**
        coding agent. A session is an append-only history; on every model call a
        bounded model input is *projected* from it:

        * messages are grouped into **interactions** that are kept or dropped whole,
          so no tool call ever loses its result (Lab 11.2);
        * a **budget** deducts fixed costs and keeps the newest groups that fit
          (Lab 11.3);
        * **compaction** appends a structured seven-field summary instead of deleting
          anything (Labs 11.1, 11.4), and the next projection starts from the newest
          summary (Lab 11.5).

        Every lab notebook works on the chapter's ten-entry fixture, so each number
        (7 / 7 / 15, 31 → 28 → 24 → 22) can be checked by hand; *Beyond the
        fixture* runs the same functions on a real pi session. Every output is
        computed by `course_lib`, the tested reference implementation; nothing in an
        output is typed by hand.
        """,
        zh="""
        这本练习册重建课程的第 11 章；这门课程一步步重建 **pi** coding agent。session
        是一段只追加的历史；每次调用模型时，都从这段历史*投影*出一份有界的模型输入：

        * 消息被分成**交互**（interaction），整体保留或整体丢弃，所以任何 tool call
          都不会丢掉它的 result（实验 11.2）；
        * **预算**先扣除固定成本，再保留放得下的最新几组（实验 11.3）；
        * **compaction**（压缩）追加一份结构化的七字段摘要，而不是删除任何记录
          （实验 11.1、11.4），下一次投影从最新的摘要开始（实验 11.5）。

        每个实验 notebook 都使用本章十条 entry 的 fixture，所以每个数字
        （7 / 7 / 15，31 → 28 → 24 → 22）都能手算核对；*超越 fixture* 在一个真实的
        pi session 上运行同样的函数。每个输出都由经过测试的参考实现 `course_lib`
        计算，输出中没有任何内容是手写的。
        """,
    ),
]

AFTER_THE_LIST: list[Cell] = [
    code(
        """
        from course_lib import views
        from course_lib.track.catalogue import LAB_CHECK_COUNTS

        views.setup_notebook(LANG)
        """
    ),
    md(
        """
        ## The lab map

        One notebook per lab, in the chapter's order (Lab 11.5 takes two). The
        chapter's own section titles (Chinese) are given so you can read the
        chapter alongside. The transfer exercise is optional in the chapter: its 3
        checks (run by `course-lab check transfer`) are not among the chapter's 15,
        so its number of checks is a dash. After it, *Beyond the fixture* opens a
        real pi session (`data/pi-sessions/large-session.v1.jsonl`); it goes beyond
        the chapter, so it has no section title and no count of checks either. The
        recap closes the chapter: its summary, what the 15 checks fix, and
        questions that apply the chapter's rules to new numbers.
        """,
        zh="""
        ## 实验地图

        每个实验一个 notebook，按本章的顺序排列（实验 11.5 占两个）。表中列出本章自己的
        小节标题（中文），方便你对照阅读本章。迁移练习在本章中是可选的：它的 3 项检查
        （用 `course-lab check transfer` 运行）不在本章的 15 项之中，所以检查数一栏是
        短横线。之后，*超越 fixture* 打开一个真实的 pi session
        （`data/pi-sessions/large-session.v1.jsonl`）；它走出了本章的范围，所以同样没有
        小节标题和检查数。回顾收束本章：本章小结、15 项测试固定了什么，以及把本章规则
        用到新数字上的练习。
        """,
    ),
    code("views.lab_map_frame()"),
    md(
        "The checks of all labs together are the chapter's acceptance test:",
        zh="所有实验的检查合在一起，就是本章的验收测试：",
    ),
    code(
        'print(f"{sum(LAB_CHECK_COUNTS.values())} checks in {len(LAB_CHECK_COUNTS)} labs")',
        zh_strings={
            "{sum(LAB_CHECK_COUNTS.values())} checks in {len(LAB_CHECK_COUNTS)} labs": (
                "{sum(LAB_CHECK_COUNTS.values())} 项检查，分布在 {len(LAB_CHECK_COUNTS)} 个实验中"
            )
        },
    ),
    md(
        "## The chapter's names in Python\n\n"
        "The chapter's code is TypeScript; this workbook's is Python. Functions,\n"
        "parameters and fields keep their words and become snake_case; the JSONL\n"
        "files keep the course's camelCase keys (`firstKeptEntryId`), so a file\n"
        "reads the same in both courses. `in` says where each Python name lives.\n"
        "Every TypeScript name below is written in the chapter's text.\n\n"
        + chapter_names_table("en"),
        zh="## 本章的名字在 Python 中\n\n"
        "本章的代码是 TypeScript，这本练习册的代码是 Python。函数、参数和字段保留原来的\n"
        "词，改写成 snake_case；JSONL 文件保留课程的 camelCase 键（`firstKeptEntryId`），\n"
        "所以同一个文件在两门课程里读起来完全一样。「所在位置」一列说明每个 Python 名字\n"
        "位于哪里。下表的每个 TypeScript 名字都出现在本章正文中。\n\n" + chapter_names_table("zh"),
    ),
    md(
        "You will also meet Python names the chapter's text does not have. The\n"
        "chapter describes turning the summary into one message but names no function\n"
        "for it: `render_summary` and `summary_message` are the workbook's own. The\n"
        "other five are fields of the course's messages that this chapter never\n"
        "names; you see them in the JSONL files.\n\n" + other_names_table("en"),
        zh="你还会遇到一些本章正文里没有的 Python 名字。本章描述了把摘要变成一条消息，\n"
        "却没有给这一步的函数起名：`render_summary` 和 `summary_message` 是本工作簿自有的。\n"
        "另外五个是课程消息的字段，本章没有提到它们；你会在 JSONL 文件里看到它们。\n\n"
        + other_names_table("zh"),
    ),
    md(
        """
        ## How a notebook works

        Each notebook opens with the time it takes and what you will be able to
        do afterwards, and ends with its key points. A lab notebook walks its
        part of the chapter in small steps on the ten-entry fixture, and asks you
        to think before it shows:

        * **Predict first** questions: the question comes first. The cell under it computes the
          answer inside a closed *Show the answer* block, which stays closed after
          *Run All*. Write your prediction down, then click it; the explanation
          after it opens the same way, under *Show the explanation*.
        * **Exercises.** Most apply a rule to new numbers: a cell holds
          `answer_q1 = ...`; replace the `...` with your answer and run it, then
          run the check cell under it. `○` means not answered yet, `✓` correct,
          and `✗` comes with a hint about what to look at again (never the
          answer). The stored notebooks show `○`: they are stored unanswered.
          Others ask you to explain a rule in a sentence: write yours down, then
          open the model answer under it.
        * **Expected failures.** Bad input is shown as a caught error with its
          message: the message names the entry or the number to look at.
        * **Your turn** (at the end of each lab): implement the lab in your
          practice package and run its checks from the notebook.

        A step marked *(optional)* may be skipped; the time at the top leaves it out.
        """,
        zh="""
        ## notebook 怎样使用

        每个 notebook 开头写明所需时间和学完后你能做什么，结尾列出要点。实验 notebook
        在十条 entry 的 fixture 上分小步走完本章的一部分，并要求你先想、再看：

        * **先预测**的问题：问题在前。它下面的单元格计算答案，答案放在一个关闭的*显示答案*块里，
          *Run All* 之后它仍然关闭。先写下你的预测，再点击它；之后的讲解也这样打开，
          点击*显示讲解*。
        * **练习。** 多数练习把一条规则用到新的数字上：一个单元格写着
          `answer_q1 = ...`；把 `...` 换成你的答案并运行，再运行它下面的检查单元格。
          `○` 表示尚未作答，`✓` 表示正确，`✗` 附带一条提示，告诉你该回头看什么（从不
          直接给出答案）。存储的 notebook 显示 `○`：它们以未作答的状态存储。另一些练习
          要你用一句话解释一条规则：先写下你的句子，再打开下面的参考答案。
        * **预期的失败。** 错误输入以捕获并显示出来的错误呈现，附带错误消息：消息会
          指出该查看的 entry 或数字。
        * **轮到你了**（每个实验的结尾）：在你的练习包里实现这个实验，并在 notebook
          中运行它的检查。

        标有 *（选做）* 的步骤可以跳过；开头的用时不包括它。
        """,
    ),
    md(
        """
        ## Practising a lab

        In a terminal in the repository root (JupyterLab's *File → New →
        Terminal* opens there when you started it with `make lab`),
        `.venv/bin/course-lab practice 11` creates `practice/ch11`: the chapter's
        modules with each lab's code replaced by a `LabNotImplemented` error.
        Implement one lab at a time (JupyterLab's file browser shows `practice/`
        next to `notebooks/`) and check it:

        ```bash
        .venv/bin/course-lab check 11.3 --impl practice/ch11
        ```

        Without `--impl`, the same command runs the lab's checks on the reference
        `course_lib`: that is the table each lab notebook ends with, followed by
        the count line the course prints (`Lab 11.3: 3/3 passed`). After
        `source .venv/bin/activate`, plain `course-lab` works too.
        """,
        zh="""
        ## 练习一个实验

        在仓库根目录的终端里（用 `make lab` 启动时，JupyterLab 的 *File → New →
        Terminal* 就在那里打开），`.venv/bin/course-lab practice 11 --lang zh` 创建
        `practice/ch11`：本章的模块，其中每个实验的代码都换成了一个
        `LabNotImplemented` 错误，说明文字是中文。一次实现一个实验（JupyterLab 的文件
        浏览器在 `notebooks/` 旁边显示 `practice/`），然后检查它：

        ```bash
        .venv/bin/course-lab check 11.3 --impl practice/ch11
        ```

        不加 `--impl` 时，同一条命令在参考实现 `course_lib` 上运行该实验的检查：每个实验
        notebook 结尾的表格就是它，后面跟着课程打印的计数行（`Lab 11.3: 3/3 passed`）。
        执行 `source .venv/bin/activate` 之后，直接用 `course-lab` 也可以。
        """,
    ),
]
