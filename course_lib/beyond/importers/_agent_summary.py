"""Map an agent's compaction summary onto the course's seven fields, as pi's is mapped.

The pi importer's mapper (``map_pi_summary``) reads markdown sections and
routes each to the field whose meaning it has; text that fits no field goes
to ``unresolved``, prefixed with its heading, and is never lost. Codex writes
its summary as free markdown, so it goes to that mapper as it is.

Claude Code writes numbered sections instead of headings (``1. Primary Request
and Intent:``, ``2. Key Technical Concepts:``, ... ``9. Optional Next Step:``),
often after an ``Analysis:`` part, with every body indented. So its text is
first rewritten as markdown: each top-level numbered title becomes a ``##``
heading named for the field it means (the original title kept in parentheses),
``Analysis:`` becomes a heading of its own, and each body is dedented so its
list items are items again. Only structure changes; every line of text stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...base.text_rules import js_trim
from ._pi_summary import GOAL_FALLBACK, map_pi_summary

__all__ = [
    "SUMMARY_FIELDS",
    "MappedSummary",
    "claude_code_markdown",
    "items_named",
    "map_agent_summary",
]

SUMMARY_FIELDS = (
    "goal",
    "constraints",
    "completed",
    "decisions",
    "changedFiles",
    "unresolved",
    "next",
)

# Claude Code's section titles (lower case, without the number and colon) -> the heading
# that routes them. Titles missing here keep their own words and, fitting no field, land
# in ``unresolved`` with their title in front of each item.
_CLAUDE_SECTIONS = {
    "primary request and intent": "Goal",
    "files and code sections": "Files",
    "errors and fixes": "Done",
    "problem solving": "Key Decisions",
    "pending tasks": "Next Steps",
    "current work": "In Progress",
    "optional next step": "Next Steps",
}
_CONTAINER_LINES = ("summary:", "<summary>", "</summary>", "</analysis>")
_ANALYSIS_LINES = ("analysis:", "<analysis>")


@dataclass(frozen=True)
class MappedSummary:
    """The seven fields (wire names), the notes on what had no field, and what was filled."""

    summary: dict[str, Any]
    notes: list[tuple[str, str]]
    fields_filled: tuple[str, ...]
    unmapped_items: int


def _numbered_title(line: str) -> str | None:
    """``'2. Key Technical Concepts:'`` -> ``'Key Technical Concepts'``; ``None`` for other lines."""
    if line[:1].isspace() or not line.rstrip().endswith(":"):
        return None
    digits = len(line) - len(line.lstrip("0123456789"))
    if not digits or line[digits : digits + 2] != ". ":
        return None
    title = line[digits + 2 :].rstrip()[:-1].strip()
    return title or None


def _dedent(lines: list[str]) -> list[str]:
    """Remove the indentation all non-blank lines share (linear: one pass to measure, one to cut)."""
    widths = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
    cut = min(widths, default=0)
    return [line[cut:] for line in lines]


def claude_code_markdown(text: str) -> str:
    """Claude Code's numbered summary rewritten as markdown sections (see the module docstring)."""
    out: list[str] = []
    body: list[str] = []
    for line in text.splitlines():
        if line[:1].isspace():  # an indented line is always body: most lines, no more to ask
            body.append(line)
            continue
        title = _numbered_title(line) if line[:1].isdecimal() else None
        lowered = js_trim(line).lower() if title is None else ""
        if not (title or lowered in _CONTAINER_LINES or lowered in _ANALYSIS_LINES):
            body.append(line)
            continue
        out.extend(_dedent(body))
        body = []
        if lowered in _ANALYSIS_LINES:
            out.append("## Analysis")
        elif title is not None:
            route = _CLAUDE_SECTIONS.get(" ".join(title.lower().split()))
            out.append(f"## {route} ({title})" if route else f"## {title}")
    out.extend(_dedent(body))
    return "\n".join(out)


def map_agent_summary(text: str, agent: str, *, numbered: bool = False) -> MappedSummary:
    """The course summary for an agent's summary ``text`` (``numbered``: Claude Code's layout).

    When no section names a goal, the goal says which agent's summary lacks
    one (the pi mapper's marker names pi).
    """
    markdown = claude_code_markdown(text) if numbered else text
    mapping = map_pi_summary(markdown)
    summary = dict(mapping.summary)
    notes = list(mapping.notes)
    goal_filled = True
    if summary["goal"] == GOAL_FALLBACK:
        goal_filled = False
        marker = f"(the {agent} summary records no goal; see the other fields)"
        summary["goal"] = marker
        notes = [
            (kind, detail.replace(repr(GOAL_FALLBACK), repr(marker))) for kind, detail in notes
        ]
    filled = tuple(
        name for name in SUMMARY_FIELDS if (goal_filled if name == "goal" else bool(summary[name]))
    )
    unmapped = sum(items_named(detail) for kind, detail in notes if kind == _UNMAPPED)
    return MappedSummary(summary, notes, filled, unmapped)


_UNMAPPED = "summary_section_unmapped"


def items_named(detail: str) -> int:
    """How many items an unmapped-section note says it kept (``'Commands (3 items) fits ...'``)."""
    if detail.startswith("title "):
        return 1  # an H1 title kept as one item
    head = detail.split(" fits no course field", 1)[0]
    if not head.endswith(")") or "(" not in head:
        return 0
    count = head[head.rfind("(") + 1 :].split(" ", 1)[0]
    return int(count) if count.isdecimal() else 0
