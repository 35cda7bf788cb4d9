"""What every domain service of `Memory` is built from: the opened store and its shared guards."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from recall.registry import AppRegistry
from service.config import Config
from service.memory.bus import ChangeBus
from store.core.database import Store
from store.core.errors import InvalidInput
from store.core.redact import Redactor

ACTORS = ("user", "agent", "system", "import")


@dataclass(frozen=True)
class Parts:
    """The configuration, the store and the guards that the domain services share.

    `writes` serializes every write (reentrant: a pass such as dream holds it
    across several domain writes); `bus` hears about every commit. While a
    thread runs a group of writes in one transaction (`service.memory.group`),
    its changes are held back and published only once the group committed.
    """

    config: Config
    store: Store
    registry: AppRegistry
    redactor: Redactor
    bus: ChangeBus = field(default_factory=ChangeBus)
    writes: threading.RLock = field(default_factory=threading.RLock)
    _held: threading.local = field(default_factory=threading.local)

    def changed(self, domain: str) -> None:
        """Publish that `domain` changed, naming its latest committed event (after the group's commit, in one)."""
        held: set[str] | None = getattr(self._held, "domains", None)
        if held is not None:
            held.add(domain)
            return
        self.bus.publish(domain, self.store.last_seq(domain))

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
