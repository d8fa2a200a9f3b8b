"""``course_lib.judge.codec``: what crosses the call channel reads back as what was sent.

Why: every lab check judges a student's rules through this codec, so a value
that changed on the way (a field set gained or lost, a tuple turned list, an
object the judge sent coming back as a copy) would fail a correct rule or pass
a wrong one. The tests also pin what must *not* cross as itself: a value of
no course type (never equal to anything), an ``int`` whose ``__eq__`` lies, a
callable the judge tries to send, and every malformed form.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import course_lib
from course_lib.chapter.models import MessageEntry
from course_lib.judge.codec import (
    MAX_DEPTH,
    ChannelError,
    Codec,
    OtherValue,
    adopt,
    given_types,
)

TYPES = given_types()


def across(value: object) -> Any:
    """``value`` encoded by one codec, through JSON text, and read by a fresh one."""
    return Codec(TYPES).decode(json.loads(json.dumps(Codec(TYPES).encode(value))))


def nested_lists(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


# --- the course's values ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "make_path",
    [
        course_lib.chapter_fixture,
        course_lib.chapter_fixture_after_compaction,
        lambda: course_lib.chapter_fixture("zh"),
    ],
    ids=["fixture", "after-compaction", "fixture-zh"],
)
def test_a_chapter_path_reads_back_with_the_same_wire_and_fields_set(
    make_path: Callable[[], list[Any]],
) -> None:
    path = make_path()
    back = across(path)
    assert back == path
    assert [type(entry) for entry in back] == [type(entry) for entry in path]
    assert [entry.to_wire() for entry in back] == [entry.to_wire() for entry in path]
    assert [entry.model_fields_set for entry in back] == [entry.model_fields_set for entry in path]
    messages = [
        (entry.message, sent.message)
        for entry, sent in zip(back, path, strict=True)
        if isinstance(entry, MessageEntry)
    ]
    assert messages
    assert all(got.model_fields_set == want.model_fields_set for got, want in messages)


def test_the_named_estimator_crosses_as_itself() -> None:
    estimator = course_lib.NamedEstimator("nan_for_text", text_prefix="Run")
    back = across(estimator)
    assert type(back) is course_lib.NamedEstimator
    assert back == estimator


# --- plain values -----------------------------------------------------------------------------


def test_nan_and_infinities_cross_as_floats() -> None:
    back = across([math.nan, math.inf, -math.inf, -0.0])
    assert math.isnan(back[0])
    assert back[1:3] == [math.inf, -math.inf]
    assert math.copysign(1.0, back[3]) == -1.0


def test_tuples_stay_tuples_at_every_depth() -> None:
    value = (1, (2, 3), [4, (5,)], ())
    back = across(value)
    assert back == value
    assert type(back) is tuple and type(back[1]) is tuple and type(back[3]) is tuple
    assert type(back[2]) is list and type(back[2][1]) is tuple


def test_dict_keys_that_are_no_strings_keep_their_types() -> None:
    value = {1: "one", 2.5: "float", None: "none", (1, "a"): "tuple", "s": {3: [4]}}
    back = across(value)
    assert back == value
    assert [type(key) for key in back] == [type(key) for key in value]


JSON_LEAVES = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
)
JSON_LIKE = st.recursive(
    JSON_LEAVES,
    lambda children: (
        st.lists(children, max_size=4)
        | st.lists(children, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=4) | st.integers(), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(JSON_LIKE)
def test_any_json_like_value_reads_back_equal_and_of_the_same_types(value: Any) -> None:
    back = across(value)
    assert back == value
    assert repr(back) == repr(value)  # tells True from 1, 1 from 1.0, a tuple from a list


def test_an_int_whose_eq_always_says_yes_is_sent_as_its_plain_value() -> None:
    class Agreeable(int):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = int.__hash__

    encoded = Codec(TYPES).encode([Agreeable(3)])
    assert encoded == ["list", 0, [3]]
    assert type(encoded[2][0]) is int
    back = across(Agreeable(3))
    assert type(back) is int and back == 3 and back != 4


def test_a_value_of_no_course_type_is_an_other_value_equal_to_nothing_else() -> None:
    class Stranger:
        def __eq__(self, other: object) -> bool:
            return True

        def __repr__(self) -> str:
            return "<stranger 7>"

    back = across(Stranger())
    assert isinstance(back, OtherValue)
    assert back.type_name == "Stranger"
    assert repr(back) == "<stranger 7>"
    assert back == back  # itself only
    assert back != OtherValue("Stranger", "<stranger 7>")
    assert back != "<stranger 7>"
    assert back != []
    assert back != None  # noqa: E711 (the comparison is the point)


def test_a_strict_codec_refuses_a_lambda_and_names_the_estimators_that_cross() -> None:
    with pytest.raises(ChannelError, match="NamedEstimator"):
        Codec(TYPES, strict=True).encode(([], {"estimate_tokens": lambda value: 1}))


# --- shared objects ---------------------------------------------------------------------------


def test_an_argument_handed_back_is_the_judges_own_object() -> None:
    judge, server = Codec(TYPES), Codec(TYPES)
    path = course_lib.chapter_fixture()
    options = {"limit": [1, 2]}
    args, kwargs = server.decode(judge.encode(((path,), options)))
    their_path = args[0]
    assert their_path is not path and their_path == path

    answer = judge.decode(
        server.encode({"entry": their_path[3], "path": their_path, "limit": kwargs["limit"]})
    )
    assert answer["entry"] is path[3]
    assert answer["path"] is path
    assert answer["limit"] is options["limit"]


def test_a_new_value_in_an_answer_is_a_copy_not_an_argument() -> None:
    judge, server = Codec(TYPES), Codec(TYPES)
    path = course_lib.chapter_fixture()
    (their_path,), _ = server.decode(judge.encode(((path,), {})))
    answer = judge.decode(server.encode([their_path[3].model_copy(deep=True)]))
    assert answer[0] == path[3]
    assert answer[0] is not path[3]


def test_an_object_sent_twice_reads_back_as_one_object() -> None:
    shared = [1, 2]
    back = across({"a": shared, "b": (shared, shared)})
    assert back["a"] is back["b"][0] is back["b"][1]


def test_a_list_or_dict_inside_a_model_handed_back_is_the_judges_own() -> None:
    """A shallow ``model_copy`` of an argument's message shares its ``content`` list.

    Every container the judge sent must come back as the judge's own when the
    rules hand it back, those held in a model's fields included: the copy
    checks ("shares nothing with the path") change what a rule returned and
    look at the path. (The models inside those containers do come back as
    the judge's own; only the list or dict holding them is lost.)
    """
    judge, server = Codec(TYPES), Codec(TYPES)
    entry = next(e for e in course_lib.chapter_fixture() if e.id == "calls")
    (their_entry,), _ = server.decode(judge.encode(((entry,), {})))
    shallow = their_entry.message.model_copy()
    call = their_entry.message.content[0]
    assert shallow.content is their_entry.message.content  # shared on the server's side
    answer = judge.decode(server.encode([shallow, call, call.arguments]))
    assert answer[1] is entry.message.content[0]
    assert answer[0].content is entry.message.content
    assert answer[2] is entry.message.content[0].arguments


# --- malformed forms --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        ["list", 5, []],
        ["ref", 99],
        ["ref", "0"],
        ["model", 0, "NoSuchType", []],
        ["model", 0, "MessageEntry", [["id", 3]]],
        ["data", 0, "MessageEntry", []],
        ["model", 0, "Budget", [["max_tokens", 1]]],
        ["dict", 0, [[["list", 1, []], 1]]],
        ["dict", 0, [["only a key"]]],
        ["other", "Thing"],
        ["frobnicate", 0, []],
        [],
        [3, 4],
        {"list": []},
    ],
    ids=[
        "out-of-order",
        "ref-never-sent",
        "ref-not-int",
        "unknown-type",
        "invalid-model",
        "model-as-data",
        "dataclass-as-model",
        "unhashable-key",
        "not-a-pair",
        "short-other",
        "unknown-head",
        "empty",
        "no-head",
        "not-a-list",
    ],
)
def test_a_malformed_form_is_a_channel_error(data: Any) -> None:
    with pytest.raises(ChannelError):
        Codec(TYPES).decode(data)


def test_a_value_nested_deeper_than_the_limit_is_refused_both_ways() -> None:
    deep = nested_lists(MAX_DEPTH + 5)
    with pytest.raises(ChannelError, match="deeper"):
        Codec(TYPES).encode(deep)
    form: Any = ["list", MAX_DEPTH + 4, []]
    for number in reversed(range(MAX_DEPTH + 4)):
        form = ["list", number, [form]]
    with pytest.raises(ChannelError, match="deeper"):
        Codec(TYPES).decode(form)


def test_a_value_just_within_the_depth_limit_crosses() -> None:
    value = nested_lists(MAX_DEPTH)
    assert across(value) == value


# --- adopt ------------------------------------------------------------------------------------


def test_adopt_makes_the_judges_list_hold_the_new_items() -> None:
    target = [1, 2, 3]
    adopt(target, [1, 2])
    assert target == [1, 2]


def test_adopt_makes_the_judges_dict_hold_the_new_items() -> None:
    target: dict[str, int] = {"a": 1, "b": 2}
    adopt(target, {"c": 3})
    assert target == {"c": 3}


def test_adopt_makes_the_judges_model_hold_the_new_fields() -> None:
    target, after = course_lib.chapter_fixture()[1:3]
    assert target != after
    adopt(target, after)
    assert target.to_wire() == after.to_wire()


def test_adopt_leaves_a_target_of_another_type_alone() -> None:
    target = [1, 2]
    adopt(target, (3,))
    assert target == [1, 2]
