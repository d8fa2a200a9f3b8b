"""The student track in two languages: the lines it prints, and which one a practice folder speaks.

The chapter and its TypeScript course are written in Chinese, so the track can
speak either: ``course-lab practice 11 DIR --lang zh`` writes starters with
Chinese guidance, and records the language in ``DIR/.course-lab.json`` so that
``check`` and ``solution`` on that folder answer in Chinese without the flag
again (an explicit ``--lang`` wins). The library's own exception messages stay
English; the Chinese notebooks explain them.

Every line is written in English where it is printed, with ``tr_shown``
(``tr`` of ``course_lib.base.i18n``, paths made printable); the Chinese comes
from the gettext catalog, and ``tests/base/test_i18n.py`` fails when a line
has no Chinese or the two languages' ``{placeholders}`` differ. ``Lang``,
``LANGUAGES`` and ``DEFAULT_LANGUAGE`` live in ``course_lib.base.i18n`` and
are re-exported here.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ..base.errors import CourseError
from ..base.i18n import DEFAULT_LANGUAGE, LANGUAGES, Lang, has_translation, tr
from ..base.text_rules import visible_name

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "LANGUAGE_FILE",
    "Lang",
    "check_language",
    "folder_language",
    "hint_in_language",
    "tr_shown",
    "wrap_wide",
    "write_folder_language",
]

LANGUAGE_FILE = ".course-lab.json"
"""Written into a practice folder by ``course-lab practice``: ``{"lang": "zh"}``."""


def tr_shown(lang: Lang, message: str, /, **values: object) -> str:
    """``tr``, each text or path value first made printable (``visible_name``).

    A folder copied from another machine may have a name that is not UTF-8;
    its line still prints. Babel extracts ``message`` as it does ``tr``'s.
    """
    shown = {
        name: visible_name(value) if isinstance(value, str | os.PathLike) else value
        for name, value in values.items()
    }
    return tr(lang, message, **shown)


def _columns(text: str) -> int:
    """How many screen columns ``text`` takes: a Chinese character (or full-width sign) two."""
    return sum(2 if ord(char) >= 0x2E80 else 1 for char in text)


_BREAKS = " ，；。、）"
"""A line may break after one of these (a space is dropped where it breaks)."""


def wrap_wide(paragraph: str, columns: int = 84, *, first_columns: int | None = None) -> list[str]:
    """Lines of at most ``columns`` screen columns (``first_columns`` for the first line).

    A line breaks after Chinese punctuation or at a space when one is near, so
    an identifier such as ``describe_validation_error`` is never cut in two,
    nor a docstring's double-backquoted code span when a break outside it fits.
    """
    lines: list[str] = []
    line = ""
    spans = 0  # the double backquotes of the lines already cut
    for char in paragraph:
        line += char
        limit = columns if lines or first_columns is None else first_columns
        if _columns(line) > limit:
            breaks = [
                at
                for at, sign in enumerate(line, 1)
                if sign in _BREAKS and _columns(line[:at].rstrip()) <= limit
            ]
            outside = [at for at in breaks if (spans + line[:at].count("``")) % 2 == 0]
            cut = (outside or breaks or [len(line) - 1])[-1]
            lines.append(line[:cut].rstrip())
            spans += line[:cut].count("``")
            line = line[cut:].lstrip()
    if line.strip():
        lines.append(line.rstrip())
    return lines


_HINT = "; hint: "


_FRAME = re.compile(r"^(?P<case>.*?): expected (?P<expected>.*?), got (?P<got>.*)$")
"""A lab check's ``<case>: expected <value>, got <value>`` (``tests/lab_checks.py``'s ``fail``)."""


def hint_in_language(detail: str, lang: str) -> str:
    """A check's ``<case>: expected ..., got ...; hint: <rule>`` in ``lang``: its frame and hint.

    The case and the values are data (ids, numbers, reprs, the library's own
    words) and stay as they are; the words around them (``expected``,
    ``got``, ``hint``) and the hint, the rule a student acts on, are looked
    up in the catalog (the lab checks mark every hint with ``N_``). A hint
    without a translation keeps its English words, labelled so
    (``提示（英文）：``), rather than being dropped. A line of another shape
    (an error, an unwritten lab) is left as it is, but for its hint.
    """
    if lang == DEFAULT_LANGUAGE or lang not in LANGUAGES:
        return detail
    chosen = check_language(lang)
    case, hint = detail.rsplit(_HINT, 1) if _HINT in detail else (detail, None)
    frame = _FRAME.match(case)
    if frame:
        # TRANSLATORS: a failed check: its case, the value it expected, the value it got
        case = tr(chosen, "{case}: expected {expected}, got {got}", **frame.groupdict())
    if hint is None:
        return case
    if has_translation(chosen, hint):
        return tr(chosen, "{case}; hint: {hint}", case=case, hint=tr(chosen, hint))
    # TRANSLATORS: a hint the catalog lacks, shown in English
    return tr(chosen, "{case}; hint (in English): {hint}", case=case, hint=hint)


def check_language(lang: str) -> Lang:
    """``lang`` if the track speaks it, else a ``CourseError`` naming the choices."""
    for known in LANGUAGES:
        if lang == known:
            return known
    raise CourseError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")


def write_folder_language(directory: Path, lang: Lang) -> Path:
    """Record ``lang`` in ``directory``, so later commands on the folder speak it."""
    path = directory / LANGUAGE_FILE
    path.write_text(json.dumps({"lang": lang}) + "\n", encoding="utf-8")
    return path


def folder_language(directory: Path | None) -> Lang:
    """The language a practice folder recorded; English for the reference or an older folder."""
    if directory is None:
        return DEFAULT_LANGUAGE
    path = directory / LANGUAGE_FILE
    if not path.is_file():
        return DEFAULT_LANGUAGE
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CourseError(f"{path}: not a language file ({error}); delete it or fix it") from error
    lang = recorded.get("lang") if isinstance(recorded, dict) else None
    if not isinstance(lang, str):
        raise CourseError(f'{path}: expected {{"lang": "en"}} or {{"lang": "zh"}}')
    return check_language(lang)
