"""The attached console's side of the socket: closing it cuts a long call short (the service goes on)."""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

import pytest

from service.client import JiyiClient, Reply
from service.remote.channel import Wire
from store.core.errors import EnvironmentProblem

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("talks over a Unix socket (Unix only)", allow_module_level=True)


def _listening(path: Path, backlog: int = 1) -> socket.socket:
    """A stand-in service on `path` that accepts and reads, and answers only when a test does."""
    service = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    service.bind(str(path))
    service.listen(backlog)
    return service


def test_closing_cuts_a_long_call_that_waits_for_its_answer(short_dir: Path) -> None:
    # A service busy with a long request: it accepts, reads, and has not answered yet.
    path = short_dir / "busy.sock"
    busy = _listening(path)
    wire = Wire(path)
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            wire.call("vectors.rebuild", writes=True, long=True)
        except BaseException as exc:
            outcome.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    accepted, _ = busy.accept()
    try:
        assert accepted.recv(1024).startswith(b'{"id"')  # the request arrived; no answer is coming
        wire.close()
        caller.join(5)
        assert not caller.is_alive(), "a closed wire left its long call waiting"
        assert len(outcome) == 1 and isinstance(outcome[0], EnvironmentProblem)
        with pytest.raises(EnvironmentProblem, match="was closed"):
            wire.call("health")
    finally:
        accepted.close()
        busy.close()


def _answer(connection: socket.socket) -> None:
    """Read one request line from `connection` and answer it `ok`."""
    data = b""
    while b"\n" not in data:
        data += connection.recv(1024)
    connection.sendall(b'{"id": 1, "ok": true, "result": {}}\n')


def test_closing_cuts_a_read_under_way_and_it_opens_no_new_connection(short_dir: Path) -> None:
    # A read on a reused connection may be sent again on a fresh one; not once the wire is closed (the
    # console closing): a fresh connection would wait out its whole timeout for an answer nobody reads.
    path = short_dir / "slow.sock"
    service = _listening(path, backlog=4)
    wire = Wire(path)
    outcome: list[BaseException] = []
    second_sent = threading.Event()

    def reads() -> None:
        wire.call("health")
        second_sent.set()
        try:
            wire.call("overview")
        except BaseException as exc:
            outcome.append(exc)

    reader = threading.Thread(target=reads)
    reader.start()
    accepted, _ = service.accept()
    try:
        _answer(accepted)
        assert second_sent.wait(5)
        assert accepted.recv(1024).startswith(b'{"id"')  # the second read arrived; its answer is not coming
        wire.close()
        reader.join(5)
        assert not reader.is_alive(), "a closed wire left a read waiting"
        assert len(outcome) == 1 and isinstance(outcome[0], EnvironmentProblem), outcome
        service.settimeout(0.5)
        with pytest.raises(TimeoutError):
            service.accept()  # the read was not sent again on a connection of its own
    finally:
        accepted.close()
        service.close()


class _Paused(JiyiClient):
    """A client that stops between sending a request and reading its answer, until `go` is set."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, timeout=10)
        self.sent, self.go = threading.Event(), threading.Event()

    def _read_response(self) -> Reply:
        self.sent.set()
        assert self.go.wait(10)
        return super()._read_response()


def test_a_connection_in_use_is_shut_down_from_another_thread_and_closed_by_its_own(short_dir: Path) -> None:
    # Closing a descriptor another thread is about to wait on frees its number for the next socket opened,
    # and that thread then waits on someone else's connection (a console's close waited 30 s on one).
    path = short_dir / "paused.sock"
    service = _listening(path)
    client = _Paused(path)
    answers: list[Reply] = []
    owner = threading.Thread(target=lambda: answers.append(client.request("health")))
    owner.start()
    accepted, _ = service.accept()
    try:
        assert client.sent.wait(5)
        in_use = client._sock
        assert isinstance(in_use, socket.socket)
        client.cut()
        assert in_use.fileno() != -1  # shut down, not closed: its number is still this connection's
        client.go.set()
        owner.join(5)
        assert not owner.is_alive()
        assert answers[0]["ok"] is False and answers[0]["error"]["code"] == "unavailable", answers
        assert in_use.fileno() == -1  # closed by the thread that used it, once it stopped using it
        assert client.request("health")["error"]["code"] == "unavailable"  # cut for good: no new connection
    finally:
        accepted.close()
        service.close()
