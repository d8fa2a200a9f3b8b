"""Beyond the chapter: real agent sessions (``importers``) and real token counts (``estimators``).

Built on the chapter's entries and rules; the chapter never imports this layer.
"""
