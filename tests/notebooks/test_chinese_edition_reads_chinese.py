"""The Chinese edition reads Chinese: its stored outputs hold at most 15 English lines.

The measure is ``english_lines`` (next to this file): a line with no Chinese
character and four English words or more, once ids, code names and quoted
session text are set aside. What stays English, and why, is listed in
``ALLOWED``: each is a line a reader meets as it is written in code or data.
"""

from __future__ import annotations

from english_lines import english_lines, is_english, session_corpus

MOST_ENGLISH_LINES = 15


def test_the_chinese_notebooks_show_at_most_15_english_lines() -> None:
    found = english_lines()
    listed = "\n".join(f"  {line.notebook}: {line.line[:120]}" for line in found)
    assert len(found) <= MOST_ENGLISH_LINES, f"{len(found)} English lines:\n{listed}"


def test_the_measure_counts_prose_and_leaves_ids_code_and_session_text() -> None:
    corpus = session_corpus()
    assert is_english("pi never compacted this session.", corpus)
    assert not is_english("pi 从未压缩过这个会话。", corpus)
    assert not is_english("u2, a2, u3, calls, r-test, r-read, a3", corpus)  # ids
    assert not is_english("kept_entry_ids: ['u4', 'a4'] | reason: trimmed", corpus)  # code
    assert not is_english("['goal', 'constraints', 'completed', 'decisions']", corpus)  # names
    assert not is_english("result for test-1: 14 tests passed", corpus)  # a tool's own output
