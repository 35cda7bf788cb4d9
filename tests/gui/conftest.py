"""GUI tests run offscreen on a real `Memory` over a temporary home, on the console's qasync loop."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import QEventLoop, QThreadPool, QTimer
from PySide6.QtWidgets import QApplication

from gui.lanes import Lanes
from service.memory.api import MemoryApi
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.rpc.host import SocketHost

Attach = Callable[[Memory], MemoryApi]


@pytest.fixture
def socket_path() -> Iterator[Path]:
    """A socket path in a short private folder (socket paths must stay under ~100 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="jyg", dir="/tmp"))
    os.chmod(folder, 0o700)
    yield folder / "jiyi.sock"
    shutil.rmtree(folder, ignore_errors=True)


class HostThread:
    """A `SocketHost` of `memory` on a thread of its own, with its own Qt event loop, as `jiyi serve` has its
    own process: the console's threads (the test's, the lanes') may wait on it without stalling it."""

    def __init__(self, memory: Memory, path: Path) -> None:
        self.path = path
        self._memory = memory
        self._ready, self._stopping = threading.Event(), threading.Event()
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, name="test-socket-host", daemon=True)
        self._thread.start()
        if not self._ready.wait(30) or self._failed is not None:
            raise RuntimeError(f"the test's socket host did not start: {self._failed!r}")

    def _serve(self) -> None:
        loop = QEventLoop()
        try:
            host = SocketHost(self._memory, self.path, workers=2)
            host.start()
        except BaseException as exc:
            self._failed = exc
            self._ready.set()
            raise
        check = QTimer()
        check.timeout.connect(lambda: loop.quit() if self._stopping.is_set() else None)
        check.start(20)
        self._ready.set()
        loop.exec()
        check.stop()
        host.stop()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(30)


@pytest.fixture(params=["inprocess", "remote"])
def attach(request: pytest.FixtureRequest, socket_path: Path) -> Iterator[Attach]:
    """How a page under test reaches the memory the test filled: the `Memory` itself ("inprocess"), or, as the
    console runs by default, a `RemoteMemory` over a real socket ("remote").

    The remote one is served by a `SocketHost` of that same `Memory` (the code `jiyi serve` runs) on a thread
    with its own event loop: no process to start (~0.1 s a test instead of seconds), and the test keeps the
    `Memory` for what it writes and checks directly.
    """
    hosts: list[HostThread] = []
    remotes: dict[int, RemoteMemory] = {}  # by the served Memory's id: each is served once

    def attach_(memory: Memory) -> MemoryApi:
        if request.param == "inprocess":
            return memory
        if id(memory) not in remotes:
            hosts.append(HostThread(memory, socket_path.with_name(f"jiyi{len(hosts)}.sock")))
            remotes[id(memory)] = RemoteMemory.attach(memory.config, hosts[-1].path)
        return remotes[id(memory)]

    yield attach_
    for remote in remotes.values():
        remote.close()
    for host in hosts:
        host.stop()


@pytest.fixture
def lanes(qapp: QApplication) -> Iterator[Lanes]:
    """The console's read and write lanes on a qasync loop, as `run_console` makes them; drained after the test.

    In the console the loop runs `app.exec()`; here qtbot spins Qt's event loop
    instead, so the loop is marked running the way qasync's own `already_running`
    mode does it, but without that mode's `stop()`: it calls
    `QCoreApplication.exit()`, after which every later `QEventLoop.exec()` (each
    `qtbot.waitSignal`) would return at once.
    """
    loop = qasync.QEventLoop(qapp)
    asyncio._set_running_loop(loop)
    made = Lanes(loop)
    try:
        yield made
    finally:
        made.shutdown()
        asyncio._set_running_loop(None)
        loop.close()


@pytest.fixture(autouse=True)
def _no_threads_left() -> Iterator[None]:
    """Fail a test that leaves worker threads running (as napari's fixtures do): shutdown must drain them."""
    before = set(threading.enumerate())
    yield
    left = [t.name for t in threading.enumerate() if t not in before and t.is_alive()]
    active = QThreadPool.globalInstance().activeThreadCount()
    if left or active:
        pytest.fail(f"the test left threads running: {left} (+{active} in Qt's global pool)")
