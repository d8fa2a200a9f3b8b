"""What grading a class produces: a gradebook (CSV and JSON), feedback per student, HTML reports.

Everything here is computed from the sorted grades alone, with no times or
dates, so grading the same roster twice writes the same files. Besides the
instructor's report (``report.html``, with names), the class summary is
written for a projector without any name (``report-projector.html``), and the
scores for a learning management system (``canvas.csv``, ``gradescope.csv``;
``grading.lms``). Each student's feedback is in the language their practice
folder recorded.
"""

from __future__ import annotations

import csv
import functools
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

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from ..base.i18n import tr
from ..base.text_rules import escape_controls_by_line, spreadsheet_safe
from ..grading.class_stats import (
    Distribution,
    distribution,
    failure_groups,
    failure_rule,
    not_attempted,
)
from ..grading.grader import STATUS_MEANING, CheckResult, Grade, Limits, borrowed_labs
from ..grading.hidden_checks import hidden_case_lines
from ..grading.lms import (
    DEFAULT_ASSIGNMENT,
    StudentRecord,
    Weights,
    canvas_csv,
    gradescope_csv,
    points,
    possible_points,
    student_ids,
)
from ..grading.similarity import (
    MIN_TOKENS,
    SIMILARITY_THRESHOLD,
    SimilarPair,
    reference_work,
    similar_pairs,
)
from ..track.catalogue import LAB_TOPICS
from ..track.language import hint_in_language

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
    title = tr(
        lang,
        "Chapter 11 checks for {student}: {passed}/{total} passed",
        student=grade.student,
        passed=passed,
        total=total,
    )
    lines = [title, ""]
    if not options.weights.plain:
        earned = _number(points(grade, options.weights, labs))
        possible = _number(possible_points([grade], options.weights, labs))
        lines += [tr(lang, "Points: {earned} of {possible}", earned=earned, possible=possible), ""]
    if grade.status != "ok":
        meaning = tr(lang, STATUS_MEANING[grade.status])
        lines += [tr(lang, "Status: {status} ({meaning})", status=grade.status, meaning=meaning)]
        lines += [f"  {grade.note}", ""] if grade.note else [""]
    for lab in labs:
        lab_passed, lab_total = grade.score(lab)
        topic = LAB_TOPICS[lab]
        lines.append(
            tr(
                lang,
                "Lab {lab} {topic}: {passed}/{total} passed",
                lab=lab,
                topic=topic,
                passed=lab_passed,
                total=lab_total,
            )
        )
        for check in grade.checks:
            if check.lab == lab and check.outcome == "failed":
                reason = hint_in_language(check.message, lang)
                lines.append(tr(lang, "  FAIL  {name} -- {reason}", name=check.name, reason=reason))
        if any(check.lab == lab and check.outcome == "not run" for check in grade.checks):
            lines.append(tr(lang, "  (not run: see the status above)"))
    if grade.hidden:
        lines += [
            "",
            tr(lang, "Hidden cases (inputs drawn at grading time, compared with the reference):"),
        ]
        for lab in labs:
            cases = [case for case in grade.hidden if case.lab == lab]
            if not cases:
                continue
            lines += hidden_case_lines(lab, cases, lang, show_inputs=options.hidden_feedback)
    lines += ["", tr(lang, "Run them yourself: course-lab check 11 --impl <your practice folder>")]
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
# The pages are Jinja2 templates (views/templates); the functions below only gather what they
# show. Autoescape is on, and what a student wrote goes through ``|shown`` (``_shown``).


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


def _shown(text: str) -> str:
    """``text`` for an HTML page: escaped, and every control or bidi character shown, not obeyed."""
    return html.escape(escape_controls_by_line(text))


def _shown_markup(value: object) -> Markup:
    """The templates' ``shown`` filter: ``_shown`` as ``Markup``, so autoescape leaves it as is.

    Escaped once, by ``html.escape`` (``'`` as ``&#x27;``), exactly as the pages
    were written before there were templates.
    """
    return Markup(_shown(str(value)))


@functools.cache
def _templates() -> Environment:
    """The pages' templates (``views/templates``), loaded once per process.

    Autoescape escapes anything a template prints without ``|shown``; a
    variable a template names but is not given is an error, not an empty
    string, so a renamed field cannot silently empty a column.
    """
    environment = Environment(
        loader=PackageLoader("course_lib.views", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    environment.filters["shown"] = _shown_markup
    environment.filters["number"] = _number
    return environment


def _render(template: str, **context: Any) -> str:
    return _templates().get_template(template).render(context)


def _anchor(index: int) -> str:
    return f"student-{index + 1}"


@dataclass(frozen=True)
class _Bar:
    """One row of the score histogram: a score, how many had it, the bar's width in rem."""

    score: int
    count: int
    width: float


def _bars(scores: Distribution) -> list[_Bar]:
    """The score distribution as bars up to 12 rem (plain HTML: the same bytes every time)."""
    tallest = max(scores.counts, default=0) or 1
    return [
        _Bar(score, count, round(12 * count / tallest, 2))
        for score, count in enumerate(scores.counts)
    ]


@dataclass(frozen=True)
class _HiddenRow:
    """One lab's hidden cases across the class."""

    lab: str
    agreeing: str
    """``agreeing/total`` of every student's cases of the lab."""
    students: int
    """The students who agreed with the reference on every case of the lab."""


def _hidden_rows(grades: Sequence[Grade], labs: Sequence[str]) -> list[_HiddenRow]:
    rows = []
    for lab in labs:
        cases = [case for grade in grades for case in grade.hidden if case.lab == lab]
        if cases:
            agree = sum(case.outcome == "passed" for case in cases)
            students = sum(
                bool(own) and all(case.outcome == "passed" for case in own)
                for own in ([c for c in grade.hidden if c.lab == lab] for grade in grades)
            )
            rows.append(_HiddenRow(lab, f"{agree}/{len(cases)}", students))
    return rows


@dataclass(frozen=True)
class _LabFeedback:
    """One lab of one student's feedback in ``report.html``."""

    lab: str
    topic: str
    score: str
    hidden: str
    failing: list[CheckResult]


@dataclass(frozen=True)
class _StudentView:
    """One student as ``report.html`` shows them: a gradebook row and a feedback section."""

    grade: Grade
    anchor: str
    student_id: str
    scores: list[str]
    """``passed/total`` per lab, in the labs' order."""
    points: str
    hidden: str
    similar_to: str
    labs: list[_LabFeedback]


def _student_views(
    grades: Sequence[Grade],
    labs: Sequence[str],
    options: ReportOptions,
    pairs: Sequence[SimilarPair],
) -> list[_StudentView]:
    ids = student_ids(grades, options.students)
    return [
        _StudentView(
            grade=grade,
            anchor=_anchor(index),
            student_id=ids[grade.student],
            scores=[_score(grade, lab) for lab in labs],
            points=_number(points(grade, options.weights, labs)),
            hidden=_hidden_score(grade),
            similar_to="; ".join(pairs_of(pairs, grade.student)),
            labs=[
                _LabFeedback(
                    lab=lab,
                    topic=LAB_TOPICS[lab],
                    score=_score(grade, lab),
                    hidden=_hidden_score(grade, lab),
                    failing=[c for c in grade.checks if c.lab == lab and c.outcome == "failed"],
                )
                for lab in labs
            ],
        )
        for index, grade in enumerate(grades)
    ]


def _class_context(
    grades: Sequence[Grade], labs: Sequence[str], options: ReportOptions
) -> dict[str, Any]:
    """What both pages show of the class: statuses, checks, the plot, failures, scores."""
    summary = class_summary(grades, labs)
    statuses = Counter(grade.status for grade in grades)
    scores = _scores(grades, labs, options)
    return {
        "submissions": len(grades),
        "labs": list(labs),
        "status_text": ", ".join(f"{statuses[s]} {s}" for s in STATUS_MEANING if statuses[s]),
        "summary": summary,
        "plot": Markup(plot_svg(summary)),  # matplotlib's own SVG, nothing a student wrote
        "failures": failure_groups(grades, labs),
        "scores": scores,
        "bars": _bars(scores),
        "hidden_rows": _hidden_rows(grades, labs),
    }


def report_html(
    grades: Sequence[Grade],
    labs: Sequence[str],
    limits: Limits,
    options: ReportOptions | None = None,
) -> str:
    """The instructor's report: class summary (table and plot), failures by rule, scores, hidden
    cases, similar work, the gradebook and feedback per student."""
    options = options or ReportOptions()
    pairs = similar_pairs_of(grades, labs, options)
    borrowers = [(grade.student, borrowed_labs(grade)) for grade in grades]
    return _render(
        "report.html.j2",
        **_class_context(grades, labs, options),
        limits=limits,
        options=options,
        pairs=pairs,
        borrowers=[(student, labs_) for student, labs_ in borrowers if labs_],
        students=_student_views(grades, labs, options, pairs),
        statuses=STATUS_MEANING,
    )


def projector_html(
    grades: Sequence[Grade],
    labs: Sequence[str],
    options: ReportOptions | None = None,
) -> str:
    """The class summary for a projector: counts, scores, rules broken and hidden cases, with
    no student's name, id, note or message (messages can quote a student's own code)."""
    options = options or ReportOptions()
    return _render("projector.html.j2", **_class_context(grades, labs, options))


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
