"""``course_lib.judge.frames``: one message per frame, and every way a frame goes wrong named.

Why: the judge reads exactly one answer per call. A frame must come back
whole (budgets may hold ``NaN`` and infinities), and anything else — an
oversized length, a closed pipe, a late answer, bytes that are not JSON — must
be a ``FrameError`` of the kind the remote side tells apart (``BadFrame``,
``ChannelClosed``, ``LateFrame``), never a hang or a stray exception.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Iterator

import pytest

from course_lib.judge.frames import (
    ANSWER_LIMIT,
    BadFrame,
    ChannelClosed,
    LateFrame,
    read_frame,
    write_frame,
)


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """A fresh pipe as ``(read end, write end)``; whatever a test left open is closed."""
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        with contextlib.suppress(OSError):  # the test closed it itself
            os.close(fd)


def test_a_frame_reads_back_as_the_message_written(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    message = {"call": "build_context", "value": [1, "two", None, True, [3.5]], "中文": "文"}
    write_frame(write_end, message)
    write_frame(write_end, ["second"])
    assert read_frame(read_end) == message
    assert read_frame(read_end, deadline=time.monotonic() + 5) == ["second"]


def test_nan_and_infinities_cross_a_frame(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    write_frame(write_end, [math.nan, math.inf, -math.inf])
    back = read_frame(read_end)
    assert math.isnan(back[0]) and back[1:] == [math.inf, -math.inf]


def test_the_length_comes_first_as_four_big_endian_bytes(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    write_frame(write_end, [1])
    assert os.read(read_end, 100) == b"\x00\x00\x00\x03[1]"


def test_a_length_over_the_limit_is_refused_unread(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    os.write(write_end, (ANSWER_LIMIT + 1).to_bytes(4, "big"))
    with pytest.raises(BadFrame, match=r"^an answer of 67,108,865 bytes, over the limit"):
        read_frame(read_end)


def test_a_frame_over_a_given_limit_is_refused(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    write_frame(write_end, "x" * 20)
    with pytest.raises(BadFrame, match=r"^an answer of 22 bytes, over the limit of 10"):
        read_frame(read_end, limit=10)


def test_a_pipe_closed_before_a_frame_is_closed(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    os.close(write_end)
    with pytest.raises(ChannelClosed, match=r"^closed$"):
        read_frame(read_end)


def test_a_pipe_closed_inside_a_frame_is_closed(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    os.write(write_end, (10).to_bytes(4, "big") + b"[1,")
    os.close(write_end)
    with pytest.raises(ChannelClosed, match=r"^closed$"):
        read_frame(read_end, deadline=time.monotonic() + 5)


def test_a_deadline_already_passed_is_late_even_with_a_frame_waiting(
    pipe: tuple[int, int],
) -> None:
    read_end, write_end = pipe
    write_frame(write_end, [1])
    with pytest.raises(LateFrame, match=r"^late$"):
        read_frame(read_end, deadline=time.monotonic() - 1)


def test_a_frame_that_never_comes_is_late_at_the_deadline(pipe: tuple[int, int]) -> None:
    read_end, _write_end = pipe
    started = time.monotonic()
    with pytest.raises(LateFrame, match=r"^late$"):
        read_frame(read_end, deadline=started + 0.2)
    assert 0.15 <= time.monotonic() - started < 2


@pytest.mark.parametrize(
    "payload",
    [b"{nope", b"\xff\xfe[1]", b"[1] [2]", b""],
    ids=["broken-json", "not-utf-8", "two-values", "empty"],
)
def test_bytes_that_are_not_one_json_value_are_a_frame_error(
    pipe: tuple[int, int], payload: bytes
) -> None:
    read_end, write_end = pipe
    os.write(write_end, len(payload).to_bytes(4, "big") + payload)
    with pytest.raises(BadFrame, match=r"^an answer that is not JSON"):
        read_frame(read_end)
