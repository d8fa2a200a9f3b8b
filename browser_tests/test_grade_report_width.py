"""The grader's report in a real browser: as wide as a laptop's window, whatever a student wrote.

An open issue found the gradebook table wider than 1280 px: long notes, long
folder names and long check messages pushed it out. The CSS now lets long
text wrap and keeps headers whole; this test measures the pages Chromium lays
out (no JupyterLab needed: the report is a plain file).
"""

from __future__ import annotations

from pathlib import Path

from conftest import WINDOW
from playwright.sync_api import Browser

from course_lib.grading.grader import CheckResult, Grade, Limits
from course_lib.track.catalogue import CHAPTER_LABS
from course_lib.track.checks import check_names
from course_lib.views.grade_report import ReportOptions, write_gradebook

LABS = list(CHAPTER_LABS)
LONG_NOTE = (
    "left out budget.py: a symbolic link is never followed; hand in the file itself; "
    + "/".join(["a_rather_long_folder_name_from_the_zip"] * 12)
    + " "
    + "x" * 600
)
LONG_NAME = "lovelace_ada_" + "x" * 90 + "_practice_attempt_2"

BROKEN_HEADERS = """() => [...document.querySelectorAll('th')].filter(th => {
    const tops = new Set();
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const words = walker.currentNode.textContent.split(' ');
        let at = 0;
        for (const word of words) {
            const range = document.createRange();
            range.setStart(walker.currentNode, at);
            range.setEnd(walker.currentNode, at + word.length);
            at += word.length + 1;
            if (new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1) {
                tops.add(word);
            }
        }
    }
    return tops.size > 0;
}).map(th => th.textContent)"""
"""The header cells with a word broken over two lines (a header may wrap between words)."""


def long_class() -> list[Grade]:
    """The issue's gradebook: long notes, long names and long messages."""
    first = check_names("11.3")[0]
    message = f"build_context(fixture, max_tokens=31): expected 22, got 15; hint: {LONG_NOTE}"

    def graded(student: str, failing: bool = False, note: str = "") -> Grade:
        checks = tuple(
            CheckResult(lab, name, "failed", message)
            if failing and name == first
            else CheckResult(lab, name, "passed")
            for lab in LABS
            for name in check_names(lab)
        )
        return Grade(student, "ok", checks, note)

    return [
        graded("ada"),
        graded("ben", True, LONG_NOTE),
        graded(LONG_NAME, True, "n" * 400),
        graded("chen", note=LONG_NOTE.replace(" ", "_")),
    ]


def test_the_report_fits_a_1280_px_window(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "grades"
    write_gradebook(out, long_class(), LABS, Limits(), ReportOptions(sandbox="none"))
    page = browser.new_context(viewport=WINDOW, device_scale_factor=1).new_page()
    for name in ("report.html", "report-projector.html"):
        page.goto((out / name).as_uri())
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= WINDOW["width"], f"{name} is {width} px wide"
        tables = page.evaluate(
            "[...document.querySelectorAll('table')].map(t => t.getBoundingClientRect().right)"
        )
        assert tables and max(tables) <= WINDOW["width"], (name, tables)
        assert page.evaluate(BROKEN_HEADERS) == [], name
    page.context.close()
