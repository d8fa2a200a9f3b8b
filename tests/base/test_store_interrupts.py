"""An interrupt never wedges a store: an append is committed and says so, or is not committed.

Notebook users press Ctrl-C all the time. Landing between the write of a line
and the store's note of it, a ``KeyboardInterrupt`` used to report a committed
append as failed and leave the store's memory behind its file, so that every
later append on that object failed with a false "duplicate entry id". Now,
once the locks are held, a Ctrl-C is held back until the append is complete;
and should any exception cut an append short, the store reads its file again
before letting the exception go, noting on it when the entry was committed.

Two kinds of test: an exception injected before and after every step of an
append (each call of it), and a real storm of SIGINTs against one store object
in a child process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import course_lib.base.stores as stores
from course_lib import JsonlSessionStore, MessageEntry, read_session_file, user_message

HANG_GUARD_SECONDS = 120  # only a guard against a hang; nothing here measures speed


def chat_entry(entry_id: str, parent_id: str | None) -> MessageEntry:
    return MessageEntry(
        id=entry_id,
        parent_id=parent_id,
        timestamp=1,
        message=user_message(f'text of {entry_id}: 引号 "quoted"\tand a tab', timestamp=1),
    )


def ids(entries: list[Any]) -> list[str]:
    return [entry.id for entry in entries]


# Every step of an append, by the name the store calls it through: module functions,
# the store's own methods, and the operating system's fsync.
FUNCTION_STEPS = [
    "_line_for",
    "_open_lock_file",
    "_flock_until",
    "_identity",
    "_scan_committed",
    "_check_append",
    "_append_or_undo",
    "_write_all",
    "replace",
]
METHOD_STEPS = [
    "_open_for_writing",
    "_check_still_at_path",
    "_heal",
    "_catch_up",
    "_refuse_torn_tail",
    "_remember_appended",
]
STEPS = [*FUNCTION_STEPS, *METHOD_STEPS, "fsync"]


class Injected(RuntimeError):
    """Any exception other than an interrupt: the store must not care which it is."""


def where(step: str) -> tuple[Any, str]:
    if step == "fsync":
        return stores.os, "fsync"
    if step in METHOD_STEPS:
        return stores.JsonlStore, step
    return stores, step


def install(
    monkeypatch: pytest.MonkeyPatch, step: str, on_call: Callable[[int, str], None]
) -> None:
    """Wrap ``step`` so that ``on_call(n, "before")`` and ``on_call(n, "after")`` run around
    its n-th call (counted from 0)."""
    owner, name = where(step)
    real = getattr(owner, name)
    calls = [0]

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        number = calls[0]
        calls[0] += 1
        on_call(number, "before")
        result = real(*args, **kwargs)
        on_call(number, "after")
        return result

    monkeypatch.setattr(owner, name, wrapped)


def calls_of(step: str, tmp_path: Path) -> int:
    """How many times one clean append calls ``step``."""
    file = tmp_path / f"count-{step}.jsonl"
    store = JsonlSessionStore.open(file)
    store.append(chat_entry("a", None))
    counted = [0]
    with pytest.MonkeyPatch.context() as patch:
        install(patch, step, lambda number, moment: counted.__setitem__(0, number + 1))
        store.append(chat_entry("b", "a"))
    return counted[0]


def committed_note(error: BaseException) -> bool:
    return (
        any("was committed before this was raised" in note for note in error.__notes__)
        if (hasattr(error, "__notes__"))
        else False
    )


OPENING_STEPS = ("_open_lock_file", "_open_for_writing")
"""Steps that return something to close: an exception *after* one returns, before the caller
holds the result, can only be a signal (nothing else runs there), and the store holds those
back; a raised exception injected there would leak the descriptor in the test itself."""


@pytest.mark.parametrize("kind", ["signal", "interrupt", "exception"])
@pytest.mark.parametrize("step", STEPS)
def test_an_exception_at_any_step_leaves_memory_and_file_agreeing(
    tmp_path: Path, step: str, kind: str
) -> None:
    calls = calls_of(step, tmp_path)
    assert calls >= 1  # the step is really part of an append
    raised: type[BaseException] = Injected if kind == "exception" else KeyboardInterrupt
    outcomes = set()
    for number in range(calls):
        for moment in ("before", "after"):
            if moment == "after" and step in OPENING_STEPS and kind != "signal":
                continue
            file = tmp_path / f"{step}-{number}-{moment}.jsonl"
            JsonlSessionStore.open(file).append(chat_entry("a", None))
            store = JsonlSessionStore.open(file)

            def inject(call: int, now: str, number: int = number, moment: str = moment) -> None:
                if call != number or now != moment:
                    return
                if kind == "signal":  # a real Ctrl-C: Python raises it at the next bytecode
                    signal.raise_signal(signal.SIGINT)
                else:
                    raise raised(f"injected {moment} call {number} of {step}")

            with pytest.MonkeyPatch.context() as patch:
                install(patch, step, inject)
                with pytest.raises(raised) as caught:
                    store.append(chat_entry("b", "a"))

            in_file = ids(read_session_file(file).entries)
            assert ids(store.entries()) == in_file  # memory and file agree
            committed = "b" in in_file
            assert committed == committed_note(caught.value)  # committed, and says so
            outcomes.add(committed)
            if not committed:
                store.append(chat_entry("b", "a"))  # the same entry goes in now
            store.append(chat_entry("c", "b"))  # and the store goes on: no false duplicate
            assert ids(store.entries()) == ids(JsonlSessionStore.open(file).entries())
            assert ids(store.entries()) == ["a", "b", "c"]
    if kind == "signal" and step in ("_append_or_undo", "_write_all", "fsync"):
        assert outcomes == {True}  # a Ctrl-C while the line is written waits for the commit
    if kind != "signal" and step == "_remember_appended":
        assert outcomes == {True}  # before or after: the line was on disk, so it is committed
    if step == "_check_append":  # under the locks, before the write
        # raised there: nothing is committed; a Ctrl-C there waits until the append is done
        assert outcomes == ({True} if kind == "signal" else {False})


# --- a real SIGINT storm against one store object -------------------------------------

CHILD = r"""
import itertools, json, os, signal, sys
from course_lib import JsonlSessionStore, MessageEntry, read_session_file, user_message

path, stop = sys.argv[1], sys.argv[2]
store = JsonlSessionStore.open(path)
outcomes = {}  # id -> "ok" | "committed" | "not"; missing: the interrupt landed outside append
caught = []  # [count of interrupts caught], once the storm began


def entry(entry_id):
    return MessageEntry(id=entry_id, parent_id=None, timestamp=1,
                        message=user_message("storm \"quoted\"\n" + entry_id, timestamp=1))


numbers = itertools.count(1)  # never restarted: each attempt has an id of its own


def outcome(error):
    # What an interrupted append reported: raised in this frame, the append had returned
    # (the signal landed just after); else its exception, or one it led to, says "committed".
    if error.__traceback__.tb_next is None:
        return "returned"
    while error is not None:
        if any("was committed" in note for note in getattr(error, "__notes__", ())):
            return "committed"
        error = error.__context__
    return "not"


def storm():
    if not caught:  # the first entry: from here on, every interrupt is caught
        caught.append(0)
        print("ready", flush=True)
    while not os.path.exists(stop):
        entry_id = f"e{next(numbers)}"
        try:
            made = entry(entry_id)
            try:
                store.append(made)
            except KeyboardInterrupt as error:
                caught[0] += 1
                outcomes[entry_id] = outcome(error)
                continue
            outcomes[entry_id] = "ok"
        except KeyboardInterrupt:
            caught[0] += 1


while True:
    try:
        storm()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # may run one last pending handler first
        break
    except KeyboardInterrupt:
        caught[0] += 1

in_memory = [e.id for e in store.entries()]
in_file = [e.id for e in read_session_file(path).entries]
problems = []
if in_memory != in_file:
    problems.append(f"memory {len(in_memory)} entries, file {len(in_file)}")
if len(set(in_file)) != len(in_file):
    problems.append("an id twice in the file")
for entry_id, outcome in outcomes.items():
    if (outcome != "not") != (entry_id in in_file):
        problems.append(f"{entry_id}: reported {outcome}, in the file: {entry_id in in_file}")
store.append(entry("final"))
if [e.id for e in JsonlSessionStore.open(path).entries()] != in_file + ["final"]:
    problems.append("the final append or the reopen failed")
counts = {kind: list(outcomes.values()).count(kind) for kind in ("ok", "returned", "committed", "not")}
print(json.dumps({"problems": problems, "caught": caught[0], **counts}), flush=True)
"""


def test_a_sigint_storm_never_wedges_one_store_object(tmp_path: Path) -> None:
    file, stop = tmp_path / "session.jsonl", tmp_path / "stop"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(file), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        storm_ends = time.monotonic() + 3.0  # a bounded storm: a few thousand signals
        while time.monotonic() < storm_ends and child.poll() is None:
            os.kill(child.pid, signal.SIGINT)
            time.sleep(0.0005)
        time.sleep(0.05)  # let the last signals arrive while the child still catches them
        stop.touch()
        out, _ = child.communicate(timeout=HANG_GUARD_SECONDS)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, out
    report = json.loads(out.strip().splitlines()[-1])
    assert report["problems"] == []
    assert report["caught"] > 0  # the storm really reached the appends
    assert report["ok"] + report["committed"] > 0
