"""A phone agent's run (start, event, finish) and the episode archive it fills."""

from __future__ import annotations

import math
from typing import Any

from service.memory.memory import EpisodeFilter, Memory
from service.memory.results import RunEventReceipt, RunFinished, RunStarted
from service.rpc.params import Params, check_epoch
from service.rpc.registry import MethodTable
from store.core.errors import InvalidInput

TABLE = MethodTable("runs and episodes")
MAX_EVENT_BYTES = 16 * 1024  # one tool receipt; `intent` and `note` are folded to 200 characters anyway
MAX_OUTCOME_BYTES = 64 * 1024
# The caps of an outcome's fields (characters; `deliverable_path` in bytes, as file systems count).
OUTCOME_TEXT = {"goal_text": 8192, "reason": 2000, "takeover": 2000, "device_scope": 200, "deliverable_path": 1024}
OUTCOME_LISTS = {"apps": 200, "injected_lessons": 100, "injected_procedures": 100, "capabilities": 100}
TIMES = ("ts", "ts_start", "ts_end")


def _times(document: dict[str, Any], where: str) -> None:
    """A time given as a number is epoch seconds between 0 and the year 3000 (other types are the store's)."""
    for name in TIMES:
        value = document.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            check_epoch(value, f"{where}.{name}")


def _event(p: Params) -> dict[str, Any]:
    event = p.document("event", max_bytes=MAX_EVENT_BYTES)
    if event is None:
        raise InvalidInput("params.event is required")
    _times(event, "params.event")
    return event


def _outcome(p: Params) -> dict[str, Any] | None:
    """The outcome within its caps; the shape and types of its fields are the store's to check."""
    outcome = p.document("outcome", max_bytes=MAX_OUTCOME_BYTES)
    if outcome is None:
        return None
    _times(outcome, "params.outcome")
    for name, cap in OUTCOME_TEXT.items():
        value = outcome.get(name)
        if not isinstance(value, str):
            continue
        in_bytes = name == "deliverable_path"
        if (len(value.encode("utf-8", "surrogatepass")) if in_bytes else len(value)) > cap:
            raise InvalidInput(f"params.outcome.{name} is longer than {cap} {'bytes' if in_bytes else 'characters'}")
    for name, cap in OUTCOME_LISTS.items():
        value = outcome.get(name)
        if isinstance(value, list | dict) and len(value) > cap:
            raise InvalidInput(f"params.outcome.{name} has more than {cap} items")
    return outcome


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
    event = _event(p)
    device = p.opt_text("device", max_chars=128)
    launch_name = p.opt_text("launch_name", max_chars=256)
    failure_message = p.opt_text("failure_message", max_chars=8192)
    p.done()
    return memory.runs.run_event(event, device=device, launch_name=launch_name, failure_message=failure_message)


@TABLE.method("run.finish", writes=True)
def run_finish(memory: Memory, p: Params) -> RunFinished:
    run_id = p.text("run_id", max_chars=128)
    outcome = _outcome(p)
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


def _episode_key(value: object) -> tuple[float, str] | None:
    """`after`: the `[ts_end, run_id]` of the last episode a client holds (keyset paging), or absent."""
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or isinstance(value[0], bool)
        or not isinstance(value[0], int | float)
        or not math.isfinite(value[0])
        or not isinstance(value[1], str)
        or not 0 < len(value[1]) <= 128
    ):
        raise InvalidInput("params.after must be [ts_end, run_id]: the last episode's end time and run id")
    return (float(value[0]), value[1])


@TABLE.method("episode.list")
def episode_list(memory: Memory, p: Params) -> dict[str, Any]:
    f = _episode_filter(p)
    limit = p.integer("limit", 100, low=1, high=1000)
    offset = p.integer("offset", 0)
    after = _episode_key(p.raw("after"))
    with_total = p.boolean("total", False)
    p.done()
    rows = memory.runs.list_episodes(f, limit=limit + 1, offset=offset, after=after)
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
