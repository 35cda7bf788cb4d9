"""A phone agent's run (start, event, finish) and the episode archive it fills."""

from __future__ import annotations

from typing import Any

from service.memory.memory import EpisodeFilter, Memory
from service.memory.results import RunEventReceipt, RunFinished, RunStarted
from service.rpc.params import Params
from service.rpc.registry import MethodTable
from store.core.errors import InvalidInput

TABLE = MethodTable("runs and episodes")


@TABLE.method("run.start", writes=True)
def run_start(memory: Memory, p: Params) -> RunStarted:
    run_id = p.text("run_id", max_chars=128)
    device = p.text("device", max_chars=128)
    goal = p.opt_text("goal", max_chars=8192)
    installed = p.apps("installed", required=False)
    p.done()
    return memory.runs.run_start(run_id, device, goal=goal, installed=installed)


@TABLE.method("run.event", writes=True)
def run_event(memory: Memory, p: Params) -> RunEventReceipt:
    event = p.raw("event")
    device = p.opt_text("device", max_chars=128)
    launch_name = p.opt_text("launch_name", max_chars=256)
    failure_message = p.opt_text("failure_message", max_chars=8192)
    p.done()
    return memory.runs.run_event(event, device=device, launch_name=launch_name, failure_message=failure_message)


@TABLE.method("run.finish", writes=True)
def run_finish(memory: Memory, p: Params) -> RunFinished:
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
    since, until = p.window()
    return EpisodeFilter(
        text=p.opt_text("text", max_chars=256),
        app=p.opt_text("app", max_chars=256),
        device=p.opt_text("device", max_chars=128),
        success=success,
        since=since,
        until=until,
        revoked=revoked,
    )


@TABLE.method("episode.list")
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


@TABLE.method("episode.get")
def episode_get(memory: Memory, p: Params) -> dict[str, Any]:
    run_id = p.text("run_id", max_chars=128)
    p.done()
    return memory.runs.get_episode(run_id)


@TABLE.method("episode.revoke", writes=True)
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


@TABLE.method("episode.restore", writes=True)
def episode_restore(memory: Memory, p: Params) -> dict[str, Any]:
    run_id = p.text("run_id", max_chars=128)
    actor = p.choice("actor", ("agent", "user"), "agent")
    p.done()
    return {"run_id": run_id, "revoked": False, "change": memory.runs.restore_episode(run_id, actor=str(actor))}
