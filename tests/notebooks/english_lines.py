"""Count the English a reader of the Chinese edition meets in its stored outputs.

The measure the Chinese edition is held to: a line of an output is English when
it has no Chinese character and at least four English words. A word is a run of
letters standing alone between spaces and punctuation, so ids (``r-test``,
``compact-1``, ``L0033``), code names (``kept_entry_ids``, ``max_tokens=31``),
file names and numbers are not words. Quoted session text is not counted
either: a part of a line that is the text of a message in one of the sessions
the notebooks show (the fixture, ``data/``'s samples) is what the agent or
the user wrote, and stays in their language.

What the reader sees is counted: an HTML table's cells and a stream's lines;
the plain-text form of an output that also has a picture, a table or a widget
is not shown, so it is not counted. A printed Python list, tuple or dict is
data (names and ids), not prose.
"""

from __future__ import annotations

import ast
import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHINESE_NOTEBOOKS = ROOT / "notebooks" / "zh"

CHINESE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
WORD = re.compile(r"[A-Za-z]+")
EDGE_PUNCTUATION = "\"'`.,;:!?()[]{}<>«»“”‘’…*"
SEGMENT_BREAK = re.compile(r": |; | \| | / |, |\s{2,}|…")
TAG = re.compile(r"<[^>]+>")
STYLE = re.compile(r"<style.*?</style>", re.S)
RICH_TYPES = ("text/html", "image/png", "image/svg+xml", "application/vnd.jupyter.widget-view+json")
ENGLISH_WORDS = 4


@dataclass(frozen=True)
class EnglishLine:
    """One counted line: the notebook's file name and the line as the reader sees it."""

    notebook: str
    line: str


def english_words(text: str) -> int:
    """How many words of ``text`` are English words (letters only, not ids or code names)."""
    count = 0
    for token in text.split():
        token = token.strip(EDGE_PUNCTUATION)
        if token and WORD.fullmatch(token):
            count += 1
    return count


SESSION_FOLDERS = ("pi-sessions", "claude-code-sessions", "codex-sessions")
"""The real sessions in ``data/``: what their people and agents wrote is quoted as it is.
``data/chapter11`` is the workbook's own example data, so its English counts."""


def session_corpus() -> str:
    """Every text of the real sessions and of the Chinese fixture, joined by newlines."""
    texts: list[str] = []
    for folder in SESSION_FOLDERS:
        for path in sorted((ROOT / "data" / folder).rglob("*.jsonl")):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                texts.extend(_strings(_loaded(line)))
    from course_lib.chapter.fixture import chapter_fixture

    texts.extend(text for entry in chapter_fixture("zh") for text in _strings(entry.to_wire()))
    return "\n".join(texts)


def _loaded(line: str) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value (texts, arguments, summaries), one line at a time."""
    if isinstance(value, str):
        yield from (part.strip() for part in value.splitlines() if part.strip())
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def shown_lines(output: dict) -> Iterator[str]:
    """The lines one output shows a reader."""
    if output.get("output_type") == "stream":
        yield from "".join(output.get("text", "")).splitlines()
        return
    if output.get("output_type") == "error":
        yield f"{output.get('ename', '')}: {output.get('evalue', '')}"
        return
    data = output.get("data", {})
    if "text/html" in data:
        page = STYLE.sub("", "".join(data["text/html"]))
        yield from html.unescape(TAG.sub("\n", page)).splitlines()
    elif not any(kind in data for kind in RICH_TYPES) and "text/plain" in data:
        yield from "".join(data["text/plain"]).splitlines()


def is_python_value(line: str) -> bool:
    """A printed list, tuple or dict of names (``['goal', 'constraints', ...]``): data, not prose."""
    try:
        value = ast.literal_eval(line)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return False
    return isinstance(value, list | tuple | dict | set)


def is_english(line: str, corpus: str) -> bool:
    """Four English words or more, no Chinese, once the quoted session text is taken out."""
    if CHINESE.search(line) or english_words(line) < ENGLISH_WORDS or is_python_value(line):
        return False
    kept = [
        segment
        for segment in SEGMENT_BREAK.split(line)
        if not (segment.strip() and segment.strip(EDGE_PUNCTUATION + " ") in corpus)
    ]
    return english_words(" ".join(kept)) >= ENGLISH_WORDS


def english_lines(folder: Path = CHINESE_NOTEBOOKS) -> list[EnglishLine]:
    """Every English line in the stored outputs of the notebooks in ``folder``."""
    corpus = session_corpus()
    found = []
    for path in sorted(folder.glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            for output in cell.get("outputs", []):
                for line in shown_lines(output):
                    if is_english(line.strip(), corpus):
                        found.append(EnglishLine(path.name, line.strip()))
    return found


if __name__ == "__main__":
    lines = english_lines()
    for found in lines:
        print(f"{found.notebook[:12]} | {found.line[:160]}")
    print(f"{len(lines)} English lines in {CHINESE_NOTEBOOKS.relative_to(ROOT)}")
