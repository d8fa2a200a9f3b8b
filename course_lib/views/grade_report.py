"""What grading a class produces: a gradebook (CSV and JSON), feedback per student, HTML reports.

Everything here is computed from the sorted grades alone, with no times or
dates, so grading the same roster twice writes the same files. Besides the
instructor's report (``report.html``, with names), the class summary is
written for a projector without any name (``report-projector.html``), and the
scores for a learning management system (``canvas.csv``, ``gradescope.csv``;
``track.lms``). Each student's feedback is in the language their practice
folder recorded.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.text_rules import escape_controls_by_line, spreadsheet_safe
from ..track.catalogue import LAB_TOPICS
from ..track.class_stats import (
    Distribution,
    FailureGroup,
    distribution,
    failure_groups,
    failure_rule,
    not_attempted,
)
from ..track.feedback_texts import STATUS_MEANING_ZH, feedback_line
from ..track.grading import STATUS_MEANING, Grade, Limits, borrowed_labs
from ..track.hints_zh import hint_in_language
from ..track.lms import (
    DEFAULT_ASSIGNMENT,
    StudentRecord,
    Weights,
    canvas_csv,
    gradescope_csv,
    points,
    possible_points,
    student_ids,
)
from ..track.similarity import (
    MIN_TOKENS,
    SIMILARITY_THRESHOLD,
    SimilarPair,
    reference_work,
    similar_pairs,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "GRADEBOOK_SCHEMA",
    "CheckSummary",
    "ReportOptions",
    "class_summary",
    "feedback_text",
    "gradebook_json",
    "gradebook_rows",
    "pairs_of",
    "plot_svg",
    "projector_html",
    "report_html",
    "similar_pairs_of",
    "summary_figure",
    "write_gradebook",
]

GRADEBOOK_SCHEMA = "course-lab-gradebook/2"
"""The ``schema`` field of ``gradebook.json``; bumped on any incompatible change."""


@dataclass(frozen=True)
class ReportOptions:
    """What the instructor added to a grading run: ids, points, the similarity threshold."""

    students: dict[str, StudentRecord] | None = None
    """``--students``: folder -> record; without it a student's id is their folder's name."""
    weights: Weights = field(default_factory=Weights)
    """``--weights``: points per check (1 each unless listed) and per lab's hidden cases."""
    similarity: float = SIMILARITY_THRESHOLD
    """``--similarity``: pairs at or above it are listed."""
    min_tokens: int = MIN_TOKENS
    """A lab smaller than this (normalised tokens) is never flagged or paired."""
    assignment: str = DEFAULT_ASSIGNMENT
    """The assignment's column in ``canvas.csv``."""
    hidden_seed: int | None = None
    """``--hidden-seed``, recorded in ``gradebook.json`` so a run can be repeated."""
    sandbox: str = ""
    """What the run's confinement guaranteed (``sandbox.guarantee``), shown atop ``report.html``."""
    hidden_feedback: bool = False
    """``--hidden-feedback``: a student's feedback shows a failing hidden case's input and the
    expected value; off by default, so a reused seed does not hand out its answers."""


@dataclass(frozen=True)
class CheckSummary:
    """One check across the class: how many passed, failed or could not run, and the usual rule.

    ``not_attempted`` counts the failures that only say a lab is unwritten
    (``LabNotImplemented``); the most common rule is taken from the others.
    """

    lab: str
    name: str
    passed: int
    failed: int
    not_attempted: int
    not_run: int
    most_common_rule: str
    most_common_count: int


def class_summary(grades: Sequence[Grade], labs: Sequence[str]) -> list[CheckSummary]:
    """Per check, in lab order: the counts and the most common rule broken (ties by text)."""
    order: list[tuple[str, str]] = []
    for grade in grades:
        order += [(c.lab, c.name) for c in grade.checks if (c.lab, c.name) not in order]
    order.sort(key=lambda key: labs.index(key[0]) if key[0] in labs else len(labs))
    summaries: list[CheckSummary] = []
    for lab, name in order:
        results = [c for grade in grades for c in grade.checks if (c.lab, c.name) == (lab, name)]
        failed = [c for c in results if c.outcome == "failed"]
        rules = Counter(failure_rule(c.message) for c in failed if not not_attempted(c.message))
        top = min(rules.items(), key=lambda item: (-item[1], item[0]), default=("", 0))
        summaries.append(
            CheckSummary(
                lab=lab,
                name=name,
                passed=sum(c.outcome == "passed" for c in results),
                failed=len(failed),
                not_attempted=sum(not_attempted(c.message) for c in failed),
                not_run=sum(c.outcome == "not run" for c in results),
                most_common_rule=top[0],
                most_common_count=top[1],
            )
        )
    return summaries


def _score(grade: Grade, lab: str) -> str:
    passed, total = grade.score(lab)
    return f"{passed}/{total}"


def _hidden_score(grade: Grade, lab: str | None = None) -> str:
    """``passed/total`` of the hidden cases (of one lab), or ``""`` when none were run."""
    cases = [case for case in grade.hidden if lab is None or case.lab == lab]
    if not cases:
        return ""
    return f"{sum(case.outcome == 'passed' for case in cases)}/{len(cases)}"


def pairs_of(pairs: Sequence[SimilarPair], student: str) -> list[str]:
    """``11.3: ben (0.93)`` for each pair ``student`` is in, most similar first."""
    return [
        f"{pair.lab}: {pair.second if pair.first == student else pair.first} "
        f"({pair.similarity:.2f})"
        for pair in pairs
        if student in (pair.first, pair.second)
    ]


def similar_pairs_of(
    grades: Sequence[Grade], labs: Sequence[str], options: ReportOptions
) -> list[SimilarPair]:
    """The pairs of students with similar work (``similarity``), most similar first."""
    works = {grade.student: grade.facts.work for grade in grades}
    return similar_pairs(
        works,
        reference_work(labs),
        labs,
        threshold=options.similarity,
        min_tokens=options.min_tokens,
    )


def _number(value: float) -> str:
    return f"{value:g}"


CSV_HEADER_END = [
    "total",
    "points",
    "hidden",
    "status",
    "identical_to_reference",
    "similar_to",
    "note",
]
"""The gradebook's columns after ``student``, ``student_id`` and one per lab."""


def gradebook_rows(
    grades: Sequence[Grade], labs: Sequence[str], options: ReportOptions | None = None
) -> list[dict[str, str]]:
    """The CSV's rows: student, id, ``passed/total`` per lab, total, points, hidden cases,
    status, flag, the students with similar work, and the note."""
    options = options or ReportOptions()
    ids = student_ids(grades, options.students)
    pairs = similar_pairs_of(grades, labs, options)
    return [
        {
            "student": grade.student,
            "student_id": ids[grade.student],
            **{lab: _score(grade, lab) for lab in labs},
            "total": f"{grade.passed}/{grade.total}",
            "points": _number(points(grade, options.weights, labs)),
            "hidden": _hidden_score(grade),
            "status": grade.status,
            "identical_to_reference": " ".join(grade.identical_labs),
            "similar_to": "; ".join(pairs_of(pairs, grade.student)),
            "note": grade.note,
        }
        for grade in grades
    ]


def _csv_text(grades: Sequence[Grade], labs: Sequence[str], options: ReportOptions) -> str:
    buffer = io.StringIO()
    header = ["student", "student_id", *labs, *CSV_HEADER_END]
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(
        {key: spreadsheet_safe(value) for key, value in row.items()}
        for row in gradebook_rows(grades, labs, options)
    )
    return buffer.getvalue()


def _limits_json(limits: Limits) -> dict[str, Any]:
    return asdict(limits)


def _scores(grades: Sequence[Grade], labs: Sequence[str], options: ReportOptions) -> Distribution:
    possible = possible_points(grades, options.weights, labs)
    return distribution([points(g, options.weights, labs) for g in grades], possible)


def _hidden_json(grade: Grade, labs: Sequence[str]) -> dict[str, Any] | None:
    if not grade.hidden:
        return None
    labs_json = {}
    for lab in labs:
        cases = [case for case in grade.hidden if case.lab == lab]
        if cases:
            passed = sum(case.outcome == "passed" for case in cases)
            labs_json[lab] = {"passed": passed, "total": len(cases)}
    return {
        "passed": sum(case.outcome == "passed" for case in grade.hidden),
        "total": len(grade.hidden),
        "labs": labs_json,
        "cases": [asdict(case) for case in grade.hidden],
    }


def gradebook_json(
    grades: Sequence[Grade],
    labs: Sequence[str],
    limits: Limits,
    options: ReportOptions | None = None,
) -> dict[str, Any]:
    """The whole gradebook as one object: every student's checks and the class summary."""
    options = options or ReportOptions()
    statuses = Counter(grade.status for grade in grades)
    ids = student_ids(grades, options.students)
    pairs = similar_pairs_of(grades, labs, options)
    scores = _scores(grades, labs, options)
    return {
        "schema": GRADEBOOK_SCHEMA,
        "labs": [{"lab": lab, "topic": LAB_TOPICS[lab]} for lab in labs],
        "limits": _limits_json(limits),
        "hidden_seed": options.hidden_seed,
        "students": [
            {
                "student": grade.student,
                "student_id": ids[grade.student],
                "lang": grade.facts.lang,
                "status": grade.status,
                "note": grade.note,
                "identical_to_reference": list(grade.identical_labs),
                "labs": {
                    lab: dict(zip(("passed", "total"), grade.score(lab), strict=True))
                    for lab in labs
                },
                "passed": grade.passed,
                "total": grade.total,
                "points": points(grade, options.weights, labs),
                "checks": [
                    {"lab": c.lab, "name": c.name, "outcome": c.outcome, "message": c.message}
                    for c in grade.checks
                ],
                "hidden": _hidden_json(grade, labs),
            }
            for grade in grades
        ],
        "summary": {
            "submissions": len(grades),
            "statuses": {status: statuses.get(status, 0) for status in STATUS_MEANING},
            "flagged": [grade.student for grade in grades if grade.identical_labs],
            "checks": [asdict(summary) for summary in class_summary(grades, labs)],
            "failures": [asdict(group) for group in failure_groups(grades, labs)],
            "scores": {**asdict(scores), "counts": list(scores.counts)},
            "similar_pairs": [asdict(pair) for pair in pairs],
        },
    }


def feedback_text(grade: Grade, labs: Sequence[str], options: ReportOptions | None = None) -> str:
    """What to hand back to one student, in their folder's language: the score per lab, why
    each failing check failed, and how the hidden cases went."""
    options = options or ReportOptions()
    lang = grade.facts.lang
    passed, total = grade.passed, grade.total
    lines = [feedback_line("title", lang, student=grade.student, passed=passed, total=total), ""]
    if not options.weights.plain:
        earned = _number(points(grade, options.weights, labs))
        possible = _number(possible_points([grade], options.weights, labs))
        lines += [feedback_line("points", lang, earned=earned, possible=possible), ""]
    if grade.status != "ok":
        meaning = STATUS_MEANING_ZH[grade.status] if lang == "zh" else STATUS_MEANING[grade.status]
        lines += [feedback_line("status", lang, status=grade.status, meaning=meaning)]
        lines += [f"  {grade.note}", ""] if grade.note else [""]
    for lab in labs:
        lab_passed, lab_total = grade.score(lab)
        topic = LAB_TOPICS[lab]
        lines.append(
            feedback_line("lab", lang, lab=lab, topic=topic, passed=lab_passed, total=lab_total)
        )
        for check in grade.checks:
            if check.lab == lab and check.outcome == "failed":
                lines.append(f"  FAIL  {check.name} -- {hint_in_language(check.message, lang)}")
        if any(check.lab == lab and check.outcome == "not run" for check in grade.checks):
            lines.append(feedback_line("not_run", lang))
    if grade.hidden:
        lines += ["", feedback_line("hidden_title", lang)]
        for lab in labs:
            cases = [case for case in grade.hidden if case.lab == lab]
            if not cases:
                continue
            agree = sum(case.outcome == "passed" for case in cases)
            lines.append(feedback_line("hidden_lab", lang, lab=lab, passed=agree, total=len(cases)))
            for case in [c for c in cases if c.outcome != "passed"][:2]:  # the first two suffice
                shown = f" -- {case.message}" if options.hidden_feedback else ""
                lines.append(f"  {case.outcome.upper()}  {case.name}{shown}")
    lines += ["", feedback_line("run_yourself", lang)]
    return escape_controls_by_line("\n".join(lines)) + "\n"


def _feedback_names(grades: Sequence[Grade]) -> dict[str, str]:
    """A safe, unique file name per student (``feedback/<name>.txt``).

    Letters and digits of any script stay; spaces, slashes, backslashes (the
    escapes of bytes that were not UTF-8) and other marks become ``_``.
    """
    names: dict[str, str] = {}
    taken: set[str] = set()
    for grade in grades:
        base = re.sub(r"[^\w.-]+", "_", grade.student).strip("._") or "student"
        name, number = base, 2
        while name.casefold() in taken:
            name, number = f"{base}-{number}", number + 1
        taken.add(name.casefold())
        names[grade.student] = f"{name}.txt"
    return names


# --- the HTML report -----------------------------------------------------------------------


def summary_figure(summary: Sequence[CheckSummary]) -> Figure:
    """One horizontal bar per check: how many students passed, failed or could not run it."""
    from matplotlib.figure import Figure

    labels = [f"{row.lab}  {row.name.removeprefix('test_')[:58]}" for row in summary]
    figure = Figure(figsize=(9, 0.9 + 0.3 * max(1, len(summary))), dpi=100)
    axes = figure.subplots()
    positions = list(range(len(summary)))[::-1]
    left = [0] * len(summary)
    for key, colour, label in (
        ("passed", "#86efac", "passed"),
        ("failed", "#fca5a5", "failed"),
        ("not_run", "#d1d5db", "not run"),
    ):
        counts = [getattr(row, key) for row in summary]
        axes.barh(positions, counts, left=left, color=colour, label=label, height=0.7)
        left = [a + b for a, b in zip(left, counts, strict=True)]
    axes.set_yticks(positions, labels, fontsize=8)
    axes.set_xlabel("students")
    axes.legend(loc="lower right", fontsize=8, frameon=False, ncols=3, bbox_to_anchor=(1, 1))
    figure.tight_layout()
    return figure


def plot_svg(summary: Sequence[CheckSummary]) -> str:
    """``summary_figure`` as inline SVG text, the same bytes for the same summary.

    The SVG's ids are seeded and its date is left out; text stays text.
    """
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "course-lab-grade", "svg.fonttype": "none"}):
        summary_figure(summary).savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; max-width: 72rem; color: #111827; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.9rem; }
th, td { border: 1px solid #d1d5db; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #166534; } .timeout, .error, .crashed, .invalid { color: #991b1b; font-weight: 600; }
.flag { background: #fef3c7; }
code, .msg { font-family: ui-monospace, monospace; font-size: 0.85rem; }
section.student { border-top: 1px solid #e5e7eb; padding-top: 0.5rem; }
.bar { background: #60a5fa; height: 0.8rem; }
"""


def _shown(text: str) -> str:
    """``text`` for an HTML page: escaped, and every control or bidi character shown, not obeyed."""
    return html.escape(escape_controls_by_line(text))


def _cell(text: object, css: str = "") -> str:
    attribute = f' class="{css}"' if css else ""
    return f"<td{attribute}>{_shown(str(text))}</td>"


def _table(header: Sequence[str], rows: Sequence[str]) -> list[str]:
    head = "".join(f"<th>{_shown(name)}</th>" for name in header)
    return ["<table>", f"<tr>{head}</tr>", *rows, "</table>"]


def _anchor(index: int) -> str:
    return f"student-{index + 1}"


def _histogram(scores: Distribution) -> list[str]:
    """The score distribution as a table of bars (plain HTML: the same bytes every time)."""
    tallest = max(scores.counts, default=0) or 1
    rows = [
        "<tr>"
        + _cell(score, "num")
        + _cell(count, "num")
        + f'<td><div class="bar" style="width: {round(12 * count / tallest, 2)}rem"></div></td>'
        + "</tr>"
        for score, count in enumerate(scores.counts)
    ]
    lines = [
        f"<p>Mean {_number(scores.mean)}, median {_number(scores.median)} "
        f"of {_number(scores.possible)} points.</p>"
    ]
    return lines + _table(["score", "students", ""], rows)


def _summary_rows(summary: Sequence[CheckSummary]) -> list[str]:
    return [
        "<tr>"
        + _cell(row.lab)
        + _cell(row.name)
        + _cell(row.passed, "num")
        + _cell(row.failed - row.not_attempted, "num")
        + _cell(row.not_attempted, "num")
        + _cell(row.not_run, "num")
        + _cell(
            f"{row.most_common_count}x {row.most_common_rule}" if row.most_common_count else "",
            "msg",
        )
        + "</tr>"
        for row in summary
    ]


_SUMMARY_HEADER = [
    "lab",
    "check",
    "passed",
    "failed",
    "not attempted",
    "not run",
    "most common rule broken",
]


def _failure_rows(groups: Sequence[FailureGroup], *, names: bool) -> list[str]:
    return [
        "<tr>"
        + _cell(group.lab)
        + _cell(group.check)
        + _cell(group.rule, "msg")
        + _cell(group.count, "num")
        + (_cell(", ".join(group.students)) if names else "")
        + "</tr>"
        for group in groups
    ]


def _hidden_rows(grades: Sequence[Grade], labs: Sequence[str]) -> list[str]:
    rows = []
    for lab in labs:
        cases = [case for grade in grades for case in grade.hidden if case.lab == lab]
        if cases:
            agree = sum(case.outcome == "passed" for case in cases)
            students = sum(
                bool(own) and all(case.outcome == "passed" for case in own)
                for own in ([c for c in grade.hidden if c.lab == lab] for grade in grades)
            )
            rows.append(
                "<tr>"
                + _cell(lab)
                + _cell(f"{agree}/{len(cases)}", "num")
                + _cell(students, "num")
                + "</tr>"
            )
    return rows


_HIDDEN_HEADER = ["lab", "cases agreeing with the reference", "students agreeing on every case"]


def _head(title: str) -> list[str]:
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_shown(title)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{_shown(title)}</h1>",
    ]


def report_html(
    grades: Sequence[Grade],
    labs: Sequence[str],
    limits: Limits,
    options: ReportOptions | None = None,
) -> str:
    """The instructor's report: class summary (table and plot), failures by rule, scores, hidden
    cases, similar work, the gradebook and feedback per student."""
    options = options or ReportOptions()
    summary = class_summary(grades, labs)
    statuses = Counter(grade.status for grade in grades)
    status_text = ", ".join(f"{statuses[s]} {s}" for s in STATUS_MEANING if statuses[s])
    ids = student_ids(grades, options.students)
    pairs = similar_pairs_of(grades, labs, options)
    parts = [
        *_head("Chapter 11 gradebook"),
        f"<p>{len(grades)} submissions, labs {_shown(', '.join(labs))}: "
        f"{_shown(status_text)}. Limits per submission: {limits.timeout:g} s, "
        f"{limits.memory_mb} MiB of memory, files up to {limits.file_mb} MiB.</p>",
        *([f'<p class="msg">{_shown(options.sandbox)}</p>'] if options.sandbox else []),
        "<h2>Class summary</h2>",
    ]
    parts += _table(_SUMMARY_HEADER, _summary_rows(summary))
    parts += [f"<figure>{plot_svg(summary)}</figure>"]
    parts += ["<h2>Common failures by check and rule</h2>"]
    parts += _table(
        ["lab", "check", "rule", "students", "who"],
        _failure_rows(failure_groups(grades, labs), names=True),
    )
    parts += ["<h2>Scores</h2>", *_histogram(_scores(grades, labs, options))]
    hidden_rows = _hidden_rows(grades, labs)
    if hidden_rows:
        parts += ["<h2>Hidden cases</h2>", *_table(_HIDDEN_HEADER, hidden_rows)]
    parts += [
        "<h2>Similar work between students</h2>",
        "<p>Pairs whose own work on a lab (what the reference does not hold, once comments, "
        "layout and local names are normalised) resembles each other at "
        f"{options.similarity:g} or more; labs under {options.min_tokens} tokens, and labs "
        "that are the reference with a line changed, are left out.</p>",
    ]
    pair_rows = [
        "<tr>"
        + _cell(pair.lab)
        + _cell(pair.first)
        + _cell(pair.second)
        + _cell(f"{pair.similarity:.2f}", "num")
        + _cell(f"{pair.overall:.2f}", "num")
        + _cell(f"{pair.first_to_reference:.2f} / {pair.second_to_reference:.2f}", "num")
        + _cell(pair.tokens, "num")
        + "</tr>"
        for pair in pairs
    ]
    header = ["lab", "student", "student", "own work alike", "as wholes", "each to the reference"]
    header += ["tokens"]
    parts += _table(header, pair_rows) if pair_rows else ["<p>No pair above the threshold.</p>"]
    borrowers = [(grade, borrowed_labs(grade)) for grade in grades]
    borrowers = [(grade, labs_) for grade, labs_ in borrowers if labs_]
    parts += ["<h2>No rule, no marks</h2>"]
    parts += (
        [
            "<p>Labs that scored 0 because the functions the checks call are not the "
            "submission's own (taken from <code>course_lib</code>, or rebound):</p>",
            "<ul>",
            *(
                f"<li>{_shown(grade.student)}: {_shown(', '.join(labs_))}</li>"
                for grade, labs_ in borrowers
            ),
            "</ul>",
        ]
        if borrowers
        else ["<p>Every submission's rules are its own.</p>"]
    )
    parts += ["<h2>Gradebook</h2>"]
    rows = []
    for index, grade in enumerate(grades):
        flag = " ".join(grade.identical_labs)
        rows.append(
            "<tr>"
            + f'<td><a href="#{_anchor(index)}">{_shown(grade.student)}</a></td>'
            + _cell(ids[grade.student])
            + "".join(_cell(_score(grade, lab), "num") for lab in labs)
            + _cell(f"{grade.passed}/{grade.total}", "num")
            + _cell(_number(points(grade, options.weights, labs)), "num")
            + _cell(_hidden_score(grade), "num")
            + _cell(grade.status, grade.status)
            + _cell(flag, "flag" if flag else "")
            + _cell("; ".join(pairs_of(pairs, grade.student)))
            + _cell(grade.note, "msg")
            + "</tr>"
        )
    header = ["student", "id", *labs, "total", "points", "hidden", "status"]
    parts += _table([*header, "identical to reference", "similar to", "note"], rows)
    parts += ["<h3>Statuses</h3>", "<ul>"]
    parts += [f"<li><b>{s}</b>: {_shown(meaning)}</li>" for s, meaning in STATUS_MEANING.items()]
    parts += [
        "</ul>",
        "<p><b>identical to reference</b>: the lab's regions hold at least "
        f"{options.min_tokens} tokens and are the reference solution once comments, layout "
        "and local names are normalised. <code>course-lab solution</code> gives the same "
        "result, so ask before you judge.</p>",
        "<h2>Feedback</h2>",
    ]
    for index, grade in enumerate(grades):
        parts.append(f'<section class="student" id="{_anchor(index)}">')
        parts.append(
            f"<h3>{_shown(grade.student)}: {grade.passed}/{grade.total} "
            f'<span class="{grade.status}">{grade.status}</span></h3>'
        )
        if grade.note:
            parts.append(f'<p class="msg">{_shown(grade.note)}</p>')
        if grade.identical_labs:
            labs_text = ", ".join(grade.identical_labs)
            parts.append(f'<p class="flag">Identical to the reference: {labs_text}</p>')
        parts.append("<ul>")
        for lab in labs:
            failing = [c for c in grade.checks if c.lab == lab and c.outcome == "failed"]
            items = "".join(
                f'<li><code>{_shown(c.name)}</code> <span class="msg">'
                f"{_shown(c.message)}</span></li>"
                for c in failing
            )
            hidden = _hidden_score(grade, lab)
            parts.append(
                f"<li>Lab {lab} {_shown(LAB_TOPICS[lab])}: {_score(grade, lab)}"
                + (f" (hidden cases {hidden})" if hidden else "")
                + (f"<ul>{items}</ul>" if items else "")
                + "</li>"
            )
        parts += ["</ul>", "</section>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def projector_html(
    grades: Sequence[Grade],
    labs: Sequence[str],
    options: ReportOptions | None = None,
) -> str:
    """The class summary for a projector: counts, scores, rules broken and hidden cases, with
    no student's name, id, note or message (messages can quote a student's own code)."""
    options = options or ReportOptions()
    summary = class_summary(grades, labs)
    statuses = Counter(grade.status for grade in grades)
    status_text = ", ".join(f"{statuses[s]} {s}" for s in STATUS_MEANING if statuses[s])
    parts = [
        *_head("Chapter 11: how the class did"),
        f"<p>{len(grades)} submissions, labs {_shown(', '.join(labs))}: {_shown(status_text)}.</p>",
        "<h2>Scores</h2>",
        *_histogram(_scores(grades, labs, options)),
        "<h2>Checks</h2>",
        *_table(_SUMMARY_HEADER, _summary_rows(summary)),
        f"<figure>{plot_svg(summary)}</figure>",
        "<h2>Common failures by check and rule</h2>",
        *_table(
            ["lab", "check", "rule", "students"],
            _failure_rows(failure_groups(grades, labs), names=False),
        ),
    ]
    hidden_rows = _hidden_rows(grades, labs)
    if hidden_rows:
        parts += ["<h2>Hidden cases</h2>", *_table(_HIDDEN_HEADER, hidden_rows)]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_gradebook(
    out: Path,
    grades: Sequence[Grade],
    labs: Sequence[str],
    limits: Limits,
    options: ReportOptions | None = None,
    *,
    partial: bool = False,
) -> list[Path]:
    """Write the gradebook (CSV, JSON), both reports, the LMS exports and ``feedback/*.txt``.

    Each file is written whole to a temporary name and then renamed, so a
    crash or Ctrl-C never leaves half a file. ``partial`` (after each student
    the grader finishes) writes only the gradebook and the feedback, which are
    cheap; the reports and exports follow once the class is done. Feedback
    files this folder no longer lists are removed, so it always matches the
    gradebook: give each run a folder of its own (``course-lab grade`` does).
    Text that cannot be UTF-8 (a file name's stray bytes) is written escaped.
    """
    options = options or ReportOptions()
    out.mkdir(parents=True, exist_ok=True)
    feedback = out / "feedback"
    feedback.mkdir(exist_ok=True)
    names = _feedback_names(grades)
    for old in feedback.glob("*.txt"):
        if old.name not in names.values():
            old.unlink()
    if partial:
        files = {
            out / "gradebook.csv": _csv_text(grades, labs, options),
            out / "gradebook.json": json.dumps(
                gradebook_json(grades, labs, limits, options), indent=2
            )
            + "\n",
        }
        for grade in grades:
            files[feedback / names[grade.student]] = feedback_text(grade, labs, options)
        for path, text in files.items():
            write_atomically(path, text)
        return list(files)
    ids = student_ids(grades, options.students)
    book = gradebook_json(grades, labs, limits, options)
    files = {
        out / "gradebook.csv": _csv_text(grades, labs, options),
        out / "gradebook.json": json.dumps(book, indent=2) + "\n",
        out / "report.html": report_html(grades, labs, limits, options),
        out / "report-projector.html": projector_html(grades, labs, options),
        out / "canvas.csv": canvas_csv(
            grades, ids, options.students, options.weights, labs, options.assignment
        ),
        out / "gradescope.csv": gradescope_csv(
            grades, ids, options.students, options.weights, labs
        ),
    }
    for grade in grades:
        files[feedback / names[grade.student]] = feedback_text(grade, labs, options)
    for path, text in files.items():
        write_atomically(path, text)
    return list(files)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``.

    A reader (or a crash) sees the old file or the new one, never a part.
    Characters UTF-8 cannot hold (surrogates from undecodable file names)
    are written as backslash escapes instead of failing the whole run.
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with temporary.open("wb") as handle:
        handle.write(text.encode("utf-8", "backslashreplace"))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
