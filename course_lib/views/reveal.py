"""Answers that stay hidden until the student clicks: one closed ``<details>`` block per answer.

A "predict first" question is followed by the cell that computes its answer.
Folding that cell's outputs is not enough: JupyterLab unfolds the outputs of
every cell it runs, so *Run All* would show every answer before its question
is read. The answer therefore lives *inside* its output, as a closed HTML
``<details>`` block that stays closed after Run All and after a save.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from IPython.display import display
from IPython.utils.capture import CapturedIO, capture_output

from ..base.i18n import LANGUAGES, N_, Lang, tr

__all__ = ["ANSWER_LABEL", "AnswerBox", "answer_box", "answer_label"]

ANSWER_LABEL = N_("Show the answer")
"""The label of every answer's ``<details>`` block, in English (a browser test clicks it)."""


def answer_label(lang: str) -> str:
    """``ANSWER_LABEL`` in the edition's language; a ``ValueError`` for a language it lacks."""
    for known in LANGUAGES:
        if lang == known:
            return tr(known, ANSWER_LABEL)
    raise ValueError(f"unknown language {lang!r}; choose one of {sorted(LANGUAGES)}")


def _html_of(data: dict[str, Any]) -> str:
    """One captured output as HTML: its own HTML, an image, or its plain text."""
    if "text/html" in data:
        return str(data["text/html"])
    if "image/svg+xml" in data:
        return str(data["image/svg+xml"])
    if "image/png" in data:
        return f'<img src="data:image/png;base64,{data["image/png"]}"/>'
    return f"<pre>{html.escape(str(data.get('text/plain', '')))}</pre>"


@dataclass(frozen=True)
class AnswerBox:
    """What an answer cell printed and displayed, shown inside one closed ``<details>`` block.

    The plain-text form lists the same outputs, for frontends without HTML.
    """

    label: str
    printed: str
    outputs: tuple[dict[str, Any], ...]

    def _repr_mimebundle_(self, **_: Any) -> dict[str, str]:
        parts = [f"<pre>{html.escape(self.printed)}</pre>"] if self.printed else []
        parts += [_html_of(data) for data in self.outputs]
        body = "\n".join(parts)
        plain = [f"[{self.label}]", *([self.printed.rstrip("\n")] if self.printed else [])]
        plain += [str(data.get("text/plain", "")) for data in self.outputs]
        return {
            "text/html": f"<details><summary>{self.label}</summary>\n{body}\n</details>",
            "text/plain": "\n".join(plain),
        }


def _box(captured: CapturedIO, lang: str) -> AnswerBox:
    label = answer_label(lang)
    printed = captured.stdout + captured.stderr
    return AnswerBox(label, printed, tuple(o.data for o in captured.outputs))


@contextmanager
def answer_box(lang: Lang | str = "en") -> Iterator[None]:
    """Show everything the block prints or displays inside one closed "Show the answer" block.

    An error inside the block propagates unchanged, so a broken answer is
    never hidden behind the label.
    """
    with capture_output(display=True) as captured:
        yield
    display(_box(captured, lang))  # type: ignore[no-untyped-call]
