"""Pause Python's cycle collector while a file is read into objects that all stay alive.

Why: reading a session (a store opening its file, an importer turning an
agent's file into entries) builds tens of thousands of dicts, lists and models,
and every one is kept by the result. The cycle collector runs every few
hundred allocations and, now and then, walks the whole heap (the caller's own
objects included) to find garbage it cannot find here. Paused, the read costs
what its own work costs; reference counting still frees every object that is
let go. Measured in ``benchmarks/bench_store_open.py`` and ``bench_agent_import.py``.
"""

from __future__ import annotations

import gc
from types import TracebackType

__all__ = ["CollectorPaused"]

PROMOTE_AFTER = 1_000
"""Objects a read must keep (entries, say) before they are promoted: below that, the walk
it saves is short, and promoting would also age whatever young garbage the caller has."""


class CollectorPaused:
    """``with CollectorPaused() as paused:`` the collector is off, and restored as it was.

    Set ``paused.kept`` to how many results the read keeps: from
    ``PROMOTE_AFTER`` on, the young objects are promoted on the way out (see
    ``promote_young_objects``) so the first collection after the read does not
    walk them all only to free nothing.
    """

    def __init__(self) -> None:
        self.kept = 0
        self._collecting = False

    def __enter__(self) -> CollectorPaused:
        self._collecting = gc.isenabled()
        gc.disable()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            if (
                self._collecting
                and kind is None
                and self.kept >= PROMOTE_AFTER
                and gc.get_freeze_count() == 0
            ):
                promote_young_objects()
        finally:
            if self._collecting:  # one call, nothing between the test and it: no signal skips it
                gc.enable()


def promote_young_objects() -> None:
    """Move every tracked object to the oldest generation without walking it.

    Why: the objects just read are all alive and will stay so; left young, the
    first collection after reading would walk every one of them (a third of
    the time a large open takes) only to find nothing to free. ``freeze`` then
    ``unfreeze`` splices the generations' lists into the oldest one, in
    constant time; it is only done when nothing else is frozen, since
    ``unfreeze`` would thaw that too.
    """
    try:
        gc.freeze()
    finally:
        gc.unfreeze()
