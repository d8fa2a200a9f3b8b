"""Grade on Gradescope: the autograder zip the workbook builds, and the run inside its container.

``course-lab grade ROSTER`` grades a whole class on the instructor's machine.
Gradescope instead builds a container image from an *autograder zip* once,
then grades every submission in a fresh container of that image. Its
contract, which this package follows:

* the zip's root holds ``setup.sh`` and ``run_autograder``; Gradescope
  unpacks the zip to ``/autograder/source``, runs ``setup.sh`` there once, as
  root, on its Ubuntu image, and copies ``run_autograder`` to ``/autograder``;
* for each submission it puts the student's files in
  ``/autograder/submission``, runs ``/autograder/run_autograder`` (as root, in
  ``/autograder``) and reads ``/autograder/results/results.json``: a total
  ``score``, an ``output`` for the whole submission and one entry per test
  (``name``, ``score``, ``max_score``, ``status``, ``output``, ``visibility``).

``build_autograder`` (in ``autograder_zip``) writes that zip: the two
scripts, the instructor's settings (``SETTINGS_FILE``, in ``settings``: labs,
limits, the hidden seed, weights), the workbook's pinned requirements and the
workbook itself (``workbook/``: ``course_lib`` *and* ``tests/``, since the
judge reads the lab checks from the ``tests/`` folder beside ``course_lib``,
which no wheel carries). So every submission is graded by exactly the
checkout that built the zip.

``run`` (in ``container``) is the other side, what ``run_autograder``
calls: it grades the one submission with the very grader ``course-lab grade``
uses (``grader.grade_submission``: staged first, the rules in a rule server
inside the sandbox, the checks and hidden cases judged in this process), and
then writes ``results.json`` (in ``results``) from the judge's own data, last
and atomically. The submission cannot reach the results: before anything
runs, the source, submission and results folders are made root-only
(``lock_down``), the student's code runs in its staged copy as an
unprivileged user id of its own (or inside bubblewrap, when the container
allows namespaces), and every process it started has been killed before the
file is written.
"""

from .autograder_zip import autograder_out, build_autograder, gradescope_timeout_minutes
from .container import Layout, find_submission, main, run
from .results import HIDDEN_VISIBILITY, RESULTS_FILE, VISIBILITIES, results_for, write_results
from .settings import SETTINGS_FILE, Settings, max_points, tests_per_submission

__all__ = [
    "HIDDEN_VISIBILITY",
    "RESULTS_FILE",
    "SETTINGS_FILE",
    "VISIBILITIES",
    "Layout",
    "Settings",
    "autograder_out",
    "build_autograder",
    "find_submission",
    "gradescope_timeout_minutes",
    "main",
    "max_points",
    "results_for",
    "run",
    "tests_per_submission",
    "write_results",
]
