"""The seed 002 socket methods (desktop-assistant memory), under the seed's own names.

Registered into the same table as every other method (`methods.METHODS`);
`docs/protocol.md` documents each one.
"""

from __future__ import annotations

from typing import Any

from service.memory.memory import Memory
from service.rpc.methods import method
from service.rpc.params import Params
from store.core.errors import InvalidInput

ID = 128
TURN = 20_000


def _when(p: Params) -> str | float | None:
    value = p.raw("ts")
    if value is not None and (isinstance(value, bool) or not isinstance(value, str | int | float)):
        raise InvalidInput("params.ts must be ISO-8601 text or epoch seconds")
    return value


def _bundle_id(p: Params) -> str:
    bundle_id, schedule_id = p.opt_text("bundle_id", max_chars=200), p.opt_text("schedule_id", max_chars=ID)
    if (bundle_id is None) == (schedule_id is None):
        raise InvalidInput("give exactly one of params.bundle_id and params.schedule_id")
    return bundle_id if bundle_id is not None else f"schedule/{schedule_id}"


def _list(p: Params, name: str) -> list[Any]:
    value = p.raw(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInput(f"params.{name} must be a list")
    return value


@method("memory.recall")
def memory_recall(memory: Memory, p: Params) -> dict[str, Any]:
    query = p.text("query", max_chars=4096)
    limit = p.integer("limit", 8, low=1, high=50)
    p.done()
    return memory.desk.memory_recall(query, limit=limit)


@method("interaction.remember", writes=True)
def interaction_remember(memory: Memory, p: Params) -> dict[str, Any]:
    interaction_id = p.text("interaction_id", max_chars=ID)
    user_text = p.opt_text("user_text", max_chars=TURN)
    assistant_text = p.opt_text("assistant_text", max_chars=TURN)
    source = p.opt_text("source", max_chars=64)
    task_id = p.opt_text("task_id", max_chars=ID)
    ts = _when(p)
    p.done()
    return memory.desk.remember_interaction(
        interaction_id, user_text=user_text, assistant_text=assistant_text, source=source, task_id=task_id, ts=ts
    )


@method("transition.assess")
def transition_assess(memory: Memory, p: Params) -> dict[str, Any]:
    text = p.text("text", max_chars=4096)
    task_id = p.opt_text("current_task_id", max_chars=ID)
    topic_id = p.opt_text("current_topic_id", max_chars=ID)
    p.done()
    return memory.desk.assess_transition(text, current_task_id=task_id, current_topic_id=topic_id)


@method("context.prepare")
def context_prepare(memory: Memory, p: Params) -> dict[str, Any]:
    query = p.text("query", max_chars=4096)
    schedule_id = p.opt_text("schedule_id", max_chars=ID)
    budget = p.raw("budget_chars")
    budget_chars = p.integer("budget_chars", low=200, high=200_000) if budget is not None else None
    limit = p.integer("limit", 8, low=1, high=50)
    p.done()
    return memory.context.prepare_context(query, schedule_id=schedule_id, budget_chars=budget_chars, limit=limit)


@method("task.complete", writes=True)
def task_complete(memory: Memory, p: Params) -> dict[str, Any]:
    task_id = p.text("task_id", max_chars=ID)
    title = p.text("title", max_chars=1000)
    status = p.text("status", max_chars=32)
    result = p.opt_text("result", max_chars=TURN)
    schedule_id = p.opt_text("schedule_id", max_chars=ID)
    run_id = p.opt_text("run_id", max_chars=ID)
    interaction_id = p.opt_text("interaction_id", max_chars=ID)
    source = p.opt_text("source", max_chars=64)
    ts = _when(p)
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


@method("task.list")
def task_list(memory: Memory, p: Params) -> dict[str, Any]:
    status = p.opt_text("status", max_chars=32)
    schedule_id = p.opt_text("schedule_id", max_chars=ID)
    limit = p.integer("limit", 20, low=1, high=500)
    offset = p.integer("offset", 0)
    p.done()
    rows = memory.desk.list_tasks(status=status, schedule_id=schedule_id, limit=limit + 1, offset=offset)
    return {"tasks": rows[:limit], "next_offset": offset + limit if len(rows) > limit else None}


@method("consolidation.record", writes=True)
def consolidation_record(memory: Memory, p: Params) -> dict[str, Any]:
    kind = p.text("kind", max_chars=32)
    workday = p.opt_text("workday", max_chars=10)
    summary = p.opt_text("summary", max_chars=2000)
    detail = p.raw("detail")
    p.done()
    return memory.desk.record_consolidation(kind, workday=workday, summary=summary, detail=detail)


@method("memory.maintenance.status")
def maintenance_status(memory: Memory, p: Params) -> dict[str, Any]:
    p.done()
    return memory.desk.maintenance_status()


@method("memory.maintenance.plan", writes=True)
def maintenance_plan(memory: Memory, p: Params) -> dict[str, Any]:
    limit = p.integer("limit", 50, low=1, high=500)
    lease = p.raw("lease_seconds")
    lease_seconds = p.integer("lease_seconds", low=10, high=86_400) if lease is not None else None
    p.done()
    return memory.desk.maintenance_plan(limit=limit, lease_seconds=lease_seconds)


@method("memory.maintenance.commit", writes=True)
def maintenance_commit(memory: Memory, p: Params) -> dict[str, Any]:
    request = {
        "batch_id": p.opt_text("batch_id", max_chars=64),
        "topics": _list(p, "topics"),
        "facts": _list(p, "facts"),
        "skills": _list(p, "skills"),
        "note": p.opt_text("note", max_chars=2000),
    }
    p.done()
    return memory.desk.maintenance_commit(request)


@method("memory.topic.get")
def topic_get(memory: Memory, p: Params) -> dict[str, Any]:
    topic_id = p.text("topic_id", max_chars=ID)
    limit = p.integer("limit", 50, low=1, high=500)
    offset = p.integer("offset", 0)
    p.done()
    return memory.desk.get_topic(topic_id, limit=limit, offset=offset)


@method("memory.skill.list")
def skill_list(memory: Memory, p: Params) -> dict[str, Any]:
    status = p.choice("status", ("draft", "active", "disabled", "rejected"))
    audience = p.choice("audience", ("executor", "review"), "executor")
    p.done()
    if audience == "executor" and status not in (None, "active"):
        raise InvalidInput("executors read active skills only; pass audience: review to read drafts")
    return {"skills": memory.desk.list_skills("active" if audience == "executor" else status), "audience": audience}


@method("memory.skill.get")
def skill_get(memory: Memory, p: Params) -> dict[str, Any]:
    skill_id = p.text("skill_id", max_chars=ID)
    p.done()
    return memory.desk.get_skill(skill_id)


@method("memory.skill.set_status", writes=True)
def skill_set_status(memory: Memory, p: Params) -> dict[str, Any]:
    skill_id = p.text("skill_id", max_chars=ID)
    status = p.choice("status", ("draft", "active", "disabled", "rejected"))
    if status is None:
        raise InvalidInput("params.status is required")
    user_request = p.opt_text("user_request", max_chars=500)
    p.done()
    return memory.desk.set_skill_status(skill_id, status, user_request=user_request, actor="agent")


@method("bundle.list")
def bundle_list(memory: Memory, p: Params) -> dict[str, Any]:
    kind = p.choice("kind", ("schedule", "project"))
    limit = p.integer("limit", 100, low=1, high=1000)
    offset = p.integer("offset", 0)
    p.done()
    rows = memory.desk.list_bundles(kind=kind, limit=limit + 1, offset=offset)
    return {"bundles": rows[:limit], "next_offset": offset + limit if len(rows) > limit else None}


@method("bundle.get")
def bundle_get(memory: Memory, p: Params) -> dict[str, Any]:
    bundle_id = _bundle_id(p)
    path = p.opt_text("path", max_chars=300)
    p.done()
    return memory.desk.get_bundle(bundle_id, path)


@method("bundle.document.put", writes=True)
def bundle_document_put(memory: Memory, p: Params) -> dict[str, Any]:
    bundle_id = _bundle_id(p)
    path = p.text("path", max_chars=300)
    content = p.text("content", max_chars=256_000)
    if p.raw("expected_revision") is None:
        raise InvalidInput("params.expected_revision is required (the revision you read; 0 for a new document)")
    expected = p.integer("expected_revision")
    p.done()
    return memory.desk.put_bundle_document(bundle_id, path, content, expected_revision=expected)
