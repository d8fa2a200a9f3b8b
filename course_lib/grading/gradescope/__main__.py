"""``python -m course_lib.grading.gradescope run|check``: the command ``run_autograder`` and
``setup.sh`` call inside Gradescope's container (``container.main``)."""

import sys

from .container import main

if __name__ == "__main__":  # only when run with -m, not when imported (a doctest run)
    sys.exit(main())
