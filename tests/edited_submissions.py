"""Practice folders edited the way the grading tests need: the reference with lines added."""

from __future__ import annotations

from pathlib import Path

from course_lib.track.starters import lab_modules, replace_region_bodies, solution_bodies


def prepend(directory: Path, lab: str, lines: list[str]) -> Path:
    """Put ``lines`` at the top of every region of ``lab`` (the reference code follows)."""
    for module in lab_modules(lab):
        path = directory / f"{module}.py"
        bodies = [[*lines, *body] for body in solution_bodies(module, lab)]
        text = path.read_text(encoding="utf-8")
        path.write_text(replace_region_bodies(text, lab, bodies, path.name), encoding="utf-8")
    return directory
