"""The gettext catalogs: ``tr`` in both languages, and catalogs that match the code.

``course_lib.base.i18n`` reads the compiled catalog with the standard
library alone; these tests also hold the catalogs to the code (Babel, a
contributor's tool, reads them; without it those tests are skipped, as in
``make test-rules``, whose environment has only the rules' dependencies):

* the committed ``course_lib.pot`` is what a fresh extraction gives, so a
  message added in code without ``make catalogs`` fails here;
* the Chinese ``.po`` holds exactly the template's messages, each with a
  non-empty, non-fuzzy translation using the same ``{placeholders}``;
* the committed ``.mo`` is what compiling that ``.po`` gives.
"""

from __future__ import annotations

import gettext
import io
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


# --- the catalogs match the code (Babel) ----------------------------------------------------


@pytest.fixture(scope="module")
def babel() -> Any:
    return pytest.importorskip("babel.messages.pofile", reason="Babel reads the catalogs")


def _make_command(tool: str) -> list[str]:
    """The options of ``pybabel <tool>`` in the Makefile's ``catalogs`` recipe, as a list."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ncatalogs:", 1)[1].split("\n\n", 1)[0].replace("\\\n", " ")
    for line in recipe.splitlines():
        words = shlex.split(line)
        if words[:2] == ["$(BIN)/pybabel", tool]:
            return [word.replace("$(CATALOGS)", str(CATALOGS)) for word in words[2:]]
    raise AssertionError(f"no `pybabel {tool}` in the Makefile's catalogs recipe")


def _read_po(babel: Any, path: Path, **options: str) -> Any:
    with path.open("rb") as file:
        return babel.read_po(file, **options)


def _messages(catalog: Any) -> Iterator[Any]:
    return (message for message in catalog if message.id)


def _ids(catalog: Any) -> set[object]:
    return {(message.id, message.context) for message in _messages(catalog)}


def test_the_template_is_what_a_fresh_extraction_gives(babel: Any, tmp_path: Path) -> None:
    fresh = tmp_path / "course_lib.pot"
    options = [
        f"--output-file={fresh}" if option.startswith("--output-file=") else option
        for option in _make_command("extract")
    ]
    command = [sys.executable, "-m", "babel.messages.frontend", "extract", *options]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    committed, extracted = _ids(_read_po(babel, TEMPLATE)), _ids(_read_po(babel, fresh))
    added = sorted(map(str, extracted - committed))
    gone = sorted(map(str, committed - extracted))
    assert (added, gone) == ([], []), f"course_lib.pot is stale: {RUN_MAKE}"


def _catalog_po(lang: str) -> Path:
    return CATALOGS / lang / "LC_MESSAGES" / "course_lib.po"


TRANSLATED = [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalog_holds_exactly_the_template_s_messages(babel: Any, lang: str) -> None:
    template, catalog = _read_po(babel, TEMPLATE), _read_po(babel, _catalog_po(lang), locale=lang)
    assert _ids(catalog) == _ids(template), f"{lang}.po is not merged with the template: {RUN_MAKE}"
    assert not catalog.obsolete, f"{lang}.po keeps removed messages: {RUN_MAKE}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_message_without_a_translation_fails(babel: Any, lang: str) -> None:
    catalog = _read_po(babel, _catalog_po(lang), locale=lang)
    untranslated = [
        message.id
        for message in _messages(catalog)
        if message.fuzzy or not all(message.string if message.pluralizable else [message.string])
    ]
    assert untranslated == [], f"no {lang} translation (or a fuzzy one) for these messages"
    assert catalog.num_plurals == 1 and catalog.charset == "utf-8"


def _placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_translation_uses_the_same_placeholders(babel: Any, lang: str) -> None:
    wrong = []
    for message in _messages(_read_po(babel, _catalog_po(lang), locale=lang)):
        if not message.string or not all(message.string):
            continue  # untranslated: the test above names it
        if message.pluralizable:
            singular, plural = message.id
            known = _placeholders(singular) | _placeholders(plural)
            forms = [_placeholders(form) for form in message.string]
            if not (all(form <= known for form in forms) and forms[-1] == _placeholders(plural)):
                wrong.append(message.id)
        elif _placeholders(message.id) != _placeholders(message.string):
            wrong.append(message.id)
    assert wrong == [], "the translation's {placeholders} differ from the English ones"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalog_is_the_po_compiled(babel: Any, lang: str) -> None:
    from babel.messages.mofile import read_mo, write_mo

    fresh = io.BytesIO()
    write_mo(fresh, _read_po(babel, _catalog_po(lang), locale=lang))
    fresh.seek(0)
    with (CATALOGS / lang / "LC_MESSAGES" / "course_lib.mo").open("rb") as file:
        committed = read_mo(file)

    def pairs(catalog: Any) -> dict[object, object]:
        def frozen(value: object) -> object:  # read_mo gives a plural's forms as a list
            return tuple(value) if isinstance(value, list | tuple) else value

        return {(frozen(m.id), m.context): frozen(m.string) for m in _messages(catalog)}

    assert pairs(committed) == pairs(read_mo(fresh)), f"course_lib.mo is stale: {RUN_MAKE}"
