"""The student track: the lab catalogue, starters, checks, the notebooks' exercises and hints.

``course-lab practice/check/solution`` are built from these modules; none
of them decides a chapter rule, they only copy, run and report the rules.
What a student runs on their own work is here; the instructor's side of
``course-lab grade`` (the sandbox, hidden cases, similarity, the LMS) is
``course_lib.grading``, which comes after this layer and which nothing here imports.
"""
