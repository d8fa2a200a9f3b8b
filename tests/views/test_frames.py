"""The notebook tables (``course_lib.views``) show the chapter's numbers, computed, not typed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from course_lib import (
    CompactionError,
    CourseError,
    InteractionError,
    LedgerRow,
    SessionEntryError,
    budget_ledger,
    build_context,
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_estimator,
    fixture_summary,
    parse_session_entry,
    system_replay_fixture,
)
from course_lib.beyond.estimators import chars_estimator
from course_lib.beyond.importers import PiSource, import_pi_session
from course_lib.chapter.fixture import FixtureLanguage
from course_lib.track.catalogue import LAB_CHECK_COUNTS, LAB_MAP
from course_lib.track.checks import CheckOutcome, LabReport
from course_lib.views import (
    COMPACTION_DRIFTS,
    NO_VALUE,
    WireEdit,
    checks_frame,
    compaction_steps,
    cut_points_frame,
    deduction_frame,
    entry_counts_frame,
    entry_fields_frame,
    errors_frame,
    estimator_comparison_frame,
    expected_failure,
    first_kept_frame,
    fixture_frame,
    group_budget_frame,
    group_labels,
    groups_frame,
    import_notes_frame,
    interaction_sizes_frame,
    kept_range_frame,
    lab_map_frame,
    ledger_agreement_frame,
    ledger_excerpt_frame,
    ledger_frame,
    message_tokens_frame,
    messages_frame,
    parser_refusals_frame,
    path_arrow,
    pi_compactions_frame,
    pi_source_frame,
    projection_frame,
    second_summary,
    styled_fixture_frame,
    summary_lines_frame,
    system_frame,
    untrimmed_message_tokens,
)
from course_lib.views.lab_map import checks_catalogue_frame

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "pi-sessions" / "large-session.v1.jsonl"
V3_TREE = ROOT / "tests" / "data" / "pi" / "v3-tree.jsonl"
BUDGET = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}


def records(frame: pd.DataFrame) -> list[tuple]:
    """Rows as plain tuples, so comparisons read like the chapter's tables."""
    return [tuple(row) for row in frame.itertuples(index=False)]


def chapter_result(path: list | None = None):
    return build_context(
        path if path is not None else chapter_fixture(),
        **BUDGET,
        estimate_tokens=fixture_estimator(),
    )


def test_fixture_frame_lists_the_ten_entries_with_tokens_and_groups() -> None:
    frame = fixture_frame(chapter_fixture(), fixture_estimator())

    assert list(frame.columns) == ["entry id", "parent", "role", "content", "tokens", "group"]
    assert list(frame["entry id"]) == [
        "sys", "u1", "a1", "u2", "a2", "u3", "calls", "r-test", "r-read", "a3",
    ]  # fmt: skip
    assert list(frame["tokens"]) == [3, 3, 4, 3, 4, 3, 3, 3, 3, 3]
    assert list(frame["group"]) == ["system"] + ["group 1"] * 2 + ["group 2"] * 2 + ["group 3"] * 5
    assert frame["parent"].iloc[0] == "(root)" and frame["parent"].iloc[1] == "sys"
    by_id = frame.set_index("entry id")["content"]
    assert by_id["calls"] == (
        'read-1: read(path="context.ts"); test-1: test(command="npm test -- context")'
    )
    assert by_id["r-test"] == "result for test-1: 14 tests passed"


def test_fixture_frame_after_compaction_prices_the_summary_and_marks_the_entry() -> None:
    frame = fixture_frame(chapter_fixture_after_compaction(), fixture_estimator())
    row = frame.set_index("entry id").loc["compact-1"]

    assert (row["role"], row["tokens"], row["group"]) == ("compaction", 5, "compaction")
    assert "first kept u2" in row["content"]
    groups = frame.set_index("entry id")["group"]
    assert list(groups[["u1", "a1"]]) == ["summarised", "summarised"]  # the summary's part
    assert list(groups[["u2", "a2", "u3", "a3", "u4", "a4"]]) == [
        "group 2", "group 2", "group 3", "group 3", "group 4", "group 4",
    ]  # fmt: skip


def test_group_labels_number_groups_as_the_ledger_does() -> None:
    for path in (chapter_fixture(), chapter_fixture_after_compaction(), system_replay_fixture()):
        labels = group_labels(path)
        for row in budget_ledger(path, **BUDGET, estimate_tokens=fixture_estimator()):
            assert {labels[entry_id] for entry_id in row.entry_ids} == {f"group {row.group}"}
    replay = group_labels(system_replay_fixture())
    assert [replay[i] for i in ("sys", "u1", "patch-1", "compact-1", "patch-2")] == [
        "system", "summarised", "system", "compaction", "system",
    ]  # fmt: skip


def test_fixture_frame_without_groups_shows_a_path_that_cannot_be_grouped() -> None:
    last_three = chapter_fixture()[-3:]
    with pytest.raises(InteractionError, match="r-test"):
        fixture_frame(last_three)
    frame = fixture_frame(last_three, groups=False)
    assert list(frame.columns) == ["entry id", "parent", "role", "content"]
    assert list(frame["role"]) == ["toolResult", "toolResult", "assistant"]


def test_styled_fixture_frame_has_a_fixed_uuid_and_one_colour_per_group() -> None:
    html = styled_fixture_frame(chapter_fixture(), fixture_estimator()).to_html()
    again = styled_fixture_frame(chapter_fixture(), fixture_estimator()).to_html()

    assert html == again  # no random ids
    assert 'id="T_fixture"' in html
    assert styled_fixture_frame(chapter_fixture(), uuid="other").to_html().count("T_other") > 0
    for colour in ["#e5e7eb", "#dbeafe", "#dcfce7", "#fef3c7"]:  # system, groups 1-3
        assert f"background-color: {colour}" in html


def test_deduction_frame_is_the_chapters_31_28_24_22_table() -> None:
    frame = deduction_frame(chapter_result())
    assert records(frame) == [
        ("max_tokens", 31, 31),
        ("replayed system message", 3, 28),
        ("reserved_output", 4, 24),
        ("safety_margin", 2, 22),
    ]


def test_deduction_frame_after_compaction_pays_the_summary_from_the_allowance() -> None:
    estimate = fixture_estimator()
    result = chapter_result(chapter_fixture_after_compaction())
    frame = deduction_frame(result, estimate)
    assert records(frame)[-1] == ("compaction summary", 5, 17)
    assert len(deduction_frame(result)) == 4  # no estimator: no summary row


def test_deduction_frame_never_goes_below_zero() -> None:
    result = build_context(
        chapter_fixture(),
        max_tokens=5,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=fixture_estimator(),
    )
    assert list(deduction_frame(result)["message allowance left"]) == [5, 2, 0, 0]


def test_group_budget_frame_walks_groups_newest_first_with_the_ledgers_status() -> None:
    frame = group_budget_frame(chapter_fixture(), **BUDGET, estimate_tokens=fixture_estimator())
    assert records(frame) == [
        (3, "u3, calls, r-test, r-read, a3", 15, 15, "kept"),
        (2, "u2, a2", 7, 22, "kept"),
        (1, "u1, a1", 7, 29, "trimmed"),
    ]
    overflow = group_budget_frame(
        chapter_fixture(),
        max_tokens=19,
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=fixture_estimator(),
    )
    assert list(overflow["status"]) == ["overflow", "trimmed", "trimmed"]


def test_messages_frame_names_each_message_source() -> None:
    frame = messages_frame(chapter_result(), fixture_estimator())
    assert list(frame["entry id"]) == ["—", "u2", "a2", "u3", "calls", "r-test", "r-read", "a3"]
    assert frame["source"].iloc[0] == "replayed system message"
    assert set(frame["source"].iloc[1:]) == {"kept entry"}
    assert frame["tokens"].sum() == 3 + 22

    restored = messages_frame(chapter_result(chapter_fixture_after_compaction()))
    assert list(restored["source"][:2]) == ["replayed system message", "compaction summary"]
    assert list(restored["entry id"]) == ["—", "—", "u4", "a4"]
    assert "tokens" not in restored.columns


def test_projection_frame_lists_the_seven_token_fields() -> None:
    frame = projection_frame(chapter_result().tokens)
    assert records(frame) == [
        ("max_tokens", "maxTokens", 31),
        ("system", "system", 3),
        ("messages", "messages", 22),
        ("reserved_output", "reservedOutput", 4),
        ("safety_margin", "safetyMargin", 2),
        ("available_for_messages", "availableForMessages", 22),
        ("total", "total", 31),
    ]


def test_groups_and_cut_points_show_where_a_budget_may_cut() -> None:
    from course_lib import group_interactions

    groups = groups_frame(group_interactions(chapter_fixture()), fixture_estimator())
    assert list(groups["tokens"]) == [7, 7, 15]
    assert groups["tool calls declared"].iloc[2] == "read-1, test-1"
    assert groups["results, in path order"].iloc[2] == "test-1, read-1"

    cuts = cut_points_frame(chapter_fixture())
    allowed = list(cuts.loc[cuts["allowed"], "cut"])
    assert allowed == ["a1 | u2", "a2 | u3"]
    assert len(cuts) == 8  # nine grouped messages, eight gaps


def test_entry_fields_frame_flattens_the_wire_form() -> None:
    entry = chapter_fixture_after_compaction()[10]
    fields = dict(records(entry_fields_frame(entry)))
    assert fields["parentId"] == "a3" and fields["firstKeptEntryId"] == "u2"
    assert fields["summary.changedFiles"] == "[]"
    assert fields["tokensBefore"] == "29"


def test_parser_refusals_frame_parses_each_drift_on_its_own_copy() -> None:
    wire = chapter_fixture_after_compaction()[10].to_wire()
    untouched = chapter_fixture_after_compaction()[10].to_wire()
    frame = parser_refusals_frame(wire)
    assert wire == untouched  # every edit works on a copy
    assert list(frame["case"]) == [edit.case for edit in COMPACTION_DRIFTS]
    assert set(frame["error"]) == {"SessionEntryError"}
    assert all(message.startswith("session entry compact-1: ") for message in frame["message"])
    messages = dict(zip(frame["case"], frame["message"], strict=True))
    assert messages["no constraints"].endswith("summary.constraints: missing field")
    assert messages["summary.nextSteps (old name)"].endswith("summary.nextSteps: unknown field")
    assert "tokensBefore: must be >= 0" in messages["tokensBefore -1"]

    files = WireEdit("files", "summary.files", ["context.ts"])
    assert files.applied(wire)["summary"]["files"] == ["context.ts"]
    assert "goal" not in WireEdit("no goal", "summary.goal", removed=True).applied(wire)["summary"]
    with pytest.raises(AssertionError, match="expected a CourseError"):
        parser_refusals_frame(wire, [WireEdit("tokensBefore 0", "tokensBefore", 0)])


def test_first_kept_frame_accepts_only_group_starts() -> None:
    frame = first_kept_frame(
        chapter_fixture(),
        id="compact-1",
        timestamp=100,
        summary=fixture_summary(),
        tokens_before=29,
    )
    accepted = list(frame.loc[frame["accepted"], "first kept"])
    assert accepted == ["u1", "u2", "u3"]
    refused = frame.set_index("first kept").loc["calls", "result"]
    assert "'calls' is not the first message of a complete interaction" in refused


def test_summary_lines_frame_aligns_english_and_chinese_labels() -> None:
    frame = summary_lines_frame(fixture_summary())
    assert frame["English"].iloc[0] == "[Session compaction summary]"
    assert frame["中文"].iloc[0] == "【会话压缩摘要】"
    assert (frame["English"] == "- (none)").sum() == (frame["中文"] == "- （无）").sum() == 3


def test_system_frame_shows_the_replayed_head_across_the_boundary() -> None:
    result = build_context(
        system_replay_fixture(), max_tokens=1000, estimate_tokens=fixture_estimator()
    )
    fields = dict(records(system_frame(result.messages[0])))
    assert fields["content"] == '"BASE\\n\\nPrefer small diffs."'
    assert fields["sections"] == '{"rules": "RULE v2"}'
    assert fields["prompt text"] == '"BASE\\n\\nPrefer small diffs.\\n\\nRULE v2"'


def test_ledger_frames_agree_with_build_context() -> None:
    rows = budget_ledger(chapter_fixture(), **BUDGET, estimate_tokens=fixture_estimator())
    assert records(ledger_frame(rows)) == [
        (1, "u1, a1", 7, "trimmed"),
        (2, "u2, a2", 7, "kept"),
        (3, "u3, calls, r-test, r-read, a3", 15, "kept"),
    ]
    agreement = ledger_agreement_frame(
        chapter_fixture_after_compaction(),
        range(0, 50, 3),
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=fixture_estimator(),
    )
    assert agreement["agree"].all()
    assert set(agreement["build_context reason"]) == {
        "single_group_overflow",
        "trimmed",
        "within_budget",
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compaction_steps_are_made_by_the_labs_functions(lang: FixtureLanguage) -> None:
    steps = compaction_steps(fixture_estimator(), lang)
    assert [step.label for step in steps] == ["no compaction", "compact-1", "u4, a4", "compact-2"]
    assert steps[2].path == chapter_fixture_after_compaction(lang)
    compact_2 = steps[3].path[-1]
    assert (compact_2.parent_id, compact_2.first_kept_entry_id) == ("a4", "u3")
    assert (
        compact_2.tokens_before
        == 34
        == untrimmed_message_tokens(steps[2].path, fixture_estimator())
    )
    assert path_arrow(steps[1].path).endswith("r-read → a3 → compact-1")
    assert compact_2.summary == second_summary(lang)
    # compact-2's summary keeps compact-1's goal and adds the write boundary, in the same language
    first = steps[1].path[-1].summary
    assert (
        compact_2.summary.goal == first.goal
        and compact_2.summary.completed[0] == first.completed[0]
    )
    assert compact_2.summary.completed[1] != first.completed[0]


def test_expected_failure_shows_only_course_errors() -> None:
    wire = chapter_fixture_after_compaction()[10].to_wire()
    wire["summary"]["files"] = wire["summary"].pop("changedFiles")
    frame = expected_failure(lambda: parse_session_entry(wire))
    assert records(frame) == [
        (
            "SessionEntryError",
            "session entry compact-1: summary.changedFiles: missing field; "
            "summary.files: unknown field",
        )
    ]
    with pytest.raises(AssertionError, match="expected a CourseError"):
        expected_failure(lambda: 42)
    with pytest.raises(ZeroDivisionError):
        expected_failure(lambda: 1 / 0)  # a real bug is never shown as an expected failure

    def refuse() -> None:
        raise CompactionError("compaction compact-9: empty active path")

    def base() -> None:
        raise CourseError("x")

    table = errors_frame({"empty": refuse, "base": base})
    assert records(table) == [
        ("empty", "CompactionError", "compaction compact-9: empty active path"),
        ("base", "CourseError", "x"),
    ]
    assert issubclass(SessionEntryError, CourseError)


def test_checks_frame_lists_each_check() -> None:
    report = LabReport(
        lab="11.4",
        outcomes=[
            CheckOutcome(lab="11.4", name="test_a", outcome="passed"),
            CheckOutcome(lab="11.4", name="test_b", outcome="failed", detail="AssertionError"),
        ],
    )
    assert records(checks_frame(report)) == [
        ("test_a", "passed", ""),
        ("test_b", "failed", "AssertionError"),
    ]
    assert report.summary_line() == "Lab 11.4: 1/2 passed"


def test_lab_map_names_files_that_exist() -> None:
    frame = lab_map_frame()
    assert list(frame["lab"]) == [row.lab for row in LAB_MAP]
    assert list(frame["lab"])[:6] == ["11.1", "11.2", "11.3", "11.4", "11.5", "11.5"]
    assert list(frame["lab"])[-4:] == ["transfer", "real session", "recap", "three agents"]
    # Each lab's count shows once, on the notebook that runs its checks; elsewhere a dash.
    for lab, count in LAB_CHECK_COUNTS.items():
        assert list(frame.loc[frame["lab"] == lab, "number of checks"])[-1] == str(count), lab
    counted = frame["number of checks"] != NO_VALUE
    assert counted.sum() == len(LAB_CHECK_COUNTS)  # never <NA>, never twice
    assert sorted(frame.loc[counted, "lab"]) == sorted(LAB_CHECK_COUNTS)
    assert list(frame["topic"])[-4:] == [
        "budget ledger",
        "a real pi session",
        "the chapter in review",
        "pi, Claude Code and Codex CLI sessions",
    ]
    assert frame["topic"].is_unique
    notebooks = [row.notebook for row in LAB_MAP]
    assert notebooks == sorted(notebooks)  # the map is in reading order
    for row in LAB_MAP:
        assert (ROOT / row.notebook).is_file(), row.notebook
        if row.checks != NO_VALUE:
            assert (ROOT / row.checks).is_file(), row.checks
        for module in row.modules.split(", "):
            assert module == NO_VALUE or (ROOT / "course_lib" / module).is_file(), module


def test_checks_catalogue_lists_the_chapters_15_checks_by_lab() -> None:
    frame = checks_catalogue_frame()
    chapter = {lab: n for lab, n in LAB_CHECK_COUNTS.items() if lab.startswith("11.")}
    assert len(frame) == sum(chapter.values()) == 15
    assert frame.groupby("lab", sort=False).size().to_dict() == chapter
    assert frame["check"].str.startswith("test_").all() and frame["check"].is_unique


def test_ledger_agreement_frame_reports_a_ledger_that_re_decides() -> None:
    def keep_everything(path, **options):
        return [
            LedgerRow(group=row.group, entry_ids=row.entry_ids, tokens=row.tokens, status="kept")
            for row in budget_ledger(path, **options)
        ]

    frame = ledger_agreement_frame(
        chapter_fixture(),
        [31, 40],
        reserved_output=4,
        safety_margin=2,
        estimate_tokens=fixture_estimator(),
        ledger_function=keep_everything,
    )
    assert list(frame["agree"]) == [False, True]  # at 31 group 1 is trimmed, not kept


# --- beyond the fixture: a real pi session ------------------------------------------


def test_pi_source_frame_lists_every_pi_type_so_a_missing_one_shows_as_zero() -> None:
    source = PiSource(
        version=1,
        session_id=None,
        records=4,
        entry_counts={"message": 2, "session": 1, "mystery": 1},
        role_counts={"user": 1, "assistant": 1},
    )
    frame = pi_source_frame(source)
    types = frame[frame["counted"] == "entry type"]
    assert list(types["name"].iloc[:2]) == ["session", "message"]
    assert dict(zip(types["name"], types["count"], strict=True))["compaction"] == 0
    assert records(frame.tail(3)) == [
        ("entry type", "mystery", 1),
        ("message role", "user", 1),
        ("message role", "assistant", 1),
    ]


def test_entry_counts_frame_counts_messages_by_role_then_compactions_then_metadata() -> None:
    assert records(entry_counts_frame(chapter_fixture_after_compaction())) == [
        ("message", "assistant", 5),
        ("message", "user", 4),
        ("message", "toolResult", 2),
        ("message", "system", 1),
        ("compaction", "—", 1),
    ]
    sample = import_pi_session(SAMPLE)
    counts = {row[1]: row[2] for row in records(entry_counts_frame(sample.entries))}
    assert counts["pi.thinking_level_change"] == sample.source.entry_counts["thinking_level_change"]


def test_message_tokens_frame_prices_each_message_with_each_estimator() -> None:
    frame = message_tokens_frame(chapter_fixture(), {"fixture": fixture_estimator()})
    assert list(frame.columns) == ["entry id", "kind", "fixture"]
    assert dict(zip(frame["entry id"], frame["fixture"], strict=True)) == {
        "sys": 3, "u1": 3, "a1": 4, "u2": 3, "a2": 4,
        "u3": 3, "calls": 3, "r-test": 3, "r-read": 3, "a3": 3,
    }  # fmt: skip
    kinds = dict(zip(frame["entry id"], frame["kind"], strict=True))
    assert (kinds["sys"], kinds["a1"], kinds["calls"], kinds["r-test"]) == (
        "system",
        "assistant (text)",
        "assistant (tool calls)",
        "toolResult",
    )


def test_estimator_comparison_frame_sums_per_kind_with_a_total_and_a_ratio() -> None:
    per_message = message_tokens_frame(
        chapter_fixture(),
        {"fixture": fixture_estimator(), "flat": lambda m: 6, "zero": lambda m: 0},
    )
    table = estimator_comparison_frame(per_message, "fixture", "flat")
    assert list(table.columns) == ["kind", "messages", "fixture", "flat", "flat / fixture"]
    assert records(table.tail(1)) == [("all messages", 10, 32, 60, 1.875)]
    user = table[table["kind"] == "user"].iloc[0]
    assert (user["messages"], user["fixture"], user["flat"]) == (3, 9, 18)
    against_zero = estimator_comparison_frame(per_message, "zero", "fixture")
    assert against_zero["fixture / zero"].isna().all()  # no ratio against a zero baseline


def test_interaction_sizes_frame_has_one_row_per_group() -> None:
    frame = interaction_sizes_frame(chapter_fixture(), {"tokens": fixture_estimator()})
    assert records(frame.drop(columns="provider tokens")) == [
        (1, "u1", "a1", 2, 0, 7),
        (2, "u2", "a2", 2, 0, 7),
        (3, "u3", "a3", 5, 2, 15),
    ]
    assert frame["provider tokens"].isna().all()  # the fixture's turns report no usage

    v3 = interaction_sizes_frame(
        import_pi_session(V3_TREE).active_path(), {"chars": chars_estimator()}
    )
    assert list(v3["first id"]) == ["e02", "e11", "e12", "e15", "e16"]
    assert list(v3["provider tokens"].isna()) == [False, True, False, True, False]


def _rows(statuses: str) -> list[LedgerRow]:
    """One ledger row per letter: k = kept, t = trimmed, o = overflow."""
    names = {"k": "kept", "t": "trimmed", "o": "overflow"}
    return [
        LedgerRow(group=n, entry_ids=[f"u{n}", f"a{n}"], tokens=n, status=names[letter])
        for n, letter in enumerate(statuses, start=1)
    ]


def test_ledger_excerpt_frame_keeps_the_ends_and_both_sides_of_the_cut() -> None:
    frame = ledger_excerpt_frame(_rows("tttttttttkkkkkkkkk"))  # 18 groups, cut before 10
    assert list(frame["group"]) == [1, 2, 3, "…", 8, 9, "cut", 10, 11, "…", 16, 17, 18]
    assert list(frame["status"].iloc[[3, 9]]) == ["4 more groups", "4 more groups"]
    assert frame["status"].iloc[6].startswith("groups above are left out")
    assert records(frame.iloc[[7]]) == [(10, 2, "u10", "a10", 10, "kept")]


def test_ledger_excerpt_frame_without_a_cut_or_with_few_groups() -> None:
    everything = ledger_excerpt_frame(_rows("kkkkkkkkkk"))
    assert list(everything["group"]) == [1, 2, 3, "…", 8, 9, 10]
    assert everything["status"].iloc[3] == "4 more groups"
    assert list(ledger_excerpt_frame(_rows("tko"), edge=1, around_cut=1)["group"]) == [
        1, "cut", 2, 3,
    ]  # fmt: skip
    assert list(ledger_excerpt_frame(_rows("ttkk"))["group"]) == [1, 2, "cut", 3, 4]


def test_kept_range_frame_reports_build_context_for_each_estimator_and_window() -> None:
    frame = kept_range_frame(
        chapter_fixture(),
        [31, 19, 40],
        reserved_output=4,
        safety_margin=2,
        estimators={"fixture": fixture_estimator()},
    )
    assert records(frame) == [
        ("fixture", 31, 22, 22, 2, "u2", "a3", 7, "trimmed"),
        ("fixture", 19, 10, 15, 1, "u3", "a3", 5, "single_group_overflow"),
        ("fixture", 40, 31, 29, 3, "u1", "a3", 9, "within_budget"),
    ]
    after = kept_range_frame(
        chapter_fixture_after_compaction(),
        [31],
        reserved_output=4,
        safety_margin=2,
        estimators={"fixture": fixture_estimator()},
    )
    # the summary is paid (12 = 5 + 7) but is not a group
    assert records(after) == [("fixture", 31, 22, 12, 1, "u4", "a4", 2, "trimmed")]


def test_pi_compactions_frame_compares_pi_cut_with_build_context() -> None:
    v3 = import_pi_session(V3_TREE)
    frame = pi_compactions_frame(v3, estimate_tokens=chars_estimator(), keep_recent_tokens=30)
    [row] = records(frame)
    compaction, tokens_before, pi_first, moved, ours, same = row
    assert (compaction, tokens_before, pi_first) == ("e14", 48213, "e12")
    assert "pi keeps from e13" in moved and "e12" in moved  # the importer's move-back note
    # groups before e14 cost 49, 36, 11: with 30 for messages only [e12, e13] fits
    assert (ours, same) == ("e12", True)
    roomy = pi_compactions_frame(v3, estimate_tokens=chars_estimator())
    assert records(roomy)[0][4:] == ("e02", False)  # 20,000 tokens keep the whole path

    none = pi_compactions_frame(import_pi_session(SAMPLE), estimate_tokens=chars_estimator())
    assert none.empty and list(none.columns) == list(frame.columns)


def test_import_notes_make_a_frame() -> None:
    sample = import_pi_session(ROOT / "data" / "pi-sessions" / "large-session.v1.jsonl")
    frame = import_notes_frame(sample)
    assert list(frame.columns) == ["severity", "kind", "line", "entry_id", "detail"]
    assert len(frame) == len(sample.notes) == 27
    assert frame["kind"].value_counts().to_dict() == sample.note_counts()
    assert frame.loc[frame["kind"] == "thinking_dropped", "line"].tolist() == [492]
    # warnings first, each severity in the order the notes were made
    warnings = [n for n in sample.notes if n.severity == "warning"]
    infos = [n for n in sample.notes if n.severity == "info"]
    assert len(warnings) == 18 and {n.kind for n in warnings} == {"missing_result_repaired"}
    assert list(frame["severity"]) == ["warning"] * 18 + ["info"] * 9
    assert list(zip(frame["kind"], frame["line"], strict=True)) == [
        (n.kind, n.line) for n in [*warnings, *infos]
    ]


def test_checks_frame_speaks_the_editions_language() -> None:
    from course_lib.track.checks import CheckOutcome, LabReport
    from course_lib.track.language import hint_in_language
    from course_lib.views import checks_frame

    detail = (
        "build_context(fixture, max_tokens=24, reserved_output=4, safety_margin=2): expected "
        "kept_entry_ids [u3], got []; hint: 24 - 3 - 4 - 2 = 15: the newest group (15) fits "
        "exactly, so it is no overflow (only a cost greater than the allowance overflows); "
        "[u2, a2] does not fit"
    )
    report = LabReport(
        "11.3",
        [
            CheckOutcome("11.3", "test_a", "passed"),
            CheckOutcome("11.3", "test_b", "failed", detail),
        ],
    )
    english, chinese = checks_frame(report), checks_frame(report, "zh")
    assert list(english["outcome"]) == ["passed", "failed"]
    assert list(chinese["outcome"]) == ["通过", "失败"]
    assert chinese["detail"][1] == hint_in_language(detail, "zh") != detail
    assert list(chinese["test"]) == list(english["test"])
