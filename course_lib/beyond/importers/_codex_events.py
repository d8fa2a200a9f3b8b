"""Where a Codex ``user_message`` event meets the response item it copies, if any.

Codex writes a user's message twice: as a ``response_item`` (what the model is
sent) and as a ``user_message`` event (what the interface showed), close
together, in either order, before the model answers. Archived and forked
rollouts can hold the event alone; then the event's text is the only record of
what the user asked. ``Window`` pairs the two by text within a turn, so the
importer uses an event's text only when no item carries it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TEXT_PARTS", "Heard", "Window", "match_keys"]

REQUEST_HEADING = "## My request for Codex:"  # early versions put it before the user's text
TEXT_PARTS = ("input_text", "output_text", "text")  # the content parts that hold text


@dataclass
class Heard:
    """A ``user_message`` event, until its turn shows whether an item carries its text."""

    line: int
    timestamp: int | float
    text: str
    images: list[Any]
    copy: bool = False  # a response item carries the text: the event is its copy


class _Item:
    """A user message item, until an event claims it as the item it copies."""

    __slots__ = ("claimed",)

    def __init__(self) -> None:
        self.claimed = False


_Pool = dict[str, deque[_Item]]
"""Items no event has claimed yet, under each text an event of theirs may carry."""


@dataclass
class Window:
    """The user-side records since the model last answered, where an event meets its item.

    Codex writes the item and the event of one user message close together, in
    either order, before the model answers. ``items`` holds this turn's items no
    event has claimed, ``earlier`` those of the turn before (for an event written
    once the model had begun), each under every text its event may carry
    (``match_keys``). Lookups by text, and each item and event is queued and
    dequeued once, so each record costs the same however long the file is.
    """

    items: _Pool = field(default_factory=dict)
    earlier: _Pool = field(default_factory=dict)
    heard: list[Heard] = field(default_factory=list)
    waiting: dict[str, deque[Heard]] = field(default_factory=dict)  # unclaimed, by text

    def item(self, keys: set[str]) -> None:
        """A user message item: the copy of an event waiting with its text, or one to wait."""
        if self.waiting:  # only an event written before its item waits
            for key in keys:
                waiting = self.waiting.get(key)
                if waiting:
                    waiting.popleft().copy = True
                    return
        unclaimed = _Item()
        items = self.items
        for key in keys:
            queue = items.get(key)
            if queue is None:
                queue = items[key] = deque()
            queue.append(unclaimed)

    def event(self, heard: Heard) -> None:
        """A user_message event: the copy of an item with its text, or one to wait."""
        self.heard.append(heard)
        key = heard.text.strip()
        for pool in (self.items, self.earlier):
            queue = pool.get(key)
            while queue:
                found = queue.popleft()
                if not found.claimed:
                    found.claimed = heard.copy = True
                    return
        self.waiting.setdefault(key, deque()).append(heard)

    def close(self) -> list[Heard]:
        """The turn's events, in file order; the next turn starts (unless none began)."""
        heard = self.heard
        if heard or self.items:
            self.earlier, self.items = self.items, {}
            self.heard, self.waiting = [], {}
        return heard


def _is_image_tag(text: str) -> bool:
    """Whether a text part only wraps an image (``<image>``, ``<image name=...>``, ``</image>``)."""
    return text in ("<image>", "</image>") or (
        text.startswith("<image name=") and text.endswith(">")
    )


def match_keys(content: Any) -> set[str]:
    """The texts a user item's event may carry: its own text parts (image tags left out),
    joined or one by one, with or without Codex's old request heading; stripped."""
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        texts = [part["text"] for part in content if isinstance(part, dict)
                 and part.get("type") in TEXT_PARTS and isinstance(part.get("text"), str)]  # fmt: skip
    else:
        texts = []
    own = [text for text in texts if not _is_image_tag(text)]
    if len(own) == 1:  # the usual item, one text: both its joins are that text
        keys = {own[0], own[0].strip().removeprefix(REQUEST_HEADING)}
    else:
        keys = {"\n".join(own), "".join(own), *own}
        keys |= {key.strip().removeprefix(REQUEST_HEADING) for key in keys}
    return {key.strip() for key in keys}
