"""Change notices from the service: one connection that subscribed, read on a thread of its own.

After `changes.subscribe` the service sends this connection a line
`{"notice": "changed", "domains": [...], "generation": n}` after every burst
of committed changes (`docs/protocol.md`). When the connection drops (the
service restarted), the reader connects again every `RETRY_S` and then reports
every domain as changed, since it cannot know what it missed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
from collections.abc import Callable
from pathlib import Path

from service.client import Channel, open_channel
from service.memory.domain import Domain

log = logging.getLogger("jiyi.service.remote")

RETRY_S = 1.0
CONNECT_TIMEOUT_S = 5.0
EVERY_DOMAIN = tuple(Domain)
"""What a reader reports as changed after it lost the service for a while."""


class NoticeReader:
    """Calls `changed(domains, generation)` on its own thread for every notice, `connected(state)` when that moves."""

    def __init__(
        self,
        socket_path: Path,
        changed: Callable[[list[str], int], None],
        connected: Callable[[bool], None] | None = None,
    ) -> None:
        self.socket_path = socket_path
        self._changed = changed
        self._connected = connected
        self._stop = threading.Event()
        self._sock: Channel | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="jiyi-notices", daemon=True)
        self.is_connected = False
        self.subscribed = threading.Event()
        """Set once the first subscription was answered (tests and callers may wait on it)."""

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop reading and close the connection (the service goes on)."""
        self._stop.set()
        with self._lock:
            if self._sock is not None:
                with contextlib.suppress(OSError):  # already closed by the other side
                    self._sock.shutdown(socket.SHUT_RDWR)
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        missed = False
        while not self._stop.is_set():
            try:
                self._follow(missed)
            except (OSError, ValueError) as exc:
                log.debug("change notices from %s stopped: %s", self.socket_path, exc)
            self._set_connected(False)
            missed = True
            self._stop.wait(RETRY_S)

    def _follow(self, missed: bool) -> None:
        if self._stop.is_set():
            return
        sock = open_channel(self.socket_path, CONNECT_TIMEOUT_S)  # a Unix socket, or Windows's named pipe
        with self._lock:
            if self._stop.is_set():
                sock.close()
                return
            self._sock = sock
        try:
            sock.sendall(b'{"id":"notices","v":1,"method":"changes.subscribe"}\n')
            sock.settimeout(None)  # notices come when something changes: waiting long is normal
            buffer = b""
            answered = False
            while not self._stop.is_set():
                chunk = sock.recv(65536)
                if not chunk:
                    raise ConnectionError("the service closed the connection")
                buffer += chunk
                while b"\n" in buffer:
                    line, _, buffer = buffer.partition(b"\n")
                    message = json.loads(line.decode("utf-8"))
                    if not answered:
                        answered = self._subscribed(message, missed)
                    elif isinstance(message, dict) and message.get("notice") == "changed":
                        domains = [d for d in message.get("domains", []) if isinstance(d, str)]
                        self._changed(domains, int(message.get("generation") or 0))
        finally:
            with self._lock:
                self._sock = None
            sock.close()

    def _subscribed(self, message: object, missed: bool) -> bool:
        if not isinstance(message, dict) or not message.get("ok"):
            raise ValueError(f"the service refused change notices: {message!r}")
        self._set_connected(True)
        self.subscribed.set()
        if missed:
            self._changed(list(EVERY_DOMAIN), int(message["result"].get("generation") or 0))
        return True

    def _set_connected(self, state: bool) -> None:
        if state != self.is_connected:
            self.is_connected = state
            if self._connected is not None:
                self._connected(state)


class Listeners:
    """Who hears a remote home's change notices: the reader starts with the first listener, on its own thread,
    and calls each listener `listener(domain, generation)` for every domain a notice names."""

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        self._listeners: list[Callable[[str, int], None]] = []
        self._lock = threading.Lock()
        self.reader: NoticeReader | None = None

    def add(self, listener: Callable[[str, int], None]) -> None:
        with self._lock:
            self._listeners.append(listener)
            if self.reader is None:
                self.reader = NoticeReader(self.socket_path, self._notify)
                self.reader.start()

    def remove(self, listener: Callable[[str, int], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    @property
    def connected(self) -> bool:
        """Whether the service answers change notices now (True until they are asked for)."""
        reader = self.reader
        return reader is None or reader.is_connected or not reader.subscribed.is_set()

    def _notify(self, domains: list[str], generation: int) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for domain in domains:
            for listener in listeners:
                listener(domain, generation)

    def stop(self) -> None:
        if self.reader is not None:
            self.reader.stop()
            self.reader = None
