"""Connections that send a request line slowly on purpose (slowloris): a deadline per line, and who goes first
when the connection table is full.

Idle time alone does not stop a client that sends one byte every few seconds:
its connection is never idle, its line never ends, and a thousand of them
hold every slot of the table. So a request line must complete within
`LINE_DEADLINE` seconds of its first byte, and when the table is full the
connection whose unfinished line began longest ago is closed to make room
for the new one, instead of refusing the newcomer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from service.rpc.connection import Connection

LINE_DEADLINE = 30.0
"""Seconds a request line may take from its first byte to its newline (a 64 MiB line at ~2 MB/s fits)."""


class _HasConnection(Protocol):
    @property
    def connection(self) -> Connection: ...


L = TypeVar("L", bound=_HasConnection)


def trickling(connection: Connection) -> bool:
    """Whether the connection is only receiving an unfinished line: nothing of it runs or waits to be sent."""
    return (
        connection.line_started is not None
        and not connection.busy
        and not connection.has_lines
        and not connection.outbox
        and connection.refusal is None
    )


def overdue(links: Iterable[L], now: float, deadline: float) -> list[L]:
    """The links whose unfinished request line began more than `deadline` seconds before `now`."""
    return [
        link
        for link in links
        if trickling(link.connection)
        and link.connection.line_started is not None
        and now - link.connection.line_started > deadline
    ]


def longest_trickling(links: Iterable[L]) -> L | None:
    """The link whose unfinished line began first (the one to close for a newcomer), or None."""
    candidates = [link for link in links if trickling(link.connection)]
    return min(candidates, key=lambda link: link.connection.line_started or 0.0, default=None)
