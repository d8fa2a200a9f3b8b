"""System replay: the one system message the model sees, from every system message of a path.

Chapter 11 §4 rule 2, and §6 「system 状态跨过 compaction 边界」 (system state
crosses the compaction boundary). System messages are not conversation but
*prompt state*: a later one appends its content, overwrites a section by name
or deletes it with ``None``. The messages are Chapter 3's (``course_lib.base.messages``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from course_lib.base.messages import MessageModel, SystemMessage, system_message_text


def current_system_message(messages: Sequence[MessageModel]) -> SystemMessage | None:
    """Replay every system message in order into the one the model should see.

    Chapter 11 §6 「system 状态跨过 compaction 边界」, Chapter 3's rule: non-empty
    contents are appended (joined by a blank line), sections are overwritten
    by name and deleted by ``None``.

    Args:
        messages: any messages, in path order; only system messages are read.

    Returns:
        A new system message timestamped like the first, with ``sections``
        only when one remains; ``None`` when there is no system message.

    The chapter's replay across a compaction (§6, ``system_replay_fixture``):

    >>> from course_lib.chapter.fixture import system_replay_fixture
    >>> path = system_replay_fixture()
    >>> replayed = current_system_message([entry.message for entry in path if entry.type == "message"])
    >>> replayed.content, replayed.sections
    ('BASE\\n\\nPrefer small diffs.', {'rules': 'RULE v2'})
    >>> system_message_text(replayed)
    'BASE\\n\\nPrefer small diffs.\\n\\nRULE v2'
    """
    systems = [message for message in messages if message.role == "system"]
    if not systems:
        return None
    contents: list[str] = []
    sections: dict[str, str] = {}
    for message in systems:
        if message.content:
            contents.append(message.content)
        for name, value in (message.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
    fields: dict[str, Any] = {"sections": sections} if sections else {}
    return SystemMessage(content="\n\n".join(contents), timestamp=systems[0].timestamp, **fields)


def current_system_prompt(messages: Sequence[MessageModel]) -> str | None:
    """The replayed system message's prompt text, or ``None`` without one."""
    replayed = current_system_message(messages)
    return None if replayed is None else system_message_text(replayed)
