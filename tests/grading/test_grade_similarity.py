"""Similarity between students' lab regions, and the reference flag only where work is substantial.

Everything here reads practice packages written into ``tmp_path``; no
submission is run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from course_lib.grading.grader import identical_labs
from course_lib.grading.similarity import (
    MIN_TOKENS,
    lab_work,
    normalised_tokens,
    reference_work,
    resemblance,
    same_as_reference,
    similar_pairs,
)
from course_lib.track.catalogue import CHAPTER_LABS
from course_lib.track.starters import (
    lab_modules,
    replace_region_bodies,
    solution_bodies,
    write_practice_package,
)

LABS = list(CHAPTER_LABS)

Edit = Callable[[list[str]], list[str]]


def solved(directory: Path, labs: Sequence[str] = LABS) -> Path:
    write_practice_package(directory, solved=labs)
    return directory


def rewrite(directory: Path, lab: str, edit: Edit) -> Path:
    """Replace every region of ``lab`` with ``edit(reference body)``."""
    for module in lab_modules(lab):
        path = directory / f"{module}.py"
        bodies = [edit(body) for body in solution_bodies(module, lab)]
        text = path.read_text(encoding="utf-8")
        path.write_text(replace_region_bodies(text, lab, bodies, path.name), encoding="utf-8")
    return directory


def disguised(body: list[str]) -> list[str]:
    """The reference with comments, blank lines, a docstring and renamed locals: still a copy."""
    renames = {"current": "open_one", "used": "spent", "available": "room", "position": "where"}
    renamed = []
    for line in body:
        for old, new in renames.items():  # names each region binds itself
            line = re.sub(rf"\b{old}\b", new, line)
        renamed.append(line)
    return ['"""My own work."""', "# written from scratch", "", *renamed, "   "]


def changed(body: list[str]) -> list[str]:
    """Work of one's own: the same behaviour, written with extra steps."""
    own = [
        "steps_taken = 0  # counting for my notes",
        "for _ in range(3):",
        "    steps_taken += 1",
        "assert steps_taken == 3, 'three steps'",
    ]
    return [*own, *body]


def tweaked(number: int) -> Edit:
    """The reference with one line of one's own: not enough to call it one's own work."""
    return lambda body: [f"print('checked {number}')", *body]


def test_layout_comments_docstrings_and_local_names_do_not_count() -> None:
    plain = ["total = 0", "for item in values:", "    total += item", "return total"]
    other = [
        '"""Add them up."""',
        "s: int = 0   # running sum",
        "",
        "for x in (values):",
        "    s += x",
        "return s",
    ]
    assert normalised_tokens(plain) == normalised_tokens(other)
    # What the region only reads (a parameter, a helper) and every literal still count.
    assert normalised_tokens(plain) != normalised_tokens([*plain[:3], "return total + 1"])
    assert normalised_tokens(plain) != normalised_tokens(
        [line.replace("values", "items") for line in plain]
    )
    assert "v0" in normalised_tokens(plain) and "values" in normalised_tokens(plain)
    # Code that does not parse is still compared, by its raw tokens without comments.
    assert normalised_tokens(["if x  # note", "    y"]) == ["if", "x", "y"]
    # Nesting too deep to walk is compared as text too, instead of stopping the grader.
    deep = "x = " + "+".join(["a"] * 50_000)
    assert normalised_tokens([deep]) == ["x", "=", deep.removeprefix("x = ")]


def test_the_reference_flag_needs_substantial_work_identical_after_normalisation(
    tmp_path: Path,
) -> None:
    reference = reference_work(LABS)
    sizes = {lab: len(tokens) for lab, tokens in reference.items()}
    small = [lab for lab in LABS if sizes[lab] < MIN_TOKENS]
    assert small == ["11.1"], sizes  # four lines: written this way by anyone who writes it

    copy = solved(tmp_path / "copy")
    assert identical_labs(copy, LABS) == ("11.2", "11.3", "11.4", "11.5")

    hidden_copy = solved(tmp_path / "disguised")
    for lab in LABS:
        rewrite(hidden_copy, lab, disguised)
    assert identical_labs(hidden_copy, LABS) == ("11.2", "11.3", "11.4", "11.5")

    own = rewrite(solved(tmp_path / "own"), "11.3", changed)
    assert identical_labs(own, LABS) == ("11.2", "11.4", "11.5")

    fresh = tmp_path / "fresh"
    write_practice_package(fresh)
    assert lab_work(fresh, LABS) == {}  # starters are nobody's work
    assert identical_labs(fresh, LABS) == ()
    # With a lower bar, the small lab is flagged too.
    assert same_as_reference(lab_work(copy, LABS), reference, min_tokens=1) == tuple(LABS)


def test_copying_between_students_is_ranked_and_the_reference_is_not_a_pair(
    tmp_path: Path,
) -> None:
    reference = reference_work(LABS)
    works = {
        # ada and ben share work that is not the reference, on two labs.
        "ada": lab_work(rewrite(rewrite(solved(tmp_path / "ada"), "11.2", changed), "11.3", changed), LABS),
        "ben": lab_work(rewrite(rewrite(solved(tmp_path / "ben"), "11.2", changed), "11.3", changed), LABS),
        # chen and dora both hand in the reference: flagged, but no pair.
        "chen": lab_work(solved(tmp_path / "chen"), LABS),
        "dora": lab_work(solved(tmp_path / "dora"), LABS),
        # fay and gus each changed one line of the reference: neither is a pair.
        "fay": lab_work(rewrite(solved(tmp_path / "fay"), "11.3", tweaked(1)), LABS),
        "gus": lab_work(rewrite(solved(tmp_path / "gus"), "11.3", tweaked(2)), LABS),
        # eli has only written the first two labs, 11.2 differently from everyone.
        "eli": lab_work(
            rewrite(
                solved(tmp_path / "eli", ["11.1", "11.2"]),
                "11.2",
                lambda body: [*body, "print('done')"] if "return groups" in body[-1] else body,
            ),
            LABS,
        ),
    }  # fmt: skip
    pairs = similar_pairs(works, reference, LABS, threshold=0.8)
    assert [(p.lab, p.first, p.second, p.similarity) for p in pairs] == [
        ("11.2", "ada", "ben", 1.0),
        ("11.3", "ada", "ben", 1.0),
    ]
    for pair in pairs:
        assert pair.first_to_reference < pair.overall == 1.0
        assert pair.tokens >= MIN_TOKENS
    # As wholes, fay and gus resemble each other more than either resembles the reference;
    # what they share is the reference, so they are no pair.
    fay, gus = works["fay"]["11.3"], works["gus"]["11.3"]
    assert resemblance(fay, gus) > resemblance(fay, reference["11.3"]) > 0.8
    assert same_as_reference(works["chen"], reference) == ("11.2", "11.3", "11.4", "11.5")
    assert same_as_reference(works["ada"], reference) == ("11.4", "11.5")
    assert sorted(works["eli"]) == ["11.1", "11.2"]  # unwritten labs are not work

    # A higher bar than any pair reaches lists none; an edit after copying lowers the score.
    assert similar_pairs(works, reference, LABS, threshold=1.0 + 1e-9) == []
    edited = lab_work(
        rewrite(solved(tmp_path / "fin"), "11.2", lambda b: [*changed(b), "x = 1"]), LABS
    )
    score = resemblance(edited["11.2"], works["ada"]["11.2"])
    assert 0.8 < score < 1.0
