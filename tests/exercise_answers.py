"""Right answers to the notebooks' exercises, shared by the English and Chinese tests."""

from __future__ import annotations

from course_lib import fixture_summary

__all__ = ["compact_2_wire"]


def compact_2_wire(**changes: object) -> dict:
    wire = {
        "id": "compact-2",
        "parentId": "a4",
        "timestamp": 200,
        "type": "compaction",
        "summary": fixture_summary().to_wire(),
        "firstKeptEntryId": "u3",
        "tokensBefore": 34,
    }
    return {**wire, **changes}
