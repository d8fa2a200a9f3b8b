"""Lab 11.2: split a path's messages into interactions that are kept or dropped whole.

Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 (both tool results still
belong to the group u3 opens). A user message opens an interaction; everything
up to the next user message belongs to it. Calls and results are paired by id
only, so a budget that keeps or drops whole groups never orphans half a round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from course_lib.base.errors import InteractionError

from .entries import MessageEntry, SessionEntry, require_message_entry


@dataclass(frozen=True, slots=True)
class InteractionGroup:
    """One user interaction: its user message and every message up to the next one."""

    entries: list[MessageEntry]

    @property
    def entry_ids(self) -> list[str]:
        """The ids of the group's entries, in path order."""
        return [entry.id for entry in self.entries]


@dataclass(slots=True)
class _OpenGroup:
    """The interaction being collected, with the tool facts it has seen so far.

    Four id rules, each an ``InteractionError`` naming its ids: a call id is
    declared once and answered at most once (``add``); every result answers a
    call of this group and every call is answered (``close``: a result may
    arrive before its call).
    """

    entries: list[MessageEntry]
    calls: dict[str, str] = field(default_factory=dict)  # call id -> declaring entry id
    results: dict[str, str] = field(default_factory=dict)  # call id -> result entry id

    def add(self, entry: MessageEntry) -> None:
        """Record ``entry``'s tool facts and append it, refusing a duplicate at once.

        Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 · Lab 11.2.
        An assistant message declares a call per ``toolCall`` block (a text
        block between them declares nothing: look at every block); a tool
        result answers ``tool_call_id``. No later entry can repair a duplicate.

        Raises:
            InteractionError: "duplicate", naming the entry id and the call id.
        """
        # --- Lab 11.2 interaction groups: begin ---
        message = entry.message
        if message.role == "assistant":
            for block in message.content:
                if block.type != "toolCall":
                    continue
                if block.id in self.calls:
                    raise InteractionError(
                        f"entry {entry.id}: duplicate tool call id {block.id!r} "
                        f"(already declared by entry {self.calls[block.id]})"
                    )
                self.calls[block.id] = entry.id
        elif message.role == "toolResult":
            call_id = message.tool_call_id
            if call_id in self.results:
                raise InteractionError(
                    f"entry {entry.id}: duplicate result for call {call_id!r} "
                    f"(already answered by entry {self.results[call_id]})"
                )
            self.results[call_id] = entry.id
        self.entries.append(entry)
        # --- Lab 11.2: end ---

    def close(self) -> InteractionGroup:
        """Once every entry is known, check that results and calls pair up; return the group.

        Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 · Lab 11.2.

        Returns:
            ``InteractionGroup(entries=self.entries)``.

        Raises:
            InteractionError: "unknown call" (the result's entry id and the call
                id) or "missing result" (the call id and the entry that declared it).
        """
        # --- Lab 11.2 interaction groups: begin ---
        for call_id, result_id in self.results.items():
            if call_id not in self.calls:
                raise InteractionError(
                    f"entry {result_id}: result for unknown call {call_id!r} "
                    "(no call with that id in this interaction)"
                )
        for call_id, declared_by in self.calls.items():
            if call_id not in self.results:
                raise InteractionError(
                    f"missing result for call {call_id!r} declared by entry {declared_by}"
                )
        return InteractionGroup(entries=self.entries)
        # --- Lab 11.2: end ---


def split_interactions(entries: Sequence[SessionEntry]) -> list[InteractionGroup]:
    """Split message entries into interactions; system messages belong to no group.

    Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 (both tool results
    still belong to the group u3 opens) · Lab 11.2.

    A user message closes the open group (``_OpenGroup.close``) and opens the
    next; an assistant message or tool result joins the open group
    (``_OpenGroup.add``); a system message is skipped wherever it is. Any other
    message before the first user message is an error naming its entry id and
    "before the first user message"; ``require_message_entry`` refuses an
    entry of another kind. The groups hold the caller's own entries, in path order.

    Args:
        entries: message entries in path order (leave a path's metadata and
            compaction entries out first).

    Returns:
        The interactions, oldest first.

    Raises:
        InteractionError: naming the entry and call ids it is about.
    """
    # --- Lab 11.2 interaction groups: begin ---
    groups: list[InteractionGroup] = []
    current: _OpenGroup | None = None
    for entry in entries:
        if type(entry) is not MessageEntry:
            entry = require_message_entry(entry, entries)
        role = entry.message.role
        if role == "user":
            if current is not None:
                groups.append(current.close())
            current = _OpenGroup(entries=[entry])  # a user message declares no tool facts
        elif role == "system":
            continue
        elif current is None:
            raise InteractionError(
                f"entry {entry.id}: {role} message before the first user message"
            )
        else:
            current.add(entry)
    if current is not None:
        groups.append(current.close())
    return groups
    # --- Lab 11.2: end ---


def group_interactions(entries: Sequence[SessionEntry]) -> list[InteractionGroup]:
    """The interactions of ``entries`` as deep copies (errors: ``split_interactions``'s).

    Chapter 11 §3: the chapter's three groups, the third whole although
    ``r-test`` answers the second call.

    >>> from course_lib.chapter.fixture import chapter_fixture
    >>> [group.entry_ids for group in group_interactions(chapter_fixture())]
    [['u1', 'a1'], ['u2', 'a2'], ['u3', 'calls', 'r-test', 'r-read', 'a3']]
    """
    return [
        InteractionGroup(entries=[entry.model_copy(deep=True) for entry in group.entries])
        for group in split_interactions(entries)
    ]
