"""``course-lab inspect FILE``: what a session file holds and what a model call would keep.

What the report shows is told to the user in ``_DESCRIPTION`` (the command's help).
The work is pure (``inspect_entries`` builds an ``InspectReport``; two
renderers turn it into text); only ``run`` reads the file and writes output.
The text report is in English or, with ``--lang zh``, in Chinese (the import
notes too, through ``views.translated``); ids, kinds, numbers and line numbers
are the same in both. The JSON report is data, always English.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypeVar

from tabulate import tabulate
from tqdm import tqdm

from ..base.errors import CourseError, InteractionError
from ..base.i18n import LANGUAGES, N_, Lang, tr
from ..base.pricing import Estimator
from ..base.stores import SessionReadResult
from ..base.text_rules import escape_controls, is_blank
from ..base.wire import MAX_SAFE_INTEGER
from ..beyond.estimators import bpe_estimator, chars_estimator
from ..beyond.importers import import_claude_code_bytes, import_codex_bytes
from ..beyond.importers._base import SEVERITIES, by_severity
from ..beyond.importers._pi_read import read_regular_file
from ..beyond.importers.detect import COURSE_FORMAT, recognise_format
from ..beyond.importers.pi import ImportNote, import_pi_bytes
from ..chapter.budget import context_from_plan, plan_budget
from ..chapter.fixture import fixture_estimator
from ..chapter.ledger import ledger_from_plan
from ..chapter.models import (
    Budget,
    BudgetPlan,
    CompactionEntry,
    LedgerRow,
    MessageEntry,
    SessionEntry,
    TokenProjection,
)
from ..chapter.sessions import path_to, read_session_file

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_RESERVED_OUTPUT",
    "Budget",
    "InspectError",
    "InspectReport",
    "inspect_entries",
    "register",
    "render_json",
    "render_table",
    "run",
]


def plan_for(
    active_path: Sequence[SessionEntry], budget: Budget, estimate_tokens: Estimator
) -> BudgetPlan:
    """``plan_budget`` with the three numbers taken from one ``Budget`` value."""
    return plan_budget(active_path, budget, estimate_tokens)


DEFAULT_MAX_TOKENS = 200_000  # pi's default context window
DEFAULT_RESERVED_OUTPUT = 16_384  # pi's default reserve for the model's answer
LARGE_FILE_BYTES = 256 * 1024  # a progress bar only for files at least this big
LEDGER_EDGE_ROWS = 3  # rows shown at each end of the ledger
LEDGER_CUT_ROWS = 2  # rows shown on each side of the cut

Progress = Callable[[int, int], None]
T = TypeVar("T")


class InspectError(CourseError):
    """The file cannot be inspected (unreadable, empty, unknown leaf)."""


@dataclass(frozen=True)
class LoadedSession:
    """Entries read from a file, whichever format it had."""

    format: str  # "pi", "claude-code", "codex" or "course"
    version: int | None
    entries: list[SessionEntry]
    leaf_id: str
    notes: list[ImportNote]
    source_counts: dict[str, int] = field(default_factory=dict)  # pi entry types (pi only)


@dataclass(frozen=True)
class InspectReport:
    """Everything ``inspect`` shows, as plain data (the JSON output is this, as a dict)."""

    file: str
    format: str
    version: int | None
    entries_by_type: dict[str, int]
    source_counts: dict[str, int]
    leaf: str
    path_entries: int
    path_messages: int
    compaction: str | None  # the newest compaction on the path, if any
    notes: list[ImportNote]
    estimator: str
    tokens: TokenProjection
    summary_tokens: int | float
    ledger: list[LedgerRow]
    kept_entry_ids: list[str]
    reason: str
    explanation: str


# --- loading ------------------------------------------------------------------------


def _read_input(file: Path, name: str) -> bytes:
    """The file's bytes, opened read-only: ``inspect`` never creates, locks or changes its input."""
    try:
        return read_regular_file(file)
    except OSError as error:
        raise InspectError(f"cannot read {name}: {error.strerror or error}") from None


def _course_notes(read: SessionReadResult[SessionEntry]) -> list[ImportNote]:
    """The course reader's warnings, shown as notes like an import's."""
    return [
        ImportNote(
            kind=warning.code,
            line=warning.line,
            entry_id=None,
            detail="the last line has no newline: a write that never committed, left out",
        )
        for warning in read.warnings
    ]


def load_session(
    file: Path, name: str, data: bytes, progress: Progress | None = None
) -> LoadedSession:
    """Read ``data`` (the bytes of ``file``) as a pi, Claude Code, Codex or course JSONL session.

    The first records say which format the file is in (``recognise_format``, as
    ``import_session`` asks, so a file neither reads is refused in the same
    sentence): a pi, Claude Code or Codex file is imported from ``data``; a course
    file is read again by ``read_session_file``, the read-only reader of Chapter
    10's line rule.
    """
    if is_blank(data.decode("utf-8", errors="replace")):
        raise InspectError(f"{name}: the file is empty, there is nothing to inspect")
    agent_format = recognise_format(data, name=name).format
    if agent_format in ("claude-code", "codex"):
        importer = import_claude_code_bytes if agent_format == "claude-code" else import_codex_bytes
        agent = importer(data)
        return LoadedSession(
            agent.format, None, agent.entries, agent.leaf_id, agent.notes,
            agent.source.record_counts,
        )  # fmt: skip
    if agent_format == "pi":
        imported = import_pi_bytes(data, progress=progress)
        return LoadedSession(
            format="pi",
            version=imported.source.version,
            entries=imported.entries,
            leaf_id=imported.leaf_id,
            notes=imported.notes,
            source_counts=imported.source.entry_counts,
        )
    assert agent_format == COURSE_FORMAT  # recognise_format refuses anything else
    read = read_session_file(file)
    if not read.entries:
        raise InspectError(f"{name}: no committed entry, there is nothing to inspect")
    return LoadedSession("course", None, read.entries, read.entries[-1].id, _course_notes(read))


# --- the report -----------------------------------------------------------------------


def make_estimator(name: str) -> Estimator:
    """The estimator behind ``--estimator``."""
    if name == "chars":
        return chars_estimator()
    if name == "bpe":
        return bpe_estimator()
    if name == "fixture":
        return fixture_estimator()
    raise InspectError(f"unknown estimator {name!r} (expected chars, bpe or fixture)")


def _explain(
    tokens: TokenProjection,
    reason: str,
    ledger: list[LedgerRow],
    summary_tokens: int | float,
    lang: Lang = "en",
) -> str:
    """One sentence saying why the kept range is what it is (``reason``: ``build_context``'s)."""
    room = tokens.available_for_messages - summary_tokens
    kept = [row for row in ledger if row.status != "trimmed"]
    if reason == "within_budget":
        return tr(
            lang,
            "every group fits: {messages} of {available} available tokens are used",
            messages=_n(tokens.messages),
            available=_n(tokens.available_for_messages),
        )
    if reason == "single_group_overflow":
        return tr(
            lang,
            "the newest group alone needs {tokens} tokens, more than the {room} left for "
            "groups; it is kept whole anyway, so the total exceeds the window",
            tokens=_n(kept[-1].tokens),
            room=_n(room),
        )
    newest_trimmed = [row for row in ledger if row.status == "trimmed"][-1]
    used = sum(row.tokens for row in kept)
    fit = (
        tr(lang, "the newest group fits")
        if len(kept) == 1
        else tr(lang, "the newest {count} groups fit", count=len(kept))
    )
    older = newest_trimmed.group - 1
    if older == 0:
        left_out = tr(lang, "it is left out")
    elif older == 1:
        left_out = tr(lang, "it and 1 older group are left out")
    else:
        left_out = tr(lang, "it and {count} older groups are left out", count=older)
    return tr(
        lang,
        "{fit} in {room} tokens ({used} used); adding group {group} ({tokens} tokens) would "
        "not, so {left_out}",
        fit=fit,
        room=_n(room),
        used=_n(used),
        group=newest_trimmed.group,
        tokens=_n(newest_trimmed.tokens),
        left_out=left_out,
    )


def inspect_entries(
    loaded: LoadedSession,
    *,
    file: str,
    leaf_id: str | None,
    budget: Budget,
    estimator: str,
    estimate: Estimator,
) -> InspectReport:
    """Project the path to ``leaf_id`` under the budget and collect what ``inspect`` shows.

    The budget is planned once; the kept range and the ledger are both read
    from that one plan, so every message is priced once.
    """
    leaf = leaf_id or loaded.leaf_id
    if leaf not in {entry.id for entry in loaded.entries}:
        raise InspectError(f"{file}: no entry with id {leaf!r} to use as the leaf")
    path = path_to(loaded.entries, leaf)
    try:
        plan = plan_for(path, budget, estimate)
    except InteractionError as error:
        raise InspectError(
            f"{file}: the path to {leaf} does not split into whole interactions ({error}); "
            "a leaf in the middle of a tool round trip leaves its calls unanswered, so choose "
            "a user message or the last entry before one"
        ) from None
    result = context_from_plan(plan)
    ledger = ledger_from_plan(plan)
    summary_tokens = plan.summary_tokens
    compactions = [entry.id for entry in path if isinstance(entry, CompactionEntry)]
    return InspectReport(
        file=file,
        format=loaded.format,
        version=loaded.version,
        entries_by_type=dict(Counter(entry.type for entry in loaded.entries).most_common()),
        source_counts=loaded.source_counts,
        leaf=leaf,
        path_entries=len(path),
        path_messages=sum(isinstance(entry, MessageEntry) for entry in path),
        compaction=compactions[-1] if compactions else None,
        notes=loaded.notes,
        estimator=estimator,
        tokens=result.tokens,
        summary_tokens=summary_tokens,
        ledger=ledger,
        kept_entry_ids=result.kept_entry_ids,
        reason=result.reason,
        explanation=_explain(result.tokens, result.reason, ledger, summary_tokens),
    )


# --- rendering ----------------------------------------------------------------------------


def _n(number: int | float) -> str:
    """A number as the report prints it: ``1,234``."""
    return f"{number:,}"


def _counts(counts: dict[str, int]) -> str:
    """``name 1,234, other 5`` for a one-line summary."""
    return ", ".join(f"{name} {count:,}" for name, count in counts.items())


def _deduction_rows(
    report: InspectReport, lang: Lang = "en"
) -> list[tuple[str, int | float, int | float]]:
    """(item, tokens, allowance left) rows, as the chapter's deduction table."""
    tokens = report.tokens
    left = tokens.max_tokens
    rows = [("max_tokens", tokens.max_tokens, left)]
    for item, cost in (
        (tr(lang, "replayed system message"), tokens.system),
        ("reserved_output", tokens.reserved_output),
        ("safety_margin", tokens.safety_margin),
    ):
        left = max(0, left - cost)
        rows.append((item, cost, left))
    if report.compaction is not None:
        item = tr(lang, "summary of {compaction}", compaction=report.compaction)
        rows.append((item, report.summary_tokens, left - report.summary_tokens))
    return rows


def _ledger_indexes(report: InspectReport) -> list[int]:
    """Which ledger rows to show: the oldest, both sides of the cut, the newest."""
    count = len(report.ledger)
    cut = next((i for i, row in enumerate(report.ledger) if row.status != "trimmed"), count)
    shown = set(range(min(LEDGER_EDGE_ROWS, count))) | set(
        range(max(0, count - LEDGER_EDGE_ROWS), count)
    )
    if 0 < cut < count:
        shown |= set(range(max(0, cut - LEDGER_CUT_ROWS), min(count, cut + LEDGER_CUT_ROWS)))
    return sorted(shown)


_LEDGER_HEADERS = (
    N_("group"),
    N_("entries"),
    N_("first id"),
    N_("last id"),
    N_("tokens"),
    N_("status"),
)
_DEDUCTION_HEADERS = (N_("item"), N_("tokens"), N_("allowance left"))


def _headers(names: tuple[str, ...], lang: Lang) -> tuple[str, ...]:
    return tuple(tr(lang, name) for name in names)


def _ledger_lines(report: InspectReport, lang: Lang = "en") -> list[str]:
    """The shown ledger rows, with a marker at the cut and a count where rows are elided."""
    rows: list[tuple[object, ...]] = []
    previous = -1
    cut = next((r.group for r in report.ledger if r.status != "trimmed"), None)
    for index in _ledger_indexes(report):
        if index > previous + 1:
            more = tr(lang, "… {count} more group(s)", count=index - previous - 1)
            rows.append(("", "", "", "", "", more))
        row = report.ledger[index]
        if row.group == cut and cut != 1:
            cut_line = tr(lang, "---- cut: older groups are left out, newer ones are kept")
            rows.append(("", "", "", "", "", cut_line))
        rows.append(
            (
                row.group,
                len(row.entry_ids),
                row.entry_ids[0],
                row.entry_ids[-1],
                row.tokens,
                row.status,
            )
        )
        previous = index
    return _table(rows, _headers(_LEDGER_HEADERS, lang)).splitlines()


def _table(rows: list[tuple[object, ...]], headers: tuple[str, ...]) -> str:
    """A plain terminal table; numbers right-aligned with thousands separators."""
    return tabulate(
        rows, headers=headers, tablefmt="simple", intfmt=",", floatfmt=",g", disable_numparse=False
    )


def render_table(report: InspectReport, lang: Lang = "en") -> str:
    """The human-readable report, in ``lang`` (ids, kinds and numbers as they are)."""
    kind = tr(lang, _FORMAT_WORDS.get(report.format, _COURSE_WORDS))
    if report.format == "pi":
        kind = tr(lang, "pi session, format v{version}", version=report.version)
    out = [tr(lang, "{file}: {kind}", file=report.file, kind=kind)]
    out.append(
        tr(
            lang,
            "entries: {total} ({counts})",
            total=_n(sum(report.entries_by_type.values())),
            counts=_counts(report.entries_by_type),
        )
    )
    if report.source_counts:
        source = _SOURCE_NAMES.get(report.format, report.format)
        counts = _counts(report.source_counts)
        out.append(tr(lang, "{source} lines by type: {counts}", source=source, counts=counts))
    path = {
        "leaf": report.leaf,
        "entries": _n(report.path_entries),
        "messages": _n(report.path_messages),
        "interactions": _n(len(report.ledger)),
    }
    if report.compaction:
        out.append(
            tr(
                lang,
                "active path to {leaf}: {entries} entries, {messages} messages, "
                "{interactions} interactions after compaction {compaction}",
                compaction=report.compaction,
                **path,
            )
        )
    else:
        out.append(
            tr(
                lang,
                "active path to {leaf}: {entries} entries, {messages} messages, "
                "{interactions} interactions",
                **path,
            )
        )
    out.extend(_note_lines(report.notes, lang))
    out.append("")
    out.append(tr(lang, "budget (estimator: {estimator})", estimator=report.estimator))
    deduction = _table(list(_deduction_rows(report, lang)), _headers(_DEDUCTION_HEADERS, lang))
    out.extend(f"  {line}" for line in deduction.splitlines())
    out.append("")
    out.append(tr(lang, "ledger (oldest first)"))
    out.extend(f"  {line}" for line in _ledger_lines(report, lang))
    out.append("")
    out.append(_kept_line(report, lang))
    tokens = report.tokens
    out.append(
        tr(
            lang,
            "tokens: system {system} + messages {messages} + reserved {reserved} + margin "
            "{margin} = {total} of {max_tokens}",
            system=_n(tokens.system),
            messages=_n(tokens.messages),
            reserved=_n(tokens.reserved_output),
            margin=_n(tokens.safety_margin),
            total=_n(tokens.total),
            max_tokens=_n(tokens.max_tokens),
        )
    )
    explanation = (
        report.explanation
        if lang == "en"
        else _explain(tokens, report.reason, report.ledger, report.summary_tokens, lang)
    )
    out.append(
        tr(lang, "reason: {reason}: {explanation}", reason=report.reason, explanation=explanation)
    )
    # Ids, types and note details come from the file: a newline or a terminal
    # escape sequence inside one is shown as text, never obeyed.
    return "".join(escape_controls(line) + "\n" for line in out)


_COURSE_WORDS = N_("course session")
_FORMAT_WORDS = {"claude-code": N_("Claude Code session"), "codex": N_("Codex CLI session")}
_SOURCE_NAMES = {"pi": "pi", "claude-code": "Claude Code", "codex": "Codex CLI"}
"""Whose lines ``source_counts`` counts, by format: a program's name, the same in every language."""


def _detail_in(detail: str, lang: Lang) -> str:
    """A note's detail in ``lang``, its ids and numbers as they are (``views.translated``).

    The views are imported only for a language other than English: with pandas
    they take a second, which the English report does not need to spend.
    """
    if lang == "en":
        return detail
    from ..views.translated import translated

    return translated(detail, lang)


def _note_lines(notes: list[ImportNote], lang: Lang = "en") -> list[str]:
    """Notes by kind, warnings first, each with its count and first occurrence
    (``--format json`` lists all)."""
    if not notes:
        return [tr(lang, "notes: {count}", count=_n(0))]
    severities = Counter(note.severity for note in notes)
    lines = [
        tr(
            lang,
            "notes: {count} (warnings {warnings}, info {info})",
            count=_n(len(notes)),
            warnings=_n(severities["warning"]),
            info=_n(severities["info"]),
        )
    ]
    words = {severity: tr(lang, word) for severity, word in _SEVERITY_WORDS.items()}
    for kind, count in _note_kinds(notes).items():
        first = next(note for note in notes if note.kind == kind)
        values = {
            "kind": kind,
            "count": _n(count),
            "entry": first.entry_id or "-",
            "detail": _detail_in(first.detail, lang),
        }
        line = (
            tr(lang, "{kind} x{count}, first at file, {entry}: {detail}", **values)
            if first.line is None
            else tr(
                lang,
                "{kind} x{count}, first at line {line}, {entry}: {detail}",
                line=first.line,
                **values,
            )
        )
        more = tr(lang, " (+{count} more)", count=_n(count - 1)) if count > 1 else ""
        severity = words[first.severity].ljust(max(map(len, words.values())))
        lines.append(f"  {severity}  {line}{more}")
    return lines


_SEVERITY_WORDS = {"warning": N_("warning"), "info": N_("info")}
"""How a note's severity is printed before it (a word of the report's language)."""


def _note_kinds(notes: list[ImportNote]) -> dict[str, int]:
    """How many notes of each kind: warning kinds first, then most frequent first (ties in
    first-seen order), so the changes to what the model is sent lead the list."""
    counts = Counter(note.kind for note in notes).most_common()
    rank = {note.kind: SEVERITIES.index(note.severity) for note in notes}
    return dict(sorted(counts, key=lambda item: rank[item[0]]))


def _kept_line(report: InspectReport, lang: Lang = "en") -> str:
    """The kept range: first and last kept entry, and how many entries and groups."""
    kept = report.kept_entry_ids
    groups = sum(row.status != "trimmed" for row in report.ledger)
    if not kept:
        return tr(lang, "kept: no message entries")
    entries = (
        tr(lang, "1 message entry")
        if len(kept) == 1
        else tr(lang, "{count} message entries", count=_n(len(kept)))
    )
    in_groups = (
        tr(lang, "{count} group", count=_n(groups))
        if groups == 1
        else tr(lang, "{count} groups", count=_n(groups))
    )
    return tr(
        lang,
        "kept: {first} .. {last} ({entries} in {groups})",
        first=kept[0],
        last=kept[-1],
        entries=entries,
        groups=in_groups,
    )


def report_dict(report: InspectReport) -> dict[str, Any]:
    """The report as JSON-ready data."""
    kept = report.kept_entry_ids
    return {
        "file": report.file,
        "format": report.format,
        "version": report.version,
        "entries": {
            "total": sum(report.entries_by_type.values()),
            "by_type": report.entries_by_type,
        },
        "source": report.source_counts or None,
        "leaf": report.leaf,
        "path": {"entries": report.path_entries, "messages": report.path_messages},
        "compaction": report.compaction,
        "interactions": len(report.ledger),
        "notes": {
            "total": len(report.notes),
            "by_severity": {
                severity: sum(note.severity == severity for note in report.notes)
                for severity in SEVERITIES
            },
            "by_kind": _note_kinds(report.notes),
            "items": [
                {**asdict(note), "severity": note.severity} for note in by_severity(report.notes)
            ],
        },
        "budget": {
            "estimator": report.estimator,
            **asdict(report.tokens),
            "summary": report.summary_tokens,
        },
        "ledger": [asdict(row) for row in report.ledger],
        "kept": {
            "first": kept[0] if kept else None,
            "last": kept[-1] if kept else None,
            "entries": len(kept),
            "groups": sum(row.status != "trimmed" for row in report.ledger),
        },
        "reason": report.reason,
        "explanation": report.explanation,
    }


# Characters ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal may obey
# (C1 controls such as the one-byte CSI, DEL) or treat as a line break.
_JSON_RAW_CONTROLS = re.compile("[\x7f-\x9f\u2028\u2029]")


def render_json(report: InspectReport) -> str:
    """The report as one JSON document (every note and every ledger row).

    ``json.dumps`` escapes C0 controls; the few others are written as ``\\u``
    escapes too, which JSON reads back as the same characters.
    """
    text = json.dumps(report_dict(report), indent=2, ensure_ascii=False)
    return _JSON_RAW_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


# --- progress and the command ---------------------------------------------------------------


class ProgressBar:
    """A tqdm bar on a terminal stream, fed ``(done, total)`` and erased when done."""

    def __init__(self, stream: TextIO, label: str) -> None:
        # A file name may hold an escape sequence: the label is shown as text.
        self._bar = tqdm(
            total=None, file=stream, desc=escape_controls(label), leave=False, unit=" step",
            bar_format="{desc} [{bar:30}] {percentage:3.0f}%", ascii=" #", mininterval=0.2,
        )  # fmt: skip

    def __call__(self, done: int, total: int) -> None:
        bar = self._bar
        if bar.total != total:
            bar.reset(total=max(total, 1))
        goal = bar.total
        assert goal is not None  # set by the reset above, on this call or an earlier one
        bar.update(min(done, goal) - bar.n)
        if bar.n >= goal:
            bar.refresh()  # the last step is always drawn, however fast it came

    def close(self) -> None:
        self._bar.close()


def _wants_progress(stream: TextIO, size: int) -> bool:
    """A bar only helps a person watching a terminal, and only when reading takes a while."""
    isatty = getattr(stream, "isatty", None)
    return size >= LARGE_FILE_BYTES and callable(isatty) and bool(isatty())


_NUMBER_SHOWN = 40  # characters of a refused option value repeated in the error


def token_count(option: str, value: str | int) -> int:
    """A token count from the command line (``200000``, ``200_000`` or ``200,000``).

    Checked here, not by ``argparse``, so a bad value is one error line (exit
    status 2) like every other input error; the digits are counted before
    converting, so ``10**400`` digits or ``1e400`` cannot overflow anything.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        digits = str(value) if 0 <= value <= MAX_SAFE_INTEGER else "-1"
    else:
        digits = str(value).strip().replace("_", "").replace(",", "")
    if digits.isascii() and digits.isdigit() and len(digits) <= len(str(MAX_SAFE_INTEGER)):
        number = int(digits)
        if number <= MAX_SAFE_INTEGER:
            return number
    shown = str(value) if len(str(value)) <= _NUMBER_SHOWN else f"{str(value)[:_NUMBER_SHOWN]}..."
    raise InspectError(
        f"{option} must be a whole number from 0 to 2**53 - 1 ({MAX_SAFE_INTEGER:,}), got {shown!r}"
    )


_DESCRIPTION = """\
Show what a session file holds and what a model call would keep.

The file is a course JSONL session or a real pi, Claude Code or Codex CLI
session (detected from its first records; the report says which). The report
lists the entries, the notes an import made (warnings first: the changes to
what the model is sent, then routine trimming), the deduction table (window,
system, reserved output, safety margin, summary), a compact per-group ledger
(oldest groups, the cut, newest groups) and the kept range with the reason.
Defaults follow pi: a 200,000-token window with 16,384 tokens reserved for the
answer, and pi's own characters/4 estimate."""

_EPILOG = """\
examples:
  course-lab inspect data/pi-sessions/large-session.v1.jsonl
  course-lab inspect data/pi-sessions/large-session.v1.jsonl --max-tokens 50000
  course-lab inspect data/pi-sessions/large-session.v1.jsonl --estimator bpe
  course-lab inspect data/claude-code-sessions/sample-session.jsonl
  course-lab inspect data/codex-sessions/sample-rollout.jsonl --max-tokens 50000
  course-lab inspect data/chapter11/fixture.jsonl --estimator fixture \\
      --max-tokens 31 --reserved-output 4 --safety-margin 2     (the chapter's 31 / 4 / 2)
  course-lab inspect my-session.jsonl --format json > report.json
  course-lab inspect data/codex-sessions/sample-rollout.jsonl --lang zh     (the report in Chinese)

exit status: 0 the report was printed, 2 bad input (a missing file or one that
is not a regular file, a line that is not valid JSON or not a session entry, an
unknown --leaf, a token count that is not a whole number from 0 to 2**53 - 1).
The file is only read: inspect never creates, locks or changes it."""


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``inspect FILE [...]`` to a ``course-lab`` subparsers object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "inspect",
        help="Show what a session file holds and what a model call would keep.",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "file",
        metavar="FILE",
        help="a course JSONL session, or a pi, Claude Code or Codex CLI session file",
    )
    parser.add_argument(
        "--leaf", metavar="ID", help="the entry to build the context for (default: the last)"
    )
    parser.add_argument("--max-tokens", metavar="N", default=DEFAULT_MAX_TOKENS,
                        help=f"context window (default: {DEFAULT_MAX_TOKENS:,}, as pi)")  # fmt: skip
    parser.add_argument("--reserved-output", metavar="N", default=DEFAULT_RESERVED_OUTPUT,
                        help=f"tokens kept for the answer (default: {DEFAULT_RESERVED_OUTPUT:,}, as pi)")  # fmt: skip
    parser.add_argument("--safety-margin", metavar="N", default=0,
                        help="extra tokens kept free (default: 0)")  # fmt: skip
    parser.add_argument("--estimator", choices=("chars", "bpe", "fixture"), default="chars",
                        help="chars: pi's characters/4 (default); bpe: real o200k tokens; fixture: the chapter's table")  # fmt: skip
    parser.add_argument("--format", choices=("table", "json"), default="table",
                        help="table (default) or json (every note and ledger row)")  # fmt: skip
    parser.add_argument("--lang", choices=LANGUAGES, default="en",
                        help="language of the table report: en (default) or zh; "
                             "the JSON report is always English")  # fmt: skip
    parser.set_defaults(func=run)
    return parser


def _with_bar(enabled: bool, stream: TextIO, label: str, work: Callable[[Progress | None], T]) -> T:
    """Run ``work`` with a progress bar on ``stream`` when ``enabled``; the bar is erased after."""
    if not enabled:
        return work(None)
    bar = ProgressBar(stream, label)
    try:
        return work(bar)
    finally:
        bar.close()


def _counting(estimate: Estimator, progress: Progress | None, total: int) -> Estimator:
    """The estimator, reporting each call to ``progress`` (pricing is the slow part with bpe)."""
    if progress is None:
        return estimate
    calls = 0

    def counted(value: Any) -> int | float:
        nonlocal calls
        calls += 1
        progress(calls, total)
        return estimate(value)

    return counted


def run(
    args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Read the file (never writing to it), build the report, print it; returns the exit status (0)."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    budget = Budget(
        max_tokens=token_count("--max-tokens", args.max_tokens),
        reserved_output=token_count("--reserved-output", args.reserved_output),
        safety_margin=token_count("--safety-margin", args.safety_margin),
    )
    estimate = make_estimator(args.estimator)  # fails fast, before a long import
    file = Path(args.file)
    data = _read_input(file, args.file)
    show = _wants_progress(err, len(data))
    with _numbers_too_large(args.file):
        loaded = _with_bar(
            show, err, f"reading {file.name}", lambda bar: load_session(file, args.file, data, bar)
        )
        # one plan prices every message once (plus the system message and the summary)
        calls = sum(isinstance(entry, MessageEntry) for entry in loaded.entries) + 2
        report = _with_bar(
            show,
            err,
            f"pricing {file.name}",
            lambda bar: inspect_entries(
                loaded,
                file=args.file,
                leaf_id=args.leaf,
                estimator=args.estimator,
                estimate=_counting(estimate, bar, calls),
                budget=budget,
            ),
        )
    lang: Lang = getattr(args, "lang", "en")
    out.write(render_json(report) if args.format == "json" else render_table(report, lang))
    return 0


@contextmanager
def _numbers_too_large(file: str) -> Iterator[None]:
    """The last guard where numbers from the file enter: ``OverflowError`` as a clear error.

    Why: every reader refuses a number the course cannot hold, naming its line;
    should one still reach float arithmetic (``10**400``), the command says so
    instead of printing a traceback.
    """
    try:
        yield
    except OverflowError as error:
        raise InspectError(
            f"{file}: a number in the file is too large to compute with ({error})"
        ) from None
