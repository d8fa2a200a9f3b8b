"""Chapter 11 workbook: an append-only session history rebuilt, per model call, to a budget.

Everything the labs, notebooks and tests use is importable from here; the
modules are listed in the order the chapter teaches them.
"""

from .budget import BuildContextResult, TokenProjection, build_context
from .compaction import create_compaction_entry
from .entries import (
    CompactionEntry,
    CompactionSummary,
    MessageEntry,
    MetadataEntry,
    SessionEntry,
    parse_session_entry,
)
from .errors import (
    BudgetError,
    CompactionError,
    CourseError,
    InteractionError,
    SessionEntryError,
    SessionFileError,
    SessionStoreError,
)
from .estimators import bpe_estimator, chars_estimator
from .fixture import (
    FIXTURE_TOKENS,
    chapter_fixture,
    chapter_fixture_after_compaction,
    fixture_estimator,
    fixture_summary,
    system_replay_fixture,
)
from .groups import InteractionGroup, group_interactions
from .importers import ImportNote, ImportResult, import_pi_session
from .ledger import LedgerRow, budget_ledger
from .messages import (
    AgentMessage,
    AssistantMessage,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    assistant_message,
    current_system_message,
    current_system_prompt,
    system_message_text,
    text,
    text_of,
    tool_result,
    user_message,
)
from .stores import (
    InMemorySessionStore,
    JsonlSessionStore,
    RepairResult,
    SessionReadResult,
    UnterminatedTailWarning,
    messages_on_path,
    path_to,
    read_session_file,
    recover_jsonl,
)
from .summary import (
    SUMMARY_LABELS_EN,
    SUMMARY_LABELS_ZH,
    SummaryLabels,
    render_summary,
    summary_message,
)

__all__ = [
    "FIXTURE_TOKENS",
    "SUMMARY_LABELS_EN",
    "SUMMARY_LABELS_ZH",
    "AgentMessage",
    "AssistantMessage",
    "BudgetError",
    "BuildContextResult",
    "CompactionEntry",
    "CompactionError",
    "CompactionSummary",
    "CourseError",
    "ImportNote",
    "ImportResult",
    "InMemorySessionStore",
    "InteractionError",
    "InteractionGroup",
    "JsonlSessionStore",
    "LedgerRow",
    "MessageEntry",
    "MetadataEntry",
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
    "import_pi_session",
    "messages_on_path",
    "parse_session_entry",
    "path_to",
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
