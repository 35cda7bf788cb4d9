"""A desktop assistant's working memory: interactions, task cards, recall and context for its prompt.

The methods keep the names desktop assistants already use; `docs/protocol.md`
documents each one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.memory.memory import Memory
from service.memory.results import ConsolidationRecorded, InteractionRemembered, TaskCompleted
from service.rpc.params import MAX_DOCUMENT_BYTES, MAX_ID, Params
from service.rpc.registry import MethodTable

TABLE = MethodTable("desk")
TURN = 20_000  # characters of one user or assistant turn


@TABLE.method("memory.recall")
def memory_recall(memory: Memory, p: Params) -> dict[str, Any]:
    query = p.text("query", max_chars=4096)
    limit = p.integer("limit", 8, low=1, high=50)
    p.done()
    return memory.desk.memory_recall(query, limit=limit)


@TABLE.method("interaction.remember", writes=True, grouped=True)
def interaction_remember(memory: Memory, p: Params) -> Callable[[], InteractionRemembered]:
    interaction_id = p.text("interaction_id", max_chars=MAX_ID)
    user_text = p.opt_text("user_text", max_chars=TURN)
    assistant_text = p.opt_text("assistant_text", max_chars=TURN)
    source = p.opt_text("source", max_chars=64)
    task_id = p.opt_text("task_id", max_chars=MAX_ID)
    ts = p.moment("ts")
    p.done()
    return memory.desk.prepare_interaction(
        interaction_id, user_text=user_text, assistant_text=assistant_text, source=source, task_id=task_id, ts=ts
    )


@TABLE.method("transition.assess")
def transition_assess(memory: Memory, p: Params) -> dict[str, Any]:
    text = p.text("text", max_chars=4096)
    task_id = p.opt_text("current_task_id", max_chars=MAX_ID)
    topic_id = p.opt_text("current_topic_id", max_chars=MAX_ID)
    p.done()
    return memory.desk.assess_transition(text, current_task_id=task_id, current_topic_id=topic_id)


@TABLE.method("context.prepare")
def context_prepare(memory: Memory, p: Params) -> dict[str, Any]:
    query = p.text("query", max_chars=4096)
    schedule_id = p.opt_text("schedule_id", max_chars=MAX_ID)
    budget = p.raw("budget_chars")
    budget_chars = p.integer("budget_chars", low=200, high=200_000) if budget is not None else None
    limit = p.integer("limit", 8, low=1, high=50)
    p.done()
    return memory.context.prepare_context(query, schedule_id=schedule_id, budget_chars=budget_chars, limit=limit)


@TABLE.method("task.complete", writes=True)
def task_complete(memory: Memory, p: Params) -> TaskCompleted:
    task_id = p.text("task_id", max_chars=MAX_ID)
    title = p.text("title", max_chars=1000)
    status = p.text("status", max_chars=32)
    result = p.opt_text("result", max_chars=TURN)
    schedule_id = p.opt_text("schedule_id", max_chars=MAX_ID)
    run_id = p.opt_text("run_id", max_chars=MAX_ID)
    interaction_id = p.opt_text("interaction_id", max_chars=MAX_ID)
    source = p.opt_text("source", max_chars=64)
    ts = p.moment("ts")
    p.done()
    return memory.desk.complete_task(
        task_id,
        title=title,
        status=status,
        result=result,
        schedule_id=schedule_id,
        run_id=run_id,
        interaction_id=interaction_id,
        source=source,
        ts=ts,
    )


@TABLE.method("task.list")
def task_list(memory: Memory, p: Params) -> dict[str, Any]:
    status = p.opt_text("status", max_chars=32)
    schedule_id = p.opt_text("schedule_id", max_chars=MAX_ID)
    limit = p.integer("limit", 20, low=1, high=500)
    offset = p.integer("offset", 0)
    p.done()
    rows = memory.desk.list_tasks(status=status, schedule_id=schedule_id, limit=limit + 1, offset=offset)
    return {"tasks": rows[:limit], "next_offset": offset + limit if len(rows) > limit else None}


@TABLE.method("consolidation.record", writes=True)
def consolidation_record(memory: Memory, p: Params) -> ConsolidationRecorded:
    kind = p.text("kind", max_chars=32)
    workday = p.opt_text("workday", max_chars=10)
    summary = p.opt_text("summary", max_chars=2000)
    detail = p.document("detail", max_bytes=MAX_DOCUMENT_BYTES)
    p.done()
    return memory.desk.record_consolidation(kind, workday=workday, summary=summary, detail=detail)
