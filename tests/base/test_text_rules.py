"""What a terminal shows is what the file holds: invisible and reordering characters are escaped."""

from __future__ import annotations

import pytest

from course_lib import SessionEntryError, parse_session_entry
from course_lib.base.text_rules import escape_controls


@pytest.mark.parametrize(
    "char",
    [
        "\u202e",
        "\u202a",
        "\u2066",
        "\u2067",
        "\u2068",
        "\u2069",
        "\u200b",
        "\u200d",
        "\u200e",
        "\ufeff",
    ],
)
def test_bidi_and_zero_width_characters_are_shown_escaped(char: str) -> None:
    shown = escape_controls(f"id{char}x")
    assert char not in shown
    assert shown == f"id\\u{ord(char):04x}x"


def test_an_error_naming_an_id_with_a_right_to_left_override_shows_the_escape() -> None:
    with pytest.raises(SessionEntryError) as error:
        parse_session_entry({"id": "evil\u202etxt.exe", "type": "nonsense"})
    assert "evil\\u202etxt.exe" in str(error.value)
    assert "\u202e" not in str(error.value)


def test_ordinary_text_is_left_alone() -> None:
    text = "Chinese 中文, accents é, emoji 😀, a narrow no-break space\u202f"
    assert escape_controls(text) == text
