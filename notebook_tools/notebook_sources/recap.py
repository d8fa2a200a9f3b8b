"""08 — the chapter in review: its summary, what the 15 checks fix, a short questionnaire."""

from __future__ import annotations

from .cells import Cell, code, exercise_cells, md, reveal

CELLS: list[Cell] = [
    md(
        """
        # Chapter 11 in review

        **Chapter sections:** 「小结」 and 「15 项测试固定到哪里」

        The chapter's summary in English (its key terms in Chinese in brackets),
        what its 15 checks fix and what they leave to later layers, and a short
        questionnaire. Every answer is checked by the same functions the labs
        built; nothing here is new.
        """
    ),
    code(
        """
        from course_lib.track.exercises import check
        from course_lib.views import setup_notebook
        from course_lib.views.lab_map import checks_catalogue_frame

        setup_notebook()
        """
    ),
    md(
        """
        ## The chapter's summary 「小结」

        The ten opening messages stay in the session the whole time.
        `group_interactions` skips `sys` and splits the other nine into three user
        interactions; the third keeps its two calls, the two results that arrived
        in reverse order and the final assistant message together, whole. After
        deducting the fixed costs (固定成本), `build_context` selects from the
        newest group (最新组) backwards, so the 31-token example hands only the
        second and third groups to the model.

        Compaction (压缩) appends the summary (摘要), the first kept entry
        (保留起点) and the size before compacting (压缩前规模) as one new record
        (记录). Restoring (恢复) reads the newest summary (最新摘要) on the active
        path (活动路径), then attaches the complete message suffix (完整消息后缀);
        a second compaction (第二次压缩) again only appends and deletes no old
        fact (旧事实). System messages are always replayed (重放) from the whole
        path, come before the summary, and belong to no group. Chapter 12 turns the
        project's resources into a named section (具名段落) of the system message;
        it goes through the same replay and keeps using the same context entry
        point (上下文入口).
        """
    ),
    md(
        """
        ## What the 15 checks fix 「15 项测试固定到哪里」

        The checks fix the course implementation's deterministic rules: a strict
        compaction schema, reopening both stores, grouping at user messages,
        call/result pairing, fixed costs, trimming whole groups, the newest group's
        overflow, pure creation, restoring from the newest summary, compacting a
        second time, system replay across the compaction boundary, and results
        that share nothing with the session.
        """
    ),
    code("checks_catalogue_frame()"),
    md(
        """
        They fix compaction within four bounds (四个范围). Each row: what the
        checks hold to, and what they leave to another layer.

        | | what the checks fix | what they leave out |
        |---|---|---|
        | budget | the budget uses the deterministic estimator the caller gives (确定性估算器) and deducts the fixed costs this chapter lists | real tokenizers, tool schemas, images and cache costs: the provider layer (Provider 层) needs its own estimate |
        | creating a compaction | `create_compaction_entry` checks the shape of the seven-field summary (七字段 summary) | the summary's text and `tokens_before` come from the caller: the function neither judges whether the facts are complete nor recomputes the size before compacting |
        | groups | `group_interactions` builds indivisible groups (不可拆分组) from user boundaries and the four call/result id rules | a result's position, `toolName` and the final assistant message are not part of this layer's pairing |
        | overflow | `single_group_overflow` only reports that the newest group does not fit the current window | shortening tool output, writing a dedicated summary, switching models, when to compact automatically and concurrent summary writes: the layer above decides (上层生命周期) |
        """
    ),
    md(
        """
        ## Questionnaire

        Six short questions on the chapter's fixture. Answer each in its cell,
        then run the check under it: `○` not answered yet, `✓` right, `✗` a hint
        about what to look at again. Two questions to think about close the
        notebook; their answers are folded.
        """
    ),
    *exercise_cells(
        "recap-q1",
        """
        ### Question 1 (`recap-q1`) — cut points

        On the fixture's path (`sys`, then the groups `u1, a1` / `u2, a2` /
        `u3 … a3`), in how many places may a budget cut? Answer with a number.
        """,
        "answer_q1 = ...",
    ),
    *exercise_cells(
        "recap-q2",
        """
        ### Question 2 (`recap-q2`) — a larger margin

        The chapter's budget (31 tokens, 4 reserved) with `safety_margin = 9`
        instead of 2: which entry is the first of `kept_entry_ids`?
        """,
        "answer_q2 = ...",
    ),
    *exercise_cells(
        "recap-q3",
        """
        ### Question 3 (`recap-q3`) — what compaction deletes

        A store holds the fixture's ten entries; `compact-1` is appended. How many
        of the ten original entries are still in the store?
        """,
        "answer_q3 = ...",
    ),
    *exercise_cells(
        "recap-q4",
        """
        ### Question 4 (`recap-q4`) — two compactions

        The path holds `compact-1` and, later, `compact-2`. How many summary
        messages does `build_context` send, with a window large enough for
        everything?
        """,
        "answer_q4 = ...",
    ),
    *exercise_cells(
        "recap-q5",
        """
        ### Question 5 (`recap-q5`) — the compaction entry

        Which of these wire fields does a compaction entry have? Choose among
        `"parentId"`, `"firstKeptEntryId"`, `"tokensBefore"`, `"summary"` and
        `"system"`, and answer with a set, e.g. `{"parentId"}`.
        """,
        "answer_q5 = ...",
    ),
    *exercise_cells(
        "recap-q6",
        """
        ### Question 6 (`recap-q6`) — a group that cannot fit

        The fixture with `max_tokens = 19` (4 reserved, a margin of 2): the newest
        group alone costs more than the allowance. Which `reason` does
        `build_context` give?
        """,
        "answer_q6 = ...",
    ),
    md(
        """
        ### To think about — why whole groups?

        A budget could drop single messages instead of whole interactions and fit
        the window more tightly. Why does the chapter never do that?
        """
    ),
    reveal(
        """
        A group is a user message and everything up to the next one: an
        assistant's tool calls, their results, the final answer. Cutting inside
        it would send a tool result whose call is gone, or a call without its
        result: half a round trip the model cannot make sense of (most providers
        refuse such a request outright). So the only
        cut points are between groups, and the newest group is sent whole even
        when it alone does not fit (`single_group_overflow`): the caller, who
        knows more, decides what to do then.
        """
    ),
    md(
        """
        ### To think about — why is history never rewritten?

        Compaction could delete the messages its summary covers, and the session
        file would shrink. Why does the chapter append a compaction entry instead?
        """
    ),
    reveal(
        """
        The session is the record of what happened; the context is only a view of
        it, rebuilt for each model call. Appending keeps every fact: another
        window, another budget, or a better summary later can still be built from
        the same history, and a second compaction needs nothing the first one
        threw away. The compaction entry says where the kept part starts
        (`firstKeptEntryId`) and how large the context was (`tokensBefore`), so
        restoring needs nothing else.
        """
    ),
]
