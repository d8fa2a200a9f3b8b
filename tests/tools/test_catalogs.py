"""The catalogs match the code, as ``make catalogs`` (Babel) makes them.

* the committed ``course_lib.pot`` is what a fresh extraction gives, so a
  message added in code without ``make catalogs`` fails here;
* each translated ``.po`` holds exactly the template's messages, each with a
  non-empty, non-fuzzy translation using the same ``{placeholders}`` (a
  message without its Chinese fails);
* the committed ``.mo`` is what compiling that ``.po`` gives.

Babel is a contributor's tool (``pyproject.toml``'s dev extra), so these tests
live with the tools, not in the rules' environment (``make test-rules``).
"""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages import pofile

from course_lib.base.i18n import DEFAULT_LANGUAGE, LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = ROOT / "course_lib" / "locale"
TEMPLATE = CATALOGS / "course_lib.pot"
RUN_MAKE = "run `make catalogs` (then translate what it adds to the .po and run it again)"
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@pytest.fixture(scope="module")
def babel() -> Any:
    """Babel's reader of ``.po`` files (``read_po``)."""
    return pofile


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
