"""00-start-here: what the workbook is, the lab map, the chapter's names, how a notebook works."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .cells import Cell, code, md

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
        "超出 fixture — 一个真实的 pi session",
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
        f"{number}. [{TITLES[name][1]}](./{name})"
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
        "and the same numbers: [中文版](./zh/00-start-here.ipynb).\n\n" + _english_list(after),
        zh="## Notebook 列表\n\n"
        "按这个顺序阅读。同样的 notebook 的英文版，代码与数字完全相同："
        "[English edition](../00-start-here.ipynb)。\n\n" + _chinese_list(after, chinese),
    )


def cells(names: Sequence[str], chinese: Collection[str]) -> list[Cell]:
    """The start page; ``names`` are every notebook, ``chinese`` those with a Chinese edition."""
    return [
        *BEFORE_THE_LIST,
        notebook_list(names, chinese),
        *AFTER_THE_LIST,
    ]


BEFORE_THE_LIST: list[Cell] = [
    md(
        """
        # Chapter 11 workbook: history stays, context is rebuilt to a budget

        *第 11 章：历史不动，上下文按预算重建*

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
        fixture* runs the same functions on a real pi session. Every table is computed by
        `course_lib`, the tested reference implementation; nothing in an output is
        typed by hand.
        """,
        zh="""
        # 第 11 章练习册：历史不动，上下文按预算重建

        *Chapter 11 workbook: history stays, context is rebuilt to a budget*

        这本练习册重建课程的第 11 章；这门课程一步步重建 **pi** coding agent。session
        是一段只追加的历史；每次调用模型时，都从这段历史*投影*出一份有界的模型输入：

        * 消息被分成**交互**（interaction），整体保留或整体丢弃，所以任何 tool call
          都不会丢掉它的 result（实验 11.2）；
        * **预算**先扣除固定成本，再保留放得下的最新几组（实验 11.3）；
        * **compaction（压缩）**追加一份结构化的七字段摘要，而不是删除任何记录
          （实验 11.1、11.4），下一次投影从最新的摘要开始（实验 11.5）。

        每个实验 notebook 都使用本章十条 entry 的 fixture，所以每个数字
        （7 / 7 / 15，31 → 28 → 24 → 22）都能手算核对；*超出 fixture* 在一个真实的
        pi session 上运行同样的函数。每张表都由经过测试的参考实现 `course_lib`
        计算，输出中没有任何内容是手写的。
        """,
    ),
]

AFTER_THE_LIST: list[Cell] = [
    code(
        """
        from course_lib.track.catalogue import LAB_CHECK_COUNTS
        from course_lib.views import lab_map_frame, setup_notebook
        from course_lib.views.lab_map import names_frame

        setup_notebook(LANG)
        """
    ),
    md(
        """
        ## The lab map

        One notebook per lab, in the chapter's order (Lab 11.5 takes two). The
        chapter's own section titles (Chinese) are given so you can read the
        chapter alongside. The transfer exercise is optional in the chapter: its 3
        checks (`tests/labs/test_transfer.py`, run by `course-lab check transfer`) are not
        among the chapter's 15, so its number of checks is a dash. After it, *Beyond
        the fixture* opens a real pi session
        (`data/pi-sessions/large-session.v1.jsonl`); it goes beyond the chapter, so
        it has no section title and no count of checks either. The
        recap closes the chapter: its summary, what the 15 checks fix, and a
        short questionnaire.
        """,
        zh="""
        ## 实验地图

        每个实验一个 notebook，按本章的顺序排列（实验 11.5 占两个）。表中列出本章自己的
        小节标题（中文），方便你对照阅读本章。迁移练习在本章中是可选的，没有编号的检查。
        之后，*超出 fixture* 打开一个真实的 pi session
        （`data/pi-sessions/large-session.v1.jsonl`）；它超出了本章的范围，所以同样没有
        小节标题和编号的检查。回顾收束本章：本章小结、15 项检查固定了什么，以及一份
        简短的问卷。
        """,
    ),
    code("lab_map_frame()"),
    md(
        "The checks of all labs together are the chapter's acceptance test:",
        zh="所有实验的检查合在一起，就是本章的验收测试：",
    ),
    code('print(f"{sum(LAB_CHECK_COUNTS.values())} checks in {len(LAB_CHECK_COUNTS)} labs")'),
    md(
        """
        ## The chapter's names in Python

        The chapter's code is TypeScript; this workbook's is Python. Functions,
        parameters and fields keep their words and become snake_case; the JSONL
        files keep the chapter's camelCase keys (`firstKeptEntryId`), so a file
        reads the same in both courses. `in` says where each Python name lives.
        """,
        zh="""
        ## 本章的名字在 Python 中

        本章的代码是 TypeScript，这本练习册的代码是 Python。函数、参数和字段保留原来的
        词，改写成 snake_case；JSONL 文件保留本章的 camelCase 键（`firstKeptEntryId`），
        所以同一个文件在两门课程里读起来完全一样。`in` 列说明每个 Python 名字位于哪里。
        """,
    ),
    code("names_frame()"),
    md(
        """
        ## How a lab notebook works

        Each lab notebook walks its part of the chapter in small steps on the
        ten-entry fixture, and asks you to think before it shows:

        * **Predict first** questions: the question comes first. The cell under it computes the
          answer inside a closed *Show the answer* block, which stays closed after
          *Run All*. Write your prediction down, then click it; the explanation
          after it opens the same way.
        * **Exercises.** A cell holds `answer_q1 = ...`: replace the `...` with
          your answer and run it, then run the check cell under it.
          `○` means not answered yet, `✓` correct, and `✗` comes with a hint
          about what to look at again (never the answer). The stored notebooks
          show `○`: they are stored unanswered.
        * **Expected failures.** Bad input is shown as a caught error with its
          message: the message names the entry or the number to look at.
        * **Your turn** (at the end of each lab): implement the lab in your
          practice package and run its checks from the notebook.
        """,
        zh="""
        ## 实验 notebook 怎样使用

        每个实验 notebook 在十条 entry 的 fixture 上分小步走完本章的一部分，并要求你
        先想、再看：

        * **先预测**的问题：问题在前。它下面的单元格计算答案，答案放在一个关闭的*显示答案*块里，
          *Run All* 之后它仍然关闭。先写下你的预测，再点击它；之后的解释也这样打开。
        * **练习。** 一个单元格写着 `answer_q1 = ...`：把 `...` 换成你的答案并运行，
          再运行它下面的检查单元格。`○` 表示尚未作答，`✓` 表示正确，`✗` 附带一条提示，
          告诉你该回头看什么（从不直接给出答案）。存储的 notebook 显示 `○`：它们以
          未作答的状态存储。
        * **预期的失败。** 错误输入以捕获并显示出来的错误呈现，附带错误消息：消息会
          指出该查看的 entry 或数字。
        * **轮到你了**（每个实验的结尾）：在你的练习包里实现这个实验，并在 notebook
          中运行它的检查。
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

        After `source .venv/bin/activate`, plain `course-lab` works too.
        """,
        zh="""
        ## 练习一个实验

        在仓库根目录的终端里（用 `make lab` 启动时，JupyterLab 的 *File → New →
        Terminal* 就在那里打开），`.venv/bin/course-lab practice 11` 创建
        `practice/ch11`：本章的模块，其中每个实验的代码都换成了一个
        `LabNotImplemented` 错误。一次实现一个实验（JupyterLab 的文件浏览器在
        `notebooks/` 旁边显示 `practice/`），然后检查它：

        ```bash
        .venv/bin/course-lab check 11.3 --impl practice/ch11
        ```

        执行 `source .venv/bin/activate` 之后，直接用 `course-lab` 也可以。
        """,
    ),
    md(
        """
        ## Running one lab's checks

        Either of these runs the three checks of Lab 11.3 against the reference
        `course_lib`:

        ```bash
        .venv/bin/course-lab check 11.3
        .venv/bin/pytest tests/labs/test_lab_11_3.py
        ```

        `.venv/bin/pytest -m lab_11_3` runs them too, together with the tests of
        the lab notebook's exercises. Each lab notebook ends by running its own
        checks with `run_lab_checks("11.3")` and shows them as a table, followed
        by the count line the course prints (`Lab 11.3: 3/3 passed`).
        """,
        zh="""
        ## 运行一个实验的检查

        下面任一命令都针对参考实现 `course_lib` 运行实验 11.3 的三项检查：

        ```bash
        .venv/bin/course-lab check 11.3
        .venv/bin/pytest tests/labs/test_lab_11_3.py
        ```

        `.venv/bin/pytest -m lab_11_3` 也会运行它们，同时运行该实验 notebook 中练习的
        测试。每个实验 notebook 最后都用 `run_lab_checks("11.3")` 运行自己的检查，把
        结果显示成表格，后面跟着课程打印的计数行（`Lab 11.3: 3/3 passed`）。
        """,
    ),
    md(
        """
        ## How the stored outputs are checked

        The notebooks are stored *executed*: every output is what the reference
        implementation produced, so they are the expected results. Run a notebook
        yourself (*Run All*) and every output should come back the same.

        `make test` does exactly that: it re-runs every notebook in a fresh kernel
        and compares each output with the stored one (nbval), hidden answers
        included. Two kinds of output are not compared: the cell that runs the
        checks on *your* practice package (its cell carries the tag
        `nbval-ignore-output`), and charts, whose data is always printed as a
        compared table next to them.

        The notebooks are generated from `notebook_tools/notebook_sources/` by
        `notebook_tools/build.py`, both editions from the same source: the code
        cells are the same, only the prose and the `#` comments differ. A change
        to a lesson is made there, and the notebooks are rebuilt with
        `make notebooks`.
        """,
        zh="""
        ## 存储的输出怎样被检查

        notebook 以*已执行*的状态存储：每个输出都是参考实现产生的，所以它们就是预期
        结果。自己运行一个 notebook（*Run All*），每个输出都应该原样出现。

        `make test` 正是这样做的：它在一个新的 kernel 中重新运行每个 notebook，并把每个
        输出与存储的输出比较（nbval），隐藏的答案也包括在内。有两类输出不比较：针对
        *你的*练习包运行检查的单元格（它带有标签 `nbval-ignore-output`），以及图表——
        图表的数据总会作为一张受比较的表格打印在它旁边。

        notebook 由 `notebook_tools/build.py` 从 `notebook_tools/notebook_sources/`
        生成，两个版本来自同一份源文件：代码单元格相同，只有文字和 `#` 注释不同。
        修改课程内容要在那里进行，然后用 `make notebooks` 重新生成 notebook。
        """,
    ),
]
