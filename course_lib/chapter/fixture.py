"""The chapter's ten-entry fixture and the test estimator that prices it.

Chapter 11 §1 「同一段历史会产生一份更短的模型输入」 (one history gives a shorter
model input). The fixture is a session file like any other: its lines sit in
``data/`` next to this module (``fixture.en.jsonl``, then ``compaction.en.jsonl``
for ``compact-1``, ``u4`` and ``a4``; ``.zh`` files hold the course's Chinese
texts with the same ids, calls and costs). Every notebook and test starts from
them, so the numbers a student computes by hand (7 / 7 / 15, 31 -> 22) are the code's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import ClassVar, Literal

from course_lib.base.errors import CourseError
from course_lib.base.messages import MessageModel, UserMessage, text_of
from course_lib.chapter.models import (
    SUMMARY_LABELS_EN,
    SUMMARY_LABELS_ZH,
    CompactionEntry,
    CompactionSummary,
    MessageEntry,
    SessionEntry,
)

__all__ = [
    "CONTINUATION_TOKENS",
    "FIXTURE_TOKENS",
    "SUMMARY_TOKENS",
    "NamedEstimator",
    "chapter_fixture",
    "chapter_fixture_after_compaction",
    "fixture_estimator",
    "fixture_summary",
    "system_replay_fixture",
]

FIXTURE_TOKENS: dict[str, int] = {
    "sys": 3, "u1": 3, "a1": 4, "u2": 3, "a2": 4,
    "u3": 3, "calls": 3, "r-test": 3, "r-read": 3, "a3": 3,
}  # fmt: skip
"""The chapter's token table: entry id -> what the fixture estimator returns."""

CONTINUATION_TOKENS: dict[str, int] = {"u4": 3, "a4": 4}
SUMMARY_TOKENS = 5
"""What the fixture estimator charges for any compaction summary message."""

FixtureLanguage = Literal["en", "zh"]


def _read_entries(name: str, lang: FixtureLanguage = "en") -> list[SessionEntry]:
    """The entries of ``data/<name>.<lang>.jsonl``, each built by its own model.

    Not through ``parse_session_entry``: the fixture must work before Lab 11.1
    is written, and it is the same for the reference and every practice package.
    """
    if lang not in ("en", "zh"):
        raise CourseError(f"unknown fixture language {lang!r}; choose one of ('en', 'zh')")
    data = files("course_lib.chapter").joinpath("data", f"{name}.{lang}.jsonl")
    models: dict[str, type[MessageEntry | CompactionEntry]] = {
        "message": MessageEntry,
        "compaction": CompactionEntry,
    }
    return [
        models[wire["type"]].model_validate(wire, by_alias=True, by_name=False)
        for wire in map(json.loads, data.read_text("utf-8").splitlines())
    ]


def chapter_fixture(lang: FixtureLanguage = "en") -> list[SessionEntry]:
    """The ten entries of the chapter's active path, fresh objects every call.

    ``lang="zh"``: the course's Chinese texts, with the same ids, calls,
    results and token costs, so both editions show the same numbers.
    """
    return _read_entries("fixture", lang)


def chapter_fixture_after_compaction(lang: FixtureLanguage = "en") -> list[SessionEntry]:
    """The ten entries, then ``compact-1`` (parent ``a3``, first kept ``u2``), ``u4`` and ``a4``."""
    return [*chapter_fixture(lang), *_read_entries("compaction", lang)]


def fixture_summary(lang: FixtureLanguage = "en") -> CompactionSummary:
    """The seven-field summary ``compact-1`` records for the dropped first interaction."""
    compaction = _read_entries("compaction", lang)[0]
    assert isinstance(compaction, CompactionEntry)
    return compaction.summary


def system_replay_fixture(lang: FixtureLanguage = "en") -> list[SessionEntry]:
    """The chapter's path whose system state changes on both sides of ``compact-1`` (§6).

    ``lang="zh"``: the same path in Chinese, each text as long as its English twin, so the
    test estimator prices it the same and both editions of a notebook show the same numbers.
    """
    return _read_entries("system-replay", lang)


def _signature(message: MessageModel) -> str:
    # Messages arrive as copies, so they are recognised by content, not identity.
    return json.dumps(message.to_wire(), sort_keys=True)


def fixture_estimator() -> NamedEstimator:
    """The chapter's test estimator (not a tokenizer).

    Fixture messages (either language) cost what the table says, ``u4``/``a4``
    3/4, any compaction summary message 5; anything else, or plain text, one
    token per 4 characters of its text, rounded up.
    """
    return NamedEstimator("fixture")


@cache
def _fixture_costs() -> dict[str, int]:
    """Each fixture message's signature -> its cost in the chapter's table (built once)."""
    table = {**FIXTURE_TOKENS, **CONTINUATION_TOKENS}
    return {
        _signature(entry.message): table[entry.id]
        for lang in ("en", "zh")
        for entry in chapter_fixture_after_compaction(lang)
        if isinstance(entry, MessageEntry)
    }


def _fixture_estimate(value: str | MessageModel) -> int:
    if isinstance(value, str):
        return math.ceil(len(value) / 4)
    if isinstance(value, UserMessage) and text_of(value).startswith(
        (SUMMARY_LABELS_EN.title, SUMMARY_LABELS_ZH.title)
    ):
        return SUMMARY_TOKENS
    tokens = _fixture_costs().get(_signature(value))
    return tokens if tokens is not None else math.ceil(len(text_of(value)) / 4)


EstimatorName = Literal["fixture", "tenths", "nan_for_text"]


@dataclass(frozen=True)
class NamedEstimator:
    """An estimator known by its name: the checks' estimators, from a fixed set.

    Why a name: the judge never runs in the process of the rules it judges, so
    an estimator it hands them crosses the call channel as plain data (this
    dataclass's two fields) and is rebuilt on the other side. Call it like any
    estimator: ``NamedEstimator("tenths")(message)``.

    * ``"fixture"``: ``fixture_estimator()``, the chapter's table;
    * ``"tenths"``: a tenth of a token per character, plus 0.1 (sums whose
      last bits depend on the order they are added);
    * ``"nan_for_text"``: ``NaN`` for a message whose text starts with
      ``text_prefix``, the fixture's cost for anything else.

    >>> NamedEstimator("tenths")("four")
    0.5
    """

    name: EstimatorName
    text_prefix: str = ""
    __course_reads_only__: ClassVar[bool] = True  # base.pricing.reads_only: it never mutates

    def __post_init__(self) -> None:
        if self.name not in ("fixture", "tenths", "nan_for_text"):
            raise CourseError(f"no estimator is named {self.name!r}")

    def __call__(self, value: str | MessageModel) -> int | float:
        text = value if isinstance(value, str) else text_of(value)
        if self.name == "tenths":
            return len(text) / 10 + 0.1
        if self.name == "nan_for_text" and value is not text and text.startswith(self.text_prefix):
            return math.nan
        return _fixture_estimate(value)
