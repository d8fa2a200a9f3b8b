"""The store-limit cases both the rules' tests and the inspect tool's tests walk.

One session of four entries (user, a tool call, its result, a metadata note)
with a value of any size or depth in one field that holds free JSON; both
stores append it, and whatever they accept must read back identically
(``tests/base/test_store_limits.py``; with ``course-lab inspect`` too in
``tests/tools/test_store_limits_inspect.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runners import Runner

from course_lib import CourseError, InMemorySessionStore, JsonlSessionStore, read_session_file
from course_lib.base.wire import dumps_line, nesting_depth

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
        # The inspect tool needs the workbook's extras (tabulate): imported only here, so the
        # rules' own tests (tests/base, in the lowest-versions environment) never need them.
        from course_lib.tools import inspect_session as inspect_cli

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
