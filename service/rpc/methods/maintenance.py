"""Maintenance of the desk memory: plan a batch, commit topics, facts and skill drafts; read topics and skills
(declared in `service/ops/maintenance.py`)."""

from __future__ import annotations

from typing import Any

from service.memory.memory import Memory
from service.memory.rows import Fact
from service.ops import maintenance as ops
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable
from store.core.errors import InvalidInput

TABLE = MethodTable("maintenance")


@TABLE.op(ops.COMMIT)
def maintenance_commit(memory: Memory, args: ops.CommitArgs, _context: CallContext) -> dict[str, Any]:
    return memory.desk.maintenance_commit(args.request())


@TABLE.op(ops.SKILL_LIST)
def skill_list(memory: Memory, args: ops.SkillListArgs, _context: CallContext) -> ops.Skills:
    if args.audience == "executor" and args.status not in (None, "active"):
        raise InvalidInput("executors read active skills only; pass audience: review to read drafts")
    status = "active" if args.audience == "executor" else args.status
    return ops.Skills(skills=memory.desk.list_skills(status), audience=args.audience)


@TABLE.op(ops.TOPIC_LIST)
def topic_list(memory: Memory, args: ops.TopicListArgs, _context: CallContext) -> ops.TopicPage:
    if args.workday is not None:
        if args.text is not None or args.offset:
            raise InvalidInput("params.workday lists that day's topics: give neither text nor offset with it")
        return ops.TopicPage(topics=memory.desk.workday_topics(args.workday), next_offset=None)
    rows = memory.desk.list_topics(text=args.text, limit=args.limit + 1, offset=args.offset)
    more = len(rows) > args.limit
    return ops.TopicPage(topics=rows[: args.limit], next_offset=args.offset + args.limit if more else None)


# The person's alone (its declaration): the dispatcher let only the person's connection through.
@TABLE.op(ops.FACT_SET_STATUS)
def fact_set_status(memory: Memory, args: ops.FactStatusArgs, _context: CallContext) -> Fact:
    return memory.desk.set_fact_status(args.fact_id, args.status, reason=args.reason or "", actor="user")
