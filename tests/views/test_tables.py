"""Every notebook table: left-aligned, no meaningless index, short values unwrapped, headers
whole, every style inline (so an untrusted notebook keeps it), the same each run."""

from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from course_lib import chapter_fixture, fixture_estimator
from course_lib.views import GROUP_COLOURS, setup_notebook, styled_fixture_frame
from course_lib.views.tables import (
    CELL_STYLE,
    HEADER_STYLE,
    SHORT_VALUE,
    inline_styles,
    styler_html,
    table_html,
)


def _frame() -> pd.DataFrame:
    long = "session entry compact-1: summary.files: unknown field; " * 3
    return pd.DataFrame({"group": ["group 1", "group 2"], "detail": ["kept", long]})


def _row_labels(html: str) -> list[str]:
    return re.findall(r'<th [^>]*class="row_heading[^"]*"[^>]*>([^<]*)</th>', html)


def test_the_default_row_numbers_are_hidden_and_a_meaningful_index_is_kept() -> None:
    assert "row0" in table_html(_frame()) and _row_labels(table_html(_frame())) == []
    named = _frame().set_index("group")
    assert _row_labels(table_html(named)) == ["group 1", "group 2"]
    described = pd.DataFrame({"tokens": [1, 2, 3]}).describe()
    assert _row_labels(table_html(described))[:2] == ["count", "mean"]


@pytest.mark.parametrize(
    "rows",
    [
        lambda frame: frame.tail(2),  # 1, 2, 3 ...: what is left of 0..n
        lambda frame: frame.nlargest(2, "tokens"),  # a group's number minus one
        lambda frame: frame[frame["tokens"] > 5],  # a filter
    ],
    ids=["tail", "nlargest", "filter"],
)
def test_row_positions_left_by_a_slice_or_a_sort_are_hidden_too(
    rows: Callable[[pd.DataFrame], pd.DataFrame],
) -> None:
    frame = pd.DataFrame({"group": [1, 2, 3], "tokens": [5, 9, 7]})
    shown = rows(frame)
    assert list(shown.index) != list(range(len(shown)))
    assert _row_labels(table_html(shown)) == []


def test_text_is_left_aligned_and_only_long_values_wrap() -> None:
    html = table_html(_frame())
    assert "text-align: left" in html and "text-align: right" not in html
    short = re.findall(r'class="data row(\d) col(\d) short" style="([^"]*)"', html)
    assert len(_frame()["detail"][1]) > SHORT_VALUE
    # ids never broken; the message wraps
    assert [(row, col) for row, col, _ in short] == [("0", "0"), ("0", "1"), ("1", "0")]
    assert all(style == f"{CELL_STYLE} white-space: nowrap;" for *_, style in short)
    assert re.search(r'class="data row1 col1" style="[^"]*white-space: pre-wrap;', html)


def test_every_style_is_on_its_element_never_in_a_style_block() -> None:
    """A fresh clone's notebooks are untrusted: JupyterLab's sanitizer drops ``<style>``."""
    for html in (
        table_html(_frame()),
        table_html(_frame(), "zh"),
        styler_html(styled_fixture_frame(chapter_fixture(), fixture_estimator())),
    ):
        assert "<style" not in html and "#T_" not in html
        opening = re.findall(r"<(table|th|td)\b([^>]*)>", html)
        assert opening and all('style="' in attributes for _, attributes in opening)


SANITIZER_KEEPS: dict[str, str] = {
    "background-color": r"#[0-9a-f]{6}",
    "border-collapse": "collapse|separate",
    "max-width": r"\d+(px|%)|none|auto",
    "overflow-wrap": "normal|break-word",
    "padding": r"(\d+px\s*){1,4}",
    "text-align": "left|right|center|justify",
    "vertical-align": "baseline|sub|super|top|text-top|middle|bottom|text-bottom",
    "white-space": "normal|pre|nowrap|pre-wrap|pre-line",
    "word-break": "normal|keep-all|break-all",
}
"""What JupyterLab's sanitizer keeps of an inline style in an untrusted output, for each
property the tables use (``@jupyterlab/apputils``' sanitizer: its ``allowedStyles``).
``overflow-wrap: anywhere`` is not kept, for one."""


def test_every_inline_property_is_one_the_sanitizer_keeps() -> None:
    html = table_html(_frame()) + styler_html(
        styled_fixture_frame(chapter_fixture(), fixture_estimator())
    )
    declarations = {
        declaration.strip()
        for style in re.findall(r'style="([^"]*)"', html)
        for declaration in style.split(";")
        if declaration.strip()
    }
    refused = [
        declaration
        for declaration in declarations
        if not re.fullmatch(
            SANITIZER_KEEPS.get(declaration.split(":")[0].strip(), "(?!)"),
            declaration.split(":", 1)[1].strip(),
        )
    ]
    assert refused == []


def test_the_fixture_table_carries_its_group_colours_on_its_cells() -> None:
    html = styler_html(styled_fixture_frame(chapter_fixture(), fixture_estimator()))
    for colour in GROUP_COLOURS[:3]:
        assert re.search(f'<td [^>]*style="[^"]*background-color: {colour};"', html)


def test_headers_break_between_words_and_inside_identifiers_only() -> None:
    frame = pd.DataFrame({"available_for_messages": [1], "tokens.messages": [2]})
    html = table_html(frame)
    assert "available_<wbr>for_<wbr>messages" in html and "tokens.<wbr>messages" in html
    headers = re.findall(r'<th [^>]*style="([^"]*)"', html)
    assert headers and set(headers) == {HEADER_STYLE}
    assert "word-break: keep-all" in HEADER_STYLE and "overflow-wrap: normal" in HEADER_STYLE


def test_a_table_style_cannot_be_written_on_a_cell() -> None:
    styler = _frame().style.set_table_styles([{"selector": "th", "props": "color: red;"}])
    with pytest.raises(ValueError, match="only cell styles"):
        inline_styles(styler.to_html())


def test_the_same_frame_gives_the_same_html_and_another_frame_another_id() -> None:
    assert table_html(_frame()) == table_html(_frame())
    other = _frame().assign(detail=["kept", "trimmed"])
    ids = {re.search(r'id="(T_table-[a-p]+)"', table_html(f))[1] for f in (_frame(), other)}
    assert len(ids) == 2


def test_setup_notebook_draws_every_dataframe_with_table_html() -> None:
    shell = InteractiveShell.instance()
    setup_notebook()
    data, _ = shell.display_formatter.format(_frame())
    assert data["text/html"] == table_html(_frame())
    assert "group 1" in data["text/plain"]  # the plain-text form is pandas' own


def test_the_chinese_edition_shows_chinese_headers_and_keeps_identifiers() -> None:
    frame = pd.DataFrame(
        {"status": ["kept"], "max_tokens": [31]}, index=pd.Index(["sys"], name="kind")
    )
    html = table_html(frame, "zh")
    headers = [re.sub("<[^>]+>", "", text) for text in re.findall(r"<th[^>]*>(.*?)</th>", html)]
    assert "状态" in headers and "类别" in headers and "max_tokens" in headers
    assert "status" not in headers and "kind" not in headers
    assert ">kept</td>" in html  # the data is unchanged
    assert table_html(frame) != html and "status" in table_html(frame)
