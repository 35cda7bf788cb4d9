"""How the console opens its home: attached to the service that owns it, else through a private service
of its own (a `jiyi serve` child). There is no third way: the memory's work always happens in the service's
process and the console does only socket I/O and drawing (docs/architecture.md, The console).

The console shows its window while the home opens (`Opening`): the private service is started first and
listens a moment later, beside the window's own start; the pages come when it answers. When it cannot start,
the console refuses, with the home's own cause when the home refused the child (`_refusal`), else with the
child's last words. Nothing here imports the store, recall or Qt's widgets but to find that cause.
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
from service.remote.private import PrivateService, ServiceDidNotStart

if TYPE_CHECKING:
    from service.memory.api import MemoryApi

log = logging.getLogger("jiyi.gui")


@dataclass
class Opened:
    """The home's memory and what the console must stop when it closes."""

    memory: MemoryApi
    private: PrivateService | None = None  # the console's own service (stopped on close)


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
    console refuses) when its private service cannot start: the home's own cause, as when another process that
    is no service holds it (`HomeLocked`), else `ServiceDidNotStart` with the child's last words."""
    opening = Opening.begin(config)
    try:
        opening.wait()
    except BaseException:
        opening.abandon()
        raise
    return opening.finish()


class Opening:
    """`config`'s home being opened while the console's window shows.

    `begin` starts it: attached to the service that owns the home, it is open at once; otherwise a private
    `jiyi serve` child starts. `wait` (off the GUI thread) waits for that child to answer, `finish` (on the GUI
    thread) gives the `Opened`: the child's memory, or, when it could not start, raises the `JiyiError` the
    console refuses with. `abandon` stops a child the console no longer waits for.
    """

    def __init__(self, config: Config, opened: Opened | None = None, child: PrivateService | None = None) -> None:
        self.config = config
        self.opened = opened
        self.child = child
        self._health: JsonObject | None = None
        self._problem: EnvironmentProblem | None = None  # why the child did not start

    @classmethod
    def begin(cls, config: Config) -> Opening:
        found = find_service(config)
        if found is not None:
            # A service owns this home: the console is one more client of it, and leaves it running.
            log.info("attached to the service on %s", found[0])
            return cls(config, Opened(_remote(config, *found)))
        try:
            return cls(config, child=PrivateService.spawn(config))
        except (TooOpen, NotYours, HomeReadOnly):
            raise  # the home itself, checked here before any child starts
        except EnvironmentProblem as exc:
            opening = cls(config)
            opening._problem = exc
            return opening

    @property
    def service_problem(self) -> str | None:
        """Why the private service did not start (its words), once known."""
        return None if self._problem is None else str(self._problem)

    def wait(self, stop: Callable[[], bool] = lambda: False) -> None:
        """Until the private child answers, exits, or does not answer in time (`finish` then refuses);
        `Cancelled` when `stop()` says so first. Returns at once when there is nothing to wait for."""
        if self.opened is not None or self.child is None or self._health is not None or self._problem is not None:
            return
        try:
            self._health = self.child.wait_until_ready(self.config, stop=stop)
        except EnvironmentProblem as exc:
            self._problem = exc

    def finish(self) -> Opened:
        """The opened home, after `wait`. Raises `JiyiError` when the home itself refuses."""
        if self.opened is not None:
            return self.opened
        if self.child is not None and self._health is not None:
            self.opened = Opened(_remote(self.config, self.child.socket_path, self._health), private=self.child)
            return self.opened
        log.warning("the console's private service did not start: %s", self._problem)
        if self.child is not None:
            self.child.stop(grace_s=0)  # one that did not answer in time
        assert self._problem is not None  # `wait` returned: the child answered, or this says why not
        raise _refusal(self.config, self._problem)

    def abandon(self) -> None:
        """Stop the private child when the console closes before the home opened."""
        if self.opened is None and self.child is not None:
            self.child.stop()


def _remote(config: Config, socket_path: Path, health: JsonObject) -> MemoryApi:
    """The memory of the service on `socket_path` (imported here: the private service is started before it)."""
    from service.remote.memory import RemoteMemory

    return RemoteMemory(config, socket_path, health)


def _refusal(config: Config, problem: EnvironmentProblem) -> JiyiError:
    """What the console refuses with when its private service did not start (`problem`). A child that exited
    refused with an exit code: when the home itself is the cause (another process holds it, it lost
    acknowledged changes, its schema is newer …), opening its store here says which, as a typed error the
    console words in Chinese (`gui/refusal.py`); the store is closed again at once. Otherwise (the socket, the
    settings, a child that did not answer in time): `problem`, the child's own last words."""
    if not isinstance(problem, ServiceDidNotStart) or problem.exit_code is None:
        return problem
    from service.memory.memory import Memory  # the store's checks: only to name why the home refused

    try:
        Memory.open(config).close()
    except JiyiError as exc:
        return exc
    return problem


def close_home(opened: Opened) -> None:
    """After the window closed and the lanes drained: close the memory (this console's connections) and stop
    the console's private service (its drain: up to 10 s)."""
    opened.memory.close()  # attached: only this console's connections close; the service goes on
    if opened.private is not None:
        opened.private.stop()
