"""``course-lab inspect`` reads back whatever the store accepted, at every limit's edge.

The same cases as ``tests/base/test_store_limits.py``, which checks the stores
and ``read_session_file`` in the rules' own environment; here the inspect tool
(which needs the workbook's extras) reads each accepted file too, both through
its loader and as the command, end to end.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from runners import Runner
from store_limit_cases import check_symmetry, deep, enclosing, target_wire

from course_lib.base.wire import DEFAULT_LIMITS, dumps_line, measure_json


@pytest.mark.parametrize("field", ["metadata", "arguments", "details"])
def test_inspect_reads_a_line_at_the_depth_limit(
    tmp_path: Path, course_lab: Runner, field: str
) -> None:
    value = deep(DEFAULT_LIMITS.max_depth - enclosing(field), "leaf")
    assert check_symmetry(tmp_path, field, value, course_lab) is None


def test_inspect_reads_a_line_of_exactly_16_mib(tmp_path: Path, course_lab: Runner) -> None:
    base = len(dumps_line(target_wire("metadata", ""))) - 1
    value = "x" * (DEFAULT_LIMITS.max_line_chars - base)
    assert check_symmetry(tmp_path, "metadata", value, course_lab) is None


def test_inspect_reads_a_line_of_exactly_100000_containers(
    tmp_path: Path, course_lab: Runner
) -> None:
    base = measure_json(target_wire("arguments", [])).containers
    value = [[] for _ in range(DEFAULT_LIMITS.max_containers - base)]
    assert check_symmetry(tmp_path, "arguments", value, course_lab) is None


def test_inspect_reads_the_session_a_refusal_left_whole(tmp_path: Path, course_lab: Runner) -> None:
    value = deep(DEFAULT_LIMITS.max_depth + 1 - enclosing("details"), "leaf")
    refusal = check_symmetry(tmp_path, "details", value, course_lab)
    assert refusal is not None and "entry r1" in str(refusal)
