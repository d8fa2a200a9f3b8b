"""01 — Lab 11.1: the compaction entry is an ordinary, strict session fact."""

from __future__ import annotations

from .cells import (
    Cell,
    answer,
    checks_cells,
    code,
    exercise_cells,
    fixture_cells,
    md,
    reveal,
    your_turn_cells,
)

CELLS: list[Cell] = [
    md(
        """
        # Lab 11.1 — The compaction entry is an ordinary, strict session fact

        **Chapter section:** 「摘要先成为 session 中的一条普通事实」

        **Goal.** When older messages no longer fit the model's window, the session
        keeps a structured summary of them. That summary is not an overwrite: it is a
        new entry, `compaction`, appended after the current leaf. In this lab it
        becomes a session fact like any other: one strict parser checks it and
        copies it, and both session stores write and reopen it without a line of
        compaction-specific code.

        **Builds on.** Chapter 3's messages and Chapter 10's session entries,
        `parse_session_entry` (the one boundary every entry crosses) and the two
        stores, `InMemorySessionStore` and `JsonlSessionStore`.

        **Checks.** `tests/test_lab_11_1.py` (3 checks).
        """
    ),
    code(
        """
        import tempfile
        from pathlib import Path

        import pandas as pd
        from IPython.display import display

        from course_lib import (
            InMemorySessionStore,
            JsonlSessionStore,
            chapter_fixture,
            fixture_estimator,
            fixture_summary,
            parse_session_entry,
        )
        from course_lib.track.checks import run_lab_checks
        from course_lib.track.exercises import check
        from course_lib.views import (
            checks_frame,
            entry_fields_frame,
            errors_frame,
            expected_failure,
            setup_notebook,
            styled_fixture_frame,
        )

        setup_notebook()
        """
    ),
    *fixture_cells(),
    md(
        """
        ## Step 1 — `compact-1` as it arrives from outside

        A compaction arrives as a wire dict (camelCase, as the course's JSONL
        uses). `compact-1` hangs after `a3` and says the kept part of the path
        starts at `u2`. The helper returns a fresh dict on every call, so each cell
        below starts from the same input.
        """
    ),
    code(
        """
        def compact_1_wire() -> dict:
            \"\"\"compact-1 as the chapter describes it, as a new wire dict on every call.\"\"\"
            return {
                "id": "compact-1",
                "parentId": "a3",
                "timestamp": 100,
                "type": "compaction",
                "summary": fixture_summary().to_wire(),
                "firstKeptEntryId": "u2",
                "tokensBefore": 29,
            }


        entry = parse_session_entry(compact_1_wire())
        entry_fields_frame(entry)
        """
    ),
    md(
        """
        Notice the seven summary fields: `goal` is a non-blank string, the other
        six are lists of strings. The parsed entry is a Python object with
        snake_case attributes:
        """
    ),
    code(
        """
        print(type(entry).__name__, entry.parent_id, entry.first_kept_entry_id, entry.tokens_before)
        print(list(type(entry.summary).model_fields))
        """
    ),
    md(
        """
        ## Step 2 — the parser returns a copy

        **Predict first.** We parse a wire dict, then append an item to the dict's
        `constraints` list, and an item to the parsed entry's `next` list. Does
        either change show up on the other side? Write down your answer, then open
        the folded output of the next cell (click the bar under it, or run it).
        """
    ),
    answer(
        """
        wire = compact_1_wire()
        parsed = parse_session_entry(wire)
        wire["summary"]["constraints"].append("added to the dict after parsing")
        parsed.summary.next.append("added to the parsed entry")

        pd.DataFrame(
            {
                "parsed entry": [parsed.summary.constraints, parsed.summary.next],
                "wire dict": [wire["summary"]["constraints"], wire["summary"]["next"]],
            },
            index=["summary constraints", "summary next"],
        )
        """
    ),
    reveal(
        """
        Neither side sees the other's change: the parser returns a new deep copy.
        A store keeps what the parser returned, so no caller can edit history by
        holding on to a reference.
        """
    ),
    md(
        """
        `tokensBefore` is recorded by the caller. The parser checks that it is a
        finite number >= 0 and never recomputes it:
        """
    ),
    code('parse_session_entry({**compact_1_wire(), "tokensBefore": 1000}).tokens_before'),
    md(
        """
        ## Step 3 — expected failure: the `files` alias

        An early draft of the course called `changedFiles` simply `files`. The
        parser refuses that shape at the boundary; the message names the entry id
        and both field paths. Nothing is written and no budget is ever computed
        from it.
        """
    ),
    code(
        """
        old_draft = compact_1_wire()
        old_draft["summary"]["files"] = old_draft["summary"].pop("changedFiles")
        expected_failure(lambda: parse_session_entry(old_draft))
        """
    ),
    md(
        """
        The same boundary refuses every other drift: unknown keys at any level,
        missing keys, numbers that are not finite (or not numbers), list items that
        are not strings, blank strings. One row per bad input; notice that each
        message starts with `session entry compact-1` and names the field path.
        """
    ),
    code(
        """
        def parsing(change):
            \"\"\"A call that parses compact-1 after ``change`` edited its wire dict.\"\"\"
            wire = compact_1_wire()
            change(wire)
            return lambda: parse_session_entry(wire)


        errors_frame(
            {
                "summary.nextSteps (old name)": parsing(lambda w: w["summary"].update(nextSteps=[])),
                "summary.invariants (old field)": parsing(
                    lambda w: w["summary"].update(invariants=[])
                ),
                "compactedEntryIds (old field)": parsing(
                    lambda w: w.update(compactedEntryIds=["u1"])
                ),
                "no constraints": parsing(lambda w: w["summary"].pop("constraints")),
                "no firstKeptEntryId": parsing(lambda w: w.pop("firstKeptEntryId")),
                "tokensBefore -1": parsing(lambda w: w.update(tokensBefore=-1)),
                "tokensBefore infinity": parsing(lambda w: w.update(tokensBefore=float("inf"))),
                "tokensBefore true": parsing(lambda w: w.update(tokensBefore=True)),
                'timestamp "100"': parsing(lambda w: w.update(timestamp="100")),
                'completed ["valid", 7]': parsing(
                    lambda w: w["summary"].update(completed=["valid", 7])
                ),
                'goal "   "': parsing(lambda w: w["summary"].update(goal="   ")),
                "parentId null": parsing(lambda w: w.update(parentId=None)),
            }
        )
        """
    ),
    *exercise_cells(
        "11.1-q1",
        """
        ### Exercise 11.1-q1 — which of these does the parser accept?

        Each candidate is `compact_1_wire()` with one change. Decide for each one
        whether `parse_session_entry` accepts it, without running the parser, and
        give the set of the letters it accepts (for example `{"A", "B"}`).

        | letter | the change |
        |---|---|
        | A | `tokensBefore` is `0` |
        | B | `tokensBefore` is `29.5` |
        | C | `summary.next` is `["ok", ""]` |
        | D | `parentId` is `null` (`None`) |
        | E | `timestamp` is `-5` |
        | F | `summary.changedFiles` is renamed `summary.files` |
        | G | `tokensBefore` is `"29"` |
        | H | an extra `compactedEntryIds: []` |
        """,
        "answer_q1 = ...",
    ),
    md(
        """
        ## Step 4 — both stores write and reopen `compact-1`

        Both stores append what `parse_session_entry` returns, so a compaction needs
        no store code of its own. We append the ten entries and `compact-1` to each
        store, then open the JSONL file again, as a restarted agent would.
        """
    ),
    code(
        """
        with tempfile.TemporaryDirectory() as folder:
            file = Path(folder) / "sessions" / "chapter11.jsonl"
            memory = InMemorySessionStore()
            jsonl = JsonlSessionStore.open(file)
            for store in (memory, jsonl):
                for item in [*chapter_fixture(), compact_1_wire()]:
                    store.append(item)
            reopened = JsonlSessionStore.open(file)
            lines = file.read_text(encoding="utf-8").splitlines()
            warnings = reopened.read().warnings

        print("entries in memory:", len(memory.entries()), "| lines in the file:", len(lines))
        print("reopened equals memory:", reopened.entries() == memory.entries())
        print("warnings:", warnings)
        print("last line:", lines[-1])
        """
    ),
    md(
        """
        The reopened session, `compact-1` included. A compaction belongs to no
        group. Notice the `group` column: with `compact-1` on the path, a budget
        (Lab 11.5) considers only the part from its first kept entry `u2` on, so
        the groups are numbered from there, and `u1, a1` are *summarised*: the
        summary stands in for them. Nothing was deleted.
        """
    ),
    code('styled_fixture_frame(reopened.entries(), estimate, uuid="reopened")'),
    md(
        """
        Appending is still guarded: a second `compact-1` is a duplicate id, and the
        old `files` alias is refused by the parser before the store sees it. After
        both failures the store holds the same eleven entries.
        """
    ),
    code(
        """
        display(
            errors_frame(
                {
                    "append compact-1 again": lambda: memory.append(compact_1_wire()),
                    "append the files alias": lambda: memory.append(old_draft),
                }
            )
        )
        print("entries in memory:", len(memory.entries()))
        """
    ),
    *exercise_cells(
        "11.1-q2",
        """
        ### Exercise 11.1-q2 — write a compaction yourself

        Write `compact-2` as a wire dict the parser accepts: it hangs after `a4`
        (the leaf once `u4, a4` follow `compact-1`), keeps the path from `u3` on,
        has timestamp 200 and `tokensBefore` 34, and a summary of your own with
        all seven fields (camelCase keys, as in `compact_1_wire()`). When the
        parser refuses it, the check shows the parser's message: it names the
        field to fix.
        """,
        "answer_q2 = ...",
    ),
    *your_turn_cells(
        "11.1",
        "the compaction branch of the parser: `_parse_compaction` in "
        "`practice/ch11/entries.py` (it turns a wire dict into a `CompactionEntry` and "
        "must refuse every bad input above)",
    ),
    *checks_cells("11.1"),
]
