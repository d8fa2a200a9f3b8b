"""Seeded inputs on which a mutant is compared with the reference (``make mutants``).

A mutant that gives exactly the reference's results here, for its lab's
functions, is listed as equivalent with that evidence; any other mutant
changes behaviour, and its own lab's checks must catch it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import asdict, is_dataclass
from functools import partial
from types import ModuleType
from typing import Any

from path_oracle import random_paths

from course_lib.track.tolerance import same_value

INPUTS = 80
"""How many seeded paths each lab's comparison uses."""


def outcome(call: Callable[[], Any]) -> Any:
    """A comparable form of what ``call`` returns or raises: plain data and the error's words."""
    try:
        return ("value", _plain(call()))
    except Exception as error:  # a mutant may raise anything: that is a behaviour too
        return ("error", type(error).__name__, str(error))


def _plain(value: Any) -> Any:
    if hasattr(value, "to_wire"):
        return value.to_wire()
    if is_dataclass(value) and not isinstance(value, type):
        return {key: _plain(item) for key, item in asdict(value).items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if hasattr(value, "entries") and hasattr(value, "entry_ids"):
        return value.entry_ids
    return value


def _compaction_wire(first_kept: str, parent: str, goal: str = "g") -> dict[str, Any]:
    return {
        "id": "compact-x",
        "parentId": parent,
        "timestamp": 100,
        "type": "compaction",
        "summary": {
            "goal": goal,
            "constraints": ["c"],
            "completed": [],
            "decisions": ["d1", "d2"],
            "changedFiles": [],
            "unresolved": [],
            "next": ["n"],
        },
        "firstKeptEntryId": first_kept,
        "tokensBefore": 10,
    }


def _bad_wires() -> Iterator[dict[str, Any]]:
    base = _compaction_wire("u1", "a1")
    yield base
    edits: list[Callable[[dict[str, Any]], Any]] = [
        lambda w: w["summary"].update(files=w["summary"].pop("changedFiles")),
        lambda w: w.update(first_kept_entry_id=w.pop("firstKeptEntryId")),
        lambda w: w.update(tokensBefore=-1),
        lambda w: w.update(tokensBefore=True),
        lambda w: w.update(timestamp="1"),
        lambda w: w["summary"].pop("goal"),
        lambda w: w["summary"].update(goal="  "),
        lambda w: w["summary"]["next"].append(7),
        lambda w: w.update(extra=1),
        lambda w: w.update(parentId=None),
        lambda w: w.update(tokensBefore=2.5),
    ]
    for edit in edits:
        wire = _compaction_wire("u1", "a1")
        edit(wire)
        yield wire


def _corrupted(path: list[Any], rng: random.Random) -> list[Any]:
    """A copy of ``path`` with one thing made wrong (or left right)."""
    copied = [entry.model_copy(deep=True) for entry in path]
    if len(copied) < 2:
        return copied
    choice = rng.randrange(5)
    index = rng.randrange(len(copied))
    if choice == 0:
        del copied[index]  # a result without its call, a call without its result, ...
    elif choice == 1:
        copied.insert(index, copied[rng.randrange(len(copied))].model_copy(deep=True))
    elif choice == 2:
        rng.shuffle(copied)
    return copied


def differs(reference: ModuleType, mutant: ModuleType, lab: str) -> str | None:
    """``None`` when ``mutant`` behaves as ``reference`` on ``lab``'s seeded inputs, else the
    first input where it does not.

    Token numbers compare as the checks compare them (``same_value``): a mutant that only
    adds the same costs in another order follows the same rule, so it is equivalent.
    """
    for name, call in _cases(lab):
        if not same_value(outcome(partial(call, reference)), outcome(partial(call, mutant))):
            return name
    return None


def _cases(lab: str) -> Iterator[tuple[str, Callable[[ModuleType], Any]]]:
    rng = random.Random(7)
    if lab == "11.1":
        for number, wire in enumerate(_bad_wires()):
            yield f"wire {number}", lambda impl, wire=wire: impl.parse_session_entry(wire)
        return
    for number in range(INPUTS):
        seed = rng.randrange(10**6)

        def paths(impl: ModuleType, seed: int = seed) -> tuple[list[Any], dict[str, int], Any]:
            return next(iter(random_paths(impl, 1, seed=seed)))

        if lab == "11.2":

            def group(impl: ModuleType, seed: int = seed) -> Any:
                path = [entry for entry in paths(impl)[0] if entry.type == "message"]
                return impl.group_interactions(_corrupted(path, random.Random(seed)))

            yield f"group_interactions(random path {number})", group
        elif lab in ("11.3", "transfer"):

            def build(impl: ModuleType, seed: int = seed) -> Any:
                path, budget, estimate = paths(impl)
                if lab == "transfer":
                    return impl.budget_ledger(path, **budget, estimate_tokens=estimate)
                return impl.build_context(path, **budget, estimate_tokens=estimate)

            yield f"{lab} on random path {number}", build
        elif lab == "11.4":

            def create(impl: ModuleType, seed: int = seed) -> Any:
                path = paths(impl)[0]
                chooser = random.Random(seed)
                ids = [entry.id for entry in path] + ["nowhere"]
                if path and chooser.random() < 0.1:  # a wire dict where an entry belongs
                    path = [*path[:-1], path[-1].to_wire()]
                return impl.create_compaction_entry(
                    path if chooser.random() < 0.9 else [],
                    id=chooser.choice(["compact-x", *ids[:1]]),
                    timestamp=100,
                    summary=_compaction_wire("x", "y")["summary"],
                    first_kept_entry_id=chooser.choice(ids),
                    tokens_before=chooser.choice([0, 5, 2.5]),
                )

            yield f"create_compaction_entry(random path {number})", create
        elif lab == "11.5":

            def restore(impl: ModuleType, seed: int = seed) -> Any:
                path, budget, estimate = paths(impl)
                chooser = random.Random(seed)
                entries = list(path)
                for _ in range(chooser.randint(1, 2)):
                    if not entries:
                        break
                    first = chooser.choice([entry.id for entry in entries])
                    wire = _compaction_wire(first, entries[-1].id, goal=f"g{len(entries)}")
                    wire["id"] = f"compact-{len(entries)}"
                    entries.append(impl.parse_session_entry(wire))
                    tail = impl.user_message("more", timestamp=200)
                    entries.append(
                        impl.MessageEntry(
                            id=f"u-after-{len(entries)}",
                            parent_id=entries[-1].id,
                            timestamp=200,
                            message=tail,
                        )
                    )
                return impl.build_context(entries, **budget, estimate_tokens=estimate)

            yield f"build_context(random path {number} with compactions)", restore
    if lab == "11.5":
        for name in ("chapter_fixture_after_compaction", "system_replay_fixture"):
            yield name, lambda impl, name=name: impl.build_context(
                getattr(impl, name)(), max_tokens=31, reserved_output=4, safety_margin=2,
                estimate_tokens=impl.fixture_estimator(),
            )  # fmt: skip
