"""Two text rules every layer shares: what counts as blank, and how text is shown safely.

"Blank" follows JavaScript's ``String.prototype.trim``, because the TypeScript
course decides blankness that way and both must accept the same files. Python's
``str.strip`` removes a different set (``"\\x1c"``, ``"\\x85"``) and keeps
``"\\ufeff"``, so it is never used to decide blankness.

Human-facing text (error messages, terminal tables) may repeat ids and text
from files nobody checked; ``escape_controls`` makes sure an escape sequence or
a newline inside them is shown, never obeyed.
"""

from __future__ import annotations

import os
import re

__all__ = [
    "JS_TRIM_WHITESPACE",
    "escape_controls",
    "escape_controls_by_line",
    "is_blank",
    "js_trim",
    "spreadsheet_safe",
    "visible_name",
]

JS_TRIM_WHITESPACE = frozenset(
    "\t\n\v\f\r \u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""The code points JavaScript's ``trim`` removes (its WhiteSpace and LineTerminator sets)."""

_TRIM_CHARS = "".join(sorted(JS_TRIM_WHITESPACE))


def js_trim(value: str) -> str:
    """``value`` with JavaScript's trim set removed from both ends."""
    return value.strip(_TRIM_CHARS)


def is_blank(value: str) -> bool:
    """True when JavaScript's ``value.trim()`` would be empty."""
    return not value.strip(_TRIM_CHARS)


# C0 and C1 control characters, DEL, the line/paragraph separators that split a
# line on some terminals, and the invisible ones that change what a reader sees:
# zero-width characters, bidirectional embeddings, overrides and isolates, the BOM.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(value: str) -> str:
    """``value`` with every control character written as a visible escape (``\\x1b``, ``\\n``)."""
    return _CONTROL.sub(_escape, value)


def escape_controls_by_line(value: str) -> str:
    """``escape_controls`` on each line: a line break stays one, every other control is shown.

    For text a reader sees on several lines (a report's note, a feedback file), where
    a right-to-left override must not reverse what follows it but lines still break.
    """
    return "\n".join(escape_controls(line) for line in value.split("\n"))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection")."""


def spreadsheet_safe(value: object) -> object:
    """A CSV cell a spreadsheet shows as text and never runs: ``'`` before a formula's start.

    Why: a student names their folder ``=HYPERLINK(...)``; the instructor opens the
    gradebook in a spreadsheet. Numbers are left as they are.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def visible_name(name: str | os.PathLike[str]) -> str:
    """A file name (or path) as text anyone can read and every format can hold.

    Bytes that are not UTF-8 (kept by Python as surrogates) become ``\\xNN``
    and control characters ``\\n``-style escapes; letters of any script and
    spaces stay as they are.
    """
    raw = os.fsencode(name)
    text = raw.decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
