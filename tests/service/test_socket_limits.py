"""`jiyi serve` against hostile clients over its real socket (issue 15, denial of service).

Open files, unread replies, unfinished lines, half-closed and idle connections,
a listener that stops. After each, the server answers `health` (or, when its
listener is gone, exits non-zero so that a supervisor restarts it).
"""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from service.client import JiyiClient
from service.config import load_config
from tests.json_reads import obj
from tests.service.conftest import Server, send_lines

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("talks to the service over a Unix socket (Unix only)", allow_module_level=True)

HEALTH = b'{"id": "after", "method": "health"}\n'
Launch = Callable[..., Server]


def memory_kb(pid: int, field: str = "VmRSS") -> int:
    """A figure of the process's memory from /proc, in kB."""
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith(field + ":"):
            return int(row.split()[1])
    raise AssertionError(f"no {field} for pid {pid}")


def answers_health(server: Server, timeout: float = 30) -> bool:
    """Whether the server answers `health`, once the connections a test just closed are gone from it,
    and its database passes SQLite's integrity check."""
    deadline = time.monotonic() + timeout
    with JiyiClient(server.socket, timeout=timeout) as client:
        while True:
            health = client.health()
            busy = "too many connections" in str(obj(health.get("error", {})).get("message"))
            if not busy or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    return health.get("pid") == server.process.pid and integrity(server.home) == "ok"


def integrity(home: Path) -> str:
    """SQLite's `integrity_check` of the home's database, read beside the running server (WAL allows it).

    On a PostgreSQL home: "ok" when the server answers a read of the event log.
    """
    settings = load_config(home=home, env={})
    if settings.database_url:
        with psycopg.connect(settings.database_url, password=settings.database_password()) as conn:
            conn.execute("SELECT count(*) FROM event").fetchone()
        return "ok"
    with contextlib.closing(sqlite3.connect(f"file:{home / 'jiyi.sqlite3'}?mode=ro", uri=True, timeout=30)) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


def connect(path: Path, timeout: float) -> socket.socket:
    """A connected client socket; waits while the server's backlog is full (connect says EAGAIN on Unix sockets)."""
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
            return sock
        except BlockingIOError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)
        except OSError:
            sock.close()
            raise


@contextlib.contextmanager
def connections(path: Path, count: int, timeout: float = 10) -> Iterator[list[socket.socket]]:
    """`count` open client connections (fewer when connecting fails); all closed afterwards."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            try:
                socks.append(connect(path, timeout))
            except OSError:
                break
        yield socks
    finally:
        for sock in socks:
            sock.close()


def first_reply(sock: socket.socket) -> dict[str, Any]:
    """Send `health` (the host may have closed a refused connection already) and read the first line back."""
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        sock.sendall(HEALTH)
    data = b""
    while b"\n" not in data:
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    reply = json.loads(data.partition(b"\n")[0])
    assert isinstance(reply, dict)
    return reply


@pytest.mark.slow  # opens sixty connections to a server with 64 open files
def test_connections_past_the_cap_are_refused_below_the_open_file_limit(short_dir: Path, launch: Launch) -> None:
    log = short_dir / "serve.log"
    server = launch(short_dir / "home", short_dir / "run" / "jiyi.sock", open_files=64, log=log)
    with connections(server.socket, 60) as socks:
        assert len(socks) == 60  # the listener never stopped
        replies = [first_reply(sock) for sock in socks]
    served = [r for r in replies if r["ok"]]
    refused = [r for r in replies if not r["ok"]]
    assert len(served) == 64 // 4  # the cap derived from the open-file limit
    assert all(r["error"]["code"] == "unavailable" and "too many connections" in r["error"]["message"] for r in refused)
    assert len(refused) == 60 - len(served)
    assert answers_health(server)
    assert server.stop() == 0
    assert "refusing connections" in log.read_text()


@pytest.mark.slow  # floods a server until its listener fails
def test_a_listener_that_stops_makes_the_server_exit_non_zero(short_dir: Path, launch: Launch) -> None:
    log = short_dir / "serve.log"
    home, path = short_dir / "home", short_dir / "run" / "jiyi.sock"
    # A cap above what 64 open files can hold: accepting fails, and Qt closes the listener.
    server = launch(home, path, open_files=64, env={"JIYI_MAX_CONNECTIONS": "500"}, log=log)
    with connections(server.socket, 100, timeout=2):
        assert server.process.wait(timeout=60) == 3
    text = log.read_text()
    assert "max_connections 500 leaves fewer than" in text
    assert "stopped so that a supervisor can start the service again" in text
    assert not path.exists()
    restarted = launch(home, path)  # the home was let go
    assert answers_health(restarted)
    assert restarted.stop() == 0


def test_a_removed_socket_file_makes_the_server_exit_non_zero(short_dir: Path, launch: Launch) -> None:
    log = short_dir / "serve.log"
    server = launch(short_dir / "home", short_dir / "run" / "jiyi.sock", log=log)
    server.socket.unlink()
    assert server.process.wait(timeout=60) == 3
    assert f"the socket file {server.socket} was removed or replaced" in log.read_text()


def test_a_half_closed_client_gets_its_reply(server: Server) -> None:
    request = {"id": "r1", "method": "interaction.remember", "params": {"interaction_id": "t-1", "user_text": "在吗"}}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(str(server.socket))
        sock.sendall(json.dumps(request, ensure_ascii=False).encode() + b"\n")
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(1 << 16):
            data += chunk
    [reply] = [json.loads(row) for row in data.splitlines()]
    assert reply["id"] == "r1" and reply["ok"] is True and reply["result"]["created"] is True
    [again] = send_lines(server.socket, [json.dumps({**request, "id": "r2"}).encode()])
    assert json.loads(again)["result"]["created"] is False  # the first one was committed


def test_idle_connections_time_out_and_the_client_reconnects(short_dir: Path, launch: Launch) -> None:
    server = launch(short_dir / "home", short_dir / "run" / "jiyi.sock", env={"JIYI_IDLE_TIMEOUT": "1"})
    with JiyiClient(server.socket, timeout=30) as client:
        assert client.health()["pid"] == server.process.pid
        with connections(server.socket, 1, timeout=30) as [silent]:
            assert silent.recv(100) == b""  # closed by the server once idle, as the client's own connection
        assert client.health()["pid"] == server.process.pid  # a fresh connection, transparently
    assert server.stop() == 0


@pytest.mark.slow  # pipelines thousands of requests for 768 KB answers
def test_a_client_that_reads_no_replies_keeps_the_server_small(short_dir: Path, launch: Launch) -> None:
    server = launch(short_dir / "home", short_dir / "run" / "jiyi.sock")
    with JiyiClient(server.socket, timeout=60) as client:
        for name in ("notes.md", "more.md", "rest.md"):  # a document holds 256 KiB at most: three make 768 KB
            put = client.put_document("project/big", name, "记忆" * 43_500, expected_revision=0)
            assert put["revision"] == 1  # 87,000 characters: 261 KB in UTF-8
    get = json.dumps({"id": "x" * 190, "method": "bundle.get", "params": {"bundle_id": "project/big"}}).encode()
    [first] = send_lines(server.socket, [get], timeout=60)
    assert len(first) > 768_000
    before = memory_kb(server.process.pid)
    with connections(server.socket, 1, timeout=3) as [hog]:
        with pytest.raises(TimeoutError):
            hog.sendall((get + b"\n") * 5000)  # ~1.2 MB of requests; 3.8 GB of answers nobody reads
        grown = memory_kb(server.process.pid, "VmHWM") - before
        assert grown < 200_000, f"the server grew by {grown} kB"
    assert answers_health(server)
    assert server.stop() == 0


@pytest.mark.slow  # sends 300 MB
def test_many_unfinished_lines_keep_the_server_small(short_dir: Path, launch: Launch) -> None:
    server = launch(short_dir / "home", short_dir / "run" / "jiyi.sock")
    assert answers_health(server)
    before = memory_kb(server.process.pid)
    unfinished = b'{"id": 1, "method": "health", "params": {"pad": "' + b"a" * ((1 << 20) - 100)
    with connections(server.socket, 300, timeout=30) as socks:
        assert len(socks) == 300
        for sock in socks:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                sock.sendall(unfinished)  # held open, never finished
        assert answers_health(server)
        grown = memory_kb(server.process.pid) - before
        assert grown < 150_000, f"the server grew by {grown} kB"
    assert answers_health(server)
    assert server.stop() == 0
