"""The judge and the judged, in two processes: a rule is called across a narrow channel.

A student's rules run in a process of their own (``rule_server``, confined by
the grader); the checks, the hidden cases and the reference stay in the
judge's process and call those rules through ``remote.RemotePackage``. What
crosses is plain data (``codec``): the call's name and arguments, then the
answer or the error, which the judge reads back with the course's own types.
``course-lab check``, ``course-lab grade`` and the project's lab tests all
judge this way, so a student sees exactly what the grader computes.

``codec``, ``confinement`` and ``rule_server`` also run on the judged side, with
the given layer only (``given_tree``); nothing else here is ever there.
"""
