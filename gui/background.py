"""Run `Memory` calls off the GUI thread and bring the results back to it.

One worker thread: reads and writes queue in order, so writes are serialized
and the GUI never waits on SQLite. Callbacks run on the GUI thread; nothing
touches a widget from the worker. `shutdown()` drains the queue.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

log = logging.getLogger("jiyi.gui")


class _Relay(QObject):
    """Lives on the GUI thread; signals emitted from the worker arrive queued."""

    finished = Signal(object, object)  # callback, result
    failed = Signal(object, object)  # callback, exception

    @Slot(object, object)
    def _deliver(self, callback: Callable[[Any], None], value: Any) -> None:
        callback(value)


class _Job(QRunnable):
    def __init__(self, relay: _Relay, fn: Callable[[], Any], on_done: Any, on_error: Any) -> None:
        super().__init__()
        self._relay, self._fn, self._on_done, self._on_error = relay, fn, on_done, on_error

    def run(self) -> None:
        try:
            result = self._fn()
        except Exception as exc:
            log.debug("background job failed", exc_info=True)
            self._relay.failed.emit(self._on_error, exc)
        else:
            self._relay.finished.emit(self._on_done, result)


class Background:
    """A single-thread executor whose callbacks run on the GUI thread."""

    def __init__(self) -> None:
        self._pool = QThreadPool()
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay()
        self._relay.finished.connect(self._relay._deliver)
        self._relay.failed.connect(self._relay._deliver)

    def submit(
        self,
        fn: Callable[[], Any],
        on_done: Callable[[Any], None],
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        """Run `fn()` on the worker; then `on_done(result)` or `on_error(exc)` on the GUI thread."""
        self._pool.start(_Job(self._relay, fn, on_done, on_error or _log_error))

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Wait for queued work to finish; True when it did in time."""
        return bool(self._pool.waitForDone(timeout_ms))


def _log_error(exc: Exception) -> None:
    log.error("background work failed: %s", exc)
