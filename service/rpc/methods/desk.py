"""A desktop assistant's working memory: interactions, task cards, recall and context for its prompt.

The methods keep the names desktop assistants already use; their declarations
are in `service/ops/desk.py`, and `docs/protocol.md` documents each one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.memory.memory import Memory
from service.memory.recall_rows import DeskRecall
from service.memory.results import ConsolidationRecorded, InteractionRemembered, TaskCompleted
from service.ops import desk
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("desk")


@TABLE.op(desk.RECALL)
def memory_recall(memory: Memory, args: desk.RecallArgs, _context: CallContext) -> DeskRecall:
    return memory.desk.memory_recall(args.query, limit=args.limit)


@TABLE.grouped(desk.REMEMBER)
def interaction_remember(
    memory: Memory, args: desk.RememberArgs, _context: CallContext
) -> Callable[[], InteractionRemembered]:
    return memory.desk.prepare_interaction(
        args.interaction_id,
        user_text=args.user_text,
        assistant_text=args.assistant_text,
        source=args.source,
        task_id=args.task_id,
        ts=args.ts,
    )


@TABLE.op(desk.TRANSITION)
def transition_assess(memory: Memory, args: desk.TransitionArgs, _context: CallContext) -> dict[str, Any]:
    return memory.desk.assess_transition(
        args.text, current_task_id=args.current_task_id, current_topic_id=args.current_topic_id
    )


@TABLE.op(desk.CONTEXT)
def context_prepare(memory: Memory, args: desk.ContextArgs, _context: CallContext) -> dict[str, Any]:
    return memory.context.prepare_context(
        args.query, schedule_id=args.schedule_id, budget_chars=args.budget_chars, limit=args.limit
    )


@TABLE.op(desk.TASK_COMPLETE)
def task_complete(memory: Memory, args: desk.TaskArgs, _context: CallContext) -> TaskCompleted:
    return memory.desk.complete_task(
        args.task_id,
        title=args.title,
        status=args.status,
        result=args.result,
        schedule_id=args.schedule_id,
        run_id=args.run_id,
        interaction_id=args.interaction_id,
        source=args.source,
        ts=args.ts,
    )


@TABLE.op(desk.TASK_LIST)
def task_list(memory: Memory, args: desk.TaskListArgs, _context: CallContext) -> desk.TaskPage:
    rows = memory.desk.list_tasks(
        status=args.status, schedule_id=args.schedule_id, limit=args.limit + 1, offset=args.offset
    )
    more = len(rows) > args.limit
    return desk.TaskPage(tasks=rows[: args.limit], next_offset=args.offset + args.limit if more else None)


@TABLE.op(desk.CONSOLIDATION)
def consolidation_record(memory: Memory, args: desk.ConsolidationArgs, _context: CallContext) -> ConsolidationRecorded:
    return memory.desk.record_consolidation(args.kind, workday=args.workday, summary=args.summary, detail=args.detail)
