"""How the socket host's connections move bytes: its part of the platform seam (`service/platform/`).

Both transports hand the host (`service/rpc/host.py`) an `Endpoint` per accepted client: bytes in and out
without ever blocking, and a `watch` that tells the loop which of the two the host wants next. Everything above
them (one reply per request, bounded buffers, the connection cap, timeouts: `connection.py`, `host.py`) is the
same on every platform.

- `descriptors` (Unix: Linux, macOS): the host reads and writes the accepted descriptor itself, woken by
  `QSocketNotifier`s. Why not `QLocalSocket` there: on Unix it is a `QAbstractSocket`, which closes the
  descriptor as soon as a read returns end-of-file, so a client that shut down only its sending side
  (`shutdown(SHUT_WR)`) could never read the replies to what it sent; and its write buffer grows without bound.
- `local-socket` (Windows, where the service listens on a named pipe and descriptors are not sockets): Qt's
  `QLocalSocket`, held to the same limits. Its read buffer is capped (`READ_BUFFER`: Qt reads no more from the
  pipe until the host takes what it holds), and the host writes into it only while it holds less than
  `WRITE_WINDOW` bytes, so a client that does not read its replies stops being read, as on Unix. A pipe has no
  half-close: a client that closes its end has closed the connection. The same code runs over a Unix socket,
  so its tests run on Linux (tests/service/test_local_socket_transport.py).
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Callable
from typing import Literal, Protocol

from PySide6.QtCore import QObject, QSocketNotifier, QTimer
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger("jiyi.service.rpc")

Transport = Literal["descriptors", "local-socket"]
DEFAULT: Transport = "local-socket" if sys.platform == "win32" else "descriptors"

READ_BUFFER = 1 << 16
"""Bytes Qt's local socket reads ahead of the host (as much as the host reads per wake-up: `connection.CHUNK`)."""

WRITE_WINDOW = 1 << 16
"""Reply bytes the host lets Qt's local socket hold unsent; the rest waits in the connection's bounded outbox."""

CLOSE_GRACE_MS = 5000
"""How long a closed local socket may take to hand Qt's last bytes to a client before it is cut."""


class Endpoint(Protocol):
    """One accepted client, as the host drives it from its loop."""

    def recv(self, size: int, /) -> bytes:
        """Up to `size` bytes the client sent; b"" at end-of-file; `BlockingIOError` when none is there yet;
        `OSError` when the connection broke."""
        ...

    def send(self, data: bytes | bytearray, /) -> int:
        """Hand the client as much of `data` as fits now (bytes taken); `BlockingIOError` when none fits."""
        ...

    def bind(self, readable: Callable[[], None], writable: Callable[[], None]) -> None:
        """Call `readable` or `writable` on the loop when the connection can read or write (as `watch` asks)."""
        ...

    def watch(self, read: bool, write: bool) -> None:
        """Which of the two the host wants now: only those wake it."""
        ...

    def close(self) -> None:
        """Stop watching and close the connection (what was sent still reaches the client)."""
        ...


def listener(transport: Transport, accepted: Callable[[Endpoint], None], parent: QObject) -> QLocalServer:
    """The `QLocalServer` that hands each accepted client to `accepted` over `transport`."""
    if transport == "descriptors":
        return _DescriptorListener(accepted, parent)
    return _LocalSocketListener(accepted, parent)


# -- descriptors (Unix) ------------------------------------------------------------------------------------------


class _DescriptorListener(QLocalServer):
    """Hands each accepted descriptor to the host as a non-blocking socket, not wrapped in a `QLocalSocket`."""

    def __init__(self, accepted: Callable[[Endpoint], None], parent: QObject) -> None:
        super().__init__(parent)
        self._accepted = accepted

    def incomingConnection(self, socketDescriptor: int) -> None:  # Qt override, Qt names
        descriptor = int(socketDescriptor)
        try:
            sock = socket.socket(fileno=descriptor)
            sock.setblocking(False)
        except OSError as exc:
            os.close(descriptor)
            log.warning("dropping a connection Qt accepted: %s", exc)
            return
        self._accepted(DescriptorEndpoint(sock, self))


class DescriptorEndpoint:
    """An accepted Unix socket, read and written by the host, woken by level-triggered `QSocketNotifier`s."""

    def __init__(self, sock: socket.socket, parent: QObject) -> None:
        self.sock = sock
        self._parent = parent
        self._reader: QSocketNotifier | None = None
        self._writer: QSocketNotifier | None = None
        self.recv = sock.recv  # the socket's own methods: no call in between on the host's busiest path
        self.send = sock.send

    def bind(self, readable: Callable[[], None], writable: Callable[[], None]) -> None:
        descriptor = self.sock.fileno()
        self._reader = QSocketNotifier(descriptor, QSocketNotifier.Type.Read, self._parent)
        self._writer = QSocketNotifier(descriptor, QSocketNotifier.Type.Write, self._parent)
        self._writer.setEnabled(False)
        self._reader.activated.connect(lambda *_: readable())
        self._writer.activated.connect(lambda *_: writable())

    def watch(self, read: bool, write: bool) -> None:
        # Level-triggered: a reader left on after end-of-file, or a writer with nothing to write, would fire on
        # every turn of the loop; a reader left on while the client's replies pile up would read without bound.
        if self._reader is not None and self._writer is not None:
            self._reader.setEnabled(read)
            self._writer.setEnabled(write)

    def close(self) -> None:
        # A notifier must be off before its descriptor is closed: the number may be reused at once.
        for notifier in (self._reader, self._writer):
            if notifier is not None:
                notifier.setEnabled(False)
                notifier.deleteLater()
        self._reader = self._writer = None
        self.sock.close()


# -- Qt's local socket (Windows) ---------------------------------------------------------------------------------


class _LocalSocketListener(QLocalServer):
    """Hands each pending `QLocalSocket` to the host."""

    def __init__(self, accepted: Callable[[Endpoint], None], parent: QObject) -> None:
        super().__init__(parent)
        self._accepted = accepted
        self.newConnection.connect(self._take)

    def _take(self) -> None:
        while (client := self.nextPendingConnection()) is not None:
            self._accepted(LocalSocketEndpoint(client))


class LocalSocketEndpoint:
    """A `QLocalSocket` held to the host's limits (see the module's docstring).

    Qt's signals say when something new happened (bytes arrived, bytes were written), not what is there, so
    `watch` looks at once: what Qt already holds, or room Qt already has, wakes the host on the next turn of
    the loop, as a level-triggered notifier would.
    """

    def __init__(self, client: QLocalSocket) -> None:
        self.client = client
        client.setReadBufferSize(READ_BUFFER)
        self._readable: Callable[[], None] = _nothing
        self._writable: Callable[[], None] = _nothing
        self._read = self._write = False
        self._poke_due = False
        self._closed = False
        self._bound = False

    def bind(self, readable: Callable[[], None], writable: Callable[[], None]) -> None:
        self._readable, self._writable, self._bound = readable, writable, True
        self.client.readyRead.connect(self._arrived)
        self.client.disconnected.connect(self._gone)
        self.client.bytesWritten.connect(self._drained)

    def recv(self, size: int, /) -> bytes:
        if self.client.bytesAvailable() > 0:
            return bytes(self.client.read(size).data())
        if self._ended():
            return b""
        raise BlockingIOError

    def send(self, data: bytes | bytearray, /) -> int:
        if self._ended():
            raise BrokenPipeError("the client closed the connection")
        room = WRITE_WINDOW - int(self.client.bytesToWrite())
        if room <= 0:
            raise BlockingIOError
        taken = int(self.client.write(bytes(data[:room])))
        if taken < 0:
            raise OSError(self.client.errorString())
        self.client.flush()
        return taken

    def watch(self, read: bool, write: bool) -> None:
        self._read, self._write = read, write
        if self._ready() and not self._poke_due:
            self._poke_due = True
            QTimer.singleShot(0, self.client, self._poke)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._read = self._write = False
        client = self.client
        if self._bound:
            client.readyRead.disconnect(self._arrived)
            client.disconnected.disconnect(self._gone)
            client.bytesWritten.disconnect(self._drained)
        if client.state() == QLocalSocket.LocalSocketState.UnconnectedState:
            client.deleteLater()
            return
        client.disconnected.connect(client.deleteLater)
        client.disconnectFromServer()  # what Qt still holds is written first
        QTimer.singleShot(CLOSE_GRACE_MS, client, client.abort)  # a client that never reads is cut

    def _ended(self) -> bool:
        return self.client.state() != QLocalSocket.LocalSocketState.ConnectedState

    def _ready(self) -> bool:
        if self._closed:
            return False
        readable = self._read and (self.client.bytesAvailable() > 0 or self._ended())
        writable = self._write and (self._ended() or self.client.bytesToWrite() < WRITE_WINDOW)
        return readable or writable

    def _poke(self) -> None:
        self._poke_due = False
        if self._closed:
            return
        if self._read and (self.client.bytesAvailable() > 0 or self._ended()):
            self._readable()
        elif self._write:
            self._writable()

    def _arrived(self) -> None:
        if self._read and not self._closed:
            self._readable()

    def _gone(self) -> None:
        """The client went (it closed, or a write to it failed): whichever the host waits for learns it, a read
        as end-of-file, a write as a broken pipe. A host that stopped reading a client that reads nothing (its
        replies at their cap) waits only to write, and would otherwise never hear of it."""
        if self._closed:
            return
        if self._read:
            self._readable()
        elif self._write:
            self._writable()

    def _drained(self, _written: int) -> None:
        if self._write and not self._closed:
            self._writable()


def _nothing() -> None:
    """What an endpoint calls before the host bound it."""
