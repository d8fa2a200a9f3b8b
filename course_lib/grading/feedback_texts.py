"""The lines of a student's feedback file, in the language their practice folder recorded.

A student who wrote their starters with ``--lang zh`` reads ``check`` in
Chinese, so the feedback the grader hands back speaks Chinese too: its
headings here, and every hint through ``hints_zh``. The cases, values and
the library's own exception messages stay as they are (as in ``check``).
Every line has both languages and the same ``{placeholders}``.
"""

from __future__ import annotations

from ..track.language import Lang

__all__ = ["FEEDBACK_TEXTS", "STATUS_MEANING_ZH", "feedback_line"]

FEEDBACK_TEXTS: dict[str, dict[Lang, str]] = {
    "title": {
        "en": "Chapter 11 checks for {student}: {passed}/{total} passed",
        "zh": "第 11 章检查（{student}）：{passed}/{total} 项通过",
    },
    "status": {
        "en": "Status: {status} ({meaning})",
        "zh": "状态：{status}（{meaning}）",
    },
    "lab": {
        "en": "Lab {lab} {topic}: {passed}/{total} passed",
        "zh": "Lab {lab} {topic}：{passed}/{total} 项通过",
    },
    "not_run": {
        "en": "  (not run: see the status above)",
        "zh": "  （未运行：见上面的状态）",
    },
    "points": {
        "en": "Points: {earned} of {possible}",
        "zh": "得分：{earned} / {possible}",
    },
    "hidden_title": {
        "en": "Hidden cases (inputs drawn at grading time, compared with the reference):",
        "zh": "隐藏用例（评分时随机生成的输入，与参考实现的结果比较）：",
    },
    "hidden_lab": {
        "en": "Lab {lab}: {passed}/{total} agree with the reference",
        "zh": "Lab {lab}：{passed}/{total} 项与参考实现一致",
    },
    "run_yourself": {
        "en": "Run them yourself: course-lab check 11 --impl <your practice folder>",
        "zh": "自己运行：course-lab check 11 --impl <你的练习文件夹>",
    },
}

STATUS_MEANING_ZH: dict[str, str] = {
    "ok": "所有检查都已运行",
    "timeout": "在时间限制处停止；已完成的检查照常计分",
    "error": "无法检查：练习包导入失败，或在导入时退出",
    "crashed": "检查进程在报告前终止（内存、信号、os._exit）",
    "invalid": "不是练习包，或是不安全、过大的文件夹或 zip",
}
"""``grader.STATUS_MEANING`` in Chinese, for the feedback's status line."""


def feedback_line(code: str, lang: Lang, **values: object) -> str:
    """The feedback line ``code`` in ``lang``, its placeholders filled from ``values``."""
    return FEEDBACK_TEXTS[code][lang].format(**values)
