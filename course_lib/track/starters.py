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
from ..base.i18n import N_, has_translation, tr
from .catalogue import LAB_TOPICS
from .docstrings import translate_docstrings
from .language import DEFAULT_LANGUAGE, Lang, tr_shown, wrap_wide, write_folder_language

__all__ = [
    "CHAPTER",
    "GIVEN_CHAPTER_MODULES",
    "PRACTICE_ROOTS",
    "REGION_GUIDANCE",
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
    return tr_shown(
        lang, "Lab {lab} {topic} is not implemented yet", lab=lab, topic=LAB_TOPICS[lab]
    )


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


def _header(labs: Sequence[str], lang: Lang = DEFAULT_LANGUAGE) -> str:
    if not labs:
        return _HEADER_GIVEN.format(chapter=CHAPTER)
    names = ", ".join(f"Lab {lab} {LAB_TOPICS[lab]}" for lab in labs)
    header = _HEADER_LABS.format(chapter=CHAPTER, labs=names, first=labs[0])
    if lang != DEFAULT_LANGUAGE:  # the English header says it already; another language adds it
        note = tr(
            lang,
            "Note: write each function's body between its begin/end marks and keep the marks; "
            "everything outside them is given.",
        )
        header += f"# {note}\n"
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


REGION_GUIDANCE: dict[str, str] = {
    "entries.parse_compaction": N_(
        "Validate value with CompactionEntry by its wire (camelCase) names only (by_alias=True, "
        "by_name=False): a snake_case key such as first_kept_entry_id, or an old draft's "
        "summary.files, is an unknown field. Turn pydantic's ValidationError into a "
        'SessionEntryError whose message is f"{label}: ...", the field path and the problem after '
        "the colon as describe_validation_error(error) writes them; keep tokensBefore exactly as "
        "given."
    ),
    "groups.record_tool_facts": N_(
        "Record the tool calls an entry declares or answers: calls maps a call id to the entry "
        "that declares it, results maps a call id to the entry that answers it. Each toolCall "
        "block of an assistant message declares a call id (a text block in between declares "
        "nothing, so look at every block); a toolResult answers its tool_call_id. A duplicate "
        "call id or a duplicate result raises InteractionError at once (with 'duplicate', the "
        "entry id and the call id)."
    ),
    "groups.check_tool_pairs": N_(
        "Check only once all of the interaction's entries are in: a result whose call is not in "
        "this group is 'unknown call' (naming the result's entry id and the call id); a declared "
        "call without a result is 'missing result' (naming the call id and the entry that "
        "declares it)."
    ),
    "groups.split_interactions": N_(
        "entries holds message entries only. A user message closes the open interaction "
        "(check_tool_pairs) and opens the next; assistant and toolResult messages join the open "
        "interaction (record_tool_facts); a system message is skipped wherever it is. Any other "
        "message before the first user message raises InteractionError, its message holding the "
        "entry id and 'before the first user message'. Keep the path's order and return the "
        "groups oldest first."
    ),
    "budget.replay_system": N_(
        "System messages are prompt state, not conversation: take the message of every message "
        "entry with role system on the *whole* active_path, in path order (the part before a "
        "compaction too), and replay them with current_system_message; return None when there "
        "is no system message."
    ),
    "budget.group_costs": N_(
        "A group costs the sum of its messages' estimates: price each with "
        'price(estimate_tokens, entry.message, "interaction", number, "message", position) '
        '(both numbers counted from 1, so an error reads "interaction 2 message 3"), added in '
        "path order. Return the costs oldest group first."
    ),
    "budget.message_allowances": N_(
        "Fixed costs first, never below 0: available_for_messages = max(0, budget.max_tokens - "
        "system - budget.reserved_output - budget.safety_margin); after a compaction the summary "
        "is paid from it first, and the groups get max(0, available_for_messages - "
        "summary_tokens). Return both numbers."
    ),
    "budget.select_newest_groups": N_(
        "costs go oldest first, so walk from the end: keep a whole group while used + cost <= "
        "allowance (exactly equal fits too), and stop at the first group that does not fit, "
        "never skipping it for an older one. The newest group alone over the allowance is still "
        "kept whole, with reason single_group_overflow; older groups left out give trimmed; "
        'otherwise within_budget (with no groups, return (0, "within_budget")). Return (the '
        "index of the oldest kept group, the reason)."
    ),
    "budget.token_projection": N_(
        "messages = the summary's cost + the kept groups' costs added newest group first "
        "(add_in_order(reversed(kept_costs))); total = system + messages + reserved_output + "
        'safety_margin, checked with check_budget_number("the total of the projection", total) '
        "(a huge float turns infinite). Return a TokenProjection."
    ),
    "budget.context_from_plan": N_(
        "messages are, in order: the replayed system message and the summary when the plan has "
        "them, then the message of every entry of the kept groups in path order, each a deep "
        "copy (model_copy(deep=True)) so that changing the result never changes the path; "
        "kept_entry_ids names only those kept entries. reason and tokens come from the plan."
    ),
    "compaction.create_compaction_entry": N_(
        "The path holds session entries only (require_session_entries); an empty path raises "
        "CompactionError ('empty active path'); an id already on the path raises a "
        "CompactionError with duplicate id '<id>'; parentId is always the path's last entry; "
        "first_kept_entry_id must be the first message of an interaction group_interactions "
        "finds among the path's message entries, else a CompactionError with 'is not the first "
        "message of a complete interaction'; the candidate goes through parse_session_entry as a "
        "wire dict and is returned; nothing is written to a store."
    ),
    "restoring.newest_compaction": N_(
        "Search from the end of the path and return the CompactionEntry nearest the leaf; None "
        "when the path has none. Older summaries are never sent again."
    ),
    "restoring.restored_suffix": N_(
        "The first kept id must name a *user message* entry *before* the compaction: an id not "
        "on the path, an assistant or system message, a metadata entry or an entry after the "
        "compaction all raise CompactionError ('is not a user message entry before it on the "
        "path'); checking that the id exists is not enough. Return the part of the path from the "
        "first kept entry to the leaf."
    ),
    "restoring.render_summary": N_(
        "A fixed order and fixed labels, so that two builds of one path send the same text: the "
        "first line labels.title; then labels.goal followed by the goal; then, for each field of "
        "LIST_FIELDS, a line with its label and one line '- <item>' per item, one line "
        "'- <labels.none>' for an empty list. Lines are joined by '\\n', with no newline after "
        "the last; summary may be a wire dict (read it with as_summary)."
    ),
    "restoring.summary_message": N_(
        "Return a user message whose only text block is the entry's summary rendered with labels "
        "(render_summary), its timestamp the compaction's own; build it anew on every call."
    ),
    "ledger.ledger_from_plan": N_(
        "Re-decide nothing: one LedgerRow per group of plan.groups, oldest first, numbered as "
        "the chapter counts (the first is plan.first_group_number); entry_ids are the group's ids "
        "in path order, tokens come from plan.group_tokens (the estimator is not called again). "
        "status (kept, trimmed or overflow) must agree with what context_from_plan keeps from the "
        "same plan: find the field of the plan that decides it."
    ),
}
"""``module.function`` (a method as ``module.Class.method``) -> what its region asks for.

The English starter leaves this unsaid (the reference's docstrings say it);
a starter in another language prints the translation above the region's
``raise``, in the course's own terms, so each region says what *its*
function must do. ``tests/track/test_track_zh.py`` holds every region to
having its own text, translated.
"""


def _starter_body(lab: str, lang: Lang, function: str) -> list[str]:
    """A region's starting body: the ``raise``, with its function's guidance in another language.

    The English starter keeps the reference's docstrings as its guidance; a
    starter in another language puts ``REGION_GUIDANCE[function]``, translated,
    above the ``raise``.
    """
    raise_line = f'raise LabNotImplemented("{not_implemented_message(lab, lang)}")'
    if lang == DEFAULT_LANGUAGE:
        return [raise_line]
    english = REGION_GUIDANCE.get(function)
    if english is None or not has_translation(lang, english):
        raise LabMarkError(f"{function}: no {lang} guidance for its Lab {lab} region")
    guidance = tr_shown(lang, "Guidance: {guidance}", guidance=tr(lang, english))
    return [*(f"# {line}" for line in wrap_wide(guidance)), raise_line]


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
    if lang != DEFAULT_LANGUAGE:  # the English starter keeps the reference's docstrings
        source = translate_docstrings(source, module, lang)
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


def _init_text(lang: Lang = DEFAULT_LANGUAGE) -> str:
    docstring = _INIT_DOCSTRING
    if lang != DEFAULT_LANGUAGE:
        docstring = translate_docstrings(docstring, "__init__", lang)
    lines = [
        _HEADER_GIVEN.format(chapter=CHAPTER),
        docstring,
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
    files["__init__.py"] = _init_text(lang)
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
