"""Beyond the chapter: real agent sessions (``importers``) and real token counts (``estimators``).

The importers read the session files of pi, Claude Code and Codex CLI
(``import_session`` recognises which wrote a file) into the chapter's entries.

Built on the chapter's entries and rules; the chapter never imports this layer.
"""
