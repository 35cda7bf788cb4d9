"""The socket host: a `QLocalServer` serving the protocol, in the console or headless.

This is the one module of `service` that uses Qt (QtCore and QtNetwork only).
Lines are read on the Qt event loop and answered on a worker pool, so no
request blocks the loop; each connection's requests are answered in order,
one at a time, while different connections run in parallel. A write's answer
is sent only after its transaction committed.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import signal
import socket
import stat
import sys
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from service.client import default_socket_path
from service.config import Config
from service.memory.memory import Memory
from service.rpc.dispatch import Dispatcher
from service.rpc.protocol import DEFAULT_MAX_LINE, Request, encode, failure
from store.core.errors import EnvironmentProblem, UnsafePath

log = logging.getLogger("jiyi.service")


@dataclass
class _Connection:
    id: int
    socket: QLocalSocket
    buffer: bytearray = field(default_factory=bytearray)
    pending: deque[bytes] = field(default_factory=deque)
    busy: bool = False
    closing: bool = False


def prepare_socket_dir(path: Path) -> None:
    """Create the socket's folder private (0700) or check that it is private and ours."""
    folder = path.parent
    if not folder.exists():
        folder.mkdir(mode=0o700, parents=True)
    info = folder.lstat()
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UnsafePath(f"socket folder {folder} is not a plain directory")
    if info.st_uid != os.geteuid():
        raise UnsafePath(f"socket folder {folder} belongs to uid {info.st_uid}, not to you")
    if info.st_mode & 0o022:
        raise UnsafePath(f"socket folder {folder} is writable by others; run: chmod 700 {folder}")


def probe(path: Path, timeout: float = 1.0) -> dict[str, object] | None:
    """Ask whoever listens on `path` for its health; None when nobody does."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError:
        return None
    try:
        sock.sendall(b'{"id":"probe","method":"health"}\n')
        data = b""
        while b"\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        response = json.loads(data.partition(b"\n")[0] or b"{}")
        result = response.get("result") if isinstance(response, dict) else None
        return result if isinstance(result, dict) else {}
    except (OSError, ValueError):
        return {}
    finally:
        sock.close()


def socket_path_for(config: Config, flag: Path | None = None) -> Path:
    """--socket, else JIYI_SOCKET / config, else the runtime directory's default."""
    return Path(flag) if flag else Path(config.socket) if config.socket else default_socket_path()


def check_socket_free(path: Path) -> bool:
    """Refuse a path that a live server or another kind of file holds; True when a stale socket is there."""
    prepare_socket_dir(path)
    if not (path.exists() or path.is_symlink()):
        return False
    if path.is_symlink() or not stat.S_ISSOCK(path.lstat().st_mode):
        raise UnsafePath(f"{path} exists and is not a socket; remove it or set JIYI_SOCKET")
    owner = probe(path)
    if owner is not None:
        raise EnvironmentProblem(
            f"socket {path} is already served by pid {owner.get('pid', '?')} "
            f"for home {owner.get('home', '?')}; stop it or set JIYI_SOCKET"
        )
    return True


class SocketHost(QObject):
    """Serves one `Memory` on a local socket until `stop()`."""

    connections_changed = Signal(int)
    request_served = Signal()
    _completed = Signal(object, object)  # connection id, response bytes (emitted from workers)

    def __init__(
        self,
        memory: Memory,
        path: Path | None = None,
        *,
        workers: int = 4,
        max_line: int = DEFAULT_MAX_LINE,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.memory = memory
        self.path = Path(path) if path else default_socket_path()
        self.max_line = max_line
        self.dispatcher = Dispatcher(memory)
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._connections: dict[int, _Connection] = {}
        self._ids = itertools.count(1)
        self._served: deque[float] = deque()
        self._completed.connect(self._answer)

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        """Listen, after making sure no live server owns the path (a dead one's file is removed)."""
        if check_socket_free(self.path):
            log.info("removing the stale socket %s (nobody listens)", self.path)
            QLocalServer.removeServer(str(self.path))
        if not self._server.listen(str(self.path)):
            raise EnvironmentProblem(f"cannot listen on {self.path}: {self._server.errorString()}")
        self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="jiyi-request")
        log.info("serving %s on %s", self.memory.store.home, self.path)

    def stop(self) -> None:
        """Stop accepting, finish the requests under way (their writes commit), close, remove the socket."""
        self._server.close()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        QCoreApplication.sendPostedEvents(self)
        for connection in list(self._connections.values()):
            connection.socket.flush()
            connection.socket.disconnectFromServer()
        self._connections.clear()
        if self.path.exists() and stat.S_ISSOCK(self.path.lstat().st_mode):
            self.path.unlink(missing_ok=True)

    @property
    def listening(self) -> bool:
        return bool(self._server.isListening())

    @property
    def connection_count(self) -> int:
        return len(self._connections)

    def requests_last_minute(self) -> int:
        cutoff = time.monotonic() - 60
        while self._served and self._served[0] < cutoff:
            self._served.popleft()
        return len(self._served)

    # -- connections -------------------------------------------------------------------

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            connection = _Connection(next(self._ids), sock)
            self._connections[connection.id] = connection
            sock.readyRead.connect(lambda c=connection: self._read(c))
            sock.disconnected.connect(lambda c=connection: self._drop(c))
            self.connections_changed.emit(len(self._connections))
            if sock.bytesAvailable():
                self._read(connection)

    def _drop(self, connection: _Connection) -> None:
        if self._connections.pop(connection.id, None) is not None:
            connection.socket.deleteLater()
            self.connections_changed.emit(len(self._connections))

    def _read(self, connection: _Connection) -> None:
        if connection.closing:
            connection.socket.readAll()
            return
        connection.buffer += bytes(connection.socket.readAll().data())
        while True:
            end = connection.buffer.find(b"\n")
            if end < 0:
                if len(connection.buffer) > self.max_line:
                    self._refuse_long_line(connection)
                return
            line = bytes(connection.buffer[:end]).rstrip(b"\r")
            del connection.buffer[: end + 1]
            if len(line) > self.max_line:
                self._refuse_long_line(connection)
                return
            if line.strip():
                connection.pending.append(line)
                self._pump(connection)

    def _refuse_long_line(self, connection: _Connection) -> None:
        connection.buffer.clear()
        connection.pending.clear()
        connection.closing = True
        message = f"the request line is longer than {self.max_line} bytes; closing the connection"
        if not connection.busy:
            self._close_after(connection, encode(failure(None, "invalid_request", message)))
        else:
            connection.pending.append(b"")  # the error is sent once the request under way is answered
            connection.buffer += message.encode()

    def _close_after(self, connection: _Connection, data: bytes) -> None:
        connection.socket.write(data)
        connection.socket.flush()
        connection.socket.disconnectFromServer()

    def _pump(self, connection: _Connection) -> None:
        """Start the connection's next request: at once when it needs no file, else on a worker."""
        while not connection.busy and connection.pending and self._pool is not None:
            if not connection.pending[0]:
                return  # the marker of a refused long line, handled in _answer
            line = connection.pending.popleft()
            prepared = self.dispatcher.prepare(line)
            if isinstance(prepared, dict) or self.dispatcher.is_instant(prepared):
                response = prepared if isinstance(prepared, dict) else self.dispatcher.run(prepared)
                connection.socket.write(encode(response))
                connection.socket.flush()  # now, not on the next turn of the loop
                self._count_served()
                continue
            connection.busy = True
            self._pool.submit(self._work, connection.id, prepared)

    def _work(self, connection_id: int, request: Request) -> None:
        """On a worker thread: answer the request and hand the answer back to the loop."""
        self._completed.emit(connection_id, encode(self.dispatcher.run(request)))

    def _count_served(self) -> None:
        self._served.append(time.monotonic())
        self.request_served.emit()

    def _answer(self, connection_id: object, response: object) -> None:
        connection = self._connections.get(connection_id)  # type: ignore[call-overload]
        self._count_served()
        if connection is None:
            return  # the client left; its write, if any, is committed all the same
        assert isinstance(response, bytes)
        connection.socket.write(response)
        connection.socket.flush()
        connection.busy = False
        if connection.closing and connection.pending and connection.pending[0] == b"":
            message = bytes(connection.buffer).decode()
            self._close_after(connection, encode(failure(None, "invalid_request", message)))
            return
        self._pump(connection)


def serve(config: Config, *, socket_path: Path | None = None, workers: int = 4) -> int:
    """`jiyi serve`: host the service headless until SIGINT or SIGTERM (exit 0, socket removed)."""
    app = QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
    path = socket_path_for(config, socket_path)
    check_socket_free(path)  # before the home is opened (or created)
    # Handlers go in before anything is opened: a supervisor's SIGTERM that arrives while the
    # home opens or just after the socket listens must still stop cleanly, not kill the process.
    previous = _quit_on_signals(app)
    try:
        memory = Memory.open(config)
        try:
            _serve_until_quit(app, memory, path, workers=workers, max_line=config.max_line_bytes)
        finally:
            memory.close()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    print("jiyi: stopped", file=sys.stderr, flush=True)
    return 0


def _quit_on_signals(app: QCoreApplication) -> dict[int, Any]:
    """Make SIGINT and SIGTERM end `app`'s event loop, even one that has not started yet; the previous handlers."""

    def request_stop(_signum: int, _frame: object) -> None:
        # quit() before exec() is lost: Qt documents that exit() does nothing while the event loop
        # is not running (PySide6 6.11 behaves so), so a signal while the home opens would be
        # ignored. A zero timer is delivered as soon as the loop runs.
        QTimer.singleShot(0, app.quit)

    return {s: signal.signal(s, request_stop) for s in (signal.SIGINT, signal.SIGTERM)}


def _serve_until_quit(app: QCoreApplication, memory: Memory, path: Path, *, workers: int, max_line: int) -> None:
    """Listen on `path` and serve until the loop quits; the requests under way finish before it returns."""
    host = SocketHost(memory, path, workers=workers, max_line=max_line)
    host.start()
    print(f"jiyi: serving {memory.store.home} on {path} (pid {os.getpid()})", file=sys.stderr, flush=True)
    ticker = QTimer()
    ticker.timeout.connect(lambda: None)
    ticker.start(200)  # Python runs its signal handlers only between bytecodes; Qt's wait is not one
    try:
        app.exec()
    finally:
        ticker.stop()
        host.stop()
