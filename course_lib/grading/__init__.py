"""The instructor's grading: a class's submissions confined in a sandbox, judged from outside it.

The student track (``track``) gives a student the starters and the checks to
run on their own work; this layer is the other side of ``course-lab grade``.
Each submission is staged in the grader's private folder and its code runs in
a sandbox of its own, while the judge (the checks, the hidden cases, the
reference, the seed) stays in the grader's process and reads back only plain
data (``judge``). No student-side module imports this layer, and none of it is
in a practice folder or in the given part of ``course_lib`` a judged package
sees; only ``notebook_worker`` runs inside the sandbox, and it reports answers
without judging them.

In reading order: ``sandbox`` (how a worker is confined), ``hidden_inputs``
and ``hidden_checks`` (the seeded cases), ``rule_origin``, ``similarity`` and
``submission_facts`` (what is read from a submission's files before any of
its code runs), ``grader`` (the roster staged and each copy judged),
``notebook_worker`` and ``notebook_grading`` (the notebooks' exercises, run
headless), then ``class_stats`` and ``lms`` (what the reports of
``views.grade_report`` are computed from; a student's feedback speaks their
folder's language through the gettext catalog, ``base.i18n``).
"""
