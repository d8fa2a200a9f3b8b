"""What a store writes, every reader reads back: one definition of the line limits.

A line the store commits but its own reader refuses would make every later
open of the file fail, and ``repair()`` cannot help (it is not a torn tail).
So ``append`` applies the readers' limits (``JsonLimits``: characters of the
line, objects and arrays, nesting depth, counted the same way on both sides)
and refuses, writing nothing, what a reader would refuse. These tests walk the
boundaries in every field that holds free JSON and check that whatever
``append`` accepts, a fresh ``open`` and ``read_session_file`` read back
identically (``course-lab inspect`` too: ``tests/tools/test_store_limits_inspect.py``);
and that every reader and writer takes ``limits=``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from store_limit_cases import (
    MIB,
    TARGET,
    check_symmetry,
    deep,
    enclosing,
    target_wire,
    wires,
)

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

# --- depth: 63, 64 and 65 levels in every field that holds free JSON ------------------


@pytest.mark.parametrize("innermost", ["leaf", "empty"])
@pytest.mark.parametrize("line_depth", [63, 64, 65])
@pytest.mark.parametrize("field", ["metadata", "arguments", "details"])
def test_depth_at_the_limit_reads_back_and_beyond_it_is_refused(
    tmp_path: Path, field: str, line_depth: int, innermost: str
) -> None:
    value = deep(line_depth - enclosing(field), innermost)
    assert nesting_depth(target_wire(field, value)) == line_depth  # the test builds what it says
    refusal = check_symmetry(tmp_path, field, value, None)
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
def test_a_line_of_16_mib_plus_or_minus_one(tmp_path: Path, offset: int) -> None:
    base = len(dumps_line(target_wire("metadata", ""))) - 1  # the line without its newline
    value = "x" * (DEFAULT_LIMITS.max_line_chars + offset - base)
    assert len(dumps_line(target_wire("metadata", value))) - 1 == 16 * MIB + offset
    refusal = check_symmetry(tmp_path, "metadata", value, None)
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
    tmp_path: Path, field: str, offset: int
) -> None:
    base = measure_json(target_wire(field, [])).containers
    value = [[] for _ in range(DEFAULT_LIMITS.max_containers + offset - base)]
    assert measure_json(target_wire(field, value)).containers == 100_000 + offset
    refusal = check_symmetry(tmp_path, field, value, None)
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
