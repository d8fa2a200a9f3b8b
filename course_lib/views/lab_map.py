"""The lab map as a table: lab, topic, the chapter's section, notebook, checks, module."""

from __future__ import annotations

import pandas as pd

from ..track.catalogue import LAB_CHECK_COUNTS, LAB_MAP, LAB_TOPICS
from .frames import NO_VALUE

__all__ = ["lab_map_frame"]

# --- the lab map ----------------------------------------------------------------------------


def lab_map_frame() -> pd.DataFrame:
    """The lab map: lab, topic, the chapter's section title, notebook, checks, module."""
    rows = [
        {
            "lab": row.lab,
            "topic": LAB_TOPICS.get(row.lab, row.topic),
            "chapter section": row.chapter_section,
            "notebook": row.notebook,
            "checks": row.checks,
            "number of checks": str(LAB_CHECK_COUNTS[row.lab])
            if row.lab in LAB_CHECK_COUNTS
            else NO_VALUE,
            "course_lib module": row.modules,
        }
        for row in LAB_MAP
    ]
    # The transfer exercise and the real session have no count: a dash, never <NA>.
    return pd.DataFrame(rows)
