"""Lab 11.1: the one parser every session entry crosses, the compaction entry included.

Chapter 11 §2 「摘要先成为 session 中的一条普通事实」 (the summary first becomes an ordinary
fact of the session): once the parser knows it, every store and reader does.
"""

from typing import Any

from pydantic import ValidationError

from course_lib.base.errors import SessionEntryError
from course_lib.base.validation import describe_validation_error, fresh_wire_dict
from course_lib.chapter.models import CompactionEntry, SessionEntry, validate_entry


def parse_session_entry(value: Any) -> SessionEntry:
    """Validate a camelCase wire dict (or an entry) into a fresh entry sharing nothing with it.

    §2. A ``SessionEntryError`` names the entry id and the camelCase field path:

    >>> from course_lib.chapter.fixture import chapter_fixture_after_compaction
    >>> wire = chapter_fixture_after_compaction()[10].to_wire()   # compact-1, as a file holds it
    >>> wire["summary"]["files"] = wire["summary"].pop("changedFiles")   # an old draft's name
    >>> parse_session_entry(wire)
    Traceback (most recent call last):
    course_lib.base.errors.SessionEntryError: session entry compact-1: summary.changedFiles: missing field; summary.files: unknown field
    """
    # Plain JSON first (copied, checked); then its model, or Lab 11.1's rule for a compaction.
    return validate_entry(fresh_wire_dict(value), parse_compaction)


def parse_compaction(value: dict[str, Any], label: str) -> CompactionEntry:
    """Turn a compaction's wire dict into a ``CompactionEntry``, or say exactly what is wrong.

    §2 · Lab 11.1. camelCase wire names only (``first_kept_entry_id`` is unknown); a
    ``ValidationError`` becomes ``SessionEntryError(f"{label}: {describe_validation_error(e)}")``.
    """
    # --- Lab 11.1 compaction entry: begin ---
    try:
        return CompactionEntry.model_validate(value, by_alias=True, by_name=False)
    except ValidationError as error:
        raise SessionEntryError(f"{label}: {describe_validation_error(error)}") from None
    # --- Lab 11.1: end ---
