"""The instructor's settings the zip carries, and the figures derived from them.

Both sides read them: ``autograder_zip`` writes them into the zip and ``container`` reads
them back inside Gradescope's container, so they live apart from either.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ...base.errors import CourseError
from ...track.checks import check_names
from ...track.exercises import EXERCISES
from ..grader import Limits
from ..hidden_checks import HiddenPlan
from ..lms import Weights

SETTINGS_FILE = "course-lab-gradescope.json"
"""The instructor's settings at the zip's root (root-only once unpacked: it holds the seed)."""

SETTINGS_SCHEMA = "course-lab-gradescope/1"
"""The settings file's ``schema``; a zip built by another version is refused by name."""

SandboxChoice = Literal["auto", "bwrap", "none"]


@dataclass(frozen=True)
class Settings:
    """What the instructor chose when building the zip; everything ``run`` needs besides it."""

    labs: tuple[str, ...]
    limits: Limits = field(default_factory=Limits)
    hidden: HiddenPlan | None = None
    hidden_feedback: bool = False
    """Show a failing hidden case's input and expected value (``--hidden-feedback``)."""
    weights: Weights = field(default_factory=Weights)
    notebooks: bool = False
    """One more test per notebook exercise of ``labs`` (``--notebooks``), 1 point each."""
    sandbox: SandboxChoice = "auto"
    version: str = ""
    """The workbook's version that built the zip (``pyproject.toml``), for the instructor."""

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SETTINGS_SCHEMA,
            "version": self.version,
            "labs": list(self.labs),
            "limits": asdict(self.limits),
            "hidden": None if self.hidden is None else asdict(self.hidden),
            "hidden_feedback": self.hidden_feedback,
            "weights": {"checks": self.weights.checks, "hidden": self.weights.hidden},
            "notebooks": self.notebooks,
            "sandbox": self.sandbox,
        }

    @classmethod
    def from_json(cls, data: Any) -> Settings:
        """The settings ``to_json`` wrote; anything else is a ``CourseError`` saying so."""
        if not isinstance(data, dict) or data.get("schema") != SETTINGS_SCHEMA:
            raise CourseError(
                f"{SETTINGS_FILE} is not a {SETTINGS_SCHEMA} file; rebuild the autograder "
                "with `course-lab grade gradescope`"
            )
        try:
            hidden = data["hidden"]
            weights = data["weights"]
            return cls(
                labs=tuple(str(lab) for lab in data["labs"]),
                limits=Limits(**data["limits"]),
                hidden=None if hidden is None else HiddenPlan(**hidden),
                hidden_feedback=bool(data["hidden_feedback"]),
                weights=Weights(
                    checks={str(k): float(v) for k, v in weights["checks"].items()},
                    hidden={str(k): float(v) for k, v in weights["hidden"].items()},
                ),
                notebooks=bool(data["notebooks"]),
                sandbox=_sandbox_choice(data["sandbox"]),
                version=str(data.get("version", "")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise CourseError(f"{SETTINGS_FILE} is damaged ({error!r}); rebuild it") from None

    def exercises(self) -> list[str]:
        """The notebook exercises that count: those of the chosen labs (``11.3-q1`` ...)."""
        if not self.notebooks:
            return []
        return [exercise for exercise in EXERCISES if exercise.split("-")[0] in self.labs]


def _sandbox_choice(value: object) -> SandboxChoice:
    if value == "bwrap":
        return "bwrap"
    if value == "none":
        return "none"
    if value == "auto":
        return "auto"
    raise ValueError(f"unknown sandbox {value!r}")


def hidden_labs(settings: Settings) -> list[str]:
    """The labs whose hidden cases are one test each (every chosen lab, with a seed)."""
    return list(settings.labs) if settings.hidden is not None else []


def tests_per_submission(settings: Settings) -> int:
    """How many tests each submission's results list: checks, hidden labs, exercises."""
    checks = sum(len(check_names(lab)) for lab in settings.labs)
    return checks + len(hidden_labs(settings)) + len(settings.exercises())


def max_points(settings: Settings) -> float:
    """What a submission that passes everything scores: the assignment's points on Gradescope."""
    checks = sum(settings.weights.of_check(n) for lab in settings.labs for n in check_names(lab))
    hidden = sum(settings.weights.of_hidden(lab) for lab in hidden_labs(settings))
    return rounded_points(checks + hidden + len(settings.exercises()))


def rounded_points(value: float) -> float:
    """Points as Gradescope shows them; four places keep ``3 * 1/12`` exact enough to add."""
    return round(value, 4) + 0.0  # + 0.0: never -0.0
