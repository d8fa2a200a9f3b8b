"""Chapter 11 workbook: an append-only session history rebuilt, per model call, to a budget.

Everything the labs, notebooks and tests use is importable from here. The
package has layers, each importing only those before it:

* ``course_lib.base``     the boundary and the machinery (Chapter 3's messages, wire rules,
  readers, copier, locking)
* ``course_lib.chapter``  the chapter's types (``models``, defined once) and rules, in the
  chapter's order: what a student reads and writes
* ``course_lib.errors``   every error the workbook raises (one family: ``CourseError``)
* ``course_lib.beyond``   real sessions and real tokenizers (the pi, Claude Code and Codex
  importers, estimators), and ``build_context`` for long paths (``one_pass``: the chapter's
  ``budget`` steps in one walk over the path, for a pure estimator)
* ``course_lib.judge``    a student's rules judged from another process: the call channel, the
  rule server and the given part of the package it may import
* ``course_lib.track``    the student track: the lab catalogue, starters, checks, exercises
* ``course_lib.grading``  the instructor's grading: the sandbox, hidden cases, similarity, LMS
  exports, judged from outside the sandbox
* ``course_lib.views``    the notebooks' tables, explorers and plots, and the grade reports
* ``course_lib.tools``    the ``course-lab`` CLI
"""

from .base.errors import (
    BudgetError,
    CompactionError,
    CourseError,
    InteractionError,
    SessionEntryError,
    SessionFileError,
    SessionStoreError,
)
from .base.messages import (
    AgentMessage,
    AssistantMessage,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    assistant_message,
    system_message_text,
    text,
    text_of,
    tool_result,
    user_message,
)
from .base.stores import RepairResult, SessionReadResult, UnterminatedTailWarning
from .beyond.estimators import bpe_estimator, chars_estimator
from .beyond.importers import (
    AgentImportResult,
    DetectedImport,
    ImportNote,
    ImportResult,
    import_claude_code_session,
    import_codex_session,
    import_pi_session,
    import_session,
)
from .chapter.budget import build_context, message_allowances, plan_budget
from .chapter.compaction import create_compaction_entry
from .chapter.entries import parse_session_entry
from .chapter.fixture import (
    FIXTURE_TOKENS,
    NamedEstimator,
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_estimator,
    fixture_summary,
    system_replay_fixture,
)
from .chapter.groups import group_interactions
from .chapter.labs import LabNotImplemented
from .chapter.ledger import budget_ledger, ledger_from_plan
from .chapter.messages import current_system_message, current_system_prompt
from .chapter.models import (
    SUMMARY_LABELS_EN,
    SUMMARY_LABELS_ZH,
    Budget,
    BudgetPlan,
    BuildContextResult,
    CompactionEntry,
    CompactionSummary,
    InteractionGroup,
    LedgerRow,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    SummaryLabels,
    TokenProjection,
)
from .chapter.restoring import render_summary, summary_message
from .chapter.sessions import (
    InMemorySessionStore,
    JsonlSessionStore,
    messages_on_path,
    path_to,
    read_session_file,
    recover_jsonl,
)

# isort: split
# The chapter's two budget functions, rebound to the same steps taken in one walk over the path
# for a pure estimator (as bisect binds its C version over its Python one). The import above
# names them for the practice package and the judge; course_lib.chapter.budget is the one to read.
from .beyond.one_pass import build_context, plan_budget  # noqa: F811

__all__ = [
    "FIXTURE_TOKENS",
    "SUMMARY_LABELS_EN",
    "SUMMARY_LABELS_ZH",
    "AgentImportResult",
    "AgentMessage",
    "AssistantMessage",
    "Budget",
    "BudgetError",
    "BudgetPlan",
    "BuildContextResult",
    "CompactionEntry",
    "CompactionError",
    "CompactionSummary",
    "CourseError",
    "DetectedImport",
    "ImportNote",
    "ImportResult",
    "InMemorySessionStore",
    "InteractionError",
    "InteractionGroup",
    "JsonlSessionStore",
    "LabNotImplemented",
    "LedgerRow",
    "MessageEntry",
    "MetadataEntry",
    "NamedEstimator",
    "RepairResult",
    "SessionEntry",
    "SessionEntryError",
    "SessionFileError",
    "SessionReadResult",
    "SessionStoreError",
    "SummaryLabels",
    "SystemMessage",
    "TextContent",
    "TokenProjection",
    "ToolCall",
    "ToolResultMessage",
    "UnterminatedTailWarning",
    "Usage",
    "UserMessage",
    "assistant_message",
    "bpe_estimator",
    "budget_ledger",
    "build_context",
    "chapter_fixture",
    "chapter_fixture_after_compaction",
    "chars_estimator",
    "create_compaction_entry",
    "current_system_message",
    "current_system_prompt",
    "fixture_estimator",
    "fixture_summary",
    "group_interactions",
    "import_claude_code_session",
    "import_codex_session",
    "import_pi_session",
    "import_session",
    "ledger_from_plan",
    "message_allowances",
    "messages_on_path",
    "parse_session_entry",
    "path_to",
    "plan_budget",
    "read_session_file",
    "recover_jsonl",
    "render_summary",
    "summary_message",
    "system_message_text",
    "system_replay_fixture",
    "text",
    "text_of",
    "tool_result",
    "user_message",
]
