"""Starter modules and single-lab solutions, derived from the marks in ``course_lib.chapter``.

The practice package a student receives holds the chapter's rule modules
only (``PRACTICE_ROOTS``): the types (``course_lib.chapter.models``), the
fixture, the stores, the errors and the base layer are imported from the
installed workbook, so the reference and the student's rules share one set of
types. Each lab's solution lives in its own chapter module, one region per
function body, between two comments::

    # --- Lab 11.3 budget projection: begin ---
    ...the reference code...
    # --- Lab 11.3: end ---

A starter is the reference module with every region's body replaced by
``raise LabNotImplemented("Lab 11.3 budget projection is not implemented yet")``;
a solution is the same body copied back. Both are computed from the one
source, so starters, solutions and the tested reference can never drift apart.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import CourseError
from .catalogue import LAB_TOPICS
from .language import DEFAULT_LANGUAGE, Lang, write_folder_language
from .language import text as line_in
from .regions_zh import REGION_GUIDANCE_ZH

__all__ = [
    "CHAPTER",
    "GIVEN_CHAPTER_MODULES",
    "PRACTICE_ROOTS",
    "LabMarkError",
    "Region",
    "begin_mark",
    "chapter_exports",
    "end_mark",
    "fill_solution",
    "find_regions",
    "lab_modules",
    "not_implemented_message",
    "practice_files",
    "practice_modules",
    "reference_source",
    "replace_region_bodies",
    "solution_bodies",
    "solution_text",
    "starter_text",
    "write_practice_package",
]

CHAPTER = "11"

PRACTICE_ROOTS: tuple[str, ...] = (
    "entries",
    "groups",
    "budget",
    "compaction",
    "restoring",
    "ledger",
)
"""The chapter modules that hold lab regions, in the chapter's order: the whole practice package."""

GIVEN_CHAPTER_MODULES: tuple[str, ...] = ("models", "messages", "sessions", "fixture", "labs")
"""Chapter modules a practice package imports from ``course_lib`` and never copies.

Why: they hold no lab. The types are defined once (``models``), the replay
and the fixture read only those types, the stores take the parser they bind
as an argument, and ``LabNotImplemented`` (``labs``) is one class for every
package, so every copy would only be a second definition to disagree with. The reference imports them absolutely
(``from course_lib.chapter.models import ...``), so a copied rule module
imports them the same way.
"""

# A lab is a chapter lab (``11.3``) or a named exercise (``transfer``).
_LAB = r"(?P<lab>\d+\.\d+|transfer)"
_BEGIN = re.compile(rf"^(?P<indent>[ \t]*)# --- Lab {_LAB} (?P<topic>[^:]+): begin ---\s*$")
_END = re.compile(rf"^(?P<indent>[ \t]*)# --- Lab {_LAB}: end ---\s*$")
# A comment that starts like a mark and ends like one but does not parse (e.g. a
# student's typo); section comments such as ``# --- Lab 11.2: groups ---`` pass.
_LOOKS_LIKE_MARK = re.compile(r"^\s*#\s*-+\s*Lab\b.*\b(begin|end)\s*-*\s*$")


class LabMarkError(CourseError):
    """A file's lab marks are missing, unbalanced or do not match the reference."""


@dataclass(frozen=True)
class Region:
    """One lab region: the lines strictly between its begin and end marks."""

    lab: str
    topic: str
    indent: str
    begin: int  # 0-based index of the begin mark's line
    end: int  # 0-based index of the end mark's line

    def body(self, lines: Sequence[str]) -> list[str]:
        """The region's lines (without the marks), as they stand in ``lines``."""
        return list(lines[self.begin + 1 : self.end])


def begin_mark(lab: str) -> str:
    """The comment that opens a region of ``lab``, e.g. ``# --- Lab 11.3 budget projection: begin ---``."""
    return f"# --- Lab {lab} {LAB_TOPICS[lab]}: begin ---"


def end_mark(lab: str) -> str:
    """The comment that closes a region of ``lab``, e.g. ``# --- Lab 11.3: end ---``."""
    return f"# --- Lab {lab}: end ---"


def not_implemented_message(lab: str, lang: Lang = DEFAULT_LANGUAGE) -> str:
    """What a starter raises until the student writes ``lab``, in the track's ``lang``."""
    return line_in("not_implemented", lang, lab=lab, topic=LAB_TOPICS[lab])


def find_regions(text: str, source: str) -> list[Region]:
    """Every lab region of ``text`` in order; ``source`` names the file in errors.

    Marks must pair up at the same indentation, name the same lab and never
    nest, so that replacing a body can never swallow code outside it.
    """
    regions: list[Region] = []
    open_mark: re.Match[str] | None = None
    open_line = 0
    for index, line in enumerate(text.splitlines()):
        begin, end = _BEGIN.match(line), _END.match(line)
        if begin:
            if open_mark:
                raise LabMarkError(
                    f"{source}: line {index + 1}: a Lab {begin['lab']} region begins inside "
                    f"the Lab {open_mark['lab']} region opened at line {open_line + 1}; "
                    f"put back its {end_mark(open_mark['lab'])!r} line"
                )
            open_mark, open_line = begin, index
        elif end:
            if not open_mark or end["lab"] != open_mark["lab"]:
                raise LabMarkError(
                    f"{source}: line {index + 1}: the Lab {end['lab']} end mark "
                    "has no matching begin mark above it"
                )
            if end["indent"] != open_mark["indent"]:
                raise LabMarkError(
                    f"{source}: line {index + 1}: the Lab {end['lab']} end mark is not "
                    f"indented like its begin mark at line {open_line + 1}"
                )
            regions.append(
                Region(
                    lab=open_mark["lab"],
                    topic=open_mark["topic"].strip(),
                    indent=open_mark["indent"],
                    begin=open_line,
                    end=index,
                )
            )
            open_mark = None
        elif _LOOKS_LIKE_MARK.match(line):
            raise LabMarkError(
                f"{source}: line {index + 1}: malformed lab mark {line.strip()!r}; "
                f"expected {begin_mark('11.1')!r} or {end_mark('11.1')!r} (with its lab)"
            )
    if open_mark:
        raise LabMarkError(
            f"{source}: line {open_line + 1}: the Lab {open_mark['lab']} region is never closed "
            f"(add {end_mark(open_mark['lab'])!r} after it)"
        )
    return regions


def _reindent(lines: Iterable[str], old: str, new: str) -> list[str]:
    """Move ``lines`` from indentation ``old`` to ``new`` (blank lines stay blank)."""
    moved: list[str] = []
    for line in lines:
        if not line.strip():
            moved.append("")
        elif line.startswith(old):
            moved.append(new + line[len(old) :])
        else:  # e.g. the inside of a multi-line string: leave it exactly as written
            moved.append(line)
    return moved


def replace_region_bodies(text: str, lab: str, bodies: Sequence[Sequence[str]], source: str) -> str:
    """Put ``bodies`` (given at indentation zero) into ``lab``'s regions of ``text``, in order.

    Everything outside those regions, other labs' regions included, is kept
    byte for byte.
    """
    lines = text.splitlines(keepends=True)
    regions = [region for region in find_regions(text, source) if region.lab == lab]
    if len(regions) != len(bodies):
        raise LabMarkError(
            f"{source}: expected {len(bodies)} Lab {lab} region(s), found {len(regions)}; "
            "restore the begin/end marks, or regenerate the file with `course-lab practice`"
        )
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    for region, body in sorted(zip(regions, bodies, strict=True), key=lambda pair: -pair[0].begin):
        new_lines = [line + newline for line in _reindent(body, "", region.indent)]
        lines[region.begin + 1 : region.end] = new_lines
    return "".join(lines)


# --- the reference sources --------------------------------------------------------------


def _package_directory() -> Path:
    return Path(__file__).resolve().parents[1] / "chapter"


def reference_source(module: str) -> str:
    """The text of ``course_lib/chapter/<module>.py``, the single source of every starter."""
    path = _package_directory() / f"{module}.py"
    if not path.is_file():
        raise LabMarkError(f"course_lib/chapter/{module}.py is missing from the installed workbook")
    return path.read_text(encoding="utf-8")


def _sibling_imports(text: str, source: str) -> set[str]:
    """The chapter modules ``text`` imports relatively (``from .x import ...``)."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(text, filename=source)):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module is None:
                imported.update(alias.name for alias in node.names)
            else:
                imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level > 1:
            raise LabMarkError(
                f"course_lib/chapter/{source}: imports from outside the chapter relatively; "
                "import the base layer as course_lib.base"
            )
    return imported


def practice_modules() -> list[str]:
    """``PRACTICE_ROOTS`` plus every module they import, in a stable order.

    Following the imports means a helper module added to ``course_lib`` later
    is copied too, so a practice package's relative imports always resolve.
    """
    found: list[str] = []
    pending = list(PRACTICE_ROOTS)
    while pending:
        module = pending.pop(0)
        if module in found:
            continue
        if module in GIVEN_CHAPTER_MODULES:
            raise LabMarkError(
                f"a practice module imports course_lib.chapter.{module} relatively; "
                f"import it as course_lib.chapter.{module}, so it is never copied"
            )
        if not (_package_directory() / f"{module}.py").is_file():
            raise LabMarkError(
                f"a practice module imports course_lib.chapter.{module}, which is not a plain module"
            )
        found.append(module)
        pending.extend(sorted(_sibling_imports(reference_source(module), f"{module}.py")))
    return found


def _reference_regions(module: str) -> tuple[str, list[Region]]:
    text = reference_source(module)
    return text, find_regions(text, f"course_lib/chapter/{module}.py")


def lab_modules(lab: str) -> list[str]:
    """The practice modules that hold at least one region of ``lab``."""
    return [
        module
        for module in practice_modules()
        if any(region.lab == lab for region in _reference_regions(module)[1])
    ]


def solution_bodies(module: str, lab: str) -> list[list[str]]:
    """The reference code of each ``lab`` region of ``module``, at indentation zero."""
    text, regions = _reference_regions(module)
    lines = text.splitlines()
    return [
        _reindent(region.body(lines), region.indent, "") for region in regions if region.lab == lab
    ]


# --- generating the practice package ----------------------------------------------------

_HEADER_GIVEN = """\
# Chapter {chapter} practice package (`course-lab practice {chapter}`): given complete.
"""

_HEADER_LABS = """\
# Chapter {chapter} practice, {labs}. Check: course-lab check {first} --impl <dir>
"""

_LABS_MODULE = "course_lib.chapter.labs"
_LABS_IMPORT = f"from {_LABS_MODULE} import LabNotImplemented\n"


_HEADER_LABS_ZH = """\
# 中文：在每个函数的 begin/end 两行标记之间写出函数体，保留标记；标记之外都是给定的。
"""


def _header(labs: Sequence[str], lang: Lang = DEFAULT_LANGUAGE) -> str:
    if not labs:
        return _HEADER_GIVEN.format(chapter=CHAPTER)
    names = ", ".join(f"Lab {lab} {LAB_TOPICS[lab]}" for lab in labs)
    header = _HEADER_LABS.format(chapter=CHAPTER, labs=names, first=labs[0])
    if lang == "zh":
        header += _HEADER_LABS_ZH
    return header


_DEFINITION = re.compile(r"^(?P<indent>\s*)(?:async\s+)?(?:def|class)\s+(?P<name>\w+)")


def region_function(module: str, lines: Sequence[str], region: Region) -> str:
    """The function a region is the body of, as ``module.function`` (``module.Class.method``).

    Read upwards from the region's begin mark: the nearest ``def`` indented less
    than the region, then any ``class`` indented less than that ``def``.
    """
    names: list[str] = []
    indent = len(region.indent)
    for line in reversed(lines[: region.begin]):
        found = _DEFINITION.match(line)
        if found and len(found["indent"]) < indent:
            names.insert(0, found["name"])
            indent = len(found["indent"])
            if indent == 0:
                break
    if not names:
        raise LabMarkError(
            f"{module}.py: the Lab {region.lab} region at line "
            f"{region.begin + 1} is not inside a function"
        )
    return ".".join([module, *names])


def _starter_body(lab: str, lang: Lang, function: str) -> list[str]:
    """A region's starting body: the ``raise``, with its function's Chinese guidance in zh."""
    raise_line = f'raise LabNotImplemented("{not_implemented_message(lab, lang)}")'
    if lang == "en":
        return [raise_line]
    if function not in REGION_GUIDANCE_ZH:
        raise LabMarkError(f"{function}: no Chinese guidance for its Lab {lab} region")
    guidance = line_in("region_guidance", lang, guidance=REGION_GUIDANCE_ZH[function])
    return [*(f"# {line}" for line in _wrap_wide(guidance)), raise_line]


def _wrap_wide(paragraph: str, columns: int = 84) -> list[str]:
    """Lines of at most ``columns`` screen columns (a Chinese character takes two).

    A line breaks after Chinese punctuation or at a space when one is near, so
    an identifier such as ``describe_validation_error`` is never cut in two.
    """
    lines: list[str] = []
    line, width, last_break = "", 0, -1
    for char in paragraph:
        line += char
        width += 2 if ord(char) >= 0x2E80 else 1
        if char in " ，；。、）":
            last_break = len(line)
        if width > columns:
            cut = last_break if last_break > 0 else len(line) - 1
            lines.append(line[:cut].rstrip())
            line = line[cut:].lstrip()
            width = sum(2 if ord(c) >= 0x2E80 else 1 for c in line)
            last_break = -1
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _insert_labs_import(text: str, source: str) -> str:
    """Add ``from course_lib.chapter.labs import LabNotImplemented`` where isort puts it.

    Before the first ``course_lib`` import whose module sorts after it, else after
    the last ``course_lib`` import: a starter is formatted like the rest of the
    project (``ruff check`` finds nothing to sort).
    """
    tree = ast.parse(text, filename=source)
    lines = text.splitlines(keepends=True)
    ours = [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and (node.module or "").startswith("course_lib.")
    ]
    if not ours:
        raise LabMarkError(
            f"{source}: imports nothing from course_lib; where do its types come from?"
        )
    after = [node for node in ours if (node.module or "") > _LABS_MODULE]
    at = after[0].lineno - 1 if after else ours[-1].end_lineno or ours[-1].lineno
    return "".join([*lines[:at], _LABS_IMPORT, *lines[at:]])


def _labs_in(regions: Iterable[Region]) -> list[str]:
    return sorted({region.lab for region in regions})


def starter_text(module: str, lang: Lang = DEFAULT_LANGUAGE) -> str:
    """``course_lib/<module>.py`` with every lab region replaced by its ``LabNotImplemented``."""
    source, regions = _reference_regions(module)
    labs = _labs_in(regions)
    lines = source.splitlines()
    for lab in labs:
        bodies = [
            _starter_body(lab, lang, region_function(module, lines, region))
            for region in regions
            if region.lab == lab
        ]
        source = replace_region_bodies(source, lab, bodies, f"{module}.py")
    if labs:
        source = _insert_labs_import(source, f"{module}.py")
    return _header(labs, lang) + source


def solution_text(module: str, labs: Iterable[str], lang: Lang = DEFAULT_LANGUAGE) -> str:
    """The starter of ``module`` with ``labs`` filled in from the reference."""
    text = starter_text(module, lang)
    for lab in labs:
        bodies = solution_bodies(module, lab)
        if bodies:
            text = replace_region_bodies(text, lab, bodies, f"{module}.py")
    return text


def chapter_exports() -> dict[str, list[str]]:
    """``course_lib``'s public rule names grouped by the practice module that defines them.

    Read from ``course_lib/__init__.py`` itself, so the practice package
    exports exactly the rules the reference does for this chapter.
    """
    modules = set(practice_modules())
    exports: dict[str, list[str]] = {}
    init = _package_directory().parent / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"), filename="__init__.py")
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            layer, _, module = node.module.partition(".")
            if layer == "chapter" and module in modules:
                exports.setdefault(module, []).extend(alias.name for alias in node.names)
    return exports


_INIT_DOCSTRING = '''"""Your Chapter 11 practice package: the chapter's rules; the rest is ``course_lib``'s.

Write each body between its "# --- Lab ...: begin/end ---" marks (keep them). Check a lab:
``course-lab check 11.3 --impl <dir>``; examples: ``python -m pytest --doctest-modules <dir>``.
"""
'''


def _init_text() -> str:
    lines = [
        _HEADER_GIVEN.format(chapter=CHAPTER),
        _INIT_DOCSTRING,
        "\n",
        "from course_lib import *  # noqa: F403 (the given part)\n",
        "from course_lib import __all__\n",
        "\n",
    ]
    imports = chapter_exports()
    for module in sorted(imports):
        names = ", ".join(sorted(imports[module]))
        lines.append(f"from .{module} import {names}  # noqa: F401 (yours)\n")
    return "".join(lines)


def practice_files(solved: Iterable[str] = (), lang: Lang = DEFAULT_LANGUAGE) -> dict[str, str]:
    """Every file of a practice package (name -> text), with ``solved`` labs filled in."""
    solved = list(solved)
    files = {f"{module}.py": solution_text(module, solved, lang) for module in practice_modules()}
    files["__init__.py"] = _init_text()
    return files


def write_practice_package(
    directory: Path,
    *,
    force: bool = False,
    solved: Iterable[str] = (),
    lang: Lang = DEFAULT_LANGUAGE,
) -> list[Path]:
    """Write the starter package into ``directory``; refuse a non-empty folder unless ``force``.

    With ``force`` only the generated files are overwritten; anything else a
    student keeps in the folder (notes, scratch files) is left alone.
    """
    if directory.exists() and not directory.is_dir():
        raise CourseError(f"{directory}: exists and is not a folder; choose another DIR")
    if directory.is_dir() and any(directory.iterdir()) and not force:
        raise CourseError(
            f"{directory} already exists; pass --force to overwrite its generated files "
            "(your edits in them are lost), or choose another DIR"
        )
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in practice_files(solved, lang).items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    written.append(write_folder_language(directory, lang))  # check and solution speak it too
    return written


def fill_solution(directory: Path, lab: str) -> list[Path]:
    """Write the reference code into ``lab``'s regions of the practice package in ``directory``.

    Only the bodies between that lab's marks change; the student's code in
    other regions and outside the marks is kept byte for byte.
    """
    if lab not in LAB_TOPICS:
        raise CourseError(f"unknown lab {lab!r}; choose one of {', '.join(LAB_TOPICS)}")
    if not directory.is_dir():
        raise CourseError(
            f"practice folder {directory} does not exist; "
            f"create it with `course-lab practice {CHAPTER} {directory}`"
        )
    planned: list[tuple[Path, str]] = []
    for module in lab_modules(lab):
        path = directory / f"{module}.py"
        if not path.is_file():
            raise CourseError(
                f"{path} is missing from the practice package; restore it, or regenerate "
                f"the package with `course-lab practice {CHAPTER} {directory} --force`"
            )
        text = path.read_text(encoding="utf-8")
        planned.append(
            (path, replace_region_bodies(text, lab, solution_bodies(module, lab), str(path)))
        )
    for path, text in planned:  # written only once every file was found valid
        path.write_text(text, encoding="utf-8")
    return [path for path, _ in planned]
