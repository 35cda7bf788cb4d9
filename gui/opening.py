"""How the console opens its home: attached to the service that owns it, else through a private service
of its own, else (asked for, or when that service cannot start) inside the console itself.

Attached or private, the memory's work happens in the service's process and the
console does only socket I/O and drawing (docs/architecture.md, The console).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QProgressDialog

from service.config import Config
from service.errors import EnvironmentProblem, HomeReadOnly, JiyiError, NotYours, TooOpen
from service.memory.api import MemoryApi
from service.memory.memory import Memory
from service.remote.attach import find_service
from service.remote.memory import RemoteMemory
from service.remote.private import PrivateService
from service.rpc.host import SocketHost
from service.rpc.socket_file import socket_path_for

log = logging.getLogger("jiyi.gui")

SPLASH_AFTER_S = 0.5  # a service that is ready sooner is not worth a flash of a dialog


@dataclass
class Opened:
    """The home's memory and what the console must stop when it closes."""

    memory: MemoryApi
    private: PrivateService | None = None  # the console's own service (stopped on close)
    host: SocketHost | None = None  # in-process: the socket the console hosts itself
    problem: str | None = None  # in-process: why the socket is not served
    private_problem: str | None = None  # in-process although a private service was asked for: why


def open_home(config: Config) -> Opened:
    """Open `config`'s home for the console. Raises `JiyiError` (the console refuses) only when the home
    cannot be opened at all, as when another process that is no service holds it (`HomeLocked`)."""
    found = find_service(config)
    if found is not None:
        # A service owns this home: the console is one more client of it, and leaves it running.
        log.info("attached to the service on %s", found[0])
        return Opened(RemoteMemory(config, *found))
    private_problem = None
    if config.console_service == "child":
        try:
            with _Splash() as splash:
                private, health = PrivateService.start(config, tick=splash.tick)
            return Opened(RemoteMemory(config, private.socket_path, health), private=private)
        except (TooOpen, NotYours, HomeReadOnly):
            raise  # the home itself, checked here before any child starts: opening it here would say the same
        except EnvironmentProblem as exc:
            # The home itself refuses (locked by another process, unsafe, …): opening it here says so
            # again, and the console refuses as it always did. Anything else: the console works in-process.
            private_problem = str(exc)
            log.warning("the console's private service did not start; the console opens the home itself: %s", exc)
    memory = Memory.open(config)
    host = SocketHost(memory, socket_path_for(config), max_line=config.max_line_bytes)
    problem = None
    try:
        host.start()
    except JiyiError as exc:
        problem = str(exc)
        log.warning("the console runs without its service: %s", exc)
    if memory.read_only is None:  # both write: on a read-only home they would only fail, every round
        memory.learning.start_timer()  # the console discovers finished work as `jiyi serve` does
        memory.desk.index.start()  # and embeds desk items behind the writes
    return Opened(memory, host=None if problem else host, problem=problem, private_problem=private_problem)


def close_home(opened: Opened) -> None:
    """After the window closed and the lanes drained: stop the socket the console hosted, close the memory,
    and stop the console's private service (its drain: up to 10 s)."""
    if opened.host is not None:
        opened.host.stop()
    opened.memory.close()  # attached: only this console's connections close; the service goes on
    if opened.private is not None:
        opened.private.stop()


class _Splash:
    """A small busy dialog while the private service starts, shown only if that takes more than a moment."""

    def __init__(self) -> None:
        self.began = time.monotonic()
        self.dialog: QProgressDialog | None = None

    def tick(self) -> None:
        if self.dialog is None and time.monotonic() - self.began >= SPLASH_AFTER_S:
            app = QApplication.instance()
            name = QApplication.applicationDisplayName() if app is not None else "记忆 Jiyi"
            self.dialog = QProgressDialog(QApplication.translate("Console", "正在启动记忆服务…"), "", 0, 0)
            self.dialog.setWindowTitle(name)
            self.dialog.setCancelButton(None)  # Qt's way to have no cancel button
            self.dialog.setWindowModality(Qt.WindowModality.ApplicationModal)
            self.dialog.setMinimumDuration(0)
            self.dialog.show()
        if self.dialog is not None:
            QApplication.processEvents()

    def __enter__(self) -> _Splash:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
