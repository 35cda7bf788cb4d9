"""Change notices across hosts: PostgreSQL's LISTEN/NOTIFY carries every commit of a shared store.

Each write transaction on a shared store ends with a NOTIFY on `CHANNEL`
(see `Store.atomic`), delivered by the server only when the transaction
commits, naming the store that wrote (`origin`) and the newest event of each
domain it changed. A `ChangeFeed` listens on a connection of its own and
hands every other host's change to `on_change(domain, seq, types)`, so a console on
host A refreshes when an agent on host B writes, and caches keyed on the
change bus are dropped. When its connection drops it connects again and
calls `on_resync()`: notices sent in between are lost, so everything is
assumed changed.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("jiyi.store.pg")

CHANNEL = "jiyi_changes"
RETRY_SECONDS = 1.0


Changed = Callable[[str, int, frozenset[str]], None]
"""What hears another host's commit: the domain, its newest event, and the event types the commit appended."""


def notice(origin: str, domains: dict[str, int], types: list[str]) -> str:
    """The payload of one commit's notice."""
    return json.dumps({"origin": origin, "domains": domains, "types": types}, sort_keys=True)


class ChangeFeed:
    """A thread listening for other hosts' commits; `stop` ends it (and waits for it)."""

    def __init__(
        self,
        connect: Callable[[], Any],
        origin: str,
        on_change: Changed,
        on_resync: Callable[[], None],
    ) -> None:
        self._connect = connect
        self._origin = origin
        self._on_change = on_change
        self._on_resync = on_resync
        self._stopping = threading.Event()
        self._listening = threading.Event()
        self.backend_pid: int | None = None  # the server process listening (for an operator, or a test, to find)
        self._thread = threading.Thread(target=self._run, name="jiyi-change-feed", daemon=True)

    def start(self, timeout: float = 10.0) -> None:
        """Start listening; returns once LISTEN is in place (or after `timeout`, retrying in the background)."""
        self._thread.start()
        self._listening.wait(timeout)

    @property
    def listening(self) -> bool:
        return self._listening.is_set()

    def stop(self) -> None:
        """Stop listening: a notice of this host's own (which `_deliver` ignores) wakes the listener at once,
        instead of it finding out at the end of its half-second wait."""
        self._stopping.set()
        if self._listening.is_set() and self._thread.is_alive():
            try:
                with self._connect() as conn:
                    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, notice(self._origin, {}, [])))
            except Exception as exc:  # the server is gone: the listener ends on its own
                log.debug("could not wake the change listener (%s)", str(exc).splitlines()[0])
        self._thread.join(timeout=10)

    def _run(self) -> None:
        first = True
        while not self._stopping.is_set():
            try:
                with self._connect() as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.backend_pid = conn.info.backend_pid
                    self._listening.set()
                    if not first:
                        self._on_resync()
                    first = False
                    while not self._stopping.is_set():
                        for note in conn.notifies(timeout=0.5, stop_after=100):
                            if self._stopping.is_set():
                                break
                            self._deliver(note.payload)
            except Exception as exc:  # the server went away: listen again once it is back
                self._listening.clear()
                self.backend_pid = None
                if self._stopping.is_set():
                    return
                log.warning("change notices from other hosts paused (%s); retrying", str(exc).splitlines()[0])
                self._stopping.wait(RETRY_SECONDS)

    def _deliver(self, payload: str) -> None:
        try:
            data = json.loads(payload)
            origin, domains, types = data["origin"], data["domains"], frozenset(map(str, data.get("types", [])))
        except (ValueError, KeyError, TypeError):
            log.warning("an unreadable change notice was ignored: %r", payload[:200])
            return
        if origin == self._origin or not isinstance(domains, dict):
            return
        for domain, seq in domains.items():
            try:
                self._on_change(str(domain), int(seq), types)
            except Exception:
                log.exception("a change notice could not be delivered")
