"""One Chinese term for each of the chapter's terms, and the check that both editions keep them.

The Chinese edition reads like the chapter (``chapter11-context-compaction.zh.txt``):
where the chapter names a thing (保留起点, 测试估算器, 消息额度 …), the notebooks use
that name and no other. Where the chapter has no Chinese word (the ledger is the
workbook's own), the workbook's choice is written here once.

The check reads prose only: inline code (```first_kept_entry_id```), code blocks and
HTML tags are left out, so identifiers never count as a term.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .cells import Cell, Lang, edition


@dataclass(frozen=True)
class Term:
    """A term as the English edition writes it, the Chinese edition's word, and what it is not."""

    en: str
    zh: str
    avoid: tuple[str, ...] = ()
    """Other Chinese names the Chinese edition once used for the same thing."""
    source: str = "chapter"
    """``"chapter"`` when the chapter itself uses ``zh``; ``"workbook"`` for the workbook's choice."""


TERMS: tuple[Term, ...] = (
    Term("active path", "活动路径"),
    Term(
        "first kept entry",
        "保留起点",
        avoid=("保留部分的起点", "第一条保留 entry", "第一条保留的 entry", "first kept entry"),
    ),
    Term("test estimator", "测试估算器", avoid=("教学用估算器",)),
    Term("safety margin", "安全余量"),
    Term("fixed costs", "固定成本"),
    Term("kept suffix", "保留后缀"),
    Term("budget options", "预算选项"),
    Term("transfer exercise", "迁移练习"),
    Term("beyond the fixture", "超越 fixture", avoid=("超出 fixture",), source="workbook"),
    Term("ledger", "账本", avoid=("发送的 entries",), source="workbook"),
)
"""The glossary, in the order the chapter introduces the terms."""


_CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`]*`")
_TAG = re.compile(r"<[^>]+>")


def prose(text: str) -> str:
    """``text`` without code blocks, inline code and HTML tags: the words a student reads."""
    return _TAG.sub(" ", _INLINE_CODE.sub(" ", _CODE_BLOCK.sub(" ", text)))


def _edition_prose(cells: Sequence[Cell], lang: Lang) -> str:
    return "\n".join(prose(cell.source) for cell in edition(cells, lang) if cell.kind == "markdown")


def glossary_problems(cells: Sequence[Cell]) -> list[str]:
    """What breaks the glossary in one notebook's two editions, one line each (empty when none).

    A term the English edition uses must be named the chapter's way in the Chinese
    edition, and no name the glossary avoids may appear there.
    """
    english = _edition_prose(cells, "en").lower()
    chinese = _edition_prose(cells, "zh")
    problems = []
    for term in TERMS:
        if term.en in english and term.zh not in chinese:
            problems.append(f"the English edition says {term.en!r}; the Chinese never {term.zh!r}")
        problems += [
            f"the Chinese edition says {name!r}; the glossary's word is {term.zh!r}"
            for name in term.avoid
            if name in chinese
        ]
    return problems
