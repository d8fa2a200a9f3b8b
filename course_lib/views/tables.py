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

import pandas as pd
from pandas.io.formats.style_render import CSSDict

__all__ = ["SHORT_VALUE", "TABLE_STYLES", "table_html"]

SHORT_VALUE = 24
"""A value this long or shorter (an id, a number, a status) is never wrapped."""

TABLE_STYLES: list[CSSDict] = [
    {"selector": "", "props": "border-collapse: collapse; max-width: 100%;"},
    {
        "selector": "th, td",
        "props": "text-align: left; vertical-align: top; padding: 2px 10px 2px 4px;",
    },
    {"selector": "th", "props": "white-space: nowrap;"},
    {"selector": "td", "props": "white-space: pre-wrap; overflow-wrap: anywhere;"},
    {"selector": "td.short", "props": "white-space: nowrap;"},
]
"""Left-aligned text, top-aligned rows; header cells on one line, long text wrapped."""


_LETTERS = str.maketrans("0123456789", "ghijklmnop")


def _numbered_rows(frame: pd.DataFrame) -> bool:
    """Whether the index is pandas' default 0, 1, 2, ... (it says nothing a reader needs)."""
    index = frame.index
    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


def _short_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """The class ``short`` on every cell whose text is at most ``SHORT_VALUE`` characters."""
    return frame.map(lambda value: "short" if len(str(value)) <= SHORT_VALUE else "")


def table_html(frame: pd.DataFrame) -> str:
    """The frame as an HTML table that reads like the explorers' tables, the same on every run.

    The Styler's id is derived from the frame's content (pandas would pick a
    random one), so a stored notebook compares equal on the next run; it is
    written in letters, so the two editions' tables differ in no number.
    """
    digest = hashlib.sha1(frame.to_csv().encode("utf-8")).hexdigest()[:12].translate(_LETTERS)
    styler = frame.style.set_uuid(f"table-{digest}").set_table_styles(TABLE_STYLES)
    if _numbered_rows(frame):
        styler = styler.hide(axis="index")
    return styler.set_td_classes(_short_cells(frame)).to_html()
