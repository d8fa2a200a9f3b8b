"""Lab 11.1: both stores keep what ``parse_session_entry`` returns; the active path.

Chapter 11 §2 「摘要先成为 session 中的一条普通事实」: Chapter 10's stores take
their write snapshot from ``parse_session_entry``, so once the parser knows the
compaction entry neither store needs compaction code, and reopening a JSONL
file restores ``compact-1`` through the same parser. Locking, torn-tail
recovery and the line readers are the base layer's (``course_lib.base.stores``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from course_lib.base.fast_reading import FastLineReader
from course_lib.base.messages import MessageModel
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
from course_lib.chapter.models import MessageEntry, MetadataEntry, SessionEntry, validate_entry

from . import entries
from .entries import parse_session_entry

Parser = Callable[[Any], SessionEntry]
"""``parse_session_entry``'s shape: any value -> a fresh, validated entry."""


def validate_fresh_entry(value: dict[str, Any], *, schema_keys_only: bool = False) -> SessionEntry:
    """``validate_entry`` for a dict just read from JSON, a compaction by Lab 11.1's rule."""
    return validate_entry(value, entries.parse_compaction, schema_keys_only=schema_keys_only)


SESSION_ENTRIES: EntryCodec[SessionEntry] = EntryCodec(
    parse_session_entry,
    validate_fresh_entry,
    read_fast=FastLineReader(MessageEntry, MetadataEntry),
)
"""How both stores read and write entries: ``parse_session_entry``'s rules (a message or
metadata line may be read straight from its text, with the same result)."""

parse_entry_line = SESSION_ENTRIES.parse_line  # one committed JSONL line -> its entry
parse_fresh_entry = SESSION_ENTRIES.parse_fresh  # a dict just parsed from JSON, not copied


def session_codec(parser: Parser | None = None) -> EntryCodec[SessionEntry]:
    """The stores' codec: this module's ``SESSION_ENTRIES``, or one built on your ``parser``.

    Why a parser can be given: the stores need no compaction code, so a store
    bound to a practice package's ``parse_session_entry`` keeps exactly what
    that parser returns (every line and value goes through it, unhurried).
    """
    if parser is None:
        return SESSION_ENTRIES
    return EntryCodec(parser, lambda value, schema_keys_only=False: parser(value))


class InMemorySessionStore(InMemoryStore[SessionEntry]):
    """An append-only list of parsed entries (``limits``: the JSONL readers' own)."""

    def __init__(
        self, *, limits: JsonLimits = DEFAULT_LIMITS, parser: Parser | None = None
    ) -> None:
        super().__init__(session_codec(parser), limits=limits)


class JsonlSessionStore(JsonlStore[SessionEntry]):
    """A session kept as one JSON entry per line; every append is one committed line."""

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        limits: JsonLimits = DEFAULT_LIMITS,
        parser: Parser | None = None,
    ) -> JsonlSessionStore:
        """Open (creating the file and its folders when missing) and validate the whole file.

        ``parser``: the ``parse_session_entry`` every line and append goes
        through (default: the workbook's).
        """
        return cls.open_with(path, session_codec(parser), limits=limits)


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


def path_to(entries: Iterable[SessionEntry], leaf_id: str) -> list[SessionEntry]:
    """The active path from the root to ``leaf_id``, root first, as fresh copies."""
    return [parse_session_entry(entry) for entry in active_path(entries, leaf_id)]


def messages_on_path(entries: Sequence[SessionEntry], leaf_id: str) -> list[MessageModel]:
    """The agent messages on the active path to ``leaf_id``, in order, as copies."""
    return [entry.message for entry in path_to(entries, leaf_id) if isinstance(entry, MessageEntry)]
