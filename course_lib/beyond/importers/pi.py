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
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from ...base.errors import SessionEntryError
from ...base.text_rules import is_blank
from ...base.wire import DEFAULT_LIMITS, JsonLimits, JsonValueError, check_wire_limits
from ...base.wire import limits_in_force as _limits_in_force
from ...chapter.entries import parse_session_entry
from ...chapter.models import SessionEntry
from ...chapter.sessions import parse_fresh_entry, path_to
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
from ._pi_read import (
    CommittedLines,
    RawRecord,
    read_regular_file,
    split_pi_bytes,
    split_pi_text,
    take_records,
)
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
_SURROGATE = re.compile("[\ud800-\udfff]")

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
    limits: JsonLimits = DEFAULT_LIMITS,
) -> ImportResult:
    """Read the pi session file at ``path`` (read-only) and import it (see ``import_pi_text``)."""
    file = Path(path)
    try:
        committed = split_pi_bytes(read_regular_file(file))  # the bytes are let go at once
    except OSError as error:
        raise PiImportError(f"cannot read {file.name}: {error.strerror or error}") from None
    return _import(committed, on_missing_result, progress, careful=False, limits=limits)


def import_pi_bytes(
    data: bytes,
    *,
    on_missing_result: MissingResultPolicy = "repair",
    progress: Progress | None = None,
    limits: JsonLimits = DEFAULT_LIMITS,
) -> ImportResult:
    """Import the bytes of a pi session file; only committed lines must be valid UTF-8."""
    return _import(split_pi_bytes(data), on_missing_result, progress, careful=False, limits=limits)


def import_pi_text(
    text: str,
    *,
    on_missing_result: MissingResultPolicy = "repair",
    progress: Progress | None = None,
    limits: JsonLimits = DEFAULT_LIMITS,
) -> ImportResult:
    """Import the text of a pi session file; pure, so tests can build files in memory."""
    # Decoded bytes never hold a lone surrogate; a text may, and then every entry
    # takes the checking copy, which names the field that holds it.
    careful = not text.isascii() and _SURROGATE.search(text) is not None
    return _import(split_pi_text(text), on_missing_result, progress, careful=careful, limits=limits)


def _import(
    committed: CommittedLines,
    on_missing_result: MissingResultPolicy,
    progress: Progress | None,
    *,
    careful: bool,
    limits: JsonLimits = DEFAULT_LIMITS,
) -> ImportResult:
    """Read, convert, repair and validate, holding only what the next step needs.

    The lines are released as they are read and the drafts as they become
    entries, so the import never holds a file's text, its records and its
    entries at once. ``limits`` bound the pi lines read and the course lines
    the entries become: whatever is returned, a store writes and reads back.
    """
    if on_missing_result not in get_args(MissingResultPolicy):
        raise PiImportError(
            f"on_missing_result must be 'repair', 'drop' or 'error', got {on_missing_result!r}"
        )
    notes = NoteLog()
    if committed.tail_line is not None:
        notes.add(
            NoteKind.UNTERMINATED_TAIL,
            committed.tail_line,
            None,
            f"the last line ({committed.tail_chars:,} characters) has no newline: a write that "
            "never committed, left out as Chapter 10 reads files",
        )
    built = _build_drafts(committed, notes, progress, limits)
    header_id, leaf_id = built.drafts[0].id, built.drafts[-1].id
    outcome = repair_tree(built.drafts, leaf_id, on_missing_result, notes)
    built.drafts.clear()  # the repaired list holds them now
    resolve_first_kept(outcome.drafts, built.index_ids, header_id, notes)
    entries = _parse_drafts(
        outcome.drafts,
        built.source.records,
        progress,
        careful=careful,
        limits=limits,
        near_limits=committed.near_limits,
    )
    return ImportResult(
        entries=entries, leaf_id=outcome.leaf_id, notes=notes.finish(), source=built.source
    )


def _check_writable(entry: SessionEntry, line: int | None, limits: JsonLimits) -> None:
    """Refuse an entry whose course line a store would refuse to write (and no reader could read)."""
    try:
        with _limits_in_force(limits):
            check_wire_limits(entry.to_wire(), limits)
    except JsonValueError as error:
        problem = (
            f"entry {entry.id}: as a course line it would break the limits every reader "
            f"applies ({error}), so no store could write it and read it back"
        )
        if line is None:
            raise PiImportError(f"an entry the importer added: {problem}") from None
        raise PiImportError(problem, line=line) from None


def _header_version(header: RawRecord | None, committed: CommittedLines) -> int:
    """The format version from the header (no version = v1); anything else is an error."""
    if header is None:
        torn = (
            f" (line {committed.tail_line} has no newline, so it never committed)"
            if committed.tail_line
            else ""
        )
        raise PiImportError(f"no committed line: not a pi session file (no header){torn}")
    line, _index, record = header
    if not is_pi_session_header(record):
        raise PiImportError(
            f"the first entry has type {shown(record['type'])}, not a pi 'session' header",
            line=line,
        )
    version = record.get("version", 1)
    if isinstance(version, bool) or version not in SUPPORTED_VERSIONS:
        raise PiImportError(
            f"unsupported pi session version {shown(version)} (supported: 1, 2, 3)", line=line
        )
    return int(version)  # 1.0 == 1 passes the check; the source records the int


def _line_ids(width: int) -> Callable[[int], str]:
    """Stable ids from line numbers (``L0005`` is line 5), zero-padded so ids sort like lines.

    A bound ``str.format``, made once per file: it is called for every line of a v1 file.
    """
    return f"L{{:0{width}d}}".format


class _TreeIds:
    """(id, parent id) of each record of a v2/v3 file, in order; roots hang under the header."""

    def __init__(self, header_id: str, notes: NoteLog) -> None:
        self.header_id = header_id
        self.seen = {header_id}
        self.notes = notes

    def next(self, line: int, record: dict[str, Any]) -> tuple[str, str]:
        """The course id and parent of the record (on ``line``) after the ones seen so far."""
        entry_id, parent = record.get("id"), record.get("parentId")
        if not isinstance(entry_id, str) or is_blank(entry_id):
            raise PiImportError(
                f"entry id must be a non-blank string, got {shown(entry_id)}", line=line
            )
        if entry_id in self.seen:
            raise PiImportError(f"duplicate entry id {entry_id!r}", line=line)
        if parent is None:
            parent = self.header_id
            self.notes.add(
                NoteKind.ROOT_REPARENTED,
                line,
                entry_id,
                f"a root entry of the pi tree: hung under the header entry {self.header_id}",
            )
        elif not isinstance(parent, str) or parent not in self.seen:
            raise PiImportError(
                f"entry {entry_id}: parent {shown(parent)} does not appear on an earlier line",
                line=line,
            )
        self.seen.add(entry_id)
        return entry_id, parent


@dataclass
class _Built:
    """The drafts of a file, pi's record index -> course id, and what the file held."""

    drafts: list[Draft]
    index_ids: list[str]  # the course id of each record, at pi's index of it
    source: PiSource


def _build_drafts(
    committed: CommittedLines,
    notes: NoteLog,
    progress: Progress | None,
    limits: JsonLimits = DEFAULT_LIMITS,
) -> _Built:
    """One draft per record, with course ids and parents, reading the lines one at a time.

    The records themselves are not kept: each becomes its draft and is let go.
    Notes about re-parented roots come first, as if the ids were read in a pass of their own.
    """
    width = max(4, len(str(committed.last_record_line)))
    records = take_records(committed, limits)
    header = next(records, None)
    version = _header_version(header, committed)
    assert header is not None
    header_line, header_index, header_record = header
    line_id = _line_ids(width)
    header_id = line_id(header_line)
    tree_notes = NoteLog()
    tree = _TreeIds(header_id, tree_notes) if version != 1 else None
    converter = Converter(notes)
    drafts = [
        converter.convert(header_record, line=header_line, entry_id=header_id, parent_id=None)
    ]
    index_ids = [header_id]  # pi counts the records from 0, the header first
    # The type of every record and the role of every message, counted once all are read
    # (``Counter`` counts a list at C speed).
    types = ["session"]  # the header's type, checked above
    roles: list[str] = []
    total = 2 * committed.count  # blank lines included: an estimate until all are read
    if progress is not None:
        progress(header_index, total)
    entry_id = header_id
    before = len(notes.notes)
    convert = converter.convert
    for line, index, record in records:
        if tree is None:  # v1: ids from line numbers, each entry the child of the one before
            entry_id, parent_id = line_id(line), entry_id
        else:
            entry_id, parent_id = tree.next(line, record)
        drafts.append(convert(record, line, entry_id, parent_id))
        index_ids.append(entry_id)
        kind = record["type"]
        types.append(kind)
        if kind == "message" and isinstance(message := record.get("message"), dict):
            roles.append(message["role"])  # converted, so a string
        if progress is not None and index % 100 == 0:
            progress(index, total)
    notes.notes[before:before] = tree_notes.notes
    session_id = header_record.get("id")
    source = PiSource(
        version=version,
        session_id=session_id if isinstance(session_id, str) else None,
        records=len(drafts),
        entry_counts=dict(Counter(types).most_common()),
        role_counts=dict(Counter(roles).most_common()),
    )
    return _Built(drafts, index_ids, source)


def _parse_drafts(
    drafts: list[Draft],
    records: int,
    progress: Progress | None,
    *,
    careful: bool,
    limits: JsonLimits = DEFAULT_LIMITS,
    near_limits: set[int] | None = None,
) -> list[SessionEntry]:
    """Every draft crosses the course boundary; a refusal names the pi line.

    The drafts were built fresh from parsed JSON, each key written from the course
    schema's own names, and share no list or dict, so each entry takes over its
    draft's values instead of copying them and skips the search for unknown
    keys (unless ``careful``); the list is emptied as they become entries.
    Progress continues from the build phase: ``records`` steps each, ``2 * records``
    in all.

    An entry from a line in ``near_limits`` (and, when there is one, every
    entry the importer added) is measured as a store measures it before writing: an entry whose course line
    no reader would accept under ``limits`` is refused here, naming its pi line,
    instead of making a file that cannot be opened again.
    """
    entries: list[SessionEntry] = []
    count = len(drafts)
    near = near_limits or set()
    checking = careful or limits is not DEFAULT_LIMITS  # asked once, not for every draft
    drafts.reverse()  # popped from the end: each draft is let go once it is an entry
    while drafts:
        draft = drafts.pop()
        try:
            if checking:
                with _limits_in_force(limits):
                    entry = parse_session_entry(draft.wire)
            else:
                entry = parse_fresh_entry(draft.wire, schema_keys_only=True)
        except SessionEntryError as error:
            if draft.line is None:
                raise PiImportError(f"an entry the importer added: {error}") from error
            raise PiImportError(str(error), line=draft.line) from error
        # An entry the importer added holds only fixed text and ids from the file, so it
        # can break a limit only when some line of the file came near one (most files: none).
        if near and (draft.line in near or draft.line is None):
            _check_writable(entry, draft.line, limits)
        entries.append(entry)
        if progress is not None and (position := len(entries) - 1) % 100 == 0:
            progress(records + position * records // count, 2 * records)
    if progress is not None:
        progress(2 * records, 2 * records)
    return entries
