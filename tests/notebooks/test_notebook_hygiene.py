"""The stored notebooks are current, executed and clean, so what nbval compares cannot drift.

nbval re-runs each notebook and compares outputs; these tests guard what it
does not look at: that each notebook was rebuilt from its source in
``notebook_sources/`` after the last change, that no editor added metadata,
and that every lab notebook ends the way the workbook promises. Both editions
are checked: ``notebooks/NN-name.ipynb`` and, for a translated source,
``notebooks/zh/NN-name.ipynb`` (``tests/notebooks/test_notebook_editions.py`` compares
the two).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest
from notebook_builder import load_builder

from course_lib.base.i18n import tr
from course_lib.track.exercises import EXERCISES, NOT_ANSWERED

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "notebook_tools"
NOTEBOOKS = ROOT / "notebooks"


builder = load_builder()
NAMES = list(builder.NOTEBOOKS)
EDITIONS = [(name, lang) for name in NAMES for lang in builder.editions(name)]
"""Every stored notebook as (file name, language): the English ones, then each Chinese one."""
STORED = [builder.stored_name(name, lang) for name, lang in EDITIONS]
"""The same, as paths inside ``notebooks/`` (``01-....ipynb``, ``zh/01-....ipynb``)."""
LAB_NAMES = [name for name in NAMES if "-lab-11." in name]


def lab_of(name: str) -> str:
    found = re.search(r"-lab-(11\.\d)-", name)
    assert found is not None, name
    return found.group(1)


LAB_ENDS = list({lab_of(name): name for name in LAB_NAMES}.values())
"""Each lab's last notebook (Lab 11.5 is told in two): it holds the practice cell and the checks."""

PRACTICE_NAMES = [*LAB_ENDS, *(name for name in NAMES if "-transfer-" in name)]
"""Notebooks with a practice cell: the labs' last notebooks and the transfer exercise."""

_cells = importlib.import_module("notebook_sources.cells")  # next to build.py, on its path now
NBVAL_TAGS = _cells.NBVAL_TAGS
SLIDE = _cells.SLIDE
IGNORE_OUTPUT = {"tags": ["nbval-ignore-output"]}
ANSWER_LABELS = _cells.ANSWER_LABELS
EXPLANATION_LABELS = _cells.EXPLANATION_LABELS
PREDICT_FIRST = _cells.PREDICT_FIRST
DETAILS = re.compile(
    "<details><summary>(?:"
    + "|".join(
        re.escape(label) for label in [*ANSWER_LABELS.values(), *EXPLANATION_LABELS.values()]
    )
    + ")</summary>\n\n(?s:.+)\n\n</details>"
)
CHECK = re.compile(r'check\("([^"]+)", \w+, lang=LANG\)')
PRACTICE_FOLDERS = (
    'practice = Path(workbook_root(), "practice", "ch11")',
    'practice = Path("..") / "practice" / "ch11"',  # English only: from notebooks/, not zh/
)


def stored(name: str) -> nbformat.NotebookNode:
    """A stored notebook by its path inside ``notebooks/`` (``zh/...`` for a Chinese one)."""
    return nbformat.read(NOTEBOOKS / name, as_version=4)


def language_of(name: str) -> str:
    return "zh" if name.startswith("zh/") else "en"


def file_name(name: str) -> str:
    """The notebook's name in the sources (``zh/zh-01-....ipynb`` -> ``01-....ipynb``)."""
    return name.removeprefix("zh/zh-")


def code_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def test_every_stored_notebook_has_a_source_and_the_reverse() -> None:
    assert sorted(path.name for path in NOTEBOOKS.glob("*.ipynb")) == sorted(NAMES)
    chinese = [name for name, lang in EDITIONS if lang == "zh"]
    chinese_files = sorted(path.name for path in (NOTEBOOKS / "zh").glob("*.ipynb"))
    assert chinese_files == sorted(f"zh-{name}" for name in chinese)
    everywhere = [path.relative_to(NOTEBOOKS) for path in NOTEBOOKS.rglob("*.ipynb")]
    shown = [p.as_posix() for p in everywhere if not any(x.startswith(".") for x in p.parts)]
    assert sorted(shown) == sorted(STORED)  # .ipynb_checkpoints/ is JupyterLab's, not ours


@pytest.mark.parametrize("name", STORED)
def test_stored_notebook_is_clean(name: str) -> None:
    assert builder.hygiene_problems(stored(name)) == []


@pytest.mark.parametrize("name", STORED)
def test_stored_notebook_was_built_from_its_current_source(name: str) -> None:
    cells = builder.edition_cells(file_name(name), language_of(name))
    expected = builder.ruff_formatted(builder.new_notebook(cells), name)
    found = [(cell.cell_type, cell.source, cell.metadata) for cell in stored(name).cells]
    assert found == [(cell.cell_type, cell.source, cell.metadata) for cell in expected.cells], (
        f"{name} is out of date: run `.venv/bin/python notebook_tools/build.py`"
    )


def test_cell_metadata_other_than_nbval_tags_and_heading_slides_is_refused() -> None:
    notebook = stored("03-lab-11.3-budget-projection.ipynb")
    tagged = next(cell for cell in notebook.cells if cell.metadata.get("tags"))
    heading = next(cell for cell in notebook.cells if cell.metadata == SLIDE)
    assert tagged.metadata == IGNORE_OUTPUT and builder.hygiene_problems(notebook) == []
    for other in (
        {"tags": ["nbval-ignore-output", "hide-output"]},
        {"tags": []},
        {**IGNORE_OUTPUT, "collapsed": True},
        {"collapsed": True, "jupyter": {"outputs_hidden": True}},  # folded: Run All unfolds it
    ):
        tagged.metadata = other
        assert builder.hygiene_problems(notebook) == [f"{tagged.id}: cell metadata {other}"]
    tagged.metadata = IGNORE_OUTPUT
    heading.metadata = IGNORE_OUTPUT  # tags on a markdown cell
    assert builder.hygiene_problems(notebook) == [f"{heading.id}: cell metadata {IGNORE_OUTPUT}"]
    prose = next(c for c in notebook.cells if c.cell_type == "markdown" and not c.metadata)
    prose.metadata, heading.metadata = SLIDE, SLIDE  # a slide that starts without a heading
    assert builder.hygiene_problems(notebook) == [f"{prose.id}: cell metadata {SLIDE}"]


def test_notebook_metadata_is_what_the_kernel_reports_with_a_python_version() -> None:
    """``language_info.version`` is major.minor: the patch release is the machine's, and
    JupyterLab's save (with ``jupyter_config``'s hook) writes major.minor back."""
    notebook = stored("03-lab-11.3-budget-projection.ipynb")
    assert builder.hygiene_problems(notebook) == []
    assert builder.PYTHON_VERSION.fullmatch(notebook.metadata.language_info.version)
    assert notebook.metadata.language_info.version == builder.python_version()
    for version in (None, "", "three", builder.platform.python_version()):
        notebook.metadata.language_info.version = version
        assert builder.hygiene_problems(notebook) == [
            f"notebook metadata is {dict(notebook.metadata)}"
        ]


@pytest.mark.parametrize("name", STORED)
def test_every_heading_starts_a_slide_and_nothing_else_does(name: str) -> None:
    for cell in stored(name).cells:
        is_heading = cell.cell_type == "markdown" and cell.source.startswith("#")
        assert (cell.metadata == SLIDE) == is_heading, cell.id


def test_an_nbval_marker_becomes_a_tag_and_leaves_the_code() -> None:
    made = _cells.code("# NBVAL_IGNORE_OUTPUT\nprint(1)")
    assert made.source == "print(1)" and made.metadata == IGNORE_OUTPUT
    assert _cells.code("print(1)  # NBVAL_IGNORE_OUTPUT").metadata == {}


def test_an_answer_cell_shows_its_last_expression_inside_the_answer_box() -> None:
    made = _cells.answer("x = 1\nx + 1")
    assert made.source == "with answer_box(LANG):\n    x = 1\n    display(x + 1)"
    assert _cells.answer("print(2)").source == "with answer_box(LANG):\n    print(2)"
    assert made.metadata == {}


def test_lab_notebooks_cover_every_lab_and_a_split_lab_ends_in_its_last_part() -> None:
    assert [lab_of(name) for name in LAB_ENDS] == ["11.1", "11.2", "11.3", "11.4", "11.5"]
    assert [name for name in LAB_NAMES if name not in LAB_ENDS] == ["05a-lab-11.5-restoring.ipynb"]


@pytest.mark.parametrize("name", [name for name in STORED if file_name(name) in LAB_ENDS])
def test_lab_notebook_ends_with_its_own_checks_beside_the_practice_cell(name: str) -> None:
    lab = lab_of(name)
    notebook = stored(name)
    *_, practice, reference = code_cells(notebook)

    assert practice.metadata == IGNORE_OUTPUT and "NBVAL" not in practice.source
    assert PRACTICE_FOLDERS[0] in practice.source
    assert f'run_lab_checks("{lab}", impl=practice)' in practice.source
    assert f'run_lab_checks("{lab}")' in reference.source
    printed = "".join(o.text for o in reference.outputs if o.output_type == "stream")
    ending = r"：(\d+)/\1 项通过\n" if language_of(name) == "zh" else r": (\d+)/\1 passed\n"
    assert re.fullmatch(rf"Lab {re.escape(lab)}{ending}", printed)


@pytest.mark.parametrize("name", STORED)
def test_only_practice_cells_are_exempt_from_comparison(name: str) -> None:
    ignored = [c for c in code_cells(stored(name)) if c.metadata.get("tags")]
    assert all(c.metadata == IGNORE_OUTPUT for c in ignored)
    assert not any("NBVAL" in c.source for c in code_cells(stored(name)))
    folders = PRACTICE_FOLDERS if language_of(name) == "en" else PRACTICE_FOLDERS[:1]
    assert all(any(folder in c.source for folder in folders) for c in ignored)
    assert len(ignored) == (1 if file_name(name) in PRACTICE_NAMES else 0)


def test_the_workbooks_predict_first_questions_in_lab_11_3() -> None:
    notebook = stored("03-lab-11.3-budget-projection.ipynb")
    prompts = [c.source for c in notebook.cells if "**Predict first.**" in c.source]
    classic = [p for p in prompts if "*last three messages*" in p or "keep group 3 whole" in p]
    assert len(classic) == 2 and "*last three messages*" in classic[0], prompts
    assert len(prompts) >= 3  # and the rules of Steps 5 and beyond get their own


def predict_questions(name: str) -> list[int]:
    marker = PREDICT_FIRST[language_of(name)]
    return [i for i, c in enumerate(stored(name).cells) if marker in c.source]


def test_every_lab_notebook_asks_a_predict_first_question() -> None:
    for name in STORED:
        if file_name(name) in LAB_NAMES:
            assert predict_questions(name), name


@pytest.mark.parametrize("name", STORED)
def test_each_predict_first_answer_is_in_a_closed_block_and_its_explanation_too(name: str) -> None:
    """The question first; its answer cells show one closed block; the explanation in ``<details>``.

    So neither opening the notebook nor Run All shows an answer: not the
    computed output, not the prose after it, until the student clicks.
    """
    cells = stored(name).cells
    label = ANSWER_LABELS[language_of(name)]
    for index in predict_questions(name):
        assert cells[index].cell_type == "markdown"
        after = index + 1
        while cells[after].cell_type == "code":
            answer = cells[after]
            assert answer.source.startswith("with answer_box(LANG):\n"), answer.id
            assert [o.output_type for o in answer.outputs] == ["display_data"], answer.id
            shown = answer.outputs[0].data["text/html"]
            assert shown.startswith(f"<details><summary>{label}</summary>\n"), answer.id
            assert shown.endswith("</details>") and shown.count("<details") == 1, answer.id
            after += 1
        assert after > index + 1, f"{cells[index].id} is not followed by its answer cell"
        assert DETAILS.fullmatch(cells[after].source), f"{cells[after].id} spells out the answer"
        # Not a second "Show the answer" toggle right under the answer's own.
        explanation = EXPLANATION_LABELS[language_of(name)]
        assert cells[after].source.startswith(f"<details><summary>{explanation}</summary>")


@pytest.mark.parametrize("name", STORED)
def test_every_details_block_is_a_whole_cell_with_one_label(name: str) -> None:
    """An explanation right under an answer cell says "Show the explanation"; any other block
    (an exercise's model answer) "Show the answer"."""
    lang = language_of(name)
    cells = stored(name).cells
    for number, cell in enumerate(cells):
        if "<details" in cell.source:
            assert cell.cell_type == "markdown" and DETAILS.fullmatch(cell.source), cell.id
            assert cell.source.count("<details") == 1, cell.id
            under_an_answer = number > 0 and cells[number - 1].source.startswith(
                "with answer_box(LANG):\n"
            )
            label = (EXPLANATION_LABELS if under_an_answer else ANSWER_LABELS)[lang]
            assert f"<summary>{label}</summary>" in cell.source, cell.id


@pytest.mark.parametrize("name", STORED)
def test_every_exercise_is_stored_unanswered(name: str) -> None:
    """An exercise: its prompt, a cell holding ``...``, then the check, stored as "not answered"."""
    cells = stored(name).cells
    for index, cell in enumerate(cells):
        found = CHECK.fullmatch(cell.source)
        if not found:
            continue
        starter, prompt = cells[index - 1], cells[index - 2]
        assert starter.cell_type == "code" and "..." in starter.source and not starter.outputs
        assert prompt.cell_type == "markdown" and found.group(1) in prompt.source
        printed = "".join(o.text for o in cell.outputs if o.output_type == "stream")
        not_answered = tr(language_of(name), NOT_ANSWERED)
        assert printed == f"○ {found.group(1)}: {not_answered}\n", cell.id


def exercises_in(name: str) -> list[str]:
    return [m.group(1) for c in stored(name).cells if (m := CHECK.fullmatch(c.source))]


def test_every_notebook_after_the_start_page_has_exercises() -> None:
    for lab in ("11.1", "11.2", "11.3", "11.4", "11.5"):
        asked = [e for name in LAB_NAMES if lab_of(name) == lab for e in exercises_in(name)]
        assert len(asked) >= 2, lab
    assert all(exercises_in(name) for name in LAB_NAMES)
    assert exercises_in("06-transfer-budget-ledger.ipynb")
    assert exercises_in("07-beyond-the-fixture-real-session.ipynb")
    assert len(exercises_in("09-three-agents-one-chapter.ipynb")) >= 2
    assert 5 <= len(exercises_in("08-recap.ipynb")) <= 6
    asked = [exercise for name in NAMES for exercise in exercises_in(name)]
    assert sorted(asked) == sorted(EXERCISES)


def test_slides_export_gives_one_slide_per_heading() -> None:
    """INSTRUCTOR.md's promise: ``nbconvert --to slides`` gives one slide per step."""
    from nbconvert import SlidesExporter

    notebook = stored("02-lab-11.2-interaction-groups.ipynb")
    body, _ = SlidesExporter().from_notebook_node(notebook)
    headings = [c for c in notebook.cells if c.cell_type == "markdown" and c.source.startswith("#")]
    assert len(re.findall(r"<section>\s*<section>", body)) == len(headings) > 5
