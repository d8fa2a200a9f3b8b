"""Importers that turn other tools' session files into course session entries.

``import_pi_session`` reads a real pi coding-agent session (format v1, v2 or
v3) and returns course entries that ``parse_session_entry``, ``path_to``,
``group_interactions`` and ``build_context`` accept, with a note for every
change it had to make. ``import_claude_code_session`` and
``import_codex_session`` do the same for the two agents' own files, and
``import_session`` recognises which of the three wrote a file.
"""

from ._agent_base import (
    AgentCompaction,
    AgentImportError,
    AgentImportResult,
    AgentNoteKind,
    AgentSource,
    AgentUsage,
)
from .claude_code import (
    import_claude_code_bytes,
    import_claude_code_session,
    import_claude_code_text,
    is_claude_code_record,
)
from .codex import (
    import_codex_bytes,
    import_codex_session,
    import_codex_text,
    is_codex_record,
    is_legacy_codex_header,
)
from .detect import (
    SESSION_FORMATS,
    DetectedImport,
    detect_format,
    import_session,
    import_session_bytes,
)
from .pi import (
    ImportNote,
    ImportResult,
    MissingResultPolicy,
    PiImportError,
    PiMissingResultError,
    PiSource,
    import_pi_bytes,
    import_pi_session,
    import_pi_text,
    is_pi_session_header,
)

__all__ = [
    "SESSION_FORMATS",
    "AgentCompaction",
    "AgentImportError",
    "AgentImportResult",
    "AgentNoteKind",
    "AgentSource",
    "AgentUsage",
    "DetectedImport",
    "ImportNote",
    "ImportResult",
    "MissingResultPolicy",
    "PiImportError",
    "PiMissingResultError",
    "PiSource",
    "detect_format",
    "import_claude_code_bytes",
    "import_claude_code_session",
    "import_claude_code_text",
    "import_codex_bytes",
    "import_codex_session",
    "import_codex_text",
    "import_pi_bytes",
    "import_pi_session",
    "import_pi_text",
    "import_session",
    "import_session_bytes",
    "is_claude_code_record",
    "is_codex_record",
    "is_legacy_codex_header",
    "is_pi_session_header",
]
