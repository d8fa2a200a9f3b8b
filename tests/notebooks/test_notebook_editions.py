"""The Chinese edition is the English one in other words: same cells, same code, same numbers.

Every notebook is built twice from one source (``notebook_tools/notebook_sources``):
English in ``notebooks/``, Chinese in ``notebooks/zh/`` under the same file
name. Only the prose, the ``#`` comments and the ``LANG = ...`` line of the
first code cell may differ; the fixture is the course's Chinese one
(``chapter_fixture("zh")``) with the same ids and costs, so every number a
cell prints must be the English edition's number. Until every source is
translated, a source says ``TRANSLATED = True`` when it is, and only those
must have a Chinese edition.
"""

from __future__ import annotations

import ast
import base64
import html as html_module
import importlib
import importlib.util
import io
import re
import tokenize
from pathlib import Path

import nbformat
import pytest
from notebook_builder import load_builder

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "notebook_tools"
NOTEBOOKS = ROOT / "notebooks"
CHINESE_DIR = NOTEBOOKS / "zh"


builder = load_builder()
sources = importlib.import_module("notebook_sources")
cells = importlib.import_module("notebook_sources.cells")
NAMES = list(builder.NOTEBOOKS)
TRANSLATED = [name for name in NAMES if getattr(sources.SOURCES[name], "TRANSLATED", False)]


def zh_name(name: str) -> str:
    """The Chinese edition's file name (``zh-01-....ipynb``): a tab a reader tells apart."""
    return cells.edition_file_name(name, "zh")


BOTH = [name for name in NAMES if (CHINESE_DIR / zh_name(name)).is_file()]
"""The notebooks stored in both editions (every translated one, once they are built)."""

LANG_LINE = re.compile(r'^LANG = "(en|zh)"', re.MULTILINE)
CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")
"""Chinese characters and full-width punctuation."""
LINK = re.compile(r"\]\((\.\.?/[^)\s]+)\)")
STORED = sorted(
    path
    for path in NOTEBOOKS.rglob("*.ipynb")
    if not any(part.startswith(".") for part in path.relative_to(NOTEBOOKS).parts)
)
"""Every stored notebook of both editions (not JupyterLab's ``.ipynb_checkpoints``)."""


def stored_id(path: Path) -> str:
    return path.relative_to(NOTEBOOKS).with_suffix("").as_posix()


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def editions(name: str) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    return read(NOTEBOOKS / name), read(CHINESE_DIR / zh_name(name))


def without_comments(source: str) -> str:
    """The code with its ``#`` comments and blank lines removed and ``LANG`` set to ``"en"``."""
    lines = source.split("\n")
    for row, column, _ in reversed(cells._comments(source)):
        lines[row] = lines[row][:column].rstrip()
    code = "\n".join(line for line in lines if line.strip())
    return LANG_LINE.sub('LANG = "en"', code)


def output_text(output: nbformat.NotebookNode) -> str:
    """What an output shows as text: a stream, or its text/plain and text/html data."""
    if output.output_type == "stream":
        return output.text
    data = output.get("data", {})
    shown = html_module.unescape(data.get("text/html", ""))  # &#x27; is a quote, not a 27
    return "\n".join((data.get("text/plain", ""), shown))


def numbers(cell: nbformat.NotebookNode) -> list[str]:
    """Every run of digits in a code cell's outputs, in order (images left out)."""
    return re.findall(r"\d+", "\n".join(output_text(o) for o in cell.get("outputs", [])))


def images(cell: nbformat.NotebookNode) -> list[str]:
    return [
        value
        for output in cell.get("outputs", [])
        for mime, value in output.get("data", {}).items()
        if mime.startswith("image/")
    ]


def code_pairs(name: str) -> list[tuple[nbformat.NotebookNode, nbformat.NotebookNode]]:
    english, chinese = editions(name)
    return [
        (en, zh)
        for en, zh in zip(english.cells, chinese.cells, strict=True)
        if en.cell_type == "code"
    ]


# --- which notebooks have both editions -------------------------------------------------


def test_every_translated_source_has_its_chinese_edition() -> None:
    missing = [name for name in TRANSLATED if not (CHINESE_DIR / zh_name(name)).is_file()]
    assert missing == [], (
        f"no Chinese edition of {missing}: run `.venv/bin/python notebook_tools/build.py`"
    )
    assert set(TRANSLATED) <= set(BOTH)
    # Every notebook has its Chinese edition: a student can do the whole chapter in either.
    assert set(TRANSLATED) == set(NAMES), f"not translated: {sorted(set(NAMES) - set(TRANSLATED))}"


def test_a_chinese_edition_exists_only_for_a_translated_source() -> None:
    translated = {zh_name(name) for name in TRANSLATED}
    extra = [path.name for path in CHINESE_DIR.glob("*.ipynb") if path.name not in translated]
    assert extra == [], f"{extra}: their source does not say TRANSLATED = True"


# --- the same notebook in two languages --------------------------------------------------


@pytest.mark.parametrize("name", BOTH)
def test_both_editions_have_the_same_cells(name: str) -> None:
    english, chinese = editions(name)
    assert [c.cell_type for c in english.cells] == [c.cell_type for c in chinese.cells]
    assert [c.metadata for c in english.cells] == [c.metadata for c in chinese.cells]


STRING_TOKENS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


def code_tokens(source: str) -> list[tuple[int, str]]:
    """The code's tokens (type, text) without comments, blank lines or the ``LANG`` value."""
    code = without_comments(source)
    readline = io.StringIO(cells._magic_free(code) + "\n").readline
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER}
    return [(t.type, t.string) for t in tokenize.generate_tokens(readline) if t.type not in skipped]


def code_shape(source: str) -> tuple[str, list[str]]:
    """The code's syntax tree with its strings taken out, and the strings, in order.

    A syntax tree, not tokens: the build formats each edition's code with ruff,
    and a Chinese string (two columns a character) may wrap a call that its
    English twin leaves on one line. An f-string's text is its literal parts.
    """
    tree = ast.parse(cells._magic_free(without_comments(source)))
    nodes = list(ast.walk(tree))
    in_f_string = {
        id(part) for node in nodes if isinstance(node, ast.JoinedStr) for part in node.values
    }
    strings: list[str] = []
    for node in nodes:
        if isinstance(node, ast.JoinedStr):
            parts = [part for part in node.values if isinstance(part, ast.Constant)]
            strings.append("{}".join(str(part.value) for part in parts))
        elif (
            isinstance(node, ast.Constant)
            and type(node.value) is str
            and id(node) not in in_f_string
        ):
            strings.append(node.value)
            node.value = ""
    for node in nodes:
        if isinstance(node, ast.JoinedStr):
            node.values = [part for part in node.values if not isinstance(part, ast.Constant)]
    return ast.dump(tree), strings


@pytest.mark.parametrize("name", BOTH)
def test_both_editions_run_the_same_code(name: str) -> None:
    """The same code; only a string a reader sees may differ, written in Chinese (zh_strings)."""
    for en, zh in code_pairs(name):
        (english, english_strings), (chinese, chinese_strings) = map(
            code_shape, (en.source, zh.source)
        )
        assert chinese == english, en.id
        for en_text, zh_text in zip(english_strings, chinese_strings, strict=True):
            if en_text != zh_text:  # written in Chinese, or in signs alone (" of " -> " / ")
                assert CJK.search(zh_text) or not re.search("[A-Za-z]", zh_text), (en.id, zh_text)


@pytest.mark.parametrize("name", BOTH)
def test_lang_is_set_once_in_the_first_code_cell(name: str) -> None:
    for path, lang in ((NOTEBOOKS / name, "en"), (CHINESE_DIR / zh_name(name), "zh")):
        code = [c for c in read(path).cells if c.cell_type == "code"]
        assert LANG_LINE.findall(code[0].source) == [lang], path
        assert all(not LANG_LINE.search(c.source) for c in code[1:]), path


@pytest.mark.parametrize("name", BOTH)
def test_both_editions_show_the_same_numbers(name: str) -> None:
    for en, zh in code_pairs(name):
        assert numbers(zh) == numbers(en), en.id


@pytest.mark.parametrize("name", BOTH)
def test_both_editions_draw_the_same_charts(name: str) -> None:
    """The same charts in the same places and heights; the Chinese edition's may have its words.

    A chart of the Chinese edition draws its words with the font the package
    ships (``views.chart_font``); its numbers are printed as a compared table
    beside it in both editions.
    """
    for en, zh in code_pairs(name):
        assert [png_size(image)[1] for image in images(zh)] == [
            png_size(image)[1] for image in images(en)
        ], en.id  # a tight bounding box may be a few pixels wider or narrower


def png_size(image: str) -> tuple[int, int]:
    """A PNG's width and height, read from its header."""
    header = base64.b64decode(image)[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


@pytest.mark.parametrize("name", BOTH)
def test_the_chinese_edition_is_written_in_chinese(name: str) -> None:
    english, chinese = editions(name)
    for en, zh in zip(english.cells, chinese.cells, strict=True):
        if en.cell_type == "markdown" and re.search(r"[A-Za-z]{4}", en.source):
            assert CJK.search(zh.source), f"{zh.id} of zh/{zh_name(name)} has no Chinese text"


# --- code stays language-free, charts stay ASCII ------------------------------------------


@pytest.mark.parametrize("path", STORED, ids=stored_id)
def test_code_holds_no_chinese_outside_comments_and_shown_strings(path: Path) -> None:
    """Chinese belongs in prose, comments and the Chinese edition's shown strings (``zh_strings``):
    an English notebook's code has none, a Chinese one's only inside string literals."""
    chinese_edition = path.parent == CHINESE_DIR
    for cell in read(path).cells:
        if cell.cell_type != "code":
            continue
        for kind, text in code_tokens(cell.source):
            if CJK.search(text):
                assert chinese_edition and kind in STRING_TOKENS, (cell.id, text)


def _figures(lang: str):
    from course_lib import chapter_fixture
    from course_lib.views import BudgetExplorer, CompactionExplorer

    path = chapter_fixture(lang)
    for max_tokens in (10, 22, 31, 40):
        yield BudgetExplorer(path, max_tokens=max_tokens).figure()
    explorer = CompactionExplorer()
    for step in explorer.steps:
        explorer.step.value = step.label
        yield explorer.figure()


def _bundled_font_characters() -> set[str]:
    """What DejaVu Sans, the font matplotlib ships and falls back to, can draw."""
    from matplotlib import font_manager, ft2font

    font = font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans"))
    return {chr(code) for code in ft2font.FT2Font(font).get_charmap()} | {"\n"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_views_charts_draw_no_chinese_text(lang: str) -> None:
    """The explorers' charts by default (English): a chart's text is ASCII, or a glyph of the
    font matplotlib ships (the ``…`` of ``u1…a1``), whatever the path's language."""
    from matplotlib.text import Text

    drawn = []
    for figure in _figures(lang):
        figure.savefig(io.BytesIO(), format="png")  # lays out the ticks and their labels
        drawn += [text.get_text() for text in figure.findobj(Text) if text.get_text()]
    drawable = _bundled_font_characters()
    assert drawn and [text for text in drawn if CJK.search(text)] == []
    assert [text for text in drawn if not set(text) <= drawable] == []
    assert {char for text in drawn for char in text if not char.isascii()} <= {"…"}


# --- links --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", STORED, ids=stored_id)
def test_every_relative_link_leads_to_a_file(path: Path) -> None:
    for cell in read(path).cells:
        if cell.cell_type == "markdown":
            for target in LINK.findall(cell.source):
                assert (path.parent / target).is_file(), f"{cell.id}: {target}"


def test_the_start_pages_link_both_editions() -> None:
    english, chinese = editions("00-start-here.ipynb")
    english_links = [t for c in english.cells for t in LINK.findall(c.source)]
    chinese_links = [t for c in chinese.cells for t in LINK.findall(c.source)]
    later = [name for name in NAMES if name != "00-start-here.ipynb"]
    assert "./zh/zh-00-start-here.ipynb" in english_links
    assert "../00-start-here.ipynb" in chinese_links
    assert [f"./{name}" for name in later] == [t for t in english_links if "zh/" not in t]
    assert [f"./{zh_name(n)}" if n in BOTH else f"../{n}" for n in later] == chinese_links[1:]


# --- the mechanism --------------------------------------------------------------------------


def test_comments_are_translated_and_nothing_else() -> None:
    cell = cells.code(
        """
        %matplotlib inline
        # NBVAL_IGNORE_OUTPUT
        total = 7 + 7  # two groups
        label = "# not a comment"  # a string that looks like one
        """,
        zh_comments={"two groups": "两组", "a string that looks like one": "像注释的字符串"},
    )
    chinese = cell.in_language("zh").source
    assert chinese.splitlines() == [
        "%matplotlib inline",
        "# NBVAL_IGNORE_OUTPUT",
        "total = 7 + 7  # 两组",
        'label = "# not a comment"  # 像注释的字符串',
    ]
    assert without_comments(chinese) == without_comments(cell.source)
    assert cell.in_language("en").source == cell.source


def test_shown_strings_are_translated_with_their_fields() -> None:
    cell = cells.code(
        """
        print(f"entries on the path: {len(path)}")
        axes.set_title('tokens per interaction')
        key = "entries on the path"  # the same words inside a longer string stay
        """,
        zh_comments={"the same words inside a longer string stay": "更长字符串里的同样文字不变"},
        zh_strings={
            "entries on the path: {len(path)}": "路径上的 entry：{len(path)}",
            "tokens per interaction": "每次交互的 token 数",
        },
    )
    assert cell.in_language("zh").source.splitlines() == [
        'print(f"路径上的 entry：{len(path)}")',
        "axes.set_title('每次交互的 token 数')",
        'key = "entries on the path"  # 更长字符串里的同样文字不变',
    ]
    assert cells.code("x = 'one'", zh_strings={"two": "二"}).problems("zh") == [
        "zh_strings key 'two' matches no string literal"
    ]


def test_chinese_line_breaks_are_joined_outside_code() -> None:
    text = "一组\n  二组，`x`\n三组\n\n```bash\n甲\n乙\n```\n* 丙\n* 丁"
    assert (
        cells.joined_chinese_lines(text)
        == "一组二组，`x`\n三组\n\n```bash\n甲\n乙\n```\n* 丙\n* 丁"
    )


def test_a_missing_or_stale_text_is_named() -> None:
    assert cells.md("English").problems("zh") == ["no Chinese text"]
    assert cells.code("x = 1  # one").problems("zh") == ["no Chinese for the comment 'one'"]
    assert cells.code("x = 1", zh_comments={"one": "一"}).problems("zh") == [
        "zh_comments key 'one' matches no comment"
    ]
    assert cells.reveal("Seven.", zh="七。").in_language("zh").source == (
        f"<details><summary>{cells.SHOW_THE_ANSWER_ZH}</summary>\n\n七。\n\n</details>"
    )


def test_a_missing_chinese_text_fails_the_build_naming_source_and_cell(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "02-lab-11.2-interaction-groups.ipynb"
    untranslated = cells.md("## A new step")
    monkeypatch.setitem(builder.NOTEBOOKS, name, [*builder.NOTEBOOKS[name], untranslated])
    with pytest.raises(cells.MissingTranslation) as missing:
        builder.edition_cells(name, "zh")
    number = len(builder.NOTEBOOKS[name]) - 1
    expected = (
        f"notebook_tools/notebook_sources/lab_11_2.py (zh edition of {name}), "
        f"cell {number:02d} (markdown '## A new step'): no Chinese text"
    )
    assert missing.value.problems == [expected]
    assert builder.edition_cells(name, "en")[-1].source == "## A new step"
    # The build stops before it executes anything, with every missing text listed.
    assert builder.main(["02", "--lang", "zh"]) == 1
    assert expected in capsys.readouterr().err


def test_an_untranslated_source_is_skipped_with_a_note(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "02-lab-11.2-interaction-groups.ipynb"
    monkeypatch.setattr(builder, "CHINESE", builder.CHINESE - {name})
    monkeypatch.setattr(builder, "build", lambda *_: pytest.fail("nothing should be built"))
    assert builder.main(["02", "--lang", "zh"]) == 0
    assert "note: no zh edition of 02-lab-11.2-interaction-groups.ipynb yet" in (
        capsys.readouterr().out
    )


def test_lang_goes_after_the_first_cells_imports() -> None:
    source = "%matplotlib inline\n\nimport io\nfrom x import (\n    y,\n)\n\nsetup()"
    assert cells.with_lang_line(source, "zh").splitlines()[6:] == [
        "",
        cells.lang_line("zh"),
        "",
        "setup()",
    ]
    assert cells.with_lang_line("print(1)", "en").splitlines() == [
        cells.lang_line("en"),
        "print(1)",
    ]


IDENTIFIER = re.compile(r"[A-Za-z]\w*(?:[._]\w+)+")
"""A code name in a header (``max_tokens``, ``tokens.messages``): code, so never translated."""
NAMES_KEPT = {"Python", "bpe", "chars"}
"""A language's or an estimator's name: the same in both editions."""


@pytest.mark.parametrize("name", BOTH)
def test_the_chinese_edition_has_no_english_table_header(name: str) -> None:
    from course_lib.views.headers import HEADERS, header_in

    chosen = {header_in(header, "zh") for header in HEADERS}  # a few keep the course's term
    english = []
    for cell in read(CHINESE_DIR / zh_name(name)).cells:
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            for header in re.findall(r"<th[^>]*>(.*?)</th>", html, re.DOTALL):
                # A header's <wbr> (a break chance in an identifier) is not part of its text.
                text = html_module.unescape(re.sub(r"<[^>]+>", "", header)).strip()
                if not re.search("[A-Za-z]", text) or text in chosen or text in NAMES_KEPT:
                    continue
                if not IDENTIFIER.fullmatch(text):
                    english.append(f"{cell.id}: {text!r}")
    assert english == []
