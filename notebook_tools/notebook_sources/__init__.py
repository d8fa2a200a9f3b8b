"""The workbook's notebooks as Python data: file name -> cells, in the order students read them."""

from __future__ import annotations

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
    transfer,
)
from .cells import Cell

NOTEBOOKS: dict[str, list[Cell]] = {
    "00-start-here.ipynb": start_here.CELLS,
    "01-lab-11.1-compaction-entry.ipynb": lab_11_1.CELLS,
    "02-lab-11.2-interaction-groups.ipynb": lab_11_2.CELLS,
    "03-lab-11.3-budget-projection.ipynb": lab_11_3.CELLS,
    "04-lab-11.4-create-compaction.ipynb": lab_11_4.CELLS,
    "05a-lab-11.5-restoring.ipynb": lab_11_5_restoring.CELLS,
    "05b-lab-11.5-compacting-again.ipynb": lab_11_5_compacting.CELLS,
    "06-transfer-budget-ledger.ipynb": transfer.CELLS,
    "07-beyond-the-fixture-real-session.ipynb": real_session.CELLS,
    "08-recap.ipynb": recap.CELLS,
}
