"""The service over its real socket: framing, ordering, limits, the client, stale sockets."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from service.client import JiyiClient, ServiceError
from service.rpc.protocol import PROTOCOL_VERSION
from tests.json_reads import dig
from tests.service.conftest import JIYI, Server, send_lines

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("talks to the service over a Unix socket (Unix only)", allow_module_level=True)


def test_one_request_per_connection(server: Server) -> None:
    for i in range(5):
        [line] = send_lines(server.socket, [json.dumps({"id": i, "method": "health"}).encode()])
        response = json.loads(line)
        assert response["id"] == i and response["ok"] is True and response["result"]["protocol"] == PROTOCOL_VERSION
    [line] = send_lines(server.socket, [b'{"id": "v2", "v": 2, "method": "health"}'])
    refused = json.loads(line)
    assert refused["id"] == "v2" and refused["error"]["code"] == "unsupported_version"


def test_many_pipelined_requests_on_one_connection_are_answered_in_order(server: Server) -> None:
    lines = [
        json.dumps({"id": i, "method": "app.resolve", "params": {"name": f"应用{i}"}}).encode() for i in range(200)
    ]
    responses = [json.loads(line) for line in send_lines(server.socket, lines)]
    assert [r["id"] for r in responses] == list(range(200))


def test_a_request_split_across_writes_and_crlf(server: Server) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(server.socket))
        for piece in (b'{"id": "x", "met', b'hod": "hea', b'lth"}\r\n'):
            sock.sendall(piece)
        response = json.loads(sock.recv(65536).splitlines()[0])
    assert response["id"] == "x" and response["ok"]


def test_a_line_over_the_limit_is_refused_and_the_connection_closed(server: Server) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(20)
        sock.connect(str(server.socket))
        with contextlib.suppress(OSError):  # the server may close before everything is sent
            sock.sendall(b'{"id": 1, "method": "health", "params": {"pad": "' + b"a" * (2 << 20))
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
    response = json.loads(data.splitlines()[0])
    assert response["error"]["code"] == "invalid_request" and "longer than" in response["error"]["message"]
    with JiyiClient(server.socket) as client:
        assert client.health()["pid"] == server.process.pid


def test_the_client_reports_a_request_over_the_limit_as_refused_not_as_the_service_away(server: Server) -> None:
    """The service answers a line over its limit and closes; the client's send then fails. It used to report
    "unavailable: the Jiyi service closed the connection" (degraded), which an agent retries for ever."""
    with JiyiClient(server.socket, timeout=20) as client:
        for _ in range(2):  # on a fresh connection, and on one reused after the refusal closed it
            refused = client.remember_interaction("big-1", "x" * (2 << 20), "ok")
            assert refused["stored"] is False and refused["degraded"] is False, refused
            assert dig(refused, "error", "code") == "invalid_request"
            assert "longer than 1048576 bytes" in str(dig(refused, "error", "message"))
        assert client.health()["pid"] == server.process.pid


@pytest.mark.slow  # starts two servers
def test_the_client_reuses_its_connection_and_survives_a_restart(
    short_dir: Path, launch: Callable[..., Server]
) -> None:
    sock_path = short_dir / "run" / "jiyi.sock"
    first = launch(short_dir / "home", sock_path)
    client = JiyiClient(sock_path, timeout=10)
    assert client.learn_alias("绿泡泡", "com.tencent.mm")["stored"] is True
    connection = client._sock
    assert client.resolve_app("绿泡泡")["package"] == "com.tencent.mm"
    assert client._sock is connection  # reused
    assert first.stop() == 0
    down = client.resolve_app("绿泡泡")
    assert down["state"] == "unknown" and down["degraded"] is True
    not_stored = client.learn_alias("小黄", "com.sankuai.meituan")
    assert not_stored["stored"] is False and not_stored["degraded"] is True
    assert dig(not_stored, "error", "code") == "unavailable"
    second = launch(short_dir / "home", sock_path)
    try:
        assert client.resolve_app("绿泡泡")["state"] == "resolved"
    finally:
        client.close()
        assert second.stop() == 0


def test_a_strict_client_raises(short_dir: Path, server: Server) -> None:
    with pytest.raises(ServiceError) as down:
        JiyiClient(short_dir / "nowhere.sock", strict=True).health()
    assert down.value.degraded and down.value.code == "unavailable"
    with pytest.raises(ServiceError) as bad, JiyiClient(server.socket, strict=True) as client:
        client.learn_alias("x", "not-a-package")
    assert bad.value.code == "invalid_params" and not bad.value.degraded


def test_server_errors_do_not_raise_into_the_agent(server: Server) -> None:
    with JiyiClient(server.socket) as client:
        refused = client.learn_alias("13812345678", "com.tencent.mm")
        assert refused["stored"] is False and refused["degraded"] is False
        assert dig(refused, "error", "code") == "forbidden"
        assert client.resolve_app("")["state"] == "unknown"


def test_the_socket_is_private(server: Server) -> None:
    assert stat.S_IMODE(server.socket.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(server.socket.stat().st_mode) & 0o077 == 0


@pytest.mark.slow  # starts two servers
def test_a_stale_socket_is_removed_only_when_nobody_listens(short_dir: Path, launch: Callable[..., Server]) -> None:
    sock_path = short_dir / "run" / "jiyi.sock"
    sock_path.parent.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(sock_path))
    dead.close()  # the file stays, nobody listens
    running = launch(short_dir / "home", sock_path)
    try:
        with JiyiClient(sock_path) as client:
            assert client.health()["home"] == str(short_dir / "home")
        second = subprocess.run(
            [JIYI, "serve", "--home", str(short_dir / "other"), "--socket", str(sock_path)],
            capture_output=True,
            text=True,
            timeout=60,
            env={k: v for k, v in os.environ.items() if not k.startswith("JIYI_")},
        )
        assert second.returncode == 3
        assert f"already served by pid {running.process.pid}" in second.stderr
        assert not (short_dir / "other").exists()  # refused before the home was touched
    finally:
        assert running.stop() == 0
    assert not sock_path.exists()


def test_a_second_server_on_the_same_home_names_the_first(short_dir: Path, server: Server) -> None:
    second = subprocess.run(
        [JIYI, "serve", "--home", str(server.home), "--socket", str(short_dir / "other.sock")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert second.returncode == 3 and f"pid {server.process.pid}" in second.stderr


def test_a_path_that_is_not_a_socket_is_refused(short_dir: Path) -> None:
    (short_dir / "run").mkdir(mode=0o700)
    (short_dir / "run" / "jiyi.sock").write_text("not a socket")
    done = subprocess.run(
        [JIYI, "serve", "--home", str(short_dir / "home"), "--socket", str(short_dir / "run" / "jiyi.sock")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3 and "is not a socket" in done.stderr


def test_the_agent_example_runs_a_whole_lifecycle(server: Server) -> None:
    from tests.conftest import REPO

    done = subprocess.run(
        [sys.executable, str(REPO / "docs" / "agent-example.py"), "--socket", str(server.socket)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "learned 红薯 → com.xingin.xhs" in done.stdout
    assert "resolved: com.xingin.xhs" in done.stdout


def test_the_line_limit_is_configurable(short_dir: Path, launch: Callable[..., Server]) -> None:
    home = short_dir / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text("max_line_bytes = 2048\n", "utf-8")
    running = launch(home, short_dir / "run" / "jiyi.sock")
    try:
        long_name = "名" * 1000  # 3000 bytes of UTF-8
        [line] = send_lines(
            running.socket,
            [
                json.dumps(
                    {"id": 1, "method": "app.resolve", "params": {"name": long_name}}, ensure_ascii=False
                ).encode()
            ],
        )
        assert json.loads(line)["error"]["code"] == "invalid_request"
        [line] = send_lines(running.socket, [b'{"id": 2, "method": "health"}'])
        assert json.loads(line)["ok"] is True
    finally:
        assert running.stop() == 0
