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

import re

__all__ = ["JS_TRIM_WHITESPACE", "escape_controls", "is_blank", "js_trim"]

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
