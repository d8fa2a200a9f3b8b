"""Importers that turn other tools' session files into course session entries.

``import_pi_session`` reads a real pi coding-agent session (format v1, v2 or
v3) and returns course entries that ``parse_session_entry``, ``path_to``,
``group_interactions`` and ``build_context`` accept, with a note for every
change it had to make.
"""

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
    "ImportNote",
    "ImportResult",
    "MissingResultPolicy",
    "PiImportError",
    "PiMissingResultError",
    "PiSource",
    "import_pi_bytes",
    "import_pi_session",
    "import_pi_text",
    "is_pi_session_header",
]
