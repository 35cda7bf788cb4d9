"""Start the console: settings, the home (attached to its service, or through a private one), the window,
on a qasync event loop.

The window shows first. Its home's private service is started before anything else (`start_opening`, from
`gui/main.py`, before Qt's widgets are imported): it listens a moment after the window is on the screen, and
the pages come then (`_open_pages`). Neither the window nor the pages wait for the service's vector index or
model: it opens those beside its first requests.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING

import qasync
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from gui import fonts, i18n
from gui.lanes import Lanes
from gui.main_thread_gc import MainThreadCollector
from gui.main_window import MainWindow, load_pages
from gui.opening import Opening, close_home, start_opening
from gui.theme import apply_theme
from service.errors import Cancelled, JiyiError, TooOpen, exit_code

if TYPE_CHECKING:  # the refusals bring the store's permission checks (peewee): imported when a home refuses
    from gui.refusal import PermissionQuestion

log = logging.getLogger("jiyi.gui")


def run_console(home: str | None = None, opening: Opening | JiyiError | None = None) -> int:
    """Open the console on `home` (or JIYI_HOME, or the default), or on the home `opening` opens (begun by
    `start_opening`), and run until closed."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setOrganizationName("Jiyi")
    app.setApplicationName("jiyi")
    QApplication.setApplicationDisplayName("记忆 Jiyi")
    i18n.install(app, str(QSettings().value("ui/language", "zh")))  # before the first word is shown
    shipped = fonts.add_shipped_fonts()  # a frozen build's CJK font, before the first Chinese word is drawn
    shown = QApplication.platformName() != "offscreen"  # offscreen, nobody could see or answer a box
    with _ClosingOnSignals() as signals:
        if opening is None:
            opening = start_opening(home)
        if shipped:
            log.info("fonts shipped with the app: %s", ", ".join(shipped))
        if isinstance(opening, TooOpen) and opening.fixable:  # plain `mkdir` made it 0755: offer to fix it
            from gui.refusal import ask_modally

            opening = _fixing(opening, home, ask_modally if shown else lambda _question: None)
        if isinstance(opening, JiyiError):
            return _refuse(opening, shown)
        try:
            if signals.received:  # asked to stop while the home opened: stop what was started, show nothing
                return 0
            return _run_window(app, opening, signals)
        finally:
            if opening.opened is not None:
                close_home(opening.opened)
            else:
                opening.abandon()


def _refuse(exc: JiyiError, shown: bool) -> int:
    """Say why the console cannot open its home (stderr, and a box on a display); the exit code, as the commands
    exit for the same cause (docs/cli.md): 2 for a bad config.toml."""
    print(f"jiyi: {exc}", file=sys.stderr)
    if shown:
        from gui.refusal import refusal

        refusal(exc).exec()
    return exit_code(exc)


def _fixing(exc: TooOpen, home: str | None, ask: Callable[[PermissionQuestion], object]) -> Opening | JiyiError:
    """Ask the person whether to make the home that others may read private (as `jiyi doctor
    --fix-permissions` does); if so, make it private and begin opening it again. `exc` when they said 取消."""
    from gui.refusal import PermissionQuestion
    from service.home_permissions import fix_permissions

    question = PermissionQuestion(exc)
    if ask(question) is not question.fix_button:
        return exc
    for change in fix_permissions(exc.path if exc.what == "home" else exc.path.parent):
        log.info("made private, as the person asked: %s", change)
    return start_opening(home)


def _run_window(app: QApplication, opening: Opening, signals: _ClosingOnSignals) -> int:
    """The window on a qasync loop, its pages once the home is open, until it closes; the lanes drained
    afterwards."""
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    lanes = Lanes(loop)
    collector = MainThreadCollector()  # the lanes' threads never run Qt destructors (gui/main_thread_gc.py)
    collector.start()
    refused: list[JiyiError] = []
    window: MainWindow | None = None
    try:
        settings = QSettings()
        apply_theme(app, str(settings.value("ui/theme", "system")))
        window = MainWindow(None, settings, lanes, home=opening.config.home_path)
        window.first_painted.connect(_load_pages_and_facades)  # while the service starts
        window.show()
        signals.close_on_signal(window)
        window.tasks.start(_open_pages(window, opening, refused))
        code = int(loop.run_forever() or 0)  # app.exec() under qasync, until the last window closes
        if opening.opened is not None:
            opening.opened.private = window.private_service  # the one it started in place of a lost one, if it did
        return exit_code(refused[0]) if refused else code
    finally:
        if opening.opened is not None and opening.opened.memory.attached_to is not None:
            # The service does the work: cut this console's connections first, so that a rebuild
            # it asked for goes on in the service instead of holding the console open.
            opening.opened.memory.close()
        lanes.shutdown()  # the writes asked for finish before the store closes
        collector.stop()
        loop.close()
        asyncio.set_event_loop(None)


def _load_pages_and_facades() -> None:
    """The pages' modules and the remote memory now (after the first paint), and on a thread of their own the
    facades its calls name (`service.remote.calls.import_facades`: the store's modules, ~0.5 s of CPU), so
    that the overview's first call, once the service answers, does not wait for them."""
    load_pages()
    from service.remote.calls import import_facades

    threading.Thread(target=import_facades, name="jiyi-facades", daemon=True).start()


async def _open_pages(window: MainWindow, opening: Opening, refused: list[JiyiError]) -> None:
    """Wait for the home (off the GUI thread), then show the pages over it; when the home refuses, say why and
    close the window (the console exits as the commands do for that cause)."""
    try:
        await window.tasks.read(opening.wait, window.lanes.stopping.is_set)
        opened = opening.finish()  # raises the refusal when the private service did not start
    except Cancelled:
        return  # the console closed meanwhile
    except JiyiError as exc:
        refused.append(exc)
        print(f"jiyi: {exc}", file=sys.stderr)
        if QApplication.platformName() == "offscreen":
            window.close()
            return
        from gui.refusal import refusal

        box = refusal(exc)
        box.setParent(window, box.windowFlags())
        box.finished.connect(window.close)
        box.open()  # not exec(): this runs on the loop
        return
    window.private_service = opened.private
    window.open_memory(opened.memory)


class _ClosingOnSignals:
    """Ctrl+C in the terminal that started the console, or SIGTERM from a session manager, closes the
    window as its close button does: settings are saved, the writes asked for finish, the console's
    private service stops. Caught from the start: a signal while the home opens stops the console too."""

    def __init__(self) -> None:
        self.received = False
        self._window: MainWindow | None = None
        self._previous: dict[signal.Signals, signal._HANDLER] = {}
        self._wake: QTimer | None = None

    def _caught(self, _signum: int, _frame: FrameType | None) -> None:
        self.received = True
        if self._window is not None:
            QTimer.singleShot(0, self._window.close)

    def close_on_signal(self, window: MainWindow) -> None:
        """From now on a signal closes `window` (one that came before closes it as soon as the loop runs)."""
        self._window = window
        if self.received:
            QTimer.singleShot(0, window.close)
        # Python runs a signal handler only when the interpreter has control, and Qt's loop can wait in C++
        # for as long as nothing happens: a timer hands control back to Python a few times a second.
        self._wake = QTimer(window)
        self._wake.timeout.connect(lambda: None)
        self._wake.start(250)

    def __enter__(self) -> _ClosingOnSignals:
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._previous[signum] = signal.getsignal(signum)
            signal.signal(signum, self._caught)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._wake is not None:
            self._wake.stop()
        for number, handler in self._previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
