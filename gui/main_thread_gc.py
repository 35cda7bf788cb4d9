"""Python's cyclic garbage collector, run on the GUI thread only.

Left automatic, the collector runs in whichever thread happens to allocate
when a generation fills up: a lane's worker thread, say. If the garbage it
finds holds a Qt object (a closed dialog in a reference cycle), that object's
destructor then runs in the worker thread, where it takes a Qt lock and waits
for the GIL while the GUI thread, deleting widgets, holds that lock and waits
for the GIL's owner: the console hangs. (Seen: a rebuild's worker collecting
a page's QActions while the GUI thread deleted a QMenu.) So the automatic
collector is switched off and the GUI thread collects on a timer, by the
same generation thresholds Python would use.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 1000


class MainThreadCollector(QObject):
    """While it lives and is started, cyclic garbage is collected only here, on the thread that owns it."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect)
        self._was_enabled = gc.isenabled()

    def start(self, interval_ms: int = INTERVAL_MS) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start(interval_ms)

    def stop(self) -> None:
        """Stop collecting here; what is left is collected now, and Python's own collector is back as it was."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    @staticmethod
    def collect() -> int:
        """Collect the generations past Python's thresholds, as the automatic collector would; how many found."""
        first, second, third = gc.get_threshold()
        young, middle, old = gc.get_count()
        if young <= first:
            return 0
        if middle > second:
            return gc.collect(2 if old > third else 1)
        return gc.collect(0)
