"""The chapter's JSONL data files, generated from the fixture so they can never drift.

The fixture itself is read from ``course_lib/chapter/data/`` (both languages);
these are the English files a student opens, plus the bad ones.

Every line is written by ``dumps_line``, so a good file reads back and
re-serialises byte for byte. Regenerate the folder with::

    python -m course_lib.tools.fixture_files data/chapter11

Good files:

* ``fixture.jsonl`` — the ten entries of the chapter's fixture;
* ``after-compaction.jsonl`` — the fixture, then ``compact-1``, ``u4`` and ``a4``;
* ``system-replay.jsonl`` — the path whose system state changes on both sides
  of ``compact-1``.

Bad files, each stopped at its own boundary:

* ``bad-files-alias.jsonl`` — ``compact-1`` (line 11) carries an old draft's
  ``summary.files`` instead of ``summary.changedFiles``: reading fails with
  ``SessionFileError`` ``line 11: session entry compact-1: ... summary.files: unknown field``;
* ``bad-unknown-call.jsonl`` — ``r-test`` answers ``unknown-1``: a valid file,
  but grouping fails with ``InteractionError`` naming ``r-test`` and ``unknown-1``;
* ``bad-torn-tail.jsonl`` — the fixture whose last line (``a3``, line 10) has no
  newline: it was never committed, so reading returns nine entries and an
  ``unterminated_tail`` warning for line 10, and appending needs ``repair()``;
* ``bad-invalid-line.jsonl`` — line 5 (``a2``) is committed but invalid
  (``usage.totalTokens`` is ``true``): reading fails with ``SessionFileError``
  ``line 5: session entry a2: message.usage.totalTokens: ...``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..base.wire import dumps_line
from ..chapter.fixture import (
    chapter_fixture,
    chapter_fixture_after_compaction,
    system_replay_fixture,
)
from ..chapter.models import SessionEntry

__all__ = ["fixture_files", "write_fixture_files"]

DEFAULT_DIRECTORY = Path("data") / "chapter11"


def _text(wires: Sequence[dict[str, Any]]) -> str:
    return "".join(dumps_line(wire) for wire in wires)


def _wires(entries: Sequence[SessionEntry]) -> list[dict[str, Any]]:
    return [entry.to_wire() for entry in entries]


def _renamed(mapping: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """``mapping`` with key ``old`` renamed to ``new`` in the same position."""
    return {(new if key == old else key): value for key, value in mapping.items()}


def _by_id(wires: list[dict[str, Any]], entry_id: str) -> dict[str, Any]:
    return next(wire for wire in wires if wire["id"] == entry_id)


def fixture_files() -> dict[str, str]:
    """Relative file name -> exact JSONL text, for every file of ``data/chapter11``."""
    fixture = _wires(chapter_fixture())
    after = _wires(chapter_fixture_after_compaction())

    files_alias = _wires(chapter_fixture_after_compaction())[:11]
    compaction = files_alias[10]
    compaction["summary"] = _renamed(compaction["summary"], "changedFiles", "files")

    unknown_call = _wires(chapter_fixture())
    _by_id(unknown_call, "r-test")["message"]["toolCallId"] = "unknown-1"

    invalid_line = _wires(chapter_fixture())
    _by_id(invalid_line, "a2")["message"]["usage"]["totalTokens"] = True

    return {
        "fixture.jsonl": _text(fixture),
        "after-compaction.jsonl": _text(after),
        "system-replay.jsonl": _text(_wires(system_replay_fixture())),
        "bad-files-alias.jsonl": _text(files_alias),
        "bad-unknown-call.jsonl": _text(unknown_call),
        "bad-torn-tail.jsonl": _text(fixture).removesuffix("\n"),
        "bad-invalid-line.jsonl": _text(invalid_line),
    }


def write_fixture_files(directory: str | os.PathLike[str]) -> list[Path]:
    """Write every fixture file into ``directory`` (created if missing); return the paths."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in fixture_files().items():
        path = folder / name
        path.write_bytes(text.encode("utf-8"))
        written.append(path)
    return written


def build_parser() -> argparse.ArgumentParser:
    """``python -m course_lib.tools.fixture_files [DIRECTORY]``."""
    parser = argparse.ArgumentParser(
        prog="python -m course_lib.tools.fixture_files",
        description="Write the chapter's fixture files (JSONL, as the TypeScript course writes them).",
    )
    parser.add_argument(
        "directory",
        nargs="?",
        type=Path,
        default=DEFAULT_DIRECTORY,
        help=f"where to write them (default: {DEFAULT_DIRECTORY})",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Write the files and print their paths; argparse exits 2 on a bad command line."""
    args = build_parser().parse_args(argv)
    for path in write_fixture_files(args.directory):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
