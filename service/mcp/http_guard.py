"""`jiyi mcp --http` against clients that send a request slowly on purpose (slowloris).

uvicorn times out a connection only between requests: one that sends a
header byte every few seconds is held for as long as it goes on, and 1,500
of them held the server's connections for 40 s and more. Here a request must
arrive whole (its head and its body) within `REQUEST_DEADLINE_S` of the
connection opening, or of its first byte on a kept-alive connection: a
deadline for the whole request, not per byte. At most `MAX_HALF_OPEN`
connections may wait for their request at once; a new connection past that
closes the one that has waited longest, so a client that sends its request
at once is served however many trickle (the socket host does the same,
`service/rpc/trickle.py`).

A subclass of uvicorn's h11 protocol (`uvicorn.run(http=...)`): what it adds
is when a request counts as arrived, read from h11's own state.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("jiyi.service.mcp")

REQUEST_DEADLINE_S = 10.0
"""Seconds a request may take to arrive whole (an MCP request over loopback takes milliseconds)."""

MAX_HALF_OPEN = 256
"""Connections that may wait for their request at once; past it, the one waiting longest is closed."""

TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
    b"content-length: %d\r\n\r\n%s"
)


class HalfOpen:
    """The connections whose request has not arrived whole, the longest waiting first."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.waiting: dict[GuardedH11, float] = {}  # insertion order is the order they began waiting
        self.closed = 0  # connections closed for a late request or to make room

    def begin(self, connection: GuardedH11) -> None:
        while len(self.waiting) >= self.cap:
            oldest = next(iter(self.waiting))
            self.end(oldest)
            oldest.give_up("the server holds too many unfinished requests and this one waited longest")
        self.waiting[connection] = time.monotonic()

    def end(self, connection: GuardedH11) -> None:
        self.waiting.pop(connection, None)

    def note_closed(self, reason: str) -> None:
        """Count a connection closed for a late request; logged at the 1st, 10th, 100th … (not one line each)."""
        self.closed += 1
        if self.closed in (1, 10, 100, 1000) or self.closed % 10000 == 0:
            log.warning(
                "closed %d HTTP connections whose request did not arrive in time (the last: %s)", self.closed, reason
            )


def guarded_protocol(deadline_s: float = REQUEST_DEADLINE_S, max_half_open: int = MAX_HALF_OPEN) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a deadline for each request to arrive and a cap on those still arriving."""
    half_open = HalfOpen(max_half_open)

    class Guarded(GuardedH11):
        deadline = deadline_s
        pending = half_open

    return Guarded


class GuardedH11(H11Protocol):
    """One HTTP connection; `deadline` and `pending` are set by `guarded_protocol`."""

    deadline: float
    pending: HalfOpen

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]  # uvicorn's own narrower type
        self._begin()  # a connection that sends nothing is waiting for its request too

    def data_received(self, data: bytes) -> None:
        if self._timer is None and self.conn.their_state is h11.IDLE:
            self._begin()  # the next request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._end()  # arrived whole (DONE), or the connection is ending

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()
        super().connection_lost(exc)

    def _begin(self) -> None:
        self._end()
        self.pending.begin(self)
        self._timer = self.loop.call_later(self.deadline, self._late)

    def _end(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.pending.end(self)

    def _late(self) -> None:
        self._timer = None
        self.pending.end(self)
        self.give_up(f"its request did not arrive whole within {self.deadline:g} s")

    def give_up(self, reason: str) -> None:
        """Close the connection, telling the client why (408) when no answer has begun on it."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.transport.is_closing():
            return
        self.pending.note_closed(reason)
        if self.conn.our_state is h11.IDLE or self.conn.our_state is h11.SEND_RESPONSE:  # no answer begun
            body = f"{reason}; closing the connection\n".encode()
            self.transport.write(TIMED_OUT % (len(body), body))
        self.transport.close()
