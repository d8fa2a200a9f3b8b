"""One message on the call channel: a 4-byte big-endian length, then that much JSON (UTF-8).

Why lengths: the judge reads exactly one answer per call and knows its size
before reading it, so an oversized answer is refused unread, and nothing a
submission writes in between can be mistaken for the end of one.
"""

from __future__ import annotations

import json
import os
import select
import time
from typing import Any

__all__ = [
    "ANSWER_LIMIT",
    "BadFrame",
    "ChannelClosed",
    "FrameError",
    "LateFrame",
    "read_frame",
    "write_frame",
]

ANSWER_LIMIT = 64 * 2**20
"""The largest answer the judge reads; the chapter's largest is a few kilobytes per entry."""


class FrameError(Exception):
    """The other side closed, was late, or sent something that is not one frame."""


class LateFrame(FrameError):
    """Nothing came before the deadline."""


class ChannelClosed(FrameError):
    """The other side closed its end (its process ended)."""


class BadFrame(FrameError):
    """Something came that is not one frame: too big, or not JSON."""


def write_frame(fd: int, message: Any) -> None:
    """Send ``message`` as one frame (``NaN`` and ``Infinity`` allowed: budgets may hold them)."""
    data = json.dumps(message, separators=(",", ":")).encode("utf-8")
    payload = len(data).to_bytes(4, "big") + data
    while payload:
        written = os.write(fd, payload)
        payload = payload[written:]


def read_frame(fd: int, *, limit: int = ANSWER_LIMIT, deadline: float | None = None) -> Any:
    """The next frame's JSON; ``FrameError`` if it is late (``deadline``), too big or torn."""
    size = int.from_bytes(_read_exactly(fd, 4, deadline), "big")
    if size > limit:
        raise BadFrame(f"an answer of {size:,} bytes, over the limit of {limit:,}")
    data = _read_exactly(fd, size, deadline)
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise BadFrame(f"an answer that is not JSON ({type(error).__name__})") from None


def _read_exactly(fd: int, count: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    left = count
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise LateFrame("late")
        chunk = os.read(fd, min(left, 2**20))
        if not chunk:
            raise ChannelClosed("closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
