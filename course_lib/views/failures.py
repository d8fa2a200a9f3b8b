"""Expected failures and lab checks as tables: the notebooks show errors instead of hiding them."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from ..base.errors import CourseError
from ..track.checks import LabReport
from ..track.hints_zh import hint_in_language

__all__ = [
    "PRACTICE_HINTS",
    "checks_frame",
    "errors_frame",
    "expected_failure",
    "practice_hint",
]

PRACTICE_HINTS: dict[str, str] = {
    "en": (
        "No practice package yet: run `.venv/bin/course-lab practice 11` in the repository "
        "root, then run this cell again."
    ),
    "zh": (
        "还没有练习包：在仓库根目录运行 `.venv/bin/course-lab practice 11 --lang zh`，"
        "然后重新运行这个单元格。"
    ),
}
"""What a "Your turn" cell says when ``practice/ch11`` does not exist, in each edition."""


def practice_hint(lang: str) -> str:
    """The "no practice package yet" hint in the notebook's language (the Chinese one asks for
    ``--lang zh``, as the Chinese edition's text does)."""
    return PRACTICE_HINTS[lang] if lang in PRACTICE_HINTS else PRACTICE_HINTS["en"]


# --- expected failures and checks ----------------------------------------------------------


def expected_failure(call: Callable[[], object]) -> pd.DataFrame:
    """Run ``call``, which must break one of the chapter's rules, and show the error it raises.

    Only ``CourseError`` is caught: any other exception is a real bug and
    propagates. A call that does not fail raises ``AssertionError``, so a
    notebook can never silently show a failure that did not happen.
    """
    try:
        value = call()
    except CourseError as error:
        return pd.DataFrame([(type(error).__name__, str(error))], columns=["error", "message"])
    raise AssertionError(f"expected a CourseError, but the call returned {value!r}")


def errors_frame(cases: Mapping[str, Callable[[], object]]) -> pd.DataFrame:
    """Several expected failures at once: one row per named case (error class, message)."""
    frames = [expected_failure(call).assign(case=name) for name, call in cases.items()]
    return pd.concat(frames, ignore_index=True)[["case", "error", "message"]]


OUTCOMES_ZH: dict[str, str] = {"passed": "通过", "failed": "失败", "waiting": "等待"}
"""A check's outcome as the Chinese edition shows it."""


def checks_frame(report: LabReport, lang: str = "en") -> pd.DataFrame:
    """One row per check of a lab; ``report.summary_line()`` gives the count below it.

    ``lang="zh"``: outcomes in Chinese and each failure's hint in Chinese
    (``hint_in_language``); test names and the values a check compared stay
    as they are.
    """
    if lang == "zh":
        rows = [
            (c.name, OUTCOMES_ZH.get(c.outcome, c.outcome), hint_in_language(c.detail, lang))
            for c in report.outcomes
        ]
    else:
        rows = [(check.name, check.outcome, check.detail) for check in report.outcomes]
    return pd.DataFrame(rows, columns=["test", "outcome", "detail"])
