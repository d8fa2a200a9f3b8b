"""Lab 11.2: split a path's messages into interactions that are kept or dropped whole.

Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 (both tool results still
belong to the group u3 opens). A user message opens an interaction; everything
up to the next user message belongs to it. Tool calls and results are paired
by id only, so a budget that keeps or drops a whole group can never orphan
half of a tool round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from course_lib.base.errors import InteractionError

from .entries import (
    CompactionEntry,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    require_session_entries,
)


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

    Calls and results are paired by id only: never by position, by ``toolName``
    or by which assistant message comes last. Four id rules, each an
    ``InteractionError`` naming the ids it is about: (1) a call id is declared
    once and (2) answered at most once, checked in ``add``; (3) a result
    answers a call of this group and (4) every call is answered, checked in
    ``close``, since a result may arrive before its call.
    """

    entries: list[MessageEntry]
    calls: dict[str, str] = field(default_factory=dict)  # call id -> declaring entry id
    results: dict[str, str] = field(default_factory=dict)  # call id -> result entry id

    def add(self, entry: MessageEntry) -> None:
        """Record ``entry``'s tool facts and append it; rules 1 and 2 (duplicates) are checked now.

        Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 · Lab 11.2.

        An assistant message declares a call per ``toolCall`` block (a text
        block between them declares nothing: look at every block); a tool
        result answers ``tool_call_id``. A duplicate can never be repaired by
        a later entry, so it is refused at once; whether a result's call
        exists is only known at ``close``.

        Args:
            entry: the next message entry of the group, in path order.

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
        """Check rules 3 and 4 once all the group's entries are known; return the group.

        Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 · Lab 11.2.

        Only now can a result be called unknown (its call may come after it),
        or a call be missing its result.

        Returns:
            The group, holding the entries as given.

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


def _refuse_non_message(entry: object, entries: object) -> MessageEntry:
    """Say why ``entry`` cannot be grouped: another entry type, or not an entry object at all.

    A subclass of ``MessageEntry`` is still a message entry: it is returned as it is.
    """
    if isinstance(entry, MessageEntry):
        return entry
    if isinstance(entry, MetadataEntry | CompactionEntry):
        raise InteractionError(
            f"entry {entry.id}: a {entry.type} entry is not a message; "
            "group only the message entries of a path"
        )
    # A wire dict or a foreign object: every item before it was a message entry, so the
    # whole-path check stops at this one and names its id and its position.
    if isinstance(entries, Sequence):
        require_session_entries(entries)
    require_session_entries([entry])  # a one-pass iterable: refused without its position
    raise AssertionError(f"{entry!r} passed the entry check without being a session entry")


def split_interactions(entries: Sequence[SessionEntry]) -> list[InteractionGroup]:
    """Split message entries into interactions; system messages belong to no group.

    Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 (both tool results
    still belong to the group u3 opens) · Lab 11.2.

    A user message closes the open group (``_OpenGroup.close``) and opens the
    next; an assistant message or tool result joins the open group
    (``_OpenGroup.add``); a system message is skipped wherever it is. Any other
    message before the first user message is an error naming its entry id with
    the words "before the first user message"; an entry that is not a message
    entry is refused by ``_refuse_non_message``. Entries keep their path order.
    The groups hold the caller's own entries (``group_interactions`` copies).

    Args:
        entries: message entries in path order (a whole path's metadata or
            compaction entries must be left out first).

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
            entry = _refuse_non_message(entry, entries)
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
    """The interactions of ``entries`` as deep copies that share nothing with them.

    Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」: the chapter's three
    groups, the third one whole although ``r-test`` answers the second call.

    >>> from course_lib.chapter.fixture import chapter_fixture
    >>> [group.entry_ids for group in group_interactions(chapter_fixture())]
    [['u1', 'a1'], ['u2', 'a2'], ['u3', 'calls', 'r-test', 'r-read', 'a3']]

    Errors are those of ``split_interactions``: the same rules, checked once.
    """
    return [
        InteractionGroup(entries=[entry.model_copy(deep=True) for entry in group.entries])
        for group in split_interactions(entries)
    ]
