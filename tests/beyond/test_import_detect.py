"""Which agent wrote a file: ``import_session`` and ``course-lab inspect`` on all three formats.

Also keeps the two agent samples in data/ honest: they must be exactly what
``agent_samples.py`` writes, so nobody's hand edit drifts from the documented shapes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

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
        ({"timestamp": "t", "type": "session_meta", "payload": {}}, "codex"),
        ({"timestamp": "t", "type": "response_item", "payload": {"type": "message"}}, "codex"),
        ({"type": "user", "message": {}}, None),  # no uuid, no session id: not enough to tell
        ({"type": "message", "id": "u1"}, None),
        ([1, 2], None),
        (None, None),
    ],
)
def test_detect_format_looks_at_the_first_record(first: object, kind: str | None) -> None:
    assert detect_format(first) == kind


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", r"^the file: no committed line"),
        (b'{"type":"user"}', r"^the file: no committed line"),  # never committed
        (b"\n  \nnot json\n", r"^line 3: the file: the first line is not JSON; expected a pi, Claude Code or Codex CLI session"),
        (b"[1]\n", r"^line 1: the file: the first line is a JSON list, not an object"),
        (b'{"type":"chat","text":"hi"}\n', r"^line 1: the file: the first record \(type 'chat'\) is none of them"),
    ],
)  # fmt: skip
def test_anything_else_is_a_clear_error(data: bytes, message: str) -> None:
    with pytest.raises(AgentImportError, match=message):
        import_session_bytes(data)


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
    with pytest.raises(AgentImportError, match=r"a course session file .* needs no import"):
        import_session(store.path)
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
