"""The grader's two pages, as Jinja2 renders them: escaped, strict, and as wide as a laptop.

``report.html`` and ``report-projector.html`` come from templates in
``course_lib/views/templates``. What a student controls (a folder's name, a
note, a check's message) must reach the page escaped and with every control or
bidi character shown, never obeyed; a variable a template names but is not
given must fail, not print nothing; and the pages' tables must fit a 1280-px
window however long a note or a name is. The CSS that makes it hold is
checked here; the layout itself, in a real browser, by
``browser_tests/test_grade_report_width.py`` (``make test-browser``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from jinja2 import StrictUndefined, UndefinedError
from markupsafe import Markup

from course_lib.grading.grader import CheckResult, Grade, Limits
from course_lib.grading.hidden_checks import HiddenResult
from course_lib.track.catalogue import CHAPTER_LABS
from course_lib.track.checks import check_names
from course_lib.views import grade_report
from course_lib.views.grade_report import (
    projector_html,
    report_html,
)

LABS = list(CHAPTER_LABS)
CHECKS = [(lab, name) for lab in LABS for name in check_names(lab)]
FIRST_11_3 = check_names("11.3")[0]

HOSTILE_NAME = "<script>alert(1)</script>"
FORMULA_NAME = "=cmd|' /C calc'!A0"
REVERSED = "check \u202etxt.exe\u202c and \u200bthis"
"""A right-to-left override (the page would read backwards) and a zero-width space."""
HOSTILE_RULE = "<script>steal()</script> \u202eevil"
"""A rule broken, as the projector shows it: the hint is quoted from the student's run."""

LONG_NOTE = (
    "left out budget.py: a symbolic link is never followed; hand in the file itself; "
    + "/".join(["a_rather_long_folder_name_from_the_zip"] * 12)
    + " "
    + "x" * 600
)
LONG_NAME = "lovelace_ada_" + "x" * 90 + "_practice_attempt_2"


def graded(
    student: str,
    failing: dict[str, str] | None = None,
    *,
    note: str = "",
    hidden: tuple[HiddenResult, ...] = (),
) -> Grade:
    """A grade passing every check but those in ``failing`` (check name -> message)."""
    failing = failing or {}
    checks = tuple(
        CheckResult(lab, name, "failed", failing[name])
        if name in failing
        else CheckResult(lab, name, "passed")
        for lab, name in CHECKS
    )
    return Grade(student, "ok", checks, note, hidden=hidden)


def hostile_class() -> list[Grade]:
    """Names and notes a student chose, each one trying to run, reverse or hide something."""
    failure = f"build_context(fixture): expected 22, got 15; hint: {HOSTILE_RULE}"
    return [
        graded(HOSTILE_NAME, {FIRST_11_3: failure}, note=REVERSED),
        graded(FORMULA_NAME, {FIRST_11_3: failure}),
        graded("ada", hidden=(HiddenResult("11.3", "hidden 11.3 #1", "passed"),)),
    ]


def long_class() -> list[Grade]:
    """The issue's gradebook: long notes, long names and long messages."""
    message = f"build_context(fixture, max_tokens=31): expected 22, got 15; hint: {LONG_NOTE}"
    return [
        graded("ada"),
        graded("ben", {FIRST_11_3: message}, note=LONG_NOTE),
        graded(LONG_NAME, {FIRST_11_3: message}, note="n" * 400),
        graded("chen", note=LONG_NOTE.replace(" ", "_")),
    ]


# --- escaping -------------------------------------------------------------------------------


def test_what_a_student_wrote_is_escaped_and_shown_in_the_report() -> None:
    page = report_html(hostile_class(), LABS, Limits())
    assert "<script>" not in page  # the page has no script at all, so none of theirs runs
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&amp;lt;" not in page  # escaped once: autoescape leaves |shown's Markup alone
    formula = FORMULA_NAME.replace("'", "&#x27;")
    assert f">{formula}</a>" in page  # a formula is only text in a page
    assert "\u202e" not in page and "\u202c" not in page and "\u200b" not in page
    assert "check \\u202etxt.exe\\u202c and \\u200bthis" in page  # shown as escapes, not obeyed
    assert "\\u202eevil" in page


def test_the_projector_shows_the_rule_escaped_and_no_name() -> None:
    page = projector_html(hostile_class(), LABS)
    assert "<script>" not in page and "\u202e" not in page
    assert "&lt;script&gt;steal()&lt;/script&gt; \\u202eevil" in page  # the rule, escaped
    assert "alert(1)" not in page and "=cmd" not in page and "txt.exe" not in page


def test_the_plot_is_markup_and_a_template_escapes_whatever_it_is_not_told_is_safe() -> None:
    page = report_html(hostile_class(), LABS, Limits())
    assert page.count("<svg") == 1 and "&lt;svg" not in page
    templates = grade_report._templates()
    shown = templates.from_string("{{ text|shown }}").render(text="<b>\u202e & '")
    assert shown == "&lt;b&gt;\\u202e &amp; &#x27;"  # html.escape's, as the pages always had
    assert isinstance(grade_report._shown_markup("<b>"), Markup)
    assert templates.from_string("{{ text }}").render(text="<b>") == "&lt;b&gt;"


# --- strict templates -----------------------------------------------------------------------


def test_a_variable_a_template_is_not_given_is_an_error_not_an_empty_string() -> None:
    templates = grade_report._templates()
    assert templates.undefined is StrictUndefined
    assert templates.autoescape is True
    with pytest.raises(UndefinedError, match="missing"):
        templates.from_string("<p>{{ missing }}</p>").render()
    with pytest.raises(UndefinedError):
        templates.get_template("projector.html.j2").render(submissions=3)


def test_the_templates_ship_with_the_package() -> None:
    folder = Path(grade_report.__file__).parent / "templates"
    names = {"base.html.j2", "macros.html.j2", "report.html.j2", "projector.html.j2"}
    assert names <= {path.name for path in folder.glob("*.j2")}
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text("utf-8")
    assert '"templates/*.j2",' in pyproject.split('"course_lib.views" = [', 1)[1].split("]")[0]


# --- fitting a 1280-px window ---------------------------------------------------------------


def css_rules(page: str) -> dict[str, set[str]]:
    """The page's ``<style>`` as selector -> declarations (``a, b { x }`` gives both)."""
    style = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    assert style is not None
    rules: dict[str, set[str]] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", style.group(1)):
        declarations = {d.strip() for d in body.split(";") if d.strip()}
        for selector in selectors.split(","):
            rules.setdefault(selector.strip(), set()).update(declarations)
    return rules


@pytest.mark.parametrize("which", ["report", "projector"])
def test_the_css_lets_long_text_wrap_and_keeps_headers_and_numbers_whole(which: str) -> None:
    grades = long_class()
    page = (
        report_html(grades, LABS, Limits()) if which == "report" else projector_html(grades, LABS)
    )
    rules = css_rules(page)
    assert "max-width: 72rem" in rules["body"]  # the page's width stays
    assert "overflow-wrap: break-word" in rules["body"]  # a long word in a paragraph wraps
    assert "max-width: 100%" in rules["table"]
    for selector in ("td.msg", "td.name"):  # notes, messages, names: no least width
        assert "overflow-wrap: anywhere" in rules[selector], selector
    assert "max-width: 32rem" in rules["td.msg"]
    assert {"word-break: normal", "hyphens: none", "overflow-wrap: normal"} <= rules["th"]
    assert "white-space: nowrap" in rules["td.num"]  # short: 14/15 is never split
    assert not any("white-space: nowrap" in rules.get(s, set()) for s in ("th", "td", "td.msg"))
    assert "max-width: 100%" in rules["figure svg"]


def test_every_long_text_cell_carries_a_class_the_css_wraps() -> None:
    page = report_html(long_class(), LABS, Limits())
    assert f'<td class="name"><a href="#student-3">{LONG_NAME}</a></td>' in page
    assert f'<td class="name">{LONG_NAME}</td>' in page  # its id, the folder's name
    assert f'<td class="msg">{"n" * 400}</td>' in page
    who = re.search(r"<td([^>]*)>ben, " + re.escape(LONG_NAME) + "</td>", page)
    assert who is not None and who.group(1) == ' class="name"'
