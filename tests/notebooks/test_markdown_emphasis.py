"""Bold in the notebooks' prose is drawn bold: no ``**`` that Markdown leaves as two asterisks.

CommonMark (which JupyterLab's Markdown follows) opens bold only at a
left-flanking ``**`` and closes it only at a right-flanking one, and counts
Chinese punctuation as punctuation. So ``**compaction（压缩）**追加`` shows its
asterisks: the closing ``**`` comes after ``）`` and before ``追``, which makes
it left-flanking only. ``**compaction**（压缩）追加`` is drawn bold. Every
markdown cell of every notebook source, in both editions, is checked.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from notebook_builder import load_builder

TOOLS = Path(__file__).resolve().parents[2] / "notebook_tools"


builder = load_builder()
EDITIONS = [(name, lang) for name in builder.NOTEBOOKS for lang in builder.editions(name)]
"""Every notebook as (file name, language): both editions of each source."""

CODE = re.compile(r"^```.*?^```|(`+).+?\1", re.DOTALL | re.MULTILINE)
"""Code blocks and code spans: an asterisk there is code, not emphasis."""

STRONG = re.compile(r"(?<!\*)\*\*(?!\*)")


def _punctuation(char: str) -> bool:
    """CommonMark's Unicode punctuation: the P and S categories (``（``, ``。``, ``：`` ...)."""
    return unicodedata.category(char)[0] in "PS"


def _space(char: str) -> bool:
    """Whitespace, or the start or end of the text."""
    return char == "" or char.isspace()


def unrendered_bold(text: str) -> list[str]:
    """Each ``**`` that neither opens nor closes bold, with the text around it.

    The delimiter rules of CommonMark for ``**`` runs: a left-flanking run may
    open, a right-flanking one may close the nearest open one.
    """
    text = CODE.sub(lambda code: "x" * len(code.group(0)), text)
    opened: list[int] = []
    stray: list[int] = []
    for run in STRONG.finditer(text):
        before = text[run.start() - 1] if run.start() else ""
        after = text[run.end()] if run.end() < len(text) else ""
        left = not _space(after) and (
            not _punctuation(after) or _space(before) or _punctuation(before)
        )
        right = not _space(before) and (
            not _punctuation(before) or _space(after) or _punctuation(after)
        )
        if right and opened:
            opened.pop()
        elif left:
            opened.append(run.start())
        else:
            stray.append(run.start())
    return [text[max(0, at - 20) : at + 22] for at in sorted(stray + opened)]


@pytest.mark.parametrize(
    ("text", "stray"),
    [
        ("* **compaction（压缩）**追加一份摘要", 2),
        ("这是**（压缩）**", 2),
        ("* **compaction**（压缩）追加一份摘要", 0),
        ("消息被分成**交互**（interaction），整体保留", 0),
        ("**实验 11.5（下）**（下一个 notebook）", 0),
        ("**先预测。** 下一个单元格", 0),
        ("**Predict first.** What does it print?", 0),
        ("`a**（b）**c` is code", 0),
    ],
)
def test_the_check_follows_commonmarks_flanking_rules(text: str, stray: int) -> None:
    assert len(unrendered_bold(text)) == stray


@pytest.mark.parametrize(
    ("name", "lang"), EDITIONS, ids=[f"{lang}/{name}" for name, lang in EDITIONS]
)
def test_every_bold_marker_in_the_prose_is_drawn(name: str, lang: str) -> None:
    problems = [
        f"cell {number:02d}: {text!r}"
        for number, cell in enumerate(builder.edition_cells(name, lang))
        if cell.kind == "markdown"
        for text in unrendered_bold(cell.source)
    ]
    assert problems == [], f"{builder.source_file(name)}: ** that Markdown leaves as asterisks"
