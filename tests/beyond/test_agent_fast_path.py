"""The agent importers' fast path (``finish_drafts`` given ``line_bounds``) changes nothing.

With the default limits, drafts become entries without a copy and only entries
the file's longest lines could make too large are measured; with any other
limits object, equal or not, every entry is copied, checked and measured. Both
must give the same entries, and a merged turn past a limit must be refused by
both, naming its line.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from course_lib.base.wire import DEFAULT_LIMITS, JsonLimits
from course_lib.beyond.importers import (
    AgentImportError,
    import_claude_code_session,
    import_claude_code_text,
    import_codex_session,
)

ROOT = Path(__file__).resolve().parents[2]
CAREFUL = replace(DEFAULT_LIMITS)  # equal values, another object: the careful path
CLAUDE_CODE = sorted((ROOT / "data" / "claude-code-sessions").glob("*.jsonl"))
CODEX = sorted((ROOT / "data" / "codex-sessions").glob("*.jsonl"))


@pytest.mark.parametrize("sample", CLAUDE_CODE, ids=lambda path: path.name)
def test_claude_code_fast_and_careful_imports_agree(sample: Path) -> None:
    fast = import_claude_code_session(sample)
    careful = import_claude_code_session(sample, limits=CAREFUL)
    assert CAREFUL is not DEFAULT_LIMITS
    assert fast.entries == careful.entries and fast.notes == careful.notes


@pytest.mark.parametrize("sample", CODEX, ids=lambda path: path.name)
def test_codex_fast_and_careful_imports_agree(sample: Path) -> None:
    fast = import_codex_session(sample)
    careful = import_codex_session(sample, limits=CAREFUL)
    assert fast.entries == careful.entries and fast.notes == careful.notes


def _turn_record(n: int, parent: int | None, text: str) -> str:
    """One record of a single assistant turn (every record shares message.id ``m1``)."""
    record = {
        "type": "assistant",
        "uuid": f"u{n}",
        "parentUuid": None if parent is None else f"u{parent}",
        "timestamp": "2026-03-02T10:00:00.000Z",
        "message": {"id": "m1", "role": "assistant", "model": "x", "stop_reason": None,
                    "content": [{"type": "text", "text": text}]},
    }  # fmt: skip
    return json.dumps(record) + "\n"


@pytest.mark.parametrize("limits", [DEFAULT_LIMITS, CAREFUL], ids=["fast", "careful"])
def test_a_merged_turn_past_the_line_limit_is_refused_on_both_paths(limits: JsonLimits) -> None:
    """Each record is well under the limit; merged, the turn's course line is not."""
    records = 20
    text = "x" * (DEFAULT_LIMITS.max_line_chars // records + 1)
    user = {"type": "user", "uuid": "u0", "parentUuid": None,
            "timestamp": "2026-03-02T10:00:00.000Z",
            "message": {"role": "user", "content": "go"}}  # fmt: skip
    file = (
        json.dumps(user)
        + "\n"
        + "".join(_turn_record(n, n - 1, text) for n in range(1, records + 1))
    )
    with pytest.raises(AgentImportError, match=r"^line 2: entry u1: as a course line"):
        import_claude_code_text(file, limits=limits)


@pytest.fixture
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.enable() if was else gc.disable()


@pytest.mark.parametrize("enabled", [True, False], ids=["collector on", "collector off"])
@pytest.mark.usefixtures("collector_restored")
def test_an_import_leaves_the_collector_as_the_caller_had_it(enabled: bool) -> None:
    """The importers pause the cycle collector (``base.collector``) and give it back, whether
    the import succeeds or fails."""
    gc.enable() if enabled else gc.disable()
    import_claude_code_session(CLAUDE_CODE[0])
    import_codex_session(CODEX[0])
    assert gc.isenabled() is enabled
    with pytest.raises(AgentImportError, match=r"^line 1: "):
        import_claude_code_text("[1]\n")
    assert gc.isenabled() is enabled
    assert gc.get_freeze_count() == 0
