"""What a handler may know of the call it answers, beyond its params: the connection, who is on it,
whether it acts as the person, how long the socket has served, and how to ask for change notices on it.

The host builds one per connection (`service/rpc/host.py`); a `Dispatcher`
used on its own (the tests, the benchmarks) answers with a detached one, whose
`subscribe` does nothing: no connection to send notices on. A detached context
is an agent's unless it was made as the person's (`Dispatcher.person`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from service.rpc.presence import Presence


def _no_connection() -> None:
    return None


@dataclass(frozen=True)
class CallContext:
    """The call's connection (None when detached), the socket's `presence` counts and start time."""

    connection: int | None
    presence: Presence
    started: float = field(default_factory=time.monotonic)
    """`time.monotonic()` when the socket (or the dispatcher) started serving."""
    subscribe: Callable[[], None] = _no_connection
    """Send this connection a notice line after every committed change from now on. Call it only from
    an instant method (answered on the host's event loop, where the subscribers are kept)."""
    as_person: bool = False
    """A detached context made to act as the person (the dispatcher's own calls for the person); a
    connection's context acts as the person only when its hello presented the person's key."""

    @property
    def uptime(self) -> float:
        """Seconds since the socket started serving."""
        return time.monotonic() - self.started

    @property
    def peer_kind(self) -> str:
        """What the peer said it is (`client.hello`; "agent" until it says, or when detached)."""
        if self.connection is None:
            return "agent"
        return self.presence.kind_of(self.connection) or "agent"

    def declare_kind(self, kind: str) -> None:
        """The peer says what it is: counted so in `service.status`."""
        if self.connection is not None:
            self.presence.named(self.connection, kind)

    @property
    def is_person(self) -> bool:
        """Whether this call acts as the person (the console, a `jiyi` command), not as an agent."""
        if self.connection is None:
            return self.as_person
        return self.presence.is_person(self.connection)

    @property
    def key_refused(self) -> bool:
        """Whether this connection presented a person's key that is not this service's."""
        return self.connection is not None and self.presence.key_refused(self.connection)

    def present_key(self, key: str | None) -> bool:
        """The peer presents the person's key (None: none): whether it now acts as the person."""
        return self.connection is not None and self.presence.present_key(self.connection, key)
