"""The MCP server's way to the service: attach to the one serving the home, or start a private one.

`jiyi mcp` never opens the store: any number of them (one per agent window)
write through the one owner. When no service serves the home it starts a
private `jiyi serve` as the console does (`service/remote/private.py`),
which ends with this process. A service that goes away and comes back is
picked up by the next call; a private service that died is started again;
a service this process attached to that stays away longer than
`RECLAIM_S` is replaced by a private one.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service.config import Config
from service.ops.declare import Operation
from service.remote.attach import configured_socket, find_service
from service.remote.channel import Wire
from service.remote.private import PrivateService, ServiceDidNotStart
from store.core.errors import EnvironmentProblem

log = logging.getLogger("jiyi.service.mcp")

RECLAIM_S = 10.0
"""How long a service this process attached to may stay away before it starts a private one: long enough for
a `jiyi serve` being restarted to come back (it is picked up then), short enough that an agent whose service
went for good (another window's `jiyi mcp`, which had started it, closed) is not without memory for long."""


class ServiceLink:
    """Calls on the home's service from any thread; failures raised as Jiyi's errors (`service.remote.wire`)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.socket_path: Path = configured_socket(config)
        self._wire: Wire | None = None
        self._private: PrivateService | None = None
        self._lock = threading.Lock()
        self._away_since: float | None = None

    @property
    def private(self) -> PrivateService | None:
        """The service this process started, if it started one."""
        return self._private

    def connect(self) -> None:
        """Find the service (or start a private one) now; `EnvironmentProblem` when neither works."""
        with self._lock:
            self._ensure()

    def call(self, operation: Operation[Any, Any], params: Mapping[str, object]) -> Any:
        """The operation's result; `EnvironmentProblem` when the service cannot be reached (a read is tried
        once more after a private service was started again)."""
        with self._lock:
            wire = self._ensure()
        try:
            result = wire.call(operation.name, params, writes=operation.writes)
        except EnvironmentProblem:
            if not self._lost() or operation.writes:
                raise
            with self._lock:
                wire = self._ensure()
            result = wire.call(operation.name, params, writes=operation.writes)
        self._away_since = None
        return result

    def _ensure(self) -> Wire:
        if self._wire is not None:
            return self._wire
        found = _find(self.config)
        if found is None and self._should_start():
            log.info("no Jiyi service serves %s: starting a private one", self.config.home_path)
            try:
                self._private, _ = PrivateService.start(self.config, owner="jiyi mcp")
            except ServiceDidNotStart:
                found = _find(self.config)  # another process started one meanwhile (ours found the home locked)
                if found is None:
                    raise
            else:
                found = self.socket_path
        if found is None:
            raise EnvironmentProblem(
                f"no Jiyi service answers on {self.socket_path} for {self.config.home_path}; start `jiyi serve` "
                "or the console (jiyi mcp picks it up at the next call)"
            )
        self._wire = Wire(found, hello="agent")
        return self._wire

    def _should_start(self) -> bool:
        """Start a private service: at first, when ours died, or when the one attached to stayed away."""
        if self._private is not None:
            return not self._private.running
        if self._away_since is None:
            return True
        return time.monotonic() - self._away_since > RECLAIM_S

    def _lost(self) -> bool:
        """After a call found no service: forget the connection; True when a new one may serve at once."""
        with self._lock:
            if self._wire is not None:
                self._wire.close()
                self._wire = None
            if self._away_since is None:
                self._away_since = time.monotonic()
            if self._private is not None and not self._private.running:
                self._private.stop(grace_s=0)
                return True
            return False

    def close(self) -> None:
        """Close the connections; stop the private service this process started (its drain first)."""
        with self._lock:
            if self._wire is not None:
                self._wire.close()
                self._wire = None
            private, self._private = self._private, None
        if private is not None:
            private.stop()


def _find(config: Config) -> Path | None:
    with contextlib.suppress(OSError):
        found = find_service(config)
        return found[0] if found is not None else None
    return None
