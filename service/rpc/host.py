"""The socket host: a `QLocalServer` serving the protocol, in the console or headless.

With `service/rpc/headless.py` (`jiyi serve`) and `service/rpc/transport.py` (how connections move bytes:
descriptors on Unix, Qt's local socket over a named pipe on Windows), the one place in `service` that uses Qt
(QtCore and QtNetwork only).
Lines are read on the Qt event loop and answered on a worker pool, so no
request blocks the loop; each connection's requests are answered in order,
one at a time, while different connections run in parallel. Writes that may
share a transaction (`grouped` methods) go to the write lane instead, which
commits the waiting ones together (`service/rpc/write_lane.py`). A write's
answer is sent only after its transaction committed.

Hostile clients (`docs/service.md`, "Limits"): connections are capped below
the open-file limit and the ones past the cap are refused with one error line;
buffers are bounded per connection (`service/rpc/connection.py`); idle
connections are closed; every request gets exactly one reply or its
connection is closed with a logged reason; and if the listener stops anyway,
`listener_failed` is emitted and `jiyi serve` exits non-zero so that a
supervisor restarts it.
"""

from __future__ import annotations

import itertools
import logging
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal
from PySide6.QtNetwork import QLocalServer

from service import person_key
from service.memory.memory import Memory
from service.platform.address import is_pipe
from service.rpc.connection import Connection, LineBudget, LineTooLong, refuse_at_once
from service.rpc.context import CallContext
from service.rpc.dispatch import Dispatcher
from service.rpc.limits import MAX_OUTPUT, UNFINISHED_LINES_FACTOR, connection_cap, raise_open_file_limit
from service.rpc.protocol import INTERNAL_MESSAGE, Request, encode, failure
from service.rpc.socket_file import check_socket_free, socket_path_for
from service.rpc.transport import DEFAULT as DEFAULT_TRANSPORT
from service.rpc.transport import Endpoint, Transport, listener
from service.rpc.trickle import LINE_DEADLINE, longest_trickling, overdue
from service.rpc.write_lane import WriteLane
from store.core.errors import EnvironmentProblem

log = logging.getLogger("jiyi.service.rpc")

WATCH_INTERVAL_MS = 1000
"""How often the host checks that its listener still listens on its own socket file."""

NOTICE_DELAY_MS = 100
"""Changes committed within this long of each other go out as one notice line."""

LISTEN_BACKLOG = 4096
"""Connections the kernel queues before the host accepts them (Qt's default is 50; Linux caps it at somaxconn):
a burst of agents connecting at once waits in the queue instead of failing with EAGAIN."""

LONG_WORKERS = 2
"""Long maintenance requests (an import, a rebuild; `Method.long`) served at once, beside the request workers:
more wait their turn there, and none ever takes a worker that agents' short requests need."""


@dataclass
class _Link:
    """A connection, the endpoint that moves its bytes and wakes the loop for it, and the context its calls run in."""

    connection: Connection
    endpoint: Endpoint
    context: CallContext


class SocketHost(QObject):
    """Serves one `Memory` on a local socket until `stop()`.

    Limits left as None come from the memory's configuration (`max_line_bytes`,
    `max_connections`, `idle_timeout`); `max_unfinished` defaults to
    `UNFINISHED_LINES_FACTOR` longest lines. `path` defaults to the configured socket (the home's own, unless
    `JIYI_SOCKET` or config.toml say otherwise); `transport` to the platform's (`service/rpc/transport.py`).
    """

    connections_changed = Signal(int)
    request_served = Signal()
    listener_failed = Signal(str)  # why the host can no longer accept connections
    _completed = Signal(object, object)  # connection number, response bytes (emitted from workers)
    _committed = Signal(str)  # a domain whose change committed (emitted from the writer's thread)

    def __init__(
        self,
        memory: Memory,
        path: Path | None = None,
        *,
        workers: int = 4,
        max_line: int | None = None,
        max_connections: int | None = None,
        idle_timeout: float | None = None,
        max_output: int = MAX_OUTPUT,
        max_unfinished: int | None = None,
        line_deadline: float = LINE_DEADLINE,
        transport: Transport = DEFAULT_TRANSPORT,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        config = memory.config
        self.memory = memory
        self.path = Path(path) if path else socket_path_for(config)
        self.transport = transport
        self.max_line = int(config.max_line_bytes if max_line is None else max_line)
        self.max_connections = 0  # set by start(), from the open-file limit when not configured
        self._configured_connections = int(config.max_connections if max_connections is None else max_connections)
        self.idle_timeout = float(config.idle_timeout if idle_timeout is None else idle_timeout)
        self.line_deadline = float(line_deadline)  # seconds a request line may take to arrive (`trickle`)
        self.max_output = max_output
        self.budget = LineBudget(UNFINISHED_LINES_FACTOR * self.max_line if max_unfinished is None else max_unfinished)
        self.dispatcher = Dispatcher(memory)
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._lane: WriteLane | None = None
        self._long_pool: ThreadPoolExecutor | None = None
        self._server = listener(transport, self._adopt, self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.setListenBacklogSize(LISTEN_BACKLOG)
        self._links: dict[int, _Link] = {}
        self._numbers = itertools.count(1)
        self.presence = self.dispatcher.presence  # who is connected and how busy they keep it (`service.status`)
        self._refused = 0
        self._person_key: str | None = None
        self._socket_id: tuple[int, int] | None = None
        self.listener_problem: str | None = None
        """Why the listener stopped while serving (see `listener_failed`); None while it listens."""
        self._watchdog = QTimer(self)
        self._watchdog.timeout.connect(self._watch)
        self._sweeper = QTimer(self)
        self._sweeper.timeout.connect(self._sweep_idle)
        self._completed.connect(self._answer)
        # Change notices: the connections that asked for them (`changes.subscribe`) and what changed since
        # the last notice; a burst of commits goes out as one line.
        self._subscribers: set[int] = set()
        self._changed_domains: set[str] = set()
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.setInterval(NOTICE_DELAY_MS)
        self._notice_timer.timeout.connect(self._send_notices)
        self._committed.connect(self._note_change)

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        """Listen, after making sure no live server owns the path (a dead one's file is removed)."""
        if check_socket_free(self.path):
            log.info("removing the stale socket %s (nobody listens)", self.path)
            QLocalServer.removeServer(str(self.path))
        self.max_connections = connection_cap(self._configured_connections, raise_open_file_limit())
        self._person_key = self._write_person_key()  # before the first connection can say hello
        if not self._server.listen(str(self.path)):
            if self._person_key is not None:
                person_key.release(self.memory.store.home, self._person_key)
                self._person_key = None
            raise EnvironmentProblem(f"cannot listen on {self.path}: {self._server.errorString()}")
        if not is_pipe(self.path):  # a named pipe is no file that could be removed or replaced
            try:
                info = self.path.lstat()
            except FileNotFoundError:  # removed as soon as it was made
                self._server.close()
                if self._person_key is not None:
                    person_key.release(self.memory.store.home, self._person_key)
                    self._person_key = None
                raise EnvironmentProblem(f"the socket file {self.path} was removed or replaced") from None
            self._socket_id = (info.st_dev, info.st_ino)
        self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="jiyi-request")
        self._long_pool = ThreadPoolExecutor(max_workers=LONG_WORKERS, thread_name_prefix="jiyi-long")
        self.presence.reset()
        self._lane = WriteLane(self.dispatcher, self._completed.emit, int(self.memory.config.write_group))
        self.memory.add_listener(self._heard_commit)
        self._watchdog.start(WATCH_INTERVAL_MS)
        waits = [t for t in (self.idle_timeout, self.line_deadline) if t > 0]
        if waits:
            self._sweeper.start(max(50, min(5000, int(min(waits) * 250))))
        log.info("serving %s on %s (at most %d connections)", self.memory.store.home, self.path, self.max_connections)

    def stop(self) -> None:
        """Stop accepting, finish the requests under way (their writes commit), close, remove the socket."""
        self._watchdog.stop()
        self._sweeper.stop()
        self._notice_timer.stop()
        self.memory.remove_listener(self._heard_commit)
        self._server.close()
        for pool in (self._pool, self._long_pool):
            if pool is not None:
                pool.shutdown(wait=True)  # every grouped write under way is prepared and queued on the lane
        self._pool = self._long_pool = None
        if self._lane is not None:
            self._lane.stop()  # the queued writes commit and are answered
            self._lane = None
        QCoreApplication.sendPostedEvents(self)  # the answers of the requests that just finished
        for link in list(self._links.values()):
            link.connection.send()  # what the socket takes now; a client that does not read loses the rest
            self._close(link, "the service stopped", logging.DEBUG)
        if not is_pipe(self.path) and self._owns_socket_file():
            self.path.unlink(missing_ok=True)
        if self._person_key is not None:
            person_key.release(self.memory.store.home, self._person_key)
            self._person_key = None
            self.presence.expect_person_key(None)

    def _write_person_key(self) -> str | None:
        """A fresh person's key in the home, for the console and the commands (`service/person_key.py`);
        None when the home cannot be written (a read-only home serves reads to everyone alike)."""
        if self.memory.read_only is not None:  # not even tried: nothing is written to a read-only home on open
            log.info("no person's key on a read-only home (%s): it serves reads alike to all", self.memory.read_only)
            self.presence.expect_person_key(None)
            return None
        try:
            key = person_key.hold(self.memory.store.home)
        except OSError as exc:
            log.warning(
                "cannot write the person's key in %s (%s): no connection acts as the person, so the "
                "person's operations are refused over the socket",
                self.memory.store.home,
                exc.strerror or exc,
            )
            key = None
        self.presence.expect_person_key(key)
        return key

    @property
    def listening(self) -> bool:
        return bool(self._server.isListening()) and self.listener_problem is None

    @property
    def connection_count(self) -> int:
        return len(self._links)

    @property
    def buffered_output(self) -> int:
        """Reply bytes written by the host that its clients have not read yet (over all connections)."""
        return sum(len(link.connection.outbox) for link in self._links.values())

    def requests_last_minute(self) -> int:
        return self.presence.requests_last_minute()

    def _owns_socket_file(self) -> bool:
        if is_pipe(self.path):
            return True  # no file: the listener is all there is
        try:
            info = self.path.lstat()
        except OSError:
            return False
        return stat.S_ISSOCK(info.st_mode) and (info.st_dev, info.st_ino) == self._socket_id

    def _watch(self) -> None:
        """Notice a listener that stopped (Qt closes it when accept fails) or a socket file that is gone."""
        if not self._server.isListening():
            problem = f"the socket listener on {self.path} stopped ({self._server.errorString() or 'no reason given'})"
        elif not self._owns_socket_file():
            problem = f"the socket file {self.path} was removed or replaced"
            if not self.path.exists():
                # QLocalServer.close() deletes the file at its path whoever made it; close while nothing is there.
                self._server.close()
        else:
            return
        self._watchdog.stop()
        self.listener_problem = problem
        log.error("%s; agents can no longer connect", problem)
        self.listener_failed.emit(problem)

    # -- connections -------------------------------------------------------------------

    def _adopt(self, endpoint: Endpoint) -> None:
        """Take an accepted client, or refuse it with one error line when the cap is reached."""
        if len(self._links) >= self.max_connections and self._pool is not None:
            self._evict_trickler()
        if len(self._links) >= self.max_connections or self._pool is None:
            self._refuse_connection(endpoint)
            return
        if self._refused:
            log.info("accepting connections again (%d refused while at the cap)", self._refused)
            self._refused = 0
        connection = Connection(
            next(self._numbers), endpoint, max_line=self.max_line, max_output=self.max_output, budget=self.budget
        )
        number = connection.number
        link = _Link(connection, endpoint, self.dispatcher.context(number, lambda: self._subscribers.add(number)))
        endpoint.bind(lambda: self._on_readable(link), lambda: self._on_writable(link))
        endpoint.watch(read=True, write=False)
        self._links[connection.number] = link
        self.presence.opened(connection.number)
        self.connections_changed.emit(len(self._links))

    def _refuse_connection(self, endpoint: Endpoint) -> None:
        if not self._refused:
            log.warning("refusing connections: %d are open, the cap (max_connections)", len(self._links))
        self._refused += 1
        message = f"too many connections: the service serves {self.max_connections} at a time; try again later"
        refuse_at_once(endpoint, encode(failure(None, "unavailable", message)))

    def _close(self, link: _Link, reason: str, level: int = logging.DEBUG) -> None:
        connection = link.connection
        if self._links.pop(connection.number, None) is None:
            return
        self._subscribers.discard(connection.number)
        self.presence.closed(connection.number)
        log.log(level, "closing connection %d: %s", connection.number, reason)
        connection.close()  # the endpoint stops watching before it closes
        self.connections_changed.emit(len(self._links))

    def _evict_trickler(self) -> None:
        """The table is full: close the connection whose unfinished request line began longest ago (if any)."""
        link = longest_trickling(self._links.values())
        if link is None:
            return
        message = "the connection table is full and this request line is the slowest to arrive; closing it"
        link.connection.queue(encode(failure(None, "unavailable", message)))
        link.connection.send()
        self._close(link, "evicted for a new connection: its request line was the slowest", logging.INFO)

    def _sweep_idle(self) -> None:
        """Close the connections that moved no byte for `idle_timeout` seconds while nothing of theirs ran,
        and those whose request line has taken longer than `line_deadline` seconds to arrive."""
        if self.line_deadline > 0:
            message = f"the request line did not complete within {self.line_deadline:g} s; closing the connection"
            for link in overdue(list(self._links.values()), time.monotonic(), self.line_deadline):
                self._refuse_line(link.connection, "invalid_request", message)
                self._drive(link)
        if self.idle_timeout <= 0:
            return
        cutoff = time.monotonic() - self.idle_timeout
        for number, link in list(self._links.items()):
            if number in self._subscribers:
                continue  # it waits for notices: silence is what it expects
            if not link.connection.busy and link.connection.last_active < cutoff:
                self._close(link, f"idle for {self.idle_timeout:g} s", logging.INFO)

    # -- reading, answering, writing ---------------------------------------------------

    def _on_readable(self, link: _Link) -> None:
        connection = link.connection
        connection.receive()
        if connection.unfinished > self.max_line:
            self._refuse_line(connection, "invalid_request", self._long_line_message())
        elif connection.unfinished and self.budget.exceeded:
            message = (
                f"the service holds more than {self.budget.cap} bytes of unfinished request lines; "
                "closing this connection (send whole lines; try again later)"
            )
            self._refuse_line(connection, "unavailable", message)
        self._drive(link)

    def _on_writable(self, link: _Link) -> None:
        link.connection.send()
        self._drive(link)

    def _long_line_message(self) -> str:
        return f"the request line is longer than {self.max_line} bytes; closing the connection"

    def _refuse_line(self, connection: Connection, code: str, message: str) -> None:
        log.info("refusing connection %d: %s", connection.number, message)
        connection.refuse(encode(failure(None, code, message)))

    def _drive(self, link: _Link) -> None:
        """Start what can start, write what can be written, and listen only for what the connection wants."""
        connection = link.connection
        self._pump(link)
        connection.send()
        if connection.finished:
            reason = connection.broken or "done"
            self._close(link, reason)
            return
        # Only what the connection wants wakes the loop: a reader left on after end-of-file, or a writer with
        # nothing to write, would wake it on every turn; a reader left on while the client's replies pile up
        # would read its requests without bound.
        link.endpoint.watch(connection.wants_read, connection.wants_write)

    def _pump(self, link: _Link) -> None:
        """Start the connection's next requests, in order: at once when they need no file, else on a worker."""
        connection = link.connection
        while connection.accepts_work and self._pool is not None:
            try:
                line = connection.take_line()
            except LineTooLong:
                self._refuse_line(connection, "invalid_request", self._long_line_message())
                break
            if line is None:
                break
            self._start(link, line)
        connection.send_refusal()

    def _start(self, link: _Link, line: bytes) -> None:
        connection = link.connection
        request_id = None
        try:
            prepared = self.dispatcher.prepare(line)
            if isinstance(prepared, Request):
                request_id = prepared.id
                if not self.dispatcher.is_instant(prepared):
                    assert self._pool is not None and self._long_pool is not None and self._lane is not None
                    connection.busy = True
                    if self.dispatcher.is_grouped(prepared):
                        self._pool.submit(self._prepare_write, link, prepared)
                    else:
                        # A long one (minutes of maintenance) must not hold a worker short requests wait for.
                        pool = self._long_pool if self.dispatcher.is_long(prepared) else self._pool
                        pool.submit(self._work, link, prepared)
                    return
                prepared = self.dispatcher.run(prepared, link.context)
            reply = encode(prepared)
        except Exception:
            # Every request gets exactly one reply: a bug here must not leave the connection waiting.
            log.exception("request %r on connection %d could not be answered", request_id, connection.number)
            connection.busy = False
            reply = encode(failure(request_id, "internal", INTERNAL_MESSAGE))
        self._count_served(connection.number)  # before the reply goes out: a client that reads it then asks
        connection.queue(reply)  # `service.status` finds its request counted

    def _work(self, link: _Link, request: Request) -> None:
        """On a worker thread: answer the request and hand the answer back to the loop, whatever happens."""
        number = link.connection.number
        reply = encode(failure(None, "internal", INTERNAL_MESSAGE))
        try:
            reply = encode(self.dispatcher.run(request, link.context))
        except Exception:
            log.exception("request %r on connection %d could not be answered", request.id, number)
            reply = encode(failure(request.id, "internal", INTERNAL_MESSAGE))
        finally:
            self._completed.emit(number, reply)

    def _prepare_write(self, link: _Link, request: Request) -> None:
        """On a worker thread: check and prepare a grouped write, then queue it on the write lane.

        A refused one is answered at once; the lane answers the others after their group commits.
        """
        number = link.connection.number
        try:
            write = self.dispatcher.prepare_write(request, link.context)
        except Exception as exc:
            self._completed.emit(number, encode(self.dispatcher.failed(request, exc)))
            return
        assert self._lane is not None  # `stop` ends the lane only after the workers
        self._lane.submit(number, request, write)

    def _heard_commit(self, domain: str, _txn: int) -> None:
        """On the writer's thread: hand the change to the loop (a queued signal)."""
        self._committed.emit(domain)

    def _note_change(self, domain: str) -> None:
        if not self._subscribers:
            return
        self._changed_domains.add(domain)
        if not self._notice_timer.isActive():
            self._notice_timer.start()

    def _send_notices(self) -> None:
        """One notice line to every subscribed connection: the domains changed since the last one.

        A subscriber whose unread output is past its cap misses this notice (the next one still
        names the generation, so it can tell it missed some and reload everything).
        """
        domains, self._changed_domains = sorted(self._changed_domains), set()
        notice = encode({"notice": "changed", "domains": domains, "generation": self.memory.generation})
        for number in list(self._subscribers):
            link = self._links.get(number)
            if link is None:
                self._subscribers.discard(number)
            elif len(link.connection.outbox) <= self.max_output:
                link.connection.queue(notice)
                self._drive(link)

    @property
    def subscriber_count(self) -> int:
        """Connections that receive change notices (attached consoles)."""
        return len(self._subscribers)

    def _count_served(self, connection: int) -> None:
        self.presence.served(connection)
        self.request_served.emit()

    def _answer(self, number: object, reply: object) -> None:
        assert isinstance(number, int)  # a connection's number: the signal carries objects across threads
        self._count_served(number)
        link = self._links.get(number)
        if link is None:
            return  # the client left; its write, if any, is committed all the same
        assert isinstance(reply, bytes)
        link.connection.busy = False
        link.connection.queue(reply)
        self._drive(link)
