"""``course_lib.judge.remote``: rules judged in a process of their own, answers read as plain data.

Why: every lab check (``impl``), ``course-lab check`` and the grader call a
student's rules through ``RemotePackage``. What must hold: the reference's
answers come back exactly; an error comes back as the judge's own class with
its message; a hang ends the run (``Timeout``, at once for every later call);
a crash fails one call and the next starts a new process; a package that
cannot start, or that writes on the judge's channel, is a ``RuleServerError``;
and what a rule does to the judge's objects (changing its input, handing back
an argument, answering with a lying ``list``) is seen exactly as the rule did
it, so the copy checks and the equality checks cannot be fooled.

The practice packages are built as ``course-lab practice 11 DIR`` writes them
(``write_practice_package``), solved, with a few rules replaced in their
``__init__`` (the rule modules stay the reference's, so the rules that call
each other are unaffected).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import course_lib
from course_lib.chapter.labs import LabNotImplemented
from course_lib.chapter.models import MessageEntry
from course_lib.judge.codec import OtherValue
from course_lib.judge.remote import (
    RemotePackage,
    RulesCrashed,
    RuleServerError,
    Timeout,
    local_launcher,
)
from course_lib.track.catalogue import LAB_TOPICS
from course_lib.track.starters import chapter_exports, write_practice_package

RULES = [name for names in chapter_exports().values() for name in names]
BUDGET: dict[str, Any] = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
KEPT_AT_31 = ["u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]

ODD_RULES = """
import os as _os

from .ledger import budget_ledger as _budget_ledger


def group_interactions(entries):  # changes its input
    entries.pop()
    return []


def message_allowances(path, *args, **kwargs):  # hands back the input's own objects
    return (path[3], path[3].message)


class _AlwaysEqual(list):
    def __eq__(self, other):
        return True

    __hash__ = None


def budget_ledger(*args, **kwargs):  # the right rows, in a list that equals anything
    return _AlwaysEqual(_budget_ledger(*args, **kwargs))


def render_summary(*args, **kwargs):  # the process ends in the middle of the call
    _os._exit(3)


def plan_budget(*args, **kwargs):  # never answers
    while True:
        pass


def summary_message(entry):  # a shallow copy: its content list is the input's own
    return entry.message.model_copy()
"""

WRITES_ON_EVERY_FD = """
import os as _os

for _fd in range(3, 64):
    try:
        _os.write(_fd, b"not a frame!!!")  # 14 bytes
    except OSError:
        pass
"""


def practice_package(directory: Path, *, solved: bool = True, appended: str = "") -> Path:
    """A practice package as ``course-lab practice 11`` writes it, with ``appended`` in its
    ``__init__`` (after the rule imports, so a name defined there replaces that rule)."""
    write_practice_package(directory, solved=list(LAB_TOPICS) if solved else [])
    with (directory / "__init__.py").open("a", encoding="utf-8") as handle:
        handle.write("\n" + appended + "\n")
    return directory


def by_id(path: list[Any]) -> dict[str, Any]:
    return {entry.id: entry for entry in path}


@pytest.fixture(scope="module")
def reference() -> Iterator[RemotePackage]:
    """The reference's rules, judged through the channel (the project's own tests' way)."""
    with RemotePackage(local_launcher(None, RULES), RULES) as remote:
        yield remote


@pytest.fixture(scope="module")
def odd_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return practice_package(tmp_path_factory.mktemp("odd") / "practice", appended=ODD_RULES)


@pytest.fixture(scope="module")
def odd(odd_folder: Path) -> Iterator[RemotePackage]:
    """A solved package whose ``ODD_RULES`` misbehave (the others are the reference's)."""
    with RemotePackage(local_launcher(odd_folder, RULES), RULES) as remote:
        yield remote


# --- the reference, through the channel -------------------------------------------------------


def test_the_reference_keeps_the_chapters_groups(reference: RemotePackage) -> None:
    path = course_lib.chapter_fixture()
    result = reference.build_context(path, **BUDGET, estimate_tokens=course_lib.fixture_estimator())
    assert type(result) is course_lib.BuildContextResult
    assert result.kept_entry_ids == KEPT_AT_31
    assert result.reason == "trimmed"
    assert (result.tokens.messages, result.tokens.total) == (22, 31)
    local = course_lib.build_context(
        course_lib.chapter_fixture(), **BUDGET, estimate_tokens=course_lib.fixture_estimator()
    )
    assert result == local


def test_the_reference_answer_shares_nothing_with_the_path(reference: RemotePackage) -> None:
    path = course_lib.chapter_fixture()
    groups = reference.group_interactions(path)
    assert [group.entry_ids for group in groups] == [
        ["u1", "a1"],
        ["u2", "a2"],
        ["u3", "calls", "r-test", "r-read", "a3"],
    ]
    returned = [entry for group in groups for entry in group.entries]
    assert all(entry is not by_id(path)[entry.id] for entry in returned)
    assert path == course_lib.chapter_fixture()


def test_a_budget_error_comes_back_as_the_judges_class_with_its_message(
    reference: RemotePackage,
) -> None:
    estimator = course_lib.fixture_estimator()
    with pytest.raises(course_lib.BudgetError) as expected:
        course_lib.build_context(
            course_lib.chapter_fixture(), max_tokens=-1, estimate_tokens=estimator
        )
    with pytest.raises(course_lib.BudgetError) as raised:
        reference.build_context(
            course_lib.chapter_fixture(), max_tokens=-1, estimate_tokens=estimator
        )
    assert type(raised.value) is course_lib.BudgetError
    assert str(raised.value) == str(expected.value)


def test_a_name_that_is_no_rule_is_course_libs_own(reference: RemotePackage) -> None:
    assert reference.MessageEntry is MessageEntry
    assert reference.chapter_fixture is course_lib.chapter_fixture
    with pytest.raises(AttributeError):
        _ = reference.no_such_name


# --- a fresh starter --------------------------------------------------------------------------


def test_an_unwritten_lab_raises_the_judges_lab_not_implemented(tmp_path: Path) -> None:
    starter = practice_package(tmp_path / "starter", solved=False)
    with (
        RemotePackage(local_launcher(starter, RULES), RULES) as remote,
        pytest.raises(LabNotImplemented) as raised,
    ):
        remote.group_interactions(course_lib.chapter_fixture())
    assert type(raised.value) is LabNotImplemented
    assert "11.2" in str(raised.value)
    assert "not implemented yet" in str(raised.value)


# --- what a rule does to the judge's objects --------------------------------------------------


def test_a_rule_that_changes_its_input_changes_the_judges_list(odd: RemotePackage) -> None:
    path = course_lib.chapter_fixture()
    before = list(path)
    assert odd.group_interactions(path) == []
    assert path == before[:-1]


def test_a_rule_that_hands_back_an_argument_gives_the_judge_its_own_object(
    odd: RemotePackage,
) -> None:
    path = course_lib.chapter_fixture()
    entry, message = odd.message_allowances(path)
    assert entry is path[3]
    assert message is path[3].message


def test_a_list_that_equals_anything_is_read_as_an_other_value(odd: RemotePackage) -> None:
    estimator = course_lib.fixture_estimator()
    right = course_lib.budget_ledger(
        course_lib.chapter_fixture(), **BUDGET, estimate_tokens=estimator
    )
    got = odd.budget_ledger(course_lib.chapter_fixture(), **BUDGET, estimate_tokens=estimator)
    assert isinstance(got, OtherValue)
    assert got.type_name == "_AlwaysEqual"
    assert got != right
    assert right != got
    assert "LedgerRow(" in repr(got)  # the rows are still shown in a failure


def test_a_shallow_copy_of_an_input_message_shares_its_content_with_the_judges(
    odd: RemotePackage,
) -> None:
    """``summary_message`` here returns ``entry.message.model_copy()``: not a deep copy.

    Run in-process, its ``content`` list is the input's own list; through the
    channel the judge must see the same sharing, or a copy check that changes
    the returned list (appends, removes or replaces an item) finds the path
    unchanged and passes the shallow copy.
    """
    entry = by_id(course_lib.chapter_fixture())["a1"]
    copied = odd.summary_message(entry)
    assert copied == entry.message
    assert copied is not entry.message
    assert copied.content is entry.message.content


def test_a_crash_fails_that_call_and_the_next_call_starts_again(odd: RemotePackage) -> None:
    with pytest.raises(RulesCrashed, match=r"render_summary.*exit status 3") as raised:
        odd.render_summary(course_lib.fixture_summary())
    assert "the process running render_summary ended with exit status 3" in str(raised.value)
    assert odd.crashes[-1] == "ended with exit status 3 during a call of render_summary"
    result = odd.build_context(
        course_lib.chapter_fixture(), **BUDGET, estimate_tokens=course_lib.fixture_estimator()
    )
    assert result.kept_entry_ids == KEPT_AT_31


def test_a_rule_that_never_answers_ends_the_run(odd_folder: Path) -> None:
    deadline = time.monotonic() + 1.5
    with RemotePackage(local_launcher(odd_folder, RULES), RULES, deadline=deadline) as remote:
        with pytest.raises(Timeout, match="time limit"):
            remote.plan_budget(course_lib.chapter_fixture())
        stopped = time.monotonic()
        assert deadline - 0.1 <= stopped < deadline + 2  # select may wake a hair early
        with pytest.raises(Timeout, match="not run"):
            remote.group_interactions(course_lib.chapter_fixture())
        assert time.monotonic() - stopped < 0.5


# --- a package that cannot start --------------------------------------------------------------


def test_a_package_that_fails_to_import_cannot_start(tmp_path: Path) -> None:
    broken = practice_package(
        tmp_path / "broken", appended='raise RuntimeError("broken on purpose")'
    )
    with (
        RemotePackage(local_launcher(broken, RULES), RULES) as remote,
        pytest.raises(RuleServerError) as raised,
    ):
        remote.start()
    assert raised.value.status == "error"
    assert "fails to import" in str(raised.value)
    assert "RuntimeError: broken on purpose" in str(raised.value)


def test_a_package_that_writes_on_the_judges_channel_cannot_start(tmp_path: Path) -> None:
    noisy = practice_package(tmp_path / "noisy", appended=WRITES_ON_EVERY_FD)
    with RemotePackage(local_launcher(noisy, RULES), RULES) as remote:
        with pytest.raises(RuleServerError) as raised:
            remote.start()
        with pytest.raises(RuleServerError, match="judge's channel"):
            remote.group_interactions(course_lib.chapter_fixture())
    assert raised.value.status == "error"
    assert "wrote on the judge's channel while importing" in str(raised.value)
