"""Make every path of an imported session groupable, and every compaction restorable.

``group_interactions`` refuses a path where a tool call has no result, a
result answers no call (or answers one twice), or an assistant speaks before
the first user message. Real pi sessions contain all of these (a turn aborted
mid-call leaves its calls unanswered). Whether a call is answered is a fact
about a *path*, not about the file: in a v2/v3 tree one branch may answer a
call that another branch leaves open. So the repair walks the tree once,
carrying each path's open interaction down to every child, and decides at
the node where the interaction closes (the next user message, or the end of a
branch). Every change is written as a note.

Missing results (``on_missing_result``):

* ``"repair"`` inserts a synthetic error result right after the turn that
  declared the call (the turn ends at the next assistant or user message), as
  pi itself does before sending such a history. If some branch below that
  point answers the call later, the synthetic result goes right before the
  closing user message of the branches that do not, so no path gets two.
* ``"drop"`` removes the unanswered call blocks from their assistant message
  (an error if another branch answers the same call).
* ``"error"`` raises ``PiMissingResultError`` naming the line and the call id.

Results that answer no call, or a call already answered, become metadata
entries (``pi.unpaired_tool_result``, ``pi.duplicate_tool_result``): the model
never sees them, the file still holds them. An assistant (or other) message
before the first user message gets a synthetic user message in front of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from ._base import NoteKind, NoteLog, PiImportError, PiMissingResultError
from ._pi_convert import Draft

__all__ = [
    "NO_RESULT_TEXT",
    "SYNTHETIC_DETAILS",
    "MissingResultPolicy",
    "RepairOutcome",
    "repair_tree",
    "resolve_first_kept",
]

MissingResultPolicy = Literal["repair", "drop", "error"]

NO_RESULT_TEXT = "No result provided: the session recorded no result for this tool call"
SYNTHETIC_DETAILS: dict[str, Any] = {"synthetic": True, "reason": "no result recorded"}
SYNTHETIC_USER_TEXT = "[No user message was recorded before this turn.]"

Edge = tuple[str | None, str | None]
"""(parent id, child id): a place between two entries; child ``None`` = after a branch's end."""


class _Call(NamedTuple):
    """A tool call as the walk meets it (a named tuple: one is made for every call of a file)."""

    call_id: str
    name: str
    entry_id: str
    line: int | None
    order: int  # position among the calls of its message


@dataclass(slots=True)
class _PathState:
    """The open interaction on one path, as it stands at one node (slotted: one per user turn)."""

    open: bool = False
    calls: dict[str, _Call] = field(default_factory=dict)
    answered: set[str] = field(default_factory=set)
    turn: list[str] = field(default_factory=list)  # calls of the latest assistant turn
    turn_end: dict[str, Edge] = field(
        default_factory=dict
    )  # unanswered call -> where its turn ended

    def copy(self) -> _PathState:
        return _PathState(
            self.open, dict(self.calls), set(self.answered), list(self.turn), dict(self.turn_end)
        )


@dataclass
class _Findings:
    """What the walk saw; decisions are taken once all paths are known."""

    unanswered: list[tuple[_Call, Edge, Edge]] = field(
        default_factory=list
    )  # call, turn end, close
    late: set[tuple[Edge, str]] = field(default_factory=set)  # answered after its turn ended
    answered: set[tuple[str, str]] = field(default_factory=set)  # (declaring entry, call id)
    users_needed: dict[Edge, str] = field(default_factory=dict)  # edge -> entry it stands before


@dataclass(frozen=True)
class RepairOutcome:
    """The repaired drafts (parents before children) and the leaf, possibly moved."""

    drafts: list[Draft]
    leaf_id: str


def _is_chain(drafts: list[Draft]) -> bool:
    """Whether the first entry is the root and every other one hangs under the entry before it."""
    parent_id = None
    for draft in drafts:
        wire = draft.wire
        if wire["parentId"] != parent_id:
            return False
        parent_id = wire["id"]
    return True


def _children(drafts: list[Draft]) -> dict[str | None, list[Draft]]:
    """Children of each entry in file order (``None`` holds the roots)."""
    children: dict[str | None, list[Draft]] = {}
    for draft in drafts:
        parent_id = draft.wire["parentId"]  # the wire itself: no property call per entry
        siblings = children.get(parent_id)
        if siblings is None:
            children[parent_id] = [draft]
        else:
            siblings.append(draft)
    return children


def _end_turn(state: _PathState, edge: Edge) -> None:
    """The latest assistant turn ends here: remember where, for its still-unanswered calls."""
    for call_id in state.turn:
        if call_id not in state.answered:
            state.turn_end[call_id] = edge
    state.turn = []


def _close(state: _PathState, edge: Edge, findings: _Findings) -> None:
    """The interaction closes here: every call still unanswered is a finding."""
    for call_id, call in state.calls.items():
        if call_id not in state.answered:
            findings.unanswered.append((call, state.turn_end[call_id], edge))


def _demote_result(draft: Draft, key: str, detail: str, notes: NoteLog) -> None:
    """Turn a result the interaction cannot hold into metadata (kept in the file, never sent)."""
    message = draft.wire.pop("message")
    draft.wire.update(type="metadata", key=key, value=message)
    kind = (
        NoteKind.DUPLICATE_RESULT if key == "pi.duplicate_tool_result" else NoteKind.UNPAIRED_RESULT
    )
    notes.add(kind, draft.line, draft.id, f"{detail}: kept as metadata {key}, not sent to a model")


class _Walker:
    """One depth-first walk over the tree, carrying each path's open interaction."""

    def __init__(self, drafts: list[Draft], notes: NoteLog) -> None:
        self.drafts = drafts
        self.notes = notes
        self.findings = _Findings()

    def walk(self) -> _Findings:
        """Visit every entry once, each with the open interaction of its own path."""
        if _is_chain(self.drafts):
            self._walk_chain()
        else:
            self._walk_tree()
        return self.findings

    def _walk_chain(self) -> None:
        """A file that is one path (every v1 file, many v2/v3 ones): its entries in file order.

        Why a way of its own: the walk needs no map of children and no stack
        when each entry's only child is the entry after it.
        """
        state = _PathState()
        for draft in self.drafts:
            state = self._visit(draft, state)
        self._end_branch(self.drafts[-1].wire["id"], state)

    def _walk_tree(self) -> None:
        """A tree of branches, depth first.

        An only child (most entries of a file) is visited right after its parent,
        with the same state; only the children of a branching entry wait on the
        stack, each with a copy of its own. The order is depth-first either way.
        An edge (parent id, child id) is made only where a finding needs one.
        """
        children = _children(self.drafts)
        stack = [(root, _PathState()) for root in reversed(children.get(None, []))]
        while stack:
            draft, state = stack.pop()
            while True:
                state = self._visit(draft, state)
                entry_id = draft.wire["id"]
                kids = children.get(entry_id)
                if kids is None:
                    self._end_branch(entry_id, state)
                    break
                if len(kids) > 1:
                    stack.extend((kid, state.copy()) for kid in reversed(kids))
                    break
                draft = kids[0]

    def _end_branch(self, entry_id: str, state: _PathState) -> None:
        """A branch ends after ``entry_id``: its open turn and interaction end with it."""
        end: Edge = (entry_id, None)
        _end_turn(state, end)
        _close(state, end, self.findings)

    def _visit(self, draft: Draft, state: _PathState) -> _PathState:
        """Update the path's interaction for one entry; returns the state its children inherit."""
        wire = draft.wire
        if wire["type"] != "message":
            return state
        message = wire["message"]
        role = message["role"]
        if role == "toolResult":
            self._answer(draft, message["toolCallId"], state)
        elif role == "assistant":
            if state.turn:  # a turn without calls has no end to remember
                _end_turn(state, (wire["parentId"], wire["id"]))
            if not state.open:
                self.findings.users_needed[wire["parentId"], wire["id"]] = wire["id"]
                state = _PathState(open=True)
            self._declare(draft, message["content"], state)
        elif role == "user":
            # Only answered calls are in ``answered``: fewer means some call is still open.
            if len(state.answered) < len(state.calls):
                edge = (wire["parentId"], wire["id"])
                _end_turn(state, edge)
                _close(state, edge, self.findings)
            return _PathState(open=True)
        return state

    def _declare(self, draft: Draft, content: list[dict[str, Any]], state: _PathState) -> None:
        """Register an assistant turn's calls; a repeated id in one interaction is an error."""
        turn: list[str] = []  # the calls of this turn, in order
        calls, entry_id, line = state.calls, draft.wire["id"], draft.line
        for block in content:
            if block["type"] != "toolCall":
                continue
            call_id = block["id"]
            if call_id in calls:
                raise PiImportError(
                    f"duplicate tool call id {call_id!r} in one interaction "
                    f"(already declared by entry {calls[call_id].entry_id})",
                    line=line,
                )
            calls[call_id] = _Call(call_id, block["name"], entry_id, line, len(turn))
            turn.append(call_id)
        state.turn = turn

    def _answer(self, draft: Draft, call_id: str, state: _PathState) -> None:
        """Pair a result with its call, or demote it when the interaction cannot hold it."""
        if not state.open or call_id not in state.calls:
            where = "before the first user message" if not state.open else "in its interaction"
            _demote_result(
                draft,
                "pi.unpaired_tool_result",
                f"result for call {call_id!r} answers no call declared {where}",
                self.notes,
            )
        elif call_id in state.answered:
            _demote_result(
                draft,
                "pi.duplicate_tool_result",
                f"second result for call {call_id!r} in one interaction",
                self.notes,
            )
        else:
            state.answered.add(call_id)
            self.findings.answered.add((state.calls[call_id].entry_id, call_id))
            if call_id in state.turn_end:
                self.findings.late.add((state.turn_end[call_id], call_id))


class _IdMaker:
    """Ids for entries the importer adds: derived from what they stand for, never colliding."""

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken = set(taken)
        self.next_number: dict[str, int] = {}  # base -> the suffix to try next

    def make(self, base: str) -> str:
        """``base`` if free, else ``base-2``, ``base-3``, ...

        Each base remembers how far it got: one call on 800 branches would
        otherwise try 2, 3, ... again for every branch, in quadratic time.
        """
        candidate, number = base, self.next_number.get(base, 2)
        if candidate in self.taken:
            candidate = f"{base}-{number}"
        while candidate in self.taken:
            number += 1
            candidate = f"{base}-{number}"
        self.next_number[base] = number + 1 if candidate != base else number
        self.taken.add(candidate)
        return candidate


def _synthetic_result(call: _Call, declaring: Draft, new_id: str) -> Draft:
    """The error result pi itself would send for a call that never returned."""
    message = declaring.wire["message"]
    reason = message.get("stopReason")
    wire = {
        "id": new_id,
        "parentId": None,
        "timestamp": declaring.wire["timestamp"],
        "type": "message",
        "message": {
            "role": "toolResult",
            "toolCallId": call.call_id,
            "toolName": call.name,
            "content": [
                {"type": "text", "text": f"{NO_RESULT_TEXT} (its turn ended with {reason!r})."}
            ],
            "details": dict(SYNTHETIC_DETAILS),
            "isError": True,
            "timestamp": message["timestamp"],
        },
    }
    return Draft(wire=wire, line=None)


def _synthetic_user(before: Draft, new_id: str) -> Draft:
    """A visible stand-in for the user turn the file never recorded."""
    timestamp = before.wire["message"]["timestamp"]
    message = {"role": "user", "content": [{"type": "text", "text": SYNTHETIC_USER_TEXT}]}
    wire = {
        "id": new_id,
        "parentId": None,
        "timestamp": before.wire["timestamp"],
        "type": "message",
        "message": {**message, "timestamp": timestamp},
    }
    return Draft(wire=wire, line=None)


def _raise_first_missing(findings: _Findings) -> None:
    """Stop at the earliest unanswered call, naming its line and id."""
    call = min(
        (item[0] for item in findings.unanswered),
        key=lambda c: (c.line if c.line is not None else 0, c.order),
    )
    raise PiMissingResultError(
        line=call.line or 0, call_id=call.call_id, entry_id=call.entry_id, tool_name=call.name
    )


def _drop_calls(findings: _Findings, by_id: dict[str, Draft], notes: NoteLog) -> None:
    """Remove unanswered call blocks; refuse when another branch answers the same call."""
    dropped: dict[str, set[str]] = {}  # declaring entry -> ids of its calls to remove
    for call, _turn, _close_edge in findings.unanswered:
        if call.call_id in dropped.get(call.entry_id, ()):
            continue
        if (call.entry_id, call.call_id) in findings.answered:
            raise PiImportError(
                f"tool call {call.call_id!r} is answered on one branch and not on another, so its "
                "block cannot be dropped; import with on_missing_result='repair'",
                line=call.line,
            )
        dropped.setdefault(call.entry_id, set()).add(call.call_id)
        notes.add(
            NoteKind.MISSING_RESULT_DROPPED,
            call.line,
            call.entry_id,
            f"tool call {call.call_id!r} ({call.name}) has no result: its block was removed "
            "from the assistant message",
        )
    for entry_id, call_ids in dropped.items():  # one pass per message, however many calls it loses
        message = by_id[entry_id].wire["message"]
        message["content"] = [
            b
            for b in message["content"]
            if not (b.get("type") == "toolCall" and b["id"] in call_ids)
        ]


def _plan_results(findings: _Findings) -> dict[Edge, list[_Call]]:
    """Where each unanswered call gets its synthetic result (one per path, never two)."""
    plan: dict[Edge, dict[str, _Call]] = {}
    for call, turn_edge, close_edge in findings.unanswered:
        edge = close_edge if (turn_edge, call.call_id) in findings.late else turn_edge
        plan.setdefault(edge, {}).setdefault(call.call_id, call)
    return {
        edge: sorted(calls.values(), key=lambda c: (c.line if c.line is not None else 0, c.order))
        for edge, calls in plan.items()
    }


def repair_tree(
    drafts: list[Draft], leaf_id: str, policy: MissingResultPolicy, notes: NoteLog
) -> RepairOutcome:
    """Repair ``drafts`` (in place where an entry changes) so every path groups cleanly."""
    findings = _Walker(drafts, notes).walk()
    by_id = {draft.wire["id"]: draft for draft in drafts}
    if findings.unanswered and policy == "error":
        _raise_first_missing(findings)
    if policy == "drop":
        _drop_calls(findings, by_id, notes)
    plan = _plan_results(findings) if policy == "repair" else {}
    ids = _IdMaker(by_id)
    chains: dict[Edge, list[Draft]] = {}
    for edge, calls in plan.items():
        chain = chains.setdefault(edge, [])
        for call in calls:
            result = _synthetic_result(
                call, by_id[call.entry_id], ids.make(f"{call.call_id}.result")
            )
            chain.append(result)
            place = f"before {edge[1]}" if edge[1] else "at the end of its branch"
            notes.add(
                NoteKind.MISSING_RESULT_REPAIRED,
                call.line,
                result.id,
                f"tool call {call.call_id!r} ({call.name}) declared by {call.entry_id} has no "
                f"result: synthetic error result {result.id} inserted after {edge[0]}, {place}",
            )
    for edge, before_id in findings.users_needed.items():
        user = _synthetic_user(by_id[before_id], ids.make(f"{before_id}.user"))
        chains.setdefault(edge, []).append(user)
        notes.add(
            NoteKind.SYNTHETIC_USER_INSERTED,
            by_id[before_id].line,
            user.id,
            f"{by_id[before_id].role} message {before_id} comes before any user message: "
            f"synthetic user message {user.id} inserted in front of it",
        )
    return RepairOutcome(
        drafts=_splice(drafts, chains, by_id), leaf_id=_moved_leaf(leaf_id, chains, by_id, notes)
    )


def _splice(
    drafts: list[Draft], chains: dict[Edge, list[Draft]], by_id: dict[str, Draft]
) -> list[Draft]:
    """Insert each chain on its edge: parents rewired, each chain listed right after its parent."""
    after: dict[str | None, list[Draft]] = {}
    for (parent, child), chain in chains.items():
        previous = parent
        for draft in chain:
            draft.parent_id = previous
            previous = draft.id
        if child is not None:
            by_id[child].parent_id = previous
        after.setdefault(parent, []).extend(chain)
    if not after:
        return list(drafts)  # a new list: the caller empties the one it passed
    result = list(after.get(None, []))
    for draft in drafts:
        result.append(draft)
        inserted = after.get(draft.wire["id"])
        if inserted is not None:
            result.extend(inserted)
    return result


def _moved_leaf(
    leaf_id: str, chains: dict[Edge, list[Draft]], by_id: dict[str, Draft], notes: NoteLog
) -> str:
    """The leaf after repair: the end of a chain appended after the old leaf, if any."""
    chain = chains.get((leaf_id, None))
    if not chain:
        return leaf_id
    notes.add(
        NoteKind.LEAF_MOVED,
        by_id[leaf_id].line,
        chain[-1].id,
        f"the leaf {leaf_id} left tool calls unanswered: the leaf is now {chain[-1].id}, "
        "the last synthetic result after it",
    )
    return chain[-1].id


# --- compactions --------------------------------------------------------------


class _PathIndex:
    """The path from the root to the entry being visited, with running counts for O(1) questions.

    Why: a long session may hold thousands of compactions. Rebuilding each
    one's path from its parents, then scanning it, would cost time in
    proportion to the path for every compaction (quadratic for the file); one
    walk that keeps the current path and a few running counts costs one step
    per entry.
    """

    def __init__(self) -> None:
        self.drafts: list[Draft] = []
        self.position: dict[str, int] = {}
        self.messages: list[int] = []  # positions of the path's message entries
        self.users: list[int] = []  # positions of its user messages
        self.messages_before: list[int] = []  # per position: messages at earlier positions
        self.users_before: list[int] = []  # per position: user messages at earlier positions

    def truncate(self, length: int) -> None:
        """Go back up the tree: keep only the first ``length`` entries of the path."""
        while len(self.drafts) > length:
            draft = self.drafts.pop()
            del self.position[draft.id]
            self.messages_before.pop()
            self.users_before.pop()
            if draft.role:
                self.messages.pop()
            if draft.role == "user":
                self.users.pop()

    def push(self, draft: Draft) -> None:
        """Go one entry down the tree."""
        here = len(self.drafts)
        self.drafts.append(draft)
        self.position[draft.id] = here
        self.messages_before.append(len(self.messages))
        self.users_before.append(len(self.users))
        if draft.role:
            self.messages.append(here)
        if draft.role == "user":
            self.users.append(here)

    def messages_between(self, start: int, stop: int) -> int:
        """How many message entries lie at positions ``start`` .. ``stop - 1``."""
        return self.messages_before[stop] - self.messages_before[start]

    def user_start(self, start: int) -> int | None:
        """Position of the user message whose interaction holds the path from ``start`` (whole ones only)."""
        skipped = self.messages_before[start]
        if skipped == len(self.messages):
            return None  # no message at or after ``start``
        first_message = self.messages[skipped]
        users_up_to = self.users_before[first_message] + (self.drafts[first_message].role == "user")
        if users_up_to:
            return self.users[users_up_to - 1]  # the nearest user message at or before it
        return self.users[0] if self.users else None  # none before: the first one after


def _paths_to_compactions(drafts: list[Draft]) -> Iterator[tuple[Draft, _PathIndex]]:
    """Each compaction with the path from the root to its parent (one depth-first walk)."""
    children = _children(drafts)
    path = _PathIndex()
    stack: list[tuple[Draft, int]] = [(root, 0) for root in reversed(children.get(None, []))]
    while stack:
        draft, depth = stack.pop()
        path.truncate(depth)
        if draft.first_kept is not None:
            yield draft, path
        path.push(draft)
        stack.extend((kid, depth + 1) for kid in reversed(children.get(draft.id, [])))


def _target_id(compaction: Draft, index_ids: list[str]) -> str | None:
    """The course id of pi's first kept entry (an index past the end is an error)."""
    ref = compaction.first_kept
    assert ref is not None
    if ref.entry_id is not None:
        return ref.entry_id
    assert ref.index is not None
    if ref.index >= len(index_ids):
        raise PiImportError(
            f"compaction firstKeptEntryIndex {ref.index} is past the end of the file",
            line=compaction.line,
        )
    return index_ids[ref.index]


def _describe(draft: Draft) -> str:
    """An entry as a note names it: id, kind and line."""
    kind = f"{draft.role} message" if draft.role else f"{draft.wire['type']} entry"
    return f"{draft.id} ({kind}, line {draft.line})" if draft.line else f"{draft.id} ({kind})"


@dataclass(frozen=True)
class _Kept:
    """Where one compaction keeps from, and the note to write when it had to move."""

    entry_id: str
    note: str | None


def _how_far(path: _PathIndex, target: int, start: int) -> str:
    """How far the first kept entry moved, in words."""
    moved = start - target
    if moved < 0:
        return f"{-moved} entr{'y' if moved == -1 else 'ies'} earlier, so the whole interaction is kept"
    if path.messages_between(target, start) == 0:
        return (
            f"{moved} entr{'y' if moved == 1 else 'ies'} later, past entries the model never sees"
        )
    return f"{moved} entries later: the messages between were neither summarised nor kept"


def _resolve(compaction: Draft, path: _PathIndex, index_ids: list[str], header_id: str) -> _Kept:
    """The user message a compaction keeps from, on its own path."""
    target = _target_id(compaction, index_ids)
    if target == header_id:
        target = path.drafts[1].id if len(path.drafts) > 1 else header_id
    if target not in path.position:
        raise PiImportError(
            f"compaction first kept entry {target!r} is not on the path before it",
            line=compaction.line,
        )
    position = path.position[target]
    start = path.user_start(position)
    if start is None:
        raise PiImportError(
            "compaction keeps no user message before it, so the course cannot restore from it",
            line=compaction.line,
        )
    kept = path.drafts[start]
    if kept.id == target:
        return _Kept(kept.id, None)
    return _Kept(
        kept.id,
        f"pi keeps from {_describe(path.drafts[position])}; the course keeps whole interactions, "
        f"so the first kept entry is {_describe(kept)}, {_how_far(path, position, start)}",
    )


def resolve_first_kept(
    drafts: list[Draft], index_ids: list[str], header_id: str, notes: NoteLog
) -> None:
    """Set each compaction's ``firstKeptEntryId`` to a user message before it on its path.

    pi may keep from an assistant message (a split turn) or from the settings
    entries just before a message; the course keeps whole interactions, so the
    first kept id moves back to the user message that starts that interaction
    (or forward over metadata only), and a note says how far. The walk visits
    the tree depth first; results are applied in file order, so the first
    problem reported is the first in the file.
    """
    compactions = [draft for draft in drafts if draft.first_kept is not None]
    if not compactions:
        return  # most sessions: no walk needed
    outcomes: dict[str, _Kept | PiImportError] = {}
    for compaction, path in _paths_to_compactions(drafts):
        try:
            outcomes[compaction.id] = _resolve(compaction, path, index_ids, header_id)
        except PiImportError as error:
            outcomes[compaction.id] = error
    for compaction in compactions:
        outcome = outcomes[compaction.id]
        if isinstance(outcome, PiImportError):
            raise outcome
        compaction.wire["firstKeptEntryId"] = outcome.entry_id
        if outcome.note is not None:
            notes.add(NoteKind.FIRST_KEPT_MOVED, compaction.line, compaction.id, outcome.note)
