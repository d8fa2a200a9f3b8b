"""The student track in two languages: the lines it prints, and which one a practice folder speaks.

The chapter and its TypeScript course are written in Chinese, so the track can
speak either: ``course-lab practice 11 DIR --lang zh`` writes starters with
Chinese guidance, and records the language in ``DIR/.course-lab.json`` so that
``check`` and ``solution`` on that folder answer in Chinese without the flag
again (an explicit ``--lang`` wins). The library's own exception messages stay
English; the Chinese notebooks explain them.

Every line lives in ``TEXTS`` under one code, in both languages, with the same
``{placeholders}``: a test fails if one language lacks a line the other has.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal, get_args

from ..base.errors import CourseError
from ..base.text_rules import visible_name

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "LANGUAGE_FILE",
    "TEXTS",
    "Lang",
    "folder_language",
    "text",
    "write_folder_language",
]

Lang = Literal["en", "zh"]
LANGUAGES: tuple[Lang, ...] = get_args(Lang)
DEFAULT_LANGUAGE: Lang = "en"
LANGUAGE_FILE = ".course-lab.json"
"""Written into a practice folder by ``course-lab practice``: ``{"lang": "zh"}``."""

TEXTS: dict[str, dict[Lang, str]] = {
    "not_implemented": {
        "en": "Lab {lab} {topic} is not implemented yet",
        "zh": "Lab {lab} {topic} 尚未实现",
    },
    "lab_summary": {
        "en": "Lab {lab}: {passed}/{total} passed",
        "zh": "Lab {lab}：{passed}/{total} 项通过",
    },
    "chapter_summary": {
        "en": "Chapter {chapter}: {passed}/{total} passed",
        "zh": "第 {chapter} 章：{passed}/{total} 项通过",
    },
    "check_title": {
        "en": "Lab {lab} {topic}: checks against {target}",
        "zh": "Lab {lab} {topic}：检查对象为{target}",
    },
    "target_reference": {
        "en": "the reference course_lib",
        "zh": "参考实现 course_lib",
    },
    "target_practice": {
        "en": "practice package {directory}",
        "zh": "练习包 {directory}",
    },
    "practice_written": {
        "en": "Wrote the Chapter {chapter} practice package to {directory} ({count} files).",
        "zh": "已把第 {chapter} 章的练习包写入 {directory}（{count} 个文件）。",
    },
    "practice_start": {
        "en": "Start with Lab 11.1 in {file}, then run:",
        "zh": "从 {file} 里的 Lab 11.1 开始，然后运行：",
    },
    "solution_written": {
        "en": "Lab {lab} {topic}: reference solution written into {files}",
        "zh": "Lab {lab} {topic}：参考解答已写入 {files}",
    },
    "solution_next": {
        "en": "Next: course-lab check {lab} --impl {directory}",
        "zh": "下一步：course-lab check {lab} --impl {directory}",
    },
    "not_listed_one": {
        "en": "  ({count} passing test not listed)",
        "zh": "  （另有 {count} 项通过的测试未列出）",
    },
    "not_listed_many": {
        "en": "  ({count} passing tests not listed)",
        "zh": "  （另有 {count} 项通过的测试未列出）",
    },
    "waiting_one": {
        "en": "  WAIT  {count} test reaches {lab}, not written yet: not counted",
        "zh": "  WAIT  {count} 项测试用到尚未实现的 {lab}：不计入",
    },
    "waiting_many": {
        "en": "  WAIT  {count} tests reach {lab}, not written yet: not counted",
        "zh": "  WAIT  {count} 项测试用到尚未实现的 {lab}：不计入",
    },
    "extended_title": {
        "en": "Lab {lab} extended suite ({files}):",
        "zh": "Lab {lab} 扩展测试（{files}）：",
    },
    "extended_keyword": {
        "en": "  (the tests selected by -k {keyword!r})",
        "zh": "  （由 -k {keyword!r} 选出的测试）",
    },
    "extended_summary": {
        "en": "Lab {lab} extended: {passed}/{total} passed",
        "zh": "Lab {lab} 扩展测试：{passed}/{total} 项通过",
    },
    "extended_waiting": {
        "en": " ({waiting} waiting for a later lab)",
        "zh": "（另有 {waiting} 项在等待后面的实验）",
    },
    "extended_none": {
        "en": "Lab {lab} extended: no further tests ({why})",
        "zh": "Lab {lab} 扩展测试：没有更多测试（{why}）",
    },
    "extended_not_written": {
        "en": "not written yet: {files}",
        "zh": "尚未编写：{files}",
    },
    "extended_none_runs": {
        "en": "none runs against {target}",
        "zh": "没有一项能针对{target}运行",
    },
    "left_out": {
        "en": "  (left out: {note})",
        "zh": "  （未纳入：{note}）",
    },
    "region_guidance": {
        "en": "",
        "zh": "中文说明：{guidance}",
    },
}


def text(code: str, lang: Lang = DEFAULT_LANGUAGE, **values: object) -> str:
    """The line ``code`` in ``lang``, its placeholders filled from ``values``."""
    shown = {
        name: visible_name(value) if isinstance(value, str | os.PathLike) else value
        for name, value in values.items()
    }  # a folder copied from another machine may have a name that is not UTF-8
    return TEXTS[code][lang].format(**shown)


def check_language(lang: str) -> Lang:
    """``lang`` if the track speaks it, else a ``CourseError`` naming the choices."""
    for known in LANGUAGES:
        if lang == known:
            return known
    raise CourseError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")


def write_folder_language(directory: Path, lang: Lang) -> Path:
    """Record ``lang`` in ``directory``, so later commands on the folder speak it."""
    path = directory / LANGUAGE_FILE
    path.write_text(json.dumps({"lang": lang}) + "\n", encoding="utf-8")
    return path


def folder_language(directory: Path | None) -> Lang:
    """The language a practice folder recorded; English for the reference or an older folder."""
    if directory is None:
        return DEFAULT_LANGUAGE
    path = directory / LANGUAGE_FILE
    if not path.is_file():
        return DEFAULT_LANGUAGE
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CourseError(f"{path}: not a language file ({error}); delete it or fix it") from error
    lang = recorded.get("lang") if isinstance(recorded, dict) else None
    if not isinstance(lang, str):
        raise CourseError(f'{path}: expected {{"lang": "en"}} or {{"lang": "zh"}}')
    return check_language(lang)
