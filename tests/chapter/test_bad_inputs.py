"""Bad input stops at the boundary (chapter11.md section 7 and api.md's error classes).

Each layer refuses what breaks its rule, with an error that names the entry,
field or call id, and nothing downstream runs: no line is written, no budget
is computed. Every error is a ``CourseError`` and a ``ValueError``, so a
caller can catch one family.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from course_lib import (
    BudgetError,
    CompactionEntry,
    CompactionError,
    CourseError,
    InMemorySessionStore,
    InteractionError,
    JsonlSessionStore,
    MetadataEntry,
    SessionEntry,
    SessionEntryError,
    SessionFileError,
    SessionStoreError,
    budget_ledger,
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
    create_compaction_entry,
    fixture_estimator,
    fixture_summary,
    group_interactions,
    parse_session_entry,
    path_to,
    recover_jsonl,
    system_replay_fixture,
)
from course_lib.base.errors import __all__ as error_names
from course_lib.base.wire import dumps_line

Wire = dict[str, Any]


def wires(entries: list[SessionEntry]) -> dict[str, Wire]:
    return {entry.id: entry.to_wire() for entry in entries}


def files_alias_wire() -> Wire:
    wire = wires(chapter_fixture_after_compaction())["compact-1"]
    wire["summary"]["files"] = wire["summary"].pop("changedFiles")
    return wire


def fixture_with_unknown_call() -> list[SessionEntry]:
    wire = wires(chapter_fixture())
    wire["r-test"]["message"]["toolCallId"] = "unknown-1"
    return [parse_session_entry(item) for item in wire.values()]


class CountingEstimator:
    def __init__(self) -> None:
        self.calls = 0
        self.inner = fixture_estimator()

    def __call__(self, value: Any) -> int:
        self.calls += 1
        return self.inner(value)


# --- section 7: the files alias ---------------------------------------------


def test_the_files_alias_is_a_schema_error_at_parse_time() -> None:
    with pytest.raises(SessionEntryError) as caught:
        parse_session_entry(files_alias_wire())
    message = str(caught.value)
    assert message.startswith("session entry compact-1: ")
    assert "summary.files: unknown field" in message
    assert "summary.changedFiles: missing field" in message


@pytest.mark.parametrize("kind", ["memory", "jsonl"])
def test_the_files_alias_is_never_written(kind: str, tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store: Any = InMemorySessionStore() if kind == "memory" else JsonlSessionStore.open(file)
    for entry in chapter_fixture():
        store.append(entry)
    size = file.stat().st_size if kind == "jsonl" else 0
    with pytest.raises(SessionEntryError, match=r"summary\.files"):
        store.append(files_alias_wire())
    assert [entry.id for entry in store.entries()] == [e.id for e in chapter_fixture()]
    if kind == "jsonl":
        assert file.stat().st_size == size
        assert JsonlSessionStore.open(file).entries() == chapter_fixture()


def test_the_files_alias_never_reaches_a_budget() -> None:
    estimate = CountingEstimator()
    with pytest.raises(SessionEntryError):
        path = [*chapter_fixture(), parse_session_entry(files_alias_wire())]
        build_context(path, max_tokens=31, estimate_tokens=estimate)
    assert estimate.calls == 0


def test_the_files_alias_in_a_file_names_its_line() -> None:
    text = "".join(dumps_line(w) for w in wires(chapter_fixture()).values())
    text += dumps_line(files_alias_wire())
    with pytest.raises(SessionFileError) as caught:
        recover_jsonl(text)
    assert "line 11" in str(caught.value)
    assert "session entry compact-1: " in str(caught.value)
    assert "summary.files: unknown field" in str(caught.value)


def test_create_compaction_entry_refuses_the_files_alias() -> None:
    summary = fixture_summary().to_wire()
    summary["files"] = summary.pop("changedFiles")
    with pytest.raises(SessionEntryError, match=r"summary\.files: unknown field"):
        create_compaction_entry(
            chapter_fixture(),
            id="compact-1",
            timestamp=100,
            summary=summary,
            first_kept_entry_id="u2",
            tokens_before=29,
        )


# --- section 7: unknown-1 ---------------------------------------------------


def test_an_unknown_call_id_is_an_interaction_error_naming_both_ids() -> None:
    with pytest.raises(InteractionError) as caught:
        group_interactions(fixture_with_unknown_call())
    message = str(caught.value)
    assert "r-test" in message and "unknown-1" in message
    assert "unknown call" in message


def test_an_unknown_call_is_a_valid_file_that_never_reaches_the_budget(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    for entry in fixture_with_unknown_call():
        store.append(entry)
    path = path_to(JsonlSessionStore.open(file).entries(), "a3")
    estimate = CountingEstimator()
    with pytest.raises(InteractionError, match="unknown-1"):
        build_context(path, max_tokens=31, estimate_tokens=estimate)
    # Nothing was priced: the path is grouped before any estimate, the system message too.
    assert estimate.calls == 0
    with pytest.raises(InteractionError, match="unknown-1"):
        budget_ledger(path, max_tokens=31, estimate_tokens=fixture_estimator())


def test_an_unknown_call_stops_create_compaction_entry() -> None:
    with pytest.raises(InteractionError, match="unknown-1"):
        create_compaction_entry(
            fixture_with_unknown_call(),
            id="compact-1",
            timestamp=100,
            summary=fixture_summary(),
            first_kept_entry_id="u2",
            tokens_before=29,
        )


def test_an_unknown_call_before_first_kept_no_longer_matters() -> None:
    """After a compaction only the part of the path from first kept on is grouped."""
    continuation = {entry.id: entry for entry in chapter_fixture_after_compaction()}
    u4 = continuation["u4"].model_copy(update={"parent_id": "a3"})
    a4 = continuation["a4"]

    def compacted(first_kept: str) -> list[SessionEntry]:
        compaction = CompactionEntry(
            id="compact-1",
            parent_id="a4",
            timestamp=103,
            summary=fixture_summary(),
            first_kept_entry_id=first_kept,
            tokens_before=36,
        )
        return [*fixture_with_unknown_call(), u4, a4, compaction]

    # Kept from u2 on, the malformed interaction is grouped again and fails.
    with pytest.raises(InteractionError, match="unknown-1"):
        build_context(compacted("u2"), max_tokens=100, estimate_tokens=fixture_estimator())
    # Kept from u4 on, it was summarised and is never grouped.
    restored = build_context(compacted("u4"), max_tokens=100, estimate_tokens=fixture_estimator())
    assert restored.kept_entry_ids == ["u4", "a4"]
    assert restored.reason == "within_budget"


# --- section 7: r-test before calls -----------------------------------------


def test_r_test_moved_before_calls_is_still_one_valid_group() -> None:
    entries = {entry.id: entry for entry in chapter_fixture()}
    order = ["sys", "u1", "a1", "u2", "a2", "u3", "r-test", "calls", "r-read", "a3"]
    path = [entries[entry_id] for entry_id in order]
    groups = group_interactions(path)
    assert [group.entry_ids for group in groups] == [
        ["u1", "a1"],
        ["u2", "a2"],
        ["u3", "r-test", "calls", "r-read", "a3"],
    ]
    result = build_context(
        path, max_tokens=31, reserved_output=4, safety_margin=2, estimate_tokens=fixture_estimator()
    )
    assert result.kept_entry_ids == ["u2", "a2", "u3", "r-test", "calls", "r-read", "a3"]
    assert result.tokens.messages == 22


# --- create_compaction_entry ------------------------------------------------


def create(path: list[SessionEntry], **overrides: Any) -> CompactionEntry:
    options: dict[str, Any] = {
        "id": "compact-1",
        "timestamp": 100,
        "summary": fixture_summary(),
        "first_kept_entry_id": "u2",
        "tokens_before": 29,
    }
    return create_compaction_entry(path, **{**options, **overrides})


def test_an_empty_path_cannot_be_compacted() -> None:
    with pytest.raises(CompactionError, match="empty active path"):
        create([])


@pytest.mark.parametrize("taken", ["u2", "sys", "a3"])
def test_an_id_already_on_the_path_is_refused(taken: str) -> None:
    with pytest.raises(CompactionError, match="duplicate") as caught:
        create(chapter_fixture(), id=taken)
    assert taken in str(caught.value)


def test_a_second_compaction_may_not_reuse_compact_1() -> None:
    with pytest.raises(CompactionError, match="duplicate id 'compact-1'"):
        create(chapter_fixture_after_compaction(), first_kept_entry_id="u4")


@pytest.mark.parametrize(
    ("path", "first_kept"),
    [
        (chapter_fixture, "a2"),
        (chapter_fixture, "calls"),
        (chapter_fixture, "r-test"),
        (chapter_fixture, "r-read"),
        (chapter_fixture, "sys"),
        (chapter_fixture, "unknown"),
        (system_replay_fixture, "patch-2"),
        (system_replay_fixture, "patch-1"),
        (chapter_fixture_after_compaction, "compact-1"),
    ],
)
def test_first_kept_must_start_a_complete_interaction(
    path: Callable[[], list[SessionEntry]], first_kept: str
) -> None:
    with pytest.raises(CompactionError) as caught:
        create(path(), id="compact-9", first_kept_entry_id=first_kept)
    message = str(caught.value)
    assert f"'{first_kept}'" in message
    assert "not the first message of a complete interaction" in message


@pytest.mark.parametrize("first_kept", ["u1", "u2", "u3"])
def test_every_group_start_is_a_valid_first_kept(first_kept: str) -> None:
    entry = create(chapter_fixture(), first_kept_entry_id=first_kept)
    assert entry.first_kept_entry_id == first_kept


def test_bad_numbers_in_a_compaction_are_schema_errors() -> None:
    with pytest.raises(SessionEntryError, match="tokensBefore"):
        create(chapter_fixture(), tokens_before=-1)
    with pytest.raises(SessionEntryError, match="timestamp"):
        create(chapter_fixture(), timestamp=True)


def test_create_compaction_entry_never_touches_a_store(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    for entry in chapter_fixture():
        store.append(entry)
    before = file.read_bytes()
    create(path_to(store.entries(), "a3"))
    assert file.read_bytes() == before
    assert len(store.entries()) == 10


# --- build_context and the newest compaction --------------------------------


def with_first_kept(first_kept: str) -> list[SessionEntry]:
    path = chapter_fixture_after_compaction()
    index = [entry.id for entry in path].index("compact-1")
    path[index] = path[index].model_copy(update={"first_kept_entry_id": first_kept})
    return path


@pytest.mark.parametrize("first_kept", ["a2", "calls", "r-test", "sys", "u4", "a4", "nowhere"])
def test_build_context_refuses_a_first_kept_that_is_not_a_user_message_before_it(
    first_kept: str,
) -> None:
    path = with_first_kept(first_kept)
    estimate = CountingEstimator()
    with pytest.raises(CompactionError) as caught:
        build_context(path, max_tokens=31, estimate_tokens=estimate)
    assert "compact-1" in str(caught.value)
    assert f"'{first_kept}'" in str(caught.value)
    assert "not a user message entry before it" in str(caught.value)


def test_build_context_refuses_a_metadata_first_kept() -> None:
    path = chapter_fixture()
    note = MetadataEntry(id="note", parent_id="a3", timestamp=11, key="k", value=1)
    compaction = CompactionEntry(
        id="compact-1",
        parent_id="note",
        timestamp=100,
        summary=fixture_summary(),
        first_kept_entry_id="note",
        tokens_before=29,
    )
    with pytest.raises(CompactionError, match="'note'"):
        build_context([*path, note, compaction], max_tokens=31, estimate_tokens=fixture_estimator())


def test_only_the_newest_compaction_is_checked() -> None:
    path = with_first_kept("a2")
    newer = CompactionEntry(
        id="compact-2",
        parent_id="a4",
        timestamp=200,
        summary=fixture_summary(),
        first_kept_entry_id="u4",
        tokens_before=12,
    )
    result = build_context([*path, newer], max_tokens=100, estimate_tokens=fixture_estimator())
    assert result.kept_entry_ids == ["u4", "a4"]


# --- budget errors ----------------------------------------------------------


def test_a_budget_error_stops_before_any_pricing() -> None:
    estimate = CountingEstimator()
    with pytest.raises(BudgetError, match="max_tokens"):
        build_context(chapter_fixture(), max_tokens=-31, estimate_tokens=estimate)
    assert estimate.calls == 0


# --- the error family -------------------------------------------------------


def raises(action: Callable[[], Any]) -> CourseError:
    with pytest.raises(CourseError) as caught:
        action()
    return caught.value


ERROR_CASES: list[tuple[type[CourseError], Callable[[], Any]]] = [
    (SessionEntryError, lambda: parse_session_entry(files_alias_wire())),
    (SessionFileError, lambda: recover_jsonl("{broken\n")),
    (SessionStoreError, lambda: path_to(chapter_fixture(), "nowhere")),
    (InteractionError, lambda: group_interactions(fixture_with_unknown_call())),
    (BudgetError, lambda: build_context([], max_tokens=-1, estimate_tokens=fixture_estimator())),
    (CompactionError, lambda: create([])),
]


@pytest.mark.parametrize(("kind", "action"), ERROR_CASES, ids=[k.__name__ for k, _ in ERROR_CASES])
def test_every_error_is_a_course_error_and_a_value_error(
    kind: type[CourseError], action: Callable[[], Any]
) -> None:
    error = raises(action)
    assert type(error) is kind
    assert isinstance(error, ValueError)


def test_every_error_class_is_covered() -> None:
    assert {kind.__name__ for kind, _ in ERROR_CASES} | {"CourseError"} == set(error_names)
    assert issubclass(CourseError, ValueError)


def test_a_path_of_foreign_objects_is_reported_not_ignored() -> None:
    """A wire dict on the path would be skipped by isinstance checks; it must be an error."""
    path: list = [*chapter_fixture()]
    path[3] = path[3].to_wire()
    for call in (
        lambda: build_context(path, max_tokens=31, estimate_tokens=fixture_estimator()),
        lambda: budget_ledger(path, max_tokens=31, estimate_tokens=fixture_estimator()),
        lambda: create_compaction_entry(
            path,
            id="c",
            timestamp=1,
            summary=fixture_summary(),
            first_kept_entry_id="u1",
            tokens_before=1,
        ),
    ):
        with pytest.raises(
            SessionEntryError, match=r"session entry u2: item 3 of the path is a dict"
        ):
            call()


@pytest.mark.parametrize("estimator", [None, 4, "chars"], ids=["None", "a number", "a string"])
def test_an_estimator_that_is_not_a_function_is_a_budget_error(estimator: object) -> None:
    with pytest.raises(BudgetError, match="estimate_tokens must be a function"):
        build_context(chapter_fixture(), max_tokens=31, estimate_tokens=estimator)  # type: ignore[arg-type]
