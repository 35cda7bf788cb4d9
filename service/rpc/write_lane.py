"""The host's write lane: grouped writes queue here and commit together (`service.memory.group`).

One thread takes whatever grouped write requests are waiting (at most
`MAX_GROUP`), runs them in one write transaction and, only after it
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

from service.memory.group import MAX_GROUP, Outcome, run_group
from service.rpc.dispatch import Dispatcher
from service.rpc.protocol import INTERNAL_MESSAGE, Request, encode, failure

log = logging.getLogger("jiyi.service")

Deliver = Callable[[int, bytes], None]
"""Where a reply goes: the connection's number and the encoded reply line."""


class WriteLane:
    """A thread running queued write requests in groups; `stop` finishes the queued ones first."""

    def __init__(self, dispatcher: Dispatcher, deliver: Deliver) -> None:
        self._dispatcher = dispatcher
        self._deliver = deliver
        self._queue: queue.SimpleQueue[tuple[int, Request] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="jiyi-write-lane", daemon=True)
        self._thread.start()

    def submit(self, number: int, request: Request) -> None:
        """Queue the request of connection `number`; its reply is delivered after its group commits."""
        self._queue.put((number, request))

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
            while len(batch) < MAX_GROUP:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            self._serve(batch)

    def _serve(self, batch: list[tuple[int, Request]]) -> None:
        """Run one group and deliver every reply, whatever happens (each request gets exactly one)."""
        replies: list[bytes] = []
        try:
            calls = [self._dispatcher.call_of(request) for _, request in batch]
            outcomes = run_group(self._dispatcher.memory.parts, calls)
            replies = [self._reply(request, outcome) for (_, request), outcome in zip(batch, outcomes, strict=True)]
        except Exception:
            log.exception("a group of %d writes could not be run", len(batch))
            replies = [encode(failure(request.id, "internal", INTERNAL_MESSAGE)) for _, request in batch]
        finally:
            for (number, _), reply in zip(batch, replies, strict=False):
                self._deliver(number, reply)

    def _reply(self, request: Request, outcome: Outcome) -> bytes:
        if outcome.error is None:
            return encode(self._dispatcher.succeeded(request, outcome.value))
        return encode(self._dispatcher.failed(request, outcome.error))
