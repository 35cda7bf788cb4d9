"""A real `chroma run` server on 127.0.0.1 for the tests and benchmarks that use `JIYI_CHROMA_URL`."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CHROMA = Path(sys.executable).parent / "chroma"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def chroma_server(folder: Path, timeout: float = 60.0) -> Iterator[str]:
    """A Chroma server keeping its data in `folder`, for as long as the block runs; yields its URL once it
    answers its heartbeat (`RuntimeError` when it does not within `timeout` seconds, or exits)."""
    port = free_port()
    server = subprocess.Popen(
        [str(CHROMA), "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("chroma run did not start") from None
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
