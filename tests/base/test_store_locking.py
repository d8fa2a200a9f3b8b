"""The writers' lock cannot be sidestepped by deleting or replacing ``<file>.lock``.

A cleanup of stale ``*.lock`` files deletes the lock file while a writer holds
it; a second writer then creates a new one and takes it. If that were the
whole lock, both would commit the same id and the file would no longer open.
The store therefore also locks the session file itself (on its own inode,
which no deletion of the lock file touches) and reads again, under both locks,
what others committed before it checks ids. A lock path that is not a regular
file (a directory, a link, a FIFO) is a clear ``SessionStoreError``.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from pathlib import Path
from typing import Any

import pytest

import course_lib.base.stores as stores
from course_lib import (
    JsonlSessionStore,
    MessageEntry,
    SessionStoreError,
    path_to,
    read_session_file,
    user_message,
)

SPAWN = multiprocessing.get_context("spawn")
HANG_GUARD_SECONDS = 120  # only a guard against a hang; nothing here measures speed


def chat_entry(entry_id: str, parent_id: str | None, words: str = "hello") -> MessageEntry:
    return MessageEntry(
        id=entry_id, parent_id=parent_id, timestamp=1, message=user_message(words, timestamp=1)
    )


def ids(entries: list[Any]) -> list[str]:
    return [entry.id for entry in entries]


# --- one process: a writer inside its append, the lock file deleted under it ---------


def test_deleting_the_lock_file_mid_append_lets_no_second_writer_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "session.jsonl"
    first, second = JsonlSessionStore.open(file), JsonlSessionStore.open(file)
    inside, go_on = threading.Event(), threading.Event()
    real_append = stores._append_or_undo

    def paused(*args: Any) -> None:
        if threading.current_thread().name == "first":
            inside.set()
            assert go_on.wait(HANG_GUARD_SECONDS)
        real_append(*args)

    monkeypatch.setattr(stores, "_append_or_undo", paused)
    outcomes: dict[str, str] = {}

    def append(store: JsonlSessionStore, name: str) -> None:
        try:
            store.append(chat_entry("same", None, name))
            outcomes[name] = "ok"
        except SessionStoreError as error:
            outcomes[name] = str(error)

    one = threading.Thread(target=append, args=(first, "first"), name="first")
    one.start()
    assert inside.wait(HANG_GUARD_SECONDS)
    (tmp_path / "session.jsonl.lock").unlink()  # a cleanup of stale lock files
    two = threading.Thread(target=append, args=(second, "second"), name="second")
    two.start()
    two.join(0.3)
    assert two.is_alive()  # waiting on the session file's own lock, not appending
    go_on.set()
    one.join(HANG_GUARD_SECONDS)
    two.join(HANG_GUARD_SECONDS)
    assert outcomes == {"first": "ok", "second": "duplicate entry id 'same'"}
    assert ids(JsonlSessionStore.open(file).entries()) == ["same"]


def test_a_writer_holding_the_session_file_blocks_others_without_any_lock_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    monkeypatch.setattr(stores, "LOCK_TIMEOUT_SECONDS", 0.05)
    with open(file, "rb") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)  # another writer, inside its append
        with pytest.raises(SessionStoreError, match=r"another writer has held session\.jsonl "):
            store.append(chat_entry("a", None))
        assert file.read_bytes() == b""
    store.append(chat_entry("a", None))
    assert ids(read_session_file(file).entries) == ["a"]


def test_a_session_file_renamed_over_while_waiting_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    store.append(chat_entry("a", None))
    real_flock = stores._flock_until
    swapped = tmp_path / "other.jsonl"
    swapped.write_bytes(file.read_bytes())

    def rename_then_lock(fd: int, deadline: float) -> bool:
        if os.fstat(fd).st_ino == os.stat(file).st_ino and swapped.exists():
            os.replace(swapped, file)  # the locked inode is no longer the one at the path
        return real_flock(fd, deadline)

    monkeypatch.setattr(stores, "_flock_until", rename_then_lock)
    with pytest.raises(SessionStoreError, match="replaced or removed since it was opened"):
        store.append(chat_entry("b", "a"))
    assert ids(read_session_file(file).entries) == ["a"]


# --- a lock path that is not a lock file ---------------------------------------------


def make_directory(path: Path) -> str:
    path.mkdir()
    return "a directory"


def make_symlink_to_a_file(path: Path) -> str:
    target = path.with_name("elsewhere.txt")
    target.write_text("do not touch")
    path.symlink_to(target)
    return "a symbolic link"


def make_dangling_symlink(path: Path) -> str:
    path.symlink_to(path.with_name("nowhere"))
    return "a symbolic link"


def make_fifo(path: Path) -> str:
    os.mkfifo(path)
    return "a FIFO"


ODD_LOCK_PATHS = [make_directory, make_symlink_to_a_file, make_dangling_symlink] + (
    [make_fifo] if hasattr(os, "mkfifo") else []
)


@pytest.mark.parametrize("make", ODD_LOCK_PATHS)
def test_a_lock_path_that_is_not_a_lock_file_is_a_clear_error(tmp_path: Path, make: Any) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    store.append(chat_entry("a", None))
    before = file.read_bytes()
    lock = tmp_path / "session.jsonl.lock"
    if lock.exists():
        lock.unlink()
    kind = make(lock)
    listing = sorted(path.name for path in tmp_path.iterdir())
    for attempt in (lambda: store.append(chat_entry("b", "a")), store.repair):
        with pytest.raises(
            SessionStoreError, match=rf"session\.jsonl\.lock: the lock path is {kind}"
        ):
            file.write_bytes(before + b'{"torn')  # repair has a tail to move
            attempt()
        file.write_bytes(before)
    assert sorted(path.name for path in tmp_path.iterdir()) == listing  # nothing created
    if (tmp_path / "elsewhere.txt").exists():
        assert (tmp_path / "elsewhere.txt").read_text() == "do not touch"
    if lock.is_dir() and not lock.is_symlink():
        lock.rmdir()
    else:
        lock.unlink()
    store.append(chat_entry("b", "a"))
    assert ids(read_session_file(file).entries) == ["a", "b"]


# --- processes: two writers of the same ids, a third deleting the lock file ----------


def append_same_chain(path: str, count: int, start: Any, outcomes: Any) -> None:
    """Append ids s0..s{count-1} (each the child of the one before); count who won which."""
    store = JsonlSessionStore.open(path)
    start.wait()
    won = 0
    for number in range(count):
        try:
            store.append(chat_entry(f"s{number}", f"s{number - 1}" if number else None))
            won += 1
        except SessionStoreError as error:
            assert str(error) == f"duplicate entry id 's{number}'", str(error)
    outcomes.put(won)


def delete_the_lock_file(path: str, start: Any, stop: Any) -> None:
    lock = Path(path + ".lock")
    start.wait()
    while not stop.is_set():
        lock.unlink(missing_ok=True)


def test_two_writers_of_the_same_ids_while_the_lock_file_is_deleted_in_a_loop(
    tmp_path: Path,
) -> None:
    file = tmp_path / "session.jsonl"
    count = 200
    start, stop, outcomes = SPAWN.Barrier(3), SPAWN.Event(), SPAWN.Queue()
    writers = [
        SPAWN.Process(target=append_same_chain, args=(str(file), count, start, outcomes))
        for _ in range(2)
    ]
    deleter = SPAWN.Process(target=delete_the_lock_file, args=(str(file), start, stop))
    for process in [*writers, deleter]:
        process.start()
    for process in writers:
        process.join(HANG_GUARD_SECONDS)
    stop.set()
    deleter.join(HANG_GUARD_SECONDS)
    assert [process.exitcode for process in [*writers, deleter]] == [0, 0, 0]

    won = [outcomes.get(timeout=HANG_GUARD_SECONDS) for _ in writers]
    assert sum(won) == count  # each id committed by exactly one of them
    entries = JsonlSessionStore.open(file).entries()  # the file always opens
    assert ids(entries) == [f"s{number}" for number in range(count)]
    assert ids(path_to(entries, f"s{count - 1}")) == ids(entries)
    assert read_session_file(file).warnings == []
