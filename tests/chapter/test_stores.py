"""Chapter 10 carry-over: both session stores, JSONL recovery and the active path.

Compaction adds no store code: a compaction entry is stored like any other
fact. What must hold is the Chapter 10 contract underneath it: a newline
commits a line, a torn tail is reported and never appended after, a failed
write leaves no trace, and ``path_to`` returns only the selected branch.
"""

from __future__ import annotations

import errno
import io
import pathlib
import threading
from pathlib import Path
from typing import Any

import pytest
from io_doubles import PartialWriteIO  # a file that fails half-way, as a full disk does

from course_lib import (
    CompactionEntry,
    InMemorySessionStore,
    JsonlSessionStore,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    SessionEntryError,
    SessionFileError,
    SessionReadResult,
    SessionStoreError,
    UnterminatedTailWarning,
    assistant_message,
    chapter_fixture,
    chapter_fixture_after_compaction,
    messages_on_path,
    path_to,
    recover_jsonl,
    user_message,
)
from course_lib.base.wire import dumps_line


def lines_of(entries: list[SessionEntry]) -> list[str]:
    return [dumps_line(entry.to_wire()) for entry in entries]


def fixture_text() -> str:
    return "".join(lines_of(chapter_fixture()))


def ids(entries: list[Any]) -> list[str]:
    return [entry.id for entry in entries]


def branch_entry() -> MessageEntry:
    """A sibling of ``a2``: another answer to ``u2`` that is not on the fixture's path."""
    return MessageEntry(
        id="b-a2",
        parent_id="u2",
        timestamp=5.5,
        message=assistant_message("A different answer.", timestamp=5.5),
    )


FIXTURE_IDS = ["sys", "u1", "a1", "u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]


# --- both stores ------------------------------------------------------------


@pytest.fixture(params=["memory", "jsonl"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        return InMemorySessionStore()
    return JsonlSessionStore.open(tmp_path / "session.jsonl")


def test_both_stores_keep_entries_in_append_order(store: Any) -> None:
    for entry in chapter_fixture_after_compaction():
        store.append(entry)
    assert store.entries() == chapter_fixture_after_compaction()


def test_both_stores_accept_wire_dicts(store: Any) -> None:
    for entry in chapter_fixture():
        store.append(entry.to_wire())
    assert store.entries() == chapter_fixture()


def test_both_stores_refuse_a_duplicate_id(store: Any) -> None:
    fixture = chapter_fixture()
    for entry in fixture:
        store.append(entry)
    duplicate = MessageEntry(
        id="u2", parent_id="a3", timestamp=11, message=user_message("again", timestamp=11)
    )
    with pytest.raises(SessionStoreError, match="duplicate entry id 'u2'"):
        store.append(duplicate)
    assert store.entries() == fixture


def test_both_stores_refuse_an_unknown_parent(store: Any) -> None:
    store.append(chapter_fixture()[0])
    orphan = MessageEntry(
        id="u1", parent_id="missing", timestamp=2, message=user_message("hi", timestamp=2)
    )
    with pytest.raises(SessionStoreError, match="unknown parent 'missing'") as caught:
        store.append(orphan)
    assert "u1" in str(caught.value)
    assert ids(store.entries()) == ["sys"]


def test_a_parent_must_be_appended_before_its_child(store: Any) -> None:
    fixture = chapter_fixture()
    with pytest.raises(SessionStoreError, match="unknown parent 'sys'"):
        store.append(fixture[1])
    store.append(fixture[0])
    store.append(fixture[1])
    assert ids(store.entries()) == ["sys", "u1"]


def test_both_stores_validate_with_the_parser(store: Any) -> None:
    wire = chapter_fixture()[0].to_wire()
    wire["timestamp"] = True
    with pytest.raises(SessionEntryError, match="session entry sys: timestamp"):
        store.append(wire)
    assert store.entries() == []


def test_both_stores_keep_a_snapshot_and_hand_out_copies(store: Any) -> None:
    entry = chapter_fixture()[0]
    store.append(entry)
    entry.message.content = "changed after append"
    first = store.entries()[0]
    assert first.message.content == "sys"
    first.message.content = "changed copy"
    assert store.entries()[0].message.content == "sys"
    assert store.entries()[0] is not store.entries()[0]


def test_both_stores_accept_several_roots_and_branches(store: Any) -> None:
    for entry in chapter_fixture():
        store.append(entry)
    store.append(branch_entry())
    other_root = MetadataEntry(id="root-2", parent_id=None, timestamp=0, key="k", value=[1])
    store.append(other_root)
    assert ids(store.entries()) == [*FIXTURE_IDS, "b-a2", "root-2"]


# --- JSONL file -------------------------------------------------------------


def test_open_creates_the_file_and_its_folders(tmp_path: Path) -> None:
    file = tmp_path / "a" / "b" / "session.jsonl"
    store = JsonlSessionStore.open(file)
    assert file.is_file()
    assert file.read_bytes() == b""
    assert store.entries() == []
    assert store.read() == SessionReadResult(entries=[], warnings=[])


def test_open_accepts_a_str_path(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    JsonlSessionStore.open(str(file)).append(chapter_fixture()[0])
    assert ids(JsonlSessionStore.open(str(file)).entries()) == ["sys"]


def test_each_append_writes_exactly_one_line(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    entries = chapter_fixture_after_compaction()
    for entry in entries:
        store.append(entry)
    assert file.read_text(encoding="utf-8") == "".join(lines_of(entries))


def test_reopening_returns_what_was_appended(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    entries = chapter_fixture_after_compaction()
    for entry in entries:
        store.append(entry)
    reopened = JsonlSessionStore.open(file)
    assert reopened.entries() == entries
    assert isinstance(reopened.entries()[10], CompactionEntry)
    assert reopened.read() == SessionReadResult(entries=entries, warnings=[])


def test_reopened_store_keeps_checking_ids_and_parents(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    for entry in chapter_fixture():
        store.append(entry)
    reopened = JsonlSessionStore.open(file)
    with pytest.raises(SessionStoreError, match="duplicate"):
        reopened.append(chapter_fixture()[3])
    with pytest.raises(SessionStoreError, match="unknown parent"):
        reopened.append(chapter_fixture_after_compaction()[11])
    reopened.append(chapter_fixture_after_compaction()[10])
    assert ids(JsonlSessionStore.open(file).entries())[-1] == "compact-1"


def test_blank_lines_are_ignored_but_counted(tmp_path: Path) -> None:
    lines = lines_of(chapter_fixture())
    text = "\n" + lines[0] + "   \n\t\n" + "".join(lines[1:])
    assert ids(recover_jsonl(text).entries) == FIXTURE_IDS
    broken = "\n" + lines[0] + "   \n\t\n" + "{not json}\n"
    with pytest.raises(SessionFileError, match=r"^line 5: "):
        recover_jsonl(broken)


def test_an_unterminated_tail_is_ignored_with_its_line_number() -> None:
    lines = lines_of(chapter_fixture())
    text = "".join(lines[:9]) + "\n" + lines[9].rstrip("\n")
    result = recover_jsonl(text)
    assert ids(result.entries) == FIXTURE_IDS[:9]
    assert result.warnings == [UnterminatedTailWarning(line=11)]
    assert result.warnings[0].code == "unterminated_tail"


def test_a_torn_half_line_is_an_unterminated_tail() -> None:
    lines = lines_of(chapter_fixture())
    text = "".join(lines[:4]) + lines[4][:20]
    result = recover_jsonl(text)
    assert ids(result.entries) == FIXTURE_IDS[:4]
    assert result.warnings == [UnterminatedTailWarning(line=5)]


@pytest.mark.parametrize("tail", [" ", "  \t", "\r"])
def test_a_whitespace_only_tail_is_ignored_silently(tail: str) -> None:
    result = recover_jsonl(fixture_text() + tail)
    assert ids(result.entries) == FIXTURE_IDS
    assert result.warnings == []


def test_empty_text_reads_as_nothing() -> None:
    assert recover_jsonl("") == SessionReadResult(entries=[], warnings=[])


@pytest.mark.parametrize(
    ("bad_line", "words"),
    [
        ("{not json}", ["line 3"]),
        ('{"id":"x"', ["line 3"]),
        (
            '{"id":"u9","parentId":"u1","timestamp":NaN,"type":"metadata","key":"k","value":1}',
            ["line 3", "NaN"],
        ),
        (
            '{"id":"u9","id":"u8","parentId":"u1","timestamp":1,"type":"metadata","key":"k","value":1}',
            ["line 3", "duplicate key 'id'"],
        ),
        (
            '{"id":"m9","parentId":"u1","timestamp":1,"type":"metadata","key":"k","value":{"a":1,"a":2}}',
            ["line 3", "duplicate key 'a'"],
        ),
        (
            '{"id":"m9","parentId":"u1","timestamp":true,"type":"metadata","key":"k","value":1}',
            ["line 3", "session entry m9: timestamp"],
        ),
        (
            '{"id":"m9","parentId":"nowhere","timestamp":1,"type":"metadata","key":"k","value":1}',
            ["line 3", "unknown parent 'nowhere'"],
        ),
        (
            '{"id":"u1","parentId":"sys","timestamp":1,"type":"metadata","key":"k","value":1}',
            ["line 3", "duplicate entry id 'u1'"],
        ),
        ("[1, 2]", ["line 3", "JSON object"]),
    ],
    ids=[
        "not-json",
        "torn-but-committed",
        "nan-literal",
        "duplicate-key",
        "nested-duplicate-key",
        "schema",
        "unknown-parent",
        "duplicate-id",
        "not-an-object",
    ],
)
def test_an_invalid_committed_line_names_its_line(bad_line: str, words: list[str]) -> None:
    lines = lines_of(chapter_fixture())
    text = lines[0] + lines[1] + bad_line + "\n" + "".join(lines[2:])
    with pytest.raises(SessionFileError) as caught:
        recover_jsonl(text)
    for word in words:
        assert word in str(caught.value)


def test_the_first_bad_line_is_named_even_when_only_counting_finds_it(tmp_path: Path) -> None:
    """A key given twice parses fine on the fast path; the count catches it before line 3 is read."""
    lines = lines_of(chapter_fixture())
    doubled = lines[1].replace('"timestamp":', '"timestamp":0,"timestamp":', 1)
    orphan = lines[2].replace('"parentId":"u1"', '"parentId":"nowhere"')
    assert doubled != lines[1] and orphan != lines[2]
    file = tmp_path / "session.jsonl"
    file.write_text(lines[0] + doubled + orphan, encoding="utf-8")
    with pytest.raises(SessionFileError, match=r"^line 2: .*duplicate key 'timestamp'"):
        JsonlSessionStore.open(file)


def test_an_invalid_line_stops_open_and_leaves_the_file_alone(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    lines = lines_of(chapter_fixture())
    data = ("".join(lines[:5]) + "{broken\n" + "".join(lines[5:])).encode()
    file.write_bytes(data)
    with pytest.raises(SessionFileError, match="line 6"):
        JsonlSessionStore.open(file)
    assert file.read_bytes() == data


def test_invalid_utf8_names_its_line(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    file.write_bytes(fixture_text().encode() + b'{"id":"\xff"}\n')
    with pytest.raises(SessionFileError, match="line 11"):
        JsonlSessionStore.open(file)


def write_torn(file: Path) -> tuple[bytes, bytes]:
    """The fixture's first nine lines, then ``a3`` without its newline."""
    lines = lines_of(chapter_fixture())
    committed = "".join(lines[:9]).encode()
    tail = lines[9].rstrip("\n").encode()
    file.write_bytes(committed + tail)
    return committed, tail


def test_append_is_refused_over_an_unterminated_tail(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    committed, tail = write_torn(file)
    store = JsonlSessionStore.open(file)
    assert store.read().warnings == [UnterminatedTailWarning(line=10)]
    assert ids(store.entries()) == FIXTURE_IDS[:9]

    with pytest.raises(SessionStoreError) as caught:
        store.append(chapter_fixture()[9])
    assert "line 10" in str(caught.value)
    assert "repair()" in str(caught.value)
    assert file.read_bytes() == committed + tail


def test_repair_moves_the_tail_unchanged_to_a_sidecar(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    committed, tail = write_torn(file)
    store = JsonlSessionStore.open(file)

    repaired = store.repair()
    assert repaired.bytes_moved == len(tail)
    assert repaired.sidecar_path is not None
    assert repaired.sidecar_path.parent == file.parent
    assert repaired.sidecar_path != file
    assert repaired.sidecar_path.read_bytes() == tail
    assert file.read_bytes() == committed
    assert store.read().warnings == []

    store.append(chapter_fixture()[9])
    assert file.read_text(encoding="utf-8") == fixture_text()
    assert JsonlSessionStore.open(file).entries() == chapter_fixture()


def test_repair_never_overwrites_an_earlier_sidecar(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    _, tail = write_torn(file)
    first = JsonlSessionStore.open(file).repair()
    file.write_bytes(file.read_bytes() + b'{"torn again')
    second = JsonlSessionStore.open(file).repair()
    assert first.sidecar_path != second.sidecar_path
    assert first.sidecar_path is not None and second.sidecar_path is not None
    assert first.sidecar_path.read_bytes() == tail
    assert second.sidecar_path.read_bytes() == b'{"torn again'


def test_repair_is_a_no_op_on_a_clean_file(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    file.write_text(fixture_text(), encoding="utf-8")
    before = sorted(tmp_path.iterdir())
    repaired = JsonlSessionStore.open(file).repair()
    assert (repaired.sidecar_path, repaired.bytes_moved) == (None, 0)
    assert file.read_text(encoding="utf-8") == fixture_text()
    assert sorted(tmp_path.iterdir()) == before


def test_repair_is_a_no_op_on_an_empty_file(tmp_path: Path) -> None:
    store = JsonlSessionStore.open(tmp_path / "session.jsonl")
    assert store.repair().bytes_moved == 0


@pytest.mark.parametrize("tail", [" ", "\t ", "\r", "\x0c", "\u00a0"])
def test_append_after_a_whitespace_only_tail_commits_a_clean_line(
    tmp_path: Path, tail: str
) -> None:
    file = tmp_path / "session.jsonl"
    lines = lines_of(chapter_fixture())
    file.write_text("".join(lines[:9]) + tail, encoding="utf-8")
    store = JsonlSessionStore.open(file)
    assert store.read().warnings == []

    store.append(chapter_fixture()[9])

    assert file.read_bytes().decode("utf-8").endswith("\n" + lines[9])
    assert JsonlSessionStore.open(file).entries() == chapter_fixture()


def test_a_failing_append_leaves_the_file_byte_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    fixture = chapter_fixture()
    for entry in fixture[:5]:
        store.append(entry)
    before = file.read_bytes()

    real_open = pathlib.Path.open

    def failing_open(self: Path, mode: str = "r", buffering: int = -1, **kwargs: Any) -> Any:
        if "+" not in mode:  # only the store's write handle fails
            return real_open(self, mode, buffering, **kwargs)
        raw = PartialWriteIO(str(self), mode.replace("b", ""))
        if buffering == 0:
            return raw
        return io.BufferedRandom(raw) if "+" in mode else io.BufferedWriter(raw)

    monkeypatch.setattr(pathlib.Path, "open", failing_open)
    with pytest.raises(OSError, match="No space left"):
        store.append(fixture[5])
    monkeypatch.undo()

    assert file.read_bytes() == before
    assert store.entries() == fixture[:5]
    store.append(fixture[5])
    assert JsonlSessionStore.open(file).entries() == fixture[:6]


def test_a_failing_sync_leaves_the_file_byte_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    fixture = chapter_fixture()
    store.append(fixture[0])
    before = file.read_bytes()

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr("course_lib.chapter.sessions.os.fsync", failing_fsync)
    with pytest.raises(OSError, match="I/O error"):
        store.append(fixture[1])
    monkeypatch.undo()

    assert file.read_bytes() == before
    assert ids(store.entries()) == ["sys"]


def test_a_rejected_entry_writes_nothing(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    store.append(chapter_fixture()[0])
    before = file.read_bytes()
    wire = chapter_fixture_after_compaction()[10].to_wire()
    wire["parentId"] = "sys"
    wire["summary"]["files"] = wire["summary"].pop("changedFiles")
    with pytest.raises(SessionEntryError):
        store.append(wire)
    with pytest.raises(SessionStoreError):
        store.append(chapter_fixture()[0])
    assert file.read_bytes() == before


def test_appends_from_several_threads_keep_every_line_intact(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    memory = InMemorySessionStore()
    root = MetadataEntry(id="root", parent_id=None, timestamp=0, key="session", value="threads")
    store.append(root)
    memory.append(root)
    workers, per_worker = 8, 25
    start = threading.Barrier(workers)

    def work(worker: int) -> None:
        start.wait()
        for number in range(per_worker):
            entry = MessageEntry(
                id=f"w{worker}-{number}",
                parent_id="root",
                timestamp=number,
                message=user_message(f"worker {worker} says {number} " + "x" * 500, timestamp=1),
            )
            store.append(entry)
            memory.append(entry)

    threads = [threading.Thread(target=work, args=(worker,)) for worker in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    expected = {"root"} | {f"w{w}-{n}" for w in range(workers) for n in range(per_worker)}
    text = file.read_text(encoding="utf-8")
    assert text.count("\n") == len(expected)
    reopened = JsonlSessionStore.open(file).entries()
    assert {entry.id for entry in reopened} == expected
    assert {entry.id for entry in memory.entries()} == expected
    assert reopened == store.entries()


# --- the active path --------------------------------------------------------


def test_path_to_runs_from_the_root_to_the_leaf() -> None:
    fixture = chapter_fixture()
    assert ids(path_to(fixture, "a3")) == FIXTURE_IDS
    assert ids(path_to(fixture, "u2")) == FIXTURE_IDS[:4]
    assert ids(path_to(fixture, "sys")) == ["sys"]
    assert ids(path_to(reversed(fixture), "a3")) == FIXTURE_IDS


def test_path_to_excludes_a_sibling_branch() -> None:
    entries = [*chapter_fixture(), branch_entry()]
    assert ids(path_to(entries, "a3")) == FIXTURE_IDS
    assert ids(path_to(entries, "b-a2")) == ["sys", "u1", "a1", "u2", "b-a2"]


def test_path_to_goes_through_a_compaction() -> None:
    entries = chapter_fixture_after_compaction()
    assert ids(path_to(entries, "a4")) == [*FIXTURE_IDS, "compact-1", "u4", "a4"]


def test_path_to_returns_copies() -> None:
    fixture = chapter_fixture()
    path = path_to(fixture, "a3")
    assert path == fixture
    assert all(a is not b for a, b in zip(path, fixture, strict=True))
    path[6].message.content[0].arguments["path"] = "changed.ts"
    assert fixture[6].message.content[0].arguments == {"path": "context.ts"}


def test_path_to_unknown_leaf() -> None:
    with pytest.raises(SessionStoreError, match="unknown leaf id 'nope'"):
        path_to(chapter_fixture(), "nope")


def test_path_to_missing_parent() -> None:
    with pytest.raises(SessionStoreError, match="missing parent 'sys'") as caught:
        path_to(chapter_fixture()[1:], "a3")
    assert "u1" in str(caught.value)


def test_path_to_cycle() -> None:
    first = MetadataEntry(id="x", parent_id="y", timestamp=1, key="k", value=1)
    second = MetadataEntry(id="y", parent_id="x", timestamp=2, key="k", value=2)
    with pytest.raises(SessionStoreError, match="cycle"):
        path_to([first, second], "x")
    looped = MetadataEntry(id="self", parent_id="self", timestamp=1, key="k", value=1)
    with pytest.raises(SessionStoreError, match="cycle"):
        path_to([looped], "self")


def test_path_to_duplicate_id() -> None:
    fixture = chapter_fixture()
    with pytest.raises(SessionStoreError, match="duplicate entry id 'a1'"):
        path_to([*fixture, fixture[2]], "a3")


def test_messages_on_path_skips_other_entries_and_returns_copies() -> None:
    entries = chapter_fixture_after_compaction()
    note = MetadataEntry(id="note", parent_id="a4", timestamp=103, key="k", value=1)
    entries.append(note)
    messages = messages_on_path(entries, "note")
    expected = [entry for entry in entries if isinstance(entry, MessageEntry)]
    assert messages == [entry.message for entry in expected]
    assert all(m is not e.message for m, e in zip(messages, expected, strict=True))
    assert [message.role for message in messages_on_path(entries, "a1")] == [
        "system",
        "user",
        "assistant",
    ]


def test_a_refused_append_creates_nothing_where_the_session_was_removed(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    file.unlink()
    with pytest.raises(SessionStoreError, match="removed since it was opened"):
        store.append(chapter_fixture()[0])
    assert not file.exists()

    target = tmp_path / "target.jsonl"
    link = tmp_path / "link.jsonl"
    JsonlSessionStore.open(target)
    link.symlink_to(target)
    linked = JsonlSessionStore.open(link)
    target.unlink()  # the link now dangles
    with pytest.raises(SessionStoreError, match="removed since it was opened"):
        linked.append(chapter_fixture()[0])
    assert not target.exists()
