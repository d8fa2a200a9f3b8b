"""The workbook's notebooks as Python data: file name -> cells, in the order students read them.

Each notebook is built in two editions from the same cells (``cells.edition``):
English in ``notebooks/``, Chinese in ``notebooks/zh/``. A source whose module
says ``TRANSLATED = True`` has every Chinese text and is built in Chinese
(``CHINESE``); every source does, and ``tests/notebooks/test_notebook_editions.py`` keeps it so.
"""

from __future__ import annotations

from types import ModuleType

from . import (
    lab_11_1,
    lab_11_2,
    lab_11_3,
    lab_11_4,
    lab_11_5_compacting,
    lab_11_5_restoring,
    real_session,
    recap,
    start_here,
    three_agents,
    transfer,
)
from .cells import Cell

SOURCES: dict[str, ModuleType] = {
    "00-start-here.ipynb": start_here,
    "01-lab-11.1-compaction-entry.ipynb": lab_11_1,
    "02-lab-11.2-interaction-groups.ipynb": lab_11_2,
    "03-lab-11.3-budget-projection.ipynb": lab_11_3,
    "04-lab-11.4-create-compaction.ipynb": lab_11_4,
    "05a-lab-11.5-restoring.ipynb": lab_11_5_restoring,
    "05b-lab-11.5-compacting-again.ipynb": lab_11_5_compacting,
    "06-transfer-budget-ledger.ipynb": transfer,
    "07-beyond-the-fixture-real-session.ipynb": real_session,
    "08-recap.ipynb": recap,
    "09-three-agents-one-chapter.ipynb": three_agents,
}
"""Each notebook's source module, in reading order."""

CHINESE: frozenset[str] = frozenset(
    name for name, module in SOURCES.items() if getattr(module, "TRANSLATED", False)
)
"""The notebooks whose source is translated, so they have a Chinese edition."""


def source_file(name: str) -> str:
    """Where a notebook's cells are written, as a path from the repository root."""
    return f"notebook_tools/notebook_sources/{SOURCES[name].__name__.rsplit('.', 1)[-1]}.py"


NOTEBOOKS: dict[str, list[Cell]] = {
    name: start_here.cells(list(SOURCES), CHINESE) if module is start_here else module.CELLS
    for name, module in SOURCES.items()
}
