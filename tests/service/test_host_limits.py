"""The host in this process against hostile or careless clients (issue 15, denial of service).

One reply per request whatever the text; half-closed, idle and surplus
connections; unfinished lines and unread replies held within their caps. Each
test ends by asking `health` on a fresh connection: the host serves on.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from pytestqt.qtbot import QtBot

from service.memory.memory import Memory
from service.rpc.context import CallContext
from service.rpc.dispatch import Dispatcher
from service.rpc.host import SocketHost
from service.rpc.limits import default_max_connections
from service.rpc.methods import status
from service.rpc.registry import MethodTable, Registry
from tests.service.declared import NoArgs, declared
from tests.service.inprocess import HEALTH, exchange, in_thread, line, parse, read_lines

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("drives the host's limits over a Unix socket (Unix only)", allow_module_level=True)

MakeHost = Callable[..., SocketHost]


@pytest.fixture
def make_host(qtbot: QtBot, memory: Memory, short_dir: Path) -> Iterator[MakeHost]:
    """Start a host with the limits given; it is stopped after the test."""
    started: list[SocketHost] = []

    def make(**limits: Any) -> SocketHost:
        host = SocketHost(memory, short_dir / "run" / "jiyi.sock", workers=2, **limits)
        host.start()
        started.append(host)
        return host

    yield make
    for host in started:
        host.stop()


def serves_on(qtbot: QtBot, host: SocketHost) -> bool:
    [after] = exchange(qtbot, host, HEALTH + b"\n", replies=1)
    return after["id"] == "after" and after["ok"] is True


SURROGATE_ID = b'{"id": "\\ud800", "method": "health"}'
NOT_UNICODE = [
    ("a lone surrogate as id", SURROGATE_ID, "invalid_request", None),
    ("a lone low surrogate as id", b'{"id": "x\\uDC00", "method": "health"}', "invalid_request", None),
    ("a lone surrogate in memory.recall's query",
     b'{"id": 2, "method": "memory.recall", "params": {"query": "\\u5929\\ud800"}}', "invalid_params", 2),
    ("a lone surrogate in context.prepare's query",
     b'{"id": 3, "method": "context.prepare", "params": {"query": "a\\ud83d"}}', "invalid_params", 3),
    ("a lone surrogate in a param's name", b'{"id": 4, "method": "health", "params": {"\\udfff": 1}}',
     "invalid_params", 4),
    ("a lone surrogate as the method", b'{"id": 5, "method": "\\ud800"}', "invalid_request", 5),
    ("a 5000-digit id", b'{"id": %s, "method": "health"}' % (b"7" * 5000), "parse_error", None),
]  # fmt: skip


@pytest.mark.before_the_store
@pytest.mark.parametrize(("line", "code", "request_id"), [r[1:] for r in NOT_UNICODE], ids=[r[0] for r in NOT_UNICODE])
def test_text_that_is_not_unicode_is_answered_and_the_connection_serves_on(
    qtbot: QtBot, make_host: MakeHost, line: bytes, code: str, request_id: object
) -> None:
    host = make_host()
    refused, after = exchange(qtbot, host, line + b"\n" + HEALTH + b"\n", replies=2)
    assert refused["ok"] is False and refused["id"] == request_id and refused["error"]["code"] == code
    assert after["id"] == "after" and after["ok"] is True  # the same connection is not stuck
    assert serves_on(qtbot, host)


def test_a_surrogate_pair_is_one_character(qtbot: QtBot, make_host: MakeHost) -> None:
    [reply] = exchange(qtbot, make_host(), b'{"id": "\\ud83d\\ude00", "method": "health"}\n', replies=1)
    assert reply["id"] == "😀" and reply["ok"] is True


@pytest.mark.parametrize("instant", [False, True], ids=["on a worker", "on the loop"])
def test_an_answer_that_cannot_be_encoded_is_internal_and_the_connection_serves_on(
    qtbot: QtBot, make_host: MakeHost, memory: Memory, caplog: pytest.LogCaptureFixture, instant: bool
) -> None:
    caplog.errors_expected = True  # type: ignore[attr-defined,unused-ignore]
    table = MethodTable("broken")
    on_loop = (lambda _memory: True) if instant else None
    table.op(declared("echo.bad"), instant=on_loop)(lambda _m, _a, _c: {"text": "\ud800"})
    host = make_host()
    host.dispatcher = Dispatcher(memory, Registry(status.TABLE, table))
    bad, after = exchange(qtbot, host, b'{"id": 1, "method": "echo.bad"}\n' + HEALTH + b"\n", replies=2)
    assert bad["id"] == 1 and bad["error"]["code"] == "internal"
    assert after["ok"] is True
    assert "not valid JSON" in caplog.text


def test_a_failure_before_a_method_runs_is_answered(
    qtbot: QtBot, make_host: MakeHost, memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    def broken_check(_memory: Memory) -> bool:
        raise RuntimeError("a bug deciding where to run")

    caplog.errors_expected = True  # type: ignore[attr-defined,unused-ignore]
    table = MethodTable("broken")
    table.op(declared("check.bad"), instant=broken_check)(lambda _m, _a, _c: {})
    host = make_host()
    host.dispatcher = Dispatcher(memory, Registry(status.TABLE, table))
    bad, after = exchange(qtbot, host, b'{"id": 7, "method": "check.bad"}\n' + HEALTH + b"\n", replies=2)
    assert bad["id"] == 7 and bad["error"]["code"] == "internal"
    assert after["ok"] is True


def test_a_half_closed_connection_gets_the_replies_to_what_it_sent(
    qtbot: QtBot, make_host: MakeHost, memory: Memory
) -> None:
    host = make_host()
    remember = line(
        {"id": 1, "method": "interaction.remember", "params": {"interaction_id": "半关", "user_text": "你好"}}
    )
    # The last request has no newline: after end-of-file it still counts as a line.
    replies = exchange(qtbot, host, remember + b"\n" + HEALTH, replies=3, half_close=True)
    assert [r["id"] for r in replies] == [1, "after"]  # then end-of-file: the host closed once it had answered
    assert replies[0]["ok"] is True and replies[0]["result"]["created"] is True
    assert memory.desk.get_interaction("半关")["user_text"] == "你好"
    qtbot.waitUntil(lambda: host.connection_count == 0, timeout=10_000)
    assert serves_on(qtbot, host)


def test_idle_connections_are_closed(qtbot: QtBot, make_host: MakeHost, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "jiyi.service")
    host = make_host(idle_timeout=0.3)

    def idle_clients() -> list[bytes]:
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unfinished = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with silent, unfinished:
            for sock in (silent, unfinished):
                sock.settimeout(10)
                sock.connect(str(host.path))
            unfinished.sendall(b'{"id": 1, "method": "hea')
            return [silent.recv(100), unfinished.recv(100)]  # b"" is end-of-file: the host closed them

    assert in_thread(qtbot, idle_clients) == [b"", b""]
    assert "idle for 0.3 s" in caplog.text
    assert serves_on(qtbot, host)


def test_unfinished_lines_are_bounded_across_connections(
    qtbot: QtBot, make_host: MakeHost, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "jiyi.service")
    host = make_host(max_line=64_000, max_unfinished=250_000)
    socks = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(10)]
    held: list[int] = []

    def unfinished_lines() -> None:
        for sock in socks:
            sock.settimeout(10)
            sock.connect(str(host.path))
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                sock.sendall(b"a" * 60_000)  # no newline: an unfinished line, held open

    def all_read() -> bool:
        held.append(host.budget.held)
        refused = caplog.text.count("unfinished request lines")
        return refused + host.connection_count == len(socks) and host.budget.held == 60_000 * host.connection_count

    def finish() -> list[bytes]:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)  # end-of-file: a kept line is answered as the last one
        return [b"".join(read_lines(sock, 2)) for sock in socks]

    try:
        in_thread(qtbot, unfinished_lines, watch=lambda: held.append(host.budget.held))
        qtbot.waitUntil(all_read, timeout=10_000)
        answers = [parse(reply) for reply in in_thread(qtbot, finish)]
    finally:
        for sock in socks:
            sock.close()
    codes = [a["error"]["code"] for a in answers]
    assert codes.count("parse_error") <= 250_000 // 60_000  # what fits the budget was kept (and answered at EOF)
    assert codes.count("unavailable") + codes.count("parse_error") == len(socks)
    assert max(held) <= host.budget.cap
    qtbot.waitUntil(lambda: host.connection_count == 0, timeout=10_000)
    assert host.budget.held == 0
    assert serves_on(qtbot, host)


def test_a_client_that_reads_no_replies_is_read_no_further(qtbot: QtBot, make_host: MakeHost, memory: Memory) -> None:
    host = make_host(max_output=200_000)
    memory.bundles.put_bundle_document("project/大文档", "notes.md", "记忆的内容" * 4000, expected_revision=0)
    request = line({"id": 0, "method": "bundle.get", "params": {"bundle_id": "project/大文档"}}) + b"\n"
    requests = 10_000  # ~760 KB of requests, more than the socket buffers hold, for ~600 MB of replies
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    served: list[int] = []
    host.request_served.connect(lambda: served.append(host.buffered_output))

    def pipeline() -> bool:
        """Send every request without reading; True when the host stopped reading them."""
        client.settimeout(3)
        client.connect(str(host.path))
        try:
            client.sendall(request * requests)
        except TimeoutError:
            return True
        return False

    try:
        assert in_thread(qtbot, pipeline) is True
        reply = host.dispatcher.handle(request.strip())
        reply_size = len(json.dumps(reply, ensure_ascii=False, default=msgspec.to_builtins).encode()) + 1
        assert len(served) < requests
        assert host.buffered_output <= host.max_output + reply_size
        assert max(served) <= host.max_output + reply_size

        def read_some() -> list[bytes]:
            client.settimeout(10)
            return read_lines(client, 40)

        replies = in_thread(qtbot, read_some)  # reading lets the host go on
        assert len(replies) >= 40 and all(parse(r)["ok"] for r in replies[:40])
    finally:
        client.close()
    qtbot.waitUntil(lambda: host.connection_count == 0, timeout=10_000)
    assert serves_on(qtbot, host)


def test_connections_past_the_cap_are_refused_with_one_line(qtbot: QtBot, make_host: MakeHost) -> None:
    host = make_host(max_connections=3)

    def five_clients() -> list[bytes]:
        socks = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(5)]
        try:
            for sock in socks:
                sock.settimeout(10)
                sock.connect(str(host.path))
            answers = []
            for sock in socks:
                with contextlib.suppress(BrokenPipeError):  # a refused one may be closed already
                    sock.sendall(HEALTH + b"\n")
                answers.append(b"".join(read_lines(sock, 1)))
            return answers
        finally:
            for sock in socks:
                sock.close()

    answers = [parse(a) for a in in_thread(qtbot, five_clients)]
    assert [a["ok"] for a in answers] == [True, True, True, False, False]
    for refused in answers[3:]:
        assert refused["error"]["code"] == "unavailable" and "too many connections" in refused["error"]["message"]
    qtbot.waitUntil(lambda: host.connection_count == 0, timeout=10_000)
    assert serves_on(qtbot, host)


def test_the_connection_cap_is_derived_from_the_raised_open_file_limit(qtbot: QtBot, make_host: MakeHost) -> None:
    import resource

    host = make_host(max_connections=0)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert soft == hard or hard == resource.RLIM_INFINITY  # start() raised the soft limit
    assert host.max_connections == default_max_connections(soft)


def test_the_soft_open_file_limit_is_raised_to_the_hard_one() -> None:
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (64, 256)); "
        "from service.rpc.limits import raise_open_file_limit; print(raise_open_file_limit(), "
        "resource.getrlimit(resource.RLIMIT_NOFILE)[0])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["256", "256"]


def test_a_removed_socket_file_is_reported(qtbot: QtBot, make_host: MakeHost, caplog: pytest.LogCaptureFixture) -> None:
    caplog.errors_expected = True  # type: ignore[attr-defined,unused-ignore]
    host = make_host()
    with qtbot.waitSignal(host.listener_failed, timeout=10_000) as failed:
        host.path.unlink()
    assert "removed" in str(failed.args[0]) and not host.listening
    assert "agents can no longer connect" in caplog.text


def test_a_connection_waiting_for_its_answer_is_not_idle(qtbot: QtBot, make_host: MakeHost, memory: Memory) -> None:
    release = threading.Event()

    def slow(_memory: Memory, _args: NoArgs, _context: CallContext) -> dict[str, str]:
        release.wait(10)
        return {"done": "yes"}

    table = MethodTable("slow")
    table.op(declared("slow.wait"))(slow)
    host = make_host(idle_timeout=0.3)
    host.dispatcher = Dispatcher(memory, Registry(status.TABLE, table))

    def clients() -> tuple[bytes, list[bytes]]:
        waiting = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with waiting, silent:
            for sock in (waiting, silent):
                sock.settimeout(10)
            waiting.connect(str(host.path))
            waiting.sendall(b'{"id": 1, "method": "slow.wait"}\n')
            silent.connect(str(host.path))
            closed = silent.recv(100)  # the later, silent connection is closed as idle...
            release.set()
            return closed, read_lines(waiting, 1)  # ...while the earlier one, waiting for its answer, is not

    closed, [reply] = in_thread(qtbot, clients)
    assert closed == b"" and parse(reply)["result"] == {"done": "yes"}
    assert serves_on(qtbot, host)
