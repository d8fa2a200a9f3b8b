"""Speed and memory figures for the workbook, reported as ratios measured in one run.

Absolute times depend on the machine; a ratio between two things measured in
the same run (a real session against the chapter's fixture, the importer
against plain JSON parsing) says something that holds across machines.
``python -m benchmarks`` runs every ``bench_*`` module here. No test asserts
on these numbers.
"""
