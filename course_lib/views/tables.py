"""How every table in the notebooks is drawn: left-aligned, no meaningless index, ids unwrapped.

pandas draws a DataFrame right-aligned with its 0..n row numbers, and lets
JupyterLab wrap short ids ("group 1") while long messages run off the side.
``table_html`` draws it the way the explorers' own tables read: text starts at
the left, short values stay on one line, long text wraps inside its column,
and the row numbers appear only when the index means something. The frames
themselves are unchanged: only their HTML in a notebook is.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Hashable

import pandas as pd
from pandas.io.formats.style import Styler
from pandas.io.formats.style_render import CSSDict

from .headers_zh import header_in

__all__ = ["SHORT_VALUE", "TABLE_STYLES", "styler_html", "table_html"]

SHORT_VALUE = 24
"""A value this long or shorter (an id, a number, a status) is never wrapped."""

TABLE_STYLES: list[CSSDict] = [
    {"selector": "", "props": "border-collapse: collapse; max-width: 100%;"},
    {
        "selector": "th, td",
        "props": "text-align: left; vertical-align: top; padding: 2px 10px 2px 4px;",
    },
    {"selector": "th", "props": "white-space: normal; overflow-wrap: anywhere;"},
    {"selector": "td", "props": "white-space: pre-wrap; overflow-wrap: break-word;"},
    {"selector": "td.short", "props": "white-space: nowrap;"},
]
"""Left-aligned text, top-aligned rows; headers and long text wrap when the table needs the room
(a header such as ``available_for_messages`` may break, so a wide table still fits 1280 px)."""


_LETTERS = str.maketrans("0123456789", "ghijklmnop")


def _numbered_rows(frame: pd.DataFrame) -> bool:
    """Whether the index is pandas' default 0, 1, 2, ... (it says nothing a reader needs)."""
    index = frame.index
    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


def _width(text: str) -> int:
    """How many columns ``text`` takes on screen: a Chinese character takes two."""
    return sum(2 if ord(char) >= 0x2E80 else 1 for char in text)


def _short_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The class ``short`` on every cell whose text is at most ``SHORT_VALUE`` columns wide."""
    return frame.map(lambda value: "short" if _width(str(value)) <= SHORT_VALUE else "")


_BREAK_AFTER = re.compile(r"([/_,])(?=\S)")


def _breakable(value: object) -> str:
    """A cell's text, HTML-escaped, with a line-break chance after ``/``, ``_`` and ``,``
    (a path or an identifier then wraps at its parts instead of anywhere)."""
    return _BREAK_AFTER.sub(r"\1<wbr>", html.escape(str(value)))


def _headers_in(styler: Styler, lang: str) -> Styler:
    """Column headers and row labels in the edition's language (the data itself is unchanged)."""
    if lang == "en":
        return styler

    def translate(label: object) -> str:
        return header_in(label, lang)

    return styler.format_index(translate, axis="columns").format_index(translate, axis="index")


def _name_in(name: object, lang: str) -> str | None:
    return None if name is None else header_in(name, lang)


def table_html(frame: pd.DataFrame, lang: str = "en") -> str:
    """The frame as an HTML table that reads like the explorers' tables, the same on every run.

    The Styler's id is derived from the frame's content (pandas would pick a
    random one), so a stored notebook compares equal on the next run; it is
    written in letters, so the two editions' tables differ in no number.
    ``lang="zh"``: the Chinese edition's headers (``HEADERS_ZH``).
    """
    digest = hashlib.sha1(frame.to_csv().encode("utf-8")).hexdigest()[:12].translate(_LETTERS)
    if lang != "en":  # the names above the row labels and column headers, too
        frame = frame.copy()
        frame.index.names = [_name_in(name, lang) for name in frame.index.names]
        frame.columns.names = [_name_in(name, lang) for name in frame.columns.names]
    styler = frame.style.set_uuid(f"table-{digest}").set_table_styles(TABLE_STYLES)
    if _numbered_rows(frame):
        styler = styler.hide(axis="index")
    texts: list[Hashable] = [
        column for column in frame.columns if not pd.api.types.is_numeric_dtype(frame[column])
    ]
    styler = styler.format(_breakable, subset=texts) if texts else styler
    return _headers_in(styler.set_td_classes(_short_cells(frame)), lang).to_html()


def styler_html(styler: Styler, lang: str = "en") -> str:
    """A Styler the views made (coloured fixture tables): its own look, the edition's headers."""
    return _headers_in(styler, lang).to_html()
