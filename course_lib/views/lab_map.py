"""The lab map and the chapter's names as tables, read from ``course_lib.track.catalogue``."""

from __future__ import annotations

import pandas as pd

from ..track.catalogue import LAB_CHECK_COUNTS, LAB_MAP, LAB_TOPICS, TS_TO_PYTHON
from ..track.checks import check_names
from .frames import NO_VALUE
from .translated import shown

__all__ = ["checks_catalogue_frame", "lab_map_frame", "names_frame"]

# --- the lab map ----------------------------------------------------------------------------


def lab_map_frame() -> pd.DataFrame:
    """The lab map: lab, topic, the chapter's section title, notebook, checks, module.

    A lab told in two notebooks shows its count of checks once, on the row of
    the notebook that runs them; the other rows show a dash, never ``<NA>``.
    Topics are in the notebook's language.
    """
    rows = [
        {
            "lab": row.lab,
            "topic": shown(row.topic or LAB_TOPICS.get(row.lab, "")),
            "chapter section": row.chapter_section,
            "notebook": row.notebook,
            "checks": row.checks,
            "number of checks": str(LAB_CHECK_COUNTS[row.lab])
            if row.lab in LAB_CHECK_COUNTS and row.checks != NO_VALUE
            else NO_VALUE,
            "course_lib module": row.modules,
        }
        for row in LAB_MAP
    ]
    return pd.DataFrame(rows)


def names_frame() -> pd.DataFrame:
    """The chapter's TypeScript names beside the Python names this workbook uses.

    ``in`` says where the Python name lives: ``course_lib`` for a function or a
    type, else the function it is a parameter of or the class it is a field of.
    """
    return pd.DataFrame(
        [(typescript, python, _home(where)) for typescript, python, where in TS_TO_PYTHON],
        columns=["chapter (TypeScript)", "Python", "in"],
    )


def _home(where: str) -> str:
    """``course_lib``, a function as ``build_context(...)``, or a class name as it is."""
    if not where:
        return "course_lib"
    return f"{where}(...)" if where[0].islower() else where


def checks_catalogue_frame() -> pd.DataFrame:
    """The chapter's checks, one row each: lab, topic and the check's test name, in file order.

    The names are read from the lab test files, so the table lists exactly
    the chapter's checks (15 in all); a lab of the catalogue that is not one
    of the chapter's numbered labs (``11.N``) is left out.
    """
    return pd.DataFrame(
        [(lab, LAB_TOPICS[lab], name) for lab in LAB_CHECK_COUNTS for name in check_names(lab)],
        columns=["lab", "topic", "check"],
    )
