"""The instant checks' words in Chinese: every confirmation, hint and shape, by exercise and code.

``exercises.evaluate(..., lang="zh")`` (or ``exercises.set_language("zh")``,
which the Chinese notebooks call once) answers with these texts instead of
the English ones written beside each judge. They are data only, keyed as the
English side is: ``CORRECT_ZH[exercise]`` for ✓, ``HINTS_ZH[exercise][hint]``
for ✗ (the hint codes of ``Feedback.hint``), ``SHAPES_ZH[what]`` for an answer
of the wrong shape (``what`` is the English phrase ``_ShapeError`` is given),
and ``NOT_ANSWERED_ZH`` for ○. ``tests/track/test_exercises_zh.py`` fails when an
English text has no Chinese counterpart, or a Chinese one no English.

A hint with ``{fields}`` is filled from the values its judge passes
(``_wrong(hint, message, **fields)``); ``{looks}`` is the parser rules of
exercise 11.1-q1 (``PARSER_RULES_ZH``) the answer got wrong. Like the English,
a hint names the rule to look at again, never the answer. The words follow
the chapter: 活动路径, 交互, 组, 摘要, 消息额度 (the allowance), 固定成本,
回答预留 (``reserved_output``), 安全余量 (``safety_margin``).
"""

from __future__ import annotations

__all__ = [
    "CORRECT_ZH",
    "HINTS_ZH",
    "NOT_ANSWERED_ZH",
    "PARSER_RULES_SEPARATOR_ZH",
    "PARSER_RULES_ZH",
    "SHAPES_ZH",
    "SHAPE_ITEMS_ZH",
    "SHAPE_WITH_GOT_ZH",
    "SHAPE_ZH",
]

NOT_ANSWERED_ZH = "尚未作答：把 ... 换成你的答案，再运行这个单元格"

SHAPE_ZH = "应为{what}"
SHAPE_WITH_GOT_ZH = "应为{what}，实际得到 {got}"
SHAPE_ITEMS_ZH = "应为{what}：每一项都必须是字符串"

SHAPES_ZH: dict[str, str] = {
    "a list of entry ids such as ['x', 'y']": "entry id 的列表，例如 ['x', 'y']",
    "a set of letters such as {'A', 'B'}": "字母的集合，例如 {'A', 'B'}",
    "a wire dict (camelCase keys)": "一个 wire dict（camelCase 键名）",
    "a list of groups, each a list of entry ids": "组的列表，每一组是一个 entry id 列表",
    "each group as a list of entry ids": "每组一个 entry id 列表",
    "a pair (rule, call id), e.g. ('duplicate', 'x-1')": "一对 (规则, call id)，例如 ('duplicate', 'x-1')",
    "two strings": "两个字符串",
    "a number of tokens": "一个 token 数",
    "one entry id such as 'x'": "一个 entry id，例如 'x'",
    "a function": "一个函数",
    "a set of entry ids such as {'x', 'y'}": "entry id 的集合，例如 {'x', 'y'}",
    "one reason such as 'trimmed'": "一个 reason，例如 'trimmed'",
    "the prompt text, a string": "prompt 文本，一个字符串",
    "a list of statuses, oldest group first, such as ['kept']": (
        "status 的列表，从最旧的一组开始，例如 ['kept']"
    ),
    "a list of group numbers such as [1, 2]": "组号的列表，例如 [1, 2]",
    "one entry id such as 'L0001'": "一个 entry id，例如 'L0001'",
    "a number of interactions (an int)": "交互的个数（int）",
    "a number of places (an int)": "位置的个数（int）",
    "a set of summary field names such as {'goal'}": "摘要字段名的集合，例如 {'goal'}",
    "a number of entries (an int)": "entry 的条数（int）",
}
"""What a wrongly shaped answer should have been, by the English phrase of ``_ShapeError``."""

PARSER_RULES_ZH: dict[str, str] = {
    "tokens": "tokensBefore 必须是 >= 0 的有限数；parser 从不重新估算它",
    "list_items": "六个列表字段必须是列表，列表的每一项只需是字符串；只有 goal 不能为空",
    "non_blank": "goal、parentId 和 firstKeptEntryId 必须是非空字符串",
    "timestamp": "timestamp 可以是任何有限数，正负都行",
    "unknown_key": "改名的字段等于缺少一个键、又多出一个未知键，每一层都一样",
    "shape_only": "parser 只读一条 entry，不读路径：它检查 firstKeptEntryId 的形状，不检查它指向哪条 entry",
}
"""Exercise 11.1-q1: the parser's rules, as ``_PARSER_RULES`` in English."""

PARSER_RULES_SEPARATOR_ZH = "；"

_JUDGED_WRONGLY = "有 {misjudged} 个候选判断错了。再看看：{looks}"

CORRECT_ZH: dict[str, str] = {
    "11.1-q1": "正好是解析器接受的那几个 wire dict",
    "11.1-q2": "解析器接受它，parent 与 first kept 也都是 compact-2 的",
    "11.2-q1": "system message 不属于任何一组，每一组都由一条 user 消息开始",
    "11.2-q2": "缺少 result 的 call 要到这一组结束时才会被发现",
    "11.3-q1": "max_tokens 减去 system 成本、reserved_output 和 safety_margin",
    "11.3-q2": "从最新一组向前保留完整的组，直到放不下为止",
    "11.3-q3": "每个用例都与 build_context 一致，而且永远不低于 0",
    "11.4-q1": "正好是 group_interactions 在这条路径上找到的各组首条消息",
    "11.4-q2": "parent 是路径的最后一条 entry，不论它是什么类型",
    "11.5-q1": "先付摘要的成本，再从最新一组起保留完整的组",
    "11.5-q2": "tokens.messages = 摘要的成本 + 各个保留组的成本",
    "11.5-q3": "窗口装下固定成本、摘要，再装下完整的第 4 组和第 3 组",
    "11.5-q4": "整条路径上的每条 system message 都按路径顺序重放",
    "transfer-q1": "账本读的是 build_context 所用的同一份计划",
    "transfer-q2": "先付摘要；各组保留本章的编号",
    "real-q1": "保留的范围从一个交互的开头开始",
    "real-q2": "每个交互一行账本；数的是没有被 trimmed 的行",
    "recap-q1": "预算只在它考虑的后缀里、两组之间切开",
    "recap-q2": "先扣除固定成本，再从最新一组起保留放得下的完整组",
    "recap-q3": "compaction 追加一条事实，从不删除历史，第二次也一样",
    "recap-q4": "只读取最新的 compaction：它的保留起点开始保留后缀",
    "recap-q5": "正好是这条路径上各个完整交互的首条消息",
    "recap-q6": "一组的成本不超过消息额度就放得下；再下一组放不下",
    "three-q1": "先付摘要的成本，再从最新一组起保留放得下的完整组",
    "three-q2": "只有每一次 compaction 的摘要都填写了的字段才算",
}
"""The ✓ line of each exercise."""

HINTS_ZH: dict[str, dict[str, str]] = {
    "11.1-q1": {
        "tokens": _JUDGED_WRONGLY,
        "list_items": _JUDGED_WRONGLY,
        "non_blank": _JUDGED_WRONGLY,
        "timestamp": _JUDGED_WRONGLY,
        "unknown_key": _JUDGED_WRONGLY,
        "shape_only": _JUDGED_WRONGLY,
        "several": _JUDGED_WRONGLY,
        "unknown_letter": "候选只有 {letters}",
    },
    "11.1-q2": {
        "parser": "解析器拒绝了它：{error}",
        "type": "这是一条 {type} entry；compaction 的 type 是 'compaction'",
        "id": "这条 entry 的 id 应当是 compact-2",
        "parent": "compact-2 挂在它所追加到的那条路径的最后一条 entry 后面",
        "first_kept": "compact-2 从 u3 … a3 这一组的开头起保留路径",
    },
    "11.2-q1": {
        "compaction": "只有 message entry 参与分组：compaction entry 不参与",
        "system": "system message 是 prompt 状态：它不属于任何一组",
        "count": "一条 user 消息结束当前组，并开始新的一组",
        "members": "每一组从一条 user 消息开始，一直到下一条 user 消息之前",
    },
    "11.2-q2": {
        "rule_word": "规则只能是这些词之一：{rules}, valid",
        "rule": "少了一个 result 之后，哪条 id 规则不再成立？其中有一条要到这一组结束时才检查",
        "call_id": "错误信息会点名那个没有 result 的 call",
    },
    "11.3-q1": {
        "system_cost": "重放出的 system message 也是一项固定成本",
        "reserved_or_margin": "reserved_output 和 safety_margin 都要扣除",
        "deduction": "从 max_tokens 开始，把每项固定成本各扣一次",
    },
    "11.3-q2": {
        "unknown_id": "这个 id 不是 fixture 路径上的消息",
        "not_a_group_start": "上下文从一组开始的地方开始：一条 user 消息",
        "too_many": "从最新一组起逐组相加：下一组还放得进消息额度吗？",
        "too_few": "放得下的组都会保留：还有空间再放一组吗？",
    },
    "11.3-q3": {
        "raised": "{call} 抛出了 {error_type}: {error}",
        "not_a_number": "{call} 返回了 {kind}，不是数",
        "negative": "{call} 返回了 {value}：消息额度永远不会低于 0",
        "deduction": "{call} 返回了 {value}：你扣除了哪些成本？",
    },
    "11.4-q1": {
        "unknown_id": "你选的某个 id 不在路径上",
        "compaction": "compaction entry 不是消息：它不开始任何交互",
        "not_a_group_start": "只有完整交互的首条消息才能作为保留起点",
        "after_compaction": "compact-1 之后的消息也组成交互",
        "before_compaction": (
            "create_compaction_entry 会对路径上的每条 message entry 分组，"
            "包括更早的 compaction 已经摘要过的那些"
        ),
    },
    "11.4-q2": {
        "first_kept": "parent 是它挂在哪里，而不是保留起点在哪里",
        "last_message": "parent 是路径的最后一条 entry，而不是路径上的最后一条消息",
        "last_compaction": "parent 是路径的最后一条 entry，不论它是什么类型",
        "parent": "parent 是它所追加到的那条路径的最后一条 entry",
    },
    "11.5-q1": {
        "compaction_id": "摘要是一条合成消息：kept_entry_ids 只列原始 entry",
        "before_first_kept": "保留起点之前的 entry 已由摘要代替",
        "after_compaction": "compaction 之后的 entry 也会被收集",
        "summary_cost": "摘要的 5 个 token 先从消息额度中扣除",
        "too_few": "放得下的组都会保留：还有空间再放一组吗？",
    },
    "11.5-q2": {
        "summary_cost": "摘要消息也占空间",
        "total": "这更接近 tokens.total：system 成本不是消息",
        "sum": "把摘要的成本和每个保留组的成本加起来",
    },
    "11.5-q3": {
        "summary_cost": "摘要在任何分组之前先从额度中支付",
        "larger": "更小的窗口就已经能完整保留第 3 组",
        "allowance": "这么大时第 3 组放不下：把窗口必须容纳的每一项加起来",
    },
    "11.5-q4": {
        "before_first_kept": "保留起点之前的 system message 也算数",
        "sections": "没有 patch-1，就没有 system message 覆盖 rules",
        "after_compaction": "compaction 之后的 system message 也会重放",
        "order": (
            "prompt 文本先是 content，再是各个 section；各部分之间用一个空行（'\\n\\n'）连接"
        ),
    },
    "transfer-q1": {
        "status_word": "status 只能是以下之一：{statuses}",
        "count": "路径上的每一组一个 status，从最旧的一组开始",
        "overflow": "overflow 表示最新一组单独也放不下：真是这样吗？",
        "order": "各行从最旧的一组开始",
        "fit": "从最新一组向前走，在第一组放不下的地方停下",
    },
    "transfer-q2": {
        "numbering": "本章在整条路径上给组编号：u2 开启第 2 组",
        "summary": "先从 29 中支付摘要的 5 个 token",
        "fit": "从最新一组向前走，在第一组放不下的地方停下",
    },
    "real-q1": {
        "unknown_id": "这个 id 不是这次 session 活动路径上的消息",
        "not_a_group_start": "保留的范围从一条 user 消息开始",
        "too_many": "100,000 个 token 放不下所有交互",
        "too_few": "像第 5 步那样使用 chars_estimator 和 pi 的回答预留",
    },
    "real-q2": {
        "all_groups": "这数的是所有交互，连被 trimmed 的也算进去了",
        "entries": "这数的是 message entry；要数的是交互（组）",
        "count": "数一数 status 不是 trimmed 的账本行",
    },
    "recap-q1": {
        "messages": "这数的是消息之间的每个间隙；切分总是保持组完整",
        "summarised": "只有从 compaction 的保留起点开始的部分才会分组，而 system message 不会切开任何一组",
        "groups": "数一数预算所考虑的相邻两组之间的间隙",
    },
    "recap-q2": {
        "not_a_group_start": "上下文从一组开始的地方开始：一条 user 消息",
        "allowance": "先算出消息额度：max_tokens 减去每一项固定成本，重放出的 system message 也算在内",
        "fit": "从最新一组起继续加入完整的组，只要合计仍然放得下",
    },
    "recap-q3": {
        "replaced": "更新的 compaction 不替换任何东西：旧的 compaction entry 和新的都留着",
        "deleted": "compaction 是追加的；它摘要的 entry 都还在",
        "count": "Store 中的每条 entry 各数一次，compaction entry 也算",
    },
    "recap-q4": {
        "not_a_group_start": "上下文从一组开始的地方开始：一条 user 消息",
        "newest": "更早的 compaction 留在 session 中，但不会再被读取：只发送一份摘要，即最新的那份",
    },
    "recap-q5": {
        "unknown_id": "你的集合里有一个 id 不在 system 重放路径上",
        "system": "system message 不属于任何一组，所以永远不能作为保留起点",
        "compaction": "compaction entry 不是消息：它从不被保留",
        "not_a_group_start": "保留部分从一个交互开始的地方开始：一条 user 消息",
        "missing": "还有一条 user 消息也开始了一个完整交互，在 compaction 之前或之后",
    },
    "recap-q6": {
        "reason_word": "reason 只能是以下之一：{reasons}",
        "within": "within_budget 表示每一组都保留了：下一组也放得下吗？",
        "overflow": "只有最新一组的成本超过消息额度时才算超限：消息额度是 max_tokens 减去每一项固定成本",
    },
    "three-q1": {
        "unknown_id": "这个 id 不是 Codex 样例活动路径上的消息",
        "not_a_group_start": "保留的范围从一条 user 消息开始",
        "before_compaction": "恢复从最新的 compaction 开始：它的第一条保留 entry 之前的内容都不再是候选",
        "summary_cost": "摘要先从消息额度中扣除；然后从最新一组起保留完整的组，直到放不下为止",
    },
    "three-q2": {
        "unknown_field": "七个字段的 wire 名称是：{fields}",
        "union": "这是至少有一次 compaction 填写过的字段；只保留每一次都填写了的",
        "missing": "还有一个字段在每一次 compaction 中都填写了",
        "extra": "你的集合里有一个字段至少在一次 compaction 中是空的",
    },
}
"""The ✗ line of each exercise, by hint code (``Feedback.hint``); ``shape`` is ``SHAPES_ZH``."""
