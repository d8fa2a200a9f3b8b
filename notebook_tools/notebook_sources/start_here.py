"""00-start-here: what the workbook is, the lab map, the chapter's names, how a notebook works."""

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
        (7 / 7 / 15, 31 → 28 → 24 → 22) can be checked by hand; *Beyond the
        fixture* runs the same functions on a real pi session. Every table is computed by
        `course_lib`, the tested reference implementation; nothing in an output is
        typed by hand.
        """
    ),
    code(
        """
        from course_lib.track.catalogue import LAB_CHECK_COUNTS
        from course_lib.views import lab_map_frame, setup_notebook
        from course_lib.views.lab_map import names_frame

        setup_notebook()
        """
    ),
    md(
        """
        ## The lab map

        One notebook per lab, in the chapter's order (Lab 11.5 takes two). The
        chapter's own section titles (Chinese) are given so you can read the
        chapter alongside. The transfer exercise is optional in the chapter and
        has no numbered checks. After it, *Beyond the fixture* opens a real pi
        session (`data/pi-sessions/large-session.v1.jsonl`); it goes beyond the
        chapter, so it has no section title and no numbered checks either. The
        recap closes the chapter: its summary, what the 15 checks fix, and a
        short questionnaire.
        """
    ),
    code("lab_map_frame()"),
    md("The checks of all labs together are the chapter's acceptance test:"),
    code('print(f"{sum(LAB_CHECK_COUNTS.values())} checks in {len(LAB_CHECK_COUNTS)} labs")'),
    md(
        """
        ## The chapter's names in Python

        The chapter's code is TypeScript; this workbook's is Python. Functions,
        parameters and fields keep their words and become snake_case; the JSONL
        files keep the chapter's camelCase keys (`firstKeptEntryId`), so a file
        reads the same in both courses. `in` says where each Python name lives.
        """
    ),
    code("names_frame()"),
    md(
        """
        ## How a lab notebook works

        Each lab notebook walks its part of the chapter in small steps on the
        ten-entry fixture, and asks you to think before it shows:

        * **Predict first** questions: the question comes first. The cell under it computes
          the answer, but its stored output is *folded*: JupyterLab shows a thin
          bar instead. Write your prediction down, then click the bar (or run the
          cell) to see the output; the explanation after it opens with
          *Show the answer*.
        * **Exercises.** A cell holds `answer_q1 = ...`: replace the `...` with
          your answer and run it, then run the check cell under it.
          `○` means not answered yet, `✓` correct, and `✗` comes with a hint
          about what to look at again (never the answer). The stored notebooks
          show `○`: they are stored unanswered.
        * **Expected failures.** Bad input is shown as a caught error with its
          message: the message names the entry or the number to look at.
        * **Your turn** (at the end of each lab): implement the lab in your
          practice package and run its checks from the notebook.
        """
    ),
    md(
        """
        ## Practising a lab

        In a terminal in the repository root (JupyterLab's *File → New →
        Terminal* opens there when you started it with `make lab`),
        `.venv/bin/course-lab practice 11` creates `practice/ch11`: the chapter's
        modules with each lab's code replaced by a `LabNotImplemented` error.
        Implement one lab at a time (JupyterLab's file browser shows `practice/`
        next to `notebooks/`) and check it:

        ```bash
        .venv/bin/course-lab check 11.3 --impl practice/ch11
        ```

        After `source .venv/bin/activate`, plain `course-lab` works too.
        """
    ),
    md(
        """
        ## Running one lab's checks

        Either of these runs the three checks of Lab 11.3 against the reference
        `course_lib`:

        ```bash
        .venv/bin/course-lab check 11.3
        .venv/bin/pytest tests/test_lab_11_3.py
        ```

        `.venv/bin/pytest -m lab_11_3` runs them too, together with the tests of
        the lab notebook's exercises. Each lab notebook ends by running its own
        checks with `run_lab_checks("11.3")` and shows them as a table, followed
        by the count line the course prints (`Lab 11.3: 3/3 passed`).
        """
    ),
    md(
        """
        ## How the stored outputs are checked

        The notebooks are stored *executed*: every output is what the reference
        implementation produced, so they are the expected results. Run a notebook
        yourself (*Run All*) and every output should come back the same.

        `make test` does exactly that: it re-runs every notebook in a fresh kernel
        and compares each output with the stored one (nbval), folded answers
        included. Two kinds of output are not compared: the cell that runs the
        checks on *your* practice package (it starts with
        `# NBVAL_IGNORE_OUTPUT`), and charts, whose data is always printed as a
        compared table next to them.

        The notebooks are generated from `notebook_tools/notebook_sources/` by
        `notebook_tools/build.py`: a change to a lesson is made there, and the
        notebooks are rebuilt with `make notebooks`.
        """
    ),
]
