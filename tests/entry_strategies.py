"""Hypothesis strategies for session entries, shared by the tests of several layers.

``valid_entries`` draws any valid entry as a wire dict; the conformance,
entry and fast-reading tests all read and write what it draws.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from course_lib.base.text_rules import is_blank

__all__ = ["FLOATS", "IDS", "JSON_VALUES", "NON_NEGATIVE", "NUMBERS", "valid_entries"]

FLOATS = st.floats(allow_nan=False, allow_infinity=False).filter(
    lambda x: not (2**53 - 1 < abs(x) < 1e21 and x.is_integer())
)
NUMBERS = st.integers(min_value=-(2**53 - 1), max_value=2**53 - 1) | FLOATS
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | NUMBERS | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
NON_NEGATIVE = st.integers(min_value=0, max_value=2**53 - 1) | FLOATS.map(abs)
IDS = st.text(min_size=1, max_size=6).filter(lambda value: not is_blank(value))


@st.composite
def valid_entries(draw: st.DrawFn) -> dict[str, Any]:
    """Any valid entry as a wire dict: a message of each role, metadata or a compaction."""
    base = {"id": draw(IDS), "parentId": draw(st.none() | IDS), "timestamp": draw(NUMBERS)}
    kind = draw(
        st.sampled_from(["user", "assistant", "toolResult", "system", "metadata", "compaction"])
    )
    stamp = draw(NUMBERS)
    if kind == "metadata":
        return {**base, "type": "metadata", "key": draw(IDS), "value": draw(JSON_VALUES)}
    if kind == "compaction":
        lists = st.lists(st.text(max_size=6), max_size=3)
        summary = {
            "goal": draw(IDS),
            **{name: draw(lists) for name in ("constraints", "completed", "decisions")},
            **{name: draw(lists) for name in ("changedFiles", "unresolved", "next")},
        }
        return {
            **base,
            "parentId": draw(IDS),
            "type": "compaction",
            "summary": summary,
            "firstKeptEntryId": draw(IDS),
            "tokensBefore": draw(NON_NEGATIVE),
        }
    texts = st.lists(
        st.builds(lambda t: {"type": "text", "text": t}, st.text(max_size=8)), max_size=2
    )
    if kind == "user":
        message = {"role": "user", "content": draw(texts), "timestamp": stamp}
    elif kind == "system":
        message = {"role": "system", "content": draw(st.text(max_size=8)), "timestamp": stamp}
        if draw(st.booleans()):
            message["sections"] = draw(
                st.dictionaries(st.text(max_size=4), st.none() | st.text(max_size=4), max_size=3)
            )
    elif kind == "toolResult":
        message = {
            "role": "toolResult",
            "toolCallId": draw(IDS),
            "toolName": draw(IDS),
            "content": draw(texts),
            "isError": draw(st.booleans()),
            "timestamp": stamp,
        }
        if draw(st.booleans()):
            message["details"] = draw(JSON_VALUES)
    else:
        call = {
            "type": "toolCall",
            "id": draw(IDS),
            "name": draw(IDS),
            "arguments": draw(JSON_VALUES),
        }
        message = {
            "role": "assistant",
            "content": [call, *draw(texts)],
            "provider": draw(st.text(max_size=4)),
            "model": draw(st.text(max_size=4)),
            "usage": {
                "input": draw(NON_NEGATIVE),
                "output": draw(NON_NEGATIVE),
                "totalTokens": draw(NON_NEGATIVE),
            },
            "stopReason": draw(st.sampled_from(["stop", "length", "toolUse", "error", "aborted"])),
            "timestamp": stamp,
        }
        if draw(st.booleans()):
            message["errorMessage"] = draw(st.text(max_size=6))
    return {**base, "type": "message", "message": message}
