"""Every error the workbook raises, one family under ``CourseError(ValueError)``.

The documented home of the errors (``from course_lib.errors import BudgetError``);
they are defined in the base layer (``course_lib.base.errors``), below every
rule that raises them, and also importable from ``course_lib`` itself.
"""

from __future__ import annotations

from .base.errors import *  # noqa: F403 (the one list of names is base.errors.__all__)
from .base.errors import __all__ as __all__
