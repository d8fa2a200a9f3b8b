"""Reading a JSONL line fast must give exactly what the careful path gives: the entry or the error.

``parse_entry_line`` validates most lines straight from their text; these
tests hold it to ``parse_session_entry(loads_strict(line))`` on every valid
entry hypothesis can make, on each kind of line the fast parser alone would
misjudge, and on white space and escapes that change how keys are counted.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from entry_strategies import valid_entries
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import CourseError, SessionEntryError, chapter_fixture_after_compaction
from course_lib.base import wire
from course_lib.base.wire import (
    _ESCAPED_SURROGATE,
    DEFAULT_LIMITS,
    JsonLimits,
    JsonValueError,
    _careful_loads,
    _reject_lone_surrogates,
    check_line_limits,
    dumps_line,
    loads_fast,
    loads_strict,
    nesting_depth,
)
from course_lib.chapter.entries import parse_session_entry
from course_lib.chapter.sessions import parse_entry_line

# JSON values whose strings are full of quotes and backslashes, the characters counted.
JSON_TREES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\\\ :{}[],', max_size=12),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(alphabet='k"\\\\', max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


def careful(line: str) -> Any:
    """The reference: the strict JSON reader, then the one parser every entry crosses."""
    return parse_session_entry(loads_strict(line))


def outcome(read: Any, line: str) -> tuple[str, Any]:
    """The entry read, or the problem the error states (without the entry label)."""
    try:
        return ("entry", read(line))
    except (CourseError, ValueError) as error:
        return ("error", str(error).removeprefix("session entry (no id): "))


@settings(max_examples=300, deadline=None)
@given(valid_entries())
def test_every_valid_line_reads_the_same_fast(wire: dict[str, Any]) -> None:
    line = dumps_line(parse_session_entry(wire).to_wire()).rstrip("\n")
    assert parse_entry_line(line) == careful(line)
    spaced = json.dumps(json.loads(line), ensure_ascii=False, indent=None)  # ", " and ": "
    assert parse_entry_line(spaced) == careful(spaced)


@settings(max_examples=200, deadline=None)
@given(valid_entries(), st.data())
def test_a_key_given_twice_is_refused_wherever_it_is(
    wire: dict[str, Any], data: st.DataObject
) -> None:
    line = dumps_line(parse_session_entry(wire).to_wire()).rstrip("\n")
    keys = [index for index in range(len(line)) if line.startswith('":', index)]
    # Repeat one key-value pair right after itself: `"k":v` becomes `"k":v,"k":v`.
    value = json.loads(line)
    objects = _objects_with_keys(value)
    if not objects:
        return
    target = data.draw(st.sampled_from(objects))
    key = data.draw(st.sampled_from(sorted(target)))
    doubled = _with_duplicate(value, target, key)
    assert keys  # the line has keys at all
    fast = outcome(parse_entry_line, doubled)
    assert fast == outcome(careful, doubled)
    assert fast[0] == "error" and "duplicate key" in fast[1]


def _objects_with_keys(value: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            if item:
                found.append(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return found


def _with_duplicate(value: Any, target: dict[str, Any], key: str) -> str:
    """Serialise ``value`` with ``key`` written twice inside ``target``."""
    marker = "\u0000duplicate\u0000"
    target[marker] = None
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    pair = json.dumps({key: target[key]}, separators=(",", ":"), ensure_ascii=False)[1:-1]
    return text.replace(json.dumps(marker, ensure_ascii=False) + ":null", pair)


FIXTURE_LINES = [
    dumps_line(entry.to_wire()).rstrip("\n") for entry in chapter_fixture_after_compaction()
]


@pytest.mark.parametrize(
    ("case", "edit"),
    [
        ("NaN inside arguments", lambda line: line.replace('"path":"context.ts"', '"path":NaN')),
        (
            "1e400 inside arguments",
            lambda line: line.replace('"path":"context.ts"', '"path":1e400'),
        ),
        (
            "an unsafe integer inside arguments",
            lambda line: line.replace('"path":"context.ts"', '"path":9007199254740993'),
        ),
        (
            "an integral float beyond 2**53 inside arguments",
            lambda line: line.replace('"path":"context.ts"', '"path":1e20'),
        ),
        (
            "a 25-digit timestamp",
            lambda line: line.replace('"timestamp":7', '"timestamp":1000000000000000000000000', 1),
        ),
        ("a lone surrogate", lambda line: line.replace("context.ts", "context\\ud800.ts")),
        (
            "a key written twice",
            lambda line: line.replace('{"path":"context.ts"}', '{"path":"a","path":"b"}'),
        ),
        ("an escaped quote before a colon", lambda line: line.replace('"context.ts"', '"a\\":b"')),
        ("white space before a colon", lambda line: line.replace('"path":', '"path" :')),
        ("a string that starts with a colon", lambda line: line.replace('"context.ts"', '":x"')),
        (
            "a key written twice beside escaped quotes",
            lambda line: line.replace(
                '{"path":"context.ts"}', '{"path":"a\\"b","path":"c\\\\\\"d"}'
            ),
        ),
        (
            "arguments nested up to the depth limit",
            lambda line: line.replace('{"path":"context.ts"}', "[" * 60 + "]" * 60),
        ),
        (
            "arguments nested one level too deep",
            lambda line: line.replace('{"path":"context.ts"}', "[" * 61 + "]" * 61),
        ),
    ],
)
def test_lines_the_fast_parser_alone_would_misjudge(case: str, edit: Any) -> None:
    calls = next(line for line in FIXTURE_LINES if '"id":"calls"' in line)
    line = edit(calls)
    assert line != calls, case
    assert outcome(parse_entry_line, line) == outcome(careful, line), case


def test_errors_read_the_same_on_both_paths() -> None:
    calls = next(line for line in FIXTURE_LINES if '"id":"calls"' in line)
    bad = calls.replace('"timestamp":7', '"timestamp":"7"', 1)
    with pytest.raises(SessionEntryError) as fast:
        parse_entry_line(bad)
    with pytest.raises(SessionEntryError) as slow:
        careful(bad)
    assert (
        str(fast.value)
        == str(slow.value)
        == "session entry calls: timestamp: must be a finite number, not str"
    )


def test_a_compaction_always_crosses_the_lab_11_1_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    import course_lib.chapter.entries as entries

    seen: list[str] = []
    original = entries.parse_compaction
    monkeypatch.setattr(
        entries,
        "parse_compaction",
        lambda value, label: seen.append(label) or original(value, label),
    )
    compaction = next(line for line in FIXTURE_LINES if '"type":"compaction"' in line)
    parse_entry_line(compaction)
    assert seen == ["session entry compact-1"]


def test_plain_lines_never_need_the_careful_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The no-copy path is taken, not merely tried: with the copying check gone, plain lines read."""
    import course_lib.base.validation as validation

    expected = {line: careful(line) for line in FIXTURE_LINES}

    def no_copy(value: Any, *args: Any) -> Any:
        raise AssertionError(f"careful path taken for {str(value)[:60]}")

    monkeypatch.setattr(validation, "copy_json_value", no_copy)
    for line in FIXTURE_LINES:
        assert parse_entry_line(line) == expected[line]


@pytest.mark.parametrize(
    "limits",
    [JsonLimits(max_containers=3), JsonLimits(max_depth=3), JsonLimits(max_depth=5)],
    ids=["3 containers", "depth 3", "depth 5"],
)
def test_custom_limits_hold_on_the_fast_path(limits: JsonLimits) -> None:
    calls = next(line for line in FIXTURE_LINES if '"id":"calls"' in line)
    fast = outcome(lambda text: parse_entry_line(text, limits), calls)
    assert fast == outcome(lambda text: parse_session_entry(loads_strict(text, limits)), calls)
    assert fast[0] == ("entry" if limits.max_depth == 5 else "error")


def metadata_with(text: str) -> dict[str, Any]:
    return {
        "id": "m",
        "parentId": None,
        "timestamp": 1,
        "type": "metadata",
        "key": "k",
        "value": text,
    }


# --- the two JSON readers: jiter first, json when jiter refuses ----------------------

# JSON-ish text: valid objects, and the near misses each reader must judge alike.
JSON_TEXT = st.one_of(
    JSON_TREES.map(lambda value: json.dumps(value, ensure_ascii=False)),
    JSON_TREES.map(json.dumps),  # \\u escapes
    st.text(alphabet='{}[]:,"\\ab01.e-+ \tnulrsNIf\ud800\udc00\ufeff\x00', max_size=24),
    st.sampled_from(
        [
            '{"a":1,"a":2}',
            '{"a":NaN}',
            '{"a":Infinity}',
            '{"a":-Infinity}',
            '{"a":1e400}',
            '{"a":"\\ud800"}',
            '{"a":"\\udc00\\ud800"}',
            '{"a":"\\ud83d\\ude00"}',
            '\ufeff{"a":1}',
            '{"a":"x\ty"}',
            '{"a":12345678901234567890}',
            '{"a":-0}',
            '{"a":-0.0}',
            '{"a":2.2250738585072014e-308}',
            '{"a":1}\x00',
            '\x0c{"a":1}',
            '{"a":"\u2028"}',
        ]
    ),
)


def careful_json(text: str) -> tuple[str, Any]:
    """What the ``json`` module alone reads, with the course's refusals (the old reader)."""
    try:
        value = _careful_loads(text)
        if _ESCAPED_SURROGATE.search(text):
            _reject_lone_surrogates(value, "")
    except ValueError:
        return ("refused", None)
    return ("read", value)


def same_json(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down (so 1 is not 1.0 and -0.0 keeps its sign)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return repr(a) == repr(b)
    return bool(a == b)


@settings(max_examples=1000, deadline=None)
@given(JSON_TEXT)
def test_loads_strict_reads_what_the_json_module_reads(text: str) -> None:
    expected = careful_json(text)
    try:
        got = ("read", loads_strict(text))
    except ValueError:
        got = ("refused", None)
    assert got[0] == expected[0], text
    assert same_json(got[1], expected[1]), text


@settings(max_examples=1000, deadline=None)
@given(JSON_TEXT)
def test_loads_fast_reads_as_loads_strict_or_leaves_the_line_to_it(text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    try:
        fast = loads_fast(data)
    except ValueError:
        return  # left to loads_strict, which names the problem
    expected = careful_json(text)
    assert expected[0] == "read", text
    assert same_json(fast, expected[1]), text


@pytest.mark.parametrize(
    "line",
    ['{"a":"\\ud800"}', '{"a":1,"a":2}', '{"a":NaN}', b'{"a":"\xff"}', "[" * 70 + "]" * 70],
    ids=["lone surrogate", "key twice", "NaN", "not UTF-8", "too deep"],
)
def test_loads_fast_leaves_every_refusal_to_loads_strict(line: str | bytes) -> None:
    with pytest.raises(ValueError):
        loads_fast(line.encode() if isinstance(line, str) else line)


# --- depth: measured on the parsed value, in the text scan's words -----------------


@settings(max_examples=300, deadline=None)
@given(JSON_TREES)
def test_nesting_depth_is_the_depth_the_text_scan_counts(value: Any) -> None:
    text = json.dumps(value)
    depth = nesting_depth(value)
    check_line_limits(text, JsonLimits(max_depth=depth))  # deep enough: passes
    if depth:
        with pytest.raises(JsonValueError, match=rf"^nested {depth} levels deep"):
            check_line_limits(text, JsonLimits(max_depth=depth - 1))


@pytest.mark.parametrize("pairs", [33, 2_500, 49_999])
def test_brackets_inside_strings_never_send_a_line_the_careful_way(
    pairs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = json.dumps({"type": "message", "code": "if (a[0]) {" * pairs})
    brackets = text.count("{") + text.count("[")
    assert DEFAULT_LIMITS.max_depth < brackets <= DEFAULT_LIMITS.max_containers
    expected = careful_json(text)[1]

    def no_text_scan(text: str, limits: Any = None) -> None:
        raise AssertionError("the line's text was scanned")

    monkeypatch.setattr(wire, "check_line_limits", no_text_scan)
    assert same_json(loads_fast(text.encode()), expected)
    assert same_json(loads_strict(text), expected)


@pytest.mark.parametrize("depth", [65, 199, 201, 300, 5_000])
def test_a_line_nested_too_deep_is_refused_in_the_same_words_on_both_paths(depth: int) -> None:
    text = '{"a":' + "[" * (depth - 1) + "]" * (depth - 1) + "}"
    with pytest.raises(ValueError):
        loads_fast(text.encode())
    with pytest.raises(JsonValueError, match=rf"^nested {depth} levels deep \(the limit is 64\)$"):
        loads_strict(text)
    with pytest.raises(JsonValueError, match=rf"^nested {depth} levels deep"):
        check_line_limits(text)


def test_nesting_up_to_the_limit_is_read_on_the_fast_path() -> None:
    depth = DEFAULT_LIMITS.max_depth
    value = json.loads("[" * (depth - 1) + "]" * (depth - 1))
    text = json.dumps({"a": value, "b": "[" * 100})  # 64 deep, with 164 brackets
    assert nesting_depth(json.loads(text)) == depth
    assert same_json(loads_fast(text.encode()), json.loads(text))
    assert same_json(loads_strict(text), json.loads(text))
