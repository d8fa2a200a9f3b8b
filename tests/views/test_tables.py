"""Every notebook table: left-aligned, no 0..n index, short values unwrapped, the same each run."""

from __future__ import annotations

import re

import pandas as pd
from IPython.core.interactiveshell import InteractiveShell

from course_lib.views import setup_notebook
from course_lib.views.tables import SHORT_VALUE, table_html


def _frame() -> pd.DataFrame:
    long = "session entry compact-1: summary.files: unknown field; " * 3
    return pd.DataFrame({"group": ["group 1", "group 2"], "detail": ["kept", long]})


def test_the_default_row_numbers_are_hidden_and_a_meaningful_index_is_kept() -> None:
    assert "row0" in table_html(_frame()) and ">0</th>" not in table_html(_frame())
    named = _frame().set_index("group")
    assert ">group 1</th>" in table_html(named)


def test_text_is_left_aligned_and_only_long_values_wrap() -> None:
    html = table_html(_frame())
    assert "text-align: left" in html and "text-align: right" not in html
    assert re.search(r"td.short \{\s*white-space: nowrap;", html)
    short = re.findall(r'class="data row(\d) col(\d) short"', html)
    assert len(_frame()["detail"][1]) > SHORT_VALUE
    assert short == [("0", "0"), ("0", "1"), ("1", "0")]  # ids never broken; the message wraps


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
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", html)
    assert "状态" in headers and "类别" in headers and "max_tokens" in headers
    assert "status" not in headers and "kind" not in headers
    assert ">kept</td>" in html  # the data is unchanged
    assert table_html(frame) != html and "status" in table_html(frame)
