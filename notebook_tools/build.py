"""Build the workbook's notebooks from their Python sources, execute them, store them with outputs.

Run from the repository root::

    .venv/bin/python notebook_tools/build.py            # every notebook, both editions
    .venv/bin/python notebook_tools/build.py 03 05      # only those whose name starts with 03 or 05
    .venv/bin/python notebook_tools/build.py 01 --lang zh   # only the Chinese edition of 01

The cells of each notebook live in ``notebook_tools/notebook_sources/`` as plain strings.
Each notebook has two editions built from the same cells (``cells.edition``): English
in ``notebooks/``, Chinese in ``notebooks/zh/`` under the same file name. A source
gets its Chinese edition once it says ``TRANSLATED = True``; until then it is skipped
with a note, and from then on a missing Chinese text fails the build, naming the
source and the cell.
For each notebook this script formats the code cells with ruff (CI runs
``ruff format --check``), executes every cell top to bottom in a fresh kernel
whose working folder is ``notebooks/``, normalises what is not part of the
lesson (metadata, cell ids, widget models), refuses outputs that could not be
compared on another machine, and writes the ``.ipynb``. The stored outputs are
what ``pytest --nbval`` compares a new run against, so they must be identical
on every run.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbformat import NotebookNode
from notebook_sources import CHINESE, NOTEBOOKS, source_file
from notebook_sources.cells import (
    LANGUAGES,
    NBVAL_TAGS,
    SLIDE,
    Cell,
    Lang,
    MissingTranslation,
    edition,
    edition_file_name,
    frame_problems,
)
from notebook_sources.glossary import glossary_problems

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
NOTEBOOKS_DIR = ROOT / "notebooks"
"""Where the notebooks a student opens are written; only they live there."""

EDITION_DIRS: dict[Lang, Path] = {"en": NOTEBOOKS_DIR, "zh": NOTEBOOKS_DIR / "zh"}
"""Each edition's folder: English at the top of ``notebooks/``, Chinese in ``notebooks/zh/``."""


def stored_name(name: str, lang: Lang) -> str:
    """An edition's path inside ``notebooks/``: ``01-....ipynb`` or ``zh/zh-01-....ipynb``.

    JupyterLab names a tab by the file's name alone, so the Chinese file's
    name starts with ``zh-``: the two editions of a notebook open side by side
    in two tabs a reader can tell apart (``edition_file_name``).
    """
    return str(EDITION_DIRS[lang].relative_to(NOTEBOOKS_DIR) / edition_file_name(name, lang))


def editions(name: str) -> list[Lang]:
    """The editions a notebook has: English always, Chinese once its source is translated."""
    return [lang for lang in LANGUAGES if lang == "en" or name in CHINESE]


def edition_cells(name: str, lang: Lang) -> list[Cell]:
    """A notebook's cells in ``lang``; a missing text names the source file and the cell."""
    try:
        return edition(NOTEBOOKS[name], lang)
    except MissingTranslation as missing:
        raise MissingTranslation(
            [f"{source_file(name)} ({lang} edition of {name}), {p}" for p in missing.problems]
        ) from None


KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
"""What ipykernel's kernel spec says, word for word: JupyterLab rewrites any other name on opening."""
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}
"""``language_info`` as ipykernel reports it, but for ``version`` (``notebook_metadata`` adds it)."""

PYTHON_VERSION = re.compile(r"3\.\d+")
"""The stored ``language_info.version``: major.minor, never the patch release."""


def python_version() -> str:
    """This Python's version as a notebook stores it: ``3.11``, not ``3.11.7``."""
    major, minor, _ = platform.python_version_tuple()
    return f"{major}.{minor}"


def notebook_metadata() -> dict[str, Any]:
    """What JupyterLab saves: the kernelspec and ``language_info`` with this Python's version.

    JupyterLab replaces ``language_info`` with the kernel's as it opens a
    notebook, patch release included, whatever the file says; the server's
    save hook of ``make lab`` (``jupyter_config/jupyter_server_config.py``)
    writes the version as major.minor. So a notebook stores major.minor too,
    and saving it untouched under any 3.x patch release writes back the stored
    file (and a rebuild under another patch release changes nothing either).
    """
    return {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {**LANGUAGE_INFO, "version": python_version()},
    }


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
"""A live widget's output: a random model id that means nothing once the kernel is gone."""


def _machine_paths() -> dict[str, re.Pattern[str]]:
    """This clone's folder and the home folder (skipped when it is just ``/``)."""
    paths = {"absolute path of this clone": ROOT, "home folder": Path.home()}
    return {
        name: re.compile(re.escape(str(path)) + r"\b")
        for name, path in paths.items()
        if len(path.parts) > 1
    }


FORBIDDEN_IN_OUTPUTS: dict[str, re.Pattern[str]] = {
    "object address": re.compile(r"\bat 0x[0-9a-fA-F]+|0x7f[0-9a-fA-F]{6,}"),
    "random Styler id": re.compile(r"#T_[0-9a-f]{5}_"),
    "warning": re.compile(r"\w*Warning:"),
    **_machine_paths(),
}


def new_notebook(cells: list[Cell]) -> NotebookNode:
    """A fresh notebook with fixed cell ids (nbformat would pick random ones)."""
    notebook = nbformat.v4.new_notebook()
    for number, cell in enumerate(cells):
        make = (
            nbformat.v4.new_markdown_cell if cell.kind == "markdown" else nbformat.v4.new_code_cell
        )
        node = make(cell.source)
        node.id = f"cell-{number:02d}"
        node.metadata = nbformat.from_dict(cell.metadata)
        notebook.cells.append(node)
    notebook.metadata = notebook_metadata()
    return notebook


def ruff_formatted(notebook: NotebookNode, name: str) -> NotebookNode:
    """Sort imports and format the code cells exactly as ``ruff`` would in the stored notebook."""
    text = nbformat.writes(notebook)
    for command in (["check", "--select", "I", "--fix-only", "--quiet"], ["format"]):
        text = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--stdin-filename", f"notebooks/{name}", "-"],
            input=text,
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
    formatted = json.loads(text)
    for cell, source in zip(notebook.cells, formatted["cells"], strict=True):
        text = source["source"]
        cell.source = "".join(text) if isinstance(text, list) else text
    return notebook


def execute(notebook: NotebookNode, folder: Path = NOTEBOOKS_DIR) -> NotebookNode:
    """Run every cell in order in a fresh kernel started in ``folder``; stop at any error.

    ``folder`` is where the notebook is stored, as Jupyter and nbval start its kernel.
    """
    client = NotebookClient(
        notebook,
        kernel_name=KERNELSPEC["name"],
        timeout=300,
        allow_errors=False,
        record_timing=False,
        store_widget_state=False,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    return notebook


def _output_text(output: NotebookNode) -> str:
    if output.output_type == "stream":
        return output.text
    return "\n".join(
        value if isinstance(value, str) else json.dumps(value)
        for mime, value in output.get("data", {}).items()
        if not mime.startswith("image/")
    )


def _output_problems(cell: NotebookNode) -> list[str]:
    problems = []
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            problems.append(f"{cell.id}: error output {output.ename}: {output.evalue}")
        if output.output_type == "stream" and output.name == "stderr":
            problems.append(f"{cell.id}: writes to stderr: {output.text[:200]!r}")
        if WIDGET_VIEW in output.get("data", {}):
            problems.append(f"{cell.id}: stores a widget view (a random model id)")
        text = _output_text(output)
        for problem, pattern in FORBIDDEN_IN_OUTPUTS.items():
            if pattern.search(text):
                problems.append(f"{cell.id}: output contains a {problem}: {text[:200]!r}")
    return problems


def _cell_metadata_problem(cell: NotebookNode) -> str | None:
    """No cell metadata but nbval's tags on a code cell and a heading's slide on a markdown cell.

    Anything else an editor might add (folded outputs included: Run All
    unfolds them) is refused.
    """
    if not cell.metadata:
        return None
    tags = cell.metadata.get("tags") or ["(none)"]
    nbval_tags_only = set(cell.metadata) == {"tags"} and set(tags) <= set(NBVAL_TAGS.values())
    if cell.cell_type == "code" and nbval_tags_only:
        return None
    if cell.cell_type == "markdown" and cell.metadata == SLIDE and cell.source.startswith("#"):
        return None
    return f"{cell.id}: cell metadata {dict(cell.metadata)}"


def hygiene_problems(notebook: NotebookNode) -> list[str]:
    """Everything that would make a stored notebook differ between machines or runs.

    Fixed metadata, fixed cell ids, no cell metadata but nbval tags and slides,
    every code cell executed in order (counts 1, 2, 3, ...), no errors,
    stderr, warnings, addresses, random ids, widget views or machine paths in
    any output.
    """
    problems = []
    info = dict(notebook.metadata.get("language_info", {}))
    version = info.pop("version", "")
    fixed = {"kernelspec": KERNELSPEC, "language_info": LANGUAGE_INFO}
    if {**notebook.metadata, "language_info": info} != fixed or not PYTHON_VERSION.fullmatch(
        str(version)
    ):
        problems.append(f"notebook metadata is {dict(notebook.metadata)}")
    count = 0
    for number, cell in enumerate(notebook.cells):
        if cell.id != f"cell-{number:02d}":
            problems.append(f"cell {number} has id {cell.id!r}")
        if problem := _cell_metadata_problem(cell):
            problems.append(problem)
        if cell.cell_type != "code":
            continue
        count += 1
        counts = [cell.execution_count] + [
            output.execution_count
            for output in cell.outputs
            if output.output_type == "execute_result"
        ]
        if any(value != count for value in counts):
            problems.append(f"{cell.id}: execution counts {counts}, expected {count}")
        problems += _output_problems(cell)
    return problems


def normalise(notebook: NotebookNode, cells: list[Cell]) -> NotebookNode:
    """Keep only what the lesson needs: fixed metadata, sequential counts, no widget models.

    Each cell's metadata is reset to what its source asks for (nbval tags, a
    heading's slide, or nothing), whatever the kernel run added.
    """
    notebook.metadata = notebook_metadata()
    count = 0
    for cell, source in zip(notebook.cells, cells, strict=True):
        cell.metadata = nbformat.from_dict(source.metadata)
        if cell.cell_type != "code":
            continue
        count += 1
        cell.execution_count = count
        for output in cell.outputs:
            if output.output_type == "execute_result":
                output.execution_count = count
            if "data" in output:
                output.data.pop(WIDGET_VIEW, None)
    return notebook


def build(name: str, lang: Lang = "en") -> float:
    """Build one edition of a notebook and return how long its execution took, in seconds."""
    cells = edition_cells(name, lang)
    stored = stored_name(name, lang)
    notebook = ruff_formatted(new_notebook(cells), stored)
    folder = EDITION_DIRS[lang]
    folder.mkdir(exist_ok=True)
    started = time.perf_counter()
    execute(notebook, folder)
    seconds = time.perf_counter() - started
    normalise(notebook, cells)
    problems = hygiene_problems(notebook)
    if problems:
        raise RuntimeError(f"{stored}: " + "; ".join(problems))
    nbformat.validate(notebook)
    nbformat.write(notebook, NOTEBOOKS_DIR / stored)
    return seconds


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="build.py", description="Build, execute and store the workbook's notebooks."
    )
    parser.add_argument(
        "prefixes", nargs="*", help="build only the notebooks whose name starts with one of these"
    )
    parser.add_argument("--lang", choices=LANGUAGES, help="build only this edition (default: both)")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    arguments = _arguments(argv)
    prefixes: list[str] = arguments.prefixes
    selected = [
        name
        for name in NOTEBOOKS
        if not prefixes or any(name.startswith(prefix) for prefix in prefixes)
    ]
    if not selected:
        print(f"no notebook starts with {' or '.join(prefixes)}", file=sys.stderr)
        return 2
    wanted = [arguments.lang] if arguments.lang else list(LANGUAGES)
    jobs: list[tuple[str, Lang]] = []
    for name in selected:
        for lang in wanted:
            if lang in editions(name):
                jobs.append((name, lang))
            else:
                print(
                    f"note: no {lang} edition of {name} yet: "
                    f"{source_file(name)} does not say TRANSLATED = True"
                )
    # Every missing text of every edition asked for, before a minute is spent executing.
    missing = []
    for name, lang in jobs:
        try:
            edition_cells(name, lang)
        except MissingTranslation as error:
            missing += error.problems
    if missing:
        print("missing translations:\n  " + "\n  ".join(missing), file=sys.stderr)
        return 1
    # The lesson frame and the glossary's terms, before anything is executed.
    unframed = [
        f"{source_file(name)}: {problem}"
        for name in selected
        for problem in [*frame_problems(NOTEBOOKS[name]), *glossary_problems(NOTEBOOKS[name])]
    ]
    if unframed:
        print("lesson frame or glossary:\n  " + "\n  ".join(unframed), file=sys.stderr)
        return 1
    total = 0.0
    for name, lang in jobs:
        seconds = build(name, lang)
        total += seconds
        print(f"{stored_name(name, lang)}: executed in {seconds:.1f} s")
    print(f"{len(jobs)} notebook(s) executed in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
