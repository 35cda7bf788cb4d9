"""The change bus: who is told when a write commits, and the generation counter caches key on.

Every committed write ends in `publish`, called only through `Parts.changed`
(which holds a group commit's changes back until the group committed); others
read the bus through its `BusView`. The generation moves under the bus's
lock, so two writers on two socket workers never lose an increment (a cache
keyed on a lost increment would look fresh when it is not).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("jiyi.service.memory")

Listener = Callable[[str, int], None]


class ChangeBus:
    """Listeners of committed changes, and a counter that moves on every one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = 0
        self._listeners: list[Listener] = []

    @property
    def generation(self) -> int:
        """How many changes were published; a cache built at generation g is fresh while this is g."""
        with self._lock:
            return self._generation

    @property
    def listener_count(self) -> int:
        """How many listeners are registered (a closed window's feed must not stay among them)."""
        with self._lock:
            return len(self._listeners)

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(domain, txn)` after every committed change (on the writer's thread)."""
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def publish(self, domain: str, txn: int) -> None:
        """A change to `domain` committed as transaction `txn`. A failing listener is logged, not raised."""
        with self._lock:
            self._generation += 1
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(domain, txn)
            except Exception:
                log.exception("a change listener failed")


class BusView:
    """What the rest of the service may read of the bus: its generation and how many listen."""

    def __init__(self, bus: ChangeBus) -> None:
        self._bus = bus

    @property
    def generation(self) -> int:
        return self._bus.generation

    @property
    def listener_count(self) -> int:
        return self._bus.listener_count
