"""The lab checks' hints in Chinese, for a practice folder in Chinese (``--lang zh``).

A failing check reads ``<case>: expected <value>, got <value>; hint: <rule>``.
The case and the values are data (ids, numbers, the library's own words) and
stay as they are; the hint is the explanation a student acts on, so it is
given in the folder's language. Each key is a hint exactly as a check writes
it in English; ``tests/track/test_hints_zh.py`` holds every hint a check can
print for a behaviour-changing mistake (``make mutants``' mistakes and the
named ones) to having an entry here.
"""

from __future__ import annotations

__all__ = ["HINTS_ZH", "hint_in_language"]

HINTS_ZH: dict[str, str] = {
    # Lab 11.1
    "the message names the camelCase field path, then the problem": (
        "错误信息先写出 camelCase 的字段路径，再写问题"
    ),
    "start the message with the label parse_session_entry passes in": (
        "错误信息以 parse_session_entry 传入的 label 开头"
    ),
    "every append goes through parse_session_entry, whose errors start with the entry's label": (
        "每次追加都经过 parse_session_entry，它的错误以 entry 的 label 开头"
    ),
    (
        "wire keys are camelCase only, as the course writes them: validate by alias "
        "(by_alias=True, by_name=False), so a Python name such as first_kept_entry_id is an "
        "unknown field"
    ): (
        "wire 上的键只用 camelCase，和课程写的文件一样：按 alias 校验"
        "（by_alias=True, by_name=False），所以 first_kept_entry_id 这样的 Python 名字是未知字段"
    ),
    # Lab 11.2
    (
        "a user message closes the open group and opens the next; every other message "
        "(assistant, tool result) stays in the open group; system messages belong to no group"
    ): (
        "user 消息关闭当前分组并开启下一组；其他消息（assistant、tool result）留在当前分组；"
        "system 消息不属于任何分组"
    ),
    (
        "calls and results are paired by id, not by position: a result may come before its "
        "call, so 'unknown call' and 'missing result' are checked when the group closes"
    ): (
        "call 和 result 按 id 配对，而不是按位置：result 可能出现在它的 call 之前，"
        "所以 'unknown call' 和 'missing result' 要在分组关闭时检查"
    ),
    (
        "entries keep their path order; calls and results are paired by id, not by position: "
        "a result may come before its call, so 'unknown call' and 'missing result' are "
        "checked when the group closes"
    ): (
        "entry 保持它们在路径上的顺序；call 和 result 按 id 配对，而不是按位置：result 可能出现在"
        "它的 call 之前，所以 'unknown call' 和 'missing result' 要在分组关闭时检查"
    ),
    (
        "a result whose toolCallId matches no call of its group is an 'unknown call' error "
        "naming the result entry and the call id"
    ): (
        "toolCallId 对不上本组任何 call 的 result 是 'unknown call' 错误，"
        "要写出 result 的 entry 和 call id"
    ),
    "each toolCall id is declared once: a 'duplicate' error naming the entry and the id": (
        "每个 toolCall id 只声明一次：否则是 'duplicate' 错误，写出 entry 和 id"
    ),
    (
        "a call has at most one result: a 'duplicate' error naming the second result entry "
        "and the call id"
    ): (
        "一个 call 最多一个 result：否则是 'duplicate' 错误，写出第二个 result 的 entry 和 call id"
    ),
    (
        "when the group closes every call has its result, else 'missing result' naming the "
        "call id and its entry"
    ): (
        "分组关闭时每个 call 都要有 result，否则是 'missing result'，写出 call id 和声明它的 entry"
    ),
    (
        "a result whose toolCallId matches no call of its group is an 'unknown call' error "
        "naming the result entry and the call id; a group closes when the next user message "
        "opens one"
    ): (
        "toolCallId 对不上本组任何 call 的 result 是 'unknown call' 错误，"
        "要写出 result 的 entry 和 call id；下一条 user 消息开启新组时，当前组就关闭了"
    ),
    (
        "when the group closes every call has its result, else 'missing result' naming the "
        "call id and its entry; a group closes when the next user message opens one"
    ): (
        "分组关闭时每个 call 都要有 result，否则是 'missing result'，写出 call id 和声明它的 entry；"
        "下一条 user 消息开启新组时，当前组就关闭了"
    ),
    (
        "a text block declares no call, but the blocks after it still may: look at every "
        "block of an assistant message, skipping (continue) the text ones"
    ): (
        "text block 不声明 call，但它后面的 block 仍可能声明：要看 assistant 消息的每一个 block，"
        "遇到 text block 跳过（continue），而不是停下（break）"
    ),
    "only message entries can be grouped: a metadata or compaction entry is an error naming its id": (
        "只有 message entry 能分组：metadata 或 compaction entry 是错误，要写出它的 id"
    ),
    (
        "a system message is skipped wherever it appears, and an assistant message between "
        "two results stays in their group"
    ): ("system 消息无论出现在哪里都跳过；两个 result 之间的 assistant 消息留在它们的分组里"),
    "a message other than system before the first user message is an error naming its id": (
        "第一条 user 消息之前出现 system 以外的消息是错误，要写出它的 id"
    ),
    "group_interactions returns deep copies that share nothing with the path": (
        "group_interactions 返回深拷贝，与路径不共享任何对象"
    ),
    # Lab 11.3
    (
        "fixed costs first: available_for_messages = max(0, max_tokens - system - "
        "reserved_output - safety_margin) = 31 - 3 - 4 - 2 = 22 (system: the replayed system "
        "message's estimate)"
    ): (
        "先扣固定成本：available_for_messages = max(0, max_tokens - system - reserved_output - "
        "safety_margin) = 31 - 3 - 4 - 2 = 22（system：回放后的 system message 的估算）"
    ),
    (
        "tokens.messages is what the kept groups cost; whole groups newest first while they "
        "fit 22: [u3 ... a3] 15 fits, + [u2, a2] 7 = 22 fits exactly (<=), + [u1, a1] 7 = 29 "
        "does not"
    ): (
        "tokens.messages 是保留下来的分组的成本；从最新的分组开始整组放入 22：[u3 ... a3] 15 放得下，"
        "+ [u2, a2] 7 = 22 正好放得下（<=），+ [u1, a1] 7 = 29 放不下"
    ),
    (
        "whole groups newest first while they fit 22: [u3 ... a3] 15 fits, + [u2, a2] 7 = 22 "
        "fits exactly (<=), + [u1, a1] 7 = 29 does not; a cut inside a group leaves tool "
        "results without their call"
    ): (
        "从最新的分组开始整组放入 22：[u3 ... a3] 15 放得下，+ [u2, a2] 7 = 22 正好放得下（<=），"
        "+ [u1, a1] 7 = 29 放不下；在分组内部切开会留下没有 call 的 tool result"
    ),
    (
        "the newest group [u3 ... a3] (15) is always kept whole, even alone over the allowance "
        "of 10: reason single_group_overflow"
    ): (
        "最新的分组 [u3 ... a3]（15）总是整组保留，即使它单独就超过 10 的额度："
        "reason 为 single_group_overflow"
    ),
    (
        "24 - 3 - 4 - 2 = 15: the newest group (15) fits exactly, so it is no overflow (only a "
        "cost greater than the allowance overflows); [u2, a2] does not fit"
    ): (
        "24 - 3 - 4 - 2 = 15：最新的分组（15）正好放得下，所以不是溢出（只有成本大于额度才溢出）；"
        "[u2, a2] 放不下"
    ),
    "19 - 3 (system) - 4 - 2 = 10": "19 - 3（system）- 4 - 2 = 10",
    (
        "the total may exceed max_tokens when the newest group overflows; total = system + "
        "messages + reserved_output + safety_margin"
    ): (
        "最新分组溢出时 total 可以超过 max_tokens；"
        "total = system + messages + reserved_output + safety_margin"
    ),
    "the allowance is never negative: max(0, 5 - 3 - 4 - 2) = 0": (
        "额度永远不为负：max(0, 5 - 3 - 4 - 2) = 0"
    ),
    (
        "one token short: an allowance of 21 keeps [u3 ... a3] (15), and + [u2, a2] 7 = 22 "
        "does not fit; walk from the newest group, stop at the first that does not fit"
    ): (
        "差一个 token：21 的额度保留 [u3 ... a3]（15），+ [u2, a2] 7 = 22 放不下；"
        "从最新的分组往回走，遇到第一个放不下的就停"
    ),
    "6 - 0 - 4 - 2 leaves 0 for messages (never less, never more): a group of 1 is over it": (
        "6 - 0 - 4 - 2 给消息留下 0（不会更少，也不会更多）：成本为 1 的分组就超出了"
    ),
    (
        "available_for_messages = max(0, 31 - 3 - 4 - 2) = 22, and the groups get what the "
        "summary leaves: max(0, 22 - 5) = 17 (never below 0: max(0, 3 - 5) = 0)"
    ): (
        "available_for_messages = max(0, 31 - 3 - 4 - 2) = 22，分组拿到摘要用剩的部分："
        "max(0, 22 - 5) = 17（不会小于 0：max(0, 3 - 5) = 0）"
    ),
    "max(0, 12 - 3 - 4 - 2) = 3, and max(0, 3 - 5) = 0: never negative": (
        "max(0, 12 - 3 - 4 - 2) = 3，max(0, 3 - 5) = 0：永远不为负"
    ),
    (
        "the kept groups are the longest run of newest groups whose costs add up to at most "
        "the allowance (the newest always kept), summed newest group first"
    ): (
        "保留的分组是从最新开始、成本之和不超过额度的最长一串分组（最新的一组总是保留），"
        "并且从最新的分组开始相加"
    ),
    "no groups at all: nothing is left out, so the reason is within_budget": (
        "一个分组都没有：没有任何东西被舍弃，所以 reason 是 within_budget"
    ),
    (
        "the same as without it: metadata entries are skipped everywhere (never replayed as "
        "system state, never grouped, never sent)"
    ): (
        "结果和没有它时一样：metadata entry 在任何地方都被跳过（不作为 system 状态回放、不分组、"
        "不发送）"
    ),
    "an allowance of 40 - 3 - 4 - 2 = 31 holds all three groups (7 + 7 + 15 = 29)": (
        "40 - 3 - 4 - 2 = 31 的额度放得下全部三个分组（7 + 7 + 15 = 29）"
    ),
    "the walk stops at the oldest group, however much room is left after it": (
        "从新到旧的遍历停在最旧的分组，不论之后还剩多少额度"
    ),
    "trimmed when a group was left out, within_budget when every group fits": (
        "有分组被舍弃时是 trimmed，所有分组都放得下时是 within_budget"
    ),
    "the result starts with the system message replayed from the whole path": (
        "结果以从整条路径回放得到的 system message 开头"
    ),
    "the returned messages are deep copies that share nothing with the path": (
        "返回的消息是深拷贝，与路径不共享任何对象"
    ),
    (
        "price each message with price(estimate_tokens, message, 'interaction', n, "
        "'message', m), n and m counted from 1: its BudgetError names the message"
    ): (
        "用 price(estimate_tokens, message, 'interaction', n, 'message', m) 给每条消息计价，"
        "n 和 m 都从 1 数起：它的 BudgetError 会写出是哪条消息"
    ),
    "each of the three budget numbers must be a finite number >= 0; the error names it": (
        "三个预算数字都必须是 >= 0 的有限数；错误要写出是哪一个"
    ),
    "kept_entry_ids names only the kept conversation entries, never the system message": (
        "kept_entry_ids 只列出保留下来的对话 entry，不包括 system message"
    ),
    "a path without system messages costs 0 for system: 31 - 0 - 4 - 2 = 25": (
        "没有 system 消息的路径 system 成本为 0：31 - 0 - 4 - 2 = 25"
    ),
    # Lab 11.4
    (
        "the first kept entry must start a complete interaction: a group start that "
        "group_interactions finds (u1, u2 or u3 here)"
    ): (
        "第一条保留的 entry 必须是一个完整交互的开头：group_interactions 找到的分组起点（这里是 u1、u2 或 u3）"
    ),
    "the candidate goes through parse_session_entry": "候选 entry 要经过 parse_session_entry",
    (
        "the candidate goes through parse_session_entry, which validates it and returns a copy "
        "sharing nothing with the summary passed in"
    ): (
        "候选 entry 要经过 parse_session_entry：它负责校验，并返回与传入的 summary 不共享任何对象的拷贝"
    ),
    (
        "refuse a path holding anything but entries first (require_session_entries), so a "
        "dict is named rather than failing somewhere inside"
    ): (
        "先拒绝含有 entry 以外东西的路径（require_session_entries），"
        "这样 dict 会被点名，而不是在内部某处出错"
    ),
    "an id already on the path is refused, naming it": "路径上已有的 id 会被拒绝，并写出这个 id",
    "a first kept entry must start a complete interaction": "第一条保留的 entry 必须是一个完整交互的开头",
    "the parent is always the last entry of the path (a3); the caller never passes it": (
        "parent 总是路径上的最后一条 entry（a3）；调用者从不传入它"
    ),
    "the parent is the path's last entry": "parent 是路径上的最后一条 entry",
    # Lab 11.5
    (
        "group the message entries from the first kept entry (u2) on, also those after the "
        "compaction; skip metadata and compaction entries"
    ): (
        "对从第一条保留的 entry（u2）开始的 message entry 分组，compaction 之后的也包括在内；"
        "跳过 metadata 和 compaction entry"
    ),
    (
        "restore from compact-2's first kept entry (u3), pay its summary first, then keep "
        "whole groups newest first; the newest group is always kept"
    ): (
        "从 compact-2 的第一条保留 entry（u3）恢复，先支付它的摘要，再从最新开始整组保留；"
        "最新的分组总是保留"
    ),
    "system messages in the kept suffix (patch-2) fold into the head": (
        "保留后缀里的 system 消息（patch-2）合并进开头的 system message"
    ),
    (
        "system state is replayed from the whole path, also from before the compaction: "
        "non-empty contents joined by a blank line, sections overwritten by name"
    ): (
        "system 状态从整条路径回放，compaction 之前的部分也算：非空 content 用空行连接，"
        "sections 按名字覆盖"
    ),
    (
        "system state is replayed from the whole path, also from before the compaction: "
        "non-empty contents joined by a blank line, sections overwritten by name; the "
        "timestamp is the first system message's"
    ): (
        "system 状态从整条路径回放，compaction 之前的部分也算：非空 content 用空行连接，"
        "sections 按名字覆盖；timestamp 取第一条 system message 的"
    ),
    "the summary is one synthetic user message, right after the system message": (
        "摘要是一条合成的 user 消息，紧跟在 system message 之后"
    ),
    (
        "the summary is paid first: 31 - 3 - 4 - 2 = 22, - 5 (summary) leaves 17 for whole "
        "groups newest first: [u4, a4] 7 fits, + [u3 ... a3] 15 = 22 does not; "
        "tokens.messages = 5 + 7"
    ): (
        "先支付摘要：31 - 3 - 4 - 2 = 22，- 5（摘要）给整组留下 17，从最新开始："
        "[u4, a4] 7 放得下，+ [u3 ... a3] 15 = 22 放不下；tokens.messages = 5 + 7"
    ),
    "100 - 3 - 4 - 2 - 5 (summary) = 86 holds the groups from u2 on (7 + 15 + 7)": (
        "100 - 3 - 4 - 2 - 5（摘要）= 86 放得下从 u2 开始的分组（7 + 15 + 7）"
    ),
    "only the newest compaction on the path is used; older summaries are never sent": (
        "只使用路径上最新的 compaction；更早的摘要不再发送"
    ),
    (
        "render_summary: the title line, 'Goal: ...', then each list field under its label, "
        "one '- item' per line, '- (none)' for an empty list"
    ): (
        "render_summary：标题行，'Goal: ...'，然后每个列表字段写在它的标签下，"
        "每行一个 '- item'，空列表写 '- (none)'"
    ),
    "the summary comes right after the replayed system message": (
        "摘要紧跟在回放后的 system message 之后"
    ),
    (
        "the newest compaction's first kept id must be a user message entry before it on the "
        "path, else a CompactionError naming both ids"
    ): (
        "最新 compaction 的第一条保留 id 必须是路径上位于它之前的 user message entry，"
        "否则是 CompactionError，写出两个 id"
    ),
    "each of the six empty lists renders as one line '- (none)'": (
        "六个空列表各自渲染成一行 '- (none)'"
    ),
    (
        "12 - 3 - 4 - 2 = 3 is less than the summary's 5: the groups get max(0, 3 - 5) = 0, "
        "and the newest group [u4, a4] (7) is still kept whole: 5 + 7 = 12"
    ): (
        "12 - 3 - 4 - 2 = 3 比摘要的 5 还少：分组得到 max(0, 3 - 5) = 0，"
        "最新的分组 [u4, a4]（7）仍然整组保留：5 + 7 = 12"
    ),
    # transfer
    (
        "status: trimmed before plan.first_kept_group, kept from it on, and overflow for the "
        "kept group of a single_group_overflow plan; build_context keeps u2 onwards here"
    ): (
        "status：plan.first_kept_group 之前是 trimmed，从它开始是 kept，single_group_overflow 的 "
        "plan 里保留的那一组是 overflow；这里 build_context 从 u2 开始保留"
    ),
    (
        "status: trimmed before plan.first_kept_group, kept from it on, and overflow for the "
        "kept group of a single_group_overflow plan"
    ): (
        "status：plan.first_kept_group 之前是 trimmed，从它开始是 kept，"
        "single_group_overflow 的 plan 里保留的那一组是 overflow"
    ),
    (
        "the newest group (15) is kept alone over the allowance of 10: build_context says "
        "single_group_overflow, so its row is overflow"
    ): (
        "最新的分组（15）单独超过 10 的额度仍被保留：build_context 给出 single_group_overflow，"
        "所以这一行是 overflow"
    ),
    (
        "after a compaction the rows are the groups from its first kept entry (u2) on, "
        "numbered as the chapter counts them over the whole path (u2 opens group 2, "
        "plan.first_group_number); the summary (5) is paid first and is not a row"
    ): (
        "compaction 之后，行是从保留起点（u2）开始的分组，按本章在整条路径上的方式编号"
        "（u2 开启第 2 组，plan.first_group_number）；摘要（5）先支付，但不单独成行"
    ),
    (
        "budget_ledger is ledger_from_plan of the same plan; one row per plan group, oldest "
        "first, numbered as the chapter counts groups (from plan.first_group_number: 1, or 2 "
        "after compact-1), with its ids and its cost"
    ): (
        "budget_ledger 就是同一份计划的 ledger_from_plan；计划中每组一行，从最旧的一组开始，"
        "按本章的方式编号（从 plan.first_group_number 开始：1，compact-1 之后是 2），"
        "写出它的 id 和成本"
    ),
    "every group fits 40 - 3 - 4 - 2 = 31, so every row is kept": (
        "每个分组都放得下 40 - 3 - 4 - 2 = 31，所以每一行都是 kept"
    ),
    "the ledger reads the plan build_context follows; it never re-decides": (
        "账本读取 build_context 所遵循的 plan，从不重新决定"
    ),
    # given code the checks also look at (stores, copies, determinism)
    "a store refuses a duplicate id, naming it": "Store 拒绝重复的 id，并写出这个 id",
    "a store refuses a parent it does not hold, naming it": (
        "Store 拒绝它没有的 parent，并写出这个 parent"
    ),
    "a summary given as a CompactionSummary or as its wire dict gives the same entry": (
        "summary 传入 CompactionSummary 或它的 wire dict，得到的 entry 相同"
    ),
    "a system message belongs to no group, so it cannot be a first kept entry": (
        "system 消息不属于任何分组，所以不能作为第一条保留的 entry"
    ),
    "creating the entry is pure: it neither changes the path nor writes to a store": (
        "创建 entry 是纯函数：既不修改路径，也不写入 Store"
    ),
    "each result is an independent copy: the summary message is built fresh each time": (
        "每个结果都是独立的拷贝：摘要消息每次都重新构建"
    ),
    "entries() returns copies": "entries() 返回拷贝",
    "one line per appended entry; refused appends write nothing": (
        "每追加一条 entry 写一行；被拒绝的追加什么都不写"
    ),
    "patch-2 is folded into the head and does not appear in place": (
        "patch-2 合并进开头的 system message，不在原位置出现"
    ),
    "the summary message takes the compaction's timestamp": (
        "摘要消息使用 compaction 的 timestamp"
    ),
    (
        "the wire's camelCase keys (parentId, firstKeptEntryId, changedFiles) become "
        "snake_case attributes"
    ): ("wire 上的 camelCase 键（parentId、firstKeptEntryId、changedFiles）变成 snake_case 属性"),
    "to_wire() gives back the same wire dict, keys in the course's order": (
        "to_wire() 还原出同样的 wire dict，键按课程的顺序排列"
    ),
    "tokensBefore is recorded by the caller: keep it exactly as given": (
        "tokensBefore 由调用者记录：原样保留"
    ),
    "with a deterministic estimator, the same path and options give equal results": (
        "估算器是确定性的时，同样的路径和选项给出相等的结果"
    ),
    # checks beyond the fixture (seeded random paths and compactions)
    (
        "every field is kept exactly as given (strings, lists, numbers), camelCase on the "
        "wire, keys in the course's order"
    ): ("每个字段都原样保留（字符串、列表、数字），wire 上用 camelCase，键按课程的顺序排列"),
    "the result is a new deep copy: it shares no list with its input": (
        "结果是新的深拷贝：与输入不共享任何列表"
    ),
    (
        "only the first message of an interaction (a user message that opens a group) can be "
        "the first kept entry"
    ): ("只有交互的第一条消息（开启一个分组的 user 消息）才能作为第一条保留的 entry"),
    "the parent is always the last entry of the path": "parent 总是路径上的最后一条 entry",
    (
        "restore from the first kept entry on (after the compaction too), pay the summary (5) "
        "first, then whole groups newest first while they fit"
    ): (
        "从第一条保留的 entry 开始恢复（compaction 之后的也算），先支付摘要（5），"
        "再从最新的分组开始整组放入，直到放不下"
    ),
}

_HINT = "; hint: "


def hint_in_language(detail: str, lang: str) -> str:
    """``detail`` with its hint in ``lang``: ``...；提示：<中文>`` for ``zh``.

    A hint without a Chinese entry keeps its English words, labelled so
    (``提示（英文）：``), rather than being dropped.
    """
    if lang != "zh" or _HINT not in detail:
        return detail
    case, hint = detail.rsplit(_HINT, 1)
    chinese = HINTS_ZH.get(hint)
    return f"{case}；提示：{chinese}" if chinese else f"{case}；提示（英文）：{hint}"
