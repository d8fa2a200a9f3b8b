"""00-start-here: what the workbook is, the lab map, and how checks and stored outputs work."""

from __future__ import annotations

from .cells import Cell, code, md

CELLS: list[Cell] = [
    md(
        """
        # Chapter 11 workbook: history stays, context is rebuilt to a budget

        *第 11 章：历史不动，上下文按预算重建*

        This workbook rebuilds Chapter 11 of the course that rebuilds the **pi**
        coding agent. A session is an append-only history; on every model call a
        bounded model input is *projected* from it:

        * messages are grouped into **interactions** that are kept or dropped whole,
          so no tool call ever loses its result (Lab 11.2);
        * a **budget** deducts fixed costs and keeps the newest groups that fit
          (Lab 11.3);
        * **compaction** appends a structured seven-field summary instead of deleting
          anything (Labs 11.1, 11.4), and the next projection starts from the newest
          summary (Lab 11.5).

        Every lab notebook works on the chapter's ten-entry fixture, so each number
        (7 / 7 / 15, 31 → 28 → 24 → 22) can be checked by hand; the last notebook
        runs the same functions on a real pi session. Every table is computed by
        `course_lib`, the tested reference implementation; nothing in an output is
        typed by hand.
        """
    ),
    code(
        """
        from course_lib.track.catalogue import LAB_CHECK_COUNTS
        from course_lib.views import lab_map_frame, setup_notebook

        setup_notebook()
        """
    ),
    md(
        """
        ## The lab map

        One notebook per lab, in the chapter's order. The chapter's own section
        titles (Chinese) are given so you can read the chapter alongside. The
        transfer exercise is optional in the chapter and has no numbered checks.
        After it, *Beyond the fixture* opens a real pi session
        (`data/pi-sessions/large-session.v1.jsonl`): importing it, its
        interactions, the budget under pi's defaults and under a smaller window,
        compaction, and two token estimators side by side. It goes beyond the
        chapter, so it has no section title and no numbered checks either.
        """
    ),
    code("lab_map_frame()"),
    md("The checks of all labs together are the chapter's acceptance test:"),
    code('print(f"{sum(LAB_CHECK_COUNTS.values())} checks in {len(LAB_CHECK_COUNTS)} labs")'),
    md(
        """
        ## Running one lab's checks

        From the repository root, any of these runs the checks of Lab 11.3
        (JupyterLab's *File → New → Terminal* opens there when you started it
        with `make lab`):

        ```bash
        .venv/bin/pytest -m lab_11_3
        .venv/bin/pytest tests/test_lab_11_3.py
        .venv/bin/course-lab check 11.3
        ```

        Each lab notebook ends by running its own checks with
        `run_lab_checks("11.3")` and shows them as a table, followed by the count
        line the course prints (`Lab 11.3: 3/3 passed`).

        ## Practising a lab

        `.venv/bin/course-lab practice 11` creates `practice/ch11`: the chapter's
        modules with each lab's code replaced by a `LabNotImplemented` error.
        Implement one lab at a time (JupyterLab's file browser shows `practice/`
        next to `notebooks/`) and check it with
        `.venv/bin/course-lab check 11.3 --impl practice/ch11`. Each lab notebook
        has a **Your turn** section that says which functions the lab asks for and
        runs the checks on your package when it exists. After
        `source .venv/bin/activate`, plain `course-lab` works too.

        ## How the stored outputs are meant to be used

        The notebooks are stored *executed*: every output you see is what the
        reference implementation produced. Read them first as the expected results.
        Then run a notebook yourself (`make lab` opens JupyterLab) and compare your
        run with the stored outputs; in cells marked **Predict first**, write your
        prediction down before you run the answer cell.

        `make test` re-runs every notebook from a fresh kernel and compares each
        output with the stored one (nbval). Only two kinds of cell are exempt: the
        cell that runs the checks on *your* practice package (its output depends on
        your code, it starts with `# NBVAL_IGNORE_OUTPUT`), and charts, whose
        pictures are not compared; the data each chart draws is always printed as a
        compared table next to it (summarised where a real session gives it hundreds
        of rows). The notebooks are generated from
        `notebook_tools/notebook_sources/` by `notebook_tools/build.py`, so a change to a lesson is made
        there and the notebooks rebuilt.
        """
    ),
]
