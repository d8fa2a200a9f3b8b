"""Every Python name of the TypeScript -> Python table exists where the table says it does.

Notebook 00 shows ``TS_TO_PYTHON`` to a reader coming from the chapter's
TypeScript; a renamed function, parameter or field must fail here, not
mislead a student there.
"""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

import course_lib
from course_lib.track.catalogue import TS_TO_PYTHON
from course_lib.views.lab_map import names_frame


def fields_of(owner: object) -> set[str]:
    """A function's parameters, a pydantic model's or a dataclass's fields."""
    if inspect.isfunction(owner):
        return set(inspect.signature(owner).parameters)
    if dataclasses.is_dataclass(owner):
        return {field.name for field in dataclasses.fields(owner)}
    return set(owner.model_fields)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("typescript", "python", "where"), TS_TO_PYTHON)
def test_each_python_name_exists_in_course_lib(typescript: str, python: str, where: str) -> None:
    if not where:
        assert python in course_lib.__all__ and hasattr(course_lib, python), python
    else:
        assert where in course_lib.__all__, where
        assert python in fields_of(getattr(course_lib, where)), f"{where}.{python}"


def test_the_table_is_the_chapters_camel_case_beside_snake_case() -> None:
    typescript = [row[0] for row in TS_TO_PYTHON]
    assert len(set(typescript)) == len(typescript)
    for name, python, where in TS_TO_PYTHON:
        if where:  # a parameter or a field: the same words, snake_case
            words = [part.lower() for part in re.findall(r"[A-Z]?[a-z]+", name)]
            assert python == "_".join(words), (name, python)
    for expected in ("groupInteractions", "buildContext", "keptEntryIds", "firstKeptEntryId"):
        assert expected in typescript


def test_names_frame_says_where_each_name_lives() -> None:
    frame = names_frame().set_index("chapter (TypeScript)")
    assert frame.loc["buildContext"].tolist() == ["build_context", "course_lib"]
    assert frame.loc["maxTokens"].tolist() == ["max_tokens", "build_context(...)"]
    assert frame.loc["keptEntryIds"].tolist() == ["kept_entry_ids", "BuildContextResult"]
    assert len(frame) == len(TS_TO_PYTHON)
