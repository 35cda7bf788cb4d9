"""A real `jiyi serve` process on a real socket, for the service tests."""

from __future__ import annotations

import contextlib
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # the in-process host tests need a Qt application

import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from service.config import Config, load_config, save_settings
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.rpc.host import SocketHost
from tests.postgres_server import PostgresServer
from tests.service.inprocess import in_thread

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


# A deadline for start-up, not a claim about its speed: on a loaded 2-core CI machine running the suite on
# every core, `jiyi serve` took over 30 s to import and listen.
def wait_for_socket(path: Path, process: subprocess.Popen[bytes], timeout: float = 90.0) -> None:
    if sys.platform == "win32":
        pytest.skip("talks to the service over a Unix socket (Unix only)")
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


# Runs `jiyi serve` with a lower open-file limit (soft and hard), as `prlimit --nofile=N:N` would.
_LIMITED = (
    "import os, resource, sys; n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_NOFILE, (n, n)); "
    "os.execv(sys.argv[2], sys.argv[2:])"
)


def start_server(
    home: Path,
    sock: Path,
    *extra: str,
    env: Mapping[str, str] | None = None,
    open_files: int | None = None,
    log: Path | None = None,
) -> Server:
    """A `jiyi serve` listening on `sock`; a process that never listens is killed, not left behind.

    `env` adds `JIYI_*` settings, `open_files` sets its open-file limit, `log`
    receives its stderr (else it is discarded).
    """
    environment = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")} | dict(env or {})
    command = [JIYI, "serve", "--home", str(home), "--socket", str(sock), *extra]
    if open_files is not None:
        command = [sys.executable, "-c", _LIMITED, str(open_files), *command]
    with open(log or os.devnull, "wb") as stderr:
        process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        wait_for_socket(sock, process)
    except BaseException:
        process.kill()
        process.wait(timeout=30)
        raise
    return Server(process, sock, home)


def point_at(home: Path, database_url: str, postgres: PostgresServer) -> None:
    """Make `home` (created if missing) keep its store in `database_url` (what `jiyi migrate` would set)."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    save_settings(home, {"database_url": database_url, "database_password_file": str(postgres.password_file)})


@contextlib.contextmanager
def private_folder() -> Iterator[Path]:
    """A short private folder (socket paths must stay under ~100 bytes), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="jy", dir="/tmp"))
    os.chmod(folder, 0o700)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A short private folder: socket paths must stay under ~100 bytes."""
    with private_folder() as folder:
        yield folder


@pytest.fixture
def launch(database_url: str, request: pytest.FixtureRequest) -> Iterator[Callable[..., Server]]:
    """Start `jiyi serve` processes (as `start_server`); any still running when the test ends is killed.

    On the postgresql back end each home's config.toml points at the test's database first.
    """
    started: list[Server] = []

    def start(home: Path, sock: Path, *extra: str, **options: Any) -> Server:
        if database_url:
            point_at(home, database_url, request.getfixturevalue("postgres"))
        started.append(start_server(home, sock, *extra, **options))
        return started[-1]

    yield start
    for running in started:
        if running.alive():
            running.process.kill()
            running.process.wait(timeout=30)


@pytest.fixture(scope="module")
def shared_server() -> Iterator[Server]:
    """One `jiyi serve` for a module's tests that neither write nor depend on each other's writes."""
    with private_folder() as folder:
        running = start_server(folder / "home", folder / "run" / "jiyi.sock")
        try:
            yield running
        finally:
            if running.stop() != 0:
                pytest.fail(f"the shared server exited with {running.process.returncode}")


@pytest.fixture
def server(short_dir: Path, launch: Callable[..., Server]) -> Iterator[Server]:
    """One `jiyi serve` on a fresh home; it must stop cleanly (exit 0) after the test."""
    running = launch(short_dir / "home", short_dir / "run" / "jiyi.sock")
    yield running
    assert running.stop() == 0


def send_lines(path: Path, lines: list[bytes], timeout: float = 30.0) -> list[bytes]:
    """Send lines on one connection and read one response line per request line (waiting at most `timeout`
    for each read: a deadline for a loaded machine, not a claim about the service's speed)."""
    if sys.platform == "win32":
        pytest.skip("talks to the service over a Unix socket (Unix only)")
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


# The job tests' memory on a socket, with a console attached: a module that asks for them defines `hashed`,
# the `Memory` served (hash embedder), opened on `hashed_config`.


@pytest.fixture
def hashed_config(home: Path) -> Config:
    return load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})


@pytest.fixture
def host(hashed: Memory, short_dir: Path) -> Iterator[SocketHost]:
    served = SocketHost(hashed, short_dir / "run" / "jiyi.sock", workers=2)
    served.start()
    yield served
    served.stop()


@pytest.fixture
def remote(qtbot: QtBot, host: SocketHost, hashed_config: Config) -> Iterator[RemoteMemory]:
    attached = in_thread(qtbot, lambda: RemoteMemory.attach(hashed_config, host.path))
    yield attached
    attached.close()
