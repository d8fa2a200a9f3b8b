"""The lab catalogue as data: each lab's topic, its number of checks, and where it lives.

The track (starters, checks, grading) and the views (the lab map) both read
this one table, so a lab is named the same way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LAB_CHECK_COUNTS", "LAB_MAP", "LAB_TOPICS", "LabMapRow"]

LAB_TOPICS: dict[str, str] = {
    "11.1": "compaction entry",
    "11.2": "interaction groups",
    "11.3": "budget projection",
    "11.4": "create compaction",
    "11.5": "resume compaction",
}
"""Each lab of Chapter 11 and the part of the chapter it builds."""

LAB_CHECK_COUNTS: dict[str, int] = {"11.1": 3, "11.2": 3, "11.3": 3, "11.4": 2, "11.5": 4}
"""How many checks the course gives each lab (15 in all)."""


@dataclass(frozen=True)
class LabMapRow:
    """Where one lab lives: its notebook, its checks and the module it builds.

    ``topic`` names a notebook that is not a numbered lab; a lab's topic is
    ``LAB_TOPICS[lab]``.
    """

    lab: str
    chapter_section: str
    notebook: str
    checks: str
    modules: str
    topic: str = ""


LAB_MAP: tuple[LabMapRow, ...] = (
    LabMapRow(
        "11.1",
        "摘要先成为 session 中的一条普通事实",
        "notebooks/01-lab-11.1-compaction-entry.ipynb",
        "tests/test_lab_11_1.py",
        "entries.py, stores.py",
    ),
    LabMapRow(
        "11.2",
        "两个 tool result 仍属于 u3 开始的同一组",
        "notebooks/02-lab-11.2-interaction-groups.ipynb",
        "tests/test_lab_11_2.py",
        "groups.py",
    ),
    LabMapRow(
        "11.3",
        "31 个 token 怎样留下第二、三组",
        "notebooks/03-lab-11.3-budget-projection.ipynb",
        "tests/test_lab_11_3.py",
        "budget.py",
    ),
    LabMapRow(
        "11.4",
        "compact-1 记录摘要与保留起点",
        "notebooks/04-lab-11.4-create-compaction.ipynb",
        "tests/test_lab_11_4.py",
        "compaction.py",
    ),
    LabMapRow(
        "11.5",
        "恢复时把最新摘要接在保留后缀前面 / system 状态跨过 compaction 边界",
        "notebooks/05-lab-11.5-resume-compaction.ipynb",
        "tests/test_lab_11_5.py",
        "budget.py, summary.py",
    ),
    LabMapRow(
        "transfer",
        "可选迁移练习",
        "notebooks/06-transfer-budget-ledger.ipynb",
        "tests/test_ledger.py",
        "ledger.py",
        topic="budget ledger",
    ),
    LabMapRow(
        "real session",
        "—",
        "notebooks/07-beyond-the-fixture-real-session.ipynb",
        "tests/test_import_pi.py",
        "importers/pi.py, estimators.py, tools/inspect_session.py",
        topic="a real pi session",
    ),
)
"""Every notebook after ``00-start-here``, in the order students read them.

The transfer exercise is not a numbered lab, and the real session goes beyond
the chapter (it has no section of its own), so neither has a count of checks.
"""
