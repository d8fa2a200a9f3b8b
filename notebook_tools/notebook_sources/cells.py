"""The two kinds of cell, and the cells every lab notebook shares (fixture, your turn, checks).

A "predict first" question is three cells: the question (``md``), the cell
that computes the answer (``answer``: its outputs sit in a closed "Show the
answer" block, so neither opening the notebook nor Run All shows them), and the explanation (``reveal``:
a ``<details>`` block that stays closed until the student opens it). An
exercise is ``exercise_cells``: the prompt, a cell the student fills in, and
the instant check.

Two editions from one source
----------------------------

Every notebook is built twice from the same source: in English
(``notebooks/NN-name.ipynb``) and in Chinese (``notebooks/zh/zh-NN-name.ipynb``).
The code cells are shared; only the prose is written twice. English always
comes first, Chinese is a keyword argument next to it:

* ``md(en, zh=...)``: a markdown cell in both languages.
* ``reveal(en, zh=...)``: an explanation; the ``<details>`` label is
  ``SHOW_THE_ANSWER`` or ``SHOW_THE_ANSWER_ZH`` by itself, and
  ``SHOW_THE_EXPLANATION`` (``SHOW_THE_EXPLANATION_ZH``) right under an answer
  cell, whose own block already says "Show the answer".
* ``exercise_cells(id, prompt, starter, zh=...)``: ``zh`` is the Chinese
  prompt (it names the exercise id, like the English one).
* ``your_turn_cells(lab, what, what_zh=...)``: ``what_zh`` is the Chinese
  "implement ..." phrase; ``fixture_cells`` and ``checks_cells`` are
  translated here once for every notebook.
* ``code(src, zh_comments={...}, zh_strings={...})`` and ``answer(...)``
  alike: the code's logic is never translated. ``zh_comments`` maps the text
  of an English ``#`` comment (without the ``#``) to its Chinese text;
  ``zh_strings`` maps the text of a string literal a reader sees (a printed
  label, a chart's title or axis, a case's name) to its Chinese text, with the
  same ``{fields}`` when it is an f-string. Only comments and those strings
  change in the Chinese edition: every other code token stays byte-identical.
  ``# NBVAL_...``, ``noqa``/``type:``/``fmt:`` pragmas and comments without a
  Latin letter are never translated. What the library prints and raises is
  English in the library and shown in the notebook's language by its views
  (``course_lib.views.translated``).
* Code that depends on the language reads ``LANG``: the build adds
  ``LANG = "en"`` (``LANG = "zh"`` in the Chinese edition) after the imports
  of every notebook's first code cell, the one code line the editions differ
  in. So a cell writes ``chapter_fixture(LANG)``, ``fixture_summary(LANG)``,
  ``chapter_fixture_after_compaction(LANG)`` or
  ``render_summary(summary, summary_labels(LANG))`` (``course_lib.views``),
  never a language of its own. Paths go through ``workbook_root()``
  (``course_lib.views``): the Chinese edition runs one folder deeper.
* Wrap Chinese prose in the source like English: a line break between two
  Chinese characters is removed in the notebook (``joined_chinese_lines``),
  where Markdown would show it as a space.
* A "predict first" question starts with ``PREDICT_FIRST[lang]``
  (``**Predict first.**`` / ``**先预测。**``). Charts draw Chinese with the
  font ``views.setup_notebook("zh")`` installs (``course_lib.views.chart_font``).

A source is built in Chinese once it says ``TRANSLATED = True`` at module
level (every source does, and ``tests/notebooks/test_notebook_editions.py`` keeps it so). Then a cell
without its Chinese text, or a ``zh_comments`` or ``zh_strings`` key that matches nothing,
fails the build with the source's name and the cell's number. The Chinese
edition uses the chapter's own terms (活动路径, 上下文投影, 交互, 压缩 /
compaction, 摘要, 预算 ...), as ``chapter11-context-compaction.zh.txt``
writes them; ids, function names and JSON keys stay as they are.
"""

from __future__ import annotations

import ast
import copy
import io
import re
import textwrap
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

NBVAL_TAGS: dict[str, str] = {
    "# NBVAL_IGNORE_OUTPUT": "nbval-ignore-output",
    "# NBVAL_SKIP": "nbval-skip",
}
"""A marker comment written at the top of a code cell's source, and the cell tag it becomes.

nbval reads both; the stored notebook carries the tag, so no test machinery
shows in the student's code.
"""

SLIDE = {"slideshow": {"slide_type": "slide"}}
"""The metadata of a markdown cell that starts with a heading: each step is one slide."""

SHOW_THE_ANSWER = "Show the answer"
"""The label of every ``<details>`` block that holds an answer (a browser test clicks it)."""

SHOW_THE_ANSWER_ZH = "显示答案"
"""The same label in the Chinese edition."""

SHOW_THE_EXPLANATION = "Show the explanation"
"""The label of an explanation right under an answer cell (``explanations_labelled``)."""

SHOW_THE_EXPLANATION_ZH = "显示讲解"
"""The same label in the Chinese edition."""

Lang = Literal["en", "zh"]
LANGUAGES: tuple[Lang, ...] = ("en", "zh")
"""The editions, in build order: English in ``notebooks/``, Chinese in ``notebooks/zh/``."""

ANSWER_LABELS: dict[Lang, str] = {"en": SHOW_THE_ANSWER, "zh": SHOW_THE_ANSWER_ZH}
EXPLANATION_LABELS: dict[Lang, str] = {"en": SHOW_THE_EXPLANATION, "zh": SHOW_THE_EXPLANATION_ZH}
PREDICT_FIRST: dict[Lang, str] = {"en": "**Predict first.**", "zh": "**先预测。**"}
"""How a "predict first" question starts, in each edition (the tests find them by it)."""

LANG_COMMENTS: dict[Lang, str] = {
    "en": 'the language of this edition; the Chinese one (notebooks/zh/) says "zh"',
    "zh": '本版本的语言；英文版（notebooks/）写作 "en"',
}
"""The comment on the ``LANG`` line the build adds to every notebook's first code cell."""


CHINESE_PREFIX = "zh-"
"""How a Chinese notebook's file name starts: JupyterLab names a tab by the file name alone."""


def edition_file_name(name: str, lang: Lang) -> str:
    """A notebook's file name in an edition: ``01-....ipynb``, or ``zh-01-....ipynb`` in Chinese."""
    return name if lang == "en" else CHINESE_PREFIX + name


def lang_line(lang: Lang) -> str:
    """The one code line the two editions of a notebook differ in."""
    return f'LANG = "{lang}"  # {LANG_COMMENTS[lang]}'


UNTRANSLATED_COMMENT = re.compile(r"NBVAL_\w+|noqa\b|(type|fmt|ruff|mypy|pyright):|[^A-Za-z]*$")
"""Comments that stay as they are in both editions: markers, pragmas, no Latin letter."""


class MissingTranslation(ValueError):
    """A Chinese edition needs a text its source does not have (each problem names its cell)."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class Cell:
    """One notebook cell: markdown prose or Python code, in both editions.

    ``tags`` are the cell's tags (nbval's markers, from ``NBVAL_TAGS``).
    ``source`` is the English text (a code cell's code); ``zh`` is a
    markdown cell's Chinese text (``None`` until it is written),
    ``zh_comments`` a code cell's comments in Chinese and ``zh_strings`` its
    shown string literals in Chinese, as (English, Chinese) pairs.
    """

    kind: Literal["markdown", "code"]
    source: str
    tags: tuple[str, ...] = ()
    zh: str | None = None
    zh_comments: tuple[tuple[str, str], ...] = ()
    zh_strings: tuple[tuple[str, str], ...] = ()

    @property
    def metadata(self) -> dict[str, Any]:
        """The cell metadata the stored notebook carries: its tags, or a heading's slide."""
        if self.tags:
            return {"tags": list(self.tags)}
        if self.kind == "markdown" and self.source.startswith("#"):
            return copy.deepcopy(SLIDE)
        return {}

    def problems(self, lang: Lang) -> list[str]:
        """What this cell lacks for an edition in ``lang`` (nothing for English)."""
        if lang == "en":
            return []
        if self.kind == "markdown":
            return [] if self.zh is not None else ["no Chinese text"]
        known = dict(self.zh_comments)
        comments = [text for _, _, text in _comments(self.source)]
        missing = [
            f"no Chinese for the comment {text!r}"
            for text in comments
            if not UNTRANSLATED_COMMENT.match(text) and text not in known
        ]
        stale = [
            f"zh_comments key {text!r} matches no comment" for text in known if text not in comments
        ]
        strings = [
            f"zh_strings key {text!r} matches no string literal"
            for text, _ in self.zh_strings
            if not any(f"{quote}{text}{quote}" in self.source for quote in "\"'")
        ]
        return missing + stale + strings

    def in_language(self, lang: Lang) -> Cell:
        """This cell as the edition in ``lang`` shows it (raises if a text is missing)."""
        if problems := self.problems(lang):
            raise MissingTranslation(problems)
        if lang == "en":
            text = self.source
        elif self.kind == "markdown":
            assert self.zh is not None
            text = joined_chinese_lines(self.zh)
        else:
            text = _translated_comments(self.source, dict(self.zh_comments))
            text = _translated_strings(text, dict(self.zh_strings))
        return Cell(self.kind, text, self.tags)

    def describe(self) -> str:
        """The cell's kind and the start of its English text, to name it in an error."""
        first = self.source.strip().splitlines()[0] if self.source.strip() else ""
        return f"{self.kind} {first[:60]!r}"


CHINESE_CHARACTER = "[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]"
_CHINESE_LINE_BREAK = re.compile(rf"(?<={CHINESE_CHARACTER})\n[ \t]*(?={CHINESE_CHARACTER})")


def joined_chinese_lines(text: str) -> str:
    """Chinese prose with its source line breaks removed where both sides are Chinese.

    Markdown turns a line break inside a paragraph into a space, which is right
    between English words but a stray gap between two Chinese characters; so a
    translator wraps the source like English and the notebook gets the
    paragraph whole. Fenced code blocks are left as they are.
    """
    parts = re.split(r"(^```.*?^```$)", text, flags=re.MULTILINE | re.DOTALL)
    return "".join(
        part if part.startswith("```") else _CHINESE_LINE_BREAK.sub("", part) for part in parts
    )


def _dedented(text: str | None) -> str | None:
    return None if text is None else textwrap.dedent(text).strip()


def _magic_free(source: str) -> str:
    """The code with IPython's ``%`` and ``!`` lines blanked, line numbers unchanged."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")
    )


def _comments(source: str) -> list[tuple[int, int, str]]:
    """Each ``#`` comment of the code: its line (from 0), its column and its text after ``#``."""
    tokens = tokenize.generate_tokens(io.StringIO(_magic_free(source) + "\n").readline)
    return [
        (token.start[0] - 1, token.start[1], token.string[1:].strip())
        for token in tokens
        if token.type == tokenize.COMMENT
    ]


def _translated_comments(source: str, chinese: Mapping[str, str]) -> str:
    """The code with each comment ``chinese`` knows written in Chinese; nothing else changes."""
    lines = source.split("\n")
    for row, column, text in _comments(source):
        if text in chinese:
            lines[row] = f"{lines[row][:column]}# {chinese[text]}"
    return "\n".join(lines)


def _translated_strings(source: str, chinese: Mapping[str, str]) -> str:
    """The code with each string literal ``chinese`` knows (quotes included) written in Chinese."""
    for text, translation in chinese.items():
        for quote in "\"'":
            if quote in translation:
                raise ValueError(f"the Chinese for {text!r} holds its own quote {quote}")
            source = source.replace(f"{quote}{text}{quote}", f"{quote}{translation}{quote}")
    return source


def _pairs(comments: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    return tuple((comments or {}).items())


def md(text: str, zh: str | None = None) -> Cell:
    """A markdown cell, English first, then its Chinese text; both may be indented like code."""
    return Cell("markdown", textwrap.dedent(text).strip(), zh=_dedented(zh))


def _marker_tags(source: str) -> tuple[str, tuple[str, ...]]:
    """Move the nbval marker comments at the top of ``source`` into cell tags."""
    lines = source.splitlines()
    tags: list[str] = []
    while lines and lines[0].strip() in NBVAL_TAGS:
        tags.append(NBVAL_TAGS[lines.pop(0).strip()])
    return "\n".join(lines), tuple(tags)


def code(
    text: str,
    zh_comments: Mapping[str, str] | None = None,
    zh_strings: Mapping[str, str] | None = None,
) -> Cell:
    """A code cell; ``zh_comments`` and ``zh_strings`` give its comments and shown strings in Chinese.

    A ``# NBVAL_...`` marker at the top becomes the cell's tag (``NBVAL_TAGS``).
    """
    source, tags = _marker_tags(textwrap.dedent(text).strip())
    return Cell(
        "code", source, tags, zh_comments=_pairs(zh_comments), zh_strings=_pairs(zh_strings)
    )


def _displayed_last_expression(source: str) -> str:
    """``source`` with a bare last expression wrapped in ``display(...)`` (a block shows none)."""
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr):
        return source
    call = last.value
    named = isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
    if named and call.func.id in ("display", "print"):  # type: ignore[union-attr]
        return source
    lines = source.splitlines()
    start, end = last.lineno - 1, (last.end_lineno or last.lineno) - 1
    expression = "\n".join(lines[start : end + 1])
    return "\n".join([*lines[:start], f"display({expression})", *lines[end + 1 :]])


ANSWER_BOX = "with answer_box(LANG):\n"
"""How an answer cell starts (``answer``)."""


def answer(
    text: str,
    zh_comments: Mapping[str, str] | None = None,
    zh_strings: Mapping[str, str] | None = None,
) -> Cell:
    """The code cell that answers a "predict first" question, its outputs in a closed block.

    The code runs inside ``with answer_box(LANG):``, which shows what it prints
    and displays in one "Show the answer" ``<details>`` block: unlike folded
    outputs, it stays closed after Run All and after a save.
    """
    body = _displayed_last_expression(textwrap.dedent(text).strip())
    source = ANSWER_BOX + textwrap.indent(body, "    ")
    return Cell("code", source, zh_comments=_pairs(zh_comments), zh_strings=_pairs(zh_strings))


def _details(label: str, text: str) -> str:
    return f"<details><summary>{label}</summary>\n\n{textwrap.dedent(text).strip()}\n\n</details>"


def reveal(text: str, zh: str | None = None) -> Cell:
    """A markdown explanation of an answer, closed until the student opens it.

    The blank lines around the text let JupyterLab render it as markdown
    inside the HTML block. ``zh`` is the Chinese explanation.
    """
    return Cell(
        "markdown",
        _details(SHOW_THE_ANSWER, text),
        zh=None if zh is None else _details(SHOW_THE_ANSWER_ZH, zh),
    )


def exercise_cells(
    exercise: str,
    prompt: str,
    starter: str,
    *,
    name: str = "",
    zh: str | None = None,
    zh_comments: Mapping[str, str] | None = None,
) -> list[Cell]:
    """An exercise in three cells: the prompt, the cell the student fills in, the instant check.

    ``starter`` is stored unanswered (``answer_q1 = ...``, or a function that
    returns ``...``), so the stored check says "not answered yet" on every
    run. ``name`` is what the check is given: by default ``answer_q1`` for
    exercise ``11.3-q1``; a function exercise passes the function's name. The
    code cells hold no prose, so a Chinese edition changes only the prompt
    (``zh``) and the starter's comments (``zh_comments``).
    """
    given = name or "answer_" + exercise.rsplit("-", 1)[-1]
    return [
        md(prompt, zh=zh),
        code(starter, zh_comments=zh_comments),
        code(check_line(exercise, given)),
    ]


def check_line(exercise: str, given: str) -> str:
    """The instant check's cell: the same code in both editions."""
    return f'check("{exercise}", {given}, lang=LANG)'


def fixture_cells() -> list[Cell]:
    """Build the chapter's ten entries and show them, one colour per interaction group.

    ``chapter_fixture(LANG)``: the Chinese edition shows the course's Chinese
    texts, with the same ids and the same costs, so every number is the same.
    """
    return [
        md(
            """
            ## The fixture

            The chapter's ten entries: one system message, then nine conversation
            messages. `tokens` is what the chapter's test estimator charges (not a
            real tokenizer). Notice the three colours, one per interaction, and that
            `sys` belongs to none of them.
            """,
            zh="""
            ## Fixture：本章的十条 entries

            本章的十条 entries：开头一条 system message，后面九条对话消息。`tokens`
            是本章测试估算器给每条消息的成本，不是真实的 tokenizer 结果。注意三种
            颜色，每种对应一个交互，而 `sys` 不属于其中任何一种。
            """,
        ),
        code(
            """
            path = chapter_fixture(LANG)
            estimate = fixture_estimator()
            styled_fixture_frame(path, estimate)
            """
        ),
    ]


def your_turn_cells(lab: str, what: str, what_zh: str | None = None) -> list[Cell]:
    """How to practise ``lab``: create the package, implement ``what``, run the checks on it.

    ``what_zh`` is ``what`` in Chinese (the Chinese edition's step 2).
    """
    test_file = f"tests/labs/test_lab_{lab.replace('.', '_')}.py"
    return [
        md(
            f"""
            ## Your turn

            1. Create your practice package once, in a terminal in the repository
               root (where JupyterLab's *File → New → Terminal* opens):
               `.venv/bin/course-lab practice 11` creates `practice/ch11`, a copy of the
               chapter's modules in which every lab's code is replaced by
               `raise LabNotImplemented(...)`.
            2. For this lab, implement {what}.
            3. Check it: `.venv/bin/course-lab check {lab} --impl practice/ch11`, which runs the
               same checks as
               `.venv/bin/pytest {test_file} --impl practice/ch11`.

            The next cell runs the same check from here when `practice/ch11` exists.
            Its output depends on your code, so it is not compared with the stored
            notebook; the cell after it always runs the reference checks.
            """,
            zh=None
            if what_zh is None
            else f"""
            ## 轮到你了

            1. 先创建一次练习包：在仓库根目录的终端里（JupyterLab 的
               *File → New → Terminal* 就在那里打开）运行
               `.venv/bin/course-lab practice 11 --lang zh`。它创建 `practice/ch11`：本章
               模块的一份副本，其中每个实验的代码都换成了 `raise LabNotImplemented(...)`，
               上方附有中文说明；之后这个文件夹的 `check` 和 `solution` 都用中文回答。
            2. 本实验要实现：{what_zh}。
            3. 检查：`.venv/bin/course-lab check {lab} --impl practice/ch11`，它运行的检查与
               `.venv/bin/pytest {test_file} --impl practice/ch11` 相同。

            `practice/ch11` 存在时，下一个单元格就在这里运行同样的检查。它的输出取决于
            你的代码，所以不与存储的 notebook 比较；再下一个单元格总是运行参考实现的检查。
            """,
        ),
        code(
            f"""
            # NBVAL_IGNORE_OUTPUT
            from course_lib.views import practice_hint, workbook_root

            practice = Path(workbook_root(), "practice", "ch11")
            if practice.is_dir():
                mine = run_lab_checks("{lab}", impl=practice)
                print(mine.summary_line(LANG))
                display(checks_frame(mine, LANG))
            else:
                print(practice_hint(LANG))
            """
        ),
    ]


def checks_cells(lab: str) -> list[Cell]:
    """The lab's own checks against the reference, as a table with the course's count line."""
    return [
        md(
            f"""
            ## The lab's checks

            The checks CI runs for Lab {lab}, run here against the reference
            `course_lib` (each in a fresh interpreter). Your practice package
            passes the lab when its table looks like this one.
            """,
            zh=f"""
            ## 本实验的检查

            CI 为实验 {lab} 运行的检查，这里针对参考实现 `course_lib` 运行（每项在一个
            新的解释器中）。你的练习包的表格和这一张一样时，就通过了本实验。
            """,
        ),
        code(
            f"""
            report = run_lab_checks("{lab}")
            print(report.summary_line(LANG))
            checks_frame(report, LANG)
            """
        ),
    ]


# --- the two editions --------------------------------------------------------


def _after_imports(source: str) -> int:
    """The line (from 0) after the imports a code cell starts with (0 when it has none)."""
    end = 0
    for node in ast.parse(_magic_free(source)).body:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            break
        end = node.end_lineno or node.lineno
    return end


def with_lang_line(source: str, lang: Lang) -> str:
    """A first code cell with ``LANG = ...`` after its imports (before its first statement)."""
    lines = source.split("\n")
    end = _after_imports(source)
    added = ["", lang_line(lang)] if end else [lang_line(lang)]
    return "\n".join([*lines[:end], *added, *lines[end:]])


def translation_problems(cells: Sequence[Cell], lang: Lang) -> list[str]:
    """Every text the edition in ``lang`` lacks, each naming its cell (number, kind, start)."""
    return [
        f"cell {number:02d} ({cell.describe()}): {problem}"
        for number, cell in enumerate(cells)
        for problem in cell.problems(lang)
    ]


def _relabelled(text: str | None, old: str, new: str) -> str | None:
    opening = f"<details><summary>{old}</summary>"
    if text is None or not text.startswith(opening):
        return text
    return f"<details><summary>{new}</summary>" + text.removeprefix(opening)


def explanations_labelled(cells: Sequence[Cell]) -> list[Cell]:
    """The cells with each explanation right under an answer cell labelled "Show the explanation".

    The answer cell's output is a closed "Show the answer" block already; a
    second "Show the answer" toggle right under it reads as the same one twice.
    An explanation anywhere else (an exercise's model answer) keeps "Show the answer".
    """
    labelled = list(cells)
    for number in range(1, len(labelled)):
        before, cell = labelled[number - 1], labelled[number]
        if (
            before.kind == "code"
            and before.source.startswith(ANSWER_BOX)
            and cell.kind == "markdown"
        ):
            labelled[number] = replace(
                cell,
                source=_relabelled(cell.source, SHOW_THE_ANSWER, SHOW_THE_EXPLANATION) or "",
                zh=_relabelled(cell.zh, SHOW_THE_ANSWER_ZH, SHOW_THE_EXPLANATION_ZH),
            )
    return labelled


def edition(cells: Sequence[Cell], lang: Lang) -> list[Cell]:
    """The cells of one edition: each in ``lang``, and ``LANG`` set in the first code cell.

    An explanation right under an answer cell says "Show the explanation"
    (``explanations_labelled``). Raises ``MissingTranslation`` listing every
    cell that lacks a text.
    """
    if problems := translation_problems(cells, lang):
        raise MissingTranslation(problems)
    shown = [cell.in_language(lang) for cell in explanations_labelled(cells)]
    first = next(number for number, cell in enumerate(shown) if cell.kind == "code")
    shown[first] = replace(shown[first], source=with_lang_line(shown[first].source, lang))
    return shown


# --- the lesson frame: objectives and minutes first, key points last ------------------------


@dataclass(frozen=True)
class Lesson:
    """What one notebook teaches and how long a student takes, in both editions.

    Why: a student should know before the first cell what they will be able to
    do and how long it takes, and leave with the few points to remember (the
    frame d2l and the Carpentries give every lesson).
    """

    minutes: int
    """A student's time for the required steps, at their own pace (optional steps excluded)."""
    objectives: tuple[str, ...]
    objectives_zh: tuple[str, ...]
    key_points: tuple[str, ...]
    key_points_zh: tuple[str, ...]


OPTIONAL: dict[Lang, str] = {"en": "*(optional)*", "zh": "*（选做）*"}
"""How a step a student may skip is marked, after its heading."""

LESSON_MARKS: dict[Lang, tuple[str, str]] = {
    "en": ("**Time:**", "## Key points"),
    "zh": ("**用时：**", "## 要点"),
}
"""How the start of the frame and its last cell begin, in each edition (the tests find them)."""


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def lesson_cell(lesson: Lesson) -> Cell:
    """The frame's first cell, right under the title: the student's minutes and the objectives."""
    return md(
        f"**Time:** about {lesson.minutes} minutes.\n\n"
        f"**Objectives.** After this notebook you can:\n\n{_bullets(lesson.objectives)}",
        zh=f"**用时：** 约 {lesson.minutes} 分钟。\n\n"
        f"**学习目标。** 学完本 notebook，你能够：\n\n{_bullets(lesson.objectives_zh)}",
    )


def key_points_cell(lesson: Lesson) -> Cell:
    """The frame's last cell: what to remember from the notebook."""
    return md(
        f"## Key points\n\n{_bullets(lesson.key_points)}",
        zh=f"## 要点\n\n{_bullets(lesson.key_points_zh)}",
    )


def frame_problems(cells: Sequence[Cell]) -> list[str]:
    """What the lesson frame lacks in one notebook: the time and objectives, the key points."""
    start, end = LESSON_MARKS["en"]
    markdown = [cell for cell in cells if cell.kind == "markdown"]
    problems = []
    if not any(cell.source.startswith(start) for cell in markdown[:3]):
        problems.append(f"no {start} and objectives among the first three markdown cells")
    if not (cells and cells[-1].kind == "markdown" and cells[-1].source.startswith(end)):
        problems.append(f"the last cell is not the {end!r} cell")
    return problems
