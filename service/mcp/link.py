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
import json
import logging
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service.config import Config
from service.ops.declare import Operation
from service.remote.attach import configured_socket, find_service, serves, service_on_socket
from service.remote.channel import Wire
from service.remote.private import PrivateService, ServiceDidNotStart
from service.remote.wire import Unreachable
from store.core.errors import EnvironmentProblem, ErrorCode, InvalidInput

log = logging.getLogger("jiyi.service.mcp")

RECLAIM_S = 10.0
"""How long a service this process attached to may stay away before it starts a private one: long enough for
a `jiyi serve` being restarted to come back (it is picked up then), short enough that an agent whose service
went for good (another window's `jiyi mcp`, which had started it, closed) is not without memory for long."""


class ServiceAway(EnvironmentProblem):
    """The home's service is starting, restarting or too busy to answer: the same call made again shortly may
    succeed (the link picks the service up again, or starts a private one)."""


class NoService(EnvironmentProblem):
    """No service can serve the home from here until the person changes something: the socket answers for
    another home, or the home, its socket or its settings were refused. Calling again does not help."""

    def __init__(self, message: str, code: ErrorCode = "unavailable") -> None:
        super().__init__(message)
        self.code = code


class ServiceLink:
    """Calls on the home's service from any thread; failures raised as Jiyi's errors (`service.remote.wire`),
    the service's absence as `ServiceAway` (a retry helps) or `NoService` (it does not)."""

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
        """Find the service (or start a private one) now; `ServiceAway` or `NoService` when neither works."""
        with self._lock:
            self._ensure()

    def call(self, operation: Operation[Any, Any], params: Mapping[str, object]) -> Any:
        """The operation's result; `InvalidInput` for a request larger than the service takes, `ServiceAway`
        when the service cannot be reached now (a read is tried once more after a private service was started
        again), `NoService` when none can serve the home."""
        fits(operation, params, self.config.max_line_bytes)
        with self._lock:
            wire = self._ensure()
        try:
            result = wire.call(operation.name, params, writes=operation.writes)
        except Unreachable as exc:
            if not self._lost() or operation.writes:
                raise ServiceAway(f"{exc} ({self._whereabouts()})") from None
            with self._lock:
                wire = self._ensure()
            try:
                result = wire.call(operation.name, params, writes=operation.writes)
            except Unreachable as again:
                self._lost()
                raise ServiceAway(f"{again} ({self._whereabouts()})") from None
        self._away_since = None
        return result

    def _ensure(self) -> Wire:
        if self._wire is not None:
            return self._wire
        found = _find(self.config)
        if found is None and self._should_start():
            self._refuse_another_homes_socket()
            log.info("no Jiyi service serves %s: starting a private one", self.config.home_path)
            try:
                self._private, _ = PrivateService.start(self.config, owner="jiyi mcp")
            except ServiceDidNotStart as exc:
                found = _find(self.config)  # another process started one meanwhile (ours found the home locked)
                if found is None:
                    raise self._not_started(exc) from None
            except EnvironmentProblem as exc:  # the home refused before anything started (its mode, its owner)
                raise NoService(f"jiyi mcp cannot serve {self.config.home_path}: {exc}", exc.code) from None
            else:
                found = self.socket_path
        if found is None:
            raise ServiceAway(
                f"no Jiyi service answers on {self.socket_path} for {self.config.home_path} ({self._whereabouts()})"
            )
        self._wire = Wire(found, hello="agent")
        return self._wire

    def _refuse_another_homes_socket(self) -> None:
        """`NoService` when the socket is served for another home: a service started for this one could not
        listen there, and retrying never changes that."""
        with contextlib.suppress(OSError):
            other = service_on_socket(self.config)
            if other is not None and not serves(other[1], self.config):
                home = self.config.home_path
                raise NoService(
                    f"the Jiyi service on {self.socket_path} serves the home {other[1].get('home')}, not {home}: "
                    f"give {home} a socket of its own (JIYI_SOCKET in the MCP client's settings, which "
                    "`jiyi mcp --print-config CLIENT` writes, or `socket` in its config.toml), or point jiyi mcp "
                    "at that home with --home"
                )

    def _not_started(self, exc: ServiceDidNotStart) -> EnvironmentProblem:
        if exc.exit_code is None:  # it did not answer in time: a large home may still be opening
            return ServiceAway(f"{exc} (a large home may take longer to open the first time)")
        return NoService(
            f"jiyi mcp could not start a Jiyi service for {self.config.home_path}: {exc}; calling again does not "
            "help until that is put right"
        )

    def _whereabouts(self) -> str:
        """What happens next while the service is away, for the error an agent reads."""
        if self._private is not None:
            return "the service jiyi mcp started is started again at the next call"
        if self._away_since is None:
            return "jiyi mcp starts one at the next call"
        left = max(0.0, RECLAIM_S - (time.monotonic() - self._away_since))
        if left <= 0:
            return "jiyi mcp starts one of its own at the next call"
        return f"picked up as soon as it is back; after {left:.0f} s more without it, jiyi mcp starts its own"

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


def fits(operation: Operation[Any, Any], params: Mapping[str, object], limit: int) -> None:
    """`InvalidInput` naming the limit when the request for `operation` would be longer than the service's
    longest request line (`max_line_bytes`): it would close the connection on it, and no retry helps."""
    request = {"id": 1 << 31, "v": 1, "method": operation.name, "params": params}
    try:
        size = len(json.dumps(request, ensure_ascii=False).encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput("the arguments hold a lone surrogate (\\ud800-\\udfff without its pair): not text") from None
    if size > limit:
        raise InvalidInput(
            f"the arguments make a request of {size:,} bytes, over the memory service's limit of {limit:,} bytes "
            "per request (its max_line_bytes setting): send less text"
        )


def _find(config: Config) -> Path | None:
    with contextlib.suppress(OSError):
        found = find_service(config)
        return found[0] if found is not None else None
    return None
