"""Starter modules and single-lab solutions, derived from the marks in ``course_lib.chapter``.

The practice package a student receives is the chapter layer alone: its
modules import the base layer (``course_lib.base``) from the installed
workbook, so the student reads only the chapter. Each lab's solution lives in
its own chapter module, one region per function body, between two comments::

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
    "LAB_NOT_IMPLEMENTED_SOURCE",
    "PRACTICE_ROOTS",
    "SHARED_CHAPTER_MODULES",
    "LabMarkError",
    "Region",
    "base_exports",
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
    "messages",
    "entries",
    "sessions",
    "groups",
    "budget",
    "compaction",
    "restoring",
    "ledger",
    "fixture",
)
"""The chapter layer's modules, in the chapter's order: the whole practice package."""

SHARED_CHAPTER_MODULES: tuple[str, ...] = ("messages",)
"""Chapter modules a practice package imports from ``course_lib`` instead of copying.

Why: they hold no lab and build on nothing a student writes (the system replay
reads only Chapter 3's messages), so a copy would only lengthen what the
student reads; the practice package's ``__init__`` imports them. Every
other chapter module is copied: its classes or functions must be the
student's own (a store binds the student's parser, the fixture builds the
student's entries).
"""

_LABS_MODULE = "labs"

LAB_NOT_IMPLEMENTED_SOURCE = '''\
"""The error an unfinished lab raises, so a check can tell "not written yet" from "wrong".

It is a NotImplementedError, Python's own "not written yet", so editors,
linters and the checks recognise it. It is deliberately *not* a ValueError
(nor a CourseError): stores, the parser and the checks catch those as
validation errors, and an unfinished lab must never pass for a correctly
rejected input.
"""

from __future__ import annotations

__all__ = ["LabNotImplemented"]


class LabNotImplemented(NotImplementedError):
    """Raised by a lab region you have not written yet."""
'''

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
    pending = [module for module in PRACTICE_ROOTS if module not in SHARED_CHAPTER_MODULES]
    while pending:
        module = pending.pop(0)
        if module in found or module in SHARED_CHAPTER_MODULES:
            continue
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
# Chapter {chapter} practice package: generated by `course-lab practice {chapter}`.
#
# This file is given complete: the labs build on it. Read it; you need not change it.
"""

_HEADER_LABS = """\
# Chapter {chapter} practice package: generated by `course-lab practice {chapter}`.
#
# Your work in this file: {labs}.
# Each lab region sits between a "# --- Lab <lab> <topic>: begin ---" comment and
# a "# --- Lab <lab>: end ---" comment, and starts as `raise LabNotImplemented(...)`.
# Replace that line with your code and keep both marks: the checks and
# `course-lab solution` find each lab by them. Everything outside the marks is given.
# Check one lab with:  course-lab check {first} --impl <this folder>
"""

_LABS_IMPORT = f"from .{_LABS_MODULE} import LabNotImplemented\n"


_HEADER_LABS_ZH = """\
#
# 中文：本文件中你要完成的是 {labs}。
# 每个 Lab 区域位于 "# --- Lab <lab> <topic>: begin ---" 和
# "# --- Lab <lab>: end ---" 两行注释之间，开始时是 `raise LabNotImplemented(...)`。
# 把那一行换成你的代码，并保留两行标记：检查和 `course-lab solution` 靠它们
# 找到每个 Lab。标记之外的代码都是给定的。
# 检查一个 Lab：course-lab check {first} --impl <本文件夹>
"""


def _header(labs: Sequence[str], lang: Lang = DEFAULT_LANGUAGE) -> str:
    if not labs:
        return _HEADER_GIVEN.format(chapter=CHAPTER)
    names = ", ".join(f"Lab {lab} {LAB_TOPICS[lab]}" for lab in labs)
    header = _HEADER_LABS.format(chapter=CHAPTER, labs=names, first=labs[0])
    if lang == "zh":
        header += _HEADER_LABS_ZH.format(labs=names, first=labs[0])
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
    """Add ``from .labs import LabNotImplemented`` after the module's leading imports."""
    tree = ast.parse(text, filename=source)
    anchor = 0
    for node in tree.body:
        is_docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (is_docstring or isinstance(node, ast.Import | ast.ImportFrom)):
            break
        anchor = node.end_lineno or anchor
    lines = text.splitlines(keepends=True)
    return "".join([*lines[:anchor], _LABS_IMPORT, *lines[anchor:]])


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
    for shared in SHARED_CHAPTER_MODULES:  # imported from the workbook, not copied
        source = source.replace(
            f"from .{shared} import", f"from course_lib.chapter.{shared} import"
        )
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
    """``course_lib``'s public names grouped by the practice module that defines them.

    Read from ``course_lib/__init__.py`` itself, so the practice package
    exports exactly what the reference does for this chapter.
    """
    modules = {*practice_modules(), *SHARED_CHAPTER_MODULES}
    exports: dict[str, list[str]] = {}
    init = _package_directory().parent / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"), filename="__init__.py")
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            layer, _, module = node.module.partition(".")
            if layer == "chapter" and module in modules:
                exports.setdefault(module, []).extend(alias.name for alias in node.names)
    return exports


def base_exports() -> dict[str, list[str]]:
    """``course_lib``'s public names from the base layer (errors), by module: the practice
    package re-exports them from the installed workbook, so ``impl.SessionEntryError`` works."""
    exports: dict[str, list[str]] = {}
    init = _package_directory().parent / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"), filename="__init__.py")
    imports = [node for node in tree.body if isinstance(node, ast.ImportFrom) and node.level == 1]
    for node in imports:
        if node.module and node.module.startswith("base."):
            exports.setdefault(node.module, []).extend(alias.name for alias in node.names)
    return exports


def _init_text() -> str:
    exports = chapter_exports()
    given = base_exports()
    lines = [
        _HEADER_GIVEN.format(chapter=CHAPTER),
        '"""Your Chapter 11 practice package: the chapter layer of course_lib, labs left to you."""\n',
        "\n",
    ]
    for module, names in given.items():
        lines.append(f"from course_lib.{module} import {', '.join(names)}\n")
    for module, names in exports.items():
        where = f"course_lib.chapter.{module}" if module in SHARED_CHAPTER_MODULES else f".{module}"
        lines.append(f"from {where} import {', '.join(names)}\n")
    lines.append(_LABS_IMPORT)
    every_name = sorted(
        {name for names in [*exports.values(), *given.values()] for name in names}
        | {"LabNotImplemented"}
    )
    quoted = ", ".join(f'"{name}"' for name in every_name)
    lines.append(f"\n__all__ = [{quoted}]\n")
    return "".join(lines)


def practice_files(solved: Iterable[str] = (), lang: Lang = DEFAULT_LANGUAGE) -> dict[str, str]:
    """Every file of a practice package (name -> text), with ``solved`` labs filled in."""
    solved = list(solved)
    files = {f"{module}.py": solution_text(module, solved, lang) for module in practice_modules()}
    files[f"{_LABS_MODULE}.py"] = _header([]) + LAB_NOT_IMPLEMENTED_SOURCE
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
