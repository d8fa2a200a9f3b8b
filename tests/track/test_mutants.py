"""The checks of the checks: each classic mistake must fail its lab with a message that leads to the fix.

Every mutant is the reference solution with one source change, the kind of
mistake students really make (and the ones INSTRUCTOR.md lists with their
messages). For each, a solved practice package is written, the change is
applied inside one lab region (or, for the given copy at ``group_interactions``'
public edge, in the given code), and the chapter's checks run on it in this
process (``run_checks_in_process``: the same check functions and the same
failure lines ``course-lab check`` prints, without a pytest run per package).
The test asserts that the lab fails, which checks fail, that each of their
messages starts with the case it tested, and that it holds the words that
point at the fix. Labs before the mutant's lab must stay green: a mistake in
one lab is reported by that lab's checks.

One mutant also runs through ``run_checks`` (a real pytest run, as
``course-lab check`` does) to pin that both give the very same messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from course_lib.track.catalogue import LAB_TOPICS
from course_lib.track.checks import (
    LabReport,
    extended_test_files,
    run_checks,
    run_checks_in_process,
    run_extended_checks,
)
from course_lib.track.starters import find_regions, write_practice_package

TRACK = list(LAB_TOPICS)  # the chapter's five labs, then the transfer exercise
CHAPTER_LABS = [lab for lab in TRACK if lab != "transfer"]


@dataclass(frozen=True)
class Mutant:
    """One mistake: where it is made, what it changes, and what the checks must say.

    ``region`` is the lab whose region holds ``old`` (``None``: the given code
    outside every region); ``lab`` is the lab whose checks must catch it.
    ``failing`` maps each check expected to fail to the start of its message
    (the case) and the words that lead to the fix.
    """

    name: str
    lab: str
    module: str
    region: str | None
    old: str
    new: str
    failing: dict[str, tuple[str, tuple[str, ...]]]


def mutate(directory: Path, mutant: Mutant) -> None:
    """Apply ``mutant`` to the solved package in ``directory``: ``old`` must occur exactly once."""
    path = directory / f"{mutant.module}.py"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    if mutant.region is None:
        spans = [(0, len(lines))]
    else:
        regions = find_regions(text, path.name)
        spans = [(r.begin + 1, r.end) for r in regions if r.lab == mutant.region]
    found = [(start, end) for start, end in spans if mutant.old in "".join(lines[start:end])]
    assert len(found) == 1 and text.count(mutant.old) >= 1, (
        f"mutant {mutant.name!r} no longer applies: its text is not in exactly one "
        f"{mutant.region or 'given'} span of {path.name}; update it to the solution"
    )
    (start, end) = found[0]
    body = "".join(lines[start:end])
    assert body.count(mutant.old) == 1, f"mutant {mutant.name!r}: its text is not unique"
    lines[start:end] = [body.replace(mutant.old, mutant.new)]
    path.write_text("".join(lines), encoding="utf-8")


def mutated_package(root: Path, mutant: Mutant) -> Path:
    directory = root / "ch11"
    write_practice_package(directory, solved=TRACK)
    mutate(directory, mutant)
    return directory


def assert_caught(mutant: Mutant, reports: list[LabReport]) -> None:
    """The mutant's lab fails exactly where expected, each message naming its case and the fix."""
    by_lab = {report.lab: report for report in reports}
    earlier = TRACK[: TRACK.index(mutant.lab)]
    assert [lab for lab in earlier if not by_lab[lab].ok] == [], mutant.name
    report = by_lab[mutant.lab]
    assert not report.ok, f"{mutant.name}: Lab {mutant.lab} passed {report.passed}/{report.total}"
    failed = {o.name: o.detail for o in report.outcomes if o.outcome == "failed"}
    assert sorted(failed) == sorted(mutant.failing), (mutant.name, failed)
    for name, (case, words) in mutant.failing.items():
        message = failed[name]
        assert message.startswith(case), (mutant.name, name, message)
        missing = [word for word in words if word not in message]
        assert missing == [], (mutant.name, name, missing, message)


GROUPS = "test_groups_split_at_user_messages_and_are_copies"
OUT_OF_ORDER = "test_out_of_order_results_with_a_progress_message_stay_in_one_group"
GROUP_ERRORS = "test_orphan_duplicate_and_missing_results_are_errors_naming_ids"
FIXED_COSTS = "test_fixed_costs_are_deducted_before_any_message"
OVERFLOW = "test_newest_group_is_kept_whole_even_when_it_overflows"
TRIMMING = "test_trimming_happens_only_at_group_boundaries_with_isolated_results"
CREATE = "test_compaction_entry_derives_its_parent_and_shares_nothing"
CREATE_ERRORS = "test_compaction_entry_rejects_bad_paths_ids_and_cut_points"
RESTORE = "test_restore_starts_from_first_kept_skipping_metadata_and_other_branches"
NEWEST = "test_only_the_newest_compaction_is_used_and_results_are_deterministic"
AGAIN = "test_compacting_the_restored_path_again_trims_whole_groups"
REPLAY = "test_system_state_is_replayed_across_the_compaction_boundary"
LEDGER_ROWS = "test_ledger_reports_each_fixture_group_with_its_cost_and_status"
LEDGER_OVERFLOW = "test_an_overflowing_newest_group_and_a_group_without_tools"
LEDGER_AGREES = "test_ledger_agrees_with_build_context_also_after_a_compaction"
PARSE = "test_compaction_entry_parses_strictly_into_an_independent_copy"
REJECT = "test_compaction_entry_rejects_old_aliases_missing_fields_and_bad_numbers"
STORES = "test_compaction_entry_survives_write_and_reopen_in_both_stores"

AT_31 = "build_context(fixture, max_tokens=31, reserved_output=4, safety_margin=2)"
AT_19 = "build_context(fixture, max_tokens=19, reserved_output=4, safety_margin=2)"
AT_24 = "build_context(fixture, max_tokens=24, reserved_output=4, safety_margin=2)"
AT_30 = "build_context(fixture, max_tokens=30, reserved_output=4, safety_margin=2)"
WITH_NOTE = "build_context(fixture with a metadata entry after a1, max_tokens=31"
RANDOM_PATH = "build_context(random path "
FIXTURE_GROUPS = "group_interactions(the chapter fixture)"
BROKEN_FIXTURE = "group_interactions(the chapter fixture with "
MOVED = "group_interactions(u3, r-test moved before calls, calls, r-read, a3)"
RESTORED_100 = "build_context(path to a4 past compact-1 and meta-1, max_tokens=100"
RESTORED_31 = "build_context(the same path, max_tokens=31"
TWO_COMPACTIONS = "build_context(compact-1, then compact-2 keeping u4"
AT_COMPACT_2 = "build_context(path ending at compact-2, max_tokens="
CREATE_U2 = "create_compaction_entry(fixture, id=compact-1, first_kept_entry_id=u2)"
SUMMARY_WITH_FILES = "create_compaction_entry(fixture, a summary with files)"

MUTANTS = [
    Mutant(
        "a parser error without the entry's label",
        lab="11.1",
        module="entries",
        region="11.1",
        old='raise SessionEntryError(f"{label}: {describe_validation_error(error)}")',
        new="raise SessionEntryError(describe_validation_error(error))",
        failing={
            REJECT: (
                "compact-1 with files alias",
                (
                    "expected a message starting with 'session entry compact-1'",
                    "got 'summary.changedFiles: missing field; summary.files: unknown field'",
                    "start the message with the label",
                ),
            ),
            STORES: (
                "InMemorySessionStore: appending compact-3 with summary.files",
                ("naming 'compact-3', 'summary.files'", "errors start with the entry's label"),
            ),
        },
    ),
    Mutant(
        "splitting a tool group at an assistant message",
        lab="11.2",
        module="groups",
        region="11.2",
        old='        if role == "user":\n',
        new='        if role in ("user", "assistant"):\n',
        failing={
            GROUPS: (
                FIXTURE_GROUPS,
                (
                    "expected the groups [[u1, a1], [u2, a2], [u3, calls, r-test, r-read, a3]]",
                    "got InteractionError: entry r-test: result for unknown call 'test-1'",
                    "a user message closes the open group",
                    "every other message (assistant, tool result) stays in the open group",
                ),
            ),
            OUT_OF_ORDER: (MOVED, ("unknown call",)),
            GROUP_ERRORS: (BROKEN_FIXTURE, ("duplicate",)),
        },
    ),
    Mutant(
        "splitting a tool group at a tool result",
        lab="11.2",
        module="groups",
        region="11.2",
        old='        if role == "user":\n',
        new='        if role in ("user", "toolResult"):\n',
        failing={
            GROUPS: (
                FIXTURE_GROUPS,
                (
                    "got InteractionError: missing result for call 'read-1'",
                    "stays in the open group",
                ),
            ),
            OUT_OF_ORDER: (MOVED, ("missing result",)),
            GROUP_ERRORS: (BROKEN_FIXTURE, ("unknown call",)),
        },
    ),
    Mutant(
        "checking an unknown call as soon as its result arrives",
        lab="11.2",
        module="groups",
        region="11.2",
        old="        call_id = message.tool_call_id\n",
        new=(
            "        call_id = message.tool_call_id\n"
            "        if call_id not in calls:\n"
            "            raise InteractionError(\n"
            '                f"entry {entry.id}: result for unknown call {call_id!r}"\n'
            "            )\n"
        ),
        failing={
            OUT_OF_ORDER: (
                MOVED,
                (
                    "expected one group [u3, r-test, calls, r-read, a3]",
                    "got InteractionError: entry r-test: result for unknown call 'test-1'",
                    "a result may come before its call",
                    "'unknown call' and 'missing result' are checked when the group closes",
                ),
            ),
        },
    ),
    Mutant(
        "leaving out the missing-result rule",
        lab="11.2",
        module="groups",
        region="11.2",
        old=(
            "    for call_id, declared_by in calls.items():\n"
            "        if call_id not in results:\n"
            "            raise InteractionError(\n"
            '                f"missing result for call {call_id!r} declared by entry '
            '{declared_by}"\n'
            "            )\n"
        ),
        new="",
        failing={
            GROUP_ERRORS: (
                f"{BROKEN_FIXTURE}r-test replaced by an assistant message",
                (
                    "expected InteractionError naming 'test-1', 'calls', 'missing result'",
                    "got no error (it returned the groups",
                    "when the group closes every call has its result, else 'missing result'",
                ),
            ),
        },
    ),
    Mutant(
        "copying nothing at group_interactions' public edge",
        lab="11.2",
        module="groups",
        region=None,
        old="InteractionGroup(entries=[entry.model_copy(deep=True) for entry in group.entries])",
        new="InteractionGroup(entries=list(group.entries))",
        failing={
            GROUPS: (
                "after changing read-1's arguments in a returned group: the path's calls arguments",
                ("expected {'path': 'context.ts'}", "got {'path': 'changed.ts'}", "deep copies"),
            ),
        },
    ),
    Mutant(
        "< instead of <= when a group fits exactly",
        lab="11.3",
        module="budget",
        region="11.3",
        old="used + costs[first - 1] <= allowance",
        new="used + costs[first - 1] < allowance",
        failing={
            OVERFLOW: (AT_24, ("got kept_entry_ids []", "fits exactly, so it is no overflow")),
            FIXED_COSTS: (
                AT_31,
                (
                    "expected tokens.messages 22, tokens.total 31",
                    "got tokens.messages 15, tokens.total 24",
                    "+ [u2, a2] 7 = 22 fits exactly (<=)",
                ),
            ),
            TRIMMING: (
                f"{AT_31}: kept_entry_ids",
                (
                    "expected [u2, a2, u3, calls, r-test, r-read, a3]",
                    "got [u3, calls, r-test, r-read, a3]",
                    "fits exactly (<=)",
                ),
            ),
        },
    ),
    Mutant(
        "forgetting the system message's cost",
        lab="11.3",
        module="budget",
        region="11.3",
        old="budget.max_tokens - system_tokens - budget.reserved_output - budget.safety_margin",
        new="budget.max_tokens - budget.reserved_output - budget.safety_margin",
        failing={
            TRIMMING: (AT_30, ("one token short", "an allowance of 21")),
            FIXED_COSTS: (
                AT_31,
                (
                    "expected tokens.available_for_messages 22",
                    "got tokens.available_for_messages 25",
                    "31 - 3 - 4 - 2 = 22 (system: the replayed system message's estimate)",
                ),
            ),
            OVERFLOW: (AT_19, ("got tokens.available_for_messages 13", "19 - 3 (system) - 4 - 2")),
        },
    ),
    Mutant(
        "forgetting the safety margin",
        lab="11.3",
        module="budget",
        region="11.3",
        old="budget.max_tokens - system_tokens - budget.reserved_output - budget.safety_margin",
        new="budget.max_tokens - system_tokens - budget.reserved_output",
        failing={
            TRIMMING: (AT_30, ("one token short", "an allowance of 21")),
            FIXED_COSTS: (
                AT_31,
                (
                    "expected tokens.available_for_messages 22",
                    "got tokens.available_for_messages 24",
                    "- safety_margin) = 31 - 3 - 4 - 2",
                ),
            ),
            OVERFLOW: (AT_19, ("got tokens.available_for_messages 12",)),
        },
    ),
    Mutant(
        "keeping the last three messages instead of whole groups",
        lab="11.3",
        module="budget",
        region="11.3",
        old="    kept = [entry for group in plan.kept_groups for entry in group.entries]\n",
        new="    kept = [entry for group in plan.groups for entry in group.entries][-3:]\n",
        failing={
            OVERFLOW: (
                f"{AT_19}: kept_entry_ids",
                ("got [r-test, r-read, a3]", "is always kept whole"),
            ),
            TRIMMING: (
                f"{AT_31}: kept_entry_ids",
                ("got [r-test, r-read, a3]", "whole groups", "without their call"),
            ),
        },
    ),
    Mutant(
        "dropping the newest group when it alone overflows",
        lab="11.3",
        module="budget",
        region="11.3",
        old='        return len(costs) - 1, "single_group_overflow"\n',
        new='        return len(costs), "single_group_overflow"\n',
        failing={
            TRIMMING: (RANDOM_PATH, ("got kept_entry_ids []", "the newest always kept")),
            OVERFLOW: (
                f"{AT_19}: kept_entry_ids",
                ("expected [u3, calls, r-test, r-read, a3], got []", "even alone over"),
            ),
        },
    ),
    Mutant(
        "walking the groups oldest first",
        lab="11.3",
        module="budget",
        region="11.3",
        old=(
            "    first = len(costs)\n"
            "    while first > 0 and used + costs[first - 1] <= allowance:\n"
            "        used += costs[first - 1]\n"
            "        first -= 1\n"
        ),
        new=(
            "    first = 0\n"
            "    while first < len(costs) and used + costs[first] <= allowance:\n"
            "        used += costs[first]\n"
            "        first += 1\n"
        ),
        failing={
            FIXED_COSTS: (AT_31, ("got tokens.messages 15", "newest first")),
            TRIMMING: (
                f"{AT_31}: kept_entry_ids",
                ("got [u3, calls, r-test, r-read, a3]", "whole groups newest first"),
            ),
        },
    ),
    Mutant(
        "copying nothing: returning the kept messages themselves",
        lab="11.3",
        module="budget",
        region="11.3",
        old="*(entry.message.model_copy(deep=True) for entry in kept)",
        new="*(entry.message for entry in kept)",
        failing={
            TRIMMING: (
                "after changing read-1's arguments in the returned calls message: the path",
                ("expected the path unchanged", "got entry [calls] changed", "deep copies"),
            ),
        },
    ),
    Mutant(
        "building the entry without the parser (nothing validated, nothing copied)",
        lab="11.4",
        module="compaction",
        region="11.4",
        old="    return cast(CompactionEntry, parse_session_entry(candidate))  # a compaction, by its type\n",
        new=(
            "    return CompactionEntry.model_construct(\n"
            '        id=id, parent_id=active_path[-1].id, timestamp=timestamp, type="compaction",\n'
            "        summary=summary, first_kept_entry_id=first_kept_entry_id,\n"
            "        tokens_before=tokens_before,\n"
            "    )\n"
        ),
        failing={
            CREATE: (
                "after appending to the caller's summary.constraints: the entry's constraints",
                ("'changed after creation'", "goes through parse_session_entry", "a copy"),
            ),
            CREATE_ERRORS: (
                SUMMARY_WITH_FILES,
                # The judge reads every answer through the course's types: an entry built
                # without validation cannot even cross as one.
                (
                    "expected SessionEntryError",
                    "not a valid CompactionEntry",
                    "parse_session_entry",
                ),
            ),
        },
    ),
    Mutant(
        "validating the entry with the model instead of the parser",
        lab="11.4",
        module="compaction",
        region="11.4",
        old="    return cast(CompactionEntry, parse_session_entry(candidate))  # a compaction, by its type\n",
        new="    return CompactionEntry.model_validate(candidate, by_alias=True)\n",
        failing={
            CREATE_ERRORS: (
                SUMMARY_WITH_FILES,
                (
                    "expected SessionEntryError naming 'compact-1', 'summary.files'",
                    "got ValidationError",
                    "goes through parse_session_entry",
                ),
            ),
        },
    ),
    Mutant(
        "taking the parent from the first entry of the path",
        lab="11.4",
        module="compaction",
        region="11.4",
        old='        "parentId": active_path[-1].id,\n',
        new='        "parentId": active_path[0].id,\n',
        failing={
            CREATE: (
                CREATE_U2,
                ("expected parent_id a3", "got parent_id sys", "the last entry of the path"),
            ),
        },
    ),
    Mutant(
        "accepting any first kept entry",
        lab="11.4",
        module="compaction",
        region="11.4",
        old="    if first_kept_entry_id not in group_starts:\n",
        new="    if first_kept_entry_id not in group_starts and False:\n",
        failing={
            CREATE: (
                "create_compaction_entry(random path 0, first_kept_entry_id=p0-e0)",
                ("got no error", "only the first message of an interaction"),
            ),
            CREATE_ERRORS: (
                "create_compaction_entry(fixture, first_kept_entry_id=a2)",
                ("got no error", "must start a complete interaction", "group_interactions"),
            ),
        },
    ),
    Mutant(
        "restoring from the oldest compaction",
        lab="11.5",
        module="restoring",
        region="11.5",
        old="    for entry in reversed(active_path):\n",
        new="    for entry in active_path:\n",
        failing={
            NEWEST: (
                TWO_COMPACTIONS,
                (
                    "expected one summary message, compact-2's",
                    "'Goal: Check the session recovery logic'",
                    "only the newest compaction on the path is used",
                ),
            ),
            AGAIN: (f"{AT_COMPACT_2}40", ("got reason trimmed", "compact-2's first kept")),
        },
    ),
    Mutant(
        "checking only that the first kept entry exists",
        lab="11.5",
        module="restoring",
        region="11.5",
        old=(
            "    if (\n"
            "        index is None\n"
            "        or index > position[compaction.id]\n"
            "        or not isinstance(first, MessageEntry)\n"
            "        or not isinstance(first.message, UserMessage)\n"
            "    ):\n"
        ),
        new="    if index is None:\n",
        failing={
            RESTORE: (
                "build_context(compact-1 with first kept a2, an assistant message before",
                (
                    "expected CompactionError naming 'compact-1', 'a2'",
                    "got InteractionError",
                    "must be a user message entry before it on the path",
                ),
            ),
        },
    ),
    Mutant(
        "not paying for the summary from the allowance",
        lab="11.3",
        module="budget",
        region="11.3",
        old="    return available, max(0, available - summary_tokens)\n",
        new="    return available, available\n",
        failing={
            FIXED_COSTS: (
                "message_allowances(Budget(31, 4, 2), 3, summary_tokens=5)",
                ("expected (22, 17)", "got (22, 22)", "max(0, 22 - 5) = 17"),
            ),
        },
    ),
    Mutant(
        "leaving the title out of the summary",
        lab="11.5",
        module="restoring",
        region="11.5",
        old='    lines = [labels.title, f"{labels.goal}{fields.goal}"]\n',
        new='    lines = [f"{labels.goal}{fields.goal}"]\n',
        failing={
            RESTORE: (
                RESTORED_100,
                (
                    "text of the summary message, line 1",
                    "expected '[Session compaction summary]'",
                    "the title line",
                ),
            ),
            NEWEST: (TWO_COMPACTIONS, ("got 0 summary message(s)",)),
            AGAIN: (f"{AT_COMPACT_2}40", ()),
            REPLAY: ("build_context(system replay fixture", ("the summary message",)),
        },
    ),
    Mutant(
        "re-deciding a row's status from its cost instead of reading the plan",
        lab="transfer",
        module="ledger",
        region="transfer",
        old='"kept" if index >= plan.first_kept_group else "trimmed"',
        new='"kept" if tokens <= plan.tokens.available_for_messages else "trimmed"',
        failing={
            LEDGER_ROWS: (
                "budget_ledger(fixture, max_tokens=31",
                (
                    "row 1: expected (1, [u1, a1], 7, trimmed), got (1, [u1, a1], 7, kept)",
                    "trimmed before plan.first_kept_group",
                ),
            ),
            LEDGER_OVERFLOW: ("budget_ledger(fixture, max_tokens=19", ("trimmed",)),
            LEDGER_AGREES: ("budget_ledger(fixture after compact-1, max_tokens=31", ()),
        },
    ),
    Mutant(
        "numbering the rows from 1 after a compaction",
        lab="transfer",
        module="ledger",
        region="transfer",
        old="group=plan.first_group_number + index,",
        new="group=index + 1,",
        failing={
            LEDGER_AGREES: (
                "budget_ledger(fixture after compact-1, max_tokens=31",
                (
                    "row 1: expected (2, [u2, a2], 7, trimmed), got (1, [u2, a2], 7, trimmed)",
                    "u2 opens group 2",
                ),
            ),
        },
    ),
    Mutant(
        "never reporting an overflow",
        lab="transfer",
        module="ledger",
        region="transfer",
        old='        if status == "kept" and plan.reason == "single_group_overflow":\n'
        '            status = "overflow"\n',
        new="",
        failing={
            LEDGER_OVERFLOW: (
                "budget_ledger(fixture, max_tokens=19",
                (
                    "row 3: expected (3, [u3, calls, r-test, r-read, a3], 15, overflow), got "
                    "(3, [u3, calls, r-test, r-read, a3], 15, kept)",
                    "single_group_overflow",
                ),
            ),
            LEDGER_AGREES: (
                "budget_ledger and build_context(fixture, max_tokens=",
                ("overflow rows (build_context's reason: single_group_overflow)",),
            ),
        },
    ),
]

MARKS = {lab: getattr(pytest.mark, f"lab_{lab.replace('.', '_')}") for lab in CHAPTER_LABS}
MARKS["transfer"] = pytest.mark.transfer


@pytest.mark.parametrize(
    "mutant",
    [pytest.param(m, id=m.name, marks=[MARKS[m.lab], pytest.mark.mutants]) for m in MUTANTS],
)
def test_each_classic_mistake_fails_its_lab_with_a_message_that_leads_to_the_fix(
    mutant: Mutant, tmp_path: Path
) -> None:
    directory = mutated_package(tmp_path, mutant)
    labs = TRACK[: TRACK.index(mutant.lab) + 1]
    assert_caught(mutant, run_checks_in_process(labs, impl=directory, scratch=tmp_path))


@pytest.mark.lab_11_3
@pytest.mark.mutants
def test_a_real_check_run_gives_the_in_process_messages_and_the_extended_suite_catches_it(
    tmp_path: Path,
) -> None:
    """The last three messages (the chapter's expected failure) through ``course-lab check``'s path.

    ``run_checks`` runs pytest on the package as the command does; its rows
    must equal the in-process ones, so every mutant above says what a
    student would see. The wider suite of Lab 11.3 catches it as well.
    """
    (mutant,) = [m for m in MUTANTS if m.name.startswith("keeping the last three")]
    directory = mutated_package(tmp_path, mutant)

    real = run_checks(CHAPTER_LABS, impl=directory)
    in_process = run_checks_in_process(CHAPTER_LABS, impl=directory, scratch=tmp_path)

    assert [r.outcomes for r in real] == [r.outcomes for r in in_process]
    assert_caught(mutant, real)
    by_lab = {report.lab: report for report in real}
    assert [lab for lab in CHAPTER_LABS if by_lab[lab].ok] == ["11.1", "11.2", "11.4"]
    # Lab 11.5 selects with the same code after the restore, so it fails too,
    # except where the restored suffix is only two messages (u4, a4): there the
    # last three messages and the newest groups happen to agree.
    passed_11_5 = [o.name for o in by_lab["11.5"].outcomes if o.outcome == "passed"]
    assert passed_11_5 == [NEWEST]

    selection = extended_test_files("11.3", for_practice=True)
    assert selection.left_out == [] and selection.files
    extended = run_extended_checks("11.3", selection.files, impl=directory)
    failed_wider = {o.name for o in extended.outcomes if o.outcome == "failed"}
    assert not extended.ok and extended.waiting == 0 and extended.passed > 0
    assert {
        "test_an_allowance_of_10_still_returns_the_newest_group_whole",
        "test_the_last_three_messages_would_orphan_tool_results",
        "test_every_build_follows_the_selection_rules",
    } <= failed_wider
