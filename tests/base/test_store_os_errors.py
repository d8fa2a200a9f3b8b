"""The operating system's refusals reach the caller in the course's words.

A full disk, a read-only file or a folder where no lock file can be created
used to escape as a raw ``OSError`` from deep inside an append or a repair.
Now each is a ``SessionStoreIOError`` (a ``SessionStoreError`` that is also an
``OSError``, ``errno`` kept) naming the file and the operation and saying what
is left: nothing written, nothing moved, or exactly which bytes are where.
"""

from __future__ import annotations

import errno
import io
import os
import pathlib
from pathlib import Path
from typing import Any

import pytest
from io_doubles import PartialWriteIO  # a file that fails half-way, as a full disk does

import course_lib.base.stores as stores
from course_lib import (
    JsonlSessionStore,
    MessageEntry,
    SessionStoreError,
    read_session_file,
    user_message,
)
from course_lib.base.stores import SessionStoreIOError

_real_open = pathlib.Path.open


def chat_entry(entry_id: str, parent_id: str | None) -> MessageEntry:
    return MessageEntry(
        id=entry_id, parent_id=parent_id, timestamp=1, message=user_message("hello", timestamp=1)
    )


def ids(entries: list[Any]) -> list[str]:
    return [entry.id for entry in entries]


def writer_opened_as(kind: type[io.FileIO]) -> Any:
    """``Path.open`` whose write handles are ``kind``; reading handles stay real."""

    def opening(self: Path, mode: str = "r", buffering: int = -1, **kwargs: Any) -> Any:
        if "+" not in mode:
            return _real_open(self, mode, buffering, **kwargs)
        return kind(str(self), mode.replace("b", ""))

    return opening


class NoTruncateIO(PartialWriteIO):
    """A full disk on which cutting the half-written line off fails too."""

    def truncate(self, size: int | None = None) -> int:
        raise OSError(errno.EIO, "Input/output error")


def store_with_one_entry(tmp_path: Path) -> tuple[JsonlSessionStore, Path, bytes]:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    store.append(chat_entry("a", None))
    return store, file, file.read_bytes()


def test_a_full_disk_mid_line_is_a_store_error_and_the_file_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, file, before = store_with_one_entry(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(pathlib.Path, "open", writer_opened_as(PartialWriteIO))
        with pytest.raises(SessionStoreIOError) as caught:
            store.append(chat_entry("b", "a"))
    error = caught.value
    assert isinstance(error, SessionStoreError) and isinstance(error, OSError)
    assert error.errno == errno.ENOSPC
    assert str(error) == (
        "session.jsonl: appending entry b failed (No space left on device); nothing was written"
    )
    assert file.read_bytes() == before
    store.append(chat_entry("b", "a"))  # space again: the same store goes on
    assert ids(read_session_file(file).entries) == ["a", "b"]


def test_a_failing_fsync_is_a_store_error_and_the_line_is_taken_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, file, before = store_with_one_entry(tmp_path)

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    with monkeypatch.context() as patch:
        patch.setattr(stores.os, "fsync", failing_fsync)
        with pytest.raises(SessionStoreIOError, match=r"^session\.jsonl: appending entry b failed "
                           r"\(Input/output error\); nothing was written$"):  # fmt: skip
            store.append(chat_entry("b", "a"))
    assert file.read_bytes() == before
    assert ids(store.entries()) == ["a"]


def test_when_the_undo_fails_too_the_error_says_to_repair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, file, before = store_with_one_entry(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(pathlib.Path, "open", writer_opened_as(NoTruncateIO))
        with pytest.raises(SessionStoreIOError, match=r"cutting its partial line off failed too "
                           r"\(Input/output error\): call repair\(\)"):  # fmt: skip
            store.append(chat_entry("b", "a"))
    torn = file.read_bytes()
    assert torn.startswith(before) and len(torn) > len(before)  # half a line: a torn tail
    with pytest.raises(SessionStoreError, match="line 2 is an unterminated tail"):
        store.append(chat_entry("b", "a"))
    assert store.repair().bytes_moved == len(torn) - len(before)
    store.append(chat_entry("b", "a"))
    assert ids(read_session_file(file).entries) == ["a", "b"]


def test_a_file_that_cannot_be_opened_for_writing_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, file, before = store_with_one_entry(tmp_path)

    def read_only(self: Path, mode: str = "r", buffering: int = -1, **kwargs: Any) -> Any:
        if "+" in mode:
            raise PermissionError(errno.EACCES, "Permission denied")
        return _real_open(self, mode, buffering, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(pathlib.Path, "open", read_only)
        with pytest.raises(SessionStoreIOError, match=r"^session\.jsonl: cannot open it for "
                           r"writing: Permission denied \(nothing was written\)$"):  # fmt: skip
            store.append(chat_entry("b", "a"))
    assert file.read_bytes() == before


def test_a_really_read_only_file_is_named(tmp_path: Path) -> None:
    store, file, before = store_with_one_entry(tmp_path)
    file.chmod(0o444)
    try:
        if os.access(file, os.W_OK):  # the superuser may write anyway: then it simply works
            store.append(chat_entry("b", "a"))
            assert ids(read_session_file(file).entries) == ["a", "b"]
        else:
            with pytest.raises(SessionStoreIOError, match=r"cannot open it for writing"):
                store.append(chat_entry("b", "a"))
            assert file.read_bytes() == before
    finally:
        file.chmod(0o644)


def test_a_lock_file_that_cannot_be_created_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, file, before = store_with_one_entry(tmp_path)
    (tmp_path / "session.jsonl.lock").unlink(missing_ok=True)
    real_open = os.open

    def read_only_folder(path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        if str(path).endswith(".lock"):
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, mode, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(stores.os, "open", read_only_folder)
        with pytest.raises(SessionStoreIOError, match=r"^session\.jsonl\.lock: opening the lock "
                           r"file failed \(Read-only file system\); nothing was written$"):  # fmt: skip
            store.append(chat_entry("b", "a"))
    assert file.read_bytes() == before


# --- repair ---------------------------------------------------------------------------


def torn(tmp_path: Path) -> tuple[JsonlSessionStore, Path, bytes]:
    store, file, before = store_with_one_entry(tmp_path)
    file.write_bytes(before + b'{"id":"half')
    return store, file, file.read_bytes()


def test_repair_that_cannot_create_its_sidecar_moves_and_cuts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, file, before = torn(tmp_path)
    real_open = os.open

    def no_sidecar(path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        if ".tail" in str(path):
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, mode, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(stores.os, "open", no_sidecar)
        with pytest.raises(SessionStoreIOError, match=r"^session\.jsonl: repair: creating the "
                           r"sidecar session\.jsonl\.tail failed \(Read-only file system\); "
                           r"nothing was moved or cut$"):  # fmt: skip
            store.repair()
    assert file.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir() if ".tail" in path.name) == []
    assert store.repair().bytes_moved == len(b'{"id":"half')


def test_repair_on_a_full_disk_leaves_no_half_sidecar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, file, before = torn(tmp_path)
    real_fdopen = os.fdopen

    def full_disk(fd: int, mode: str = "r", buffering: int = -1, **kwargs: Any) -> Any:
        if "w" in mode:
            os.close(fd)
            return PartialWriteIO(str(tmp_path / "session.jsonl.tail"), "w")
        return real_fdopen(fd, mode, buffering, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(stores.os, "fdopen", full_disk)
        with pytest.raises(SessionStoreIOError, match=r"repair: writing the sidecar session\."
                           r"jsonl\.tail failed \(No space left on device\)"):  # fmt: skip
            store.repair()
    assert file.read_bytes() == before
    assert not (tmp_path / "session.jsonl.tail").exists()


def test_repair_that_cannot_cut_names_where_the_tail_is_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, file, before = torn(tmp_path)

    class NoCut(io.FileIO):
        def truncate(self, size: int | None = None) -> int:
            raise OSError(errno.EIO, "Input/output error")

    with monkeypatch.context() as patch:
        patch.setattr(pathlib.Path, "open", writer_opened_as(NoCut))
        with pytest.raises(SessionStoreIOError, match=r"repair: cutting the tail failed \(Input/"
                           r"output error\); its bytes are saved in session\.jsonl\.tail"):  # fmt: skip
            store.repair()
    assert file.read_bytes() == before  # nothing lost: the tail is in both places
    assert (tmp_path / "session.jsonl.tail").read_bytes() == b'{"id":"half'
