"""The importers' notes, shown in Chinese, keep every line, id and number they name.

Every note kind is produced here: by the three sample sessions in ``data/``,
the synthetic pi trees in ``tests/data/pi`` and a few small hostile files
built below. Each note's detail, translated, must read as Chinese (no run of
four English words outside quoted values) and name the same locators in the
same order, as ``course-lab inspect --lang zh`` must print the same numbers.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runners import Runner

from course_lib.base.i18n import has_translation
from course_lib.beyond.importers import (
    AgentImportError,
    ImportNote,
    import_claude_code_text,
    import_codex_text,
    import_pi_text,
    import_session,
    import_session_bytes,
)
from course_lib.beyond.importers._agent_base import AgentNoteKind
from course_lib.beyond.importers._base import NoteKind, by_severity
from course_lib.chapter.models import LedgerRow
from course_lib.views.note_texts import NOTE_PARTS
from course_lib.views.real_session import (
    estimator_comparison_frame,
    import_notes_frame,
    ledger_excerpt_frame,
    message_tokens_frame,
)
from course_lib.views.translated import notebook_language, set_notebook_language, translated

ROOT = Path(__file__).resolve().parents[2]
PI_SAMPLE = ROOT / "data" / "pi-sessions" / "large-session.v1.jsonl"
CLAUDE_CODE_SAMPLE = ROOT / "data" / "claude-code-sessions" / "sample-session.jsonl"
CODEX_SAMPLE = ROOT / "data" / "codex-sessions" / "sample-rollout.jsonl"
SAMPLES = [
    PI_SAMPLE,
    *sorted((ROOT / "data" / "claude-code-sessions").glob("*.jsonl")),
    *sorted((ROOT / "data" / "codex-sessions").glob("*.jsonl")),
    *sorted((ROOT / "tests" / "data" / "pi").glob("*.jsonl")),
]
CHINESE = re.compile(r"[\u4e00-\u9fff]")
QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
LOCATOR = re.compile(rf"{QUOTED.pattern}|[A-Za-z0-9_.\-]*\d[A-Za-z0-9_.\-]*")
"""A quoted value, or a token holding a digit (an id, a line, a count, a field path)."""
WORD_SUFFIX = re.compile(r"-[A-Za-z]+$")  # ``124-character``: the number is the locator


def longest_english_run(text: str) -> int:
    """The most English words in a row outside quoted values: a word is a token of letters
    only (punctuation stripped); Chinese, and any token that is not a word, end a run."""
    longest = 0
    for part in re.split(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+", QUOTED.sub(" ", text)):
        run = 0
        for token in part.split():
            run = run + 1 if token.strip("\"'.,;:!?()[]").isalpha() else 0
            longest = max(longest, run)
    return longest


def locators(text: str) -> list[str]:
    return [WORD_SUFFIX.sub("", found) for found in LOCATOR.findall(text)]


def assert_same_locators(english: str, chinese: str) -> None:
    """Each locator of the English is in the Chinese, in the same order, and so is each number."""
    position = 0
    for locator in locators(english):
        found = chinese.find(locator, position)
        assert found >= 0, (locator, english, chinese)
        position = found + len(locator)
    assert re.findall(r"\d+", chinese) == re.findall(r"\d+", english), (english, chinese)


def assert_reads_chinese(english: str) -> None:
    chinese = translated(english, "zh")
    assert CHINESE.search(chinese) or english.endswith(" entry)"), english  # ``id (x entry)``
    assert chinese != english
    assert longest_english_run(chinese) < 4, chinese
    assert_same_locators(english, chinese)


# --- small hostile files: the note kinds the samples never need -----------------------------


def _lines(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records)


def _iso(second: int) -> str:
    return f"2025-01-01T00:00:{second:02d}.000Z"


def _pi_assistant(*blocks: dict[str, Any], stop: str = "stop") -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks), "provider": "p", "model": "m",
            "usage": {"input": 1, "output": 2, "totalTokens": 3}, "stopReason": stop,
            "timestamp": 2}  # fmt: skip


def _pi_entry(entry_id: str, parent: str | None, second: int, **fields: Any) -> dict[str, Any]:
    return {"id": entry_id, "parentId": parent, "timestamp": _iso(second), **fields}


def pi_hostile() -> Iterator[list[ImportNote]]:
    """A pi tree of odd records (with an unterminated last line), and a call left unanswered."""
    header = {"type": "session", "version": 3, "id": "sess-1", "timestamp": _iso(0), "cwd": "/w"}
    summary = "Notes before any heading\n# First title\n# Second title\n## Scratch\n- an item\n"
    user = {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "audio"},
                                        {"type": "image", "data": "QUJD"}]}  # fmt: skip
    odd = _lines(
        header,
        {**_pi_entry("u1", None, 1, type="message", message=user), "timestamp": "2025-01-01T00:00:01"},
        _pi_entry("a1", "u1", 2, type="message", message=_pi_assistant(
            {"type": "text", "text": "ok"}, {"type": "redacted"}, stop="end_turn")),
        _pi_entry("f1", "a1", 3, type="future_thing"),
        _pi_entry("t1", "f1", 4, type="message", message={"role": "telepathy", "timestamp": 4}),
        _pi_entry("b1", "t1", 5, type="branch_summary", summary="", fromId="u1"),
        _pi_entry("c1", "b1", 6, type="compaction", summary=summary, firstKeptEntryId="u1",
                  tokensBefore=100),
    )  # fmt: skip
    yield import_pi_text(odd + '{"type":"message"').notes
    unanswered = _lines(
        header,
        _pi_entry("u1", None, 1, type="message",
                  message={"role": "user", "content": "hi", "timestamp": 1}),
        _pi_entry("a1", "u1", 2, type="message", message=_pi_assistant(
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}, stop="toolUse")),
    )  # fmt: skip
    yield import_pi_text(unanswered, on_missing_result="drop").notes


def _uuid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _claude(kind: str, n: int, parent: int | None, **fields: Any) -> dict[str, Any]:
    return {"parentUuid": _uuid(parent) if parent is not None else None, "isSidechain": False,
            "sessionId": "s-1", "type": kind, "uuid": _uuid(n),
            "timestamp": f"2026-03-02T10:00:{n:02d}.000Z", **fields}  # fmt: skip


def _claude_user(n: int, parent: int | None, content: str, **fields: Any) -> dict[str, Any]:
    return _claude("user", n, parent, message={"role": "user", "content": content}, **fields)


def claude_hostile() -> Iterator[list[ImportNote]]:
    """Repeated and orphaned records, boundaries without summaries or counts, a kept record
    on another branch."""
    turn = {"id": "m1", "role": "assistant", "model": "x", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "ok"}]}  # fmt: skip
    odd = _lines(
        _claude_user(1, None, "hello"),
        _claude("assistant", 2, 1, message=turn),
        _claude_user(1, None, "hello again"),
        _claude_user(3, 99, "[Request interrupted by user]"),
        _claude_user(4, 3, "an orphan summary", isCompactSummary=True),
        _claude("system", 5, 4, subtype="compact_boundary",
                compactMetadata={"trigger": "manual", "preservedMessages": "nope"}),
        _claude("system", 6, None, subtype="compact_boundary", compactMetadata={"preTokens": 5}),
    )  # fmt: skip
    yield import_claude_code_text(odd).notes
    other_branch = _lines(
        _claude_user(1, None, "one"),
        _claude_user(2, 1, "two"),
        _claude_user(3, 1, "three"),
        _claude("system", 4, 3, subtype="compact_boundary",
                compactMetadata={"preTokens": 5, "preservedMessages": [_uuid(2)]}),
        _claude_user(5, 4, "summary text", isCompactSummary=True),
    )  # fmt: skip
    yield import_claude_code_text(other_branch).notes
    cycle = _lines(
        _claude_user(1, None, "one"), _claude_user(2, 3, "two"), _claude_user(3, 2, "three")
    )
    yield import_claude_code_text(cycle).notes


def _codex(kind: str, second: int, **payload: Any) -> dict[str, Any]:
    return {"timestamp": f"2026-03-02T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


def codex_hostile() -> Iterator[list[ImportNote]]:
    """Unknown records and roles, parts with no course form, arguments that are not JSON."""
    content = [{"type": "input_text", "text": "hi"}, {"type": "input_audio"},
               {"type": "input_image", "image_url": "data:image/png;base64,QUJD"}]  # fmt: skip
    records = _lines(
        _codex("session_meta", 0, id="sess-1", cwd="/w"),
        _codex("mystery", 1),
        _codex("response_item", 2, type="message", role="critic", content="hm"),
        _codex("response_item", 3, type="message", role="user", content=content),
        _codex("response_item", 4, type="reasoning", summary=[{"type": "summary_text", "text": "x"}]),
        _codex("response_item", 5, type="web_search_call"),
        _codex("response_item", 6, type="function_call", name="shell", arguments="{bad",
               call_id="k1"),
        _codex("event_msg", 7, type="agent_reasoning"),
        _codex("event_msg", 8, type="turn_aborted", reason="interrupted"),
        _codex("compacted", 9),
    )  # fmt: skip
    yield import_codex_text(records).notes


def all_notes() -> list[ImportNote]:
    notes = [note for path in SAMPLES for note in import_session(path).notes]
    for hostile in (pi_hostile, claude_hostile, codex_hostile):
        notes += [note for found in hostile() for note in found]
    return notes


def _kinds(holder: type) -> set[str]:
    return {value for name, value in vars(holder).items() if name.isupper()}


NOTES = all_notes()
BY_KIND: dict[str, list[str]] = {}
for _note in NOTES:
    BY_KIND.setdefault(_note.kind, [])
    if _note.detail not in BY_KIND[_note.kind]:
        BY_KIND[_note.kind].append(_note.detail)


# --- the notes ------------------------------------------------------------------------------


def test_every_note_kind_is_produced_here() -> None:
    assert _kinds(NoteKind) | _kinds(AgentNoteKind) <= set(BY_KIND)


@pytest.mark.parametrize("kind", sorted(BY_KIND))
def test_every_note_reads_chinese_with_its_locators(kind: str) -> None:
    for detail in BY_KIND[kind]:
        assert_reads_chinese(detail)


def test_english_notes_are_the_notes_themselves() -> None:
    assert all(translated(note.detail, "en") == note.detail for note in NOTES)


def test_every_template_has_its_chinese() -> None:
    assert [part for part in NOTE_PARTS if not has_translation("zh", part)] == []


@pytest.mark.parametrize("template", NOTE_PARTS)
def test_every_template_is_found_and_written_in_chinese(template: str) -> None:
    """Each template filled with made-up locators (and free text that is no sentence)."""
    count = iter(range(1, 100))

    def value(field: re.Match[str]) -> str:
        number = next(count)
        return f"T{number}" if field.group(1).endswith("_text") else f"id{number}"

    english = re.sub(r"\{(\w+)\}", value, template)
    assert_reads_chinese(english)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xff\n",
        b"\n\nnot json\n",
        b"[1]\n",
        b'{"type":"chat"}\n',
        b'{"id":"x"}\n',
        b'{"type":"chat"}\n{"type":"turn"}\n',
        b'{"x":1}\n{"y":2}\n',
        b'{"type":"message","id":"u1","parentId":null}\n',
    ],
)
def test_import_session_s_refusals_read_chinese(data: bytes) -> None:
    """Each sentence ``import_session`` refuses a file with (the JSON reader's own words in
    parentheses stay as the reader wrote them)."""
    with pytest.raises(AgentImportError) as refused:
        import_session_bytes(data, name="chat.jsonl")
    assert_reads_chinese(str(refused.value))


def test_a_quoted_value_is_one_locator_spaces_and_all() -> None:
    english = (
        "Key Steps (2 items) fits no course field: kept in unresolved, each item prefixed "
        "'Key Steps: '"
    )
    assert translated(english, "zh").endswith("每项前加上 'Key Steps: '")


def test_a_long_token_costs_time_in_proportion_to_its_length() -> None:
    """A template that opens with a locator is tried where a token starts, not inside one."""
    started = time.perf_counter()
    assert translated("x" * 50_000, "zh") == "x" * 50_000
    heading = (
        "x" * 20_000
        + " (1 item) fits no course field: kept in unresolved, each item prefixed 'x: '"
    )
    assert translated(heading, "zh").startswith("x" * 20_000 + "（1 项）")
    assert time.perf_counter() - started < 5


# --- the views ------------------------------------------------------------------------------


@pytest.fixture
def chinese_notebook() -> Iterator[None]:
    before = notebook_language()
    set_notebook_language("zh")
    try:
        yield
    finally:
        set_notebook_language(before)


@pytest.mark.usefixtures("chinese_notebook")
def test_the_notes_frame_shows_details_in_the_notebook_s_language() -> None:
    imported = import_session(PI_SAMPLE)
    frame = import_notes_frame(imported)
    assert list(frame.columns) == ["severity", "kind", "line", "entry_id", "detail"]  # names stay
    assert set(frame["severity"]) == {"warning", "info"}  # values of the code, as kinds are
    for note, detail in zip(by_severity(imported.notes), frame["detail"], strict=True):
        assert detail == translated(note.detail, "zh") and CHINESE.search(detail)


@pytest.mark.usefixtures("chinese_notebook")
def test_the_ledger_and_the_message_kinds_speak_the_notebook_s_language() -> None:
    rows = [
        LedgerRow(group=n, entry_ids=[f"u{n}", f"a{n}"], tokens=n, status=status)
        for n, status in enumerate(["trimmed"] * 9 + ["kept"] * 9, start=1)
    ]
    frame = ledger_excerpt_frame(rows)
    assert list(frame["group"])[:7] == [1, 2, 3, "…", 8, 9, "cut"]  # markers stay
    assert frame["status"].iloc[3] == "另有 4 组"
    assert longest_english_run(frame["status"].iloc[6]) == 0

    from course_lib import chapter_fixture, fixture_estimator

    per_message = message_tokens_frame(chapter_fixture(), {"fixture": fixture_estimator()})
    assert {
        "system",
        "user",
        "toolResult",
        "assistant（含 tool call）",
        "assistant（纯文本）",
    } == set(per_message["kind"])
    table = estimator_comparison_frame(per_message, "fixture", "fixture")
    assert table["kind"].iloc[-1] == "全部消息"


# --- course-lab inspect --lang zh -----------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        [str(PI_SAMPLE), "--max-tokens", "60000"],  # the cut: older groups are left out
        [str(CLAUDE_CODE_SAMPLE)],
        [str(CODEX_SAMPLE), "--max-tokens", "30000"],
    ],
    ids=["pi", "claude-code", "codex"],
)
def test_inspect_in_chinese_prints_the_same_numbers(course_lab: Runner, argv: list[str]) -> None:
    status, english, _ = course_lab(*argv)
    status_zh, chinese, err = course_lab(*argv, "--lang", "zh")
    assert status == status_zh == 0 and err == ""
    assert re.findall(r"\d+", chinese) == re.findall(r"\d+", english)
    assert len(chinese.splitlines()) == len(english.splitlines())
    for line in chinese.splitlines():
        assert longest_english_run(line.replace(argv[0], "")) < 4, line
    assert "活动路径" in chinese and "原因：" in chinese
    assert english == course_lab(*argv, "--lang", "en")[1]  # English is the default


def test_inspect_json_stays_english_whatever_the_language(course_lab: Runner) -> None:
    argv = [str(CODEX_SAMPLE), "--format", "json"]
    assert course_lab(*argv, "--lang", "zh")[1] == course_lab(*argv)[1]
