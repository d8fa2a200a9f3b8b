"""Shared test set-up: which implementation the lab checks run against.

By default the lab checks test the reference ``course_lib``. With
``--impl DIR`` they test a student's practice package instead, so a student
runs exactly the checks CI runs.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import course_lib
from course_lib.practice import load_practice_package


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--impl",
        metavar="DIR",
        default=None,
        help="run the lab checks against the practice package in DIR (default: course_lib)",
    )


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> ModuleType:
    """The implementation under test: ``course_lib`` or the practice package given by --impl."""
    directory = request.config.getoption("--impl")
    if directory is None:
        return course_lib
    return load_practice_package(Path(directory))
