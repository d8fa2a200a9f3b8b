"""The workbook in two languages: gettext catalogs whose message ids are the English text.

The course is taught in English and in Chinese, so every line a student or an
instructor reads (the track's summaries, the lab checks' hints, the instant
checks' answers, the notebooks' table headers, the grader's feedback) goes
through this module. The English text is the message id: code reads as
English, English needs no catalog at all, and a line the catalog lacks shows
in English rather than disappearing. The Chinese lives in one catalog,
``course_lib/locale/zh/LC_MESSAGES/course_lib.po``, and runs from its compiled
``course_lib.mo`` beside it (shipped as package data).

Only the standard library's ``gettext`` runs here, so the rules keep their
three dependencies. Babel is a contributor's tool: ``make catalogs`` extracts
every marked message into ``course_lib/locale/course_lib.pot``, merges it into
the ``.po`` and compiles the ``.mo``; ``tests/base/test_i18n.py`` fails when
one of them is stale or a message has no Chinese translation.

Marking a message: Babel finds a literal string given as the message of
``tr`` (its second argument), as the two messages of ``tr_plural`` (second and
third), of ``course_lib.track.language.tr_shown`` (second), or wrapped in
``N_``, the marker for text stored in a table and translated later:

>>> tr("en", "Lab {lab}: {passed}/{total} passed", lab="11.3", passed=2, total=3)
'Lab 11.3: 2/3 passed'
>>> tr("zh", "Lab {lab}: {passed}/{total} passed", lab="11.3", passed=2, total=3)
'Lab 11.3：2/3 项通过'
>>> tr_plural("en", "{count} test reaches {lab}", "{count} tests reach {lab}", 1, count=1, lab="x")
'1 test reaches x'

Placeholders are ``str.format`` fields with the same names in both
languages. They are filled only when values are given, so a message used
without values may hold braces of its own (``{'A', 'B'}``).
"""

from __future__ import annotations

import functools
import gettext
from pathlib import Path
from typing import Literal, get_args

from .errors import CourseError

__all__ = [
    "DEFAULT_LANGUAGE",
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "Lang",
    "has_translation",
    "tr",
    "tr_plural",
    "translation",
]

Lang = Literal["en", "zh"]
LANGUAGES: tuple[Lang, ...] = get_args(Lang)
DEFAULT_LANGUAGE: Lang = "en"

DOMAIN = "course_lib"
"""The catalogs' name: ``<LOCALE_DIR>/<lang>/LC_MESSAGES/course_lib.mo``."""

LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"
"""Where the catalogs live inside the package (``course_lib/locale``)."""

_UNTRANSLATED = "\x00untranslated"
"""What the probe's fallback answers: no message id holds a NUL character."""


class _Untranslated(gettext.NullTranslations):
    """The fallback of a probe catalog: it marks a message the catalog does not translate."""

    def gettext(self, message: str) -> str:
        return _UNTRANSLATED

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return _UNTRANSLATED


def _catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"


def _load(lang: Lang) -> gettext.GNUTranslations:
    path = _catalog_path(lang)
    try:
        with path.open("rb") as file:
            return gettext.GNUTranslations(file)
    except OSError as error:
        raise CourseError(
            f"no compiled catalog for {lang!r} ({error}); run `make catalogs`"
        ) from error


def _known(lang: str) -> Lang:
    for known in LANGUAGES:
        if lang == known:
            return known
    raise CourseError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")


@functools.cache
def translation(lang: Lang) -> gettext.NullTranslations:
    """The catalog of ``lang``, loaded once: English is ``NullTranslations`` (the ids are English).

    Any other language reads its compiled ``.mo``; a message it lacks comes back
    as its English id, as gettext does.
    """
    known = _known(lang)
    return gettext.NullTranslations() if known == "en" else _load(known)


@functools.cache
def _probe(lang: Lang) -> gettext.NullTranslations:
    """A second copy of ``lang``'s catalog whose fallback marks what it does not translate."""
    catalog = _load(lang)
    catalog.add_fallback(_Untranslated())
    return catalog


def tr(lang: Lang, message: str, /, **values: object) -> str:
    """``message`` in ``lang``, then its ``{placeholders}`` filled from ``values`` (if any).

    The same call serves both languages, so a caller never branches on ``lang``.
    """
    text = translation(lang).gettext(message)
    return text.format(**values) if values else text


def tr_plural(lang: Lang, singular: str, plural: str, n: int, /, **values: object) -> str:
    """The form of ``singular``/``plural`` that ``n`` takes in ``lang``, placeholders filled.

    English picks ``singular`` for 1 and ``plural`` otherwise; Chinese has one
    form for every ``n``. ``n`` is not a value by itself: pass it by name too
    when the text shows it (``count=n``).
    """
    text = translation(lang).ngettext(singular, plural, n)
    return text.format(**values) if values else text


def N_(message: str) -> str:  # the name gettext tools know
    """``message`` unchanged: it marks text kept in a table, so Babel extracts it.

    The table keeps the English; whoever shows the text translates it then,
    with ``tr(lang, text)``.
    """
    return message


def has_translation(lang: Lang, message: str) -> bool:
    """Whether ``lang``'s catalog translates ``message`` (English always does: it is the id).

    ``tr`` falls back to English quietly; tests and ``make mutants`` use this
    to insist that a message has its translation.
    """
    known = _known(lang)
    if known == "en":
        return True
    return _probe(known).gettext(message) != _UNTRANSLATED
