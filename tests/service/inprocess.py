"""Clients for the in-process host tests: plain AF_UNIX sockets on a worker thread while the test thread runs Qt.

`QLocalSocket.waitForReadyRead()` against a server in the same thread deadlocks
(the server only answers when this thread's event loop runs), so the clients
here run on a thread while the test thread spins the Qt loop
(`qtbot.waitUntil`), never with the blocking `waitFor…` calls.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pytestqt.qtbot import QtBot

from service.client import JiyiClient
from service.rpc.host import SocketHost

HEALTH = b'{"id": "after", "method": "health"}'
T = TypeVar("T")


def read_lines(sock: socket.socket, replies: int) -> list[bytes]:
    """Read until `replies` lines came or the host closed the connection."""
    data = b""
    while data.count(b"\n") < replies:
        try:
            chunk = sock.recv(1 << 16)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data.splitlines()


def talk(path: Path, payload: bytes, replies: int, *, half_close: bool = False) -> list[bytes]:
    """On a worker thread: send `payload` on a fresh connection, read `replies` lines or up to EOF.

    With `half_close` the client shuts down its sending side after the payload
    and reads on (up to EOF when `replies` is more than it gets).
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(path))
        # The host may close the connection while a refused long line is still being sent; its answer stays readable.
        with contextlib.suppress(BrokenPipeError):
            sock.sendall(payload)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        return read_lines(sock, replies)


def line(request: object) -> bytes:
    """A request as one UTF-8 line (without its newline)."""
    return json.dumps(request, ensure_ascii=False).encode("utf-8")


def parse(reply: bytes) -> dict[str, Any]:
    """A reply line as JSON; NaN or Infinity in it fails the test."""
    parsed = json.loads(reply, parse_constant=lambda name: pytest.fail(f"{name} in a reply"))
    assert isinstance(parsed, dict)
    return parsed


def in_thread(
    qtbot: QtBot, client: Callable[[], T], *, watch: Callable[[], None] | None = None, timeout_ms: int = 15_000
) -> T:
    """Run `client` on a thread while this thread runs the host's event loop; its result.

    `watch` is called each time the loop is checked, to sample the host's state.
    """

    def done() -> bool:
        if watch is not None:
            watch()
        return future.done()

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-client") as pool:
        future = pool.submit(client)
        qtbot.waitUntil(done, timeout=timeout_ms)
        return future.result()


def exchange(
    qtbot: QtBot, host: SocketHost, payload: bytes, replies: int, *, half_close: bool = False
) -> list[dict[str, Any]]:
    """Send `payload` on a fresh connection from a client thread; the parsed replies."""
    lines = in_thread(qtbot, lambda: talk(host.path, payload, replies, half_close=half_close))
    return [parse(reply) for reply in lines]


def person_hello(host: SocketHost, kind: str = "console") -> bytes:
    """The hello line the console sends: it presents the person's key the host wrote in its home."""
    from service import person_key  # here: a module that never asks for it runs against any version of Jiyi

    key = person_key.read(host.memory.store.home)
    return line({"id": "hello", "method": "client.hello", "params": {"kind": kind, "person_key": key}}) + b"\n"


def exchange_as_person(qtbot: QtBot, host: SocketHost, payload: bytes, replies: int) -> list[dict[str, Any]]:
    """`exchange` on a connection that first presented the person's key, as the console does; the replies
    after the hello's (which must have made the connection the person's)."""
    hello, *rest = exchange(qtbot, host, person_hello(host) + payload, replies + 1)
    assert hello["ok"] and hello["result"]["person"] is True, hello
    return rest


def person_client(path: Path, home: Path, *, timeout: float = 10.0) -> JiyiClient:
    """A client that connects as the console does: its hello presents the person's key read from `home`."""
    from service import person_key  # here: a module that never asks for it runs against any version of Jiyi

    return JiyiClient(
        path, timeout=timeout, hello="console", hello_params=lambda: {"person_key": person_key.read(home)}
    )
