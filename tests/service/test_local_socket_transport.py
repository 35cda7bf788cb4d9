"""The host over Qt's local socket, the transport it uses on Windows's named pipes (`service/rpc/transport.py`),
run here over a Unix socket: the same replies, in order, the same limits (an over-long line, the connection
cap, a client that sends much and reads nothing is read no further than its replies can be held)."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from service.memory.memory import Memory
from service.rpc.host import SocketHost
from service.rpc.transport import READ_BUFFER, WRITE_WINDOW, LocalSocketEndpoint
from tests.service.inprocess import HEALTH, exchange, in_thread, line

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("runs the Windows transport over a Unix socket (Unix only)", allow_module_level=True)

MAX_LINE = 1 << 16
MAX_OUTPUT = 1 << 16


@pytest.fixture
def host(qtbot: QtBot, memory: Memory, short_dir: Path) -> Iterator[SocketHost]:
    served = SocketHost(
        memory,
        short_dir / "run" / "t.sock",
        workers=2,
        max_line=MAX_LINE,
        max_connections=2,
        max_output=MAX_OUTPUT,
        transport="local-socket",
    )
    served.start()
    yield served
    served.stop()


def test_pipelined_requests_are_answered_in_order_and_a_long_line_refused(qtbot: QtBot, host: SocketHost) -> None:
    lines = [line({"id": i, "method": "app.resolve", "params": {"name": f"应用{i}"}}) for i in range(40)]
    replies = exchange(qtbot, host, b"\n".join(lines) + b"\n", replies=40)
    assert [r["id"] for r in replies] == list(range(40)) and all(r["ok"] for r in replies)
    overlong = b'{"id": 1, "method": "health", "params": {"pad": "' + b"a" * (MAX_LINE + 10)
    [refused] = exchange(qtbot, host, overlong, replies=2)  # then end-of-file: the connection was closed
    assert refused["error"]["code"] == "invalid_request" and f"longer than {MAX_LINE}" in refused["error"]["message"]
    [after] = exchange(qtbot, host, HEALTH + b"\n", replies=1)
    assert after["ok"] is True


def test_a_connection_past_the_cap_gets_one_line_and_is_closed(qtbot: QtBot, host: SocketHost) -> None:
    held = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(2)]
    try:
        for sock in held:
            sock.connect(str(host.path))
        qtbot.waitUntil(lambda: host.connection_count == 2, timeout=10_000)
        [refused] = exchange(qtbot, host, HEALTH + b"\n", replies=2)
        assert refused["error"]["code"] == "unavailable" and "too many connections" in refused["error"]["message"]
    finally:
        for sock in held:
            sock.close()
    qtbot.waitUntil(lambda: host.connection_count == 0, timeout=10_000)


def test_a_client_that_reads_nothing_is_read_no_further_than_its_replies_can_be_held(
    qtbot: QtBot, host: SocketHost
) -> None:
    request = line({"id": 1, "method": "app.resolve", "params": {"name": "微信"}}) + b"\n"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(host.path))
    sock.setblocking(False)
    seen = {"qt": 0, "outbox": 0}

    def flood() -> None:
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline and seen["outbox"] <= MAX_OUTPUT:
            try:
                sock.send(request * 64)
            except BlockingIOError:
                time.sleep(0.02)

    def watch() -> None:
        for link in list(host._links.values()):
            endpoint = link.endpoint
            assert isinstance(endpoint, LocalSocketEndpoint)
            assert endpoint.client.readBufferSize() == READ_BUFFER  # Qt reads no further ahead of the host
            seen["qt"] = max(seen["qt"], int(endpoint.client.bytesToWrite()))
            seen["outbox"] = max(seen["outbox"], len(link.connection.outbox))

    try:
        in_thread(qtbot, flood, watch=watch)
        # Qt never held more unsent replies than the window; the rest waited in the connection's outbox until
        # that reached its cap, where the host stops reading the client (`Connection.wants_read`).
        assert 0 < seen["qt"] <= WRITE_WINDOW
        assert seen["outbox"] > MAX_OUTPUT
    finally:
        sock.close()
    qtbot.waitUntil(lambda: host.connection_count == 0, timeout=15_000)
    [after] = exchange(qtbot, host, HEALTH + b"\n", replies=1)
    assert after["ok"] is True
