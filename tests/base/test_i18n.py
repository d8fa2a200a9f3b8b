"""The gettext catalogs as the package reads them: ``tr`` in both languages.

``course_lib.base.i18n`` reads the compiled catalog with the standard library
alone, so these tests need nothing more (``make test-rules`` runs them). That
the catalogs match the code is held by ``tests/tools/test_catalogs.py``, with
Babel, the tool ``make catalogs`` runs.
"""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest

from course_lib.base import i18n
from course_lib.base.errors import CourseError
from course_lib.base.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    N_,
    has_translation,
    tr,
    tr_plural,
    translation,
)

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = ROOT / "course_lib" / "locale"
TEMPLATE = CATALOGS / "course_lib.pot"
RUN_MAKE = "run `make catalogs` (then translate what it adds to the .po and run it again)"
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


# --- tr, tr_plural, N_ and has_translation -------------------------------------------------


def test_english_is_the_default_and_needs_no_catalog() -> None:
    assert DEFAULT_LANGUAGE == "en" and LANGUAGES == ("en", "zh")
    assert type(translation("en")) is gettext.NullTranslations
    assert translation("zh") is translation("zh")  # loaded once
    line = "Lab {lab}: {passed}/{total} passed"
    assert tr("en", line, lab="11.3", passed=2, total=3) == "Lab 11.3: 2/3 passed"
    assert tr("en", "entries() returns copies") == "entries() returns copies"


def test_tr_translates_then_fills_the_same_placeholders() -> None:
    line = "Lab {lab}: {passed}/{total} passed"
    assert tr("zh", line, lab="11.3", passed=2, total=3) == "Lab 11.3：2/3 项通过"
    assert tr("zh", "entries() returns copies") == "entries() 返回拷贝"
    # Without values nothing is filled: a message may hold braces of its own.
    shape = "a set of letters such as {'A', 'B'}"
    assert tr("en", shape) == shape and tr("zh", shape) == "字母的集合，例如 {'A', 'B'}"


def test_a_value_is_never_read_as_a_template() -> None:
    assert tr("zh", "not written yet: {files}", files="{x}.py") == "尚未编写：{x}.py"


def test_tr_plural_picks_the_form_in_each_language() -> None:
    singular = "  ({count} passing test not listed)"
    plural = "  ({count} passing tests not listed)"
    assert tr_plural("en", singular, plural, 1, count=1) == "  (1 passing test not listed)"
    assert tr_plural("en", singular, plural, 2, count=2) == "  (2 passing tests not listed)"
    assert tr_plural("en", singular, plural, 0, count=0) == "  (0 passing tests not listed)"
    for n in (0, 1, 2):  # Chinese has one form
        assert tr_plural("zh", singular, plural, n, count=n) == f"  （另有 {n} 项通过的测试未列出）"


def test_a_message_the_catalog_lacks_stays_english_and_says_so() -> None:
    unknown = "a sentence nobody marked for translation"
    assert tr("zh", unknown) == unknown
    assert not has_translation("zh", unknown)
    assert has_translation("en", unknown)  # English is the message id
    assert has_translation("zh", "entries() returns copies")
    assert has_translation("zh", "  ({count} passing test not listed)")  # a plural's singular
    assert tr("zh", unknown) == unknown  # asking changed nothing


def test_n_marks_without_changing() -> None:
    assert N_("status") == "status"


def test_an_unknown_language_is_one_clear_error() -> None:
    with pytest.raises(CourseError, match="unknown language 'fr'; choose one of en, zh"):
        tr("fr", "status")  # type: ignore[arg-type]
    with pytest.raises(CourseError, match="unknown language 'fr'"):
        has_translation("fr", "status")  # type: ignore[arg-type]


def test_the_track_re_exports_the_languages() -> None:
    from course_lib.track import language

    assert language.Lang is i18n.Lang
    assert language.LANGUAGES is i18n.LANGUAGES
    assert language.DEFAULT_LANGUAGE == i18n.DEFAULT_LANGUAGE


def test_the_compiled_catalog_is_where_the_package_reads_it() -> None:
    """An installed course_lib (not only a checkout) ships every language's ``.mo``."""
    for lang in LANGUAGES:
        if lang != DEFAULT_LANGUAGE:
            assert (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / f"{i18n.DOMAIN}.mo").is_file()


def test_the_committed_template_holds_no_date_and_no_path() -> None:
    """``--omit-header --no-location``: the template changes only when a message does."""
    text = TEMPLATE.read_text(encoding="utf-8")
    assert "POT-Creation-Date" not in text and "\n#: " not in text
    assert str(ROOT) not in text and "/home/" not in text
