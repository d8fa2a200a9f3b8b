"""Reading a file pauses the garbage collector and always gives it back as it was.

The store's line reader pauses the collector (every object it builds is kept,
so a collection could free nothing) and, after a large read, moves the new
objects to the oldest generation. Neither may leak out: the collector's state
and the frozen count are the caller's before and after, whether the read
succeeds or fails.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from course_lib import (
    JsonlSessionStore,
    MessageEntry,
    SessionFileError,
    read_session_file,
    user_message,
)
from course_lib.base.collector import PROMOTE_AFTER
from course_lib.base.wire import dumps_line


def lines(count: int) -> str:
    return "".join(
        dumps_line(
            MessageEntry(
                id=f"e{n}", parent_id=None, timestamp=n, message=user_message("hi", timestamp=n)
            ).to_wire()
        )
        for n in range(count)
    )


@pytest.fixture
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("count", [3, PROMOTE_AFTER + 1], ids=["small", "large"])
@pytest.mark.parametrize("enabled", [True, False], ids=["collector on", "collector off"])
def test_the_collector_is_left_as_the_caller_had_it(
    tmp_path: Path, collector_restored: None, count: int, enabled: bool
) -> None:
    file = tmp_path / "session.jsonl"
    file.write_text(lines(count), encoding="utf-8")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(lines(count) + "{not json}\n", encoding="utf-8")
    gc.enable() if enabled else gc.disable()
    assert len(JsonlSessionStore.open(file).entries()) == count
    assert gc.isenabled() is enabled
    with pytest.raises(SessionFileError, match=rf"^line {count + 1}: "):
        read_session_file(broken)
    assert gc.isenabled() is enabled
    assert gc.get_freeze_count() == 0  # promoted, not left frozen


def test_objects_frozen_by_the_caller_stay_frozen(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    file.write_text(lines(PROMOTE_AFTER + 1), encoding="utf-8")
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        read_session_file(file)
        assert gc.get_freeze_count() == frozen  # no unfreeze behind the caller's back
    finally:
        gc.unfreeze()
