"""Which record of a Claude Code file hangs under which, read once every record is known.

Claude Code appends records as it goes, so a record's parent is usually on an
earlier line, but not always, and a one-pass reader would get these wrong:

* **Parents that appear later.** A file copied or resumed after a compaction
  can write the compaction boundary before the messages it hangs under. Every
  link is read here, after the whole file, so the order of lines does not matter:
  the records are handed on parents first, otherwise in file order.
* **Partial compactions.** A boundary whose ``compactMetadata`` keeps messages
  (``preservedSegment``: ``headUuid`` ... ``tailUuid``, and/or
  ``preservedMessages``: a list of uuids, of ``{uuid}`` objects, or an object
  ``{anchorUuid, uuids}``) summarises the history before them and keeps them.
  The chapter keeps what it keeps *before* its compaction, where those messages
  were: the compaction hangs under the newest of them (usually its logical
  parent; the note names it), and
  the records Claude Code later chains onto the kept tail hang under the
  compaction instead, so the summary stays on the active path.
* **A record between a boundary and its summary** (an ``attachment``, a
  ``progress`` record): the summary record is still the boundary's, found by
  walking down from the boundary through such records, or named by the
  preserved segment's ``anchorUuid``.
* **No parent links at all** (files written by older tools, or fixtures):
  each record hangs under the one before it, with a note.

Whatever cannot be linked (a parent not in the file, links that form a cycle)
starts a root, with a note naming the line; the chapter's rules then decide
what can be restored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ._agent_base import AgentImportError, AgentNoteKind, Record
from ._base import NoteLog, shown

__all__ = ["CONTEXT_TYPES", "Linked", "Preserved", "link_records", "preserved_of"]

CONTEXT_TYPES = frozenset({"attachment", "progress"})
"""Record types that carry context around the conversation (files attached to a prompt, a
hook's or a tool's progress) and link into it with a uuid: kept as metadata on the path."""

_SUMMARY_SEARCH = 64
"""How many records below a boundary its summary is looked for (real files: one or two)."""


class Linked(NamedTuple):
    """One record, the record it hangs under (``None``: it starts a root), and its line.

    A tuple: one is made for every record of a file.
    """

    line: int
    record: dict[str, Any]
    parent: str | None


@dataclass
class Preserved:
    """What a boundary's ``compactMetadata`` says the compaction kept, in the file's uuids."""

    uuids: list[str] = field(default_factory=list)  # in order, without repeats
    head: str | None = None  # preservedSegment.headUuid
    tail: str | None = None  # preservedSegment.tailUuid (the newest kept record)
    anchors: tuple[str, ...] = ()  # the uuids the kept messages were re-hung under
    malformed: Any = None  # a preservedMessages value of no known shape (read as nothing)

    @property
    def partial(self) -> bool:
        """Whether the compaction kept messages (a partial compaction)."""
        return bool(self.uuids)


@dataclass
class LinkedFile:
    """The records parents first, each compaction's summary record, and what each kept."""

    records: list[Linked]
    summary_of: dict[str, str]  # summary record uuid -> its boundary's uuid
    preserved: dict[str, Preserved]  # boundary uuid -> what it kept
    leaf: str  # the uuid of the file's last record


def is_boundary(record: dict[str, Any]) -> bool:
    """Whether a record is a compaction boundary (``system`` / ``compact_boundary``)."""
    return record["type"] == "system" and record.get("subtype") == "compact_boundary"


def preserved_of(record: dict[str, Any], parents: dict[str, str | None]) -> Preserved:
    """The messages a boundary kept: its preserved segment (walked tail to head) and list."""
    meta = record.get("compactMetadata")
    found = Preserved()
    if not isinstance(meta, dict):
        return found
    anchors: list[str] = []
    uuids: list[str] = []
    segment = meta.get("preservedSegment")
    if isinstance(segment, dict):
        head, tail, anchor = (segment.get(k) for k in ("headUuid", "tailUuid", "anchorUuid"))
        found.head = head if isinstance(head, str) else None
        found.tail = tail if isinstance(tail, str) else None
        if isinstance(anchor, str):
            anchors.append(anchor)
        uuids += _segment(found.head, found.tail, parents)
    listed = meta.get("preservedMessages")
    if isinstance(listed, dict):
        anchor = listed.get("anchorUuid")
        if isinstance(anchor, str):
            anchors.append(anchor)
        listed = listed.get("uuids")
    if listed is not None:
        items = listed if isinstance(listed, list) else None
        named = [
            item if isinstance(item, str) else item.get("uuid") if isinstance(item, dict) else None
            for item in items or []
        ]
        if items is None or not all(isinstance(u, str) for u in named):
            found.malformed = meta.get("preservedMessages")
        else:
            uuids += [u for u in named if isinstance(u, str)]
    found.uuids = list(dict.fromkeys(uuids))
    found.anchors = tuple(anchors)
    return found


def _segment(head: str | None, tail: str | None, parents: dict[str, str | None]) -> list[str]:
    """The records from ``head`` to ``tail``, walking up from the tail (oldest first).

    Bounded by the file: a walk that meets no head (a broken segment) keeps the
    records it passed, and a walk never visits a record twice.
    """
    if tail is None or tail not in parents:
        return [head] if head is not None else []
    walked: list[str] = []
    seen: set[str] = set()
    current: str | None = tail
    while current is not None and current in parents and current not in seen:
        seen.add(current)
        walked.append(current)
        if current == head:
            break
        current = parents[current]
    walked.reverse()
    return walked


def link_records(records: list[Record], notes: NoteLog) -> LinkedFile:
    """Every record's parent, decided with the whole file in view; the records parents first."""
    position = {record["uuid"]: number for number, (_, record) in enumerate(records)}
    parents = _raw_parents(records, notes)
    summary_of: dict[str, str] = {}
    preserved: dict[str, Preserved] = {}
    children = _children(records, parents)
    for line, record in records:
        if not is_boundary(record):
            continue
        boundary = record["uuid"]
        kept = preserved_of(record, parents)
        preserved[boundary] = kept
        summary = _summary_below(boundary, kept, records, position, children)
        if summary is not None:
            summary_of[summary] = boundary
        if kept.partial:
            _keep_before(line, boundary, summary, kept, records, position, parents, children, notes)
        logical = record.get("logicalParentUuid")
        if (
            record.get("parentUuid") is None
            and logical is not None
            and parents[boundary] == logical
        ):
            notes.add(
                AgentNoteKind.COMPACTION_REPARENTED,
                line,
                boundary,
                f"Claude Code starts a new root at a compaction boundary; it is hung under "
                f"its logical parent {logical!r} so the summary and the history it stands "
                "for share one path",
            )
    for number, (line, record) in enumerate(records):
        parent = parents[record["uuid"]]
        if parent is not None and parent not in position:
            notes.add(
                AgentNoteKind.PARENT_NOT_IN_FILE,
                line,
                record["uuid"],
                f"parent {parent!r} is not in this file (a resumed or forked session starts "
                "this way): the record starts a root",
            )
            parents[record["uuid"]] = None
        elif parent is not None and position[parent] > number:
            notes.add(
                AgentNoteKind.PARENT_LINKED_LATER,
                line,
                record["uuid"],
                f"parent {parent!r} appears later in the file (line {records[position[parent]][0]}):"
                " linked once every record was read",
            )
    ordered = _parents_first(records, parents, position, notes)
    return LinkedFile(ordered, summary_of, preserved, records[-1][1]["uuid"])


def _raw_parents(records: list[Record], notes: NoteLog) -> dict[str, str | None]:
    """Each record's parent as the file gives it (a boundary's logical parent when it has one)."""
    parents: dict[str, str | None] = {}
    if not any("parentUuid" in record or "logicalParentUuid" in record for _, record in records):
        previous: str | None = None
        for _, record in records:
            parents[record["uuid"]] = previous
            previous = record["uuid"]
        if len(records) > 1:
            first, last = records[0][0], records[-1][0]
            notes.add(
                AgentNoteKind.CHAINED_BY_FILE_ORDER,
                first,
                None,
                f"no record of this file names a parent (no parentUuid): each of its "
                f"{len(records):,} records hangs under the one before it, lines {first}-{last}",
            )
        return parents
    for line, record in records:
        uuid, parent = record["uuid"], record.get("parentUuid")
        if parent is not None and not isinstance(parent, str):
            raise AgentImportError(
                f"parentUuid must be a string or null, got {shown(parent)}", line=line
            )
        logical = record.get("logicalParentUuid")
        if parent is None and is_boundary(record) and isinstance(logical, str):
            parent = logical
        parents[uuid] = parent
    return parents


def _children(records: list[Record], parents: dict[str, str | None]) -> dict[str, list[int]]:
    """Each record's children, as positions in the file (in file order)."""
    children: dict[str, list[int]] = {}
    for number, (_, record) in enumerate(records):
        parent = parents[record["uuid"]]
        if parent is not None:
            children.setdefault(parent, []).append(number)
    return children


def _summary_below(
    boundary: str,
    kept: Preserved,
    records: list[Record],
    position: dict[str, int],
    children: dict[str, list[int]],
) -> str | None:
    """The summary record of a boundary: named as its anchor, or found below it in the file.

    Below it means among its descendants through context records only (an
    attachment between the two does not part them), nearest first.
    """
    for anchor in kept.anchors:
        found = position.get(anchor)
        if found is not None and records[found][1].get("isCompactSummary") is True:
            return anchor
    queue = list(children.get(boundary, ()))
    looked = 0
    while queue and looked < _SUMMARY_SEARCH:
        number = queue.pop(0)
        looked += 1
        record = records[number][1]
        if record["type"] == "user" and record.get("isCompactSummary") is True:
            return str(record["uuid"])
        if record["type"] in CONTEXT_TYPES or (
            record["type"] == "system" and not is_boundary(record)
        ):
            queue.extend(children.get(record["uuid"], ()))
    return None


def _keep_before(
    line: int,
    boundary: str,
    summary: str | None,
    kept: Preserved,
    records: list[Record],
    position: dict[str, int],
    parents: dict[str, str | None],
    children: dict[str, list[int]],
    notes: NoteLog,
) -> None:
    """A partial compaction: its kept messages stay before it, what follows them after it."""
    in_file = [uuid for uuid in kept.uuids if uuid in position]
    tail = kept.tail if kept.tail in position else (in_file[-1] if in_file else None)
    own = {boundary, *kept.anchors, *([summary] if summary else [])}
    given = parents[boundary]
    if tail is not None and (given is None or _above(given, tail, parents, len(kept.uuids) + 1)):
        parents[boundary] = tail  # after the newest kept record, so all it kept lies before it
    rehung = None
    head = kept.head if kept.head in position else (in_file[0] if in_file else None)
    if head is not None and parents[head] in own:
        parents[head] = None  # hung under its own compaction's summary: that would be a cycle
        rehung = head
    moved = 0
    if tail is not None and parents[boundary] == tail:
        start = position[boundary]
        for number in children.get(tail, ()):
            uuid = records[number][1]["uuid"]
            if number > start and parents[uuid] == tail and uuid not in own:
                parents[uuid] = summary or boundary
                moved += 1
    notes.add(
        AgentNoteKind.PRESERVED_SEGMENT_KEPT,
        line,
        boundary,
        f"Claude Code kept {len(kept.uuids)} message record(s) through this compaction, from "
        f"{kept.uuids[0]} to {kept.uuids[-1]}; the chapter keeps them before it, where they were: the "
        f"compaction hangs under {parents[boundary]!r} and {moved} later record(s) that "
        "continue from the kept messages hang under it",
    )
    if rehung is not None:
        notes.add(
            AgentNoteKind.PRESERVED_SEGMENT_KEPT,
            records[position[rehung]][0],
            rehung,
            f"the first kept record {rehung!r} hangs under the compaction's own summary (a "
            "file written after the compaction): it starts a root, so it comes before the "
            "compaction",
        )


def _above(ancestor: str, record: str, parents: dict[str, str | None], steps: int) -> bool:
    """Whether ``ancestor`` is ``record`` or lies at most ``steps`` links above it.

    Bounded by what a compaction kept, so every compaction costs what it kept:
    a logical parent older than the kept messages sits just above the first of them.
    """
    current: str | None = record
    for _ in range(steps + 1):
        if current == ancestor:
            return True
        if current is None:
            return False
        current = parents.get(current)
    return False


def _parents_first(
    records: list[Record],
    parents: dict[str, str | None],
    position: dict[str, int],
    notes: NoteLog,
) -> list[Linked]:
    """The records in file order, except that a record waits for its parent (linear).

    Links that form a cycle never become ready: the cycle's earliest record
    starts a root (with a note) and the rest follow it.
    """
    done: set[str] = set()
    waiting: dict[str, list[int]] = {}
    ordered: list[Linked] = []

    def emit(first: int) -> None:
        """Hand on record ``first``, then every record that waited for it (depth first)."""
        stack = [first]
        while stack:
            number = stack.pop()
            line, record = records[number]
            uuid = record["uuid"]
            if uuid in done:
                continue  # a cycle was cut at this record, which had waited for its parent
            done.add(uuid)
            ordered.append(Linked(line, record, parents[uuid]))
            if uuid in waiting:  # rare: a child written before its parent
                stack.extend(reversed(waiting.pop(uuid)))

    for number, (_, record) in enumerate(records):
        parent = parents[record["uuid"]]
        if parent is None or parent in done:
            emit(number)
        else:
            waiting.setdefault(parent, []).append(number)
    for number, (line, record) in enumerate(records):  # what is left waits in a cycle
        uuid = record["uuid"]
        if uuid in done:
            continue
        parent = parents[uuid]
        assert parent is not None
        notes.add(
            AgentNoteKind.PARENT_CYCLE,
            line,
            uuid,
            f"the parent links from here form a cycle (through {parent!r}, line "
            f"{records[position[parent]][0]}): the record starts a root",
        )
        parents[uuid] = None
        emit(number)
    return ordered
