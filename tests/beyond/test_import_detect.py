"""Which agent wrote a file: ``import_session`` and ``course-lab inspect`` on all three formats.

Also keeps the agent samples in data/ honest: they must be exactly what
``agent_samples.py`` and ``detect_shapes.py`` write, so nobody's hand edit
drifts from the documented shapes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import detect_shapes
import pytest
from agent_samples import CLAUDE_CODE_SAMPLE, CODEX_SAMPLE, sample_texts
from hypothesis import given, settings
from hypothesis import strategies as st
from runners import Runner

from course_lib import (
    AgentImportResult,
    AssistantMessage,
    CompactionEntry,
    CourseError,
    ImportNote,
    ImportResult,
    JsonlSessionStore,
    MessageEntry,
    build_context,
    chapter_fixture,
    import_claude_code_session,
    import_codex_session,
    import_pi_session,
    import_session,
)
from course_lib.beyond.estimators import chars_estimator
from course_lib.beyond.importers import (
    SESSION_FORMATS,
    AgentImportError,
    detect_format,
    import_session_bytes,
)
from course_lib.beyond.importers.detect import (
    SCAN_BYTES,
    SCAN_RECORDS,
    RecognisedFormat,
    recognise_format,
)

ROOT = Path(__file__).resolve().parents[2]
PI_SAMPLE = ROOT / "data" / "pi-sessions" / "large-session.v1.jsonl"
PI_V3 = ROOT / "tests" / "data" / "pi" / "v3-tree.jsonl"
SAMPLES = {"pi": PI_SAMPLE, "claude-code": CLAUDE_CODE_SAMPLE, "codex": CODEX_SAMPLE}
LABELS = {"pi": "pi", "claude-code": "Claude Code", "codex": "Codex CLI"}


def test_the_committed_samples_are_what_the_generator_writes() -> None:
    for path, text in sample_texts().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.name} drifted: run `python tests/beyond/agent_samples.py`"
        )
    assert sample_texts() == sample_texts()  # deterministic


def test_the_committed_detection_samples_are_what_their_generator_writes() -> None:
    texts = detect_shapes.sample_texts()
    assert len(texts) == len(detect_shapes.FIRST_RECORDS) == 8
    for path, text in texts.items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.name} drifted: run `python tests/beyond/detect_shapes.py`"
        )
    assert detect_shapes.sample_texts() == texts  # deterministic


@pytest.mark.parametrize("kind", SESSION_FORMATS)
def test_import_session_recognises_each_format(kind: str) -> None:
    detected = import_session(SAMPLES[kind])
    assert (detected.format, detected.label) == (kind, LABELS[kind])
    expected = {
        "pi": import_pi_session,
        "claude-code": import_claude_code_session,
        "codex": import_codex_session,
    }[kind](SAMPLES[kind])
    assert detected.entries == expected.entries
    assert (detected.leaf_id, detected.notes) == (expected.leaf_id, expected.notes)
    assert detected.active_path() == expected.active_path()
    assert isinstance(detected.result, ImportResult if kind == "pi" else AgentImportResult)
    assert sum(detected.note_counts().values()) == len(detected.notes)


@pytest.mark.parametrize(
    ("first", "kind"),
    [
        ({"type": "session", "id": "s", "timestamp": "t", "cwd": "/w"}, "pi"),
        ({"type": "summary", "summary": "title", "leafUuid": "u"}, "claude-code"),
        ({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}}, "claude-code"),
        ({"type": "user", "uuid": "u", "message": {}}, "claude-code"),
        ({"type": "custom-title", "customTitle": "t", "sessionId": "s"}, "claude-code"),
        ({"type": "some-future-record", "uuid": "u", "parentUuid": None}, "claude-code"),  # linked
        ({"timestamp": "t", "type": "session_meta", "payload": {}}, "codex"),
        ({"timestamp": "t", "type": "response_item", "payload": {"type": "message"}}, "codex"),
        ({"id": "r", "timestamp": "t", "instructions": None}, "codex"),  # the legacy layout
        ({"type": "user", "message": {}}, None),  # no uuid, no session id: not enough to tell
        ({"type": "permission-mode", "permissionMode": "default"}, None),  # no id of any kind
        ({"type": "message", "id": "u1"}, None),
        ([1, 2], None),
        (None, None),
    ],
)
def test_detect_format_looks_at_one_record(first: object, kind: str | None) -> None:
    assert detect_format(first) == kind


# --- recognising a file: its first records, within bounds -----------------------------------


def _first_marked_line(path: Path) -> int:
    """The first line whose record carries one of Claude Code's ids (computed from the file)."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        record = json.loads(line)
        if any(key in record for key in ("uuid", "sessionId", "leafUuid", "messageId")):
            return number
    raise AssertionError(f"{path.name} has no Claude Code record")


@pytest.mark.parametrize("kind", list(detect_shapes.FIRST_RECORDS))
def test_a_claude_code_file_is_recognised_whatever_record_opens_it(kind: str) -> None:
    path = detect_shapes.path_of(kind)
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["type"] == kind
    found = recognise_format(path.read_bytes())
    assert found == RecognisedFormat("claude-code", _first_marked_line(path))
    detected = import_session(path)
    expected = import_claude_code_session(path)
    assert detected.format == "claude-code"
    assert (detected.entries, detected.leaf_id, detected.notes) == (
        expected.entries,
        expected.leaf_id,
        expected.notes,
    )
    assert detected.result == expected
    user = next(e for e in detected.active_path() if isinstance(e, MessageEntry))
    assert user.message.role == "user" and user.message.content[0].text.startswith("Add a --name")


def test_records_without_a_mark_are_passed_over_the_first_marked_one_decides() -> None:
    passed = [{"type": "mode", "mode": "plan"}, {"type": "permission-mode"}, {"type": "x"}]
    codex = {"timestamp": "t", "type": "session_meta", "payload": {}}
    data = "".join(json.dumps(r) + "\n\n" for r in [*passed, codex]).encode()
    assert recognise_format(data) == RecognisedFormat("codex", 7)  # blank lines counted
    header = {"type": "session", "id": "s", "timestamp": "t"}
    later_header = "".join(json.dumps(r) + "\n" for r in [*passed, header]).encode()
    with pytest.raises(AgentImportError, match=r"none of its first 4 records \(lines 1-4\)"):
        recognise_format(later_header)  # pi's header counts only as the first record


def test_the_reading_stops_at_its_bounds() -> None:
    unmarked = json.dumps({"type": "mode", "mode": "plan"}) + "\n"
    user = json.dumps({"type": "user", "uuid": "u", "parentUuid": None}) + "\n"
    within = (unmarked * (SCAN_RECORDS - 1) + user).encode()
    assert recognise_format(within) == RecognisedFormat("claude-code", SCAN_RECORDS)
    beyond = (unmarked * SCAN_RECORDS + user).encode()
    with pytest.raises(AgentImportError, match=rf"none of its first {SCAN_RECORDS} records"):
        recognise_format(beyond)
    padding = " " * (SCAN_BYTES // 2)  # two long unmarked lines take the byte bound
    long_line = json.dumps({"type": "mode", "note": padding}) + "\n"
    with pytest.raises(AgentImportError, match=r"none of its first 2 records \(lines 1-2\)"):
        recognise_format((long_line * 2 + user).encode())


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", r"^the file: no committed line"),
        (b'{"type":"user"}', r"^the file: no committed line"),  # never committed
        (b"\n  \nnot json\n", r"^the file: line 3 is not valid JSON \(Expecting value: line 1 column 1 \(char 0\)\); expected a pi, Claude Code or Codex CLI session$"),
        (b'{"a":1,"a":2}\n', r"^the file: line 1 is not valid JSON \(duplicate key 'a' in one JSON object\)"),
        (b"\xff\xfe\n", r"^the file: line 1 is not valid UTF-8$"),
        (b"[1]\n", r"^the file: line 1 is a JSON list, not an object; expected a pi, Claude Code or Codex CLI session$"),
        (b'{"type":"mode"}\n7\n', r"^the file: line 2 is a JSON int, not an object"),
        (b'{"type":"chat","text":"hi"}\n', r"^the file is not a pi, Claude Code or Codex CLI session: its first record \(line 1, type 'chat'\) belongs to none of them$"),
        (b'{"id":"x"}\n', r"^the file is not a pi, Claude Code or Codex CLI session: its first record \(line 1, no type\)"),
    ],
)  # fmt: skip
def test_anything_else_is_a_clear_error(data: bytes, message: str) -> None:
    with pytest.raises(AgentImportError, match=message) as refused:
        import_session_bytes(data)
    numbers = [int(n) for n in re.findall(r"line (\d+)", str(refused.value))[:1]]
    assert refused.value.line == (numbers[0] if numbers else None)


def test_a_first_line_over_a_limit_says_which_limit() -> None:
    data = detect_shapes.too_deep_first_line(70)
    with pytest.raises(AgentImportError) as refused:
        import_session_bytes(data, name="deep.jsonl")
    assert str(refused.value) == (
        "deep.jsonl: the JSON reader refuses line 1: nested 70 levels deep (the limit is 64)"
    )
    assert refused.value.line == 1
    shallow = detect_shapes.too_deep_first_line(60)  # the same file within the limit imports
    assert import_session_bytes(shallow).format == "claude-code"


def test_a_file_of_no_agent_names_the_three_formats_in_one_sentence() -> None:
    with pytest.raises(AgentImportError) as refused:
        import_session_bytes(detect_shapes.no_agent_records(), name="chat.jsonl")
    assert str(refused.value) == (
        "chat.jsonl is not a pi, Claude Code or Codex CLI session: none of its first 3 records "
        "(lines 1-3) belongs to one of them; line 1 has type 'conversation'"
    )


FIRST_LINES = [
    PI_SAMPLE.read_text(encoding="utf-8").splitlines()[0],
    CLAUDE_CODE_SAMPLE.read_text(encoding="utf-8").splitlines()[2],
    CODEX_SAMPLE.read_text(encoding="utf-8").splitlines()[0],
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(FIRST_LINES) | st.text(max_size=30), max_size=4).map(
        lambda lines: "".join(line.replace("\n", " ") + "\n" for line in lines).encode()
    )
    | st.binary(max_size=120)
)
def test_any_bytes_give_an_import_or_a_course_error(data: bytes) -> None:
    try:
        detected = import_session_bytes(data)
    except CourseError:
        return
    assert detected.format in SESSION_FORMATS and detected.leaf_id in {
        e.id for e in detected.entries
    }


def test_a_course_file_is_named_as_one(tmp_path: Path) -> None:
    store = JsonlSessionStore.open(tmp_path / "course.jsonl")
    for entry in chapter_fixture():
        store.append(entry)
    assert recognise_format(store.path.read_bytes()) == RecognisedFormat("course", 1)
    with pytest.raises(
        AgentImportError,
        match=r"^course.jsonl is a course session file \(line 1 is a course entry\); .* needs no import$",
    ):
        import_session(store.path)  # fmt: skip
    with pytest.raises(AgentImportError, match=r"^cannot read missing\.jsonl"):
        import_session(tmp_path / "missing.jsonl")


def test_a_bad_pi_file_is_reported_as_the_same_kind_of_error() -> None:
    data = b'{"type":"session","version":9,"id":"s","timestamp":"2026-01-01T00:00:00Z"}\n'
    with pytest.raises(AgentImportError, match=r"^line 1: unsupported pi session version 9"):
        import_session_bytes(data)


def test_usage_and_compactions_are_asked_the_same_way_of_every_format() -> None:
    pi = import_session(PI_SAMPLE)
    assistants = [e for e in pi.entries if isinstance(e, MessageEntry)
                  and isinstance(e.message, AssistantMessage)]  # fmt: skip
    assert len(pi.usage) == len(assistants) == 453 and pi.compactions == []
    newest = pi.usage[assistants[-1].id]
    counts = assistants[-1].message.usage
    assert (newest.line, newest.output) == (int(assistants[-1].id[1:]), counts.output)
    assert newest.prompt == counts.total_tokens - counts.output
    tree = import_session(PI_V3)  # a v3 tree with one compaction
    [compaction] = tree.compactions
    entry = {e.id: e for e in tree.entries}[compaction.entry_id]
    assert isinstance(entry, CompactionEntry) and compaction.line is None
    assert (compaction.after_entry_id, compaction.first_kept_entry_id) == (
        entry.parent_id, entry.first_kept_entry_id,
    )  # fmt: skip
    assert compaction.fields_filled == ("goal", "constraints", "completed", "decisions",
                                        "changedFiles", "unresolved", "next")  # fmt: skip
    assert compaction.unmapped_items == 2
    for kind in ("claude-code", "codex"):
        detected = import_session(SAMPLES[kind])
        assert isinstance(detected.result, AgentImportResult)
        assert detected.usage == detected.result.usage
        assert detected.compactions == detected.result.compactions


# --- course-lab inspect reads the three formats ------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "heading"),
    [
        ("pi", "pi session, format v1"),
        ("claude-code", "Claude Code session"),
        ("codex", "Codex CLI session"),
    ],
)
def test_inspect_names_the_format_and_agrees_with_build_context(
    course_lab: Runner, kind: str, heading: str
) -> None:
    file = SAMPLES[kind]
    status, out, err = course_lab(str(file), "--max-tokens", "50000")
    assert status == 0 and err == ""
    assert out.startswith(f"{file}: {heading}\n")
    source = "pi" if kind == "pi" else LABELS[kind].removesuffix(" CLI")
    assert re.search(rf"^{source}( CLI)? lines by type: ", out, re.MULTILINE)
    detected = import_session(file)
    built = build_context(detected.active_path(), max_tokens=50_000, reserved_output=16_384,
                          estimate_tokens=chars_estimator())  # fmt: skip
    kept = built.kept_entry_ids
    assert f"kept: {kept[0]} .. {kept[-1]} ({len(kept):,} message entr" in out
    report = json.loads(course_lab(str(file), "--max-tokens", "50000", "--format", "json")[1])
    assert report["format"] == kind
    assert report["notes"]["total"] == len(detected.notes)
    assert report["kept"]["entries"] == len(kept)


def test_inspect_refuses_a_broken_agent_file_in_one_line(
    course_lab: Runner, tmp_path: Path
) -> None:
    lines = CODEX_SAMPLE.read_text(encoding="utf-8").splitlines()
    lines[4] = '{"type":"response_item","timestamp":"2026-03-02T09:00:10.000Z","payload":7}'
    broken = tmp_path / "rollout-broken.jsonl"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, err = course_lab(str(broken))
    assert status == 2 and out == ""
    assert err == "course-lab: error: line 5: a 'response_item' record needs a payload object\n"


def test_inspect_refuses_a_file_of_no_agent_in_import_session_s_words(
    course_lab: Runner, tmp_path: Path
) -> None:
    file = tmp_path / "chat.jsonl"
    file.write_bytes(detect_shapes.no_agent_records())
    with pytest.raises(AgentImportError) as refused:
        import_session(file)
    status, out, err = course_lab(str(file))
    assert status == 2 and out == ""
    assert err == f"course-lab: error: {str(refused.value).replace('chat.jsonl', str(file), 1)}\n"
    deep = tmp_path / "deep.jsonl"
    deep.write_bytes(detect_shapes.too_deep_first_line(70))
    status, out, err = course_lab(str(deep))
    assert status == 2 and err.endswith(": the JSON reader refuses line 1: nested 70 levels deep "
                                        "(the limit is 64)\n")  # fmt: skip


@pytest.mark.parametrize("kind", ["permission-mode", "mode", "attachment"])
def test_inspect_reads_a_claude_code_file_whatever_record_opens_it(
    course_lab: Runner, kind: str
) -> None:
    file = detect_shapes.path_of(kind)
    status, out, err = course_lab(str(file), "--format", "json")
    assert status == 0 and err == ""
    report = json.loads(out)
    detected = import_session(file)
    assert report["format"] == "claude-code"
    assert report["entries"]["total"] == len(detected.entries)
    assert report["notes"]["total"] == len(detected.notes)


def test_import_session_counts_the_subagent_transcripts_beside_a_claude_code_file(
    tmp_path: Path,
) -> None:
    file = tmp_path / "6f1c2a4e.jsonl"
    file.write_bytes(CLAUDE_CODE_SAMPLE.read_bytes())
    folder = tmp_path / "6f1c2a4e" / "subagents"
    folder.mkdir(parents=True)
    for name in ("agent-a1.jsonl", "agent-b2.jsonl", "notes.txt"):  # a .txt is no transcript
        (folder / name).write_text("", encoding="utf-8")
    detected = import_session(file)
    expected = import_claude_code_session(file)
    assert isinstance(detected.result, AgentImportResult)
    assert detected.result.source.subagent_files == expected.source.subagent_files == 2
    assert detected.result == expected
    alone = import_session(CLAUDE_CODE_SAMPLE)  # no folder beside it
    assert isinstance(alone.result, AgentImportResult)
    assert alone.result.source.subagent_files == 0


# --- notes have a severity --------------------------------------------------------------------

WARNING_KINDS = {
    # changes the active path
    "unterminated_tail", "leaf_moved", "missing_result_dropped", "duplicate_record",
    "parent_not_in_file", "parent_cycle", "chained_by_file_order",
    # drops or moves a summary, or the range a compaction keeps
    "empty_branch_summary", "summary_missing", "first_kept_moved", "first_kept_widened",
    "agent_kept_nothing", "kept_not_on_path", "compaction_unrestorable",
    # takes a message off the path, or invents one
    "unpaired_result", "duplicate_result", "missing_result_repaired", "synthetic_user_inserted",
    "event_text_used",
}  # fmt: skip
INFO_KINDS = {
    "root_reparented", "field_dropped", "usage_total_computed", "timestamp_assumed_utc",
    "timestamp_from_entry", "thinking_dropped", "block_dropped", "block_placeholder",
    "image_placeholder", "partial_arguments", "stop_reason_mapped", "unknown_entry_type",
    "unknown_role", "summary_section_unmapped", "summary_goal_fallback", "records_merged",
    "record_skipped", "sidechain_skipped", "compaction_reparented", "compact_summary_merged",
    "turn_interrupted", "rewound", "usage_mapped", "usage_missing", "stop_reason_inferred",
    "arguments_unparsed", "tokens_before_unknown", "injected_context", "forked_history",
    "legacy_layout", "parent_linked_later", "preserved_segment_kept",
}  # fmt: skip


def _kinds(holder: type) -> set[str]:
    return {value for name, value in vars(holder).items() if name.isupper()}


def test_every_note_kind_is_judged_warning_or_info() -> None:
    """A new kind fails here until someone decides, by the rule in ``WARNING_KINDS``, which it is."""
    from course_lib.beyond.importers._agent_base import AgentNoteKind
    from course_lib.beyond.importers._base import WARNING_KINDS as TABLE
    from course_lib.beyond.importers._base import NoteKind

    assert not WARNING_KINDS & INFO_KINDS
    assert _kinds(NoteKind) | _kinds(AgentNoteKind) <= WARNING_KINDS | INFO_KINDS
    assert TABLE == WARNING_KINDS
    for kind in WARNING_KINDS | INFO_KINDS:
        note = ImportNote(kind=kind, line=1, entry_id=None, detail="")
        assert note.severity == ("warning" if kind in WARNING_KINDS else "info")


def test_the_samples_warnings_are_the_changes_to_what_the_model_is_sent() -> None:
    pi = import_session(PI_SAMPLE)
    warned = [note for note in pi.notes if note.severity == "warning"]
    assert {note.kind for note in warned} == {"missing_result_repaired"} and len(warned) == 18
    for kind in ("claude-code", "codex"):
        notes = import_session(SAMPLES[kind]).notes
        kinds = {note.kind for note in notes if note.severity == "warning"}
        assert "missing_result_repaired" in kinds  # each sample has a call left unanswered
        assert not kinds & {"field_dropped", "record_skipped", "usage_mapped"}


@pytest.mark.parametrize(
    "path",
    [
        *sorted((ROOT / "data" / "claude-code-sessions").glob("*.jsonl")),
        *sorted((ROOT / "data" / "codex-sessions").glob("*.jsonl")),
    ],
    ids=lambda path: path.name,
)
def test_every_agent_file_in_data_is_recognised_as_its_folder_s_format(path: Path) -> None:
    kind = {"claude-code-sessions": "claude-code", "codex-sessions": "codex"}[path.parent.name]
    assert recognise_format(path.read_bytes()).format == kind
    detected = import_session(path)
    direct = {"claude-code": import_claude_code_session, "codex": import_codex_session}[kind]
    assert detected.format == kind and detected.result == direct(path)
