"""Beyond the chapter: real agent sessions (``importers``), real token counts (``estimators``).

The importers read the session files of pi, Claude Code and Codex CLI
(``import_session`` recognises which wrote a file) into the chapter's entries.
``one_pass`` takes the chapter's budget steps in one walk over a long path: it is
``course_lib.build_context``.

Built on the chapter's entries and rules; the chapter never imports this layer.
"""
