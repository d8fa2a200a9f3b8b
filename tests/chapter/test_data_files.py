"""The JSONL files in ``data/chapter11``: generated, committed, and kept honest.

Notebooks open these files directly, so they must equal what the generator
writes (no hand edits drifting from the fixture), every good file must read
back and re-serialise byte for byte, and every bad file must fail exactly at
the boundary the chapter teaches, naming its line or id.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from course_lib import (
    InteractionError,
    JsonlSessionStore,
    SessionFileError,
    SessionStoreError,
    UnterminatedTailWarning,
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_estimator,
    group_interactions,
    path_to,
    system_replay_fixture,
)
from course_lib.base.wire import dumps_line
from course_lib.tools.fixture_files import fixture_files, main, write_fixture_files

PROJECT = Path(__file__).resolve().parents[2]
DATA = PROJECT / "data" / "chapter11"

GOOD = {
    "fixture.jsonl": chapter_fixture,
    "after-compaction.jsonl": chapter_fixture_after_compaction,
    "system-replay.jsonl": system_replay_fixture,
}
BAD = [
    "bad-files-alias.jsonl",
    "bad-unknown-call.jsonl",
    "bad-torn-tail.jsonl",
    "bad-invalid-line.jsonl",
]


def test_the_generator_names_every_file() -> None:
    assert sorted(fixture_files()) == sorted([*GOOD, *BAD])


def test_the_committed_folder_matches_the_generator(tmp_path: Path) -> None:
    written = write_fixture_files(tmp_path / "fresh")
    assert sorted(path.name for path in written) == sorted(fixture_files())
    committed = sorted(path.name for path in DATA.glob("*.jsonl"))
    assert committed == sorted(fixture_files()), (
        "data/chapter11 drifted: run `python -m course_lib.tools.fixture_files data/chapter11`"
    )
    for path in written:
        assert (DATA / path.name).read_bytes() == path.read_bytes(), (
            f"{path.name} drifted: run `python -m course_lib.tools.fixture_files data/chapter11`"
        )


def test_the_generator_is_pure() -> None:
    assert fixture_files() == fixture_files()


def test_the_module_entry_point_writes_the_files(tmp_path: Path) -> None:
    target = tmp_path / "out" / "chapter11"
    completed = subprocess.run(
        [sys.executable, "-m", "course_lib.tools.fixture_files", str(target)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stderr == ""
    for name, text in fixture_files().items():
        assert (target / name).read_bytes() == text.encode("utf-8")
        assert name in completed.stdout


def test_main_refuses_extra_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:  # argparse's exit status for a bad command line
        main(["one", "two"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "usage: python -m course_lib.tools.fixture_files" in err
    assert "unrecognized arguments: two" in err


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_files_read_back_byte_for_byte(name: str) -> None:
    data = (DATA / name).read_bytes()
    store = JsonlSessionStore.open(DATA / name)
    assert store.read().warnings == []
    entries = store.entries()
    assert entries == GOOD[name]()
    assert "".join(dumps_line(entry.to_wire()) for entry in entries).encode("utf-8") == data
    assert data.endswith(b"\n")


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_files_build_a_context(name: str) -> None:
    entries = JsonlSessionStore.open(DATA / name).entries()
    path = path_to(entries, entries[-1].id)
    assert path == entries
    result = build_context(path, max_tokens=1000, estimate_tokens=fixture_estimator())
    assert result.reason == "within_budget"
    assert result.kept_entry_ids


def test_the_after_compaction_file_restores_like_the_chapter() -> None:
    entries = JsonlSessionStore.open(DATA / "after-compaction.jsonl").entries()
    result = build_context(
        path_to(entries, "a4"),
        max_tokens=31,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=fixture_estimator(),
    )
    assert result.kept_entry_ids == ["u4", "a4"]
    assert result.tokens.messages == 12


def test_bad_files_alias_names_line_11_and_the_field() -> None:
    with pytest.raises(SessionFileError) as caught:
        JsonlSessionStore.open(DATA / "bad-files-alias.jsonl")
    message = str(caught.value)
    assert message.startswith("line 11: session entry compact-1: ")
    assert "summary.files: unknown field" in message


def test_bad_unknown_call_is_a_valid_file_whose_grouping_fails() -> None:
    entries = JsonlSessionStore.open(DATA / "bad-unknown-call.jsonl").entries()
    assert [entry.id for entry in entries] == [entry.id for entry in chapter_fixture()]
    with pytest.raises(InteractionError) as caught:
        group_interactions(path_to(entries, "a3"))
    assert "r-test" in str(caught.value)
    assert "unknown-1" in str(caught.value)
    with pytest.raises(InteractionError, match="unknown-1"):
        build_context(path_to(entries, "a3"), max_tokens=31, estimate_tokens=fixture_estimator())


def test_bad_torn_tail_warns_about_line_10_and_refuses_appends(tmp_path: Path) -> None:
    copy = tmp_path / "bad-torn-tail.jsonl"
    data = (DATA / "bad-torn-tail.jsonl").read_bytes()
    copy.write_bytes(data)
    store = JsonlSessionStore.open(copy)
    read = store.read()
    assert [entry.id for entry in read.entries] == [entry.id for entry in chapter_fixture()[:9]]
    assert read.warnings == [UnterminatedTailWarning(line=10)]
    with pytest.raises(SessionStoreError, match="line 10"):
        store.append(chapter_fixture()[9])
    assert copy.read_bytes() == data

    repaired = store.repair()
    assert repaired.sidecar_path is not None
    assert repaired.sidecar_path.read_bytes() == dumps_line(chapter_fixture()[9].to_wire()).rstrip(
        "\n"
    ).encode("utf-8")
    store.append(chapter_fixture()[9])
    assert copy.read_bytes() == (DATA / "fixture.jsonl").read_bytes()


def test_bad_invalid_line_names_line_5_and_the_entry() -> None:
    with pytest.raises(SessionFileError) as caught:
        JsonlSessionStore.open(DATA / "bad-invalid-line.jsonl")
    message = str(caught.value)
    assert message.startswith("line 5: session entry a2: ")
    assert "message.usage.totalTokens" in message
