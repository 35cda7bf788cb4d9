"""Every socket method: a name, validated params, one `Memory` call, a JSON-able result.

`docs/protocol.md` documents each method; a test keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from service.memory.memory import EpisodeFilter, Memory
from service.rpc.params import Params
from store.appkb.entry import KINDS
from store.appkb.kb import parse_assignment
from store.core.errors import InvalidInput

Handler = Callable[[Memory, Params], Any]


@dataclass(frozen=True)
class Method:
    name: str
    handler: Handler
    writes: bool
    # When this says so, the call touches no file and may be answered on the event loop.
    instant: Callable[[Memory], bool] | None = None


METHODS: dict[str, Method] = {}


def method(
    name: str, *, writes: bool = False, instant: Callable[[Memory], bool] | None = None
) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        METHODS[name] = Method(name, handler, writes, instant)
        return handler

    return register


@method("health", instant=Memory.health_is_cached)
def health(memory: Memory, p: Params) -> dict[str, Any]:
    p.done()
    return memory.health()


@method("app.resolve")
def app_resolve(memory: Memory, p: Params) -> dict[str, Any]:
    name, device = p.text("name", max_chars=256), p.opt_text("device", max_chars=128)
    p.done()
    return memory.appkb.resolve_app(name, device=device).to_dict()


@method("app.alias.learn", writes=True)
def app_alias_learn(memory: Memory, p: Params) -> dict[str, Any]:
    assignment = p.opt_text("assignment", max_chars=512)
    if assignment is not None:
        name, package = parse_assignment(assignment)
    else:
        name, package = p.text("name", max_chars=256), p.text("package", max_chars=256)
    actor = p.choice("actor", ("agent", "user"), "agent")
    p.done()
    outcome = memory.appkb.learn_alias(name, package, actor=str(actor))
    result = outcome.result
    return {
        "changed": result.changed,
        "entry": result.entry.to_dict(),
        "replaced": [e.to_dict() for e in result.replaced],
        "change": result.txn,
        "warnings": outcome.warnings,
    }


@method("app.alias.forget", writes=True)
def app_alias_forget(memory: Memory, p: Params) -> dict[str, Any]:
    name = p.text("name", max_chars=256)
    actor = p.choice("actor", ("agent", "user"), "agent")
    p.done()
    result = memory.appkb.forget_alias(name, actor=str(actor))
    return {"term": result.term, "removed": [e.to_dict() for e in result.removed], "change": result.txn}


@method("app.alias.list")
def app_alias_list(memory: Memory, p: Params) -> dict[str, Any]:
    device = p.opt_text("device", max_chars=128)
    kind = p.choice("kind", KINDS)
    text = p.opt_text("text", max_chars=256)
    include_stale = p.boolean("include_stale", True)
    limit = p.integer("limit", 200, low=1, high=5000)
    offset = p.integer("offset", 0)
    order = p.choice("order", ("reference", "trust"), "reference")
    p.done()
    rows = memory.appkb.list_aliases(
        device=device,
        kind=kind,
        text=text,
        include_stale=include_stale,
        limit=limit + 1,
        offset=offset,
        order=str(order),
    )
    return {
        "entries": [e.to_dict() for e in rows[:limit]],
        "next_offset": offset + limit if len(rows) > limit else None,
    }


@method("app.alias.history")
def app_alias_history(memory: Memory, p: Params) -> dict[str, Any]:
    name = p.text("name", max_chars=256)
    limit = p.integer("limit", 100, low=1, high=1000)
    p.done()
    items = memory.appkb.alias_history(name, limit=limit)
    return {
        "items": [
            {"seq": i.seq, "ts": i.ts, "actor": i.actor, "type": i.type, "change": i.txn, "payload": i.payload}
            for i in items
        ]
    }


@method("app.alias.undo", writes=True)
def app_alias_undo(memory: Memory, p: Params) -> dict[str, Any]:
    change = p.integer("change", low=1)
    actor = p.choice("actor", ("agent", "user"), "agent")
    p.done()
    result = memory.appkb.undo_change(change, actor=str(actor))
    return {
        "change": result.txn,
        "reverted": result.reverted_txn,
        "removed": [e.to_dict() for e in result.removed],
        "restored": [e.to_dict() for e in result.restored],
    }


@method("app.inventory.sync", writes=True)
def app_inventory_sync(memory: Memory, p: Params) -> dict[str, Any]:
    device = p.text("device", max_chars=128)
    apps = p.apps("apps") or []
    p.done()
    return asdict(memory.appkb.sync_inventory(device, apps))


@method("run.start", writes=True)
def run_start(memory: Memory, p: Params) -> dict[str, Any]:
    run_id = p.text("run_id", max_chars=128)
    device = p.text("device", max_chars=128)
    goal = p.opt_text("goal", max_chars=8192)
    installed = p.apps("installed", required=False)
    p.done()
    return memory.runs.run_start(run_id, device, goal=goal, installed=installed)


@method("run.event", writes=True)
def run_event(memory: Memory, p: Params) -> dict[str, Any]:
    event = p.raw("event")
    device = p.opt_text("device", max_chars=128)
    launch_name = p.opt_text("launch_name", max_chars=256)
    failure_message = p.opt_text("failure_message", max_chars=8192)
    p.done()
    return memory.runs.run_event(event, device=device, launch_name=launch_name, failure_message=failure_message)


@method("run.finish", writes=True)
def run_finish(memory: Memory, p: Params) -> dict[str, Any]:
    run_id = p.text("run_id", max_chars=128)
    outcome = p.raw("outcome")
    p.done()
    return memory.runs.run_finish(run_id, outcome)


def _episode_filter(p: Params) -> EpisodeFilter:
    success = p.raw("success")
    if success is not None and not isinstance(success, bool):
        raise InvalidInput("params.success must be true or false")
    revoked = p.raw("revoked")
    if revoked is not None and not isinstance(revoked, bool):
        raise InvalidInput("params.revoked must be true or false")
    since, until = _window(p)
    return EpisodeFilter(
        text=p.opt_text("text", max_chars=256),
        app=p.opt_text("app", max_chars=256),
        device=p.opt_text("device", max_chars=128),
        success=success,
        since=since,
        until=until,
        revoked=revoked,
    )


@method("episode.list")
def episode_list(memory: Memory, p: Params) -> dict[str, Any]:
    f = _episode_filter(p)
    limit = p.integer("limit", 100, low=1, high=1000)
    offset = p.integer("offset", 0)
    with_total = p.boolean("total", False)
    p.done()
    rows = memory.runs.list_episodes(f, limit=limit + 1, offset=offset)
    result: dict[str, Any] = {
        "episodes": rows[:limit],
        "next_offset": offset + limit if len(rows) > limit else None,
    }
    if with_total:
        result["total"] = memory.runs.count_episodes(f)
    return result


@method("episode.get")
def episode_get(memory: Memory, p: Params) -> dict[str, Any]:
    run_id = p.text("run_id", max_chars=128)
    p.done()
    return memory.runs.get_episode(run_id)


@method("episode.revoke", writes=True)
def episode_revoke(memory: Memory, p: Params) -> dict[str, Any]:
    run_id = p.text("run_id", max_chars=128)
    reason = p.opt_text("reason", max_chars=200)
    actor = p.choice("actor", ("agent", "user"), "agent")
    p.done()
    return {
        "run_id": run_id,
        "revoked": True,
        "change": memory.runs.revoke_episode(run_id, reason=reason, actor=str(actor)),
    }


@method("episode.restore", writes=True)
def episode_restore(memory: Memory, p: Params) -> dict[str, Any]:
    run_id = p.text("run_id", max_chars=128)
    actor = p.choice("actor", ("agent", "user"), "agent")
    p.done()
    return {"run_id": run_id, "revoked": False, "change": memory.runs.restore_episode(run_id, actor=str(actor))}


def _window(p: Params) -> tuple[float | None, float | None]:
    bounds = []
    for name in ("since", "until"):
        value = p.raw(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise InvalidInput(f"params.{name} must be epoch seconds")
        bounds.append(float(value) if value is not None else None)
    return bounds[0], bounds[1]


@method("recall.query")
def recall_query(memory: Memory, p: Params) -> dict[str, Any]:
    goal = p.text("goal", max_chars=8192)
    device = p.text("device", max_chars=128)
    explain = p.boolean("explain", False)
    p.done()
    return memory.recall.recall_query(goal, device, explain=explain)


@method("recall.stats")
def recall_stats(memory: Memory, p: Params) -> dict[str, Any]:
    since, until = _window(p)
    p.done()
    return memory.recall.recall_statistics(since, until)


@method("recall.runs")
def recall_runs(memory: Memory, p: Params) -> dict[str, Any]:
    since, until = _window(p)
    limit = p.integer("limit", 200, low=1, high=1000)
    p.done()
    if since is None or until is None:
        raise InvalidInput("params.since and params.until are required")
    return {"runs": memory.recall.recall_runs(since, until, limit)}


@method("lesson.add", writes=True)
def lesson_add(memory: Memory, p: Params) -> dict[str, Any]:
    text = p.text("text", max_chars=2000)
    apps = p.raw("apps")
    if apps is not None and not (isinstance(apps, list) and all(isinstance(a, str) for a in apps)):
        raise InvalidInput("params.apps must be a list of package names")
    p.done()
    return memory.lessons.add_lesson(text, apps or [], actor="agent")


@method("lesson.list")
def lesson_list(memory: Memory, p: Params) -> dict[str, Any]:
    status = p.choice("status", ("proposed", "approved", "revoked"))
    p.done()
    return {"lessons": memory.lessons.list_lessons(status)}


@method("lesson.revoke", writes=True)
def lesson_revoke(memory: Memory, p: Params) -> dict[str, Any]:
    lesson_id = p.text("lesson_id", max_chars=80)
    p.done()
    return memory.lessons.set_lesson_status(lesson_id, "revoked", actor="agent")


# The desktop-assistant methods register themselves into METHODS on import.
from service.rpc import desk_methods  # noqa: E402, F401
