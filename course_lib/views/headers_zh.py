"""The Chinese edition's table headers: every English header a notebook table shows, in Chinese.

The frames keep English column names (code and tests select columns by them);
only what a Chinese reader sees changes, when ``setup_notebook("zh")`` asks
for it. Identifiers (``max_tokens``, ``kept_entry_ids``, an import note's
kind) are code, not words, and stay as they are; so do names such as
``LangChain`` or ``Python``.
"""

from __future__ import annotations

__all__ = ["HEADERS_ZH", "header_in"]

HEADERS_ZH: dict[str, str] = {
    "English": "英文",
    "LangChain trim_messages, no start_on": "LangChain trim_messages（不带 start_on）",
    'LangChain trim_messages, start_on="human"': 'LangChain trim_messages（start_on="human"）',
    "accepted": "接受",
    "agree": "一致",
    "allowed": "允许",
    "bar": "条",
    "bpe / chars": "bpe / chars",
    "build_context reason": "build_context 的 reason",
    "case": "情形",
    "chapter (TypeScript)": "本章（TypeScript）",
    "chapter name": "本章的名字",
    "chapter section": "本章小节",
    "check": "检查",
    "checks": "检查",
    "content": "内容",
    "count": "数量",
    "counted": "计入",
    "course_lib build_context": "course_lib 的 build_context",
    "course_lib module": "course_lib 模块",
    "cumulative (newest first)": "累计（从最新一组起）",
    "cut": "切点",
    "detail": "详情",
    "entries": "entry 数",
    "entries kept": "保留的 entry",
    "entry id": "entry id",
    "entry ids": "entry id",
    "error": "错误",
    "estimator": "估算器",
    "field": "字段",
    "first id": "第一个 id",
    "first kept": "first kept",
    "fixture": "fixture",
    "group": "组",
    "groups kept": "保留的组",
    "in": "所在",
    "item": "项目",
    "kept by the ledger": "账本中保留",
    "kind": "类别",
    "lab": "实验",
    "last id": "最后一个 id",
    "last kept": "最后保留",
    "leaf": "leaf",
    "line": "行",
    "lines": "行数",
    "max": "最大",
    "mean": "平均",
    "message": "消息",
    "message allowance left": "剩余消息额度",
    "messages": "消息数",
    "min": "最小",
    "name": "名称",
    "newest compaction": "最新的 compaction",
    "notebook": "notebook",
    "notes": "说明",
    "number of checks": "检查数",
    "outcome": "结果",
    "parent": "parent",
    "parsed entry": "解析出的 entry",
    "path": "路径",
    "paths where it drops the newest user turn": "丢掉最新 user 轮次的路径数",
    "paths where it keeps a result without its call": "保留了没有 call 的 result 的路径数",
    "provider tokens": "provider 报告的 token",
    "reason": "reason",
    "result": "结果",
    "results, in path order": "result（按路径顺序）",
    "role": "role",
    "role or key": "role 或 key",
    "segment": "部分",
    "sent": "发送",
    "source": "来源",
    "status": "状态",
    "statuses": "状态",
    "std": "标准差",
    "step": "步骤",
    "summary constraints": "摘要 constraints",
    "summary next": "摘要 next",
    "test": "检查",
    "tokens": "token",
    "tool calls": "tool call 数",
    "tool calls declared": "声明的 tool call",
    "topic": "主题",
    "trimmer": "裁剪器",
    "type": "类型",
    "value": "值",
    "why": "原因",
    "wire dict": "wire dict",
}
"""English header -> the Chinese edition's header (ids and code names are kept as they are)."""


def header_in(label: object, lang: str) -> str:
    """``label`` as the edition in ``lang`` shows it: translated when it is a known header."""
    text = str(label)
    return HEADERS_ZH.get(text, text) if lang == "zh" else text
