"""Where the console's slow work runs: a read lane and a write lane beside the qasync loop.

The console runs on a qasync event loop (`gui.app.run_console`). Page handlers are
coroutines that `await` `Memory` calls in one of two executors: reads on a small
pool, writes one at a time in the order they were asked for. A vector rebuild or
an import in the write lane therefore never holds up a page's reads.

Each page owns its work (`Tasks`): closing or destroying the page cancels its
tasks, and a result that arrives for a page that is gone is dropped, never
delivered. A failure reaches the person (the page's message line and the
window's status bar), never only the log. `Lanes.shutdown()` stops long work at
its next progress report, lets the writes already asked for finish, and leaves
no worker thread behind.

Never open a modal dialog (`exec()`) inside a coroutine: its nested event loop
would run other tasks' steps inside this one's.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
import weakref
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QObject, Signal
from PySide6.QtWidgets import QWidget

from gui.freshness import Freshness
from service.errors import Cancelled, JiyiError

log = logging.getLogger("jiyi.gui")

P = ParamSpec("P")
R = TypeVar("R")

READERS = 2


class Lanes(QObject):
    """The read lane (`READERS` threads) and the serialized write lane, and the loop results come back on."""

    failed = Signal(str)  # some page's work failed; the message as shown to the person

    def __init__(self, loop: asyncio.AbstractEventLoop, readers: int = READERS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.loop = loop
        self.stopping = threading.Event()  # set by `shutdown`; long operations stop at their next report
        self._reads = ThreadPoolExecutor(max_workers=readers, thread_name_prefix="jiyi-read")
        self._writes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jiyi-write")
        self._groups: weakref.WeakSet[Tasks] = weakref.WeakSet()

    async def read(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """`fn(*args, **kwargs)` in the read lane; cancelling the caller drops it if it has not started."""
        return await self._submit(self._reads, functools.partial(fn, *args, **kwargs))

    async def write(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """`fn(*args, **kwargs)` in the write lane, after the writes asked for before it.

        A write the person asked for runs to its end even when the caller is
        cancelled (its page closed): only its result is dropped.
        """
        job = self._submit(self._writes, functools.partial(fn, *args, **kwargs))
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            job.add_done_callback(_note_orphaned_write)
            raise

    def _submit(self, executor: ThreadPoolExecutor, call: Callable[[], R]) -> asyncio.Future[R]:
        if self.stopping.is_set():
            raise asyncio.CancelledError  # the console is closing: new work is dropped, not reported
        return asyncio.wrap_future(executor.submit(call), loop=self.loop)

    def check_stopping(self, _done: int = 0, _total: int = 0) -> None:
        """A progress callback for long `Memory` operations: raises `Cancelled` once the console is closing."""
        if self.stopping.is_set():
            raise Cancelled()

    def register(self, group: Tasks) -> None:
        self._groups.add(group)

    def cancel(self, under: QWidget | None = None) -> None:
        """Cancel the tasks of every page (or only of `under` and the widgets inside it)."""
        for group in list(self._groups):
            if under is None or group.is_under(under):
                group.cancel()

    def shutdown(self, settle_s: float = 5.0) -> None:
        """Stop: cancel every task, drop queued reads, finish the writes, wait for the threads to end.

        Then let the loop settle the cancelled tasks (up to `settle_s`), so none is left pending.
        """
        # Tasks start on the loop's next turn: let those asked for just now take their first step, so that a
        # write the person asked for reaches its lane before the lanes stop taking work.
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents)
        self.stopping.set()
        tasks = [task for group in list(self._groups) for task in group.tasks()]
        self.cancel()
        self._reads.shutdown(wait=True, cancel_futures=True)
        self._writes.shutdown(wait=True)
        deadline = time.monotonic() + settle_s
        while any(not task.done() for task in tasks) and time.monotonic() < deadline:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)


class Tasks:
    """The asynchronous work of one page or widget, which never outlives it.

    `start` runs a coroutine as a task owned by `owner`; `read` and `write` await
    the lanes and then make sure `owner` still exists (else the task ends as
    cancelled and the result is dropped). Closing or destroying `owner` cancels
    its tasks. A task that fails is reported: `show_error(message)` on the page,
    `Lanes.failed` for the window, the log by cause.
    """

    def __init__(self, owner: QWidget, lanes: Lanes, show_error: Callable[[str], None]) -> None:
        self._owner = weakref.ref(owner)  # weak: the page holds its `Tasks`, not the other way round
        self.lanes, self._show_error = lanes, show_error
        self._pending: set[asyncio.Future[Any]] = set()
        self._fresh: dict[str, Freshness[Any]] = {}  # per `refresh` key: its questions and the answer shown
        self._alone: dict[object, asyncio.Future[Any]] = {}  # the task started `alone` under each key, running
        self._watcher = _CloseWatcher(owner, self.cancel)
        owner.destroyed.connect(self.cancel)
        lanes.register(self)

    def start(self, work: Coroutine[Any, Any, R], *, alone: object = None) -> asyncio.Future[R]:
        """Run `work` as one of the owner's tasks, from the loop's next turn.

        With `alone` (a key: the handler), `work` is dropped while an earlier
        task started with the same key runs: a control's action is not started
        twice by a second click that arrives before its first step disabled the
        control (Python 3.11 has no eager tasks to run that step at once).
        Once the console is closing, `work` never starts.
        """
        if self.lanes.stopping.is_set() or (alone is not None and alone in self._alone):
            work.close()
            dropped: asyncio.Future[R] = self.lanes.loop.create_future()
            dropped.cancel()
            return dropped
        handler = work
        if alone is not None:
            work = self._alone_until_done(handler, alone)
        task = self.lanes.loop.create_task(work)
        self._pending.add(task)
        task.add_done_callback(self._finished)
        if alone is not None:
            self._alone[alone] = task
            # Also when it was cancelled before its first step: the key is released, the handler closed unrun.
            task.add_done_callback(functools.partial(self._ended_alone, alone, handler))
        return task

    async def _alone_until_done(self, work: Coroutine[Any, Any, R], key: object) -> R:
        """`work`, releasing `key` as it returns (in its last step, so a click right after it is not dropped)."""
        try:
            return await work
        finally:
            self._release(key, asyncio.current_task())

    def _ended_alone(self, key: object, handler: Coroutine[Any, Any, Any], task: asyncio.Future[Any]) -> None:
        self._release(key, task)
        handler.close()  # a handler that ran is closed already; one cancelled before it started, now

    def _release(self, key: object, task: asyncio.Future[Any] | None) -> None:
        if self._alone.get(key) is task:
            del self._alone[key]

    async def read(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """`Lanes.read`; its result, or its failure, is delivered only while the owner exists."""
        try:
            result = await self.lanes.read(fn, *args, **kwargs)
        except Exception:
            self._ensure_alive()  # a failure for a page that is gone is dropped with it
            raise
        self._ensure_alive()
        return result

    async def refresh(self, key: str, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """A read whose result replaces what `key` shows (a list, a detail pane).

        Reads run in parallel and may finish out of order. A result is dropped
        by the rule of `gui/freshness.py`: when one asked later is shown
        already, or when a different question (`fn`, `args`, `kwargs`) was
        asked for `key` since. The same question asked again (the memory
        changed) does not drop it, so a stream of changes cannot starve a page.
        """
        question = (fn, args, kwargs)
        fresh = self._fresh.setdefault(key, Freshness())
        number = fresh.ask(question)
        result = await self.read(fn, *args, **kwargs)
        if not fresh.is_current(number, question):
            raise asyncio.CancelledError  # out of date: a later answer, or another question, is shown
        fresh.shown(number)
        return result

    async def write(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """`Lanes.write`; its result, or its failure, is delivered only while the owner exists."""
        try:
            result = await self.lanes.write(fn, *args, **kwargs)
        except Exception as exc:
            if not self._alive():
                _note_orphaned_failure(exc)
            self._ensure_alive()
            raise
        self._ensure_alive()
        return result

    def progress(
        self, moved: Callable[[int, int], None], cancel: threading.Event | None = None
    ) -> Callable[[int, int], None]:
        """A progress callback for a worker: `moved(done, total)` on the loop while the owner exists.

        It raises `Cancelled` in the worker once `cancel` is set or the console is closing.
        """
        loop, alive = self.lanes.loop, self._alive

        def deliver(done: int, total: int) -> None:
            if alive():
                moved(done, total)

        def report(done: int, total: int) -> None:
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            self.lanes.check_stopping()
            loop.call_soon_threadsafe(deliver, done, total)

        return report

    def report(self, exc: BaseException, *, show: bool = True) -> None:
        """Tell the person about a failure (the page's line unless `show` is False; the window's status bar)."""
        message = describe(exc)
        if isinstance(exc, JiyiError | OSError | Cancelled):
            log.info("the console's work did not complete: %s", message)
        else:
            log.error("the console's work failed", exc_info=exc)
        if show and self._alive():
            self._show_error(message)
        if shiboken6.isValid(self.lanes):
            self.lanes.failed.emit(message)

    def cancel(self) -> None:
        """Cancel every task of the owner (their results are dropped; a write under way still finishes)."""
        for task in list(self._pending):
            task.cancel()

    def tasks(self) -> list[asyncio.Future[Any]]:
        return list(self._pending)

    @property
    def pending(self) -> int:
        return len(self._pending)

    def is_under(self, widget: QWidget) -> bool:
        owner = self._owner()
        return owner is not None and self._alive() and (owner is widget or widget.isAncestorOf(owner))

    def _alive(self) -> bool:
        owner = self._owner()
        return owner is not None and shiboken6.isValid(owner)

    def _ensure_alive(self) -> None:
        if not self._alive():
            raise asyncio.CancelledError  # the page is gone: its result is dropped

    def _finished(self, task: asyncio.Future[Any]) -> None:
        self._pending.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            self.report(exc)


class HasTasks(Protocol):
    tasks: Tasks


Owner = TypeVar("Owner", bound=HasTasks)


def page_task(
    handler: Callable[Concatenate[Owner, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[Owner, P], asyncio.Future[R]]:
    """Make an `async` handler of a page callable like a slot: each call starts it as one of the page's tasks."""

    @functools.wraps(handler)
    def start(self: Owner, *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[R]:
        return self.tasks.start(handler(self, *args, **kwargs))

    return start


def page_action(
    handler: Callable[Concatenate[Owner, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[Owner, P], asyncio.Future[R]]:
    """`page_task` for the action of a control (a save, a rebuild, a question) that disables the control
    while it runs: a call while the page's previous one runs is dropped (see `Tasks.start`'s `alone`)."""

    @functools.wraps(handler)
    def start(self: Owner, *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[R]:
        return self.tasks.start(handler(self, *args, **kwargs), alone=handler)

    return start


def describe(exc: BaseException) -> str:
    """A failure as one line for the person."""
    return str(exc) or type(exc).__name__


class _CloseWatcher(QObject):
    """Cancels the owner's tasks when it is closed (a closed page takes no more results)."""

    def __init__(self, owner: QWidget, on_close: Callable[[], None]) -> None:
        super().__init__(owner)
        self._on_close = on_close
        owner.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close:
            self._on_close()
        return False


def _note_orphaned_write(job: asyncio.Future[Any]) -> None:
    """A write whose page closed while it ran: nobody shows its outcome, so the log does."""
    if not job.cancelled() and (exc := job.exception()) is not None:
        _note_orphaned_failure(exc)


def _note_orphaned_failure(exc: BaseException) -> None:
    if not isinstance(exc, Cancelled):
        log.warning("a write finished after its page closed, and failed: %s", describe(exc))
