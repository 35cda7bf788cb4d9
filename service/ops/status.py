"""What serves the socket and who it serves: `health`, `changes.subscribe`, `client.hello`, `service.status`."""

from __future__ import annotations

from typing import Annotated, TypedDict

from service.ops.declare import NoArgs, Operation, Reply
from service.ops.fields import Choice, Text
from service.wire.results import Health
from service.wire.upkeep import JobStatus

KINDS = ("agent", "console", "command", "worker")
"""What a client may call itself in `client.hello`."""


class HealthReply(Health):
    protocol: str  # the protocol version this service speaks
    uptime_s: float  # seconds since this socket started serving


class Subscribed(Reply, frozen=True):
    generation: int  # the change generation now: a notice's generation beyond the next one means some were missed
    home: str


class HelloArgs(NoArgs, frozen=True):
    kind: Annotated[str, Choice(KINDS)] = "agent"
    # The person's key, which the console and the `jiyi` commands read from the home (`person.key`, written by
    # the service each time it starts): the connection then acts as the person. Agents are never handed it.
    person_key: Annotated[str | None, Text(128)] = None

    def __repr__(self) -> str:  # never the key, wherever args are shown
        return f"HelloArgs(kind={self.kind!r}, person_key={'<given>' if self.person_key else None})"


class Hello(Reply, frozen=True):
    kind: str
    protocol: str
    person: bool = False  # this connection acts as the person (it presented the person's key)


class ServiceStatus(TypedDict):
    connections: int
    by_kind: dict[str, int]  # every kind of `KINDS`, zero included
    requests_last_minute: int
    requests_by_kind: dict[str, int]  # the last minute's requests by the kind of connection (protocol 1.7)
    job: JobStatus | None  # the running job's status (`job.status`), or None


HEALTH = Operation(
    "health",
    NoArgs,
    HealthReply,
    kind="read",
    idempotent=True,
    description="Whether the memory service is up: its version, protocol, home, schema and counts. "
    "Cheap; call it first to check that Jiyi answers.",
)
SUBSCRIBE = Operation(
    "changes.subscribe",
    NoArgs,
    Subscribed,
    kind="read",
    idempotent=True,
    description="Follow the changes: after this, the connection receives a notice line naming the changed "
    "domains after every committed change. Consoles use it; an agent rarely needs it.",
)
HELLO = Operation(
    "client.hello",
    HelloArgs,
    Hello,
    kind="read",
    idempotent=True,
    description="Say what this connection is (agent, console, command or worker), for the service's status. "
    "The console and the jiyi commands also present the person's key, and then act as the person.",
    errors=("forbidden",),
)
SERVICE_STATUS = Operation(
    "service.status",
    NoArgs,
    ServiceStatus,
    kind="read",
    idempotent=True,
    description="Who the service serves now: open connections and the last minute's requests, by kind of "
    "client; the running job.",
)

OPERATIONS = (HEALTH, SUBSCRIBE, HELLO, SERVICE_STATUS)
