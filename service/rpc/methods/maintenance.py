"""Maintenance of the desk memory: plan a batch, commit topics, facts and skill drafts; read topics and skills
(declared in `service/ops/maintenance.py`)."""

from __future__ import annotations

from typing import Any

from service.memory.memory import Memory
from service.memory.results import MaintenancePlan, MaintenanceStatus
from service.memory.rows import Fact, Skill, TopicDetail
from service.ops import maintenance as ops
from service.ops.declare import NoArgs
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable
from store.core.errors import InvalidInput

TABLE = MethodTable("maintenance")


@TABLE.op(ops.STATUS)
def maintenance_status(memory: Memory, _args: NoArgs, _context: CallContext) -> MaintenanceStatus:
    return memory.desk.maintenance_status()


@TABLE.op(ops.PLAN)
def maintenance_plan(memory: Memory, args: ops.PlanArgs, _context: CallContext) -> MaintenancePlan:
    return memory.desk.maintenance_plan(limit=args.limit, lease_seconds=args.lease_seconds)


@TABLE.op(ops.COMMIT)
def maintenance_commit(memory: Memory, args: ops.CommitArgs, _context: CallContext) -> dict[str, Any]:
    return memory.desk.maintenance_commit(args.request())


@TABLE.op(ops.TOPIC_GET)
def topic_get(memory: Memory, args: ops.TopicArgs, _context: CallContext) -> TopicDetail:
    return memory.desk.get_topic(args.topic_id, limit=args.limit, offset=args.offset)


@TABLE.op(ops.SKILL_LIST)
def skill_list(memory: Memory, args: ops.SkillListArgs, _context: CallContext) -> ops.Skills:
    if args.audience == "executor" and args.status not in (None, "active"):
        raise InvalidInput("executors read active skills only; pass audience: review to read drafts")
    status = "active" if args.audience == "executor" else args.status
    return ops.Skills(skills=memory.desk.list_skills(status), audience=args.audience)


@TABLE.op(ops.SKILL_GET)
def skill_get(memory: Memory, args: ops.SkillArgs, _context: CallContext) -> Skill:
    return memory.desk.get_skill(args.skill_id)


# Who may: the declaration (`ops.SKILL_SET_STATUS.person`), checked by the dispatcher before this runs: the person,
# or an agent on seed 002's one path, whose request the desk then checks against the named turn.
@TABLE.op(ops.SKILL_SET_STATUS)
def skill_set_status(memory: Memory, args: ops.SkillStatusArgs, _context: CallContext) -> Skill:
    return memory.desk.set_skill_status(
        args.skill_id,
        args.status,
        user_request=args.user_request,
        interaction_id=args.interaction_id,
        actor=args.actor,
    )


@TABLE.op(ops.TOPIC_LIST)
def topic_list(memory: Memory, args: ops.TopicListArgs, _context: CallContext) -> ops.TopicPage:
    if args.workday is not None:
        if args.text is not None or args.offset:
            raise InvalidInput("params.workday lists that day's topics: give neither text nor offset with it")
        return ops.TopicPage(topics=memory.desk.workday_topics(args.workday), next_offset=None)
    rows = memory.desk.list_topics(text=args.text, limit=args.limit + 1, offset=args.offset)
    more = len(rows) > args.limit
    return ops.TopicPage(topics=rows[: args.limit], next_offset=args.offset + args.limit if more else None)


@TABLE.op(ops.WORKDAY_LIST)
def workday_list(memory: Memory, args: ops.WorkdayListArgs, _context: CallContext) -> ops.WorkdayPage:
    rows = memory.desk.list_workdays(limit=args.limit + 1, offset=args.offset)
    more = len(rows) > args.limit
    return ops.WorkdayPage(workdays=rows[: args.limit], next_offset=args.offset + args.limit if more else None)


@TABLE.op(ops.CONSOLIDATION_LOG)
def consolidation_log(memory: Memory, args: ops.LogArgs, _context: CallContext) -> ops.ConsolidationLog:
    return ops.ConsolidationLog(entries=memory.desk.consolidation_log(args.limit))


@TABLE.op(ops.FACT_LIST)
def fact_list(memory: Memory, args: ops.FactListArgs, _context: CallContext) -> ops.FactPage:
    rows = memory.desk.list_facts(
        scope=args.scope, status=args.status, text=args.text, limit=args.limit + 1, offset=args.offset
    )
    more = len(rows) > args.limit
    return ops.FactPage(facts=rows[: args.limit], next_offset=args.offset + args.limit if more else None)


# The person's alone (its declaration): the dispatcher let only the person's connection through.
@TABLE.op(ops.FACT_SET_STATUS)
def fact_set_status(memory: Memory, args: ops.FactStatusArgs, _context: CallContext) -> Fact:
    return memory.desk.set_fact_status(args.fact_id, args.status, reason=args.reason or "", actor="user")
