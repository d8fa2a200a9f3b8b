"""Lab 11.2: split a path's messages into interactions that are kept or dropped whole.

Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 (both tool results still belong
to the group u3 opens): calls pair with results by id only, never by position.
"""

from collections.abc import Sequence

from course_lib.base.errors import InteractionError
from course_lib.chapter.models import (
    InteractionGroup,
    MessageEntry,
    SessionEntry,
    require_message_entries,
)


def record_tool_facts(entry: MessageEntry, calls: dict[str, str], results: dict[str, str]) -> None:
    """Record the calls ``entry`` declares or the call it answers (call id -> entry id).

    §3 · Lab 11.2. Each ``toolCall`` block of an assistant message declares one; a tool result
    answers ``tool_call_id``. A repeat: ``InteractionError`` with "duplicate", entry and call id.
    """
    # --- Lab 11.2 interaction groups: begin ---
    message = entry.message
    if message.role == "assistant":
        for block in message.content:
            if block.type != "toolCall":
                continue
            if block.id in calls:
                raise InteractionError(
                    f"entry {entry.id}: duplicate tool call id {block.id!r} "
                    f"(already declared by entry {calls[block.id]})"
                )
            calls[block.id] = entry.id
    elif message.role == "toolResult":
        call_id = message.tool_call_id
        if call_id in results:
            raise InteractionError(
                f"entry {entry.id}: duplicate result for call {call_id!r} "
                f"(already answered by entry {results[call_id]})"
            )
        results[call_id] = entry.id
    # --- Lab 11.2: end ---


def check_tool_pairs(calls: dict[str, str], results: dict[str, str]) -> None:
    """When an interaction closes (a result may come before its call), check calls and results pair.

    §3 · Lab 11.2. Else ``InteractionError``: "unknown call" or "missing result", entry, call id.
    """
    # --- Lab 11.2 interaction groups: begin ---
    for call_id, result_id in results.items():
        if call_id not in calls:
            raise InteractionError(
                f"entry {result_id}: result for unknown call {call_id!r} "
                "(no call with that id in this interaction)"
            )
    for call_id, declared_by in calls.items():
        if call_id not in results:
            raise InteractionError(
                f"missing result for call {call_id!r} declared by entry {declared_by}"
            )
    # --- Lab 11.2: end ---


def split_interactions(entries: Sequence[MessageEntry]) -> list[InteractionGroup]:
    """Split message entries into interactions, oldest first; system messages join none.

    §3 · Lab 11.2. A user message closes the open interaction (``check_tool_pairs``) and opens
    the next; the others join it (``record_tool_facts``); before the first user message they
    are an ``InteractionError`` naming the entry and "before the first user message".
    """
    # --- Lab 11.2 interaction groups: begin ---
    groups: list[InteractionGroup] = []
    current: list[MessageEntry] = []
    calls: dict[str, str] = {}
    results: dict[str, str] = {}
    for entry in entries:
        role = entry.message.role
        if role == "system":
            continue
        if role == "user":
            if current:
                check_tool_pairs(calls, results)
                groups.append(InteractionGroup(entries=current))
            current, calls, results = [entry], {}, {}
        elif not current:
            raise InteractionError(
                f"entry {entry.id}: {role} message before the first user message"
            )
        else:
            record_tool_facts(entry, calls, results)
            current.append(entry)
    if current:
        check_tool_pairs(calls, results)
        groups.append(InteractionGroup(entries=current))
    return groups
    # --- Lab 11.2: end ---


def group_interactions(entries: Sequence[SessionEntry]) -> list[InteractionGroup]:
    """The interactions of ``entries`` (message entries only) as deep copies.

    Chapter 11 §3: the fixture's three groups, the third whole although ``r-test``
    answers the second call.

    >>> from course_lib.chapter.fixture import chapter_fixture
    >>> [group.entry_ids for group in group_interactions(chapter_fixture())]
    [['u1', 'a1'], ['u2', 'a2'], ['u3', 'calls', 'r-test', 'r-read', 'a3']]
    """
    messages = require_message_entries(entries)  # another entry is an error naming it
    return [
        InteractionGroup(entries=[entry.model_copy(deep=True) for entry in group.entries])
        for group in split_interactions(messages)
    ]
