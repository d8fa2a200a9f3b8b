"""Summaries shared by the tests of several layers."""

from __future__ import annotations

from course_lib import CompactionSummary

__all__ = ["empty_summary"]


def empty_summary() -> CompactionSummary:
    return CompactionSummary(
        goal="Nothing yet",
        constraints=[],
        completed=[],
        decisions=[],
        changed_files=[],
        unresolved=[],
        next=[],
    )
