"""One local client must not starve the rest (issue 25, section 6): a burst of connects, trickling request
lines, a full connection table. Real sockets throughout: the host in this process, a real `jiyi serve`,
and the stdlib client against a listener whose queue is full."""

from __future__ import annotations

import contextlib
import errno
import json
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from service.client import JiyiClient
from service.memory.memory import Memory
from service.rpc.host import SocketHost
from tests.service.conftest import Server
from tests.service.inprocess import HEALTH, in_thread, parse, read_lines

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("storms the service's Unix socket and stops it with SIGSTOP (Unix only)", allow_module_level=True)

MakeHost = Callable[..., SocketHost]


@pytest.fixture
def make_host(qtbot: QtBot, memory: Memory, short_dir: Path) -> Iterator[MakeHost]:
    started: list[SocketHost] = []

    def make(**limits: Any) -> SocketHost:
        host = SocketHost(memory, short_dir / "run" / "jiyi.sock", workers=2, **limits)
        host.start()
        started.append(host)
        return host

    yield make
    for host in started:
        host.stop()


def _connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(path))
    return sock


def test_a_request_line_must_complete_within_its_deadline_however_it_trickles(
    qtbot: QtBot, make_host: MakeHost
) -> None:
    """A byte every 50 ms is never idle; the line's deadline (0.5 s here) closes it all the same."""
    host = make_host(line_deadline=0.5, idle_timeout=30)

    def trickle() -> tuple[list[bytes], float]:
        started = time.monotonic()
        with _connect(host.path) as sock:
            sock.setblocking(False)
            for byte in b'{"id": 1, "method": "health", "params": {"pad": "' + b"x" * 200:
                try:
                    sock.send(bytes([byte]))
                except OSError:
                    break  # closed by the host
                time.sleep(0.05)
            sock.settimeout(10)
            return read_lines(sock, 1), time.monotonic() - started

    lines, took = in_thread(qtbot, trickle)
    [refused] = [parse(line) for line in lines]
    assert refused["ok"] is False and refused["error"]["code"] == "invalid_request"
    assert "did not complete within 0.5 s" in refused["error"]["message"]
    assert took < 8
    [after] = [parse(line) for line in in_thread(qtbot, lambda: _exchange(host.path, HEALTH))]
    assert after["ok"] is True


def _exchange(path: Path, payload: bytes) -> list[bytes]:
    with _connect(path) as sock:
        sock.sendall(payload + b"\n")
        return read_lines(sock, 1)


def test_a_full_table_closes_the_longest_trickler_for_a_new_client(qtbot: QtBot, make_host: MakeHost) -> None:
    """Four trickling connections fill a table of four: a fifth client used to be refused ("too many
    connections"); now the one whose line began first is closed, with a line saying why, and the new
    client is served. The other tricklers stay."""
    host = make_host(max_connections=4)

    def fill_then_ask() -> tuple[list[bytes], list[bytes], list[bool]]:
        tricklers = []
        try:
            for _ in range(4):
                sock = _connect(host.path)
                sock.sendall(b'{"id": 1, "method": "hea')
                tricklers.append(sock)
                time.sleep(0.05)
            deadline = time.monotonic() + 10
            while host.connection_count < 4 and time.monotonic() < deadline:
                time.sleep(0.01)
            served = _exchange(host.path, HEALTH)
            evicted = read_lines(tricklers[0], 2)
            alive = []
            for sock in tricklers[1:]:
                sock.setblocking(False)
                try:
                    alive.append(sock.recv(10) != b"")
                except BlockingIOError:
                    alive.append(True)  # nothing to read: still open
            return served, evicted, alive
        finally:
            for sock in tricklers:
                sock.close()

    served, evicted, alive = in_thread(qtbot, fill_then_ask)
    assert [parse(line)["ok"] for line in served] == [True]
    [closing] = [parse(line) for line in evicted]
    assert closing["error"]["code"] == "unavailable" and "slowest to arrive" in closing["error"]["message"]
    assert alive == [True, True, True]


def test_a_connect_storm_waits_in_the_listen_queue_instead_of_failing(server: Server) -> None:
    """300 connects while the service cannot accept (stopped): with Qt's default backlog of 50 most failed
    with EAGAIN; the raised backlog queues them all, and each is served once the service runs again."""
    socks: list[socket.socket] = []
    failed = 0
    server.process.send_signal(signal.SIGSTOP)
    try:
        for _ in range(300):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.setblocking(False)
            try:
                sock.connect(str(server.socket))
                socks.append(sock)
            except BlockingIOError:
                sock.close()
                failed += 1
    finally:
        server.process.send_signal(signal.SIGCONT)
    try:
        assert failed == 0
        for sock in socks:
            sock.settimeout(30)
            sock.sendall(HEALTH + b"\n")
        answers = [parse(read_lines(sock, 1)[0]) for sock in socks]
        assert all(a["ok"] for a in answers) and len(answers) == 300
    finally:
        for sock in socks:
            sock.close()


def test_the_client_retries_a_busy_listener(short_dir: Path) -> None:
    """A listener whose queue is full answers EAGAIN: the stdlib client used to report the service
    unavailable at once; it now tries again with a short backoff and is served once the queue drains."""
    path = short_dir / "busy.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(0)
    fillers = []
    for _ in range(8):  # fill the queue until the kernel answers EAGAIN
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.connect(str(path))
            fillers.append(sock)
        except BlockingIOError as exc:
            assert exc.errno == errno.EAGAIN
            sock.close()
            break
    else:
        pytest.fail("the listen queue never filled")

    def drain_then_serve() -> None:
        time.sleep(0.3)
        for _ in fillers:
            listener.accept()[0].close()
        conn, _ = listener.accept()
        with conn:
            data = b""
            while not data.endswith(b"\n"):
                data += conn.recv(4096)
            request = json.loads(data)
            conn.sendall(json.dumps({"id": request["id"], "ok": True, "result": {"pid": 1}}).encode() + b"\n")

    server = threading.Thread(target=drain_then_serve)
    server.start()
    try:
        with JiyiClient(path, timeout=5) as client:
            started = time.monotonic()
            answer = client.health()
        assert answer == {"pid": 1}, answer
        assert time.monotonic() - started < 3
    finally:
        server.join(timeout=10)
        for sock in fillers:
            with contextlib.suppress(OSError):
                sock.close()
        listener.close()
