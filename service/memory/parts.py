"""What every domain service of `Memory` is built from: the opened store and its shared guards."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from recall.registry import AppRegistry
from service.config import Config
from service.memory.bus import BusView, ChangeBus, Listener
from service.memory.domain import Domain
from store.core.database import Store
from store.core.errors import InvalidInput
from store.core.redaction.redactor import Redactor

ACTORS = ("user", "agent", "system", "import")


@dataclass(frozen=True)
class Parts:
    """The configuration, the store and the guards that the domain services share.

    `writes` serializes every write (reentrant: a pass such as dream holds it
    across several domain writes). Every commit is announced through `changed`,
    the one path to the change bus (kept private; `bus` reads it): while a
    thread runs a group of writes in one transaction (`service.memory.group`),
    its changes are held back and published only once the group committed.
    `recording` collects what one call changed (Anki's `OpChanges`): the
    domains announced on its thread while it ran, held back or not.
    """

    config: Config
    store: Store
    registry: AppRegistry
    redactor: Redactor
    _bus: ChangeBus = field(default_factory=ChangeBus)
    writes: threading.RLock = field(default_factory=threading.RLock)
    _held: threading.local = field(default_factory=threading.local)
    _recorders: threading.local = field(default_factory=threading.local)

    @property
    def bus(self) -> BusView:
        """The bus's generation and listener count (publishing goes through `changed`)."""
        return BusView(self._bus)

    @property
    def generation(self) -> int:
        """How many changes were published; a cache built at generation g is fresh while this is g."""
        return self._bus.generation

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(domain, txn)` after every published change (on the writer's thread)."""
        self._bus.add_listener(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._bus.remove_listener(listener)

    def changed(self, domain: Domain | str, seq: int | None = None) -> None:
        """Publish that `domain` changed, naming its latest committed event, or `seq` when the caller knows it
        (a transaction's id, another host's notice). Inside a group of writes it is published after the
        group's commit, once."""
        for recorder in getattr(self._recorders, "stack", ()):
            recorder.add(str(domain))
        held: set[str] | None = getattr(self._held, "domains", None)
        if held is not None:
            held.add(str(domain))
            return
        self._bus.publish(str(domain), self.store.last_seq(domain) if seq is None else seq)

    @contextmanager
    def recording(self) -> Iterator[set[str]]:
        """The domains this thread announces (`changed`) inside the block: what one call changed.

        Recordings nest (an outer one sees what an inner one saw). Changes announced on other threads
        (another host's notices, a job's thread, the desk index behind an acknowledged write) are not
        this call's, and are not recorded."""
        stack: list[set[str]] | None = getattr(self._recorders, "stack", None)
        if stack is None:
            stack = self._recorders.stack = []
        recorded: set[str] = set()
        stack.append(recorded)
        try:
            yield recorded
        finally:
            stack.pop()

    def hold_changes(self) -> None:
        """Hold this thread's changes back until `release_changes` (a group of writes has begun)."""
        self._held.domains = set()

    def release_changes(self, *, publish: bool) -> None:
        """Stop holding changes back; publish the held ones when the group committed."""
        held: set[str] = getattr(self._held, "domains", None) or set()
        self._held.domains = None
        if publish:
            for domain in sorted(held):
                self.changed(domain)


def check_actor(actor: str) -> None:
    """Refuse an actor name outside `ACTORS`."""
    if actor not in ACTORS:
        raise InvalidInput(f"actor must be one of {', '.join(ACTORS)}")
