"""The JSONL store under stress: torn characters, several writers, kills and odd paths.

``tests/chapter/test_stores.py`` checks the Chapter 10 contract one call at a time;
this module checks that it still holds when the world is less polite: a file
cut inside a UTF-8 character, several processes (or store objects) appending
to one file, a writer that fails or is killed part-way, a sidecar name that is
already a link, and paths that are not regular files at all.
"""

from __future__ import annotations

import errno
import io
import multiprocessing
import os
import pathlib
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from io_doubles import PartialWriteIO  # a file that fails half-way, as a full disk does

import course_lib.base.stores as stores
from course_lib import (
    JsonlSessionStore,
    MessageEntry,
    SessionEntry,
    SessionFileError,
    SessionReadResult,
    SessionStoreError,
    UnterminatedTailWarning,
    path_to,
    read_session_file,
    user_message,
)
from course_lib.base.wire import dumps_line

SPAWN = multiprocessing.get_context("spawn")
KILL_SIGNAL = getattr(signal, "SIGKILL", signal.SIGTERM)  # SIGTERM is TerminateProcess on Windows
HANG_GUARD_SECONDS = 60  # only a guard against a hang; nothing here measures speed


def ids(entries: list[Any]) -> list[str]:
    return [entry.id for entry in entries]


def line_of(entry: SessionEntry) -> bytes:
    return dumps_line(entry.to_wire()).encode("utf-8")


def chat_entry(entry_id: str, parent_id: str | None, words: str, number: int = 1) -> MessageEntry:
    return MessageEntry(
        id=entry_id,
        parent_id=parent_id,
        timestamp=number,
        message=user_message(words, timestamp=number),
    )


def multibyte_entries() -> list[MessageEntry]:
    """Entries whose lines hold 2-, 3- and 4-byte UTF-8 characters (and ids that do too)."""
    words = [
        "上下文预算：保留最近的交互",
        "压缩之后 🧠 继续工作 ✅",
        "naïve café — 1½ tokens",
        "表情 🎉🚀 和汉字混排",
    ]
    entries: list[MessageEntry] = []
    parent: str | None = None
    for number, text in enumerate(words, start=1):
        entry = chat_entry(f"条目-{number}-🔖", parent, text, number)
        entries.append(entry)
        parent = entry.id
    return entries


def torn_file(folder: Path) -> tuple[Path, bytes, bytes]:
    entries = multibyte_entries()
    committed = line_of(entries[0])
    tail = line_of(entries[1])[:-5]
    file = folder / "session.jsonl"
    file.write_bytes(committed + tail)
    return file, committed, tail


def file_listing(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def run_guarded(work: Callable[[], Any]) -> Any:
    """Run ``work`` in a thread, so a call that would hang fails the test instead."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_SECONDS)
    assert not thread.is_alive(), "the call hung"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


# --- 1. a tail torn inside a multi-byte character -----------------------------


def test_a_cut_at_every_byte_opens_and_repairs_without_loss(tmp_path: Path) -> None:
    entries = multibyte_entries()
    lines = [line_of(entry) for entry in entries]
    data = b"".join(lines)
    assert len(data) > len(data.decode("utf-8"))  # the text really is multi-byte
    file = tmp_path / "session.jsonl"

    for cut in range(len(data) + 1):
        torn = data[:cut]
        file.write_bytes(torn)
        committed = torn.count(b"\n")
        tail = torn[torn.rfind(b"\n") + 1 :]
        expected_warnings = [UnterminatedTailWarning(line=committed + 1)] if tail else []

        store = JsonlSessionStore.open(file)
        assert store.entries() == entries[:committed], cut
        assert store.read() == SessionReadResult(entries[:committed], expected_warnings), cut
        assert read_session_file(file).warnings == expected_warnings, cut

        repaired = store.repair()
        sidecar = repaired.sidecar_path.read_bytes() if repaired.sidecar_path else b""
        assert file.read_bytes() + sidecar == torn, cut
        assert sidecar == tail and repaired.bytes_moved == len(tail), cut
        assert JsonlSessionStore.open(file).read().warnings == [], cut

        if committed < len(entries):  # the next line can now be committed after the repair
            store.append(entries[committed])
            assert file.read_bytes() == b"".join(lines[: committed + 1]), cut
        if repaired.sidecar_path:
            repaired.sidecar_path.unlink()


def test_a_cut_inside_a_multibyte_blank_tail(tmp_path: Path) -> None:
    """U+3000 is blank by JavaScript's trim; a part of its three bytes is not a character."""
    entry = multibyte_entries()[0]
    file = tmp_path / "session.jsonl"
    space = "\u3000".encode()
    for cut in range(1, len(space) + 1):
        file.write_bytes(line_of(entry) + space[:cut])
        store = JsonlSessionStore.open(file)
        whole = cut == len(space)
        assert store.read().warnings == ([] if whole else [UnterminatedTailWarning(line=2)])
        assert store.entries() == [entry]


def test_invalid_utf8_inside_a_committed_line_still_names_its_line(tmp_path: Path) -> None:
    entries = multibyte_entries()
    first, second = line_of(entries[0]), line_of(entries[1])
    cut_inside_a_character = second.index("压".encode()) + 1
    file = tmp_path / "session.jsonl"
    file.write_bytes(first + second[:cut_inside_a_character] + b"\n")
    for read in (JsonlSessionStore.open, read_session_file):
        with pytest.raises(SessionFileError, match=r"line 2: not valid UTF-8"):
            read(file)


@pytest.mark.parametrize(
    ("tail", "blank"),
    [("\u3000", True), ("\ufeff", True), ("\u00a0 ", True), ("\x1c", False), ("\x85", False)],
    ids=["U+3000", "U+FEFF", "U+00A0", "U+001C", "U+0085"],
)
def test_a_tail_is_blank_by_javascripts_trim_rule(tmp_path: Path, tail: str, blank: bool) -> None:
    entries = multibyte_entries()
    file = tmp_path / "session.jsonl"
    file.write_bytes(line_of(entries[0]) + tail.encode())
    store = JsonlSessionStore.open(file)
    assert store.read().warnings == ([] if blank else [UnterminatedTailWarning(line=2)])
    if blank:
        store.append(entries[1])  # the blank tail is closed by a newline first
        assert file.read_bytes() == line_of(entries[0]) + tail.encode() + b"\n" + line_of(
            entries[1]
        )
        assert JsonlSessionStore.open(file).entries() == entries[:2]
        with file.open("ab") as other_writer:  # lines: entry, closed blank tail, entry, torn
            other_writer.write(b'{"id":')
        with pytest.raises(SessionStoreError, match=r"line 4 is an unterminated tail"):
            store.append(entries[2])
    else:
        with pytest.raises(SessionStoreError, match=r"line 2 .*repair\(\)"):
            store.append(entries[1])


# --- 2. several store objects on one file, in one process ----------------------


def test_a_second_store_reads_what_the_first_committed(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    first, second = JsonlSessionStore.open(file), JsonlSessionStore.open(file)
    first.append(chat_entry("a", None, "from the first store"))
    second.append(chat_entry("b", "a", "a child of the first store's entry"))
    with pytest.raises(SessionStoreError, match="duplicate entry id 'b'"):
        first.append(chat_entry("b", None, "the same id again"))
    assert ids(second.entries()) == ["a", "b"]
    assert ids(first.entries()) == ["a", "b"]
    assert ids(JsonlSessionStore.open(file).entries()) == ["a", "b"]


def test_catching_up_reads_only_the_new_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "session.jsonl"
    first = JsonlSessionStore.open(file)
    for number in range(20):
        first.append(chat_entry(f"e{number}", None, "x" * 200, number))
    second = JsonlSessionStore.open(file)
    first.append(chat_entry("new", "e19", "one more line"))

    scanned: list[tuple[int, int]] = []
    real_scan = stores._scan_committed

    def spy(data: bytes, first_line: int, known: Any, parse_line: Any, *limits: Any) -> Any:
        scanned.append((len(data), first_line))
        return real_scan(data, first_line, known, parse_line, *limits)

    monkeypatch.setattr(stores, "_scan_committed", spy)
    second.append(chat_entry("newer", "new", "and another"))
    assert scanned == [(len(line_of(chat_entry("new", "e19", "one more line"))), 21)]


def test_a_line_another_writer_finished_is_not_a_tail(tmp_path: Path) -> None:
    """A store opened during someone else's write sees a tail; under the lock it is a line."""
    entries = multibyte_entries()
    line = line_of(entries[1])
    file = tmp_path / "session.jsonl"
    file.write_bytes(line_of(entries[0]) + line[:7])
    store = JsonlSessionStore.open(file)
    assert store.read().warnings == [UnterminatedTailWarning(line=2)]
    with file.open("ab") as other_writer:
        other_writer.write(line[7:])

    assert store.repair().bytes_moved == 0
    store.append(entries[2])
    assert ids(store.entries()) == ids(entries[:3])
    assert JsonlSessionStore.open(file).entries() == entries[:3]


def test_repair_keeps_a_line_another_writer_finished_after_the_store_opened(
    tmp_path: Path,
) -> None:
    """Only the bytes after the last newline *under the lock* are a tail to move."""
    entries = multibyte_entries()
    second, third = line_of(entries[1]), line_of(entries[2])
    file = tmp_path / "session.jsonl"
    file.write_bytes(line_of(entries[0]) + second[:7])
    store = JsonlSessionStore.open(file)
    with file.open("ab") as other_writer:
        other_writer.write(second[7:] + third[:11])  # finishes line 2, then is torn in line 3

    repaired = store.repair()

    assert repaired.sidecar_path is not None
    assert repaired.sidecar_path.read_bytes() == third[:11]
    assert file.read_bytes() == line_of(entries[0]) + second
    assert ids(store.entries()) == ids(entries[:2])


def test_a_tail_torn_by_another_writer_refuses_appends_naming_its_line(tmp_path: Path) -> None:
    entries = multibyte_entries()
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    store.append(entries[0])
    with file.open("ab") as other_writer:
        other_writer.write(line_of(entries[1]) + line_of(entries[2])[:9])
    with pytest.raises(SessionStoreError, match=r"line 3 is an unterminated tail"):
        store.append(entries[3])
    assert store.repair().bytes_moved == 9
    store.append(entries[3].model_copy(update={"parent_id": entries[1].id}))
    assert len(JsonlSessionStore.open(file).entries()) == 3


def test_a_bad_line_another_writer_committed_names_its_line(tmp_path: Path) -> None:
    entries = multibyte_entries()
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    store.append(entries[0])
    with file.open("ab") as other_writer:
        other_writer.write(b"\n{broken\n")
    before = file.read_bytes()
    with pytest.raises(SessionFileError, match="line 3"):
        store.append(entries[1])
    assert file.read_bytes() == before
    assert store.entries() == entries[:1]


def rewrite_shorter(file: Path) -> None:
    file.write_bytes(file.read_bytes().split(b"\n", 1)[0] + b"\n")


def rewrite_same_size(file: Path) -> None:
    data = bytearray(file.read_bytes())
    data[-4] = ord("X") if data[-4] != ord("X") else ord("Y")
    file.write_bytes(bytes(data))


def replace_with_a_copy(file: Path) -> None:
    copy = file.with_name("copy.jsonl")
    copy.write_bytes(file.read_bytes())
    os.replace(copy, file)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (rewrite_shorter, "shrank"),
        (rewrite_same_size, "changed"),
        (replace_with_a_copy, "replaced"),
    ],
    ids=["shrank", "bytes-changed", "replaced"],
)
def test_a_file_changed_under_the_store_refuses_appends(
    tmp_path: Path, change: Callable[[Path], None], words: str
) -> None:
    entries = multibyte_entries()
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    for entry in entries[:3]:
        store.append(entry)
    change(file)
    changed = file.read_bytes()
    with pytest.raises(SessionStoreError, match=words) as caught:
        store.append(entries[3])
    assert "open it again" in str(caught.value)
    assert file.read_bytes() == changed


def test_a_failed_append_never_cuts_what_another_store_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failing store opened the file early; its cut must use the size seen under the lock."""
    file = tmp_path / "session.jsonl"
    failing = JsonlSessionStore.open(file)
    healthy = JsonlSessionStore.open(file)
    for number in range(5):
        healthy.append(chat_entry(f"h{number}", None, "healthy", number))
    before = file.read_bytes()

    monkeypatch.setattr(pathlib.Path, "open", failing_open)
    with pytest.raises(OSError, match="No space left"):
        failing.append(chat_entry("f0", None, "this write fails half-way"))
    monkeypatch.undo()

    assert file.read_bytes() == before
    healthy.append(chat_entry("h5", "h4", "still fine"))
    assert ids(JsonlSessionStore.open(file).entries()) == [f"h{n}" for n in range(6)]


def test_a_held_lock_times_out_with_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "session.jsonl"
    store = JsonlSessionStore.open(file)
    monkeypatch.setattr(stores, "LOCK_TIMEOUT_SECONDS", 0.05)
    with FileLock(str(tmp_path / "session.jsonl.lock")):
        with pytest.raises(SessionStoreError, match=r"session.jsonl.lock"):
            store.append(chat_entry("a", None, "waits for the lock"))
        assert read_session_file(file).entries == []  # reading needs no lock
    store.append(chat_entry("a", None, "the lock is free again"))
    assert ids(store.entries()) == ["a"]


def test_repair_waits_for_the_same_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file, committed, tail = torn_file(tmp_path)
    store = JsonlSessionStore.open(file)
    monkeypatch.setattr(stores, "LOCK_TIMEOUT_SECONDS", 0.05)
    with FileLock(str(tmp_path / "session.jsonl.lock")):
        with pytest.raises(SessionStoreError, match=r"another writer has held session.jsonl.lock"):
            store.repair()
        assert file.read_bytes() == committed + tail
    assert store.repair().bytes_moved == len(tail)


def test_the_same_id_from_many_store_objects_commits_once(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    racers = [JsonlSessionStore.open(file) for _ in range(8)]
    start = threading.Barrier(len(racers))
    results: list[str] = []

    def race(store: JsonlSessionStore) -> None:
        start.wait()
        try:
            store.append(chat_entry("same", None, "who wins?"))
            results.append("ok")
        except SessionStoreError as error:
            results.append(str(error))

    threads = [threading.Thread(target=race, args=(store,)) for store in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count("ok") == 1
    assert sorted(results)[:-1] == ["duplicate entry id 'same'"] * 7
    assert ids(JsonlSessionStore.open(file).entries()) == ["same"]


# --- 3. several processes on one file ------------------------------------------


def append_chain(path: str, worker: int, count: int, start: Any) -> None:
    """Append ``count`` entries, each a child of this worker's previous one."""
    store = JsonlSessionStore.open(path)
    start.wait()
    parent: str | None = None
    for number in range(count):
        entry_id = f"w{worker}-{number}"
        store.append(chat_entry(entry_id, parent, f"工作者 {worker} 第 {number} 条 🧵", number))
        parent = entry_id


_real_open = pathlib.Path.open


def failing_open(self: Path, mode: str = "r", buffering: int = -1, **kwargs: Any) -> Any:
    """``Path.open`` whose write handles fail half-way through every write."""
    if "+" not in mode:
        return _real_open(self, mode, buffering, **kwargs)
    return PartialWriteIO(str(self), mode.replace("b", ""))


def append_and_fail(path: str, count: int, start: Any, failures: Any) -> None:
    """Try ``count`` appends whose writes all fail part-way; count the failures."""
    store = JsonlSessionStore.open(path)
    pathlib.Path.open = failing_open
    start.wait()
    for number in range(count):
        try:
            store.append(chat_entry(f"bad-{number}", None, "半途而废 " * 20, number))
        except OSError:
            with failures.get_lock():
                failures.value += 1


def append_same_id(path: str, start: Any, results: Any) -> None:
    store = JsonlSessionStore.open(path)
    start.wait()
    try:
        store.append(chat_entry("same", None, "who wins?"))
        results.put("ok")
    except SessionStoreError as error:
        results.put(str(error))


class TrickleIO(io.FileIO):
    """A file that takes at most 16 bytes per write, as POSIX allows: lines take many calls."""

    def write(self, data: Any) -> int:
        return super().write(bytes(data)[:16])


def trickling_open(self: Path, mode: str = "r", buffering: int = -1, **kwargs: Any) -> Any:
    """``Path.open`` whose write handles write in short pieces."""
    if "+" not in mode:
        return _real_open(self, mode, buffering, **kwargs)
    return TrickleIO(str(self), mode.replace("b", ""))


def append_forever(path: str) -> None:
    """Append long entries in short writes until killed, so the kill lands inside a line."""
    store = JsonlSessionStore.open(path)
    pathlib.Path.open = trickling_open
    parent: str | None = None
    for number in range(1_000_000):
        entry_id = f"k{number}"
        store.append(chat_entry(entry_id, parent, f"{number} 长行 🪓 " + "字" * 5_000, number))
        parent = entry_id


def run_processes(processes: list[Any]) -> None:
    for process in processes:
        process.start()
    for process in processes:
        process.join(HANG_GUARD_SECONDS * 2)
    assert [process.exitcode for process in processes] == [0] * len(processes)


def test_four_processes_append_500_entries_each_without_loss(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    workers, per_worker = 4, 500
    start = SPAWN.Barrier(workers)
    run_processes(
        [
            SPAWN.Process(target=append_chain, args=(str(file), worker, per_worker, start))
            for worker in range(workers)
        ]
    )

    result = read_session_file(file)
    assert result.warnings == []
    assert file.read_bytes().count(b"\n") == workers * per_worker
    expected = {f"w{w}-{n}" for w in range(workers) for n in range(per_worker)}
    assert len(result.entries) == len(expected)
    assert set(ids(result.entries)) == expected
    for worker in range(workers):
        chain = path_to(result.entries, f"w{worker}-{per_worker - 1}")
        assert ids(chain) == [f"w{worker}-{n}" for n in range(per_worker)]


def test_a_failing_writer_beside_a_healthy_one_loses_nothing(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    count = 200
    start = SPAWN.Barrier(2)
    failures = SPAWN.Value("i", 0)
    run_processes(
        [
            SPAWN.Process(target=append_chain, args=(str(file), 0, count, start)),
            SPAWN.Process(target=append_and_fail, args=(str(file), count, start, failures)),
        ]
    )

    assert failures.value == count  # every failing write really ran, and failed
    result = read_session_file(file)
    assert result.warnings == []
    assert ids(result.entries) == [f"w0-{n}" for n in range(count)]
    assert file.read_bytes() == b"".join(line_of(entry) for entry in result.entries)


def test_the_same_id_from_four_processes_commits_once(tmp_path: Path) -> None:
    file = tmp_path / "session.jsonl"
    racers = 4
    start = SPAWN.Barrier(racers)
    results = SPAWN.Queue()
    processes = [
        SPAWN.Process(target=append_same_id, args=(str(file), start, results))
        for _ in range(racers)
    ]
    run_processes(processes)

    outcomes = sorted(results.get(timeout=HANG_GUARD_SECONDS) for _ in range(racers))
    assert outcomes.count("ok") == 1
    assert outcomes[:-1] == ["duplicate entry id 'same'"] * (racers - 1)
    assert ids(JsonlSessionStore.open(file).entries()) == ["same"]


def wait_for_a_line_in_progress(file: Path, lines: int) -> None:
    """Block until ``file`` holds ``lines`` committed lines and a half-written one after them."""
    pause = threading.Event()

    def in_progress() -> bool:
        data = file.read_bytes() if file.exists() else b""
        return data.count(b"\n") >= lines and not data.endswith(b"\n")

    def poll() -> None:
        while not in_progress():
            pause.wait(0.001)

    run_guarded(poll)


@pytest.mark.parametrize("kill_signal", [KILL_SIGNAL], ids=[KILL_SIGNAL.name])
def test_a_writer_killed_mid_append_leaves_only_a_tail(
    tmp_path: Path, kill_signal: signal.Signals
) -> None:
    file = tmp_path / "session.jsonl"
    writer = SPAWN.Process(target=append_forever, args=(str(file),))
    writer.start()
    try:
        wait_for_a_line_in_progress(file, 20)
    finally:
        os.kill(writer.pid, kill_signal)
        writer.join(HANG_GUARD_SECONDS)
    assert writer.exitcode not in (None, 0)

    before = file.read_bytes()
    result = read_session_file(file)  # every committed line parses, or this raises
    assert len(result.entries) == before.count(b"\n") >= 20
    assert ids(result.entries) == [f"k{n}" for n in range(len(result.entries))]
    tail = before[before.rfind(b"\n") + 1 :]
    assert result.warnings == (
        [UnterminatedTailWarning(line=len(result.entries) + 1)] if tail else []
    )

    store = JsonlSessionStore.open(file)  # the killed writer's lock died with it
    repaired = store.repair()
    moved = repaired.sidecar_path.read_bytes() if repaired.sidecar_path else b""
    assert file.read_bytes() + moved == before
    last = result.entries[-1].id
    store.append(chat_entry("after-kill", last, "the session goes on"))
    reopened = read_session_file(file)
    assert reopened.warnings == []
    assert ids(reopened.entries) == [*ids(result.entries), "after-kill"]


# --- 4. sidecars never follow a link --------------------------------------------


def can_symlink() -> bool:
    with tempfile.TemporaryDirectory() as folder:
        try:
            os.symlink(Path(folder) / "target", Path(folder) / "link")
        except (OSError, NotImplementedError):
            return False
        return True


SIDECAR_BLOCKERS = ["regular-file"] + (["dangling-link", "link-to-a-file"] if can_symlink() else [])


@pytest.mark.parametrize("blocker", SIDECAR_BLOCKERS)
def test_repair_never_writes_through_an_existing_sidecar_name(tmp_path: Path, blocker: str) -> None:
    file, committed, tail = torn_file(tmp_path)
    taken = tmp_path / "session.jsonl.tail"
    target = tmp_path / "elsewhere" / "precious.txt"
    if blocker == "regular-file":
        taken.write_bytes(b"an earlier tail")
    elif blocker == "dangling-link":
        os.symlink(target, taken)
    else:
        target.parent.mkdir()
        target.write_bytes(b"precious")
        os.symlink(target, taken)

    repaired = JsonlSessionStore.open(file).repair()

    assert repaired.sidecar_path == tmp_path / "session.jsonl.tail.1"
    assert not repaired.sidecar_path.is_symlink()
    assert repaired.sidecar_path.read_bytes() == tail
    assert file.read_bytes() == committed
    if blocker == "regular-file":
        assert taken.read_bytes() == b"an earlier tail"
    elif blocker == "dangling-link":
        assert taken.is_symlink() and not os.path.exists(target)
    else:
        assert target.read_bytes() == b"precious"


def test_a_link_appearing_after_the_check_is_still_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``O_EXCL`` is what protects the sidecar; the ``lexists`` check only saves a failed open."""
    file, _, tail = torn_file(tmp_path)
    taken = tmp_path / "session.jsonl.tail"
    target = tmp_path / "never-created.txt"
    if can_symlink():
        os.symlink(target, taken)
    else:
        taken.write_bytes(b"an earlier tail")
    real_lexists = os.path.lexists
    monkeypatch.setattr(
        stores.os.path, "lexists", lambda p: False if Path(p) == taken else real_lexists(p)
    )

    repaired = JsonlSessionStore.open(file).repair()

    assert repaired.sidecar_path == tmp_path / "session.jsonl.tail.1"
    assert repaired.sidecar_path.read_bytes() == tail
    assert not os.path.exists(target)
    if not taken.is_symlink():
        assert taken.read_bytes() == b"an earlier tail"


# --- 5. paths that are not regular files ----------------------------------------


def make_directory(folder: Path) -> Path:
    path = folder / "session.jsonl"
    path.mkdir()
    return path


def make_fifo(folder: Path) -> Path:
    path = folder / "session.jsonl"
    os.mkfifo(path)
    return path


def device(folder: Path) -> Path:
    return Path("NUL" if sys.platform == "win32" else "/dev/zero")


NOT_REGULAR = [
    pytest.param(make_directory, "is a directory", id="directory"),
    pytest.param(device, "is a character device", id="device"),
]
if hasattr(os, "mkfifo"):
    NOT_REGULAR.append(pytest.param(make_fifo, "is a FIFO", id="fifo"))


@pytest.mark.parametrize(("make", "words"), NOT_REGULAR)
def test_a_path_that_is_not_a_regular_file_is_refused(
    tmp_path: Path, make: Callable[[Path], Path], words: str
) -> None:
    path = make(tmp_path)
    before = file_listing(tmp_path)
    for read in (JsonlSessionStore.open, read_session_file):
        with pytest.raises(SessionFileError, match=words) as caught:
            run_guarded(lambda read=read: read(path))  # a FIFO must not hang the call
        message = str(caught.value)
        assert message.startswith(f"{path.name}: ")
        assert str(path.parent) not in message
    assert file_listing(tmp_path) == before


def test_an_unreadable_file_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "session.jsonl"
    file.write_bytes(line_of(multibyte_entries()[0]))
    file.chmod(0)
    try:
        if os.access(file, os.R_OK):  # root (or Windows) reads it anyway: refuse the open instead
            real_open = os.open

            def refusing_open(path: Any, flags: int, *args: Any) -> int:
                if Path(path) == file:
                    raise PermissionError(errno.EACCES, "Permission denied", str(path))
                return real_open(path, flags, *args)

            monkeypatch.setattr(stores.os, "open", refusing_open)
        for read in (JsonlSessionStore.open, read_session_file):
            with pytest.raises(SessionFileError) as caught:
                read(file)
            assert str(caught.value) == "session.jsonl: cannot be read (Permission denied)"
    finally:
        monkeypatch.undo()
        file.chmod(0o600)
    assert file_listing(tmp_path) == ["session.jsonl"]


def test_a_folder_that_is_a_file_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("not a folder", encoding="utf-8")
    with pytest.raises(SessionFileError, match=r"^session.jsonl: its folder cannot be created"):
        JsonlSessionStore.open(tmp_path / "notes" / "session.jsonl")


def test_read_session_file_on_a_missing_path_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "sub" / "session.jsonl"
    with pytest.raises(SessionFileError, match=r"^session.jsonl: no such session file"):
        read_session_file(missing)
    assert file_listing(tmp_path) == []


def test_read_session_file_changes_and_locks_nothing(tmp_path: Path) -> None:
    file, _, _ = torn_file(tmp_path)
    before = (file.read_bytes(), os.stat(file).st_mtime_ns)
    with FileLock(str(tmp_path / "session.jsonl.lock")):  # a writer holds the lock
        result = run_guarded(lambda: read_session_file(str(file)))
    assert result.entries == multibyte_entries()[:1]
    assert result.warnings == [UnterminatedTailWarning(line=2)]
    assert (file.read_bytes(), os.stat(file).st_mtime_ns) == before
    (tmp_path / "session.jsonl.lock").unlink(missing_ok=True)
    read_session_file(file)
    assert file_listing(tmp_path) == ["session.jsonl"]


def test_open_never_touches_an_existing_file(tmp_path: Path) -> None:
    file, _, _ = torn_file(tmp_path)
    old = 1_000_000_000
    os.utime(file, ns=(old, old))
    JsonlSessionStore.open(file)
    assert os.stat(file).st_mtime_ns == old
