"""The host's write lane: grouped writes queue here and commit together (`service.memory.group`).

The writes arrive prepared (checked, filtered, their params read: see
`Dispatcher.prepare_write`), on the host's worker threads and outside the
lock. One thread takes whatever prepared writes are waiting (at most
`write_group`, a setting), runs them in one write transaction and, only after it
committed, hands each its own reply. While a group commits, the next
requests queue up, so the busier the host, the more writes share one
turn of the write lock. A connection has at most one request under way, so
each connection's requests are still answered in order.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from service.memory.group import Outcome, run_group
from service.rpc.dispatch import Dispatcher, PreparedWrite
from service.rpc.protocol import INTERNAL_MESSAGE, Request, encode, failure

log = logging.getLogger("jiyi.service.rpc")

_Queued = tuple[int, Request, PreparedWrite]
"""A connection's number, its request and the request's prepared write."""
Deliver = Callable[[int, bytes], None]
"""Where a reply goes: the connection's number and the encoded reply line."""


class WriteLane:
    """A thread running queued write requests in groups; `stop` finishes the queued ones first."""

    def __init__(self, dispatcher: Dispatcher, deliver: Deliver, most: int) -> None:
        self._dispatcher = dispatcher
        self._most = most
        self._deliver = deliver
        self._queue: queue.SimpleQueue[_Queued | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="jiyi-write-lane", daemon=True)
        self._thread.start()

    def submit(self, number: int, request: Request, write: PreparedWrite) -> None:
        """Queue the prepared `write` of connection `number`'s request; its reply is delivered after its group
        commits."""
        self._queue.put((number, request, write))

    def stop(self) -> None:
        """Run what is queued, then end the thread (and wait for it)."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < self._most:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            self._serve(batch)

    def _serve(self, batch: list[_Queued]) -> None:
        """Run one group and deliver every reply, whatever happens (each request gets exactly one)."""
        replies: list[bytes] = []
        try:
            outcomes = run_group(self._dispatcher.memory.parts, [write for _, _, write in batch])
            replies = [
                self._reply(request, write, outcome)
                for (_, request, write), outcome in zip(batch, outcomes, strict=True)
            ]
        except Exception:
            log.exception("a group of %d writes could not be run", len(batch))
            replies = [encode(failure(request.id, "internal", INTERNAL_MESSAGE)) for _, request, _ in batch]
        finally:
            for (number, _, _), reply in zip(batch, replies, strict=False):
                self._deliver(number, reply)

    def _reply(self, request: Request, write: PreparedWrite, outcome: Outcome) -> bytes:
        if outcome.error is None:
            return encode(self._dispatcher.succeeded(request, outcome.value, write.changes))
        return encode(self._dispatcher.failed(request, outcome.error))
