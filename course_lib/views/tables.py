"""How every table in the notebooks is drawn: left-aligned, no meaningless index, ids unwrapped.

pandas draws a DataFrame right-aligned with its 0..n row numbers, and lets
JupyterLab wrap short ids ("group 1") while long messages run off the side.
``table_html`` draws it the way the explorers' own tables read: text starts at
the left, short values stay on one line, long text wraps inside its column,
headers wrap between words only, and the row labels appear only when the index
means something. The frames themselves are unchanged: only their HTML in a
notebook is.

Every style is written on its cell (``style="..."``), never in a ``<style>``
block: a notebook a student has just cloned is untrusted, and JupyterLab's
sanitizer then drops ``<style>`` blocks (the fixture table would lose its group
colours) but keeps inline styles whose properties and values it allows. So
every property here is one it keeps: ``overflow-wrap: anywhere``, for one, is
not (only ``normal`` and ``break-word`` are).
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Hashable

import pandas as pd
from pandas.io.formats.style import Styler

from .headers import header_in

__all__ = [
    "CELL_STYLE",
    "HEADER_STYLE",
    "SHORT_VALUE",
    "TABLE_STYLE",
    "inline_styles",
    "meaningful_index",
    "styled",
    "styler_html",
    "table_html",
]

SHORT_VALUE = 10
"""A value this wide or narrower (an id, a number, a status) is never wrapped; a longer one
wraps between its words when the table needs the room."""

TABLE_STYLE = "border-collapse: collapse; max-width: 100%;"
CELL_STYLE = "text-align: left; vertical-align: top; padding: 2px 6px 2px 2px;"
"""Left-aligned text, top-aligned rows (JupyterLab's own rule right-aligns every cell)."""
HEADER_STYLE = f"{CELL_STYLE} white-space: normal; word-break: keep-all; overflow-wrap: normal;"
"""A header wraps between its words only, never inside one: ``keep-all`` keeps a Chinese
header's characters together too, and an identifier (``available_for_messages``) may break
after its ``_`` (a ``<wbr>`` there), so a wide table still fits a 1280 px window."""
SHORT_STYLE = "white-space: nowrap;"
LONG_STYLE = "white-space: pre-wrap; overflow-wrap: break-word;"
"""Long text keeps its line breaks and wraps inside its column."""

_LETTERS = str.maketrans("0123456789", "ghijklmnop")


def meaningful_index(frame: pd.DataFrame) -> bool:
    """Whether the row labels say something a reader needs.

    An unnamed index of integers is the rows' positions: pandas' 0, 1, 2, ...,
    or what is left of them after ``tail``, ``nlargest`` or a filter (5, 6, 7 ...
    or a group's number minus one). It is hidden; a named index, or one of
    words (``describe()``'s ``count``, ``mean`` ...), is shown.
    """
    index = frame.index
    if index.nlevels > 1 or any(name is not None for name in index.names):
        return True
    return not pd.api.types.is_integer_dtype(index.dtype)


def _width(text: str) -> int:
    """How many columns ``text`` takes on screen: a Chinese character takes two."""
    return sum(2 if ord(char) >= 0x2E80 else 1 for char in text)


def _short_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The class ``short`` on every cell whose text is at most ``SHORT_VALUE`` columns wide."""
    return frame.map(lambda value: "short" if _width(str(value)) <= SHORT_VALUE else "")


_BREAK_AFTER = re.compile(
    r"([/_,]|(?<=\w)-|(?<=[A-Za-z])\.(?=[A-Za-z])|(?<=[0-9a-f]{6})(?=[0-9a-f]{6}\b))(?=\S)"
)
_HEADER_BREAK_AFTER = re.compile(r"([/_.]|(?<=[\u4e00-\u9fff])的)(?=\w)")


def _breakable(value: object) -> str:
    """A cell's text, HTML-escaped, with a line-break chance after ``/``, ``_``, ``,`` and a
    ``-`` inside a word (a path, an identifier or a UUID then wraps at its parts instead of
    anywhere, or nowhere: a browser never breaks after the ``-`` of ``0000-4000``)."""
    return _BREAK_AFTER.sub(r"\1<wbr>", html.escape(str(value)))


def _header(label: object, lang: str) -> str:
    """A header in the edition's language, escaped, with a break chance inside an identifier
    (after ``_``, ``.`` or ``/``) and in Chinese after the particle 的, which never begins or
    ends a word: the words themselves are never broken (``HEADER_STYLE``)."""
    return _HEADER_BREAK_AFTER.sub(r"\1<wbr>", html.escape(header_in(label, lang)))


def _headers_in(styler: Styler, lang: str) -> Styler:
    """Column headers and row labels in the edition's language (the data itself is unchanged)."""

    def shown(label: object) -> str:
        return _header(label, lang)

    return styler.format_index(shown, axis="columns").format_index(shown, axis="index")


def _name_in(name: object, lang: str) -> str | None:
    return None if name is None else header_in(name, lang)


def styled(frame: pd.DataFrame, uuid: str) -> Styler:
    """``frame.style`` as every notebook table starts: a fixed id, no meaningless index,
    text escaped with break chances, short values marked to stay on one line.

    Add colours with ``Styler.apply``; ``styler_html`` draws the result.
    """
    styler = frame.style.set_uuid(uuid)
    if not meaningful_index(frame):
        styler = styler.hide(axis="index")
    texts: list[Hashable] = [
        column for column in frame.columns if not pd.api.types.is_numeric_dtype(frame[column])
    ]
    styler = styler.format(_breakable, subset=texts) if texts else styler
    return styler.set_td_classes(_short_cells(frame))


_STYLE_BLOCK = re.compile(r'<style type="text/css">\n(?P<rules>.*?)</style>\n', re.DOTALL)
_RULE = re.compile(r"(?P<selectors>[^{}]+)\{(?P<declarations>[^{}]*)\}")
_ID_SELECTOR = re.compile(r"#(?P<id>[\w-]+)")
_OPENING_TAG = re.compile(r"<(?P<tag>table|th|td)\b(?P<attributes>[^>]*)>")
_ATTRIBUTE = re.compile(r'\s(?P<name>id|class)="(?P<value>[^"]*)"')


def _cell_rules(rules: str) -> dict[str, list[str]]:
    """Element id -> its declarations, from a Styler's ``<style>`` block of id rules."""
    by_id: dict[str, list[str]] = {}
    for rule in _RULE.finditer(rules):
        declarations = [
            " ".join(part.split()) for part in rule["declarations"].split(";") if part.strip()
        ]
        for selector in rule["selectors"].split(","):
            found = _ID_SELECTOR.fullmatch(selector.strip())
            if found is None:
                raise ValueError(
                    f"only cell styles can be written on a cell, not {selector.strip()!r}: "
                    "use Styler.apply or Styler.map_index instead of set_table_styles"
                )
            by_id.setdefault(found["id"], []).extend(declarations)
    return by_id


def _base_style(tag: str, classes: list[str]) -> str:
    if tag == "table":
        return TABLE_STYLE
    if tag == "th":
        return HEADER_STYLE
    return f"{CELL_STYLE} {SHORT_STYLE if 'short' in classes else LONG_STYLE}"


def inline_styles(styled_html: str) -> str:
    """A Styler's HTML with every style written on its element instead of in ``<style>``.

    Each table, header and cell gets the workbook's look (``TABLE_STYLE``,
    ``HEADER_STYLE``, ``CELL_STYLE``), then what the Styler set on that cell
    (a group's colour), which wins. A table style (``set_table_styles``)
    cannot be written on a cell and is refused.
    """
    block = _STYLE_BLOCK.search(styled_html)
    rules = _cell_rules(block["rules"]) if block else {}
    table = _STYLE_BLOCK.sub("", styled_html, count=1)

    def with_style(tag: re.Match[str]) -> str:
        attributes = dict(
            (found["name"], found["value"]) for found in _ATTRIBUTE.finditer(tag["attributes"])
        )
        own = rules.get(attributes.get("id", ""), [])
        style = " ".join(
            [_base_style(tag["tag"], attributes.get("class", "").split()), *(f"{d};" for d in own)]
        )
        return f'<{tag["tag"]}{tag["attributes"].rstrip()} style="{html.escape(style)}">'

    return _OPENING_TAG.sub(with_style, table)


def table_html(frame: pd.DataFrame, lang: str = "en") -> str:
    """The frame as an HTML table that reads like the explorers' tables, the same on every run.

    The Styler's id is derived from the frame's content (pandas would pick a
    random one), so a stored notebook compares equal on the next run; it is
    written in letters, so the two editions' tables differ in no number.
    ``lang="zh"``: the Chinese edition's headers (``headers.header_in``).
    """
    digest = hashlib.sha1(frame.to_csv().encode("utf-8")).hexdigest()[:12].translate(_LETTERS)
    if lang != "en":  # the names above the row labels and column headers, too
        frame = frame.copy()
        frame.index.names = [_name_in(name, lang) for name in frame.index.names]
        frame.columns.names = [_name_in(name, lang) for name in frame.columns.names]
    return styler_html(styled(frame, f"table-{digest}"), lang)


def styler_html(styler: Styler, lang: str = "en") -> str:
    """A Styler as a notebook shows it (the coloured fixture tables): its own colours, the
    workbook's look, the edition's headers, every style inline."""
    return inline_styles(_headers_in(styler, lang).to_html())
