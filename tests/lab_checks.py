"""Assertion helpers for the lab checks: every failure names the case, what was expected and what came.

A student reads a failing check as one line (``course-lab check`` prints the
first line of the failure), so each helper fails with
``<case>: expected <labelled value>, got <labelled value>[; hint: <rule>]``
and never with pytest's diff, which cuts the difference out of long lists.

An unwritten lab region (``LabNotImplemented``, a ``NotImplementedError``)
is never wrapped: it passes through unchanged, so a fresh starter still
fails with the lab's own "is not implemented yet" message, and the extended
suite can tell "not written yet" from "wrong".

Values compare by ``course_lib.track.tolerance.same_value``: token numbers
up to float rounding (relative 1e-9, as the spec says), everything else
exactly; an error by its class and the ids and locators the spec says it
names (``expect_error``'s ``words``), never by other words.

A hint is written in English and marked ``N_("...")`` where it is written, as
one literal, so ``make catalogs`` extracts it and a Chinese practice folder
reads it in Chinese (``course_lib.track.language.hint_in_language``);
``tests/track/test_hints_zh.py`` fails on a hint that is not marked or has no
translation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NoReturn, TypeVar

import pytest

from course_lib.base.i18n import N_
from course_lib.track.tolerance import same_value

__all__ = [
    "N_",
    "expect",
    "expect_equal",
    "expect_error",
    "expect_no_error",
    "expect_values",
    "fail",
    "ids_of",
    "same_value",
    "shown",
]

T = TypeVar("T")

_PASSED_THROUGH = (NotImplementedError, MemoryError)
"""Errors never wrapped in a case: an unwritten region (``LabNotImplemented``), no memory left."""


def shown(value: object) -> str:
    """A readable form of ``value``, whole: id lists as ``[u1, a1]``, everything else as ``repr``.

    Lists of entry ids are what most checks compare, and without quotes a
    whole group list fits on one line next to the expected one. Nothing is
    cut: the difference a student must find may sit anywhere in the value.
    """
    return _plain(value)


def _plain(value: object) -> str:
    if isinstance(value, list | tuple) and all(_is_id_like(item) for item in value):
        return "[" + ", ".join(_plain(item) for item in value) + "]"
    if isinstance(value, str) and _is_id_like(value):
        return value
    return repr(value)


def _is_id_like(value: object) -> bool:
    """An entry id such as ``r-test``, or a list of them (possibly nested)."""
    if isinstance(value, str):
        return bool(value) and all(char.isalnum() or char in "-_" for char in value)
    if isinstance(value, list | tuple):
        return all(_is_id_like(item) for item in value)
    return False


def _error_text(error: BaseException) -> str:
    """``InteractionError: entry r-test: ...`` on one line, without the module path; whole."""
    return " ".join(f"{type(error).__name__}: {error}".split())


def fail(case: str, expected: str, got: str, hint: str = "") -> NoReturn:
    """Fail the check with ``<case>: expected <expected>, got <got>[; hint: <hint>]``."""
    message = f"{case}: expected {expected}, got {got}"
    if hint:
        message += f"; hint: {hint}"
    pytest.fail(message, pytrace=False)


def expect(case: str, condition: bool, *, expected: str, got: str, hint: str = "") -> None:
    """Fail with the given descriptions unless ``condition`` holds (for checks that are not ``==``)."""
    if not condition:
        fail(case, expected, got, hint)


def expect_equal(case: str, expected: object, actual: object, *, hint: str = "") -> None:
    """Fail unless ``same_value(expected, actual)``; ``case`` says which value of which scenario it is.

    Token numbers anywhere in the value agree up to float rounding (the spec's
    ``math.isclose(rel_tol=1e-9)``): a rule is judged, not the order of its sums.
    """
    if same_value(expected, actual):
        return
    want = expected.splitlines() if isinstance(expected, str) else None
    got = actual.splitlines() if isinstance(actual, str) else None
    if want is not None and got is not None and want != got and "\n" in f"{expected}{actual}":
        # A rendered text: name the first line that differs, not two cut-down blobs.
        line = next(
            (i for i, pair in enumerate(zip(want, got, strict=False)) if pair[0] != pair[1]),
            min(len(want), len(got)),
        )
        fail(
            f"{case}, line {line + 1}",
            shown(want[line]) if line < len(want) else "no more lines",
            shown(got[line]) if line < len(got) else "no more lines",
            hint,
        )
    fail(case, shown(expected), shown(actual), hint)


def expect_values(
    case: str, expected: Mapping[str, object], actual: Mapping[str, object], *, hint: str = ""
) -> None:
    """Compare several labelled values at once; the message lists only the labels that differ.

    ``expect_values("31 / 4 / 2", {"tokens.total": 31}, {"tokens.total": result.tokens.total})``
    fails with ``31 / 4 / 2: expected tokens.total 31, got tokens.total 24``. A label
    on one side only is a difference too (shown as ``(absent)``). Values compare
    by ``same_value``, like ``expect_equal``'s.
    """
    labels = [*expected, *(label for label in actual if label not in expected)]
    wrong = [
        label
        for label in labels
        if label not in expected
        or label not in actual
        or not same_value(expected[label], actual[label])
    ]
    if wrong:
        fail(
            case,
            ", ".join(f"{label} {_side(expected, label)}" for label in wrong),
            ", ".join(f"{label} {_side(actual, label)}" for label in wrong),
            hint,
        )


def _side(values: Mapping[str, object], label: str) -> str:
    return shown(values[label]) if label in values else "(absent)"


def expect_no_error(
    case: str, call: Callable[[], T], *, expected: str = "no error", hint: str = ""
) -> T:
    """Run ``call`` for ``case`` and return its result; an error fails naming the case.

    ``expected`` says what the call should have returned, so the message reads
    ``<case>: expected <what>, got InteractionError: ...``.
    """
    try:
        return call()
    except _PASSED_THROUGH:
        raise  # an unwritten lab region, or no memory left: their own message says it best
    except Exception as error:
        fail(case, expected, _error_text(error), hint)


def expect_error(
    case: str,
    error_type: type[BaseException],
    call: Callable[[], object],
    *,
    words: Iterable[str] = (),
    hint: str = "",
) -> BaseException:
    """Fail unless ``call`` raises ``error_type`` whose message contains every one of ``words``.

    ``words`` are only what the spec says the error names (ids, field paths,
    and its few quoted words such as "missing result"): the rest of the
    message is the student's to phrase. Returns the error, for checks that
    look further at it.
    """
    words = list(words)
    wanted = error_type.__name__ + (f" naming {', '.join(map(repr, words))}" if words else "")
    try:
        result = call()
    except _PASSED_THROUGH:
        raise
    except error_type as error:
        missing = [word for word in words if word not in str(error)]
        if missing:
            fail(
                case,
                wanted,
                f"{_error_text(error)} (without {', '.join(map(repr, missing))})",
                hint,
            )
        return error
    except Exception as error:
        fail(case, wanted, _error_text(error), hint)
    fail(case, wanted, f"no error (it returned {_returned(result)})", hint)


def _returned(result: object) -> str:
    """A plain value as itself, groups and entries by their ids, any other object by its type.

    A whole result object would flood the line and hide what matters.
    """
    if isinstance(result, list | tuple) and result:
        if all(hasattr(item, "entry_ids") for item in result):
            return "the groups " + shown([item.entry_ids for item in result])
        if all(hasattr(item, "id") for item in result):
            return "the entries " + shown(ids_of(result))
        if not all(_is_id_like(item) or item is None for item in result):
            return f"a list of {len(result)} {type(result[0]).__name__}"
    if result is None or isinstance(result, str | int | float | list | tuple):
        return shown(result)
    return f"a {type(result).__name__}"


def ids_of(items: Sequence[object]) -> list[str]:
    """The ``id`` of each entry (for messages that name entries, not whole objects)."""
    return [getattr(item, "id", repr(item)) for item in items]
