"""A practice package's docstrings in another language, paragraph by paragraph from the reference's.

A starter is its reference module with the lab regions emptied, so its
docstrings are the reference's: English, a summary line, prose paragraphs
that cite the chapter (``§4 rule 4 · Lab 11.3``) and often doctests.
``course-lab practice 11 DIR --lang zh`` rewrites every *prose* paragraph in
Chinese and keeps the rest byte for byte: the doctest blocks (the ``>>>``
lines and their expected output, so they pass as they do in English), the
blank lines between paragraphs and the quotes. The English package never
comes here: its docstrings are the reference's, unchanged.

One prose paragraph is one gettext message. Its id is the paragraph as
Python reads it, its lines joined with single spaces; ``STARTER_DOCSTRINGS``
marks each with ``N_`` (so ``make catalogs`` extracts it), keyed by where the
docstring stands: ``"budget"`` for the module, ``"budget.group_costs"`` for a
function (``"module.Class.method"`` for a method), ``"__init__"`` for the
package's own. A key must list its docstring's paragraphs exactly, in order:
a reference docstring edited without its entry here stops
``course-lab practice --lang zh`` with an error naming the docstring, and
``tests/track/test_starter_docstrings.py`` fails before any student sees it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from ..base.errors import CourseError
from ..base.i18n import N_, Lang, has_translation, tr
from .language import wrap_wide

__all__ = [
    "LINE_COLUMNS",
    "STARTER_DOCSTRINGS",
    "StarterDocstringError",
    "docstring_paragraphs",
    "translate_docstrings",
]

LINE_COLUMNS = 100
"""The widest line a translated docstring writes (the project's ``line-length``)."""


class StarterDocstringError(CourseError):
    """A docstring of the reference has no translation, or does not match ``STARTER_DOCSTRINGS``."""


@dataclass(frozen=True)
class _Docstring:
    """One docstring of a source: where its literal stands and what is between its quotes."""

    key: str
    first: int  # 0-based index of the line the literal starts on
    last: int  # 0-based index of the line it ends on
    indent: str  # what stands before the literal on its first line: the statement's indentation
    prefix: str  # the opening quotes: '"""' or 'r"""'
    body: str  # between the quotes, as written
    tail: str  # what follows the literal on its last line (the line's end)

    @property
    def raw(self) -> bool:
        return self.prefix.lower().startswith("r")


def _docstring_nodes(tree: ast.Module, module: str) -> Iterator[tuple[str, ast.Constant]]:
    """``(key, literal)`` for the module's docstring and every function's and class's."""

    def first_string(body: list[ast.stmt]) -> ast.Constant | None:
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            return body[0].value if isinstance(body[0].value.value, str) else None
        return None

    def walk(body: list[ast.stmt], names: list[str]) -> Iterator[tuple[str, ast.Constant]]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                literal = first_string(node.body)
                if literal is not None:
                    yield ".".join([*names, node.name]), literal
                yield from walk(node.body, [*names, node.name])

    literal = first_string(tree.body)
    if literal is not None:
        yield module, literal
    yield from walk(tree.body, [module])


def _docstrings(source: str, module: str) -> list[_Docstring]:
    """Every docstring of ``source``, in source order."""
    lines = source.splitlines(keepends=True)
    found: list[_Docstring] = []
    for key, node in _docstring_nodes(ast.parse(source, filename=f"{module}.py"), module):
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        # ast's columns count UTF-8 bytes, not characters.
        start_line, end_line = lines[first].encode(), lines[last].encode()
        indent = start_line[: node.col_offset].decode()
        literal = (
            start_line[node.col_offset : node.end_col_offset]
            if first == last
            else b"".join(
                [
                    start_line[node.col_offset :],
                    *(line.encode() for line in lines[first + 1 : last]),
                    end_line[: node.end_col_offset],
                ]
            )
        ).decode()
        tail = end_line[node.end_col_offset :].decode()
        quotes = literal.find('"""')
        prefix = literal[: quotes + 3]
        if indent.strip() or tail.strip() or prefix.lower() not in ('"""', 'r"""'):
            raise StarterDocstringError(
                f"{module}.py: the docstring of {key} is not one triple-quoted string on lines "
                'of its own; write it as """...""" (or r"""...""")'
            )
        found.append(_Docstring(key, first, last, indent, prefix, literal[quotes + 3 : -3], tail))
    return found


def _is_doctest(line: str) -> bool:
    return line.lstrip().startswith(">>>")


def _blocks(body: str) -> list[tuple[int, int, int]]:
    """``(start, prose_end, end)`` line indexes of each paragraph of a docstring's body.

    A paragraph is a run of non-blank lines; its prose is the lines before its
    first ``>>>``, the rest (the examples and their expected output) is code.
    """
    lines = body.split("\n")
    blocks: list[tuple[int, int, int]] = []
    index = 0
    while index < len(lines):
        if not lines[index].strip():
            index += 1
            continue
        start = index
        while index < len(lines) and lines[index].strip():
            index += 1
        prose_end = next((i for i in range(start, index) if _is_doctest(lines[i])), index)
        blocks.append((start, prose_end, index))
    return blocks


def _message_id(lines: list[str], raw: bool) -> str:
    """A prose paragraph as Python reads it (escapes applied), its lines joined by one space."""
    joined = " ".join(" ".join(line.split()) for line in lines)
    if raw:
        return joined
    value = ast.literal_eval(f'"""{joined} """')  # the space: a paragraph may end with a quote
    assert isinstance(value, str)
    return value[:-1]


def _written(text: str, raw: bool, where: str) -> str:
    """``text`` as it must be written between the docstring's quotes."""
    written = text if raw else text.replace("\\", "\\\\")
    if '"""' in written or (raw and "\\" in written):
        raise StarterDocstringError(f"{where}: this translation cannot stand in a docstring")
    return written


def _prose(docstring: _Docstring) -> list[str]:
    lines = docstring.body.split("\n")
    return [
        _message_id(lines[start:prose_end], docstring.raw)
        for start, prose_end, _ in _blocks(docstring.body)
        if prose_end > start
    ]


def docstring_paragraphs(source: str, module: str) -> dict[str, list[str]]:
    """Each docstring's prose paragraphs, as ``STARTER_DOCSTRINGS`` must list them."""
    return {docstring.key: _prose(docstring) for docstring in _docstrings(source, module)}


def _translated_body(docstring: _Docstring, lang: Lang, file: str) -> str:
    """The body of ``docstring`` with each prose paragraph in ``lang``; examples untouched."""
    where = f"{file}: the docstring of {docstring.key}"
    marked = STARTER_DOCSTRINGS.get(docstring.key)
    if marked is None or list(marked) != _prose(docstring):
        raise StarterDocstringError(
            f"{where} is not the one STARTER_DOCSTRINGS lists; copy its paragraphs into "
            "course_lib/track/docstrings.py, run `make catalogs` and translate them"
        )
    missing = [paragraph for paragraph in marked if not has_translation(lang, paragraph)]
    if missing:
        raise StarterDocstringError(f"{where}: no {lang} translation of {missing[0]!r}")
    lines = docstring.body.split("\n")
    prose = [(start, end) for start, end, _ in _blocks(docstring.body) if end > start]
    for (start, prose_end), english in reversed(list(zip(prose, marked, strict=True))):
        text = _written(tr(lang, english), docstring.raw, where)
        after_quotes = len(docstring.indent) + len(docstring.prefix)  # the first line's text
        wrapped = wrap_wide(
            text,
            LINE_COLUMNS - len(docstring.indent),
            first_columns=LINE_COLUMNS - after_quotes if start == 0 else None,
        )
        lines[start:prose_end] = [
            line if start == 0 and i == 0 else docstring.indent + line
            for i, line in enumerate(wrapped)
        ]
    body = "\n".join(lines)
    if "\n" not in docstring.body and "\n" in body:  # now longer than one line: quotes below
        body += "\n" + docstring.indent
    if body.endswith('"'):
        raise StarterDocstringError(f"{where}: its translation ends with a quote; end it otherwise")
    return body


def translate_docstrings(source: str, module: str, lang: Lang) -> str:
    """``source`` with every docstring's prose in ``lang`` (a practice package in another language).

    ``module`` is the file's module name (``"budget"``, ``"__init__"``), the
    first part of each ``STARTER_DOCSTRINGS`` key.
    """
    lines = source.splitlines(keepends=True)
    for docstring in reversed(_docstrings(source, module)):
        body = _translated_body(docstring, lang, f"{module}.py")
        literal = (
            f"{docstring.indent}{docstring.prefix}{body}{docstring.prefix[-3:]}{docstring.tail}"
        )
        lines[docstring.first : docstring.last + 1] = [literal]
    return "".join(lines)


# The table is written by hand from the reference's docstrings (each paragraph's lines joined
# with single spaces); ``tests/track/test_starter_docstrings.py`` holds it to them.
STARTER_DOCSTRINGS: dict[str, tuple[str, ...]] = {
    "entries": (
        N_("Lab 11.1: the one parser every session entry crosses, the compaction entry included."),
        N_(
            "Chapter 11 §2 「摘要先成为 session 中的一条普通事实」 (the summary first becomes an ordinary fact "
            "of the session): once the parser knows it, every store and reader does."
        ),
    ),
    "entries.parse_session_entry": (
        N_(
            "Validate a camelCase wire dict (or an entry) into a fresh entry sharing nothing "
            "with it."
        ),
        N_("§2. A ``SessionEntryError`` names the entry id and the camelCase field path:"),
    ),
    "entries.parse_compaction": (
        N_(
            "Turn a compaction's wire dict into a ``CompactionEntry``, or say exactly what is "
            "wrong."
        ),
        N_(
            "§2 · Lab 11.1. camelCase wire names only (``first_kept_entry_id`` is unknown); a "
            '``ValidationError`` becomes ``SessionEntryError(f"{label}: '
            '{describe_validation_error(e)}")``.'
        ),
    ),
    "groups": (
        N_("Lab 11.2: split a path's messages into interactions that are kept or dropped whole."),
        N_(
            "Chapter 11 §3 「两个 tool result 仍属于 u3 开始的同一组」 (both tool results still belong to the "
            "group u3 opens): calls pair with results by id only, never by position."
        ),
    ),
    "groups.record_tool_facts": (
        N_("Record the calls ``entry`` declares or the call it answers (call id -> entry id)."),
        N_(
            "§3 · Lab 11.2. Each ``toolCall`` block of an assistant message declares one; a tool "
            'result answers ``tool_call_id``. A repeat: ``InteractionError`` with "duplicate", '
            "entry and call id."
        ),
    ),
    "groups.check_tool_pairs": (
        N_(
            "When an interaction closes (a result may come before its call), check calls and "
            "results pair."
        ),
        N_(
            '§3 · Lab 11.2. Else ``InteractionError``: "unknown call" or "missing result", '
            "entry, call id."
        ),
    ),
    "groups.split_interactions": (
        N_("Split message entries into interactions, oldest first; system messages join none."),
        N_(
            "§3 · Lab 11.2. A user message closes the open interaction (``check_tool_pairs``) "
            "and opens the next; the others join it (``record_tool_facts``); before the first "
            'user message they are an ``InteractionError`` naming the entry and "before the '
            'first user message".'
        ),
    ),
    "groups.group_interactions": (
        N_("The interactions of ``entries`` (message entries only) as deep copies."),
        N_(
            "Chapter 11 §3: the fixture's three groups, the third whole although ``r-test`` "
            "answers the second call."
        ),
    ),
    "budget": (
        N_(
            "Lab 11.3: project an append-only path into a bounded model input, whole groups "
            "newest first."
        ),
        N_(
            "Chapter 11 §4 「31 个 token 怎样留下第二、三组」 (how 31 tokens keep groups two and three). "
            "``plan_budget`` is the course's ``buildContext`` step by step; the steps follow it."
        ),
    ),
    "budget.plan_budget": (
        N_(
            "Every decision of one model call, in the chapter's order (§4, §6): each step is below."
        ),
    ),
    "budget.replay_system": (
        N_("The one system message the model sees, replayed from the *whole* path (or ``None``)."),
        N_(
            "§4 rule 2 · Lab 11.3: every system message of the path, in order, through "
            "``current_system_message``."
        ),
    ),
    "budget.group_costs": (
        N_("Each group's cost: the sum of its messages' estimates."),
        N_(
            '§4 rule 4 · Lab 11.3. ``price(estimate_tokens, message, "interaction", n, '
            '"message", m)`` (n, m from 1) checks each estimate and names the message in a '
            "``BudgetError``."
        ),
    ),
    "budget.message_allowances": (
        N_("The deduction table's last column: what messages, and then groups, may use."),
        N_(
            "§4 rule 3, §6 step 3 · Lab 11.3. ``(available_for_messages, allowance)``, never "
            "below 0: ``max_tokens - system - reserved_output - safety_margin``, then what the "
            "summary leaves. The summary is Lab 11.5's; until a compaction exists its cost is 0 "
            "(the chapter's ``fixedMessages`` slot, 「留给后文的压缩摘要」, is there from the start too)."
        ),
    ),
    "budget.select_newest_groups": (
        N_(
            "``(index of the oldest kept group, reason)``: whole groups, newest first, while "
            "they fit."
        ),
        N_(
            "§4 rule 4 · Lab 11.3. Stop at the first group that does not fit (``used + cost <= "
            'allowance`` fits). The reason: ``"single_group_overflow"`` when the newest alone is '
            'over (kept anyway), ``"trimmed"`` when an older group was left out, else '
            '``"within_budget"``.'
        ),
    ),
    "budget.token_projection": (
        N_("Where the window went: ``messages`` (the summary and the kept groups) and ``total``."),
        N_(
            "§4 rules 4, 5 · Lab 11.3. ``total = system + messages + reserved_output + "
            'safety_margin``, checked with ``check_budget_number("the total of the projection", '
            "total)``."
        ),
    ),
    "budget.context_from_plan": (
        N_("The model input a plan decided: ``[system?, summary?, ...kept messages]``."),
        N_(
            "§4 rule 5 · Lab 11.3. Each kept message is a deep copy (``model_copy(deep=True)``); "
            "``kept_entry_ids`` names only the kept entries."
        ),
    ),
    "budget.build_context": (
        N_(
            "Project ``active_path`` (from ``path_to``) into ``[system?, summary?, ...kept "
            "messages]``."
        ),
        N_(
            "§4: 31 / 4 / 2 keeps 7 + 15 of 22. After ``compact-1`` (the workbook's own numbers) "
            "the summary's 5 is paid first and leaves 17 for the groups."
        ),
    ),
    "compaction": (
        N_("Lab 11.4: create a compaction entry as a pure function of the active path."),
        N_(
            "Chapter 11 §5 「compact-1 记录摘要与保留起点」 (compact-1 records the summary and where "
            "keeping starts). The entry is returned, not stored: the caller shows it or asks for "
            "confirmation, then appends it, always after the path's leaf."
        ),
    ),
    "compaction.create_compaction_entry": (
        N_(
            "Build compaction entry ``id`` after the path's leaf (its ``parentId``); nothing is "
            "stored."
        ),
        N_(
            "§5 · Lab 11.4. Entries only (``require_session_entries``). A ``CompactionError``: "
            "\"empty active path\"; ``duplicate id '<id>'``; ``'<id>' is not the first message of "
            "a complete interaction`` unless it starts one of ``group_interactions``. Return it "
            "parsed."
        ),
    ),
    "restoring": (
        N_(
            "Lab 11.5: restore from the newest compaction; its summary becomes one synthetic "
            "user message."
        ),
        N_(
            "Chapter 11 §6 「恢复时把最新摘要接在保留后缀前面」 (restoring puts the newest summary before the kept "
            "suffix). Nothing is deleted: the path before the suffix is summarised."
        ),
    ),
    "restoring.newest_compaction": (
        N_(
            "The compaction entry nearest the leaf, or ``None`` (older summaries are never sent "
            "again)."
        ),
        N_("§6 step 1 · Lab 11.5."),
    ),
    "restoring.restored_suffix": (
        N_("The path from the first kept entry on: all that is grouped after restoring."),
        N_(
            "§6 step 2 · Lab 11.5. The first kept id must name a *user message entry before the "
            "compaction*; any other (``a2``, ``u4``, unknown) is a ``CompactionError`` naming "
            "both ids."
        ),
    ),
    "restoring.render_summary": (
        N_(
            "The seven fields as text, in a fixed order with fixed labels, so every build pays "
            "the same."
        ),
        N_(
            '§6 step 3 · Lab 11.5. Lines joined by ``"\\n"``: ``labels.title``; ``labels.goal`` '
            "and the goal; per ``LIST_FIELDS`` its label, then ``- <item>`` each or ``- "
            "<labels.none>``. A dict is read with ``as_summary``."
        ),
    ),
    "restoring.summary_message": (
        N_("The **user** message standing in for the path before the first kept entry."),
        N_(
            "§6 step 3 · Lab 11.5. One text block, ``render_summary`` with ``labels``; the "
            "compaction's timestamp."
        ),
    ),
    "ledger": (
        N_("The transfer exercise: a per-group budget ledger that agrees with ``build_context``."),
        N_(
            "Chapter 11 §8 「可选迁移练习」 (the optional transfer exercise): it re-decides nothing."
        ),
    ),
    "ledger.budget_ledger": (
        N_("One row per group ``build_context`` considers, so a reader sees why each was kept."),
    ),
    "ledger.ledger_from_plan": (
        N_("The ledger of a plan already made: nothing is priced or decided again."),
        N_(
            "§8 · transfer. One ``LedgerRow`` per group of ``plan.groups``, oldest first, "
            "numbered as the chapter counts groups (the first is ``plan.first_group_number``), "
            'its cost read from ``plan.group_tokens``. Its status (``"kept"``, ``"trimmed"`` or '
            '``"overflow"``) must agree with what ``context_from_plan`` keeps of the same plan: '
            "find the fields that decide it."
        ),
    ),
    "__init__": (
        N_("Your Chapter 11 practice package: the chapter's rules; the rest is ``course_lib``'s."),
        N_(
            'Write each body between its "# --- Lab ...: begin/end ---" marks (keep them). Check '
            "a lab: ``course-lab check 11.3 --impl <dir>``; examples: ``python -m pytest "
            "--doctest-modules <dir>``."
        ),
    ),
}
"""``module`` or ``module.function`` -> the English prose paragraphs of its docstring, in order."""
