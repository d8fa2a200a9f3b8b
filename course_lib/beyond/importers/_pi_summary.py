"""Map pi's markdown compaction summary onto the course's seven summary fields.

pi's summary is markdown written by a model. Current pi asks for ``## Goal``,
``## Constraints & Preferences``, ``## Progress`` (``### Done``,
``### In Progress``, ``### Blocked``), ``## Key Decisions``, ``## Next Steps``
and ``## Critical Context``, and appends ``<read-files>`` /
``<modified-files>`` blocks; older sessions used free-form headings such as
``# Context Checkpoint: …``, ``## Key Decisions Made``,
``## Completed Work Packages (…)``, ``## Files Created/Modified``,
``## User Preferences``, ``## Commands`` or ``## Testing``.

The rule that matters: no line of the original is lost. Each section goes to
the field whose meaning it has (see ``_route_heading``); a section with no
such field (``Critical Context``, ``Commands``, read files, text before the
first heading) goes to ``unresolved``, each item prefixed with its heading, and
a note says so. ``(none)`` marks an empty section and is not an item; list
markers (``- ``, ``- [x] ``, ``- [ ] ``, ``1. ``) are removed; indented lines,
code blocks and nested lists stay with the item above them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import takewhile
from typing import Any, NamedTuple

from ...base.text_rules import is_blank, js_trim

__all__ = ["SummaryMapping", "map_pi_summary"]

GOAL_FALLBACK = "(the pi summary records no goal; see the other fields)"
IN_PROGRESS_PREFIX = "In progress"
READ_FILES_LABEL = "Read files"
_FILE_TAGS = ("read-files", "modified-files")
_CHECKBOXES = ("[ ]", "[x]", "[X]")

_LIST_FIELDS = ("constraints", "completed", "decisions", "changedFiles", "unresolved", "next")
CATCH_ALL = "unresolved"


class _Route(NamedTuple):
    """Where a section's items go; ``prefix`` is written before each item."""

    field: str  # "goal", "title", "progress" or a list field (camelCase)
    prefix: str | None = None
    mapped: bool = True  # False: no field has this meaning, kept in the catch-all


@dataclass
class _Section:
    heading: str | None  # the heading text as written (without #), None for the preamble
    route: _Route
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SummaryMapping:
    """The seven fields (wire names) and what the mapping had to decide."""

    summary: dict[str, Any]
    notes: list[tuple[str, str]]  # (kind, detail)


# --- reading one line ---------------------------------------------------------
# Plain string methods, no regular expressions: each line is scanned a fixed
# number of times, so a hostile summary (a heading padded with thousands of
# spaces) costs time in proportion to its length. The pattern these replace,
# ``^(#{1,6})\s+(.*?)\s*#*\s*$``, let three quantifiers compete for the same
# spaces and took cubic time.


def _heading(line: str) -> tuple[int, str] | None:
    """``(level, text)`` of an ATX heading (``## Next Steps ##``), or ``None`` for any other line."""
    level = len(line) - len(line.lstrip("#"))
    rest = line[level:]
    if not 1 <= level <= 6 or not rest[:1].isspace():
        return None  # markdown needs 1-6 hashes and a space after them
    return level, rest.strip().rstrip("#").rstrip()  # closing hashes are decoration


def _item_text(stripped: str) -> str | None:
    """The text after a list marker (``- ``, ``- [x] ``, ``1. ``, ``2) ``), or ``None``."""
    if stripped[:1] in ("-", "*", "+"):
        rest = stripped[1:]
        if not rest[:1].isspace():
            return None
        rest = rest.lstrip()
        if rest[:3] in _CHECKBOXES and rest[3:4].isspace():
            rest = rest[3:]
        return rest.strip()
    digits = sum(1 for _ in takewhile(str.isdecimal, stripped))
    rest = stripped[digits + 1 :]
    if digits and stripped[digits : digits + 1] in (".", ")") and rest[:1].isspace():
        return rest.strip()
    return None


def _file_tag(stripped: str) -> tuple[bool, str] | None:
    """``(closing, name)`` for a ``<read-files>`` / ``</modified-files>`` line, else ``None``."""
    closing = stripped.startswith("</")
    name = stripped[2 if closing else 1 : -1]
    if stripped.startswith("<") and stripped.endswith(">") and name in _FILE_TAGS:
        return closing, name
    return None


def _is_none(item: str) -> bool:
    """Whether an item is only the empty-section marker: ``(none)``, ``None.``, ``( none )``."""
    text = item.removesuffix("\n").removesuffix(".").removesuffix(")").rstrip()
    if text[-4:].lower() != "none":
        return False
    before = text[:-4].removeprefix("(")
    return not before or before.isspace()


def _without_parenthetical(text: str) -> str:
    """``'Next Steps (for the theme work)'`` -> ``'Next Steps'``: from the first ``(`` on."""
    opening = text.find("(")
    if opening < 0 or not text.rstrip().endswith(")"):
        return text
    return text[:opening].rstrip()


def _normalise(heading: str) -> str:
    """``'Next Steps (for the theme work):'`` -> ``'next steps'``."""
    text = _without_parenthetical(heading.strip().rstrip(":").strip())
    return " ".join(text.split()).lower()


def _label(heading: str) -> str:
    """The heading as a prefix: without a trailing colon."""
    return heading.strip().rstrip(":").strip()


_GOAL = _Route("goal")
_CONSTRAINTS = _Route("constraints")
_PROGRESS = _Route("progress")
_DECISIONS = _Route("decisions")
_NEXT = _Route("next")
_CHANGED_FILES = _Route("changedFiles")
_COMPLETED = _Route("completed")
_IN_PROGRESS = _Route("next", IN_PROGRESS_PREFIX)
_UNRESOLVED = _Route("unresolved")
_OPEN_WORDS = ("blocked", "blocker", "unresolved", "open question")


def _route_heading(heading: str) -> _Route | None:
    """The field a heading's meaning matches, or ``None`` when no field does; the first rule wins."""
    name = _normalise(heading)
    if name.startswith(("goal", "objective")):
        return _GOAL
    if "constraint" in name or "preference" in name:
        return _CONSTRAINTS
    if name == "progress":
        return _PROGRESS
    if "decision" in name:
        return _DECISIONS
    if name.startswith("next"):
        return _NEXT
    if "read file" in name or name == "files read":
        return _Route(CATCH_ALL, _label(heading), False)
    if "file" in name:
        return _CHANGED_FILES
    if name.startswith(("done", "completed")) or "completed" in name:
        return _COMPLETED
    if name == "in progress":
        return _IN_PROGRESS
    if any(word in name for word in _OPEN_WORDS):
        return _UNRESOLVED
    return None


def _route_for(level: int, heading: str, parent: _Route | None) -> tuple[_Route, bool]:
    """Route of a heading line; the flag says the heading text itself must be kept as an item."""
    if level == 1:
        return _Route("title", _label(heading), False), False
    route = _route_heading(heading)
    if level >= 3 and parent is not None and parent.field == "progress" and route is None:
        return _Route(CATCH_ALL, _label(heading), False), False
    if route is not None:
        return route, False
    if level >= 3 and parent is not None and parent.field != "title":
        return parent, True  # a sub-heading inside a mapped section: keep it as an item
    return _Route(CATCH_ALL, _label(heading), False), False


def _split_sections(markdown: str) -> tuple[list[_Section], list[str]]:
    """Sections in order, and the H1 titles met (``# Context Checkpoint: …``)."""
    sections = [_Section(heading=None, route=_Route(CATCH_ALL, "Summary", False))]
    titles: list[str] = []
    parent: _Route | None = None
    in_fence = False
    for raw in markdown.splitlines():
        stripped = js_trim(raw)
        if stripped.startswith("```"):
            in_fence = not in_fence
        # Most lines are neither: the first character rules them out without a call.
        heading = _heading(raw) if raw[:1] == "#" and not in_fence else None
        tag = _file_tag(stripped) if stripped[:1] == "<" and not in_fence else None
        if heading:
            level, text = heading
            route, keep_heading = _route_for(level, text, parent)
            if level == 1:
                titles.append(_label(text))
            if level <= 2:
                parent = route
            sections.append(_Section(heading=text, route=route))
            if keep_heading:
                sections[-1].lines.append(f"- {_label(text)}")
        elif tag and not tag[0]:
            files_route = (
                _Route("changedFiles")
                if tag[1] == "modified-files"
                else _Route(CATCH_ALL, READ_FILES_LABEL, False)
            )
            sections.append(_Section(heading=f"<{tag[1]}>", route=files_route))
        elif tag:
            sections.append(_Section(heading=None, route=_Route(CATCH_ALL, "Summary", False)))
        else:
            sections[-1].lines.append(raw)
    return sections, titles


def _items(lines: list[str]) -> list[str]:
    """List items of a section body; continuation lines, nested lists and code stay with their item.

    Each item is collected as a list of its lines and joined once at the end:
    adding to a growing string line by line would copy it every time.
    """
    items: list[list[str]] = []
    attached = False  # the next non-item line continues the last item
    in_fence = False
    for raw in lines:
        stripped = js_trim(raw)
        if in_fence or stripped.startswith("```"):
            in_fence = in_fence != stripped.startswith("```")
            if items and (attached or in_fence):
                items[-1].append(raw.rstrip())
            else:
                items.append([stripped])
            attached = True
            continue
        if not stripped:
            attached = False
            continue
        indent = len(raw) - len(raw.lstrip())
        text = _item_text(stripped)
        if text is not None and indent <= 1:
            items.append([text])
        elif items and (attached or indent >= 2):
            items[-1].append(raw.rstrip())
        else:
            items.append([stripped])
        attached = True
    joined = ("\n".join(parts) for parts in items)
    return [item for item in joined if item and not _is_none(item)]


def _is_file_tag(section: _Section) -> bool:
    """Whether a section is one of the file lists pi appends to its summary."""
    return section.heading in ("<read-files>", "<modified-files>")


def _file_lines(lines: list[str]) -> list[str]:
    """Inside ``<read-files>`` / ``<modified-files>`` every non-blank line is one path."""
    return [js_trim(line) for line in lines if not is_blank(line)]


def _prefixed(route: _Route, items: list[str]) -> list[str]:
    """Items with their section's label in front, so they stay readable in another field."""
    return [f"{route.prefix}: {item}" for item in items] if route.prefix else items


def _dedupe(items: list[str]) -> list[str]:
    """Exact repeats only (a file named both in a section and in ``<modified-files>``)."""
    return list(dict.fromkeys(items))


def map_pi_summary(markdown: str) -> SummaryMapping:
    """The course summary (wire dict) for pi's ``markdown``, and notes on what had no field."""
    sections, titles = _split_sections(markdown)
    goal: list[str] = []
    fields: dict[str, list[str]] = {name: [] for name in _LIST_FIELDS}
    notes: list[tuple[str, str]] = []
    for section in sections:
        items = _file_lines(section.lines) if _is_file_tag(section) else _items(section.lines)
        if section.heading == "<read-files>" and items:
            items = [", ".join(items)]  # one item: a file list, not a list of open problems
        route = section.route
        if route.field == "goal":
            goal.extend(items)
            continue
        if route.field == "title":  # text right under an H1 title
            route = _Route(CATCH_ALL, route.prefix, False)
        target = "completed" if route.field == "progress" else route.field
        fields[target].extend(_prefixed(route, items))
        if not route.mapped and items:
            where = section.heading if section.heading else "text before the first heading"
            notes.append(
                (
                    "summary_section_unmapped",
                    f"{where!s} ({len(items)} item{'s' if len(items) != 1 else ''}) fits no course "
                    f"field: kept in {CATCH_ALL}, each item prefixed '{route.prefix}: '",
                )
            )
    goal_text = js_trim("\n".join(goal))
    if not goal_text:
        goal_text, note = _goal_fallback(titles)
        notes.append(("summary_goal_fallback", note))
        titles = titles[1:]
    if titles:
        fields[CATCH_ALL][:0] = titles
        notes.append(
            (
                "summary_section_unmapped",
                f"title {titles[0]!r} kept as the first item of {CATCH_ALL} (the goal is not taken from it)",
            )
        )
    summary: dict[str, Any] = {"goal": goal_text}
    for name in _LIST_FIELDS:
        summary[name] = _dedupe(fields[name]) if name == "changedFiles" else fields[name]
    return SummaryMapping(summary=summary, notes=notes)


def _goal_fallback(titles: list[str]) -> tuple[str, str]:
    """A visible goal when the summary has no ``## Goal`` text: the title, else a marker."""
    if titles:
        return titles[0], f"no Goal section: goal taken from the title {titles[0]!r}"
    return GOAL_FALLBACK, f"no Goal section and no title: goal set to {GOAL_FALLBACK!r}"
