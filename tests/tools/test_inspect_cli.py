"""``course-lab inspect``: pi and course files, the deduction table, the ledger, errors."""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path

import pytest
from runners import Runner

from course_lib import (
    JsonlSessionStore,
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
)
from course_lib.beyond.estimators import chars_estimator
from course_lib.beyond.importers import import_pi_session
from course_lib.tools import inspect_session as inspect_cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "pi-sessions" / "large-session.v1.jsonl"
V3 = Path(__file__).resolve().parents[1] / "data" / "pi" / "v3-tree.jsonl"
LEDGER_ROW = re.compile(r"^\s+\d+\s+\d+\s+\S+\s+\S+\s+[\d,]+\s+(kept|trimmed|overflow)$")


def write_course_file(tmp_path: Path, entries: list) -> Path:
    store = JsonlSessionStore.open(tmp_path / "session.jsonl")
    for entry in entries:
        store.append(entry)
    return store.path


def ledger_rows(output: str) -> list[str]:
    return [line for line in output.splitlines() if LEDGER_ROW.match(line)]


# --- pi files ----------------------------------------------------------------------


def test_inspect_a_pi_session_under_pi_defaults(course_lab: Runner) -> None:
    status, out, err = course_lab(str(SAMPLE))
    assert status == 0 and err == ""
    assert "large-session.v1.jsonl: pi session, format v1" in out
    assert "entries: 1,037 (message 932, metadata 105)" in out
    assert (
        "pi lines by type: message 914, thinking_level_change 103, session 1, model_change 1" in out
    )
    assert "active path to L1019: 1,037 entries, 932 messages, 88 interactions" in out
    assert (
        "notes: 27 (warnings 18, info 9)\n  warning  missing_result_repaired x18, first at line 33"
        in out
    )
    assert re.search(r"max_tokens\s+200,000\s+200,000", out)
    assert re.search(r"reserved_output\s+16,384\s+183,616", out)
    assert re.search(r"safety_margin\s+0\s+183,616", out)
    assert "kept: L0002 .. L1019 (932 message entries in 88 groups)" in out
    assert "reason: within_budget" in out
    # compact: the oldest and newest groups only, not 88 rows
    rows = ledger_rows(out)
    assert len(rows) == 6 and "… 82 more group(s)" in out


def test_inspect_shows_the_cut_and_agrees_with_build_context(course_lab: Runner) -> None:
    status, out, _ = course_lab(str(SAMPLE), "--max-tokens", "60000", "--safety-margin", "1000")
    assert status == 0
    path = import_pi_session(SAMPLE).active_path()
    built = build_context(
        path, max_tokens=60_000, reserved_output=16_384, safety_margin=1_000,
        estimate_tokens=chars_estimator(),
    )  # fmt: skip
    kept = built.kept_entry_ids
    assert built.reason == "trimmed"
    assert f"kept: {kept[0]} .. {kept[-1]} ({len(kept):,} message entries" in out
    assert re.search(r"safety_margin\s+1,000\s+42,616", out)
    assert f"messages {built.tokens.messages:,} + reserved 16,384 + margin 1,000" in out
    lines = out.splitlines()
    cut = next(i for i, line in enumerate(lines) if "---- cut" in line)
    assert lines[cut - 1].endswith("trimmed") and lines[cut + 1].endswith("kept")
    assert f"  {kept[0]}  " in lines[cut + 1] or f" {kept[0]} " in lines[cut + 1]
    assert len(ledger_rows(out)) == 10
    assert "reason: trimmed: the newest" in out


def test_inspect_json_has_every_note_and_ledger_row(course_lab: Runner) -> None:
    status, out, _ = course_lab(str(SAMPLE), "--format", "json", "--max-tokens", "60000")
    assert status == 0
    report = json.loads(out)
    assert (report["format"], report["version"]) == ("pi", 1)
    assert report["entries"] == {"total": 1037, "by_type": {"message": 932, "metadata": 105}}
    assert report["interactions"] == len(report["ledger"]) == 88
    assert report["notes"]["total"] == len(report["notes"]["items"]) == 27
    assert report["notes"]["by_kind"]["missing_result_repaired"] == 18
    path = import_pi_session(SAMPLE).active_path()
    built = build_context(
        path, max_tokens=60_000, reserved_output=16_384, estimate_tokens=chars_estimator()
    )
    budget = report["budget"]
    assert budget["estimator"] == "chars"
    assert (budget["max_tokens"], budget["reserved_output"], budget["safety_margin"]) == (
        60_000,
        16_384,
        0,
    )
    assert (budget["messages"], budget["total"]) == (built.tokens.messages, built.tokens.total)
    kept_rows = [row for row in report["ledger"] if row["status"] == "kept"]
    assert [i for row in kept_rows for i in row["entry_ids"]] == built.kept_entry_ids
    assert report["kept"] == {
        "first": built.kept_entry_ids[0],
        "last": built.kept_entry_ids[-1],
        "entries": len(built.kept_entry_ids),
        "groups": len(kept_rows),
    }
    assert report["reason"] == built.reason


def test_inspect_a_v3_branch_with_bpe_and_the_compaction_summary(course_lab: Runner) -> None:
    status, out, _ = course_lab(str(V3), "--leaf", "e10", "--estimator", "bpe")
    assert status == 0
    assert "pi session, format v3" in out
    # branch A: header, e01-e10 and the synthetic result of its aborted grep call; no compaction
    assert "active path to e10: 12 entries, 10 messages, 3 interactions\n" in out
    status, out, _ = course_lab(str(V3), "--estimator", "bpe", "--max-tokens", "16500")
    assert "interactions after compaction e14" in out
    assert re.search(r"summary of e14\s+\d+\s+\d+", out)
    assert "budget (estimator: bpe)" in out
    assert "reason: single_group_overflow" in out


# --- course files: the chapter's own numbers -------------------------------------------


def test_inspect_a_course_file_reproduces_the_chapter_table(
    course_lab: Runner, tmp_path: Path
) -> None:
    file = write_course_file(tmp_path, chapter_fixture())
    status, out, _ = course_lab(
        str(file), "--estimator", "fixture", "--max-tokens", "31", "--reserved-output", "4",
        "--safety-margin", "2",
    )  # fmt: skip
    assert status == 0
    assert "session.jsonl: course session" in out
    assert "entries: 10 (message 10)" in out and "notes: 0" in out
    for item, tokens, left in [
        ("max_tokens", 31, 31),
        ("replayed system message", 3, 28),
        ("reserved_output", 4, 24),
        ("safety_margin", 2, 22),
    ]:
        assert re.search(rf"{item}\s+{tokens}\s+{left}\n", out), item
    assert "kept: u2 .. a3 (7 message entries in 2 groups)" in out
    assert "tokens: system 3 + messages 22 + reserved 4 + margin 2 = 31 of 31" in out
    assert "reason: trimmed" in out


@pytest.mark.parametrize(
    ("max_tokens", "sentence"),
    [
        (31, "the newest 2 groups fit in 22 tokens (22 used); adding group 1 (7 tokens) "
             "would not, so it is left out"),
        (26, "the newest group fits in 17 tokens (15 used); adding group 2 (7 tokens) "
             "would not, so it and 1 older group are left out"),
    ],
)  # fmt: skip
def test_inspect_explains_the_cut_in_a_sentence(
    course_lab: Runner, tmp_path: Path, max_tokens: int, sentence: str
) -> None:
    file = write_course_file(tmp_path, chapter_fixture())
    status, out, _ = course_lab(
        str(file), "--estimator", "fixture", "--max-tokens", str(max_tokens),
        "--reserved-output", "4", "--safety-margin", "2",
    )  # fmt: skip
    assert status == 0
    assert out.splitlines()[-1] == f"reason: trimmed: {sentence}"


def test_inspect_a_course_file_after_compaction_pays_for_the_summary(
    course_lab: Runner, tmp_path: Path
) -> None:
    file = write_course_file(tmp_path, chapter_fixture_after_compaction())
    status, out, _ = course_lab(
        str(file), "--estimator", "fixture", "--max-tokens", "31", "--reserved-output", "4",
        "--safety-margin", "2", "--format", "json",
    )  # fmt: skip
    assert status == 0
    report = json.loads(out)
    assert report["compaction"] == "compact-1"
    assert report["budget"]["summary"] == 5
    assert report["budget"]["messages"] == 12
    assert report["kept"]["first"] == "u4" and report["kept"]["last"] == "a4"
    assert [row["status"] for row in report["ledger"]] == ["trimmed", "trimmed", "kept"]


def test_inspect_reports_an_unterminated_tail(course_lab: Runner, tmp_path: Path) -> None:
    file = write_course_file(tmp_path, chapter_fixture())
    with file.open("a", encoding="utf-8") as handle:
        handle.write('{"id":"torn"')
    status, out, _ = course_lab(str(file), "--estimator", "fixture")
    assert status == 0
    assert "notes: 1 (warnings 1, info 0)\n  warning  unterminated_tail x1, first at line 11" in out


# --- severities: warnings first, in the text and in the JSON ------------------------------


def _note_rows(out: str) -> list[tuple[str, str, int]]:
    """(severity, kind, count) of each note line of the text report, in order."""
    return [
        (found[1], found[2], int(found[3].replace(",", "")))
        for found in re.finditer(r"^  (warning|info)\s+(\w+) x([\d,]+), first at", out, re.M)
    ]


@pytest.mark.parametrize(
    "file",
    [SAMPLE, ROOT / "data" / "claude-code-sessions" / "sample-session.jsonl",
     ROOT / "data" / "codex-sessions" / "sample-rollout.jsonl"],
    ids=["pi", "claude-code", "codex"],
)  # fmt: skip
def test_inspect_lists_warnings_first(course_lab: Runner, file: Path) -> None:
    from course_lib.beyond.importers import import_session

    notes = import_session(file).notes
    _, out, _ = course_lab(str(file))
    rows = _note_rows(out)
    severities = [severity for severity, _, _ in rows]
    assert severities == sorted(severities, key=["warning", "info"].index)  # warnings first
    assert {kind: count for _, kind, count in rows} == {
        kind: sum(note.kind == kind for note in notes) for kind in {note.kind for note in notes}
    }
    for severity, kind, _ in rows:
        assert severity == next(note.severity for note in notes if note.kind == kind)
    warnings = sum(note.severity == "warning" for note in notes)
    assert f"notes: {len(notes)} (warnings {warnings}, info {len(notes) - warnings})\n" in out
    assert warnings > 0 and "warning" in severities  # every sample has a repaired call at least

    report = json.loads(course_lab(str(file), "--format", "json")[1])["notes"]
    assert report["by_severity"] == {"warning": warnings, "info": len(notes) - warnings}
    items = report["items"]
    assert [item["severity"] for item in items] == ["warning"] * warnings + ["info"] * (
        len(notes) - warnings
    )
    assert sorted(map(json.dumps, items)) == sorted(
        json.dumps({"kind": n.kind, "line": n.line, "entry_id": n.entry_id, "detail": n.detail,
                    "severity": n.severity}) for n in notes
    )  # fmt: skip
    assert list(report["by_kind"]) == [kind for _, kind, _ in rows]


# --- errors are one line and exit status 2 ----------------------------------------------


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        (None, [], r"cannot read .*missing\.jsonl"),
        ("", [], r"the file is empty"),
        ('{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00Z"}\n{oops\n', [], r"line 2: not valid JSON"),
        ('{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00Z"}\n', ["--leaf", "nope"], r"no entry with id 'nope'"),
        ('{"id":"x","type":"message"}\n', [], r"line 1: session entry x: parentId: missing field"),
        ('{"id":"x"}\n', [], r"missing\.jsonl is not a pi, Claude Code or Codex CLI session: its first record \(line 1, no type\) belongs to none of them\n$"),
        ('{"type":"chat"}\n{oops\n', [], r"missing\.jsonl: line 2 is not valid JSON \(Expecting property name enclosed in double quotes: line 1 column 2 \(char 1\)\); expected a pi, Claude Code or Codex CLI session\n$"),
        (SAMPLE.read_text(encoding="utf-8"), ["--leaf", "L0500"],
         r"the path to L0500 does not split into whole interactions \(missing result for call "
         r"'toolu_01VSAJq4pvW5Vww3FL6gU8ir'.*choose a user message"),
    ],
)  # fmt: skip
def test_inspect_errors_are_one_line(
    course_lab: Runner, tmp_path: Path, content: str | None, argv: list[str], message: str
) -> None:
    file = tmp_path / "missing.jsonl"
    if content is not None:
        file.write_text(content, encoding="utf-8")
    status, out, err = course_lab(str(file), *argv)
    assert status == 2 and out == ""
    assert err.startswith("course-lab: error: ") and err.count("\n") == 1
    assert re.search(message, err), err


def test_bad_numbers_are_one_error_line(course_lab: Runner) -> None:
    status, out, err = course_lab(str(SAMPLE), "--max-tokens", "-5")
    assert status == 2 and out == ""
    assert err == (
        "course-lab: error: --max-tokens must be a whole number from 0 to 2**53 - 1 "
        "(9,007,199,254,740,991), got '-5'\n"
    )


# --- the progress bar: large files, terminals only --------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_inspect(file: Path, stderr: io.StringIO) -> str:
    parser = argparse.ArgumentParser(prog="course-lab")
    inspect_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["inspect", str(file)])
    out = io.StringIO()
    assert args.func is inspect_cli.run
    assert inspect_cli.run(args, stdout=out, stderr=stderr) == 0
    return out.getvalue()


def test_a_progress_bar_only_for_large_files_on_a_terminal() -> None:
    terminal = FakeTerminal()
    out = run_inspect(SAMPLE, terminal)
    assert SAMPLE.stat().st_size >= inspect_cli.LARGE_FILE_BYTES
    drawn = terminal.getvalue()
    assert "\rreading large-session.v1.jsonl [" in drawn and "100%" in drawn
    assert "\rpricing large-session.v1.jsonl [" in drawn
    assert drawn.endswith("\r")  # the bar is erased, the report goes to stdout
    assert out.startswith(f"{SAMPLE}: pi session")

    piped = io.StringIO()  # not a terminal: nothing drawn
    run_inspect(SAMPLE, piped)
    assert piped.getvalue() == ""
    small = FakeTerminal()  # a small file: nothing drawn either
    run_inspect(V3, small)
    assert small.getvalue() == ""


def test_a_reader_that_stops_early_or_a_full_disk_ends_quietly() -> None:
    import subprocess
    import sys

    sample = Path(__file__).resolve().parents[2] / "data" / "pi-sessions" / "large-session.v1.jsonl"
    command = [sys.executable, "-m", "course_lib.tools.cli", "inspect", str(sample)]
    closed = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert closed.stdout is not None and closed.stderr is not None
    closed.stdout.close()  # the reader is gone before the first line
    errors = closed.stderr.read().decode()
    closed.stderr.close()
    assert closed.wait(timeout=120) == 1
    assert "Traceback" not in errors
    if Path("/dev/full").exists():
        with open("/dev/full", "w") as full:
            run = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, timeout=120)
        assert run.returncode == 1
        assert (
            run.stderr.decode().strip() == "course-lab: error: stdout: no space left on the device"
        )
