"""The socket host's `Connection` on its own, over `socket.socketpair()`: partial lines, refusals,
half-closes and full buffers, without Qt (the shape of qutebrowser's IPC tests)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from service.rpc.connection import Connection, LineBudget, LineTooLong


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    server, client = socket.socketpair()
    server.setblocking(False)  # as the host's transport hands an accepted socket over
    client.settimeout(5)
    yield server, client
    server.close()
    client.close()


def connect(server: socket.socket, *, max_line: int = 64, max_output: int = 1 << 16, cap: int = 1 << 20) -> Connection:
    return Connection(1, server, max_line=max_line, max_output=max_output, budget=LineBudget(cap))


def feed(connection: Connection, client: socket.socket, data: bytes) -> None:
    """The client sends `data`; the connection reads until it has all of it."""
    client.sendall(data)
    want = len(connection.inbox) + len(data)
    while len(connection.inbox) < want:
        connection.receive()


def lines(connection: Connection) -> list[bytes]:
    taken = []
    while (line := connection.take_line()) is not None:
        taken.append(line)
    return taken


@pytest.mark.parametrize(
    ("chunks", "expected", "unfinished"),
    [
        ([b'{"id":1}\n'], [b'{"id":1}'], 0),
        ([b'{"id"', b":1}\n"], [b'{"id":1}'], 0),
        ([b"a\nb\n"], [b"a", b"b"], 0),
        ([b"a\r\n", b"\n", b"   \n", b"b\n"], [b"a", b"b"], 0),  # CRLF ends a line; blank lines are skipped
        ([b"a\nbc"], [b"a"], 2),  # the tail waits for its newline
        ([b"ab", b"c", b"d"], [], 4),
        ([b"\xe8\xae", b"\xb0\n"], ["记".encode()], 0),  # a character split between two reads
    ],
    ids=["whole", "split", "two in one read", "crlf and blanks", "tail", "trickle", "split character"],
)
def test_partial_lines_come_out_whole_and_in_order(
    pair: tuple[socket.socket, socket.socket], chunks: list[bytes], expected: list[bytes], unfinished: int
) -> None:
    server, client = pair
    connection = connect(server)
    taken: list[bytes] = []
    for chunk in chunks:
        feed(connection, client, chunk)
        taken += lines(connection)
    assert taken == expected
    assert connection.unfinished == unfinished and connection.budget.held == unfinished
    assert connection.wants_read and not connection.finished


def test_a_complete_line_waiting_stops_reading_until_it_is_taken(pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    connection = connect(server)
    feed(connection, client, b"a\nb\n")
    assert connection.has_lines and not connection.wants_read  # no more input while requests wait
    assert connection.take_line() == b"a"
    connection.busy = True
    assert not connection.accepts_work
    connection.busy = False
    assert connection.take_line() == b"b" and connection.wants_read


def test_a_half_close_still_answers_the_last_line_without_its_newline(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    server, client = pair
    connection = connect(server)
    feed(connection, client, b"first\nlast")
    client.shutdown(socket.SHUT_WR)
    connection.receive()
    assert connection.read_closed and not connection.wants_read
    assert lines(connection) == [b"first", b"last"] and connection.budget.held == 0
    connection.queue(b"reply\n")
    assert not connection.finished  # the replies go out first
    connection.send()
    assert connection.finished
    assert client.recv(100) == b"reply\n"


def test_a_half_close_with_nothing_sent_is_finished_at_once(pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    connection = connect(server)
    client.shutdown(socket.SHUT_WR)
    connection.receive()
    assert connection.read_closed and connection.finished and connection.take_line() is None


def test_a_line_over_the_limit_is_refused_and_its_bytes_dropped(pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    connection = connect(server, max_line=8)
    feed(connection, client, b"ok\n" + b"x" * 20 + b"\nnext\n")
    assert connection.take_line() == b"ok"
    with pytest.raises(LineTooLong):
        connection.take_line()
    assert not connection.inbox and connection.budget.held == 0  # nothing after the long line is served


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "a request under way"])
def test_a_refusal_goes_out_after_the_requests_before_it_then_the_connection_closes(
    pair: tuple[socket.socket, socket.socket], busy: bool
) -> None:
    server, client = pair
    connection = connect(server)
    feed(connection, client, b"a\npartial")
    connection.busy = busy
    connection.refuse(b'{"error":"refused"}\n')
    assert connection.unfinished == 0 and connection.budget.held == 0 and not connection.wants_read
    connection.send_refusal()
    assert connection.refusal is not None  # the complete line `a` is answered first
    assert connection.take_line() == b"a"
    connection.send_refusal()
    assert (connection.refusal is not None) == busy
    if busy:
        connection.busy = False
        connection.queue(b"answer-a\n")
        connection.send_refusal()
    assert connection.closing and not connection.accepts_work
    connection.send()
    assert connection.finished
    expected = (b"answer-a\n" if busy else b"") + b'{"error":"refused"}\n'
    assert client.recv(200) == expected


def test_unread_replies_past_the_cap_stop_reading_and_starting_requests(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    server, client = pair
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    connection = connect(server, max_output=1024)
    connection.queue(b"x" * (1 << 20))
    connection.send()  # the socket takes what fits; the rest waits
    assert connection.outbox and connection.wants_write
    assert not connection.wants_read and not connection.accepts_work
    while connection.outbox:
        client.recv(1 << 16)
        connection.send()
    assert connection.wants_read and connection.accepts_work and not connection.wants_write


def test_a_client_gone_while_replies_wait_breaks_the_connection(pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    connection = connect(server)
    feed(connection, client, b"a\n")
    client.close()
    connection.queue(b"reply\n" * 100_000)
    connection.send()
    assert connection.broken is not None and connection.finished and not connection.wants_write


def test_all_connections_share_one_budget_of_unfinished_lines() -> None:
    budget = LineBudget(10)
    pairs = [socket.socketpair() for _ in range(2)]
    for server, _ in pairs:
        server.setblocking(False)
    try:
        connections = [Connection(n, s, max_line=64, max_output=1024, budget=budget) for n, (s, _) in enumerate(pairs)]
        for connection, (_, client) in zip(connections, pairs, strict=True):
            feed(connection, client, b"123456")
        assert budget.held == 12 and budget.exceeded
        connections[0].close()  # its tail goes back to the budget
        assert budget.held == 6 and not budget.exceeded
    finally:
        for server, client in pairs:
            server.close()
            client.close()
