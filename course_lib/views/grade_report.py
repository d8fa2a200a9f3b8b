"""What grading a class produces: a gradebook (CSV and JSON), feedback per student, an HTML report.

Everything here is computed from the sorted grades alone, with no times or
dates, so grading the same roster twice writes the same files.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..track.catalogue import LAB_TOPICS
from ..track.grading import STATUS_MEANING, Grade, Limits

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "GRADEBOOK_SCHEMA",
    "CheckSummary",
    "class_summary",
    "feedback_text",
    "gradebook_json",
    "gradebook_rows",
    "plot_svg",
    "report_html",
    "summary_figure",
    "write_gradebook",
]

GRADEBOOK_SCHEMA = "course-lab-gradebook/1"
"""The ``schema`` field of ``gradebook.json``; bumped on any incompatible change."""


@dataclass(frozen=True)
class CheckSummary:
    """One check across the class: how many passed, failed or could not run, and the usual why."""

    lab: str
    name: str
    passed: int
    failed: int
    not_run: int
    most_common_message: str
    most_common_count: int


def class_summary(grades: Sequence[Grade], labs: Sequence[str]) -> list[CheckSummary]:
    """Per check, in lab order: the counts and the most common failure message (ties by text)."""
    order: list[tuple[str, str]] = []
    for grade in grades:
        order += [(c.lab, c.name) for c in grade.checks if (c.lab, c.name) not in order]
    order.sort(key=lambda key: labs.index(key[0]) if key[0] in labs else len(labs))
    summaries: list[CheckSummary] = []
    for lab, name in order:
        results = [c for grade in grades for c in grade.checks if (c.lab, c.name) == (lab, name)]
        messages = Counter(c.message for c in results if c.outcome == "failed")
        top = min(messages.items(), key=lambda item: (-item[1], item[0]), default=("", 0))
        summaries.append(
            CheckSummary(
                lab=lab,
                name=name,
                passed=sum(c.outcome == "passed" for c in results),
                failed=sum(c.outcome == "failed" for c in results),
                not_run=sum(c.outcome == "not run" for c in results),
                most_common_message=top[0],
                most_common_count=top[1],
            )
        )
    return summaries


def _score(grade: Grade, lab: str) -> str:
    passed, total = grade.score(lab)
    return f"{passed}/{total}"


def gradebook_rows(grades: Sequence[Grade], labs: Sequence[str]) -> list[dict[str, str]]:
    """The CSV's rows: student, ``passed/total`` per lab, total, status, flag and note."""
    return [
        {
            "student": grade.student,
            **{lab: _score(grade, lab) for lab in labs},
            "total": f"{grade.passed}/{grade.total}",
            "status": grade.status,
            "identical_to_reference": " ".join(grade.identical_labs),
            "note": grade.note,
        }
        for grade in grades
    ]


def _csv_text(grades: Sequence[Grade], labs: Sequence[str]) -> str:
    buffer = io.StringIO()
    header = ["student", *labs, "total", "status", "identical_to_reference", "note"]
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(gradebook_rows(grades, labs))
    return buffer.getvalue()


def _limits_json(limits: Limits) -> dict[str, Any]:
    return asdict(limits)


def gradebook_json(grades: Sequence[Grade], labs: Sequence[str], limits: Limits) -> dict[str, Any]:
    """The whole gradebook as one object: every student's checks and the class summary."""
    statuses = Counter(grade.status for grade in grades)
    return {
        "schema": GRADEBOOK_SCHEMA,
        "labs": [{"lab": lab, "topic": LAB_TOPICS[lab]} for lab in labs],
        "limits": _limits_json(limits),
        "students": [
            {
                "student": grade.student,
                "status": grade.status,
                "note": grade.note,
                "identical_to_reference": list(grade.identical_labs),
                "labs": {
                    lab: dict(zip(("passed", "total"), grade.score(lab), strict=True))
                    for lab in labs
                },
                "passed": grade.passed,
                "total": grade.total,
                "checks": [asdict(check) for check in grade.checks],
            }
            for grade in grades
        ],
        "summary": {
            "submissions": len(grades),
            "statuses": {status: statuses.get(status, 0) for status in STATUS_MEANING},
            "flagged": [grade.student for grade in grades if grade.identical_labs],
            "checks": [asdict(summary) for summary in class_summary(grades, labs)],
        },
    }


def feedback_text(grade: Grade, labs: Sequence[str]) -> str:
    """What to hand back to one student: the score per lab and why each failing check failed."""
    lines = [f"Chapter 11 checks for {grade.student}: {grade.passed}/{grade.total} passed", ""]
    if grade.status != "ok":
        lines += [f"Status: {grade.status} ({STATUS_MEANING[grade.status]})"]
        lines += [f"  {grade.note}", ""] if grade.note else [""]
    for lab in labs:
        lines.append(f"Lab {lab} {LAB_TOPICS[lab]}: {_score(grade, lab)} passed")
        for check in grade.checks:
            if check.lab == lab and check.outcome == "failed":
                lines.append(f"  FAIL  {check.name} -- {check.message}")
        if any(check.lab == lab and check.outcome == "not run" for check in grade.checks):
            lines.append("  (not run: see the status above)")
    lines += ["", "Run them yourself: course-lab check 11 --impl <your practice folder>"]
    return "\n".join(lines) + "\n"


def _feedback_names(grades: Sequence[Grade]) -> dict[str, str]:
    """A safe, unique file name per student (``feedback/<name>.txt``)."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for grade in grades:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", grade.student).strip("._") or "student"
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
"""


def _cell(text: object, css: str = "") -> str:
    attribute = f' class="{css}"' if css else ""
    return f"<td{attribute}>{html.escape(str(text))}</td>"


def _table(header: Sequence[str], rows: Sequence[str]) -> list[str]:
    head = "".join(f"<th>{html.escape(name)}</th>" for name in header)
    return ["<table>", f"<tr>{head}</tr>", *rows, "</table>"]


def _anchor(index: int) -> str:
    return f"student-{index + 1}"


def report_html(grades: Sequence[Grade], labs: Sequence[str], limits: Limits) -> str:
    """The instructor's report: class summary (table and plot), gradebook, feedback per student."""
    summary = class_summary(grades, labs)
    statuses = Counter(grade.status for grade in grades)
    status_text = ", ".join(f"{statuses[s]} {s}" for s in STATUS_MEANING if statuses[s])
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>Chapter 11 gradebook</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>Chapter 11 gradebook</h1>",
        f"<p>{len(grades)} submissions, labs {html.escape(', '.join(labs))}: "
        f"{html.escape(status_text)}. Limits per submission: {limits.timeout:g} s, "
        f"{limits.memory_mb} MiB of memory, files up to {limits.file_mb} MiB.</p>",
        "<h2>Class summary</h2>",
    ]
    rows = [
        "<tr>"
        + _cell(row.lab)
        + _cell(row.name)
        + _cell(row.passed, "num")
        + _cell(row.failed, "num")
        + _cell(row.not_run, "num")
        + _cell(f"{row.most_common_count}x {row.most_common_message}" if row.failed else "", "msg")
        + "</tr>"
        for row in summary
    ]
    header = ["lab", "check", "passed", "failed", "not run", "most common failure message"]
    parts += _table(header, rows)
    parts += [f"<figure>{plot_svg(summary)}</figure>"]
    parts += ["<h2>Gradebook</h2>"]
    rows = []
    for index, grade in enumerate(grades):
        flag = " ".join(grade.identical_labs)
        rows.append(
            "<tr>"
            + f'<td><a href="#{_anchor(index)}">{html.escape(grade.student)}</a></td>'
            + "".join(_cell(_score(grade, lab), "num") for lab in labs)
            + _cell(f"{grade.passed}/{grade.total}", "num")
            + _cell(grade.status, grade.status)
            + _cell(flag, "flag" if flag else "")
            + _cell(grade.note, "msg")
            + "</tr>"
        )
    parts += _table(["student", *labs, "total", "status", "identical to reference", "note"], rows)
    parts += ["<h3>Statuses</h3>", "<ul>"]
    parts += [
        f"<li><b>{s}</b>: {html.escape(meaning)}</li>" for s, meaning in STATUS_MEANING.items()
    ]
    parts += [
        "</ul>",
        "<p><b>identical to reference</b>: every region of that lab is the reference "
        "solution, compared as Python syntax trees (layout, comments, quotes and "
        "parentheses do not matter). <code>course-lab solution</code> gives the same "
        "result, so ask before you judge.</p>",
        "<h2>Feedback</h2>",
    ]
    for index, grade in enumerate(grades):
        parts.append(f'<section class="student" id="{_anchor(index)}">')
        parts.append(
            f"<h3>{html.escape(grade.student)}: {grade.passed}/{grade.total} "
            f'<span class="{grade.status}">{grade.status}</span></h3>'
        )
        if grade.note:
            parts.append(f'<p class="msg">{html.escape(grade.note)}</p>')
        if grade.identical_labs:
            labs_text = ", ".join(grade.identical_labs)
            parts.append(f'<p class="flag">Identical to the reference: {labs_text}</p>')
        parts.append("<ul>")
        for lab in labs:
            failing = [c for c in grade.checks if c.lab == lab and c.outcome == "failed"]
            items = "".join(
                f'<li><code>{html.escape(c.name)}</code> <span class="msg">'
                f"{html.escape(c.message)}</span></li>"
                for c in failing
            )
            parts.append(
                f"<li>Lab {lab} {html.escape(LAB_TOPICS[lab])}: {_score(grade, lab)}"
                + (f"<ul>{items}</ul>" if items else "")
                + "</li>"
            )
        parts += ["</ul>", "</section>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_gradebook(
    out: Path, grades: Sequence[Grade], labs: Sequence[str], limits: Limits
) -> list[Path]:
    """Write ``gradebook.csv``, ``gradebook.json``, ``report.html`` and ``feedback/*.txt``.

    Feedback files from an earlier run are replaced, so the folder always
    matches the gradebook.
    """
    out.mkdir(parents=True, exist_ok=True)
    feedback = out / "feedback"
    feedback.mkdir(exist_ok=True)
    for old in feedback.glob("*.txt"):
        old.unlink()
    files = {
        out / "gradebook.csv": _csv_text(grades, labs),
        out / "gradebook.json": json.dumps(gradebook_json(grades, labs, limits), indent=2) + "\n",
        out / "report.html": report_html(grades, labs, limits),
    }
    names = _feedback_names(grades)
    for grade in grades:
        files[feedback / names[grade.student]] = feedback_text(grade, labs)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)
