"""GUI tests run offscreen on a real `Memory` over a temporary home, on the console's qasync loop."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication

from gui.lanes import Lanes


@pytest.fixture
def socket_path() -> Iterator[Path]:
    """A socket path in a short private folder (socket paths must stay under ~100 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="jyg", dir="/tmp"))
    os.chmod(folder, 0o700)
    yield folder / "jiyi.sock"
    shutil.rmtree(folder, ignore_errors=True)


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
