"""What each lab region asks for, in Chinese: one text per function the student writes.

A Chinese practice package (``course-lab practice 11 --lang zh``) puts the
text of its own function above each ``raise LabNotImplemented(...)``, so a
region in ``budget.py`` says what *that* function must do, not a note about
the whole lab. The docstrings stay English (they are the reference's); these
texts say the same rules in the course's Chinese terms.
"""

from __future__ import annotations

__all__ = ["REGION_GUIDANCE_ZH"]

REGION_GUIDANCE_ZH: dict[str, str] = {
    "entries.parse_compaction": (
        "只按 wire（camelCase）名字用 CompactionEntry 校验 value（by_alias=True, by_name=False）："
        "snake_case 的键如 first_kept_entry_id、旧草稿的 summary.files 都是 unknown field。"
        '把 pydantic 的 ValidationError 变成 SessionEntryError，消息为 f"{label}: ..."，'
        "冒号后面是 describe_validation_error(error) 写出的字段路径和问题；"
        "tokensBefore 原样保留。"
    ),
    "groups.record_tool_facts": (
        "记下 entry 声明或回答的 tool call：calls 把 call id 映射到声明它的 entry，results "
        "把 call id 映射到回答它的 entry。assistant 消息的每个 toolCall 块声明一个 call id"
        "（中间的文本块什么也不声明，所以要看每个块）；toolResult 回答 tool_call_id。"
        "重复的 call id、重复的结果立即抛出 InteractionError（含 'duplicate'、entry id 和 call id）。"
    ),
    "groups.check_tool_pairs": (
        "交互的 entry 都到齐后才检查：结果对应的 call 不在本组里是 'unknown call'"
        "（写出结果的 entry id 和 call id）；声明的 call 没有结果是 'missing result'"
        "（写出 call id 和声明它的 entry）。"
    ),
    "groups.split_interactions": (
        "entries 只含 message entry。user 消息关闭当前交互（check_tool_pairs）并开启下一个；"
        "assistant 和 toolResult 加入当前交互（record_tool_facts）；system 消息在哪里都跳过。"
        "第一条 user 消息之前的其他消息抛出 InteractionError，消息含 entry id 和 "
        "'before the first user message'。保持路径顺序，返回从旧到新的组。"
    ),
    "budget.replay_system": (
        "system 消息是提示状态，不是对话：按路径顺序取出*整条* active_path 上每条 role "
        "为 system 的 message entry 的消息（compaction 之前的部分也要），交给 "
        "current_system_message 重放；没有 system 消息时返回 None。"
    ),
    "budget.group_costs": (
        "每组的成本是它每条消息的估算之和：用 price(estimate_tokens, entry.message, "
        '"interaction", number, "message", position) 计价（两个序号都从 1 数起，'
        '出错时写成 "interaction 2 message 3"），按路径顺序相加。返回从旧到新的成本列表。'
    ),
    "budget.message_allowances": (
        "先扣固定成本，永不低于 0：available_for_messages = max(0, budget.max_tokens - system "
        "- budget.reserved_output - budget.safety_margin)；compaction 之后先从中支付摘要，留给各组的是 "
        "max(0, available_for_messages - summary_tokens)。返回这两个数。"
    ),
    "budget.select_newest_groups": (
        "costs 从旧到新，所以从末尾往前走：used + cost <= allowance 就整组保留（正好等于也算），"
        "遇到第一组放不下就停，绝不跳过它去拿更旧的组。最新一组单独超出时仍整组保留，"
        "原因是 single_group_overflow；丢掉了更旧的组是 trimmed；否则 within_budget"
        '（没有组时返回 (0, "within_budget")）。返回 (最旧的保留组的下标, 原因)。'
    ),
    "budget.token_projection": (
        "messages = 摘要成本 + 按最新一组在前的顺序相加的保留组成本"
        "（add_in_order(reversed(kept_costs))）；total = system + messages + reserved_output "
        '+ safety_margin，用 check_budget_number("the total of the projection", total) 检查'
        "（巨大的浮点数会变成无穷）。返回 TokenProjection。"
    ),
    "budget.context_from_plan": (
        "messages 依次是：计划里有的重放 system 消息和摘要，然后按路径顺序放入保留组中每个 "
        "entry 的消息，每条都用 model_copy(deep=True) 深拷贝，改动结果不会改动路径；"
        "kept_entry_ids 只写这些保留的 entry。reason 和 tokens 取自计划。"
    ),
    "compaction.create_compaction_entry": (
        "路径只能含 session entry（require_session_entries）；空路径抛出 CompactionError"
        "（'empty active path'）；路径上已有的 id 抛出含 duplicate id '<id>' 的 CompactionError；"
        "parentId 永远是路径的最后一条；first_kept_entry_id 必须是 group_interactions 在"
        "路径的 message entry 中找到的某个交互的第一条消息，否则抛出含 "
        "'is not the first message of a complete interaction' 的 CompactionError；"
        "候选条目以 wire dict 经过 parse_session_entry 返回；什么都不写入 store。"
    ),
    "restoring.newest_compaction": (
        "从路径末尾往前找，返回最靠近 leaf 的 CompactionEntry；路径上没有时返回 None。"
        "更早的摘要不会再次发送。"
    ),
    "restoring.restored_suffix": (
        "first kept id 必须指向 compaction *之前*的一条 *user 消息* entry：不在路径上、"
        "assistant 或 system 消息、metadata entry、compaction 之后的 entry 都抛出 "
        "CompactionError（'is not a user message entry before it on the path'），"
        "只检查 id 存在是不够的。返回从 first kept entry 到 leaf 的那一段路径。"
    ),
    "restoring.render_summary": (
        "固定顺序、固定标签，同一条路径两次构建才发送同样的文本：第一行 labels.title；"
        "然后 labels.goal 加目标；再对 LIST_FIELDS 的每个字段写一行标签，每一项写一行 "
        "'- <项>'，空列表写一行 '- <labels.none>'。各行用 '\\n' 连接，最后一行后面不加换行；"
        "summary 可以是 wire dict（用 as_summary 读取）。"
    ),
    "restoring.summary_message": (
        "返回一条 user 消息：唯一的文本块是用 labels 渲染的该 entry 的摘要"
        "（render_summary），时间戳取 compaction 自己的 timestamp；每次调用都新建。"
    ),
    "ledger.ledger_from_plan": (
        "不重新决定任何东西：plan.groups 的每一组一行 LedgerRow，从旧到新，按本章的方式编号"
        "（第一组是 plan.first_group_number）；entry_ids 是组内按路径顺序的 id，tokens 取自 "
        "plan.group_tokens（不再调用估算器）。status（kept、trimmed 或 overflow）必须与 "
        "context_from_plan 从同一份计划中保留的内容一致：找出计划里决定它的字段。"
    ),
}
"""``module.function`` (a method as ``module.Class.method``) -> what its region asks, in Chinese."""
