"""The console's garbage is collected on the GUI thread only (gui/main_thread_gc.py)."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject
from pytestqt.qtbot import QtBot

from gui.main_thread_gc import MainThreadCollector


class _Cycle:
    def __init__(self) -> None:
        self.me = self
        self.qt = QObject()


def test_cyclic_garbage_holding_a_qt_object_is_freed_on_the_gui_thread_not_a_worker(qtbot: QtBot) -> None:
    collector = MainThreadCollector()
    collector.start()
    try:
        assert not gc.isenabled()
        freed_on: list[str] = []
        cycle = _Cycle()
        cycle.qt.destroyed.connect(lambda: freed_on.append(threading.current_thread().name))
        gone = weakref.ref(cycle)
        del cycle  # garbage now, in a cycle: only the collector frees it

        def churn() -> None:  # a worker allocating far past gen 0's threshold: no collection may happen here
            junk: list[list[object]] = []
            for n in range(gc.get_threshold()[0] * 20):
                junk.append([n])
                junk[-1].append(junk[-1])

        worker = threading.Thread(target=churn, name="a-lane-worker")
        worker.start()
        worker.join()
        assert gone() is not None and freed_on == []
        qtbot.waitUntil(lambda: gone() is None, timeout=5_000)  # the collector's timer, on this thread
        assert freed_on == [threading.main_thread().name]
    finally:
        collector.stop()
    assert gc.isenabled() is False  # the test session keeps Python's own collector off (tests/conftest.py)
