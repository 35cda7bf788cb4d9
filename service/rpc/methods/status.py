"""`health`: what serves this socket, and which protocol it speaks; `service.status`: who it serves; `client.hello`."""

from __future__ import annotations

from service.memory.memory import Memory
from service.ops import status
from service.ops.declare import NoArgs
from service.rpc.context import CallContext
from service.rpc.protocol import PROTOCOL_VERSION
from service.rpc.registry import MethodTable
from store.core.errors import Forbidden

TABLE = MethodTable("status")


@TABLE.op(status.HEALTH, instant=Memory.health_is_cached)
def health(memory: Memory, _args: NoArgs, context: CallContext) -> status.HealthReply:
    return {**memory.health(), "protocol": PROTOCOL_VERSION, "uptime_s": round(context.uptime, 3)}


def _always(_memory: Memory) -> bool:
    return True


# Answered on the loop, where the host keeps its subscribers: it then sends this connection a notice line
# after every committed change. Only consoles follow the changes.
@TABLE.op(status.SUBSCRIBE, instant=_always)
def changes_subscribe(memory: Memory, _args: NoArgs, context: CallContext) -> status.Subscribed:
    context.subscribe()
    context.declare_kind("console")
    return status.Subscribed(generation=memory.generation, home=str(memory.store.home))


@TABLE.op(status.HELLO, instant=_always)
def client_hello(memory: Memory, args: status.HelloArgs, context: CallContext) -> status.Hello:
    context.declare_kind(args.kind)
    person = context.present_key(args.person_key)
    if args.person_key is not None and not person:
        # Named as such, never echoed: the caller goes on as an agent.
        raise Forbidden(
            f"the person's key presented is not this service's (it is written anew in "
            f"{memory.store.home}/person.key each time the service starts: read it again); "
            "this connection acts as an agent"
        )
    return status.Hello(kind=args.kind, protocol=PROTOCOL_VERSION, person=person)


# Answered on the loop: counts kept in memory, polled by attached consoles every few seconds.
@TABLE.op(status.SERVICE_STATUS, instant=_always)
def service_status(memory: Memory, _args: NoArgs, context: CallContext) -> status.ServiceStatus:
    counts = context.presence.snapshot()
    return {
        "connections": counts["connections"],
        "by_kind": counts["by_kind"],
        "requests_last_minute": counts["requests_last_minute"],
        "requests_by_kind": counts["requests_by_kind"],
        "job": memory.jobs.running(),
    }
