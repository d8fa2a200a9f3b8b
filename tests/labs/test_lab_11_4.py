"""Lab 11.4 — creating a compaction entry is pure (2 checks)."""

from __future__ import annotations

from functools import partial
from types import ModuleType
from typing import Any

import pytest
from lab_checks import N_, expect, expect_equal, expect_error, expect_no_error, expect_values, shown
from path_oracle import groups_of, random_paths

pytestmark = pytest.mark.lab_11_4

CREATE = "create_compaction_entry(fixture, id=compact-1, first_kept_entry_id=u2)"
COPY_RULE = N_(
    "the candidate goes through parse_session_entry, which validates it and returns a "
    "copy sharing nothing with the summary passed in"
)


def test_compaction_entry_derives_its_parent_and_shares_nothing(impl: ModuleType) -> None:
    path = impl.chapter_fixture()
    before = [entry.to_wire() for entry in path]
    summary = impl.fixture_summary()

    def create(summary: Any) -> Any:
        return impl.create_compaction_entry(
            path,
            id="compact-1",
            timestamp=100,
            summary=summary,
            first_kept_entry_id="u2",
            tokens_before=29,
        )

    entry = expect_no_error(CREATE, partial(create, summary), expected="a compaction entry")

    expect(
        CREATE,
        isinstance(entry, impl.CompactionEntry),
        expected="a CompactionEntry",
        got=f"a {type(entry).__name__}",
    )
    expect_values(
        CREATE,
        {"parent_id": "a3", "first_kept_entry_id": "u2", "tokens_before": 29},
        {
            "parent_id": entry.parent_id,
            "first_kept_entry_id": entry.first_kept_entry_id,
            "tokens_before": entry.tokens_before,
        },
        hint=N_("the parent is always the last entry of the path (a3); the caller never passes it"),
    )
    expect_equal(f"{CREATE}: summary", summary, entry.summary)
    summary.constraints.append("changed after creation")
    expect_equal(
        "after appending to the caller's summary.constraints: the entry's constraints",
        ["Restore only the selected branch of the session tree"],
        entry.summary.constraints,
        hint=COPY_RULE,
    )
    entry.summary.next.append("changed in the entry")
    expect_equal(
        "after appending to the entry's summary.next: the caller's next",
        ["Confirm the JSONL write boundary"],
        summary.next,
        hint=COPY_RULE,
    )
    changed = [w["id"] for w, e in zip(before, path, strict=True) if e.to_wire() != w]
    expect(
        f"{CREATE}: the path",
        not changed,
        expected="the path unchanged",
        got=f"entry {shown(changed)} changed",
        hint=N_("creating the entry is pure: it neither changes the path nor writes to a store"),
    )

    case = f"{CREATE} with the summary as a wire dict"
    from_wire = expect_no_error(
        case, partial(create, impl.fixture_summary().to_wire()), expected="a compaction entry"
    )
    from_object = create(impl.fixture_summary())
    expect_equal(
        f"{case}: to_wire()",
        from_object.to_wire(),
        from_wire.to_wire(),
        hint=N_("a summary given as a CompactionSummary or as its wire dict gives the same entry"),
    )
    _random_paths_cut_only_at_group_starts(impl)


def test_compaction_entry_rejects_bad_paths_ids_and_cut_points(impl: ModuleType) -> None:
    path = impl.chapter_fixture()

    def create(active_path: list, **changes: object) -> Any:
        options = {
            "id": "compact-1",
            "timestamp": 100,
            "summary": impl.fixture_summary(),
            "first_kept_entry_id": "u2",
            "tokens_before": 29,
        }
        return impl.create_compaction_entry(active_path, **{**options, **changes})

    expect_error(
        "create_compaction_entry(an empty path)",
        impl.CompactionError,
        partial(create, []),
        words=["empty active path"],
    )
    wire_on_path = [*path[:-1], path[-1].to_wire()]
    expect_error(
        "create_compaction_entry(fixture whose last entry a3 is a wire dict, not an entry)",
        impl.SessionEntryError,
        partial(create, wire_on_path),
        words=["a3"],
        hint=N_(
            "refuse a path holding anything but entries first (require_session_entries), so "
            "a dict is named rather than failing somewhere inside"
        ),
    )
    expect_error(
        "create_compaction_entry(fixture, id=a3)",
        impl.CompactionError,
        partial(create, path, id="a3"),
        words=["a3", "duplicate"],
        hint=N_("an id already on the path is refused, naming it"),
    )
    cut_rule = N_(
        "the first kept entry must start a complete interaction: a group start that "
        "group_interactions finds (u1, u2 or u3 here)"
    )
    for cut in ["a2", "calls", "r-test", "nope"]:
        expect_error(
            f"create_compaction_entry(fixture, first_kept_entry_id={cut})",
            impl.CompactionError,
            partial(create, path, first_kept_entry_id=cut),
            words=[cut, "not the first message of a complete interaction"],
            hint=cut_rule,
        )
    replay = impl.system_replay_fixture()
    expect_error(
        "create_compaction_entry(system replay fixture, first_kept_entry_id=patch-2)",
        impl.CompactionError,
        partial(create, replay, id="compact-2", first_kept_entry_id="patch-2"),
        words=["patch-2", "not the first message of a complete interaction"],
        hint=N_("a system message belongs to no group, so it cannot be a first kept entry"),
    )
    bad_summary = {**impl.fixture_summary().to_wire(), "files": []}
    expect_error(
        "create_compaction_entry(fixture, a summary with files)",
        impl.SessionEntryError,
        partial(create, path, summary=bad_summary),
        words=["compact-1", "summary.files"],
        hint=N_("the candidate goes through parse_session_entry"),
    )
    expect_error(
        "create_compaction_entry(fixture, tokens_before=-1)",
        impl.SessionEntryError,
        partial(create, path, tokens_before=-1),
        words=["tokensBefore"],
        hint=N_("the candidate goes through parse_session_entry"),
    )


def _random_paths_cut_only_at_group_starts(impl: ModuleType) -> None:
    """Beyond the fixture: every group start is a cut point, nothing else is."""
    for number, (path, _budget, _estimate) in enumerate(random_paths(impl, count=40)):
        if not path:
            continue
        starts = {group[0].id for group in groups_of(path)}
        for entry in path:
            case = f"create_compaction_entry(random path {number}, first_kept_entry_id={entry.id})"
            create = partial(
                impl.create_compaction_entry,
                path,
                id="compact-x",
                timestamp=100,
                summary=impl.fixture_summary(),
                first_kept_entry_id=entry.id,
                tokens_before=1,
            )
            if entry.id in starts:
                created = expect_no_error(case, create)
                expect_equal(
                    f"{case}: parent_id",
                    path[-1].id,
                    created.parent_id,
                    hint=N_("the parent is always the last entry of the path"),
                )
            else:
                expect_error(
                    case,
                    impl.CompactionError,
                    create,
                    words=[entry.id, "not the first message of a complete interaction"],
                    hint=N_(
                        "only the first message of an interaction (a user message that opens "
                        "a group) can be the first kept entry"
                    ),
                )
