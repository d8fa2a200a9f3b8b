"""The practice package's docstrings: the reference's in English, translated prose in Chinese.

``course-lab practice 11 DIR --lang zh`` writes each docstring's prose
paragraphs in Chinese (``course_lib.track.docstrings``) and keeps the section
references, the code names and the doctests; the English package's docstrings
are the reference's, untouched. These tests hold the table of paragraphs to
the reference, the Chinese package to its English twin, and run the Chinese
package's doctests once the solution is written.
"""

from __future__ import annotations

import ast
import re

import pytest
from test_track import doctest_outcomes, run_doctests

from course_lib.base.i18n import has_translation, tr
from course_lib.tools.cli import main
from course_lib.track import starters
from course_lib.track.docstrings import (
    STARTER_DOCSTRINGS,
    StarterDocstringError,
    docstring_paragraphs,
    translate_docstrings,
)
from course_lib.track.starters import practice_files, practice_modules, reference_source


def docstrings(text: str, module: str) -> dict[str, str]:
    """``{"budget": ..., "budget.group_costs": ...}``: every docstring of a file, as Python reads it."""
    found: dict[str, str] = {}
    tree = ast.parse(text)
    module_doc = ast.get_docstring(tree, clean=False)
    if module_doc is not None:
        found[module] = module_doc

    def walk(body: list[ast.stmt], names: list[str]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                doc = ast.get_docstring(node, clean=False)
                if doc is not None:
                    found[".".join([*names, node.name])] = doc
                walk(node.body, [*names, node.name])

    walk(tree.body, [module])
    return found


def package_docstrings(files: dict[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, text in files.items():
        found.update(docstrings(text, name.removesuffix(".py")))
    return found


def split_docstring(doc: str) -> tuple[list[str], list[str]]:
    """(prose paragraphs, example lines): a paragraph's lines from its first ``>>>`` on are examples."""
    prose: list[str] = []
    examples: list[str] = []
    for paragraph in re.split(r"\n[ \t]*\n", doc):
        lines = paragraph.split("\n")
        first = next((i for i, line in enumerate(lines) if line.lstrip().startswith(">>>")), None)
        words = lines if first is None else lines[:first]
        if any(line.strip() for line in words):
            prose.append(" ".join(" ".join(line.split()) for line in words if line.strip()))
        if first is not None:
            examples += lines[first:]
    return prose, examples


_CODE = re.compile(r"``.*?``")
_CHAPTER_TITLE = re.compile(r"「[^」]*」")
_WORD = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*")


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def wide(char: str) -> bool:
    return ord(char) >= 0x2E80


def english_runs(paragraph: str, words: int = 4) -> list[str]:
    """Stretches of ``words`` or more English words with no Chinese between them, code left out."""
    text = _CODE.sub(" ", paragraph)
    stretches = re.split(r"[\u2e80-\U0010ffff]+", text)
    return [stretch for stretch in stretches if len(_WORD.findall(stretch)) >= words]


ENGLISH = practice_files()
CHINESE = practice_files(lang="zh")


def test_the_table_lists_every_docstring_paragraph_of_the_reference_and_each_is_in_chinese() -> (
    None
):
    reference: dict[str, list[str]] = {}
    for module in practice_modules():
        reference.update(docstring_paragraphs(reference_source(module), module))
    reference.update(docstring_paragraphs(starters._INIT_DOCSTRING, "__init__"))
    assert {key: list(paragraphs) for key, paragraphs in STARTER_DOCSTRINGS.items()} == reference
    paragraphs = [text for texts in STARTER_DOCSTRINGS.values() for text in texts]
    assert len(paragraphs) > 40  # the reading of the docstrings works
    assert [text for text in paragraphs if not has_translation("zh", text)] == []


def test_the_english_package_keeps_the_reference_s_docstrings() -> None:
    english = package_docstrings(ENGLISH)
    for module in practice_modules():
        reference = docstrings(reference_source(module), module)
        assert {key: english[key] for key in reference} == reference
    assert english["__init__"] == ast.literal_eval(starters._INIT_DOCSTRING)
    assert set(english) == set(STARTER_DOCSTRINGS)


def test_the_chinese_package_translates_every_prose_paragraph_and_keeps_the_examples() -> None:
    english, chinese = package_docstrings(ENGLISH), package_docstrings(CHINESE)
    assert set(chinese) == set(english)
    for key, doc in chinese.items():
        english_prose, english_examples = split_docstring(english[key])
        prose, examples = split_docstring(doc)
        assert examples == english_examples, key  # doctests byte for byte, expected output too
        # A Chinese line may break between two characters, where no space was: compare the text.
        assert [squeezed(text) for text in prose] == [
            squeezed(tr("zh", paragraph)) for paragraph in english_prose
        ], key
        for paragraph in prose:
            assert any(wide(char) for char in _CHAPTER_TITLE.sub("", paragraph)), (key, paragraph)
            assert english_runs(paragraph) == [], (key, paragraph)
        # Section references stay: every "§4" and "Lab 11.3" of the English is there.
        for reference in re.findall(r"§\d|Lab 11\.\d", english[key]):
            assert reference in doc, (key, reference)


def test_the_english_prose_check_finds_english_prose() -> None:
    """The check above would see an untranslated paragraph (and leaves code names alone)."""
    english = package_docstrings(ENGLISH)
    prose, _ = split_docstring(english["budget.select_newest_groups"])
    assert english_runs(prose[1])
    assert (
        english_runs('用 ``check_budget_number("the total of the projection", total)`` 检查') == []
    )


def test_a_reference_docstring_edited_without_its_table_entry_is_named() -> None:
    source = reference_source("budget").replace(
        "Each group's cost: the sum of its messages' estimates.", "What a group costs."
    )
    with pytest.raises(StarterDocstringError, match=r"budget\.group_costs"):
        translate_docstrings(source, "budget", "zh")


def test_the_chinese_package_s_doctests_pass_once_the_solution_is_written(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    english = tmp_path_factory.mktemp("doctests-en") / "ch11"
    chinese = tmp_path_factory.mktemp("doctests-zh") / "ch11"
    assert main(["practice", "11", str(english)]) == 0
    assert main(["practice", "11", str(chinese), "--lang", "zh"]) == 0
    for directory in (english, chinese):
        for lab in ("11", "transfer"):
            assert main(["solution", lab, str(directory)]) == 0
    runs = {name: run_doctests(directory) for name, directory in (("en", english), ("zh", chinese))}
    outcomes = {name: doctest_outcomes(run.stdout, "ch11") for name, run in runs.items()}
    assert runs["zh"].returncode == 0, runs["zh"].stdout
    assert outcomes["zh"] == outcomes["en"] == dict.fromkeys(outcomes["en"], "PASSED")
    assert len(outcomes["zh"]) >= 10
    assert "中文" not in (english / "budget.py").read_text(encoding="utf-8")


def test_a_chinese_line_of_a_docstring_fits_the_line_length() -> None:
    for name, text in CHINESE.items():
        for line in text.splitlines():
            if any(wide(char) for char in line):
                assert sum(2 if wide(char) else 1 for char in line) <= 100, (name, line)


def test_a_translated_docstring_is_never_translated_again() -> None:
    """A docstring already in Chinese is not the reference's: it is never translated again."""
    with pytest.raises(StarterDocstringError, match="budget"):
        translate_docstrings(CHINESE["budget.py"], "budget", "zh")
