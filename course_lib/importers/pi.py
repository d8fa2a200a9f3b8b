"""Import a real pi session file (format v1, v2 or v3) as course session entries.

Real sessions are messier than the chapter's fixture: aborted turns leave tool
calls without results, assistant messages carry thinking blocks and usage
fields the course schema lacks, users paste images. This importer converts
what maps cleanly, repairs what is repairable in a visible way, and reports
every change as an ``ImportNote`` with its line and entry id; whatever it
cannot map raises ``PiImportError`` naming the line.

Ids: v1 files have none, so entry ids are derived from line numbers
(``L0005`` is line 5) and each entry's parent is the entry on the line before.
v2/v3 files keep their ids and parents; the header becomes a metadata entry
(``L0001``) and the tree's roots hang under it, so every path starts at the
header. The leaf is the last entry of the file (moved only when a repair adds
entries after it). Entries the importer adds carry ids derived from what they
stand for (``<call id>.result``, ``<entry id>.user``).

Compactions: pi's summary markdown is mapped onto the seven course fields
(``_pi_summary``); the first kept entry (``firstKeptEntryId``, or in v1
``firstKeptEntryIndex``, counted as pi counts it: among the file's non-blank
lines, header included) moves to the user message that starts its interaction.

Timestamps: entry timestamps (ISO strings) become Unix milliseconds; message
timestamps are already milliseconds and are kept.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from ..entries import SessionEntry, parse_session_entry
from ..errors import SessionEntryError
from ..stores import path_to
from ..text_rules import is_blank
from ._base import (
    ImportNote,
    NoteKind,
    NoteLog,
    PiImportError,
    PiMissingResultError,
    count_kinds,
    shown,
)
from ._pi_convert import Converter, Draft
from ._pi_read import RawFile, RawRecord, decode_pi_bytes, read_pi_records, read_regular_file
from ._pi_repair import MissingResultPolicy, repair_tree, resolve_first_kept

__all__ = [
    "ImportNote",
    "ImportResult",
    "MissingResultPolicy",
    "PiImportError",
    "PiMissingResultError",
    "PiSource",
    "Progress",
    "import_pi_bytes",
    "import_pi_session",
    "import_pi_text",
    "is_pi_session_header",
]

SUPPORTED_VERSIONS = (1, 2, 3)

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while entries are built (for a progress bar)."""


@dataclass(frozen=True)
class PiSource:
    """What the pi file held, before any mapping: version and counts by pi entry type."""

    version: int
    session_id: str | None
    records: int  # committed, non-blank lines (the header included)
    entry_counts: dict[str, int]  # pi entry ``type`` -> count, the header counted as "session"
    role_counts: dict[str, int]  # pi message ``role`` -> count (message entries only)


@dataclass(frozen=True)
class ImportResult:
    """Course entries (parents before children), the leaf, every change made, and the source."""

    entries: list[SessionEntry]
    leaf_id: str
    notes: list[ImportNote]
    source: PiSource

    def active_path(self, leaf_id: str | None = None) -> list[SessionEntry]:
        """The path from the header to ``leaf_id`` (default: the imported leaf), as copies."""
        return path_to(self.entries, leaf_id or self.leaf_id)

    def note_counts(self) -> dict[str, int]:
        """How many notes of each kind, most frequent first."""
        return count_kinds(self.notes)


def is_pi_session_header(record: Any) -> bool:
    """Whether a file's first record is a pi session header (``{"type": "session", ...}``)."""
    return isinstance(record, dict) and record.get("type") == "session"


def import_pi_session(
    path: str | os.PathLike[str],
    *,
    on_missing_result: MissingResultPolicy = "repair",
    progress: Progress | None = None,
) -> ImportResult:
    """Read the pi session file at ``path`` (read-only) and import it (see ``import_pi_text``)."""
    file = Path(path)
    try:
        data = read_regular_file(file)
    except OSError as error:
        raise PiImportError(f"cannot read {file.name}: {error.strerror or error}") from None
    return import_pi_bytes(data, on_missing_result=on_missing_result, progress=progress)


def import_pi_bytes(
    data: bytes,
    *,
    on_missing_result: MissingResultPolicy = "repair",
    progress: Progress | None = None,
) -> ImportResult:
    """Import the bytes of a pi session file; only committed lines must be valid UTF-8."""
    return import_pi_text(
        decode_pi_bytes(data), on_missing_result=on_missing_result, progress=progress
    )


def import_pi_text(
    text: str,
    *,
    on_missing_result: MissingResultPolicy = "repair",
    progress: Progress | None = None,
) -> ImportResult:
    """Import the text of a pi session file; pure, so tests can build files in memory."""
    if on_missing_result not in get_args(MissingResultPolicy):
        raise PiImportError(
            f"on_missing_result must be 'repair', 'drop' or 'error', got {on_missing_result!r}"
        )
    raw = read_pi_records(text)
    notes = NoteLog()
    if raw.tail_line is not None:
        notes.add(
            NoteKind.UNTERMINATED_TAIL,
            raw.tail_line,
            None,
            f"the last line ({raw.tail_chars:,} characters) has no newline: a write that never "
            "committed, left out as Chapter 10 reads files",
        )
    version = _header_version(raw)
    drafts, index_ids = _build_drafts(raw, version, notes, progress)
    outcome = repair_tree(drafts, drafts[-1].id, on_missing_result, notes)
    resolve_first_kept(outcome.drafts, index_ids, drafts[0].id, notes)
    entries = _parse_drafts(outcome.drafts, len(raw.records), progress)
    return ImportResult(
        entries=entries,
        leaf_id=outcome.leaf_id,
        notes=notes.finish(),
        source=_source(raw, version),
    )


def _header_version(raw: RawFile) -> int:
    """The format version from the header (no version = v1); anything else is an error."""
    if not raw.records:
        torn = (
            f" (line {raw.tail_line} has no newline, so it never committed)"
            if raw.tail_line
            else ""
        )
        raise PiImportError(f"no committed line: not a pi session file (no header){torn}")
    header = raw.records[0]
    if not is_pi_session_header(header.record):
        raise PiImportError(
            f"the first entry has type {shown(header.record['type'])}, not a pi 'session' header",
            line=header.line,
        )
    version = header.record.get("version", 1)
    if isinstance(version, bool) or version not in SUPPORTED_VERSIONS:
        raise PiImportError(
            f"unsupported pi session version {shown(version)} (supported: 1, 2, 3)",
            line=header.line,
        )
    return version


def _line_id(line: int, width: int) -> str:
    """A stable id from a line number (``L0005``), zero-padded so ids sort like lines."""
    return f"L{line:0{width}d}"


def _tree_ids(records: list[RawRecord], width: int, notes: NoteLog) -> list[tuple[str, str | None]]:
    """(id, parent id) per record of a v2/v3 file; roots hang under the header."""
    header_id = _line_id(records[0].line, width)
    pairs: list[tuple[str, str | None]] = [(header_id, None)]
    seen = {header_id}
    for raw in records[1:]:
        entry_id, parent = raw.record.get("id"), raw.record.get("parentId")
        if not isinstance(entry_id, str) or is_blank(entry_id):
            raise PiImportError(
                f"entry id must be a non-blank string, got {shown(entry_id)}", line=raw.line
            )
        if entry_id in seen:
            raise PiImportError(f"duplicate entry id {entry_id!r}", line=raw.line)
        if parent is None:
            parent = header_id
            notes.add(
                NoteKind.ROOT_REPARENTED,
                raw.line,
                entry_id,
                f"a root entry of the pi tree: hung under the header entry {header_id}",
            )
        elif not isinstance(parent, str) or parent not in seen:
            raise PiImportError(
                f"entry {entry_id}: parent {shown(parent)} does not appear on an earlier line",
                line=raw.line,
            )
        seen.add(entry_id)
        pairs.append((entry_id, parent))
    return pairs


def _build_drafts(
    raw: RawFile, version: int, notes: NoteLog, progress: Progress | None
) -> tuple[list[Draft], dict[int, str]]:
    """One draft per record, with course ids and parents; also pi's record index -> course id."""
    records = raw.records
    width = max(4, len(str(records[-1].line)))
    if version == 1:
        ids = [_line_id(r.line, width) for r in records]
        pairs = list(zip(ids, [None, *ids[:-1]], strict=True))
    else:
        pairs = _tree_ids(records, width, notes)
    converter = Converter(notes)
    drafts: list[Draft] = []
    total = 2 * len(records)
    for position, (record, (entry_id, parent_id)) in enumerate(zip(records, pairs, strict=True)):
        drafts.append(
            converter.convert(
                record.record, line=record.line, entry_id=entry_id, parent_id=parent_id
            )
        )
        if progress is not None and position % 100 == 0:
            progress(position, total)
    return drafts, {record.index: pair[0] for record, pair in zip(records, pairs, strict=True)}


def _parse_drafts(
    drafts: list[Draft], records: int, progress: Progress | None
) -> list[SessionEntry]:
    """Every draft crosses the course boundary; a refusal names the pi line.

    Progress continues from the build phase: ``records`` steps each, ``2 * records`` in all.
    """
    entries: list[SessionEntry] = []
    for position, draft in enumerate(drafts):
        try:
            entries.append(parse_session_entry(draft.wire))
        except SessionEntryError as error:
            if draft.line is None:
                raise PiImportError(f"an entry the importer added: {error}") from error
            raise PiImportError(str(error), line=draft.line) from error
        if progress is not None and position % 100 == 0:
            progress(records + position * records // len(drafts), 2 * records)
    if progress is not None:
        progress(2 * records, 2 * records)
    return entries


def _source(raw: RawFile, version: int) -> PiSource:
    """What the file held before mapping: version, session id, counts by type and role."""
    records = [r.record for r in raw.records]
    roles = Counter(
        r["message"]["role"]
        for r in records
        if r["type"] == "message" and isinstance(r.get("message"), dict)
    )
    session_id = records[0].get("id")
    return PiSource(
        version=version,
        session_id=session_id if isinstance(session_id, str) else None,
        records=len(records),
        entry_counts=dict(Counter(r["type"] for r in records).most_common()),
        role_counts=dict(roles.most_common()),
    )
