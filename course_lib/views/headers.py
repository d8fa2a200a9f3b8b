"""The notebooks' table headers in the edition's language.

The frames keep English column names (code and tests select columns by
them); only what a reader sees changes, when ``setup_notebook("zh")`` asks
for it. ``HEADERS`` lists every English header a notebook table shows, so
Babel extracts them (``N_``) and ``header_in`` translates only those: a cell
value or an id that happens to read like another message stays as it is.
Identifiers (``max_tokens``, ``kept_entry_ids``, an import note's kind) are
code, not words, and their translations keep them; so do names such as
``LangChain`` or ``Python``.
"""

from __future__ import annotations

from ..base.i18n import LANGUAGES, N_, tr

__all__ = ["HEADERS", "header_in"]

HEADERS: frozenset[str] = frozenset(
    (
        N_("Claude Code"),
        N_("Codex CLI"),
        N_("English"),
        N_("LangChain trim_messages, no start_on"),
        N_('LangChain trim_messages, start_on="human"'),
        N_("accepted"),
        N_("active path"),
        N_("after entry"),
        N_("agent"),
        N_("agent kept"),
        N_("agree"),
        N_("allowed"),
        N_("bar"),
        N_("bpe / chars"),
        N_("build_context first kept"),
        N_("build_context reason"),
        N_("calls counted"),
        N_("case"),
        N_("changedFiles"),
        N_("chapter (TypeScript)"),
        N_("chapter name"),
        N_("chapter section"),
        N_("check"),
        N_("checks"),
        N_("compaction"),
        N_("compactions"),
        N_("completed"),
        N_("constraints"),
        N_("content"),
        N_("context (chapter)"),
        N_("count"),
        N_("counted"),
        N_("course_lib build_context"),
        N_("course_lib module"),
        N_("cumulative (newest first)"),
        N_("cut"),
        N_("decisions"),
        N_("detail"),
        N_("difference"),
        N_("entries"),
        N_("entries kept"),
        N_("entry id"),
        N_("entry ids"),
        N_("error"),
        N_("estimator"),
        N_("field"),
        N_("file"),
        N_("filled"),
        N_("first id"),
        N_("first kept"),
        N_("first: context (chapter)"),
        N_("first: prompt (agent)"),
        N_("fixture"),
        N_("goal"),
        N_("group"),
        N_("groups kept"),
        N_("in"),
        N_("interactions"),
        N_("interactions counted"),
        N_("item"),
        N_("kept by the ledger"),
        N_("kind"),
        N_("kind of context"),
        N_("lab"),
        N_("largest call"),
        N_("largest prompt (agent)"),
        N_("last id"),
        N_("last kept"),
        N_("last: context (chapter)"),
        N_("last: prompt (agent)"),
        N_("leaf"),
        N_("line"),
        N_("lines"),
        N_("max"),
        N_("mean"),
        N_("message"),
        N_("message allowance left"),
        N_("messages"),
        N_("min"),
        N_("name"),
        N_("newest compaction"),
        N_("next"),
        N_("notebook"),
        N_("notes"),
        N_("number of checks"),
        N_("outcome"),
        N_("parent"),
        N_("parsed entry"),
        N_("path"),
        N_("paths where it drops the newest user turn"),
        N_("paths where it keeps a result without its call"),
        N_("pi"),
        N_("prompt (agent)"),
        N_("provider tokens"),
        N_("reason"),
        N_("result"),
        N_("results, in path order"),
        N_("role"),
        N_("role or key"),
        N_("segment"),
        N_("sent"),
        N_("severity"),
        N_("source"),
        N_("status"),
        N_("statuses"),
        N_("std"),
        N_("step"),
        N_("summary constraints"),
        N_("summary next"),
        N_("test"),
        N_("tokens"),
        N_("tokens before (agent)"),
        N_("tokens before (chapter)"),
        N_("tool calls"),
        N_("tool calls declared"),
        N_("topic"),
        N_("trigger"),
        N_("trimmer"),
        N_("type"),
        N_("unmapped items"),
        N_("unresolved"),
        N_("value"),
        N_("why"),
        N_("wire dict"),
    )
)
"""Every English header a notebook table shows (the catalog holds each one's translations)."""


def header_in(label: object, lang: str) -> str:
    """``label`` as the edition in ``lang`` shows it: translated when it is a known header."""
    text = str(label)
    for known in LANGUAGES:
        if lang == known and text in HEADERS:
            return tr(known, text)
    return text
