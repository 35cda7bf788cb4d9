"""Who the socket serves, and how busy they keep it (the socket's `service.status`).

Requests are counted by the kind of connection that sent them: a console
polls the service every few seconds and follows its changes, and alone it
made an idle service look busy (15–68 requests a minute); agents' requests
are told apart from the console's own.

The socket host tells it of each connection that opens and closes and of each
request served; the handlers of `client.hello` and `changes.subscribe` say
what a connection is (a console, a command, an agent; only consoles
subscribe), through their call context (`service/rpc/context.py`). A
connection that never names itself counts as an agent: the seed 002 clients
and the agents' own clients say nothing about themselves.

It also knows which connections act as the person: those whose `client.hello`
presented the person's key, the secret the service wrote in its home when it
started (`service/person_key.py`). The console and the `jiyi` commands read
that file and present it; agents are never handed it. Keys are compared in
constant time, and never logged or echoed.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections import deque
from typing import TypedDict

from service.ops.status import KINDS


class Counts(TypedDict):
    connections: int
    by_kind: dict[str, int]  # every kind of `KINDS`, zero included
    requests_last_minute: int
    requests_by_kind: dict[str, int]  # the last minute's requests by the kind of connection that sent them


class Presence:
    """The open connections by kind and the requests of the last minute; safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kinds: dict[int, str] = {}
        self._served: deque[tuple[float, str]] = deque()  # when each request was answered, and for what kind
        self._person_key: bytes | None = None
        self._persons: set[int] = set()  # connections that presented the person's key
        self._refused: set[int] = set()  # connections that presented another key

    def reset(self) -> None:
        """Forget everything (a host starts serving)."""
        with self._lock:
            self._kinds.clear()
            self._served.clear()
            self._persons.clear()
            self._refused.clear()

    def expect_person_key(self, key: str | None) -> None:
        """The person's key this service wrote in its home (None: no connection can act as the person)."""
        with self._lock:
            self._person_key = None if key is None else key.encode("utf-8")
            self._persons.clear()
            self._refused.clear()

    def present_key(self, connection: int, key: str | None) -> bool:
        """The connection presented `key` (None: none): whether it now acts as the person. A wrong key is
        remembered, so that the connection's refusals can say why."""
        presented = None if key is None else key.encode("utf-8", "surrogatepass")
        with self._lock:
            expected = self._person_key
            good = presented is not None and expected is not None and hmac.compare_digest(expected, presented)
            if connection not in self._kinds:
                return good
            self._persons.discard(connection)
            self._refused.discard(connection)
            if good:
                self._persons.add(connection)
            elif presented is not None:
                self._refused.add(connection)
            return good

    def is_person(self, connection: int) -> bool:
        """Whether the connection presented the person's key."""
        with self._lock:
            return connection in self._persons

    def key_refused(self, connection: int) -> bool:
        """Whether the connection presented a key that is not the person's."""
        with self._lock:
            return connection in self._refused

    def opened(self, connection: int) -> None:
        with self._lock:
            self._kinds[connection] = "agent"

    def named(self, connection: int, kind: str) -> None:
        """The connection said what it is (or subscribed to notices: a console)."""
        with self._lock:
            if connection in self._kinds:
                self._kinds[connection] = kind

    def kind_of(self, connection: int) -> str | None:
        """What the connection said it is ("agent" until it says); None for a connection not open."""
        with self._lock:
            return self._kinds.get(connection)

    def closed(self, connection: int) -> None:
        with self._lock:
            self._kinds.pop(connection, None)
            self._persons.discard(connection)
            self._refused.discard(connection)

    def served(self, connection: int) -> None:
        """One request of `connection` was answered (counted as the kind it said it is; one that closed before
        its answer went out, as an agent)."""
        now = time.monotonic()
        with self._lock:
            self._served.append((now, self._kinds.get(connection, "agent")))
            self._forget_before(now - 60)

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self._kinds)

    def requests_last_minute(self) -> int:
        with self._lock:
            self._forget_before(time.monotonic() - 60)
            return len(self._served)

    def snapshot(self) -> Counts:
        """`connections`, `by_kind` (every kind, zero included), `requests_last_minute` and
        `requests_by_kind` (every kind, zero included)."""
        with self._lock:
            self._forget_before(time.monotonic() - 60)
            by_kind, requests = dict.fromkeys(KINDS, 0), dict.fromkeys(KINDS, 0)
            for kind in self._kinds.values():
                by_kind[kind] += 1
            for _when, kind in self._served:
                requests[kind] += 1
            return {
                "connections": len(self._kinds),
                "by_kind": by_kind,
                "requests_last_minute": len(self._served),
                "requests_by_kind": requests,
            }

    def _forget_before(self, cutoff: float) -> None:
        while self._served and self._served[0][0] < cutoff:
            self._served.popleft()
