"""Layer 7: two explorers, for Lab 11.3 (the budget) and Lab 11.5 (compaction steps).

The logic is headless. Each explorer computes a plain dataclass with
``state()``; the widgets only display it, and ``plot_state`` draws it as a
matplotlib Figure (no pyplot, so nothing is shown or left open behind the
caller's back). Tests set a slider in Python and check what the explorer shows;
notebooks print the same state as a table that is compared on every run.
"""

from __future__ import annotations

import html
import io
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import ipywidgets as widgets
import pandas as pd
from matplotlib.figure import Figure
from pandas.io.formats.style_render import CSSDict

from ..base.i18n import N_, tr
from ..base.pricing import Estimator, Number
from ..chapter.budget import context_from_plan, plan_budget
from ..chapter.fixture import (
    FixtureLanguage,
    chapter_fixture,
    fixture_estimator,
)
from ..chapter.ledger import ledger_from_plan
from ..chapter.models import (
    SUMMARY_LABELS_EN,
    Budget,
    BuildContextResult,
    CompactionEntry,
    LedgerRow,
    SessionEntry,
    SummaryLabels,
)
from ..track.language import check_language
from .chart_font import chinese_font_family
from .frames import (
    group_budget_frame,
    group_colour,
    group_labels,
    messages_frame,
    path_arrow,
    summary_labels,
)
from .headers import header_in
from .story import (
    CompactionStep,
    compaction_steps,
)

__all__ = [
    "BarSegment",
    "BudgetExplorer",
    "BudgetState",
    "CompactionExplorer",
    "CompactionState",
    "WindowBar",
    "bar_frame",
    "budget_state",
    "compaction_state",
    "plot_state",
    "plot_window",
    "table_html",
    "window_bar",
]

SegmentKind = Literal["system", "summary", "group", "reserved", "margin", "unused", "dropped"]

KIND_COLOURS: dict[str, str] = {
    "system": "#9ca3af",
    "summary": "#c4b5fd",
    "reserved": "#fca5a5",
    "margin": "#fdba74",
    "unused": "#ffffff",
    "dropped": "#e5e7eb",
}
"""Bar colours; a kept group takes its colour from the fixture table (``group_colour``)."""


# --- the window as plain data ----------------------------------------------------


@dataclass(frozen=True)
class BarSegment:
    """One piece of the context window (or one group left out of it)."""

    label: str
    tokens: Number
    kind: SegmentKind
    colour: str


@dataclass(frozen=True)
class WindowBar:
    """Where ``max_tokens`` goes, left to right, and the groups that did not fit."""

    max_tokens: Number
    window: list[BarSegment]
    dropped: list[BarSegment]

    @property
    def used(self) -> Number:
        """Everything the window holds except ``unused`` (may exceed ``max_tokens``)."""
        return sum(segment.tokens for segment in self.window if segment.kind != "unused")


def _span(entry_ids: Sequence[str]) -> str:
    return entry_ids[0] if len(entry_ids) == 1 else f"{entry_ids[0]}…{entry_ids[-1]}"


def window_bar(
    path: Sequence[SessionEntry], result: BuildContextResult, ledger: Sequence[LedgerRow]
) -> WindowBar:
    """Split the projection into segments: system, summary, kept groups, reserved, margin, unused.

    Nothing is re-decided: kept and dropped groups are the ledger's, and the
    summary's cost is what ``tokens.messages`` holds beyond the kept groups.
    """
    tokens = result.tokens
    labels = group_labels(path)
    kept = [row for row in ledger if row.status != "trimmed"]
    summary_tokens = tokens.messages - sum(row.tokens for row in kept)
    has_summary = any(isinstance(entry, CompactionEntry) for entry in path)

    def segment(label: str, value: Number, kind: SegmentKind) -> BarSegment:
        return BarSegment(label, value, kind, KIND_COLOURS[kind])

    window = [segment("system", tokens.system, "system")]
    if has_summary:
        window.append(segment("summary", summary_tokens, "summary"))
    window += [
        BarSegment(
            _span(row.entry_ids), row.tokens, "group", group_colour(labels[row.entry_ids[0]])
        )
        for row in kept
    ]
    window += [
        segment("reserved", tokens.reserved_output, "reserved"),
        segment("margin", tokens.safety_margin, "margin"),
        segment("unused", max(0, tokens.max_tokens - tokens.total), "unused"),
    ]
    dropped = [
        segment(_span(row.entry_ids), row.tokens, "dropped")
        for row in ledger
        if row.status == "trimmed"
    ]
    return WindowBar(max_tokens=tokens.max_tokens, window=window, dropped=dropped)


def bar_frame(bar: WindowBar) -> pd.DataFrame:
    """The bar as a table (what the chart draws), for a compared notebook output."""
    rows = [("window", s.label, s.kind, s.tokens) for s in bar.window]
    rows += [("left out", s.label, s.kind, s.tokens) for s in bar.dropped]
    return pd.DataFrame(rows, columns=["bar", "segment", "kind", "tokens"])


CHART_WORDS: tuple[str, ...] = (
    N_("window"),
    N_("left out"),
    N_("tokens"),
    N_("system"),
    N_("summary"),
    N_("reserved"),
    N_("margin"),
    N_("unused"),
)
"""The chart's words, drawn in the edition's language (ids such as ``u1…a1`` stay as they are)."""


def chart_word(word: str, lang: str) -> str:
    """``word`` as the chart of the edition in ``lang`` draws it."""
    return tr(check_language(lang), word) if word in CHART_WORDS else word


_PLOT_LEFT, _PLOT_RIGHT = 0.1, 0.98
"""Where the axes sit in the figure, as fractions of its width."""


def _label_points(label: str, tokens: Number) -> float:
    """About how wide a segment's two-line label is, in points (7-pt text: 0.6 em a Latin
    character, 1 em a Chinese one)."""
    width = sum(1.0 if ord(char) >= 0x2E80 else 0.6 for char in label)
    return max(width, 0.6 * len(str(tokens))) * 7 + 4


def plot_window(bar: WindowBar, title: str = "", lang: str = "en") -> Figure:
    """A horizontal stacked bar of the window, with the left-out groups on a second bar.

    Returns a new Figure that is not registered with pyplot: the caller shows
    or saves it, and it is garbage-collected like any object. ``lang="zh"``
    draws the Chinese edition's words, with the font the package ships.
    """
    # Every text names its font: the picture must not depend on what a notebook set in
    # matplotlib's rcParams (the Chinese edition's setup_notebook puts its font first).
    families = [chinese_font_family(), "DejaVu Sans"] if lang == "zh" else ["DejaVu Sans"]
    font: dict[str, Any] = {"fontfamily": families}
    figure = Figure(figsize=(8, 2.2), dpi=100)
    axes = figure.add_subplot()
    axes.tick_params(labelfontfamily=families)
    widest = max(bar.max_tokens, bar.used, sum(s.tokens for s in bar.dropped), 1)
    # Points per token along the bar: a label is drawn only inside a segment wide enough
    # to hold it, so labels never run into each other at large budgets (the table beside
    # the chart gives every number).
    points_per_token = 72 * 8 * (_PLOT_RIGHT - _PLOT_LEFT) / (widest * 1.08)
    for y, segments, hatch in ((1, bar.window, ""), (0, bar.dropped, "//")):
        edge = "#9ca3af" if hatch else "#374151"
        label_box = {"facecolor": "white", "edgecolor": "none", "pad": 1} if hatch else None
        left: Number = 0
        for segment in segments:
            if segment.tokens <= 0:
                continue
            axes.barh(
                y,
                segment.tokens,
                left=left,
                color=segment.colour,
                edgecolor=edge,
                hatch=hatch,
                height=0.6,
            )
            label = chart_word(segment.label, lang)
            if segment.tokens * points_per_token >= _label_points(label, segment.tokens):
                axes.text(
                    left + segment.tokens / 2,
                    y,
                    f"{label}\n{segment.tokens}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    bbox=label_box,
                    **font,
                )
            left += segment.tokens
    axes.axvline(bar.max_tokens, color="#111827", linestyle="--", linewidth=1)
    axes.set_xlim(0, widest * 1.08)
    # Right of the line while there is room, left of it in the right half, so the
    # label is never cut at the figure's edge (it was at max_tokens = 40).
    right_half = bar.max_tokens > widest * 1.08 / 2
    axes.text(
        bar.max_tokens,
        1.45,
        f"max_tokens = {bar.max_tokens} " if right_half else f" max_tokens = {bar.max_tokens}",
        fontsize=8,
        va="center",
        ha="right" if right_half else "left",
        **font,
    )
    axes.set_ylim(-0.5, 1.7)
    axes.set_yticks([1, 0], [chart_word("window", lang), chart_word("left out", lang)], **font)
    axes.set_xlabel(chart_word("tokens", lang), **font)
    if title:
        axes.set_title(title, fontsize=9, **font)
    # Fixed margins instead of tight_layout: the same room on every redraw, and faster.
    figure.subplots_adjust(left=_PLOT_LEFT, right=_PLOT_RIGHT, bottom=0.22, top=0.86)
    return figure


def _png(figure: Figure) -> bytes:
    """PNG bytes without the version stamp, so the same state gives the same bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


# --- Lab 11.3: the budget explorer -----------------------------------------------------


@dataclass(frozen=True)
class BudgetState:
    """Everything the budget explorer shows for one setting of its three sliders."""

    max_tokens: int
    reserved_output: int
    safety_margin: int
    result: BuildContextResult
    ledger: list[LedgerRow]
    bar: WindowBar

    @property
    def kept_entry_ids(self) -> list[str]:
        return self.result.kept_entry_ids

    @property
    def reason(self) -> str:
        return self.result.reason


def budget_state(
    path: Sequence[SessionEntry],
    *,
    max_tokens: int,
    reserved_output: int,
    safety_margin: int,
    estimate_tokens: Estimator,
    labels: SummaryLabels = SUMMARY_LABELS_EN,
) -> BudgetState:
    """Project ``path`` with these numbers: the result, the ledger and the bar.

    ``labels`` are the summary's, so a Chinese edition's explorer shows the Chinese summary.
    """
    budget = Budget(max_tokens, reserved_output, safety_margin)
    plan = plan_budget(path, budget, estimate_tokens, labels)  # once: result and ledger read it
    result = context_from_plan(plan)
    ledger = ledger_from_plan(plan)
    return BudgetState(
        max_tokens=max_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        result=result,
        ledger=ledger,
        bar=window_bar(path, result, ledger),
    )


SLIDER_STYLE: dict[str, str] = {"description_width": "16ch"}
"""Room for the longest name (``reserved_output``) in any font, so no label is cut and the
three tracks still start at the same place (``"initial"`` would size each label on its own)."""

CHART_LAYOUT: dict[str, str] = {"width": "100%", "max_width": "800px", "height": "auto"}
"""The chart takes the output's width up to its own 800 px and its height follows, so the
PNG keeps its aspect ratio and fits a narrow window (a fixed width in a row stretched it)."""

TABLE_STYLES: list[CSSDict] = [
    {
        "selector": "",
        "props": "border-collapse: collapse; font-size: 12px; margin: 4px 0 8px 0;",
    },
    {
        "selector": "th",
        "props": "background-color: #f3f4f6; border-bottom: 1px solid #9ca3af;"
        " padding: 3px 10px; text-align: left; white-space: nowrap;",
    },
    {
        "selector": "td",
        "props": "border-bottom: 1px solid #e5e7eb; padding: 3px 10px; text-align: left;"
        " white-space: nowrap;",
    },
    {"selector": "td.number", "props": "text-align: right;"},
    # Text a student reads (a message) may wrap, but never word by word.
    {"selector": "td.prose", "props": "white-space: normal; min-width: 24em;"},
    {"selector": "td.status-kept", "props": "background-color: #dcfce7;"},
    {"selector": "td.status-overflow", "props": "background-color: #fef3c7;"},
    {"selector": "td.status-trimmed", "props": "color: #6b7280;"},
]
"""The explorers' tables: a header, thin rules, one line per cell; the status in colour."""

PROSE_COLUMNS = frozenset({"content"})


def _cell_class(column: str, value: Any) -> str:
    """The CSS class of one cell: its status, wrapping prose, or a right-aligned number."""
    if column == "status":
        return f"status-{value}"
    if column in PROSE_COLUMNS:
        return "prose"
    return "number" if isinstance(value, int | float) and not isinstance(value, bool) else ""


def table_html(frame: pd.DataFrame, uuid: str, lang: str = "en") -> str:
    """``frame`` as a styled HTML table that scrolls sideways rather than wrap a cell.

    Cells are styled by class, not by cell id, so two explorers of one kind in a
    notebook (the same ``uuid``) share the same rules without mixing their rows.
    Values and headers are HTML-escaped, as ``DataFrame.to_html`` does: a real
    session's messages can hold markup.
    """
    classes = pd.DataFrame(
        [
            [_cell_class(str(column), value) for column, value in row.items()]
            for _, row in frame.iterrows()
        ],
        index=frame.index,
        columns=frame.columns,
    )
    styler = (
        frame.style.set_uuid(uuid)
        .format(escape="html")
        .format_index(lambda label: html.escape(header_in(label, lang)), axis=1)
        .hide(axis="index")
        .set_table_styles(TABLE_STYLES)
        .set_td_classes(classes)
    )
    return f'<div style="overflow-x: auto; max-width: 100%;">{styler.to_html()}</div>'


def _slider(name: str, value: int, limit: int) -> widgets.IntSlider:
    slider = widgets.IntSlider(
        value=value,
        min=0,
        max=limit,
        description=name,
        continuous_update=False,
        style=dict(SLIDER_STYLE),
        layout=widgets.Layout(width="460px"),
    )
    slider.add_class(f"explorer-{name}")
    return slider


OUTCOME_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "none": "(none)",
        "total": "total",
        "restoring": "restoring from",
        "first": "first kept",
    },
    "zh": {"none": "（无）", "total": "总计", "restoring": "恢复自", "first": "first kept"},
}
"""The explorers' few words around the identifiers, in each edition."""


def _outcome_html(result: BuildContextResult, lang: str = "en") -> str:
    words = OUTCOME_WORDS.get(lang, OUTCOME_WORDS["en"])
    kept = ", ".join(result.kept_entry_ids) or words["none"]
    return (
        f"<b>reason</b>: <code>{html.escape(result.reason)}</code> &nbsp; "
        f"<b>kept_entry_ids</b>: <code>{html.escape(kept)}</code> &nbsp; "
        f"<b>{words['total']}</b>: {result.tokens.total} / max_tokens {result.tokens.max_tokens}"
    )


class _BudgetSliders(ABC):
    """The three budget sliders and the redraw they trigger; subclasses say what to draw."""

    widget: widgets.Widget  # the whole explorer, built by the subclass

    def __init__(self, max_tokens: int, reserved_output: int, safety_margin: int) -> None:
        self.max_tokens = _slider("max_tokens", max_tokens, 60)
        self.reserved_output = _slider("reserved_output", reserved_output, 20)
        self.safety_margin = _slider("safety_margin", safety_margin, 20)
        # The classes name each part for styling and for the browser test.
        self.outcome = widgets.HTML().add_class("explorer-outcome")
        self.table = widgets.HTML().add_class("explorer-table")
        self.chart = widgets.Image(format="png", layout=widgets.Layout(**CHART_LAYOUT))
        self.chart.add_class("explorer-chart")

    @property
    def sliders(self) -> list[widgets.IntSlider]:
        return [self.max_tokens, self.reserved_output, self.safety_margin]

    def _watch(self, *controls: widgets.ValueWidget) -> None:
        for control in controls:
            control.observe(self._on_change, names="value")

    def _on_change(self, change: dict[str, Any]) -> None:
        self.refresh()

    @abstractmethod
    def refresh(self) -> None:
        """Redraw everything from the current slider values."""

    def _budget_text(self) -> str:
        return (
            f"max_tokens={self.max_tokens.value}, reserved_output={self.reserved_output.value}, "
            f"safety_margin={self.safety_margin.value}"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        # The widget view as it is, but a plain text that names the settings instead
        # of every child's traits (which include the chart's PNG bytes).
        bundle: dict[str, Any] | None = self.widget._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/plain"] = repr(self)
        return bundle


class BudgetExplorer(_BudgetSliders):
    """Lab 11.3: move ``max_tokens``, ``reserved_output``, ``safety_margin``; watch the groups.

    Shows the group table (newest first, with the ledger's status), the kept
    ids and the reason, and the bar of where the window goes.
    """

    def __init__(
        self,
        path: Sequence[SessionEntry] | None = None,
        estimate_tokens: Estimator | None = None,
        *,
        max_tokens: int = 31,
        reserved_output: int = 4,
        safety_margin: int = 2,
        lang: FixtureLanguage = "en",
    ) -> None:
        super().__init__(max_tokens, reserved_output, safety_margin)
        self.lang = lang
        self.path = list(path) if path is not None else chapter_fixture(lang)
        self.estimate_tokens = estimate_tokens or fixture_estimator()
        # One column: the table above the chart, each as wide as it needs (side by side,
        # the row stretched the chart to the table's height and cut it at 1280 px).
        self.widget = widgets.VBox([*self.sliders, self.outcome, self.table, self.chart])
        self.widget.add_class("course-explorer").add_class("budget-explorer")
        self._watch(*self.sliders)
        self.refresh()

    def state(self) -> BudgetState:
        """What the explorer shows now, as plain data."""
        return budget_state(
            self.path,
            max_tokens=self.max_tokens.value,
            reserved_output=self.reserved_output.value,
            safety_margin=self.safety_margin.value,
            estimate_tokens=self.estimate_tokens,
            labels=summary_labels(self.lang),
        )

    def state_frame(self) -> pd.DataFrame:
        """The group table the explorer shows (newest first, cumulative cost, status)."""
        return group_budget_frame(
            self.path,
            max_tokens=self.max_tokens.value,
            reserved_output=self.reserved_output.value,
            safety_margin=self.safety_margin.value,
            estimate_tokens=self.estimate_tokens,
        )

    def figure(self) -> Figure:
        """The bar chart of the current state."""
        return plot_state(self.state(), self.lang)

    def refresh(self) -> None:
        """Recompute the state and redraw every part of the explorer."""
        state = self.state()
        self.outcome.value = _outcome_html(state.result, self.lang)
        self.table.value = table_html(self.state_frame(), "budget-explorer", self.lang)
        self.chart.value = _png(plot_state(state, self.lang))

    def __repr__(self) -> str:
        # The language only when it is not the default, so the repr rebuilds the same explorer.
        lang = f", lang={self.lang!r}" if self.lang != "en" else ""
        return f"BudgetExplorer({self._budget_text()}{lang})"


# --- Lab 11.5: the compaction explorer ---------------------------------------------------


@dataclass(frozen=True)
class CompactionState:
    """Everything the compaction explorer shows for one step and one budget."""

    step: str
    path: list[SessionEntry]
    newest_compaction: CompactionEntry | None
    result: BuildContextResult
    ledger: list[LedgerRow]
    bar: WindowBar

    @property
    def path_ids(self) -> list[str]:
        return [entry.id for entry in self.path]

    @property
    def kept_entry_ids(self) -> list[str]:
        return self.result.kept_entry_ids

    @property
    def reason(self) -> str:
        return self.result.reason


def compaction_state(
    step: CompactionStep,
    *,
    max_tokens: int,
    reserved_output: int,
    safety_margin: int,
    estimate_tokens: Estimator,
    labels: SummaryLabels = SUMMARY_LABELS_EN,
) -> CompactionState:
    """Project one step's path with these numbers (and the summary's ``labels``)."""
    budget = budget_state(
        step.path,
        max_tokens=max_tokens,
        reserved_output=reserved_output,
        safety_margin=safety_margin,
        estimate_tokens=estimate_tokens,
        labels=labels,
    )
    compactions = [entry for entry in step.path if isinstance(entry, CompactionEntry)]
    return CompactionState(
        step=step.label,
        path=step.path,
        newest_compaction=compactions[-1] if compactions else None,
        result=budget.result,
        ledger=budget.ledger,
        bar=budget.bar,
    )


def _state_title(state: BudgetState | CompactionState) -> str:
    tokens = state.result.tokens
    numbers = (
        f"max_tokens={tokens.max_tokens}, reserved_output={tokens.reserved_output}, "
        f"safety_margin={tokens.safety_margin}"
    )
    return f"{state.step}: {numbers}" if isinstance(state, CompactionState) else numbers


def plot_state(state: BudgetState | CompactionState, lang: str = "en") -> Figure:
    """The bar chart of an explorer's state, titled with its budget (and step)."""
    return plot_window(state.bar, title=_state_title(state), lang=lang)


class CompactionExplorer(_BudgetSliders):
    """Lab 11.5: step through no compaction → compact-1 → u4, a4 → compact-2 under a budget.

    Shows the active path, which messages are sent (replayed system, the
    newest summary, the kept suffix), the reason, and the bar of the window.
    ``lang`` is a notebook edition's language (``LANG``): ``"zh"`` steps
    through ``chapter_fixture("zh")`` and ``chapter_fixture_after_compaction("zh")``,
    the same ids and costs, so every number is the same.
    """

    def __init__(
        self,
        estimate_tokens: Estimator | None = None,
        *,
        step: str = "u4, a4",
        max_tokens: int = 31,
        reserved_output: int = 4,
        safety_margin: int = 2,
        lang: FixtureLanguage = "en",
    ) -> None:
        super().__init__(max_tokens, reserved_output, safety_margin)
        self.estimate_tokens = estimate_tokens or fixture_estimator()
        self.lang = lang
        self.steps = compaction_steps(self.estimate_tokens, lang)
        self.step = widgets.ToggleButtons(
            options=[s.label for s in self.steps], value=step, description="step"
        )
        self.step.add_class("explorer-step")
        self.path_line = widgets.HTML().add_class("explorer-path")
        self.widget = widgets.VBox(
            [self.step, *self.sliders, self.path_line, self.outcome, self.table, self.chart]
        )
        self.widget.add_class("course-explorer").add_class("compaction-explorer")
        self._watch(self.step, *self.sliders)
        self.refresh()

    def _current_step(self) -> CompactionStep:
        return next(s for s in self.steps if s.label == self.step.value)

    def _state_for(self, step: CompactionStep) -> CompactionState:
        return compaction_state(
            step,
            max_tokens=self.max_tokens.value,
            reserved_output=self.reserved_output.value,
            safety_margin=self.safety_margin.value,
            estimate_tokens=self.estimate_tokens,
            labels=summary_labels(self.lang),
        )

    def state(self) -> CompactionState:
        """What the explorer shows now, as plain data."""
        return self._state_for(self._current_step())

    def state_frame(self) -> pd.DataFrame:
        """The messages sent at the current step and budget (what the explorer's table shows)."""
        return messages_frame(self.state().result, self.estimate_tokens)

    def steps_frame(self) -> pd.DataFrame:
        """Every step under the current budget: newest compaction, kept ids, reason, tokens."""
        rows = []
        for step in self.steps:
            state = self._state_for(step)
            newest = state.newest_compaction
            rows.append(
                {
                    "step": step.label,
                    "leaf": state.path_ids[-1],
                    "newest compaction": newest.id if newest else "—",
                    "first kept": newest.first_kept_entry_id if newest else "—",
                    "kept_entry_ids": ", ".join(state.kept_entry_ids),
                    "reason": state.reason,
                    "tokens.messages": state.result.tokens.messages,
                    "tokens.total": state.result.tokens.total,
                }
            )
        return pd.DataFrame(rows)

    def figure(self) -> Figure:
        """The bar chart of the current state."""
        return plot_state(self.state(), self.lang)

    def refresh(self) -> None:
        """Recompute the state and redraw every part of the explorer."""
        state = self.state()
        newest = state.newest_compaction
        words = OUTCOME_WORDS.get(self.lang, OUTCOME_WORDS["en"])
        restored = (
            f" &nbsp; {words['restoring']} <b>{newest.id}</b>, "
            f"{words['first']} <b>{newest.first_kept_entry_id}</b>"
            if newest
            else ""
        )
        self.path_line.value = f"<code>{html.escape(path_arrow(state.path))}</code>{restored}"
        self.outcome.value = _outcome_html(state.result, self.lang)
        self.table.value = table_html(
            messages_frame(state.result, self.estimate_tokens), "compaction-explorer", self.lang
        )
        self.chart.value = _png(plot_state(state, self.lang))

    def __repr__(self) -> str:
        # The language only when it is not the default, so the repr rebuilds the same explorer.
        lang = f", lang={self.lang!r}" if self.lang != "en" else ""
        return f"CompactionExplorer(step={self.step.value!r}, {self._budget_text()}{lang})"
