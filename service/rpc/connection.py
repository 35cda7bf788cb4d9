"""One client of the socket host, without Qt: bytes in, request lines out, replies out in order.

The host (`service/rpc/host.py`) drives a `Connection` from its event loop and
asks it what it wants: to read (`wants_read`), to write (`wants_write`), or to
be closed (`finished`). Every buffer is bounded:

- the unfinished tail of the input is at most the longest line, and all
  connections' tails together stay under one shared `LineBudget`;
- complete lines wait in the input only while earlier requests are served:
  the connection reads no more until they are taken;
- unsent replies past `max_output` stop the connection from reading and from
  starting requests until the client reads them.

A client that shuts down only its sending side still gets the replies to what
it sent before; the connection closes once they are written.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

log = logging.getLogger("jiyi.service.rpc")

CHUNK = 1 << 16
"""Bytes read per readiness notice: a busy client cannot starve the others."""


class Stream(Protocol):
    """What a connection reads and writes: a non-blocking socket, or a transport's endpoint
    (`service/rpc/transport.py`). `recv` answers b"" at end-of-file; both raise `BlockingIOError` when they
    cannot move a byte now."""

    def recv(self, size: int, /) -> bytes: ...
    def send(self, data: bytes | bytearray, /) -> int: ...
    def close(self) -> None: ...


class LineBudget:
    """The bytes of unfinished request lines held by all connections together, against a cap."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.held = 0

    @property
    def exceeded(self) -> bool:
        return self.held > self.cap


class LineTooLong(Exception):
    """A complete request line is longer than the connection accepts."""


class Connection:
    """One accepted client (a non-blocking stream) with its input and output buffers."""

    def __init__(self, number: int, sock: Stream, *, max_line: int, max_output: int, budget: LineBudget) -> None:
        self.number = number
        self.sock = sock
        self.max_line = max_line
        self.max_output = max_output
        self.budget = budget
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.busy = False
        """A request of this connection is being answered on a worker."""
        self.read_closed = False
        """The client sent end-of-file: it will send nothing more (it may still read)."""
        self.broken: str | None = None
        """Why the socket failed; the connection is closed at once."""
        self.refusal: bytes | None = None
        """The error line to send once the requests before it are answered; then the connection closes."""
        self.closing = False
        """Nothing more is served: the connection closes once its output is written."""
        self.last_active = time.monotonic()
        self.line_started: float | None = None
        """When the first byte of the unfinished request line arrived (None: no line under way); a line
        must complete within the host's line deadline, however steadily its bytes trickle in."""
        self._tail = 0  # bytes after the last newline in `inbox`: the unfinished line

    # -- input ---------------------------------------------------------------------------

    @property
    def unfinished(self) -> int:
        """Bytes of the request line still being received."""
        return self._tail

    @property
    def has_lines(self) -> bool:
        """Complete (or final, after end-of-file) lines wait in the input."""
        return len(self.inbox) > self._tail or (self.read_closed and bool(self.inbox))

    @property
    def wants_read(self) -> bool:
        """Whether the host should read from the client now."""
        stopped = self.read_closed or self.closing or self.broken is not None or self.refusal is not None
        return not stopped and not self.has_lines and len(self.outbox) <= self.max_output

    def receive(self) -> None:
        """Read one chunk the client sent; end-of-file sets `read_closed`, a failure `broken`."""
        try:
            data = self.sock.recv(CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self.broken = exc.strerror or type(exc).__name__
            return
        if not data:
            self.read_closed = True
            return
        self.last_active = time.monotonic()
        self.inbox += data
        newline = data.rfind(b"\n")
        self._set_tail(self._tail + len(data) if newline < 0 else len(data) - newline - 1)
        if self._tail and (newline >= 0 or self.line_started is None):
            self.line_started = self.last_active  # a line began in this chunk

    def take_line(self) -> bytes | None:
        """The next non-blank request line (without its line end), or None when none is complete.

        After end-of-file the unfinished rest counts as a last line, so a client
        that omits the final newline is answered too. A line longer than the
        limit raises `LineTooLong` and drops the input from that line on.
        """
        while self.has_lines:
            end = self.inbox.find(b"\n")
            if end < 0:  # end-of-file: the rest is the last line
                end = len(self.inbox)
                self._set_tail(0)
            line = bytes(self.inbox[:end]).rstrip(b"\r")
            del self.inbox[: end + 1]
            if len(line) > self.max_line:
                self.inbox.clear()
                self._set_tail(0)
                raise LineTooLong
            if line.strip():
                return line
        return None

    def refuse(self, line: bytes) -> None:
        """Read nothing more: answer the complete requests already received, then send `line` and close."""
        self.refusal = line
        self.discard_unfinished()

    def send_refusal(self) -> None:
        """Queue the refusal once the requests before it are answered; the connection then closes."""
        if self.refusal is not None and not self.busy and not self.has_lines:
            self.queue(self.refusal)
            self.refusal = None
            self.closing = True

    def discard_unfinished(self) -> None:
        """Drop the unfinished line (and give its bytes back to the budget)."""
        if self._tail:
            del self.inbox[-self._tail :]
            self._set_tail(0)

    def _set_tail(self, tail: int) -> None:
        self.budget.held += tail - self._tail
        if not tail:
            self.line_started = None
        self._tail = tail

    # -- output --------------------------------------------------------------------------

    @property
    def accepts_work(self) -> bool:
        """Whether the next request may start: nothing under way and the unsent replies under the cap."""
        return not self.busy and not self.closing and self.broken is None and len(self.outbox) <= self.max_output

    @property
    def wants_write(self) -> bool:
        return bool(self.outbox) and self.broken is None

    @property
    def finished(self) -> bool:
        """Nothing more will be read, answered or written: close it."""
        if self.broken is not None:
            return True
        done_reading = (self.read_closed and self.refusal is None) or self.closing
        return done_reading and not self.busy and not self.has_lines and not self.outbox

    def queue(self, reply: bytes) -> None:
        """Append one reply line to the output (sent by `send`)."""
        self.outbox += reply
        self.last_active = time.monotonic()

    def send(self) -> None:
        """Write as much output as the socket takes now; a failure sets `broken`."""
        while self.outbox and self.broken is None:
            try:
                sent = self.sock.send(self.outbox)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                self.broken = exc.strerror or type(exc).__name__
                return
            del self.outbox[:sent]
            self.last_active = time.monotonic()

    def close(self) -> None:
        """Close the socket and give the unfinished line's bytes back to the budget."""
        self.discard_unfinished()
        self.inbox.clear()
        self.outbox.clear()
        self.sock.close()


def refuse_at_once(sock: Stream, line: bytes) -> None:
    """Send one error line to a client the host will not serve, without waiting, and close its socket."""
    try:
        sock.send(line)
    except OSError:
        pass  # a client gone already, or a full buffer: it sees the close
    finally:
        sock.close()
