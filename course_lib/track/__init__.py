"""The student track: the lab catalogue, starters, checks, the practice loader and grading.

``course-lab practice/check/solution/grade`` are built from these modules; none
of them decides a chapter rule, they only copy, run and report the rules.
"""
