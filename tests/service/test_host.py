"""The socket host in this process, as qutebrowser tests its IPC: a real `QLocalServer` over a real `Memory`.

Clients are plain AF_UNIX sockets on a worker thread (`tests/service/inprocess.py`)
or a `QLocalSocket` whose replies are awaited on the loop, never with the
blocking `waitFor…` calls (against a server in the same thread they deadlock).
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtNetwork import QLocalSocket
from pytestqt.qtbot import QtBot

from service.memory.memory import Memory
from service.rpc.context import CallContext
from service.rpc.dispatch import Dispatcher
from service.rpc.headless import _quit_on_signals
from service.rpc.host import SocketHost
from service.rpc.methods import status
from service.rpc.protocol import ERROR_CODES, PROTOCOL_VERSION
from service.rpc.registry import MethodTable, Registry
from tests.service.declared import NoArgs, declared
from tests.service.inprocess import HEALTH, exchange, line

MAX_LINE = 1 << 16


@pytest.fixture
def host(qtbot: QtBot, memory: Memory, short_dir: Path) -> Iterator[SocketHost]:
    """A started host on a short socket path; stopped (workers drained, socket removed) after the test."""
    served = SocketHost(memory, short_dir / "run" / "jiyi.sock", workers=2, max_line=MAX_LINE)
    served.start()
    yield served
    served.stop()
    assert not served.path.exists()


INVALID = [
    ("not JSON", b"hello", "parse_error", None),
    ("truncated JSON", b'{"id": 1, "method": "hea', "parse_error", None),
    ("invalid UTF-8", b"\xff\xfe{}", "parse_error", None),
    ("invalid UTF-8 in a string", b'{"id": 1, "method": "health", "params": {"x": "\xc3\x28"}}', "parse_error", None),
    ("NaN", b'{"id": 1, "method": "recall.stats", "params": {"since": NaN}}', "parse_error", None),
    ("a 5000-digit number", b'{"id": 1, "method": "health", "params": {"x": %s}}' % (b"7" * 5000), "parse_error", None),
    ("nested too deeply", b"[" * 50_000, "parse_error", None),
    ("JSON array", b'[1, "health"]', "invalid_request", None),
    ("JSON string", b'"health"', "invalid_request", None),
    ("JSON null", b"null", "invalid_request", None),
    ("no method", b'{"id": 3}', "invalid_request", 3),
    ("method not a string", b'{"id": 4, "method": ["health"]}', "invalid_request", 4),
    ("id a boolean", b'{"id": true, "method": "health"}', "invalid_request", None),
    ("id a float", b'{"id": 1.5, "method": "health"}', "invalid_request", None),
    ("id an object", b'{"id": {"n": 1}, "method": "health"}', "invalid_request", None),
    ("id too long", b'{"id": "' + b"i" * 201 + b'", "method": "health"}', "invalid_request", None),
    ("unknown request field", b'{"id": 5, "method": "health", "prams": {}}', "invalid_request", 5),
    ("params a list", b'{"id": 6, "method": "health", "params": [1]}', "invalid_request", 6),
    ("params a string", line({"id": 7, "method": "app.resolve", "params": "微信"}), "invalid_request", 7),
    ("unknown method", b'{"id": 8, "method": "app.launch"}', "method_not_found", 8),
    ("unknown method without id", b'{"method": "app.launch"}', "method_not_found", None),
    ("a param of the wrong type", b'{"id": 9, "method": "app.resolve", "params": {"name": 5}}', "invalid_params", 9),
    ("a required param missing", b'{"id": 10, "method": "app.resolve", "params": {}}', "invalid_params", 10),
    ("an unknown param", b'{"id": 11, "method": "health", "params": {"verbose": true}}', "invalid_params", 11),
    ("a limit as text", b'{"id": 12, "method": "app.alias.list", "params": {"limit": "9"}}', "invalid_params", 12),
    ("v a float", b'{"id": 13, "v": 1.0, "method": "health"}', "invalid_request", 13),
    ("v bare text", b'{"id": 14, "v": "1", "method": "health"}', "invalid_request", 14),
    ("v a boolean", b'{"id": 15, "v": true, "method": "health"}', "invalid_request", 15),
    ("v of another major", b'{"id": 16, "v": 2, "method": "health"}', "unsupported_version", 16),
    ("v of another major as text", b'{"id": 17, "v": "0.9", "method": "health"}', "unsupported_version", 17),
    ("a sensitive value", line({"id": 18, "method": "app.alias.learn",
                                "params": {"name": "13812345678", "package": "com.tencent.mm"}}), "forbidden", 18),
]  # fmt: skip


@pytest.mark.before_the_store
@pytest.mark.parametrize(("line", "code", "request_id"), [row[1:] for row in INVALID], ids=[row[0] for row in INVALID])
def test_invalid_input_is_answered_and_the_host_keeps_serving(
    qtbot: QtBot, host: SocketHost, line: bytes, code: str, request_id: object
) -> None:
    refused, after = exchange(qtbot, host, line + b"\n" + HEALTH + b"\n", replies=2)
    assert refused["ok"] is False and refused["id"] == request_id
    assert refused["error"]["code"] == code and code in ERROR_CODES and refused["error"]["message"]
    assert after["id"] == "after" and after["ok"] is True and after["result"]["protocol"] == PROTOCOL_VERSION
    assert host.listening
    [again] = exchange(qtbot, host, HEALTH + b"\n", replies=1)
    assert again["ok"] is True


def test_a_refused_write_writes_nothing(qtbot: QtBot, host: SocketHost, memory: Memory) -> None:
    params = {"name": "绿泡泡", "package": "com.tencent.mm"}
    learn = [line({"id": i, "v": v, "method": "app.alias.learn", "params": params}) for i, v in ((1, 2), (2, "1.0"))]
    replies = exchange(qtbot, host, b"\n".join(learn) + b"\n", replies=2)
    assert [r["ok"] for r in replies] == [False, True]
    history = memory.appkb.alias_history("绿泡泡", limit=10)
    assert len(history) == 1  # only the request in a supported version was written


def test_blank_lines_get_no_answer(qtbot: QtBot, host: SocketHost) -> None:
    payload = b"\n \n\r\n\t\n" + b'{"id": 1, "method": "health"}\n' + b"\n\n" + b'{"id": 2, "method": "health"}\n'
    replies = exchange(qtbot, host, payload, replies=2)
    assert [r["id"] for r in replies] == [1, 2]  # an answer to a blank line would have come first, with id null


def test_a_request_without_id_is_answered_with_id_null(qtbot: QtBot, host: SocketHost) -> None:
    [reply] = exchange(qtbot, host, b'{"method": "health"}\n', replies=1)
    assert reply["id"] is None and reply["ok"] is True


def test_an_overlong_line_is_refused_the_connection_closed_and_the_host_serves_on(
    qtbot: QtBot, host: SocketHost
) -> None:
    overlong = b'{"id": 1, "method": "health", "params": {"pad": "' + b"a" * (MAX_LINE + 10)
    replies = exchange(qtbot, host, overlong, replies=2)
    # then EOF: the host closed the connection
    [refused] = replies
    assert refused["error"]["code"] == "invalid_request" and f"longer than {MAX_LINE}" in refused["error"]["message"]
    [after] = exchange(qtbot, host, HEALTH + b"\n", replies=1)
    assert after["ok"] is True


def test_an_overlong_line_behind_a_write_answers_the_write_first(
    qtbot: QtBot, host: SocketHost, memory: Memory
) -> None:
    write = line({"id": 1, "method": "app.alias.learn", "params": {"name": "小黄", "package": "com.sankuai.meituan"}})
    replies = exchange(qtbot, host, write + b"\n" + b"x" * (MAX_LINE + 10) + b"\n" + HEALTH + b"\n", replies=3)
    assert [r["id"] for r in replies] == [1, None]  # the health after the long line is never read
    assert replies[0]["ok"] is True and replies[1]["error"]["code"] == "invalid_request"
    assert memory.appkb.resolve_app("小黄").package == "com.sankuai.meituan"


def test_a_write_whose_client_left_is_committed(qtbot: QtBot, host: SocketHost, memory: Memory) -> None:
    write = line({"id": 1, "method": "app.alias.learn", "params": {"name": "大众点评儿", "package": "com.dianping.v1"}})
    assert exchange(qtbot, host, write + b"\n", replies=0) == []  # sent, then the client closed without reading
    qtbot.waitUntil(lambda: memory.appkb.resolve_app("大众点评儿").package == "com.dianping.v1", timeout=10_000)
    qtbot.waitUntil(lambda: host.connection_count == 0, timeout=10_000)
    [after] = exchange(qtbot, host, HEALTH + b"\n", replies=1)
    assert after["ok"] is True


def test_pipelined_requests_are_answered_in_order(qtbot: QtBot, host: SocketHost) -> None:
    lines = [
        json.dumps({"id": i, "v": "1.0", "method": "app.resolve", "params": {"name": f"应用{i}"}}).encode()
        if i % 3
        else json.dumps({"id": i, "method": "nope"}).encode()
        for i in range(60)
    ]
    replies = exchange(qtbot, host, b"\n".join(lines) + b"\n", replies=60)
    assert [r["id"] for r in replies] == list(range(60))
    assert [r["ok"] for r in replies] == [bool(i % 3) for i in range(60)]


def test_a_failure_inside_a_method_is_internal_and_the_host_serves_on(
    qtbot: QtBot, host: SocketHost, memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(_memory: Memory, _args: NoArgs, _context: CallContext) -> None:
        raise KeyError("secret detail")

    caplog.errors_expected = True  # type: ignore[attr-defined]
    table = MethodTable("broken")
    table.op(declared("boom", writes=True))(broken)
    host.dispatcher = Dispatcher(memory, Registry(status.TABLE, table))
    boom, after = exchange(qtbot, host, b'{"id": 1, "method": "boom"}\n' + HEALTH + b"\n", replies=2)
    assert boom["error"]["code"] == "internal" and "secret" not in boom["error"]["message"]
    assert after["ok"] is True
    assert "secret detail" in caplog.text


def test_a_qlocalsocket_client_waiting_on_signals(qtbot: QtBot, host: SocketHost) -> None:
    client = QLocalSocket()
    client.connectToServer(str(host.path))
    qtbot.waitUntil(lambda: client.state() == QLocalSocket.LocalSocketState.ConnectedState, timeout=5000)
    received: list[dict[str, Any]] = []

    def read_lines() -> None:
        while client.canReadLine():
            received.append(json.loads(bytes(client.readLine().data())))

    client.readyRead.connect(read_lines)
    client.write(b'{"id": 1, "v": 1, "method": "health"}\n{"id": 2, "v": "3.1", "method": "health"}\n')
    client.flush()
    qtbot.waitUntil(lambda: len(received) == 2, timeout=10_000)
    assert received[0]["result"]["protocol"] == PROTOCOL_VERSION
    assert received[1]["error"]["code"] == "unsupported_version" and PROTOCOL_VERSION in received[1]["error"]["message"]
    with qtbot.waitSignal(host.connections_changed, timeout=5000):
        client.disconnectFromServer()
    assert host.connection_count == 0
    client.deleteLater()


def test_a_stop_signal_before_the_loop_runs_still_ends_it(qapp: QCoreApplication) -> None:
    previous = _quit_on_signals(qapp)
    fallback = QTimer()
    fallback.setSingleShot(True)
    fallback.timeout.connect(lambda: qapp.exit(5))
    try:
        os.kill(os.getpid(), signal.SIGTERM)  # as a supervisor would, while the home is still opening
        fallback.start(10_000)
        assert qapp.exec() == 0
    finally:
        fallback.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
