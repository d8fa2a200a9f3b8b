"""What a store writes, every reader reads back: one definition of the line limits.

A line the store commits but its own reader refuses would make every later
open of the file fail, and ``repair()`` cannot help (it is not a torn tail).
So ``append`` applies the readers' limits (``JsonLimits``: characters of the
line, objects and arrays, nesting depth, counted the same way on both sides)
and refuses, writing nothing, what a reader would refuse. These tests walk the
boundaries in every field that holds free JSON and check that whatever
``append`` accepts, a fresh ``open``, ``read_session_file`` and
``course-lab inspect`` read back identically; and that every reader and
writer takes ``limits=``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runners import Runner

from course_lib import (
    CourseError,
    InMemorySessionStore,
    JsonlSessionStore,
    SessionFileError,
    read_session_file,
    recover_jsonl,
)
from course_lib.base.wire import (
    DEFAULT_LIMITS,
    JsonLimits,
    JsonValueError,
    check_line_limits,
    check_wire_limits,
    dumps_line,
    measure_json,
    nesting_depth,
)
from course_lib.tools import inspect_session as inspect_cli

MIB = 1024 * 1024


def deep(levels: int, innermost: str) -> Any:
    """``levels`` lists nested, the innermost holding a string or, for "empty", being ``{}``."""
    if innermost == "empty":
        value: Any = {}
        levels -= 1
    else:
        value = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def session(field: str, value: Any) -> list[dict[str, Any]]:
    """user → assistant (a tool call) → its result → a metadata note; ``field`` holds ``value``."""
    arguments = value if field == "arguments" else {"cmd": "ls"}
    details = value if field == "details" else None
    note = value if field == "metadata" else "note"
    return [
        {"id": "u1", "parentId": None, "timestamp": 1, "type": "message",
         "message": {"role": "user", "content": [{"type": "text", "text": "list it"}],
                     "timestamp": 1}},
        {"id": "a1", "parentId": "u1", "timestamp": 2, "type": "message",
         "message": {"role": "assistant",
                     "content": [{"type": "toolCall", "id": "c1", "name": "bash",
                                  "arguments": arguments}],
                     "provider": "p", "model": "m",
                     "usage": {"input": 1, "output": 1, "totalTokens": 2},
                     "stopReason": "toolUse", "timestamp": 2}},
        {"id": "r1", "parentId": "a1", "timestamp": 3, "type": "message",
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                     "content": [{"type": "text", "text": "a\nb"}], "isError": False,
                     "timestamp": 3, "details": details}},
        {"id": "m1", "parentId": "r1", "timestamp": 4, "type": "metadata", "key": "k",
         "value": note},
    ]  # fmt: skip


TARGET = {"metadata": "m1", "arguments": "a1", "details": "r1"}
"""Which entry of ``session`` holds the field under test."""


def target_wire(field: str, value: Any) -> dict[str, Any]:
    return next(wire for wire in session(field, value) if wire["id"] == TARGET[field])


def enclosing(field: str) -> int:
    """How many objects and arrays of its entry's line enclose the field (measured, not assumed)."""
    return nesting_depth(target_wire(field, deep(10, "leaf"))) - 10


def wires(entries: list[Any]) -> list[dict[str, Any]]:
    return [entry.to_wire() for entry in entries]


SHALLOW = {"shallow": True}
"""What a refused entry is appended again with, so the session stays whole."""


def append_all(store: Any, field: str, value: Any) -> CourseError | None:
    """Append the four entries; the refusal of the one under test, if any (the rest must pass).

    A refused entry is appended again at once with a small value: a store that
    refused a line goes on accepting appends.
    """
    refusal = None
    for wire in session(field, value):
        try:
            store.append(wire)
        except CourseError as error:
            assert wire["id"] == TARGET[field], f"only the entry under test may be refused: {error}"
            refusal = error
            store.append(target_wire(field, SHALLOW))
    return refusal


def inspected(course_lab: Runner, file: Path) -> dict[str, Any]:
    status, out, err = course_lab(str(file), "--format", "json")
    assert status == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def assert_read_back(file: Path, appended: list[dict[str, Any]], course_lab: Runner | None) -> None:
    """A fresh open, ``read_session_file`` and ``inspect`` all read exactly what was appended."""
    assert wires(JsonlSessionStore.open(file).entries()) == appended
    result = read_session_file(file)
    assert result.warnings == []
    assert wires(result.entries) == appended
    if course_lab is not None:
        loaded = inspect_cli.load_session(file, file.name, file.read_bytes())
        assert wires(loaded.entries) == appended  # what inspect reads
        report = inspected(course_lab, file)  # and the command itself, end to end
        assert report["entries"]["total"] == report["path"]["entries"] == len(appended)
        assert report["leaf"] == appended[-1]["id"]


def check_symmetry(
    tmp_path: Path, field: str, value: Any, course_lab: Runner | None
) -> CourseError | None:
    """Append to both stores: they agree, a refused line leaves the file as it was, and what
    was accepted reads back identically everywhere. Returns the refusal, if any."""
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    refusal = append_all(store, field, value)
    memory_refusal = append_all(InMemorySessionStore(), field, value)
    assert (refusal is None) == (memory_refusal is None)
    accepted = session(field, value if refusal is None else SHALLOW)
    expected = wires(store.entries())
    assert expected == accepted
    assert file.read_bytes() == b"".join(dumps_line(w).encode() for w in expected)
    assert_read_back(file, expected, course_lab)
    return refusal


# --- depth: 63, 64 and 65 levels in every field that holds free JSON ------------------


@pytest.mark.parametrize("innermost", ["leaf", "empty"])
@pytest.mark.parametrize("line_depth", [63, 64, 65])
@pytest.mark.parametrize("field", ["metadata", "arguments", "details"])
def test_depth_at_the_limit_reads_back_and_beyond_it_is_refused(
    tmp_path: Path, course_lab: Runner, field: str, line_depth: int, innermost: str
) -> None:
    value = deep(line_depth - enclosing(field), innermost)
    assert nesting_depth(target_wire(field, value)) == line_depth  # the test builds what it says
    refusal = check_symmetry(tmp_path, field, value, course_lab)
    if line_depth <= DEFAULT_LIMITS.max_depth:
        assert refusal is None
    else:
        assert refusal is not None
        assert TARGET[field] in str(refusal) and "64" in str(refusal)


def test_the_reader_and_the_writer_count_depth_alike() -> None:
    for levels in range(1, 70):
        for innermost in ("leaf", "empty"):
            wire = target_wire("details", deep(levels, innermost))
            line = dumps_line(wire).removesuffix("\n")
            limits = JsonLimits(max_depth=nesting_depth(wire))
            check_line_limits(line, limits)  # both accept at exactly the depth
            check_wire_limits(wire, limits, line=line)
            tighter = JsonLimits(max_depth=limits.max_depth - 1)
            with pytest.raises(JsonValueError) as read:
                check_line_limits(line, tighter)
            with pytest.raises(JsonValueError) as written:
                check_wire_limits(wire, tighter, line=line)
            assert str(read.value) == str(written.value)  # the same words, the same count


# --- a line of 16 MiB, minus one, exactly, plus one -----------------------------------


@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_a_line_of_16_mib_plus_or_minus_one(
    tmp_path: Path, course_lab: Runner, offset: int
) -> None:
    base = len(dumps_line(target_wire("metadata", ""))) - 1  # the line without its newline
    value = "x" * (DEFAULT_LIMITS.max_line_chars + offset - base)
    assert len(dumps_line(target_wire("metadata", value))) - 1 == 16 * MIB + offset
    refusal = check_symmetry(tmp_path, "metadata", value, course_lab)
    if offset <= 0:
        assert refusal is None
    else:
        assert refusal is not None
        assert "entry m1" in str(refusal)
        assert f"line is {16 * MIB + 1} characters long (the limit is {16 * MIB})" in str(refusal)


def test_the_line_limit_counts_characters_on_both_sides(tmp_path: Path) -> None:
    """Two-byte characters: a line of exactly the limit in characters, twice that in bytes."""
    limits = JsonLimits(max_line_chars=2_000)
    base = len(dumps_line(target_wire("metadata", ""))) - 1
    for extra, accepted in ((0, True), (1, False)):
        file = tmp_path / f"chars-{extra}.jsonl"
        store = JsonlSessionStore.open(file, limits=limits)
        wire = target_wire("metadata", "é" * (2_000 - base + extra))
        wire["parentId"] = None
        if accepted:
            store.append(wire)
            assert len(file.read_bytes()) > 2 * 2_000 - 2 * base
            assert wires(JsonlSessionStore.open(file, limits=limits).entries()) == [wire]
            assert wires(read_session_file(file, limits=limits).entries) == [wire]
        else:
            with pytest.raises(CourseError, match=r"entry m1: .*2001 characters long"):
                store.append(wire)
            assert file.read_bytes() == b""


# --- 100,000 objects and arrays, minus one, exactly, plus one -------------------------


@pytest.mark.parametrize(
    ("field", "offset"),
    [("metadata", -1), ("metadata", 0), ("metadata", 1), ("arguments", 0), ("arguments", 1)],
)
def test_a_line_of_100000_containers_plus_or_minus_one(
    tmp_path: Path, course_lab: Runner, field: str, offset: int
) -> None:
    base = measure_json(target_wire(field, [])).containers
    value = [[] for _ in range(DEFAULT_LIMITS.max_containers + offset - base)]
    assert measure_json(target_wire(field, value)).containers == 100_000 + offset
    refusal = check_symmetry(tmp_path, field, value, course_lab)
    if offset <= 0:
        assert refusal is None
    else:
        assert refusal is not None
        assert f"entry {TARGET[field]}" in str(refusal)
        assert "holds 100001 objects and arrays (the limit is 100000)" in str(refusal)


# --- every reader and every writer takes limits= --------------------------------------


def deep_note(levels: int) -> dict[str, Any]:
    wire = target_wire("metadata", deep(levels, "leaf"))
    wire["parentId"] = None
    return wire


def test_a_file_beyond_the_default_depth_opens_with_larger_limits(tmp_path: Path) -> None:
    file = tmp_path / "deep.jsonl"
    wire = deep_note(69)  # a line 70 levels deep, written by some other tool
    file.write_text(dumps_line(wire), encoding="utf-8")
    with pytest.raises(
        SessionFileError, match=r"line 1: .*nested 70 levels deep \(the limit is 64\)"
    ):
        JsonlSessionStore.open(file)
    roomy = JsonLimits(max_depth=80)
    assert wires(JsonlSessionStore.open(file, limits=roomy).entries()) == [wire]
    assert wires(read_session_file(file, limits=roomy).entries) == [wire]
    assert wires(recover_jsonl(file.read_text(encoding="utf-8"), limits=roomy).entries) == [wire]
    with pytest.raises(SessionFileError, match=r"line 1: .*nested 70 levels deep"):
        read_session_file(file)
    with pytest.raises(SessionFileError, match=r"line 1: .*nested 70 levels deep"):
        recover_jsonl(file.read_text(encoding="utf-8"))


def test_a_store_writes_and_reads_back_under_its_own_limits(tmp_path: Path) -> None:
    roomy = JsonLimits(max_depth=80)
    file = tmp_path / "deep.jsonl"
    store = JsonlSessionStore.open(file, limits=roomy)
    wire = deep_note(79)  # 80 levels: exactly the store's limit
    store.append(wire)
    with pytest.raises(CourseError, match=r"m2.*80"):
        store.append({**deep_note(80), "id": "m2", "parentId": "m1"})
    assert wires(store.entries()) == [wire]
    assert wires(JsonlSessionStore.open(file, limits=roomy).entries()) == [wire]
    memory = InMemorySessionStore(limits=roomy)
    memory.append(wire)
    assert wires(memory.entries()) == [wire]
    with pytest.raises(CourseError, match=r"m1.*64"):
        InMemorySessionStore().append(wire)  # the default limits refuse it


def test_tighter_limits_refuse_on_append_and_on_read(tmp_path: Path) -> None:
    tight = JsonLimits(max_line_chars=300, max_depth=8, max_containers=20)
    file = tmp_path / "tight.jsonl"
    store = JsonlSessionStore.open(file, limits=tight)
    store.append(deep_note(3))
    cases = [
        ({**deep_note(8), "id": "m2", "parentId": "m1"}, r"m2.*8"),
        ({**deep_note(1), "id": "m3", "parentId": "m1", "value": "x" * 300}, r"m3.* long"),
        ({**deep_note(1), "id": "m4", "parentId": "m1", "value": [[]] * 19}, r"m4.*holds 21"),
    ]
    for wire, message in cases:
        before = file.read_bytes()
        with pytest.raises(CourseError, match=message):
            store.append(wire)
        with pytest.raises(CourseError, match=message):
            InMemorySessionStore(limits=tight).append(wire)
        assert file.read_bytes() == before
    # what the default limits wrote, the tight reader refuses, naming the line
    roomy_file = tmp_path / "roomy.jsonl"
    roomy_file.write_text(dumps_line(deep_note(1)) + dumps_line(cases[1][0]), encoding="utf-8")
    with pytest.raises(SessionFileError, match=r"^line 2: .*characters long \(the limit is 300\)"):
        JsonlSessionStore.open(roomy_file, limits=tight)


def test_later_appends_and_opens_still_work_after_a_refusal(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    store.append(deep_note(3))
    with pytest.raises(CourseError):
        store.append({**deep_note(64), "id": "m2", "parentId": "m1"})
    store.append({**deep_note(63), "id": "m3", "parentId": "m1"})  # 64 levels: fine
    assert [entry.id for entry in JsonlSessionStore.open(file).entries()] == ["m1", "m3"]
    assert [entry.id for entry in store.entries()] == ["m1", "m3"]
