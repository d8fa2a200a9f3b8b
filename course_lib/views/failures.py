"""Expected failures and lab checks as tables: the notebooks show errors instead of hiding them."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from ..base.errors import CourseError
from ..base.i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, Lang, tr
from ..track.checks import LabReport
from ..track.language import hint_in_language
from .translated import shown

__all__ = [
    "PRACTICE_HINT",
    "checks_frame",
    "errors_frame",
    "expected_failure",
    "practice_hint",
]

PRACTICE_HINT = N_(
    "No practice package yet: run `.venv/bin/course-lab practice 11` in the repository "
    "root, then run this cell again."
)
"""What a "Your turn" cell says when ``practice/ch11`` does not exist (in English)."""


def practice_hint(lang: str) -> str:
    """The "no practice package yet" hint in the notebook's language (the Chinese one asks for
    ``--lang zh``, as the Chinese edition's text does); English for a language it lacks."""
    chosen = next((known for known in LANGUAGES if known == lang), DEFAULT_LANGUAGE)
    return tr(chosen, PRACTICE_HINT)


# --- expected failures and checks ----------------------------------------------------------


def expected_failure(call: Callable[[], object]) -> pd.DataFrame:
    """Run ``call``, which must break one of the chapter's rules, and show the error it raises.

    Only ``CourseError`` is caught: any other exception is a real bug and
    propagates. A call that does not fail raises ``AssertionError``, so a
    notebook can never silently show a failure that did not happen.
    """
    try:
        value = call()
    except CourseError as error:  # the message in the notebook's language, its locators as they are
        return pd.DataFrame(
            [(type(error).__name__, shown(str(error)))], columns=["error", "message"]
        )
    raise AssertionError(f"expected a CourseError, but the call returned {value!r}")


def errors_frame(cases: Mapping[str, Callable[[], object]]) -> pd.DataFrame:
    """Several expected failures at once: one row per named case (error class, message)."""
    frames = [expected_failure(call).assign(case=name) for name, call in cases.items()]
    return pd.concat(frames, ignore_index=True)[["case", "error", "message"]]


OUTCOMES: frozenset[str] = frozenset((N_("passed"), N_("failed"), N_("waiting")))
"""A check's outcomes, as another edition translates them (``outcome`` stays English in code)."""


def _outcome_in(outcome: str, lang: Lang) -> str:
    return tr(lang, outcome) if outcome in OUTCOMES else outcome


def checks_frame(report: LabReport, lang: str = "en") -> pd.DataFrame:
    """One row per check of a lab; ``report.summary_line()`` gives the count below it.

    ``lang="zh"``: outcomes in Chinese and each failure's hint in Chinese
    (``hint_in_language``); test names and the values a check compared stay
    as they are.
    """
    chosen = next((known for known in LANGUAGES if known == lang), DEFAULT_LANGUAGE)
    if chosen != DEFAULT_LANGUAGE:
        rows = [
            (c.name, _outcome_in(c.outcome, chosen), hint_in_language(c.detail, chosen))
            for c in report.outcomes
        ]
    else:
        rows = [(check.name, check.outcome, check.detail) for check in report.outcomes]
    return pd.DataFrame(rows, columns=["test", "outcome", "detail"])
