"""How the console opens its home: attached to the service that owns it, else through a private service
of its own, else (asked for, or when that service cannot start) inside the console itself.

Attached or private, the memory's work happens in the service's process and the
console does only socket I/O and drawing (docs/architecture.md, The console).

The console shows its window while the home opens (`Opening`): the private service is started first and
listens a moment later, beside the window's own start; the pages come when it answers. Nothing here imports
the store, recall or Qt's widgets until the console opens the home itself (`open_here`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from service.client import JsonObject
from service.config import Config, load_config
from service.errors import EnvironmentProblem, HomeReadOnly, JiyiError, NotYours, TooOpen
from service.remote.attach import find_service
from service.remote.private import PrivateService

if TYPE_CHECKING:
    from service.memory.api import MemoryApi
    from service.rpc.host import SocketHost  # the in-process console's: imported when it opens the home itself

log = logging.getLogger("jiyi.gui")


@dataclass
class Opened:
    """The home's memory and what the console must stop when it closes."""

    memory: MemoryApi
    private: PrivateService | None = None  # the console's own service (stopped on close)
    host: SocketHost | None = None  # in-process: the socket the console hosts itself
    problem: str | None = None  # in-process: why the socket is not served
    private_problem: str | None = None  # in-process although a private service was asked for: why


def start_opening(home: str | None = None) -> Opening | JiyiError:
    """Load the settings and begin opening the home (starting its private service): the `Opening`, or the
    error that refuses it (`gui.app.run_console` says it). `gui/main.py` calls this first, so that the service
    starts before the console imports Qt's widgets and its window."""
    try:
        config = load_config(home=home)
        logging.basicConfig(level=config.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
        return Opening.begin(config)
    except JiyiError as exc:
        return exc


def open_home(config: Config) -> Opened:
    """Open `config`'s home for the console, waiting for its private service. Raises `JiyiError` (the
    console refuses) only when the home cannot be opened at all, as when another process that is no service
    holds it (`HomeLocked`)."""
    opening = Opening.begin(config)
    try:
        opening.wait()
    except BaseException:
        opening.abandon()
        raise
    return opening.finish()


class Opening:
    """`config`'s home being opened while the console's window shows.

    `begin` starts it: attached to the service that owns the home, or opened here on request, it is open at
    once; otherwise a private `jiyi serve` child starts. `wait` (off the GUI thread) waits for that child to
    answer, `finish` (on the GUI thread) gives the `Opened`: the child's memory, or, when it could not start,
    the home opened here (which raises `JiyiError` when the home itself refuses). `abandon` stops a child the
    console no longer waits for.
    """

    def __init__(self, config: Config, opened: Opened | None = None, child: PrivateService | None = None) -> None:
        self.config = config
        self.opened = opened
        self.child = child
        self._health: JsonObject | None = None
        self._problem: str | None = None  # why the child did not start

    @classmethod
    def begin(cls, config: Config) -> Opening:
        found = find_service(config)
        if found is not None:
            # A service owns this home: the console is one more client of it, and leaves it running.
            log.info("attached to the service on %s", found[0])
            return cls(config, Opened(_remote(config, *found)))
        if config.console_service == "child":
            try:
                return cls(config, child=PrivateService.spawn(config))
            except (TooOpen, NotYours, HomeReadOnly):
                raise  # the home itself, checked here before any child starts: opening it here would say the same
            except EnvironmentProblem as exc:
                opening = cls(config)
                opening._problem = str(exc)
                return opening
        return cls(config, open_here(config))

    @property
    def service_problem(self) -> str | None:
        """Why the private service did not start (its words), once known."""
        return self._problem

    def wait(self, stop: Callable[[], bool] = lambda: False) -> None:
        """Until the private child answers, exits, or does not answer in time (`finish` then opens the home
        here); `Cancelled` when `stop()` says so first. Returns at once when there is nothing to wait for."""
        if self.opened is not None or self.child is None or self._health is not None or self._problem is not None:
            return
        try:
            self._health = self.child.wait_until_ready(self.config, stop=stop)
        except EnvironmentProblem as exc:
            self._problem = str(exc)

    def finish(self) -> Opened:
        """The opened home, after `wait`. Raises `JiyiError` when the home itself refuses."""
        if self.opened is not None:
            return self.opened
        if self.child is not None and self._health is not None:
            self.opened = Opened(_remote(self.config, self.child.socket_path, self._health), private=self.child)
            return self.opened
        # The home itself refuses (locked by another process, unsafe, …): opening it here says so again, and
        # the console refuses as it always did. Anything else: the console works in-process.
        log.warning("the console's private service did not start; the console opens the home itself: %s", self._problem)
        if self.child is not None:
            self.child.stop(grace_s=0)  # one that did not answer in time
        self.opened = open_here(self.config, private_problem=self._problem)
        return self.opened

    def abandon(self) -> None:
        """Stop the private child when the console closes before the home opened."""
        if self.opened is None and self.child is not None:
            self.child.stop()


def _remote(config: Config, socket_path: Path, health: JsonObject) -> MemoryApi:
    """The memory of the service on `socket_path` (imported here: the private service is started before it)."""
    from service.remote.memory import RemoteMemory

    return RemoteMemory(config, socket_path, health)


def open_here(config: Config, private_problem: str | None = None) -> Opened:
    """The home opened in the console's own process, the console hosting its socket (`JIYI_CONSOLE_SERVICE=
    inprocess`, or when the private service could not start)."""
    from service.memory.memory import Memory  # the store, recall and their models: only when opened here
    from service.rpc.host import SocketHost
    from service.rpc.socket_file import socket_path_for

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
