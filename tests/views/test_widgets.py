"""The explorers (``course_lib.views``) show what ``build_context`` decides, headless.

Each test sets widget values from Python, as a student would with the mouse,
and checks what the explorer renders: kept ids, reason, table rows and the
sizes of the bar's segments (read back from the matplotlib Figure).
"""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser

import matplotlib
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

import course_lib.views.widgets as widgets_module
from course_lib import build_context, chapter_fixture, fixture_estimator, text_of
from course_lib.views import (
    BudgetExplorer,
    CompactionExplorer,
    bar_frame,
    budget_state,
    plot_state,
    plot_window,
)
from course_lib.views.widgets import table_html

# The explorers never use pyplot; the Agg backend makes sure no test could open a window.
matplotlib.use("Agg")

GROUP_3 = ["u3", "calls", "r-test", "r-read", "a3"]


def segments(bar) -> list[tuple[str, int]]:
    return [(segment.label, segment.tokens) for segment in bar.window]


class _Cells(HTMLParser):
    """Collects the text of each table row's cells, skipping the <style> rules."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.classes: list[list[str]] = []
        self._cell: list[str] | None = None
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "style":
            self._in_style = True
        elif tag == "tr":
            self.rows.append([])
            self.classes.append([])
        elif tag in ("th", "td"):
            self._cell = []
            self.classes[-1].append(dict(attrs).get("class") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False
        elif tag in ("th", "td") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None and not self._in_style:
            self._cell.append(data)


def table_cells(html_text: str) -> _Cells:
    """The rows of the (single) table in ``html_text``, header first."""
    parser = _Cells()
    parser.feed(html_text)
    return parser


def drawn_widths(figure: Figure) -> list[float]:
    """The widths of the bars actually drawn, left to right, window first."""
    return [float(patch.get_width()) for patch in figure.axes[0].patches]


def test_budget_explorer_starts_at_the_chapters_31_4_2() -> None:
    explorer = BudgetExplorer()
    state = explorer.state()

    assert state.kept_entry_ids == ["u2", "a2", *GROUP_3]
    assert state.reason == "trimmed"
    assert segments(state.bar) == [
        ("system", 3),
        ("u2…a2", 7),
        ("u3…a3", 15),
        ("reserved", 4),
        ("margin", 2),
        ("unused", 0),
    ]
    assert [(s.label, s.tokens) for s in state.bar.dropped] == [("u1…a1", 7)]
    assert "trimmed" in explorer.outcome.value
    assert "u2, a2, u3, calls, r-test, r-read, a3" in explorer.outcome.value
    assert table_cells(explorer.table.value).rows == [
        ["group", "entry ids", "tokens", "cumulative (newest first)", "status"],
        ["3", "u3, calls, r-test, r-read, a3", "15", "15", "kept"],
        ["2", "u2, a2", "7", "22", "kept"],
        ["1", "u1, a1", "7", "29", "trimmed"],
    ]
    assert bytes(explorer.chart.value).startswith(b"\x89PNG")
    assert list(explorer.state_frame()["status"]) == ["kept", "kept", "trimmed"]


def test_moving_max_tokens_to_19_keeps_the_newest_group_whole() -> None:
    explorer = BudgetExplorer()
    explorer.max_tokens.value = 19

    state = explorer.state()
    assert state.result.tokens.available_for_messages == 10
    assert state.kept_entry_ids == GROUP_3
    assert state.reason == "single_group_overflow"
    assert "single_group_overflow" in explorer.outcome.value
    assert segments(state.bar)[-1] == ("unused", 0)
    assert state.bar.used == 24 > state.bar.max_tokens
    assert list(explorer.state_frame()["status"]) == ["overflow", "trimmed", "trimmed"]
    # Drawn: system 3, group 3 15, reserved 4, margin 2 (unused 0 is not drawn); then 7 + 7 left out.
    assert drawn_widths(explorer.figure()) == [3, 15, 4, 2, 7, 7]


def test_reserved_output_and_margin_sliders_change_the_allowance() -> None:
    explorer = BudgetExplorer(max_tokens=40)
    assert explorer.state().reason == "within_budget"
    assert [row[-1] for row in table_cells(explorer.table.value).rows[1:]].count("trimmed") == 0

    explorer.reserved_output.value = 10
    state = explorer.state()
    assert state.result.tokens.available_for_messages == 40 - 3 - 10 - 2 == 25
    assert state.kept_entry_ids == ["u2", "a2", *GROUP_3]
    assert [row[-1] for row in table_cells(explorer.table.value).rows[1:]].count("trimmed") == 1

    explorer.safety_margin.value = 0
    assert explorer.state().result.tokens.available_for_messages == 27
    assert "max_tokens=40, reserved_output=10, safety_margin=0" in repr(explorer)


def test_the_bar_accounts_for_every_token_of_the_window() -> None:
    # The explorer's state is a pure function, so a sweep needs no widget (and no drawing).
    for max_tokens in range(0, 61, 3):
        state = budget_state(
            chapter_fixture(),
            max_tokens=max_tokens,
            reserved_output=4,
            safety_margin=2,
            estimate_tokens=fixture_estimator(),
        )
        window = sum(tokens for _, tokens in segments(state.bar))
        assert window == max(max_tokens, state.result.tokens.total)
        kept = sum(s.tokens for s in state.bar.window if s.kind == "group")
        dropped = sum(s.tokens for s in state.bar.dropped)
        assert kept + dropped == 29


def test_budget_explorer_matches_build_context_on_its_path() -> None:
    path = chapter_fixture()[:3]  # sys, u1, a1: a single group with no tools
    explorer = BudgetExplorer(path, fixture_estimator(), max_tokens=8)
    expected = build_context(
        path, max_tokens=8, reserved_output=4, safety_margin=2, estimate_tokens=fixture_estimator()
    )
    assert explorer.state().result == expected
    assert explorer.state().reason == "single_group_overflow"


def test_plain_text_names_the_settings_not_the_widget_internals() -> None:
    explorer = BudgetExplorer()
    bundle = explorer._repr_mimebundle_()
    assert bundle is not None
    assert bundle["text/plain"] == (
        "BudgetExplorer(max_tokens=31, reserved_output=4, safety_margin=2)"
    )
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_compaction_explorer_restores_from_the_newest_summary() -> None:
    explorer = CompactionExplorer()
    state = explorer.state()

    assert state.step == "u4, a4" and state.newest_compaction.id == "compact-1"
    assert state.kept_entry_ids == ["u4", "a4"]
    assert state.reason == "trimmed"
    assert state.result.tokens.messages == 12
    assert segments(state.bar)[:3] == [("system", 3), ("summary", 5), ("u4…a4", 7)]
    assert [s.label for s in state.bar.dropped] == ["u2…a2", "u3…a3"]
    assert list(explorer.state_frame()["source"]) == [
        "replayed system message",
        "compaction summary",
        "kept entry",
        "kept entry",
    ]
    assert "restoring from <b>compact-1</b>, first kept <b>u2</b>" in explorer.path_line.value


def test_compaction_explorer_steps_through_the_story() -> None:
    explorer = CompactionExplorer()

    explorer.step.value = "no compaction"
    assert explorer.state().newest_compaction is None
    assert explorer.state().kept_entry_ids == ["u2", "a2", *GROUP_3]
    assert "summary" not in [s.label for s in explorer.state().bar.window]

    explorer.step.value = "compact-1"
    assert explorer.state().kept_entry_ids == GROUP_3  # 17 left after the summary: 15 fits

    explorer.step.value = "compact-2"
    state = explorer.state()
    assert state.newest_compaction.id == "compact-2"
    summaries = [m for m in state.result.messages if text_of(m).startswith("[Session compaction")]
    assert len(summaries) == 1 and "JSONL write boundary" in text_of(summaries[0])
    assert state.path_ids[-1] == "compact-2"
    assert "compact-2" in explorer.path_line.value

    explorer.max_tokens.value = 40
    assert explorer.state().kept_entry_ids == [*GROUP_3, "u4", "a4"]
    assert explorer.state().reason == "within_budget"


def test_compaction_steps_frame_shows_every_step_under_the_current_budget() -> None:
    explorer = CompactionExplorer()
    frame = explorer.steps_frame()
    assert list(frame["step"]) == ["no compaction", "compact-1", "u4, a4", "compact-2"]
    assert list(frame["newest compaction"]) == ["—", "compact-1", "compact-1", "compact-2"]
    assert list(frame["first kept"]) == ["—", "u2", "u2", "u3"]
    assert list(frame["tokens.messages"]) == [22, 20, 12, 12]
    explorer.max_tokens.value = 14
    assert explorer.steps_frame()["reason"].iloc[3] == "single_group_overflow"


def test_plot_window_draws_the_left_out_groups_beside_the_window() -> None:
    state = CompactionExplorer().state()
    figure = plot_window(state.bar, title="u4, a4")
    assert drawn_widths(figure) == [3, 5, 7, 4, 2, 10, 7, 15]
    assert figure.axes[0].get_title() == "u4, a4"
    assert list(bar_frame(state.bar)["bar"]).count("left out") == 2


def test_plot_state_titles_the_chart_with_the_budget_and_step() -> None:
    budget = BudgetExplorer().state()
    assert plot_state(budget).axes[0].get_title() == (
        "max_tokens=31, reserved_output=4, safety_margin=2"
    )
    explorer = CompactionExplorer()
    explorer.step.value = "compact-2"
    figure = plot_state(explorer.state())
    assert figure.axes[0].get_title().startswith("compact-2: max_tokens=31")
    assert drawn_widths(figure) == drawn_widths(explorer.figure())


# --- what the browser showed wrong (issue 12): the chart, the tables, the labels ----------


def png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size


@pytest.mark.parametrize("explorer", [BudgetExplorer, CompactionExplorer])
def test_the_chart_keeps_its_aspect_ratio_and_shrinks_to_the_output(explorer: type) -> None:
    chart = explorer().chart
    # Only a width (at most the PNG's own) is imposed; the height follows the picture.
    assert (chart.layout.width, chart.layout.max_width, chart.layout.height) == (
        "100%",
        "800px",
        "auto",
    )
    assert chart.width == chart.height == ""  # no <img> size attributes to distort it
    assert png_size(bytes(chart.value)) == (800, 220)


def test_the_budget_explorer_stacks_table_and_chart_in_one_column() -> None:
    # In a row, the chart was stretched to the table's height (640x308 for 800x220).
    explorer = BudgetExplorer()
    assert list(explorer.widget.children) == [
        *explorer.sliders,
        explorer.outcome,
        explorer.table,
        explorer.chart,
    ]
    assert "course-explorer" in explorer.widget._dom_classes


@pytest.mark.parametrize("explorer", [BudgetExplorer, CompactionExplorer])
def test_every_slider_label_has_room_for_the_longest_name(explorer: type) -> None:
    for slider in explorer().sliders:
        width = slider.style.description_width
        assert width.endswith("ch") and float(width[:-2]) >= len("reserved_output") + 1
        assert f"explorer-{slider.description}" in slider._dom_classes


def test_the_tables_are_styled_one_line_per_cell_with_the_status_in_colour() -> None:
    explorer = BudgetExplorer(max_tokens=19)
    table = explorer.table.value
    assert "white-space: nowrap" in table and "border-collapse: collapse" in table
    assert table.startswith('<div style="overflow-x: auto;')
    classes = table_cells(table).classes
    assert [row[-1].split()[-1] for row in classes[1:]] == [
        "status-overflow",
        "status-trimmed",
        "status-trimmed",
    ]
    assert classes[1][2].split()[-1] == "number"  # tokens, right-aligned


def test_the_compaction_table_lets_only_the_message_text_wrap() -> None:
    explorer = CompactionExplorer()
    explorer.step.value = "compact-2"
    parsed = table_cells(explorer.table.value)
    assert parsed.rows[0] == ["entry id", "role", "source", "content", "tokens"]
    assert parsed.rows[2][3].startswith("[Session compaction summary]")
    prose = [
        [name for name, cls in zip(parsed.rows[0], row, strict=True) if "prose" in cls]
        for row in parsed.classes[1:]
    ]
    assert prose == [["content"]] * 4


def test_two_explorers_of_one_kind_share_rules_but_not_rows() -> None:
    # Cell styles are classes, not rules keyed by a cell id both tables would carry.
    first, second = BudgetExplorer(max_tokens=40), BudgetExplorer(max_tokens=19)
    assert "_row0_col4 {" not in first.table.value + second.table.value
    status = [table_cells(e.table.value).classes[1][-1].split()[-1] for e in (first, second)]
    assert status == ["status-kept", "status-overflow"]


def test_the_max_tokens_label_stays_inside_the_chart_for_every_setting() -> None:
    # At max_tokens = 40 the label ran past the right edge and was cut off.
    for max_tokens in range(0, 61):
        state = budget_state(
            chapter_fixture(),
            max_tokens=max_tokens,
            reserved_output=4,
            safety_margin=2,
            estimate_tokens=fixture_estimator(),
        )
        figure = plot_state(state)
        FigureCanvasAgg(figure)
        figure.draw_without_rendering()
        (label,) = [t for t in figure.axes[0].texts if "max_tokens =" in t.get_text()]
        box = label.get_window_extent()
        assert box.x0 >= 0 and box.x1 <= figure.bbox.width, (max_tokens, box)
        assert label.get_text().strip() == f"max_tokens = {max_tokens}"


def test_the_table_escapes_markup_from_a_session() -> None:
    # A real session's message can hold markup; the table shows it as text.
    frame = pd.DataFrame([{"content": "<script>alert(1)</script> & <b>", "tokens": 3}])
    html_text = table_html(frame, "escape")
    assert "<script>" not in html_text and "&lt;script&gt;" in html_text
    assert table_cells(html_text).rows[1] == ["<script>alert(1)</script> & <b>", "3"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compaction_explorer_repr_rebuilds_the_same_explorer(lang: str) -> None:
    """The browser test rebuilds each explorer from its stored repr; the language is part of it."""
    explorer = CompactionExplorer(step="compact-2", max_tokens=40, lang=lang)
    rebuilt = eval(repr(explorer), {"CompactionExplorer": CompactionExplorer})
    assert repr(rebuilt) == repr(explorer)
    assert rebuilt.state().path == explorer.state().path
    assert ("lang=" in repr(explorer)) == (lang != "en")


def _label_boxes(figure: Figure) -> list[tuple[str, object]]:
    renderer = FigureCanvasAgg(figure).get_renderer()
    axes = figure.axes[0]
    return [
        (text.get_text(), text.get_window_extent(renderer))
        for text in axes.texts
        if "\n" in text.get_text()  # the segments' two-line labels
    ]


@pytest.mark.parametrize("max_tokens", [31, 80, 200, 400])
def test_segment_labels_never_overlap_whatever_the_budget(max_tokens: int) -> None:
    explorer = BudgetExplorer()
    explorer.max_tokens.max = max(explorer.max_tokens.max, max_tokens)
    explorer.max_tokens.value = max_tokens
    boxes = _label_boxes(plot_state(explorer.state()))
    assert boxes, "no segment is labelled"
    for index, (label, box) in enumerate(boxes):
        for other_label, other in boxes[index + 1 :]:
            assert not box.overlaps(other), (max_tokens, label, other_label)


def _chart_texts(explorer: BudgetExplorer | CompactionExplorer) -> list[str]:
    """The chart's words: segment labels, bar names, axis label (read without drawing)."""
    axes = explorer.figure().axes[0]
    labels = [label.get_text() for label in axes.get_yticklabels()]
    return [*(text.get_text() for text in axes.texts), *labels, axes.get_xlabel()]


@pytest.mark.filterwarnings("error:Glyph .* missing from font")
def test_the_chinese_explorer_draws_chinese_words_with_the_packaged_font() -> None:
    explorer = BudgetExplorer(lang="zh")
    texts = _chart_texts(explorer)
    assert {"窗口", "未保留", "token"} <= set(texts)
    assert "预留\n4" in texts and "u2…a2\n7" in texts  # ids stay as they are
    explorer.figure().savefig(io.BytesIO(), format="png")  # every glyph is in the font
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", BudgetExplorer(lang="zh").table.value)
    assert "状态" in headers and "status" not in headers
    nothing = build_context([], max_tokens=10, estimate_tokens=fixture_estimator())
    assert "（无）" in widgets_module._outcome_html(nothing, "zh")
    assert "(none)" in widgets_module._outcome_html(nothing)


def test_the_english_explorer_draws_english_words() -> None:
    texts = _chart_texts(BudgetExplorer())
    assert {"window", "left out", "tokens"} <= set(texts)
    assert all(text.replace("…", "").isascii() for text in texts)


def test_the_explorers_repr_names_a_non_default_language() -> None:
    assert repr(BudgetExplorer(lang="zh")).endswith(", lang='zh')")
    assert "lang" not in repr(BudgetExplorer())
