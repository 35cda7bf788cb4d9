"""The attached console's side of the socket: closing it cuts a long call short (the service goes on)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from service.remote.channel import Wire
from store.core.errors import EnvironmentProblem


def test_closing_cuts_a_long_call_that_waits_for_its_answer(short_dir: Path) -> None:
    # A service busy with a long request: it accepts, reads, and has not answered yet.
    path = short_dir / "busy.sock"
    busy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    busy.bind(str(path))
    busy.listen(1)
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
