"""The base layer: the boundary and the machinery the chapter stands on.

What a maintainer keeps strict, fast and safe, so the chapter's rules need
not: Chapter 3's messages, the wire format entries carry (``messages``),
errors (``errors``), JavaScript's blank and number rules (``text_rules``,
``wire``), the JSON wire rules, limits and readers (``wire``), the strict
pydantic base and field types (``schema``), the fast copier (``copier``),
validation errors in the course's words (``validation``), budget numbers and
estimators (``pricing``), the stores' locking and recovery (``stores``), and
the text a reader sees in English or Chinese (``i18n``, gettext catalogs).

This layer never imports the chapter (``course_lib.chapter``); the chapter
calls it through plain names such as ``check_budget_number`` or ``price``.
"""
