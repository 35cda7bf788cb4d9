"""Start the console: settings, the home (attached, through a private service, or in-process), the window,
on a qasync event loop."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from types import FrameType

import qasync
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from gui import fonts, i18n
from gui.lanes import Lanes
from gui.main_thread_gc import MainThreadCollector
from gui.main_window import MainWindow
from gui.opening import Opened, close_home
from gui.refusal import ask_modally, open_fixing, refusal
from gui.theme import apply_theme
from service.config import load_config
from service.errors import JiyiError, exit_code

log = logging.getLogger("jiyi.gui")


def run_console(home: str | None = None) -> int:
    """Open the console on `home` (or JIYI_HOME, or the default) and run until closed."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setOrganizationName("Jiyi")
    app.setApplicationName("jiyi")
    QApplication.setApplicationDisplayName("记忆 Jiyi")
    i18n.install(app, str(QSettings().value("ui/language", "zh")))  # before the first word is shown
    shipped = fonts.add_shipped_fonts()  # a frozen build's CJK font, before the first Chinese word is drawn
    shown = QApplication.platformName() != "offscreen"  # offscreen, nobody could see or answer a box
    with _ClosingOnSignals() as signals:
        try:
            config = load_config(home=home)
            logging.basicConfig(level=config.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
            if shipped:
                log.info("fonts shipped with the app: %s", ", ".join(shipped))
            opened = open_fixing(config, ask_modally if shown else lambda _question: None)
        except JiyiError as exc:
            print(f"jiyi: {exc}", file=sys.stderr)
            if shown:
                refusal(exc).exec()
            return exit_code(exc)  # as the commands exit for the same cause (docs/cli.md): 2 for a bad config.toml
        try:
            if signals.received:  # asked to stop while the home opened: stop what was started, show nothing
                return 0
            return _run_window(app, opened, signals)
        finally:
            close_home(opened)


def _run_window(app: QApplication, opened: Opened, signals: _ClosingOnSignals) -> int:
    """The window over `opened.memory` on a qasync loop, until it closes; the lanes drained afterwards."""
    memory = opened.memory
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    lanes = Lanes(loop)
    collector = MainThreadCollector()  # the lanes' threads never run Qt destructors (gui/main_thread_gc.py)
    collector.start()
    try:
        settings = QSettings()
        apply_theme(app, str(settings.value("ui/theme", "system")))
        window = MainWindow(memory, settings, lanes, opened.host)
        window.private_service = opened.private
        window.private_problem = opened.private_problem
        window.update_service_status(opened.problem)
        window.show()
        signals.close_on_signal(window)
        code = int(loop.run_forever() or 0)  # app.exec() under qasync, until the last window closes
        opened.private = window.private_service  # the one it started in place of a lost service, if it did
        return code
    finally:
        if memory.attached_to is not None:
            # The service does the work: cut this console's connections first, so that a rebuild
            # it asked for goes on in the service instead of holding the console open.
            memory.close()
        lanes.shutdown()  # the writes asked for finish before the store closes
        collector.stop()
        loop.close()
        asyncio.set_event_loop(None)


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
