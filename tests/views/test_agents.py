"""Notebook 09's tables: three agents' samples, every figure the importers' or ``build_context``'s.

Each frame is checked against a second computation written here (the
chapter's functions called directly, or a plain sum of message costs), and
on the samples' own figures, so a frame that drifted from the rules or from
the files would fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from course_lib import build_context, chars_estimator, import_session
from course_lib.base.wire import MAX_SAFE_INTEGER
from course_lib.beyond.importers import DetectedImport, import_codex_text
from course_lib.chapter.groups import group_interactions
from course_lib.chapter.models import CompactionEntry, MessageEntry
from course_lib.chapter.sessions import path_to
from course_lib.views import (
    FILLED,
    NO_VALUE,
    SUMMARY_FIELD_NAMES,
    agent_compactions_frame,
    agent_overview_frame,
    agent_usage_frame,
    compaction_groups,
    injected_context_frame,
    note_kinds_frame,
    summary_fields_frame,
    usage_summary_frame,
)

DATA = Path(__file__).resolve().parents[2] / "data"
SAMPLES = [
    DATA / "pi-sessions" / "large-session.v1.jsonl",
    DATA / "claude-code-sessions" / "sample-session.jsonl",
    DATA / "codex-sessions" / "sample-rollout.jsonl",
]
CHARS = chars_estimator()
BUDGET = {"max_tokens": 50_000, "reserved_output": 16_384, "estimate_tokens": CHARS}
"""Notebook 09's budget: notebook 07's 50,000-token window with pi's reserved output."""


@pytest.fixture(scope="module")
def imports() -> dict[str, DetectedImport]:
    return {path.name: import_session(path) for path in SAMPLES}


def _messages(imported: DetectedImport) -> list[MessageEntry]:
    return [entry for entry in imported.active_path() if isinstance(entry, MessageEntry)]


def test_the_seven_fields_are_the_summarys_wire_names() -> None:
    assert SUMMARY_FIELD_NAMES == (
        "goal",
        "constraints",
        "completed",
        "decisions",
        "changedFiles",
        "unresolved",
        "next",
    )


def test_the_overview_holds_each_file_to_one_budget(imports: dict[str, DetectedImport]) -> None:
    frame = agent_overview_frame(imports, **BUDGET)
    assert list(frame["agent"]) == ["pi", "Claude Code", "Codex CLI"]
    assert list(frame["file"]) == list(imports)
    for row, imported in zip(frame.to_dict("records"), imports.values(), strict=True):
        path = imported.active_path()
        result = build_context(path, **BUDGET)
        assert (row["entries"], row["active path"]) == (len(imported.entries), len(path))
        assert row["interactions"] == len(group_interactions(_messages(imported)))
        assert (row["notes"], row["compactions"]) == (
            len(imported.notes),
            len(imported.compactions),
        )
        kept = result.kept_entry_ids
        assert (row["first kept"], row["last kept"], row["entries kept"]) == (
            kept[0],
            kept[-1],
            len(kept),
        )
        assert row["reason"] == result.reason
    pi, claude, codex = frame.to_dict("records")
    assert (pi["reason"], pi["first kept"], pi["groups kept"]) == ("trimmed", "L0703", 34)
    # The two agents' samples fit: their kept range starts where their newest compaction keeps.
    for row, imported in (
        (claude, imports["sample-session.jsonl"]),
        (codex, imports["sample-rollout.jsonl"]),
    ):
        newest = [e for e in imported.active_path() if isinstance(e, CompactionEntry)][-1]
        assert (row["reason"], row["first kept"]) == ("within_budget", newest.first_kept_entry_id)
    assert (claude["interactions"], codex["interactions"]) == (9, 8)


def test_note_kinds_count_every_note_once_warnings_first_then_most_frequent(
    imports: dict[str, DetectedImport],
) -> None:
    frame = note_kinds_frame(imports)
    assert list(frame.columns) == ["severity", "kind", "pi", "Claude Code", "Codex CLI"]
    for column, imported in zip(frame.columns[2:], imports.values(), strict=True):
        assert frame[column].sum() == len(imported.notes)
        listed = dict(zip(frame["kind"], frame[column], strict=True))
        assert {kind: n for kind, n in listed.items() if n} == imported.note_counts()
    severity = {note.kind: note.severity for i in imports.values() for note in i.notes}
    assert list(frame["severity"]) == [severity[kind] for kind in frame["kind"]]
    warnings = int((frame["severity"] == "warning").sum())
    assert warnings > 0 and list(frame["severity"]) == ["warning"] * warnings + ["info"] * (
        len(frame) - warnings
    )
    totals = frame.drop(columns=["severity", "kind"]).sum(axis=1)
    for part in (totals[:warnings], totals[warnings:]):
        assert list(part) == sorted(part, reverse=True)
    assert frame["kind"].is_unique


def test_two_files_of_one_agent_get_a_column_each(imports: dict[str, DetectedImport]) -> None:
    codex = imports["sample-rollout.jsonl"]
    frame = note_kinds_frame({"a.jsonl": codex, "b.jsonl": codex})
    assert list(frame.columns) == ["severity", "kind", "Codex CLI: a.jsonl", "Codex CLI: b.jsonl"]
    assert (frame["Codex CLI: a.jsonl"] == frame["Codex CLI: b.jsonl"]).all()


def test_each_compaction_sits_beside_the_chapters_projection_of_the_same_history(
    imports: dict[str, DetectedImport],
) -> None:
    frame = agent_compactions_frame(imports, **BUDGET)
    expected = [(i.label, c) for i in imports.values() for c in i.compactions]
    assert len(frame) == len(expected) == 4  # pi never compacted; two for each agent
    for row, (label, compaction) in zip(frame.to_dict("records"), expected, strict=True):
        imported = next(i for i in imports.values() if i.label == label)
        assert (row["agent"], row["compaction"], row["line"]) == (
            label,
            compaction.entry_id,
            compaction.line,
        )
        assert row["after entry"] == compaction.after_entry_id
        assert row["first kept"] == compaction.first_kept_entry_id
        assert row["agent kept"] == len(compaction.agent_kept)
        assert row["tokens before (agent)"] == compaction.tokens_before
        assert compaction.after_entry_id is not None
        before = path_to(imported.entries, compaction.after_entry_id)
        result = build_context(before, **BUDGET)
        assert row["build_context first kept"] == result.kept_entry_ids[0]
        assert row["build_context reason"] == result.reason
        unbounded = build_context(before, max_tokens=MAX_SAFE_INTEGER, estimate_tokens=CHARS)
        assert row["tokens before (chapter)"] == unbounded.tokens.messages
    assert list(frame["trigger"]) == ["manual", "manual", NO_VALUE, NO_VALUE]
    assert list(frame["agent kept"]) == [0, 0, 2, 0]  # Codex kept two user messages once


def test_no_compaction_gives_an_empty_frame_with_its_columns(
    imports: dict[str, DetectedImport],
) -> None:
    frame = agent_compactions_frame({"pi": imports["large-session.v1.jsonl"]}, **BUDGET)
    assert frame.empty and "build_context reason" in frame.columns


def test_summary_fields_mark_exactly_what_each_summary_filled(
    imports: dict[str, DetectedImport],
) -> None:
    frame = summary_fields_frame(imports)
    compactions = [c for i in imports.values() for c in i.compactions]
    assert len(frame) == len(compactions)
    for row, compaction in zip(frame.to_dict("records"), compactions, strict=True):
        marked = {name for name in SUMMARY_FIELD_NAMES if row[name] == FILLED}
        assert marked == set(compaction.fields_filled)
        assert all(row[name] in (FILLED, NO_VALUE) for name in SUMMARY_FIELD_NAMES)
        assert row["filled"] == len(marked)
        assert row["unmapped items"] == compaction.unmapped_items
    assert (frame["constraints"] == NO_VALUE).all()  # no sample summary names a constraint
    assert list(frame["filled"]) == [6, 4, 6, 1]


def test_usage_sets_the_largest_counted_call_beside_build_contexts_estimate(
    imports: dict[str, DetectedImport],
) -> None:
    for imported in imports.values():
        frame = agent_usage_frame(imported, CHARS)
        path = imported.active_path()
        groups = group_interactions(_messages(imported))
        for row in frame.to_dict("records"):
            group = groups[row["group"] - 1]
            assert row["first id"] == group.entry_ids[0]
            counted = [imported.usage[i] for i in group.entry_ids if i in imported.usage]
            counted = [call for call in counted if call.prompt > 0]
            assert row["calls counted"] == len(counted)
            assert row["prompt (agent)"] == max(call.prompt for call in counted)
            assert imported.usage[row["largest call"]].prompt == row["prompt (agent)"]
            index = [entry.id for entry in path].index(row["largest call"])
            unbounded = build_context(
                path[:index], max_tokens=MAX_SAFE_INTEGER, estimate_tokens=CHARS
            )
            assert row["context (chapter)"] == unbounded.tokens.messages
            assert row["difference"] == row["prompt (agent)"] - row["context (chapter)"]
        uncounted = set(range(1, len(groups) + 1)) - set(frame["group"])
        for number in uncounted:  # left out only when no call of the group has counts
            ids = groups[number - 1].entry_ids
            assert not any(imported.usage[i].prompt > 0 for i in ids if i in imported.usage)


def test_without_a_compaction_the_context_is_the_plain_sum_of_what_came_before(
    imports: dict[str, DetectedImport],
) -> None:
    pi = imports["large-session.v1.jsonl"]
    path = pi.active_path()
    costs = {e.id: CHARS(e.message) for e in path if isinstance(e, MessageEntry)}
    order = [entry.id for entry in path]
    frame = agent_usage_frame(pi, CHARS)
    assert len(frame) == 79  # of 88 interactions, those with counted calls
    for call, context in zip(frame["largest call"], frame["context (chapter)"], strict=True):
        before = order[: order.index(call)]
        assert context == sum(costs.get(entry_id, 0) for entry_id in before)


def test_usage_summary_reads_the_first_and_last_rows(imports: dict[str, DetectedImport]) -> None:
    usage = {i.label: agent_usage_frame(i, CHARS) for i in imports.values()}
    frame = usage_summary_frame(usage)
    assert list(frame["agent"]) == list(usage)
    for row, rows in zip(frame.to_dict("records"), usage.values(), strict=True):
        assert row["interactions counted"] == len(rows)
        assert row["first: prompt (agent)"] == rows["prompt (agent)"].iloc[0]
        assert row["first: context (chapter)"] == rows["context (chapter)"].iloc[0]
        assert row["last: prompt (agent)"] == rows["prompt (agent)"].iloc[-1]
        assert row["last: context (chapter)"] == rows["context (chapter)"].iloc[-1]
        assert row["largest prompt (agent)"] == rows["prompt (agent)"].max()


def test_compaction_groups_name_the_last_interaction_before_each_compaction(
    imports: dict[str, DetectedImport],
) -> None:
    found = {name: compaction_groups(imported) for name, imported in imports.items()}
    assert found == {
        "large-session.v1.jsonl": [],
        "sample-session.jsonl": [4, 8],
        "sample-rollout.jsonl": [5, 7],
    }
    for name, numbers in found.items():
        imported = imports[name]
        groups = group_interactions(_messages(imported))
        for number, compaction in zip(numbers, imported.compactions, strict=True):
            assert compaction.after_entry_id in groups[number - 1].entry_ids


def test_every_frame_is_a_plain_dataframe_with_numbered_rows(
    imports: dict[str, DetectedImport],
) -> None:
    """setup_notebook draws them with table_html, which hides a 0..n index."""
    frames = [
        agent_overview_frame(imports, **BUDGET),
        note_kinds_frame(imports),
        agent_compactions_frame(imports, **BUDGET),
        summary_fields_frame(imports),
        agent_usage_frame(imports["sample-rollout.jsonl"], CHARS),
    ]
    for frame in frames:
        assert isinstance(frame, pd.DataFrame)
        assert list(frame.index) == list(range(len(frame)))


def test_an_agent_without_counts_gets_a_row_of_missing_figures(
    imports: dict[str, DetectedImport],
) -> None:
    counted = agent_usage_frame(imports["sample-rollout.jsonl"], CHARS)
    frame = usage_summary_frame({"Codex CLI": counted, "nothing counted": counted.iloc[0:0]})
    assert list(frame["interactions counted"]) == [len(counted), 0]
    figures = frame.columns[2:]
    assert all(str(frame[column].dtype) == "Int64" for column in figures)  # never 3500.0
    assert frame.loc[1, figures].isna().all() and frame.loc[0, figures].notna().all()


# --- context the agent injected ---------------------------------------------------------------


def _codex_line(second: int, kind: str, **payload: object) -> str:
    return json.dumps({"timestamp": f"2026-03-02T10:00:{second:02d}.000Z", "type": kind,
                       "payload": payload})  # fmt: skip


def _user(second: int, text: str) -> str:
    return _codex_line(second, "response_item", type="message", role="user",
                       content=[{"type": "input_text", "text": text}])  # fmt: skip


INJECTED = {
    "user_instructions": "<user_instructions>\nKeep answers short.\n</user_instructions>",
    "environment_context": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
    "AGENTS.md": "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nRun pytest.\n</INSTRUCTIONS>",
}


def _codex_with_injected_context() -> DetectedImport:
    """A small Codex file: the three kinds of injected context, then one interaction."""
    lines = [
        _codex_line(0, "session_meta", id="s-1", cwd="/w"),
        *(_user(second, text) for second, text in enumerate(INJECTED.values(), start=1)),
        _codex_line(4, "turn_context", model="m", cwd="/w"),
        _user(5, "Fix the failing test."),
        _codex_line(6, "response_item", type="message", role="assistant",
                    content=[{"type": "output_text", "text": "Fixed."}]),
        _codex_line(7, "event_msg", type="token_count", info={"last_token_usage": {
            "input_tokens": 900, "cached_input_tokens": 0, "output_tokens": 5,
            "total_tokens": 905}}),
    ]  # fmt: skip
    return DetectedImport("codex", import_codex_text("\n".join(lines) + "\n"))


def test_injected_context_lists_each_entry_the_importer_marked() -> None:
    imported = _codex_with_injected_context()
    frame = injected_context_frame(imported, CHARS)
    assert list(frame.columns) == ["entry id", "line", "kind of context", "tokens"]
    by_id = {entry.id: entry for entry in imported.entries}
    marked = [note for note in imported.notes if note.kind == "injected_context"]
    assert [(row["entry id"], row["line"]) for row in frame.to_dict("records")] == [
        (note.entry_id, note.line) for note in marked
    ]
    assert list(frame["line"]) == [2, 3, 4]  # the three injected messages, by their lines
    assert list(frame["kind of context"]) == list(INJECTED)
    for row in frame.to_dict("records"):
        entry = by_id[row["entry id"]]
        assert isinstance(entry, MessageEntry) and entry.message.role == "user"
        assert row["tokens"] == CHARS(entry.message) > 0
    # each stays a user message: the chapter groups it as an interaction of its own
    groups = group_interactions(_messages(imported))
    assert [group.entry_ids[0] for group in groups[:3]] == list(frame["entry id"])
    # the user's own prompt is no injected context
    assert "L0006" not in set(frame["entry id"]) and by_id["L0006"].type == "message"


def test_injected_context_is_an_empty_frame_for_an_import_without_it(
    imports: dict[str, DetectedImport],
) -> None:
    frame = injected_context_frame(imports["sample-session.jsonl"], CHARS)
    assert frame.empty and list(frame.columns) == ["entry id", "line", "kind of context", "tokens"]


def test_the_codex_sample_s_injected_context_is_out_of_the_kept_range(
    imports: dict[str, DetectedImport],
) -> None:
    """Notebook 09 says so: both injected messages come before the sample's compactions."""
    codex = imports["sample-rollout.jsonl"]
    frame = injected_context_frame(codex, CHARS)
    assert list(frame["kind of context"]) == ["user_instructions", "environment_context"]
    path = [entry.id for entry in codex.active_path()]
    first_compaction = min(path.index(c.entry_id) for c in codex.compactions)
    assert all(path.index(entry_id) < first_compaction for entry_id in frame["entry id"])
    kept = build_context(codex.active_path(), **BUDGET).kept_entry_ids
    assert not set(frame["entry id"]) & set(kept)
