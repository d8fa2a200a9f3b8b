"""Lab 11.1: both stores keep what ``parse_session_entry`` returns; the active path.

Chapter 11 §2 「摘要先成为 session 中的一条普通事实」: Chapter 10's two stores
already take their write snapshot from ``parse_session_entry``, so once the
parser knows the compaction entry, ``InMemorySessionStore`` and
``JsonlSessionStore`` need no compaction code of their own, and reopening a
JSONL file restores ``compact-1`` through the same parser. The locking, the
torn-tail recovery and the line reader are the base layer's
(``course_lib.base.stores``); this module binds them to the chapter's entries.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from course_lib.base.fast_reading import FastLineReader
from course_lib.base.stores import (
    EntryCodec,
    InMemoryStore,
    JsonlStore,
    SessionReadResult,
    active_path,
    read_jsonl_file,
    read_jsonl_text,
)
from course_lib.base.wire import DEFAULT_LIMITS, JsonLimits

from .entries import MessageEntry, MetadataEntry, SessionEntry, parse_session_entry, validate_entry
from .messages import MessageModel

SESSION_ENTRIES: EntryCodec[SessionEntry] = EntryCodec(
    parse_session_entry, validate_entry, read_fast=FastLineReader(MessageEntry, MetadataEntry)
)
"""How both stores read and write the chapter's entries: through ``parse_session_entry``
(a message or metadata line may be read straight from its text, with the same result)."""


class InMemorySessionStore(InMemoryStore[SessionEntry]):
    """An append-only list of parsed entries; ``append`` refuses a duplicate id or unknown parent.

    ``limits``: it accepts only entries whose JSONL line the readers accept under them.
    """

    def __init__(self, *, limits: JsonLimits = DEFAULT_LIMITS) -> None:
        super().__init__(SESSION_ENTRIES, limits=limits)


class JsonlSessionStore(JsonlStore[SessionEntry]):
    """A session kept as one JSON entry per line; every append is one committed line."""

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, limits: JsonLimits = DEFAULT_LIMITS
    ) -> JsonlSessionStore:
        """Open (creating the file and its folders when missing) and validate the whole file.

        ``limits`` apply to the lines read now and to every line appended later.
        """
        return cls.open_with(path, SESSION_ENTRIES, limits=limits)


def read_session_file(
    path: str | os.PathLike[str], *, limits: JsonLimits = DEFAULT_LIMITS
) -> SessionReadResult[SessionEntry]:
    """Read a session file without creating, touching or locking anything (for inspection)."""
    return read_jsonl_file(path, SESSION_ENTRIES, limits)


def recover_jsonl(
    text: str, *, limits: JsonLimits = DEFAULT_LIMITS
) -> SessionReadResult[SessionEntry]:
    """Chapter 10's rule on JSONL text: committed lines only; a torn tail is a warning."""
    return read_jsonl_text(text, SESSION_ENTRIES, limits)


def parse_entry_line(text: str, limits: JsonLimits = DEFAULT_LIMITS) -> SessionEntry:
    """One committed JSONL line to its entry (``parse_session_entry`` of its strict JSON)."""
    return SESSION_ENTRIES.parse_line(text, limits)


def parse_fresh_entry(
    value: Any, *, schema_keys_only: bool = False, limits: JsonLimits = DEFAULT_LIMITS
) -> SessionEntry:
    """``parse_session_entry`` for a dict just built from parsed JSON, without the copy."""
    return SESSION_ENTRIES.parse_fresh(value, schema_keys_only=schema_keys_only, limits=limits)


def path_to(entries: Iterable[SessionEntry], leaf_id: str) -> list[SessionEntry]:
    """The active path from the root to ``leaf_id``, root first, as fresh copies."""
    return [parse_session_entry(entry) for entry in active_path(entries, leaf_id)]


def messages_on_path(entries: Sequence[SessionEntry], leaf_id: str) -> list[MessageModel]:
    """The agent messages on the active path to ``leaf_id``, in order, as copies."""
    return [entry.message for entry in path_to(entries, leaf_id) if isinstance(entry, MessageEntry)]
