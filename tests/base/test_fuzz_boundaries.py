"""Fuzzing the three boundaries: whatever comes in, only a ``CourseError`` ever comes out.

Hostile input (random bytes, random JSON, mutated valid lines) must either be
accepted, and then round-trip, or be refused with a ``CourseError`` naming
what is wrong: never a ``RecursionError``, ``UnicodeError``, ``OverflowError``
or ``KeyError`` from deep inside.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import CourseError, chapter_fixture_after_compaction, recover_jsonl
from course_lib.base.wire import dumps_line
from course_lib.beyond.importers import import_pi_text
from course_lib.chapter.entries import parse_session_entry
from course_lib.chapter.sessions import parse_entry_line

FIXTURE_LINES = [dumps_line(entry.to_wire()) for entry in chapter_fixture_after_compaction()]
PI_HEADER = '{"type":"session","id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}\n'

# JSON values of any shape, including the numbers and strings that break naive code.
NASTY_NUMBERS = st.sampled_from([2**53, -(2**53), 10**400, 1e20, 1e308, -0.0, 2**53 - 1])
NASTY_TEXT = st.sampled_from(["\ud800", "\x1b]0;x\x07", "\ufeff", "\x00", "", " ", "\n"])
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | NASTY_NUMBERS
    | NASTY_TEXT,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = st.sampled_from(
    [
        "id",
        "parentId",
        "timestamp",
        "type",
        "message",
        "key",
        "value",
        "summary",
        "firstKeptEntryId",
        "tokensBefore",
    ]
)


@st.composite
def mutated_wire(draw: st.DrawFn) -> Any:
    """A fixture entry's wire dict with one field (possibly nested) replaced by anything."""
    wire = json.loads(draw(st.sampled_from(FIXTURE_LINES)))
    target = wire
    if "message" in wire and draw(st.booleans()):
        target = wire["message"]
        key = draw(st.sampled_from(sorted(target)))
    else:
        key = draw(FIELDS)
    target[key] = draw(JSON)
    return wire


def _accepted_round_trips(entry: Any) -> None:
    line = dumps_line(entry.to_wire())
    assert parse_entry_line(line) == entry
    assert dumps_line(parse_entry_line(line).to_wire()) == line


@settings(max_examples=300, deadline=None)
@given(st.one_of(mutated_wire(), JSON))
def test_parse_session_entry_raises_only_course_errors(value: Any) -> None:
    try:
        entry = parse_session_entry(value)
    except CourseError:
        return
    _accepted_round_trips(entry)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(FIXTURE_LINES) | st.text(max_size=40) | JSON.map(json.dumps), max_size=6
    )
)
def test_recover_jsonl_raises_only_course_errors(pieces: list[str]) -> None:
    text = "".join(piece if piece.endswith("\n") else piece + "\n" for piece in pieces)
    try:
        result = recover_jsonl(text)
    except CourseError:
        return
    for entry in result.entries:
        _accepted_round_trips(entry)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_recover_jsonl_on_decoded_random_bytes(data: bytes) -> None:
    with contextlib.suppress(CourseError):
        recover_jsonl(data.decode("utf-8", errors="surrogateescape"))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        JSON.map(lambda value: json.dumps(value, allow_nan=True)) | st.text(max_size=30), max_size=5
    )
)
def test_import_pi_text_raises_only_course_errors(lines: list[str]) -> None:
    text = PI_HEADER + "".join(line.replace("\n", " ") + "\n" for line in lines)
    try:
        imported = import_pi_text(text)
    except CourseError:
        return
    for entry in imported.entries:
        _accepted_round_trips(entry)
