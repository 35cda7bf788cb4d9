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
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from service.memory.api import MemoryApi
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.rpc.host import SocketHost
from tests.service.inprocess import in_thread

Attach = Callable[[Memory], MemoryApi]


@pytest.fixture
def socket_path() -> Iterator[Path]:
    """A socket path in a short private folder (socket paths must stay under ~100 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="jyg", dir="/tmp"))
    os.chmod(folder, 0o700)
    yield folder / "jiyi.sock"
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["inprocess", "remote"])
def attach(request: pytest.FixtureRequest, qtbot: QtBot, socket_path: Path) -> Iterator[Attach]:
    """How a page under test reaches the memory the test filled: the `Memory` itself ("inprocess"), or, as the
    console runs by default, a `RemoteMemory` over a real socket ("remote").

    The remote one is served by a `SocketHost` of that same `Memory` on this process's Qt loop (the code
    `jiyi serve` runs, without a process to start: ~0.1 s a test instead of seconds). Its requests are
    answered while the test waits on a signal; the test keeps the `Memory` for what it writes and checks
    directly (a direct call through the socket from this thread would wait on the loop it blocks).
    """
    hosts: list[SocketHost] = []
    remotes: dict[int, RemoteMemory] = {}  # by the served Memory's id: each is served once

    def attach_(memory: Memory) -> MemoryApi:
        if request.param == "inprocess":
            return memory
        if id(memory) not in remotes:
            host = SocketHost(memory, socket_path.with_name(f"jiyi{len(hosts)}.sock"), workers=2)
            host.start()
            hosts.append(host)
            remotes[id(memory)] = in_thread(qtbot, lambda: RemoteMemory.attach(memory.config, host.path))
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
