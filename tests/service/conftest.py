"""A real `jiyi serve` process on a real socket, for the service tests."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

JIYI = str(Path(sys.executable).parent / "jiyi")


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    socket: Path
    home: Path

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=30)

    def alive(self) -> bool:
        return self.process.poll() is None


def wait_for_socket(path: Path, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jiyi serve exited with {process.returncode}")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
            return
        except OSError:
            time.sleep(0.05)
        finally:
            probe.close()
    raise TimeoutError(f"jiyi serve did not listen on {path}")


def start_server(home: Path, sock: Path, *extra: str) -> Server:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    process = subprocess.Popen(
        [JIYI, "serve", "--home", str(home), "--socket", str(sock), *extra],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_socket(sock, process)
    return Server(process, sock, home)


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A short private folder: socket paths must stay under ~100 bytes."""
    folder = Path(tempfile.mkdtemp(prefix="jy", dir="/tmp"))
    os.chmod(folder, 0o700)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def server(short_dir: Path) -> Iterator[Server]:
    running = start_server(short_dir / "home", short_dir / "run" / "jiyi.sock")
    yield running
    assert running.stop() == 0


def send_lines(path: Path, lines: list[bytes], timeout: float = 10.0) -> list[bytes]:
    """Send lines on one connection and read one response line per request line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        sock.sendall(b"".join(line + b"\n" for line in lines))
        data = b""
        while data.count(b"\n") < len(lines):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return data.splitlines()
