"""The library's English messages shown in the reader's language, where they are shown.

Why here and not where they are raised: the chapter's rules are code a student
reads and copies, so they raise plain English f-strings, as the course's own
code raises plain strings; and an importer note or an error is data the tests
and the grader compare. A view that puts a message in front of a reader (an
error table, the import notes, a check's hint) passes it through
``translated(text, lang)``, which finds the known parts of the message in the
gettext catalog and writes them in ``lang``.

A part is an English template with ``{placeholders}``, listed below with
``N_`` so that Babel extracts it (``make catalogs``). A placeholder matches a
locator (an entry id, a field path, a call id, a number) and is written into
the translation as it is, so locators are identical in both languages. A
placeholder whose name ends in ``_text`` matches free text (up to the next
part of the template), and is itself translated; a template that starts with
one starts at the beginning of a line. A locator is one token, or a quoted
value with its spaces (``'Notes: '``, a ``repr``). Longer templates are tried
first, so ``first kept entry {entry} is not the first message of a complete
interaction`` wins over a template that is part of it.

The importers' notes (``ImportNote.detail``) are translated the same way, with
the templates of ``note_texts.NOTE_PARTS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ..base.i18n import N_, Lang, translation
from .note_texts import NOTE_PARTS

__all__ = ["MESSAGE_PARTS", "notebook_language", "set_notebook_language", "shown", "translated"]

MESSAGE_PARTS: tuple[str, ...] = (
    # Lab 11.1: the parser's errors (course_lib.chapter.entries, base.validation)
    N_("session entry {entry}"),
    N_("missing field"),
    N_("unknown field"),
    N_("must be >= 0"),
    N_("must be a finite number, not NaN or infinity"),
    N_("must be a finite number, not {kind}"),
    N_("must not be blank"),
    N_("Input should be a valid string"),
    N_("Input should be a valid integer"),
    N_("Input should be a valid number"),
    N_("Input should be a valid list"),
    N_("Input should be a valid dictionary or instance of {model}"),
    N_("duplicate entry id {entry}"),
    # Lab 11.2: interaction groups (course_lib.chapter.groups)
    N_("entry {entry}: duplicate tool call id {call} (already declared by entry {other})"),
    N_("entry {entry}: duplicate result for call {call} (already answered by entry {other})"),
    N_("entry {entry}: result for unknown call {call} (no call with that id in this interaction)"),
    N_("missing result for call {call} declared by entry {entry}"),
    N_("entry {entry}: {role} message before the first user message"),
    # Lab 11.3: budget numbers (course_lib.base.pricing, chapter.models)
    N_("{name} must be a finite number >= 0, got {value}"),
    N_("estimate_tokens result for {which_text} must be a finite number >= 0, got {value}"),
    N_("estimate_tokens failed on {which_text}: {error_text}"),
    N_("system message"),
    N_("compaction summary {n}"),
    N_("interaction {n} message {m}"),
    # Labs 11.4 and 11.5: compaction (course_lib.chapter.compaction, restoring)
    N_(
        "compaction {entry}: first kept entry {first} is not the first message "
        "of a complete interaction"
    ),
    N_(
        "compaction {entry}: first kept entry {first} is not a user message entry before it on the path"
    ),
    N_("compaction {entry}: empty active path"),
    N_("compaction {entry}: duplicate id {id} is already on the path"),
    # Labs 11.2 and 11.4: the cut points and first kept entries tables (course_lib.views.frames)
    N_("between group {before} and group {after}"),
    N_("inside group {group}"),
    N_("created, parent {entry}"),
    # Start here: the lab map's topics (course_lib.track.catalogue.LAB_MAP)
    N_("resume compaction, part 1: restoring"),
    N_("resume compaction, part 2: compacting again"),
    N_("a real pi session"),
    N_("the chapter in review"),
    N_("pi, Claude Code and Codex CLI sessions"),
)
"""Every message part the views translate, as the library writes it in English."""


_notebook_language: Lang = "en"
"""The edition ``views.setup_notebook`` was given: the language views show messages in."""


def set_notebook_language(lang: Lang) -> None:
    """Show the library's messages in ``lang`` from now on (``views.setup_notebook`` calls it)."""
    global _notebook_language
    _notebook_language = lang


def notebook_language() -> Lang:
    """The notebook's language: ``setup_notebook``'s ``lang``, English before it is called."""
    return _notebook_language


def shown(text: str) -> str:
    """``text`` as the notebook's reader reads it: ``translated`` into the notebook's language."""
    return translated(text, _notebook_language)


@dataclass(frozen=True)
class _Part:
    """One template, ready to find in a message and to rewrite."""

    pattern: re.Pattern[str]
    template: str
    free_text: frozenset[str]


_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_QUOTED = r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\""
"""A value in quotes, as ``repr`` writes a string: one locator, spaces and all."""
_TOKEN_START = r"(?<![^\s(\[（:：,，;；])"
"""Where a template that opens with a locator may start: at the text's start, or after a space
or an opening bracket or separator. Not inside a token: trying every character of a long one
would take time in proportion to its length squared."""


def _compiled(template: str) -> _Part:
    """A regex that finds ``template`` in a message: literal text, then one group per field."""
    pieces = _PLACEHOLDER.split(template)  # literal, name, literal, name, ..., literal
    pattern = ""
    free = set()
    for index, piece in enumerate(pieces):
        if index % 2 == 0:
            pattern += re.escape(piece)
            continue
        last = index == len(pieces) - 2 and not pieces[-1]
        if piece.endswith("_text"):
            free.add(piece)
            if index == 1 and not pieces[0]:
                pattern += "^"  # free text first: from the line's start, tried once per line
            pattern += f"(?P<{piece}>.+)" if last else f"(?P<{piece}>.+?)"
        else:
            if index == 1 and not pieces[0]:
                pattern += _TOKEN_START  # a locator first: it starts where a token does
            token = r"[^\s;,()]+" if last else r"\S+?"
            pattern += f"(?P<{piece}>{_QUOTED}|{token})"
    return _Part(re.compile(pattern, re.MULTILINE), template, frozenset(free))


@cache
def _parts() -> tuple[_Part, ...]:
    """The templates, longest literal text first, so a whole sentence wins over its pieces."""
    literal = lambda template: len(_PLACEHOLDER.sub("", template))  # noqa: E731
    return tuple(
        _compiled(t) for t in sorted(MESSAGE_PARTS + NOTE_PARTS, key=literal, reverse=True)
    )


def translated(text: str, lang: Lang) -> str:
    """``text`` with every known part written in ``lang``; locators are kept as they are.

    >>> translated("entry u1: assistant message before the first user message", "en")
    'entry u1: assistant message before the first user message'
    """
    if lang == "en" or not text:
        return text
    catalog = translation(lang)
    for part in _parts():
        chinese = catalog.gettext(part.template)
        if chinese == part.template:
            continue

        def rewrite(found: re.Match[str], chinese: str = chinese, part: _Part = part) -> str:
            values = {
                name: translated(value, lang) if name in part.free_text else value
                for name, value in found.groupdict().items()
            }
            return _PLACEHOLDER.sub(lambda field: values[field.group(1)], chinese)

        text = part.pattern.sub(rewrite, text)
    return text
