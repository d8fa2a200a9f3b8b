"""The answer box: what an answer cell shows stays inside one closed ``<details>`` block."""

from __future__ import annotations

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.display import display
from IPython.utils.capture import capture_output

from course_lib.views import answer_box
from course_lib.views.reveal import ANSWER_LABEL, AnswerBox, answer_label


@pytest.fixture(scope="module")
def shell() -> InteractiveShell:
    """A kernel-like shell, so ``display`` publishes rich outputs as it does in a notebook."""
    return InteractiveShell.instance()


def _shown(shell: InteractiveShell, lang: str, show: object) -> list[dict[str, str]]:
    with capture_output(display=True) as outer, answer_box(lang):
        print("printed first")
        display(show)
    return [output.data for output in outer.outputs]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_everything_the_block_shows_is_one_closed_block_with_the_editions_label(
    shell: InteractiveShell, lang: str
) -> None:
    frame = pd.DataFrame({"group": [1, 2], "tokens": [7, 15]})
    (shown,) = _shown(shell, lang, frame)
    html = shown["text/html"]
    assert html.startswith(f"<details><summary>{answer_label(lang)}</summary>\n")
    assert html.endswith("</details>") and "<details open" not in html
    assert "<pre>printed first\n</pre>" in html and frame.to_html() in html
    assert shown["text/plain"].splitlines()[:2] == [f"[{answer_label(lang)}]", "printed first"]


def test_the_label_in_each_edition() -> None:
    assert answer_label("en") == ANSWER_LABEL == "Show the answer"
    assert answer_label("zh") == "显示答案"


def test_plain_text_and_markup_are_escaped_inside_the_block() -> None:
    box = AnswerBox("Show the answer", "a < b & c\n", ({"text/plain": "<b>x</b>"},))
    html = box._repr_mimebundle_()["text/html"]
    assert "<pre>a &lt; b &amp; c\n</pre>" in html and "<pre>&lt;b&gt;x&lt;/b&gt;</pre>" in html


def test_an_error_inside_the_block_propagates_and_shows_no_box(shell: InteractiveShell) -> None:
    with (
        capture_output(display=True) as outer,
        pytest.raises(ZeroDivisionError),
        answer_box("en"),
    ):
        print("before")
        1 / 0  # noqa: B018
    assert outer.outputs == []


def test_an_unknown_language_is_refused_by_name(shell: InteractiveShell) -> None:
    with pytest.raises(ValueError, match="unknown language 'fr'"), answer_box("fr"):
        pass
