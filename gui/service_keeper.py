"""Keep an attached console served: when its service is gone for good, start a private one in its place.

An attached console loses its service when that service stops: a `jiyi serve`
someone stopped, the private service of another console that closed, or this
console's own private service that died. The console's connections try the
socket again every second on their own; if nothing answers it for
`TAKE_OVER_AFTER_S`, the console starts a private service for the home on the
same socket (as it does when it opens a home no service owns), and its
connections find that one. Two consoles that lose the same service both try:
one child wins the home's lock, the other exits, and both consoles end up
attached to the winner.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from service.config import Config
from service.errors import JiyiError
from service.remote.attach import find_service
from service.remote.private import PrivateService

log = logging.getLogger("jiyi.gui")

TAKE_OVER_AFTER_S = 3.0  # a service restarting (systemd, an upgrade) is back well within this
RETRY_AFTER_S = 30.0  # after a failed start: the reason stays shown, the next try waits this long


class ServiceKeeper:
    """Decides when an attached console starts a private service; the starting runs where `run` puts it."""

    def __init__(self, config: Config, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clock = clock
        self.private: PrivateService | None = None  # the latest private service this console started
        self.problem: str | None = None  # why the last start failed
        self._lost_since: float | None = None
        self._not_before = 0.0
        self.starting = False

    def due(self, connected: bool) -> bool:
        """Whether to start a private service now, told whether the console's connections reach a service."""
        now = self.clock()
        if connected:
            self._lost_since = None
            return False
        if self._lost_since is None:
            self._lost_since = now
        return not self.starting and now - self._lost_since >= TAKE_OVER_AFTER_S and now >= self._not_before

    def take_over(self) -> PrivateService | None:
        """Start a private service unless something serves the home again (blocking: seconds). None when
        none was started: a service answers, or another console's child won the home (see `problem`)."""
        try:
            if find_service(self.config) is not None:
                return None
            started, _health = PrivateService.start(self.config)
        except (JiyiError, OSError) as exc:
            self.problem = str(exc)
            self._not_before = self.clock() + RETRY_AFTER_S
            log.warning("no service answers for this home, and a private one did not start: %s", exc)
            return None
        self.problem = None
        self.private = started
        log.info("the home's service was gone: started a private one (pid %d)", started.pid)
        return started
