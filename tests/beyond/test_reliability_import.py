"""Hostile and damaged pi files: linear parsing, torn characters, deep nesting, odd types.

And ``course-lab inspect`` on such files: it shows control characters as
text, never changes or creates its input, and refuses bad numbers in one line.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from runners import Runner

from course_lib import (
    JsonlSessionStore,
    MessageEntry,
    SessionEntryError,
    chapter_fixture,
    group_interactions,
    parse_session_entry,
    read_session_file,
    text_of,
    user_message,
)
from course_lib.base.errors import CourseError
from course_lib.base.wire import DEFAULT_LIMITS, JsonValueError
from course_lib.beyond.importers import (
    PiImportError,
    _pi_read,
    _pi_summary,
    import_pi_bytes,
    import_pi_session,
    import_pi_text,
)
from course_lib.beyond.importers._pi_summary import map_pi_summary
from course_lib.tools import inspect_session as inspect_module

# --- small builders -------------------------------------------------------------------


def iso(second: int) -> str:
    return f"2025-01-01T00:00:{second:02d}.000Z"


HEADER = {"type": "session", "id": "sess-1", "timestamp": iso(0), "cwd": "/w"}


def pi_text(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records)


def v1(message: dict[str, Any], second: int = 1) -> dict[str, Any]:
    return {"type": "message", "timestamp": iso(second), "message": message}


def user(text: str, ts: int = 1) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": ts}


def assistant(text: str, ts: int = 2) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "provider": "anthropic",
        "model": "m",
        "usage": {"input": 1, "output": 2, "totalTokens": 3},
        "stopReason": "stop",
        "timestamp": ts,
    }


def compaction(summary: str, first_kept_index: int = 1) -> dict[str, Any]:
    return {
        "type": "compaction",
        "timestamp": iso(3),
        "summary": summary,
        "firstKeptEntryIndex": first_kept_index,
        "tokensBefore": 10,
    }


def write_course_file(tmp_path: Path, entries: list[Any]) -> Path:
    store = JsonlSessionStore.open(tmp_path / "session.jsonl")
    for entry in entries:
        store.append(entry)
    return store.path


# --- 1. the summary parser is linear ---------------------------------------------------
#
# The patterns the parser used before, kept here to show that the string-method
# readers decide exactly as they did on every short input. The first one is the
# cubic one: "## a" + " " * 1200 + "b" took 2.6 seconds, so the 200,000-space
# heading below would have needed months.

OLD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
OLD_ITEM = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)(.*)$")
OLD_TAG = re.compile(r"^<(/?)(read-files|modified-files)>\s*$")
OLD_NONE = re.compile(r"^\(?\s*none\s*\)?\.?$", re.IGNORECASE)
OLD_PARENTHETICAL = re.compile(r"\s*\(.*\)\s*$")


def short_strings(alphabet: str, longest: int) -> Iterator[str]:
    """Every string over ``alphabet`` up to ``longest`` characters."""
    for size in range(longest + 1):
        for chars in itertools.product(alphabet, repeat=size):
            yield "".join(chars)


def old_heading(line: str) -> tuple[int, str] | None:
    found = OLD_HEADING.match(line)
    return (len(found.group(1)), found.group(2)) if found else None


def old_item(stripped: str) -> str | None:
    found = OLD_ITEM.match(stripped)
    return found.group(1).strip() if found else None


def old_tag(stripped: str) -> tuple[bool, str] | None:
    found = OLD_TAG.match(stripped)
    return (bool(found.group(1)), found.group(2)) if found else None


@pytest.mark.parametrize(
    ("new", "old", "alphabet", "longest"),
    [
        (_pi_summary._heading, old_heading, "# a\t", 7),
        (_pi_summary._item_text, old_item, "-*1.) [x]a", 5),
        (_pi_summary._is_none, lambda s: bool(OLD_NONE.match(s)), "( nOe).\n", 6),
        (_pi_summary._without_parenthetical, lambda s: OLD_PARENTHETICAL.sub("", s), "a (\t)", 7),
    ],
    ids=["heading", "item", "none", "parenthetical"],
)
def test_string_readers_decide_exactly_as_the_old_patterns(
    new: Callable[[str], Any], old: Callable[[str], Any], alphabet: str, longest: int
) -> None:
    differing = [s for s in short_strings(alphabet, longest) if new(s) != old(s)]
    assert differing == []


def test_file_tags_are_read_as_before() -> None:
    for line in ["<read-files>", "</modified-files>", "<read-files>  ", "<modified-files>x",
                 "<<read-files>", "</read-files", "<>", "<", "</>", "read-files"]:  # fmt: skip
        assert _pi_summary._file_tag(line.strip()) == old_tag(line.strip()), line


N = 200_000  # characters: the old parser needed hours or months on the first two shapes


@pytest.mark.parametrize(
    ("markdown", "field", "expected"),
    [
        ("## a" + " " * N + "b\n## Goal\nship it", "goal", "ship it"),
        ("## Goal\nx\n## Next steps " + "(" * N + "\n- go", "next", ["go"]),
        ("## Goal\nx\n## Next steps (" + " " * N + ")x)\n- go", "next", ["go"]),
        ("## Goal\nx\n## Done\n- " + " " * N + "first", "completed", ["first"]),
        ("## Goal\nx\n## Done\n- (" + " " * N + "nonex", "completed", ["(" + " " * N + "nonex"]),
        ("## Goal\nx\n## Next Steps\n" + "1" * N + "x", "next", ["1" * N + "x"]),
    ],
    ids=["padded heading", "brackets", "spaced parenthetical", "spaces after a marker",
         "almost none", "digits"],
)  # fmt: skip
def test_worst_case_summaries_parse_at_200k_characters(
    markdown: str, field: str, expected: Any
) -> None:
    assert map_pi_summary(markdown).summary[field] == expected


READERS = ("_heading", "_file_tag", "_item_text", "_is_none")


def characters_examined(markdown: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many characters the parser hands to its line readers while mapping ``markdown``."""
    total = 0

    def counting(reader: Callable[[str], Any]) -> Callable[[str], Any]:
        def counted(text: str) -> Any:
            nonlocal total
            total += len(text)
            return reader(text)

        return counted

    with monkeypatch.context() as patch:
        for name in READERS:
            patch.setattr(_pi_summary, name, counting(getattr(_pi_summary, name)))
        map_pi_summary(markdown)
    return total


def realistic_summary(sections: int) -> str:
    body = "## Goal\nShip the parser.\n## Progress\n### Done\n- [x] read it\n  more\n"
    return body + "".join(
        f"## Key Decisions {i}\n- keep **{i}**\n  because\n```\ncode {i}\n```\n(none)\n"
        for i in range(sections)
    )


@pytest.mark.parametrize(
    "make",
    [
        realistic_summary,
        lambda n: "## Goal\n- x\n" + "  more\n" * n,
        lambda n: "## a" + " " * (50 * n) + "b",
    ],
    ids=["realistic", "long item", "padded heading"],
)
def test_each_character_is_examined_a_fixed_number_of_times(
    make: Callable[[int], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The readers are string methods (no pattern can backtrack); they must also see each line
    a bounded number of times, so the work grows as the input: 8 times the text, 8 times the work.
    """
    assert not [v for v in vars(_pi_summary).values() if isinstance(v, re.Pattern)]
    small, large = make(500), make(4_000)
    small_work = characters_examined(small, monkeypatch)
    large_work = characters_examined(large, monkeypatch)
    assert small_work <= 3 * len(small) and large_work <= 3 * len(large)
    assert large_work / small_work == pytest.approx(len(large) / len(small), rel=0.05)


def test_a_long_item_is_kept_whole() -> None:
    markdown = "## Goal\nx\n## Done\n- first\n" + "  continued\n" * 50_000
    [item] = map_pi_summary(markdown).summary["completed"]
    assert item.count("\n") == 50_000 and item.startswith("first\n  continued")


# --- 2. a torn tail may stop inside a character ---------------------------------------


def chinese_file() -> bytes:
    return pi_text(HEADER, v1(user("你好，世界")), v1(assistant("检查一下编码"))).encode()


def test_a_tail_cut_at_any_byte_is_left_out_with_a_note() -> None:
    data = chinese_file()
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    for cut in range(len(data) + 1):
        part = data[:cut]
        committed = sum(end <= cut for end in ends)
        if committed == 0:
            with pytest.raises(PiImportError, match="no committed line"):
                import_pi_bytes(part)
            continue
        imported = import_pi_bytes(part)
        assert len(imported.entries) == committed, cut
        tail_notes = [n for n in imported.notes if n.kind == "unterminated_tail"]
        torn = cut not in ends
        assert [n.line for n in tail_notes] == ([committed + 1] if torn else []), cut
    assert text_of(import_pi_bytes(data).entries[1].message) == "你好，世界"


def test_a_file_cut_inside_a_character_imports_from_disk(tmp_path: Path) -> None:
    data = chinese_file()
    cut = data.index("检".encode()) + 1  # one byte into a three-byte character
    file = tmp_path / "torn.jsonl"
    file.write_bytes(data[:cut])
    imported = import_pi_session(file)
    assert [e.id for e in imported.entries] == ["L0001", "L0002"]
    assert [n.kind for n in imported.notes] == ["unterminated_tail"]


def test_a_bad_byte_in_a_committed_line_is_still_an_error() -> None:
    data = chinese_file()
    broken = data.replace("世".encode(), b"\xe4\xb8")  # a character missing its last byte
    with pytest.raises(PiImportError, match=r"^line 2: not valid UTF-8"):
        import_pi_bytes(broken)


# --- 3. deep nesting is an error naming the line, never a RecursionError ---------------


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [500, 100_000])
@pytest.mark.parametrize(
    "template",
    [
        '{{"type":"custom","timestamp":"{ts}","data":{deep}}}',
        '{{"type":"message","timestamp":"{ts}","message":{{"role":"user","content":{deep}}}}}',
        '{{"type":"compaction","timestamp":"{ts}","summary":{deep}}}',
    ],
    ids=["custom data", "message content", "summary"],
)
def test_a_deeply_nested_line_is_an_error_naming_it(template: str, depth: int) -> None:
    line = template.format(ts=iso(1), deep=nested(depth))
    with pytest.raises(PiImportError, match=r"^line 3: not valid JSON") as caught:
        import_pi_text(pi_text(HEADER, v1(user("hi"))) + line + "\n")
    assert isinstance(caught.value, CourseError)


@pytest.mark.parametrize(
    "refusal",
    [
        RecursionError("maximum recursion depth exceeded"),
        JsonValueError("a.b", "nested too deeply"),
        type("FutureLimitError", (JsonValueError,), {})("", "line too large"),
        ValueError("lone surrogate"),
    ],
    ids=["recursion", "json value", "a future subclass", "plain value error"],
)
def test_any_refusal_of_the_json_reader_names_the_line(
    refusal: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _pi_read.loads_strict

    def refusing(text: str, *limits: Any) -> Any:
        if '"refuse"' in text:
            raise refusal
        return real(text, *limits)

    monkeypatch.setattr(_pi_read, "loads_strict", refusing)
    text = pi_text(HEADER, v1(user("hi")), {"type": "custom", "timestamp": iso(1), "x": "refuse"})
    with pytest.raises(PiImportError, match=r"^line 3: not valid JSON"):
        import_pi_text(text)


def test_nesting_up_to_the_limit_imports_and_groups() -> None:
    deep: Any = "leaf"
    for _ in range(DEFAULT_LIMITS.max_depth - 5):  # the line adds five levels around it
        deep = [deep]
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"deep": deep}}
    result = {
        "role": "toolResult", "toolCallId": "c1", "toolName": "bash",
        "content": [{"type": "text", "text": "ok"}], "details": {"deep": deep},
        "isError": False, "timestamp": 3,
    }  # fmt: skip
    text = pi_text(
        HEADER,
        {"type": "custom", "timestamp": iso(1), "data": deep},
        v1(user("hi")),
        v1({**assistant("x"), "content": [call], "stopReason": "toolUse"}),
        v1(result),
    )
    path = import_pi_text(text).active_path()
    groups = group_interactions([entry for entry in path if isinstance(entry, MessageEntry)])
    assert [len(group.entries) for group in groups] == [3]
    assert groups[0].entries[2].message.details == {"deep": deep}


# --- 4. a bash run's fields must have the types pi writes ------------------------------


def bash(**fields: Any) -> dict[str, Any]:
    run = {"role": "bashExecution", "command": "ls", "output": "a\n", "exitCode": 0,
           "cancelled": False, "truncated": False, "timestamp": 1}  # fmt: skip
    run.update(fields)
    return {key: value for key, value in run.items() if value is not ...}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"command": ["ls", "-l"]}, r"^line 2: bashExecution message\.command must be a string, got \['ls', '-l'\]"),
        ({"command": ...}, r"^line 2: bashExecution message\.command must be a string, got None"),
        ({"output": {"stdout": "x"}}, r"^line 2: bashExecution message\.output must be a string"),
        ({"output": ["a", "b"]}, r"^line 2: bashExecution message\.output must be a string"),
        ({"fullOutputPath": 7}, r"^line 2: bashExecution message\.fullOutputPath must be a string"),
        ({"exitCode": "2"}, r"^line 2: bashExecution message\.exitCode must be a number, got '2'"),
        ({"exitCode": True}, r"^line 2: bashExecution message\.exitCode must be a number"),
        ({"cancelled": "yes"}, r"^line 2: bashExecution message\.cancelled must be true or false"),
        ({"excludeFromContext": "no"}, r"^line 2: bashExecution message\.excludeFromContext must be"),
    ],
)  # fmt: skip
def test_a_bash_run_with_a_field_of_the_wrong_type_is_an_error(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(PiImportError, match=message):
        import_pi_text(pi_text(HEADER, v1(bash(**fields))))


def test_a_huge_wrong_value_is_shown_short() -> None:
    with pytest.raises(PiImportError) as caught:
        import_pi_text(pi_text(HEADER, v1(bash(output=["x" * 1_000] * 1_000))))  # 1 MB
    assert len(str(caught.value)) < 300


def test_a_bash_run_without_the_optional_fields_is_sent_as_pi_words_it() -> None:
    text = pi_text(HEADER, v1(bash(output=..., exitCode=None, cancelled=..., truncated=...)))
    entry = import_pi_text(text).entries[1]
    assert text_of(entry.message) == "Ran `ls`\n(no output)"


# --- 5. inspect shows control characters, never obeys them -----------------------------

HOSTILE = "u\x1b]0;pwned\x07\nfake"


def test_escape_sequences_in_ids_reach_the_terminal_escaped(
    course_lab: Runner, tmp_path: Path
) -> None:
    entries = [
        MessageEntry(
            id=HOSTILE, parent_id=None, timestamp=1, message=user_message("hi", timestamp=1)
        )
    ]
    file = write_course_file(tmp_path, entries)
    status, out, _ = course_lab(str(file), "--max-tokens", "100")
    assert status == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "u\\x1b]0;pwned\\x07\\nfake" in out
    assert not any(line.startswith("fake") for line in out.splitlines())
    status, as_json, _ = course_lab(str(file), "--max-tokens", "100", "--format", "json")
    assert status == 0 and "\x1b" not in as_json
    assert json.loads(as_json)["kept"]["first"] == HOSTILE  # JSON keeps the real id


def hostile_pi_file(tmp_path: Path) -> Path:
    """A v3 file whose ids, entry type and text hold escape sequences, a newline and a C1 CSI."""
    odd_type = "x\x1b[31mred\x9b2J"
    records = [
        {**HEADER, "version": 3},
        {"type": "message", "id": HOSTILE, "parentId": None, "timestamp": iso(1),
         "message": user("hi \x1b]0;title\x07")},
        {"type": odd_type, "id": "t\x9bz", "parentId": HOSTILE, "timestamp": iso(2)},
    ]  # fmt: skip
    file = tmp_path / "hostile.jsonl"
    file.write_text(pi_text(*records), encoding="utf-8")
    return file


def test_a_hostile_pi_file_is_reported_with_every_control_escaped(
    course_lab: Runner, tmp_path: Path
) -> None:
    file = hostile_pi_file(tmp_path)
    status, out, err = course_lab(str(file))
    assert status == 0 and err == ""
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", out)
    assert "x\\x1b[31mred\\x9b2J" in out  # the entry type, in the counts and in its note
    assert "u\\x1b]0;pwned\\x07\\nfake" in out  # the id, in the note about its root
    report = json.loads(course_lab(str(file), "--format", "json")[1])
    assert report["leaf"] == "t\x9bz"
    raw_json = course_lab(str(file), "--format", "json")[1]
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", raw_json)


def test_error_lines_escape_what_they_repeat(course_lab: Runner, tmp_path: Path) -> None:
    file = hostile_pi_file(tmp_path)
    status, out, err = course_lab(str(file), "--leaf", "\x1b]0;pwned\x07\nnope")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "\x1b" not in err and "\x07" not in err
    missing = tmp_path / "\x1b[2Jgone.jsonl"
    status, _, err = course_lab(str(missing))
    assert status == 2 and err.count("\n") == 1 and "\x1b" not in err


def test_the_progress_bar_label_is_escaped() -> None:
    class Terminal:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> None:
            self.text += text

        def flush(self) -> None:
            pass

    stream = Terminal()
    bar = inspect_module.ProgressBar(stream, "reading \x1b[2Jx.jsonl")  # type: ignore[arg-type]
    bar(1, 2)
    assert "\x1b" not in stream.text and "\\x1b[2Jx.jsonl" in stream.text


# --- 6. wire dicts given to group_interactions -----------------------------------------


def test_wire_dicts_are_refused_naming_the_item() -> None:
    wire = {"id": "u1", "parentId": None, "timestamp": 1, "type": "message",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}],
                        "timestamp": 1}}  # fmt: skip
    entry = parse_session_entry(wire)
    with pytest.raises(SessionEntryError) as caught:
        group_interactions([entry, {**wire, "id": "u2"}])
    message = str(caught.value)
    assert message.startswith("session entry u2: item 1 of the path is a dict")
    assert "pass it through parse_session_entry first" in message
    with pytest.raises(SessionEntryError, match=r"session entry u3: .* a dict"):
        group_interactions(iter([entry, {**wire, "id": "u3"}]))  # type: ignore[arg-type]


# --- 7. inspect never changes, creates or waits on its input ---------------------------


def test_inspect_never_changes_or_creates_its_input(course_lab: Runner, tmp_path: Path) -> None:
    file = write_course_file(tmp_path, chapter_fixture())
    (tmp_path / "session.jsonl.lock").unlink(missing_ok=True)
    pi_file = hostile_pi_file(tmp_path)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (file, pi_file)}
    assert course_lab(str(file), "--max-tokens", "31")[0] == 0
    assert course_lab(str(pi_file))[0] == 0
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (file, pi_file)} == before
    missing = tmp_path / "folder" / "nothing-here.jsonl"
    status, out, err = course_lab(str(missing))
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "cannot read" in err and "nothing-here.jsonl" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile.jsonl", "session.jsonl"]


def test_a_fifo_or_a_folder_is_refused_without_waiting(course_lab: Runner, tmp_path: Path) -> None:
    targets = [tmp_path]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.jsonl")
        targets.append(tmp_path / "pipe.jsonl")
    for target in targets:
        status, out, err = course_lab(str(target))
        assert status == 2 and out == "" and err.count("\n") == 1
        assert "not a regular file" in err or "directory" in err.lower()


def test_a_course_file_with_a_tail_cut_inside_a_character_still_inspects(
    course_lab: Runner, tmp_path: Path
) -> None:
    file = write_course_file(tmp_path, chapter_fixture())
    torn = "检查".encode()[:-1]
    file.write_bytes(file.read_bytes() + b'{"id":"' + torn)
    status, out, _ = course_lab(str(file), "--max-tokens", "31")
    assert status == 0 and "unterminated_tail x1, first at line 11" in out


def test_a_pi_file_with_a_tail_cut_inside_a_character_still_inspects(
    course_lab: Runner, tmp_path: Path
) -> None:
    data = chinese_file()
    file = tmp_path / "torn.jsonl"
    file.write_bytes(data[: data.index("检".encode()) + 2])
    status, out, _ = course_lab(str(file))
    assert status == 0 and "unterminated_tail x1, first at line 3" in out


# --- 8. numbers on the command line and from estimators --------------------------------


@pytest.mark.parametrize(
    "value",
    ["1e400", "1" + "0" * 400, "1" + "0" * 5_000, "9007199254740992", "-1", "12.5", "abc", "٣",
     "inf", "nan", "", "0x10"],
)  # fmt: skip
@pytest.mark.parametrize("option", ["--max-tokens", "--reserved-output", "--safety-margin"])
def test_a_bad_number_is_one_short_error_line(
    course_lab: Runner, tmp_path: Path, option: str, value: str
) -> None:
    file = write_course_file(tmp_path, chapter_fixture())
    status, out, err = course_lab(str(file), f"{option}={value}")
    assert status == 2 and out == ""
    assert err.startswith(f"course-lab: error: {option} must be a whole number from 0 to 2**53 - 1")
    assert err.count("\n") == 1 and len(err) < 200


@pytest.mark.parametrize("value", ["0", "9007199254740991", "9_007_199_254_740_991", "200,000"])
def test_numbers_up_to_2_53_minus_1_are_accepted(value: str) -> None:
    assert inspect_module.token_count("--max-tokens", value) == int(
        value.replace("_", "").replace(",", "")
    )


@pytest.mark.parametrize("result", [float("inf"), 10**400, 1e308, -1])
def test_an_estimator_result_that_overflows_is_one_error_line(
    course_lab: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, result: float
) -> None:
    file = write_course_file(tmp_path, chapter_fixture())
    monkeypatch.setattr(inspect_module, "make_estimator", lambda name: lambda value: result)
    status, out, err = course_lab(str(file), "--max-tokens", "9007199254740991")
    assert status == 2 and out == ""
    assert err.startswith("course-lab: error: ") and err.count("\n") == 1 and len(err) < 300


def test_the_summary_parser_benchmark_measures_every_figure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # benchmarks/ is not an installed package, so load the module from its file
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "bench_summary_parser", root / "benchmarks" / "bench_summary_parser.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_summary_parser", bench)
    spec.loader.exec_module(bench)
    figures = bench.measure(repeats=1, size=200, old_size=5)
    assert [f.name for f in figures] == [*bench.SHAPES, "old heading pattern, padded heading"]
    assert all(math.isfinite(f.ratio) and f.ratio > 0 for f in figures)
    assert bench.render(figures).count("x  ") == len(figures)


# --- the importer never makes an entry the store cannot write and read back -------------


def line_depth(record: dict[str, Any]) -> int:
    from course_lib.base.wire import nesting_depth

    return nesting_depth(record)


def test_a_custom_entry_within_the_read_limits_that_would_nest_too_deep_is_refused() -> None:
    deep: Any = "leaf"
    for _ in range(DEFAULT_LIMITS.max_depth - 1):  # the pi line: exactly 64 levels
        deep = [deep]
    custom = {"type": "custom", "timestamp": iso(1), "data": deep}
    assert line_depth(custom) == DEFAULT_LIMITS.max_depth  # readable as pi wrote it
    with pytest.raises(PiImportError, match=r"^line 2: .*64") as caught:
        import_pi_text(pi_text(HEADER, custom))
    assert "session entry L0002" in str(caught.value) or "entry L0002" in str(caught.value)


def grown_line(limit: int) -> tuple[str, int]:
    """A pi file whose line 2 is exactly ``limit`` characters, and the course line it becomes."""
    from course_lib.base.wire import JsonLimits, dumps_line

    record = v1(user(""))
    base = len(json.dumps(record, separators=(",", ":"), ensure_ascii=False))
    record = v1(user("x" * (limit - base)))
    text = pi_text(HEADER, record)
    assert len(text.split("\n")[1]) == limit
    roomy = JsonLimits(max_line_chars=2 * limit)
    entry = import_pi_text(text, limits=roomy).entries[1]
    return text, len(dumps_line(entry.to_wire())) - 1


def test_a_line_within_the_limit_that_grows_past_it_is_refused_naming_its_line() -> None:
    from course_lib.base.wire import JsonLimits

    text, course_chars = grown_line(2_000)
    assert course_chars > 2_000  # the course's line is longer than pi's
    with pytest.raises(PiImportError, match=r"^line 2: entry L0002: .*characters long"):
        import_pi_text(text, limits=JsonLimits(max_line_chars=2_000))
    assert import_pi_text(text, limits=JsonLimits(max_line_chars=course_chars)).entries


def test_the_16_mib_line_that_used_to_grow_past_the_limit_is_refused(tmp_path: Path) -> None:
    text, course_chars = grown_line(DEFAULT_LIMITS.max_line_chars - 5)
    assert course_chars > DEFAULT_LIMITS.max_line_chars
    with pytest.raises(PiImportError, match=r"^line 2: entry L0002: .*characters long"):
        import_pi_text(text)


def test_what_the_importer_returns_the_store_writes_and_reads_back(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parents[1] / "data" / "pi"
    for source in sorted(sample.glob("*.jsonl")):
        try:
            imported = import_pi_session(source)
        except PiImportError:
            continue  # the broken samples: refused, as their own tests say
        file = tmp_path / f"{source.stem}.course.jsonl"
        store = JsonlSessionStore.open(file)
        for entry in imported.entries:
            store.append(entry)
        wires = [entry.to_wire() for entry in imported.entries]
        assert [entry.to_wire() for entry in JsonlSessionStore.open(file).entries()] == wires
        assert [entry.to_wire() for entry in read_session_file(file).entries] == wires


# --- numbers too large for a float ----------------------------------------------------


def test_a_tokens_before_of_400_digits_is_an_error_naming_its_line() -> None:
    record = {**compaction("## Goal\nkeep going"), "tokensBefore": 10**400}
    text = pi_text(HEADER, v1(user("hi")), record)
    with pytest.raises(PiImportError, match=r"^line 3: compaction\.tokensBefore must be a number "
                       r"from 0 to 2\*\*53 - 1, got an integer of 401 digits"):  # fmt: skip
        import_pi_text(text)
    for huge in (-(10**400), 2**53, -1, -0.5):
        with pytest.raises(PiImportError, match=r"^line 3: compaction\.tokensBefore"):
            import_pi_text(pi_text(HEADER, v1(user("hi")), {**record, "tokensBefore": huge}))


def test_inspect_names_a_huge_tokens_before_instead_of_a_traceback(
    tmp_path: Path, course_lab: Runner
) -> None:
    record = {**compaction("## Goal\nkeep going"), "tokensBefore": 10**400}
    file = tmp_path / "huge.jsonl"
    file.write_text(pi_text(HEADER, v1(user("hi")), record), encoding="utf-8")
    status, out, err = course_lab(str(file))
    assert status == 2
    assert out == ""
    assert err.startswith("course-lab: error: line 3: compaction.tokensBefore")
    assert "Traceback" not in err


def test_inspect_turns_any_overflow_into_a_clear_error(
    tmp_path: Path, course_lab: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = write_course_file(tmp_path, [MessageEntry(id="u1", parent_id=None, timestamp=1,
                                                     message=user_message("hi", timestamp=1))])  # fmt: skip

    def overflowing(*args: Any, **kwargs: Any) -> Any:
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(inspect_module, "plan_for", overflowing)
    status, _, err = course_lab(str(file))
    assert status == 2
    assert err.startswith("course-lab: error: ")
    assert "too large to compute with" in err and "Traceback" not in err
