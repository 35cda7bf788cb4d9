"""`health`: what serves this socket, and which protocol it speaks; `service.status`: who it serves; `client.hello`."""

from __future__ import annotations

from typing import Any

from service.memory.memory import Memory
from service.memory.presence import KINDS
from service.rpc.params import Params
from service.rpc.protocol import PROTOCOL_VERSION
from service.rpc.registry import MethodTable

TABLE = MethodTable("status")


@TABLE.method("health", instant=Memory.health_is_cached)
def health(memory: Memory, p: Params) -> dict[str, Any]:
    p.done()
    return {**memory.health(), "protocol": PROTOCOL_VERSION}


def _always(_memory: Memory) -> bool:
    return True


# Answered on the loop: the host then sends this connection a notice line after every committed change.
@TABLE.method("changes.subscribe", instant=_always)
def changes_subscribe(memory: Memory, p: Params) -> dict[str, Any]:
    p.done()
    return {"generation": memory.parts.bus.generation, "home": str(memory.store.home)}


# Answered on the loop: the host then counts this connection as the kind it named (`service.status`).
@TABLE.method("client.hello", instant=_always)
def client_hello(memory: Memory, p: Params) -> dict[str, Any]:
    kind = p.choice("kind", KINDS, "agent")
    p.done()
    return {"kind": kind, "protocol": PROTOCOL_VERSION}


# Answered on the loop: counts kept in memory, polled by attached consoles every few seconds.
@TABLE.method("service.status", instant=_always)
def service_status(memory: Memory, p: Params) -> dict[str, Any]:
    p.done()
    return {**memory.presence.snapshot(), "job": memory.jobs.running()}
