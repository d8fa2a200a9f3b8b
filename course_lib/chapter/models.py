"""The chapter's types, defined once: what the rules read and return.

Chapter 11 §2–§8 name these shapes (``SessionEntry``, ``CompactionSummary``,
``BuildContextResult``…); the rules in the other chapter modules only read and
build them. A practice package imports them from here as well, so the
reference and a student's rules never disagree about what an entry is.

In the chapter's order: the entries (§2), the interaction group (§3), the
budget's result and plan (§4), the summary's labels (§6), the ledger row (§8).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from pydantic import ValidationError

from course_lib.base.errors import InteractionError, SessionEntryError
from course_lib.base.messages import AgentMessage, MessageModel, SystemMessage, UserMessage
from course_lib.base.pricing import Number, check_budget_number, require_estimator
from course_lib.base.schema import (
    FiniteNumber,
    JsonValue,
    NonBlankStr,
    NonNegativeNumber,
    WireModel,
    WireStr,
)
from course_lib.base.validation import (
    count_of_type,
    describe_validation_error,
    entry_label,
    only_instances_of,
    require_models,
    validate_checked,
)

__all__ = [
    "LIST_FIELDS",
    "SUMMARY_LABELS_EN",
    "SUMMARY_LABELS_ZH",
    "Budget",
    "BudgetPlan",
    "BuildContextResult",
    "CompactionEntry",
    "CompactionSummary",
    "InteractionGroup",
    "LedgerRow",
    "LedgerStatus",
    "MessageEntry",
    "MetadataEntry",
    "Reason",
    "SessionEntry",
    "SummaryLabels",
    "TokenProjection",
    "as_summary",
    "compactions_on",
    "message_entries",
    "require_budget_inputs",
    "require_message_entries",
    "require_message_entry",
    "require_session_entries",
    "user_turns",
    "validate_entry",
]

# --- §2: the three session entries -----------------------------------------------------------


class MessageEntry(WireModel):
    """An agent message placed on the session tree."""

    id: NonBlankStr
    parent_id: NonBlankStr | None
    """The entry before it on its branch; ``None`` only for a root."""
    timestamp: FiniteNumber
    type: Literal["message"] = "message"  # a tag: required on the wire
    message: AgentMessage


class MetadataEntry(WireModel):
    """A key/value fact about the session (never sent to the model)."""

    id: NonBlankStr
    parent_id: NonBlankStr | None
    timestamp: FiniteNumber
    type: Literal["metadata"] = "metadata"  # a tag: required on the wire
    key: NonBlankStr
    value: JsonValue


class CompactionSummary(WireModel):
    """The seven fields that let older facts survive once their messages leave the window."""

    goal: NonBlankStr
    """What the session is for: the one field that may never be empty."""
    constraints: list[WireStr]
    """Rules the work must keep to (an old draft called them ``invariants``)."""
    completed: list[WireStr]
    decisions: list[WireStr]
    changed_files: list[WireStr]
    """``changedFiles`` on the wire (an old draft's ``files`` is an unknown field)."""
    unresolved: list[WireStr]
    next: list[WireStr]
    """What to do next (an old draft's ``nextSteps`` is an unknown field)."""


class CompactionEntry(WireModel):
    """A summary appended after the leaf; restoring starts at ``first_kept_entry_id``."""

    id: NonBlankStr
    parent_id: NonBlankStr
    """Always the path's leaf when it was created: never ``None``."""
    timestamp: FiniteNumber
    type: Literal["compaction"] = "compaction"  # a tag: required on the wire
    summary: CompactionSummary
    first_kept_entry_id: NonBlankStr
    """The user message the kept suffix starts from (Lab 11.4 chooses it, Lab 11.5 reads it)."""
    tokens_before: NonNegativeNumber
    """What the path cost before compacting, as the caller measured it: never recomputed."""


SessionEntry = MessageEntry | MetadataEntry | CompactionEntry
"""Any of the three entries, told apart by ``type``."""


def validate_entry(
    value: dict[str, Any],
    parse_compaction: Callable[[dict[str, Any], str], CompactionEntry],
    *,
    schema_keys_only: bool = False,
) -> SessionEntry:
    """Validate fresh JSON (a dict nothing else holds) by the entry its ``type`` names.

    Messages and metadata by their models (Chapter 10's entries); a compaction
    by ``parse_compaction(value, label)``, the rule Lab 11.1 adds.
    ``schema_keys_only`` is ``validate_checked``'s (an importer wrote every key).
    """
    kind = value.get("type")
    if kind in ("message", "metadata"):
        model = MessageEntry if kind == "message" else MetadataEntry
        entry: MessageEntry | MetadataEntry = validate_checked(
            model, value, schema_keys_only=schema_keys_only
        )
        return entry
    label = entry_label(value.get("id"))
    if kind == "compaction":
        return parse_compaction(value, label)
    if "type" not in value:
        raise SessionEntryError(f"{label}: type: missing field")
    expected = "message, metadata, compaction"
    raise SessionEntryError(f"{label}: type: unknown entry type {kind!r} (expected {expected})")


def as_summary(summary: CompactionSummary | dict[str, Any]) -> CompactionSummary:
    """A summary model from a model or its wire dict (a bad dict is a ``SessionEntryError``)."""
    if isinstance(summary, CompactionSummary):
        return summary
    try:
        return CompactionSummary.model_validate(summary, by_alias=True, by_name=False)
    except ValidationError as error:
        raise SessionEntryError(f"summary: {describe_validation_error(error)}") from None


def require_session_entries(entries: Sequence[Any]) -> None:
    """Refuse anything but session entries, naming it: a wire dict is never skipped silently."""
    require_models(
        entries,
        (MessageEntry, MetadataEntry, CompactionEntry),
        "not a session entry; pass it through parse_session_entry first",
    )


def require_budget_inputs(entries: Sequence[Any], estimate_tokens: object) -> None:
    """Refuse a path holding anything but entries, or an estimator that is no function."""
    require_session_entries(entries)
    require_estimator(estimate_tokens)


def require_message_entries(entries: Iterable[Any]) -> list[MessageEntry]:
    """``entries`` as a list when every one is a message entry, else an error naming the first other.

    A metadata or compaction entry is an ``InteractionError`` (it is never grouped);
    anything else a ``SessionEntryError`` with its position.
    """
    path = list(entries)  # read once, even when a caller passes a one-pass iterable
    require_session_entries(path)
    return [require_message_entry(entry) for entry in path]


def require_message_entry(entry: object) -> MessageEntry:
    """``entry`` when it is a message entry; otherwise an error saying why it cannot be grouped."""
    if isinstance(entry, MessageEntry):
        return entry
    if isinstance(entry, MetadataEntry | CompactionEntry):
        raise InteractionError(
            f"entry {entry.id}: a {entry.type} entry is not a message; "
            "group only the message entries of a path"
        )
    require_session_entries([entry])  # names what it is instead
    raise AssertionError("unreachable: require_session_entries refused it")


def message_entries(entries: Sequence[SessionEntry]) -> Sequence[MessageEntry]:
    """The message entries of ``entries``, in order: the only ones a budget groups and sends."""
    if only_instances_of(entries, MessageEntry):  # a path of messages only: nothing to leave out
        return cast(Sequence[MessageEntry], entries)
    return [entry for entry in entries if isinstance(entry, MessageEntry)]


def user_turns(entries: Sequence[SessionEntry]) -> int:
    """How many user message entries ``entries`` holds: each one opens a group (§3)."""
    return sum(
        1 for entry in entries if isinstance(entry, MessageEntry) and entry.message.role == "user"
    )


def compactions_on(entries: Sequence[SessionEntry]) -> int:
    """How many compaction entries ``entries`` holds (the newest is the last of them)."""
    return count_of_type(entries, CompactionEntry)


# --- §3: an interaction group ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InteractionGroup:
    """One user interaction: its user message and every message up to the next one."""

    entries: list[MessageEntry]

    @property
    def entry_ids(self) -> list[str]:
        """The ids of the group's entries, in path order."""
        return [entry.id for entry in self.entries]


# --- §4: the budget's result, and the plan behind it -----------------------------------------

Reason = Literal["within_budget", "trimmed", "single_group_overflow"]


@dataclass(frozen=True)
class Budget:
    """The call's budget options (the course's ``{maxTokens, reservedOutput, safetyMargin}``).

    §4 rule 1: each must be a finite number >= 0, so a ``Budget`` checks them as it is
    made and a ``BudgetError`` names the one that is not. The estimator, the fourth
    option, is checked where it is called (``price``).
    """

    max_tokens: Number
    reserved_output: Number = 0
    safety_margin: Number = 0

    def __post_init__(self) -> None:
        for name in ("max_tokens", "reserved_output", "safety_margin"):
            check_budget_number(name, getattr(self, name))

    def keywords(self) -> dict[str, Number]:
        """``{"max_tokens": …, "reserved_output": …, "safety_margin": …}`` for the keyword API."""
        return {
            "max_tokens": self.max_tokens,
            "reserved_output": self.reserved_output,
            "safety_margin": self.safety_margin,
        }


@dataclass(frozen=True)
class TokenProjection:
    """Where the window goes: ``total = system + messages + reserved_output + safety_margin``."""

    max_tokens: Number
    system: Number
    messages: Number
    """The summary's cost (after a compaction) plus the kept groups' costs."""
    reserved_output: Number
    safety_margin: Number
    available_for_messages: Number
    """``max(0, max_tokens - system - reserved_output - safety_margin)``, before the summary."""
    total: Number


@dataclass(frozen=True)
class BuildContextResult:
    """The model input for one call, which entries it kept, and why."""

    messages: list[MessageModel]
    """``[system?, summary?, ...kept messages]``, each a fresh copy."""
    kept_entry_ids: list[str]
    """Only original message entries: never the replayed system message or the summary."""
    reason: Reason
    tokens: TokenProjection


@dataclass(frozen=True)
class BudgetPlan:
    """Every decision ``build_context`` makes, so a view (the ledger) never re-decides one."""

    system_message: SystemMessage | None
    summary: UserMessage | None
    summary_tokens: Number
    groups: list[InteractionGroup]
    """The path's own entries: read them, never change them."""
    group_tokens: list[Number]
    first_kept_group: int
    """Index into ``groups`` of the oldest kept group; ``len(groups)`` when none is kept."""
    reason: Reason
    tokens: TokenProjection
    first_group_number: int = 1
    """The chapter's number for ``groups[0]``: groups are counted over the whole active path
    (「从第二组开始保留原消息」), so after ``compact-1`` the groups are 2, 3 and 4."""

    @property
    def kept_groups(self) -> list[InteractionGroup]:
        """The groups the model input keeps, oldest first."""
        return self.groups[self.first_kept_group :]


# --- §6: the words around the summary's seven fields -----------------------------------------


@dataclass(frozen=True)
class SummaryLabels:
    """The words around the fields; each label carries its own punctuation."""

    title: str
    goal: str
    constraints: str
    completed: str
    decisions: str
    changed_files: str
    unresolved: str
    next: str
    none: str
    """What an empty list shows, after ``- ``."""


SUMMARY_LABELS_EN = SummaryLabels(
    title="[Session compaction summary]",
    goal="Goal: ",
    constraints="Constraints:",
    completed="Completed:",
    decisions="Decisions:",
    changed_files="Changed files:",
    unresolved="Unresolved:",
    next="Next:",
    none="(none)",
)

SUMMARY_LABELS_ZH = SummaryLabels(
    title="【会话压缩摘要】",
    goal="目标：",
    constraints="约束：",
    completed="已完成：",
    decisions="决策：",
    changed_files="变更文件：",
    unresolved="未解决：",
    next="下一步：",
    none="（无）",
)
"""The course's own labels: full-width colons, no space after them."""

LIST_FIELDS = ("constraints", "completed", "decisions", "changed_files", "unresolved", "next")
"""The six list fields in the order they are rendered, after the goal."""


# --- §8: one row of the transfer exercise's ledger -------------------------------------------

LedgerStatus = Literal["kept", "trimmed", "overflow"]


@dataclass(frozen=True)
class LedgerRow:
    """One interaction group: its ids, its cost and whether the budget kept it."""

    group: int
    """1-based, oldest first."""
    entry_ids: list[str]
    tokens: Number
    status: LedgerStatus
