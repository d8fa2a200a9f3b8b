"""The chapter layer: Chapter 11's rules, in the order the chapter teaches them.

Read the modules in this order; each names the section it implements:

0. ``models``     §2–§8: the chapter's types, defined once (a practice package imports them)
1. ``messages``   §4 and §6: the system replay (the messages are Chapter 3's, in the base)
2. ``entries``    §2, Lab 11.1: the parser every entry crosses, the compaction included
3. ``sessions``   §2, Lab 11.1: both stores keep what the parser returns; the active path
4. ``groups``     §3, Lab 11.2: interactions kept or dropped whole
5. ``budget``     §4, Lab 11.3: fixed costs, then whole groups newest first
6. ``compaction`` §5, Lab 11.4: creating a compaction entry
7. ``restoring``  §6, Lab 11.5: restoring from the newest compaction, the summary message
8. ``ledger``     §8, the transfer exercise: a per-group ledger
9. ``fixture``    §1: the ten-entry fixture (``data/*.jsonl``) and its test estimator
10. ``labs``      ``LabNotImplemented``, what an unwritten lab region raises

Each lab's code sits in its own module. The machinery (wire rules, readers,
the copier, locking) is the base layer's (``course_lib.base``), imported by
plain names; nothing here re-implements it.
"""
