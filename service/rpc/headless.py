"""`jiyi serve`: the socket host on a `QCoreApplication`, until SIGINT or SIGTERM."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QTimer

from service.config import Config
from service.memory.memory import Memory
from service.platform.process import lower_priority, stop_signals
from service.rpc.host import SocketHost
from service.rpc.socket_file import check_socket_free, socket_path_for
from store.core.errors import EnvironmentProblem

DATABASE_WATCH_MS = 1000
"""How often `jiyi serve` checks that its SQLite file is still at its path (see `_watch_database`)."""


def serve(
    config: Config,
    *,
    socket_path: Path | None = None,
    workers: int = 4,
    new_database: bool = False,
    accept_loss: bool = False,
    nice: int = 0,
) -> int:
    """`jiyi serve`: host the service headless until SIGINT or SIGTERM (exit 0, socket removed).

    Raises `EnvironmentProblem` (exit 3) when the listener stops, or the database file is moved away,
    while serving, after the requests under way finished: a supervisor then restarts the service.
    Refuses (`ChangesMissing`, exit 3) a database that holds less than the home acknowledged, unless
    `accept_loss`: then the loss is recorded in the event log and the service goes on.

    `nice` (the console's private service): once it listens, the service runs that many levels below the
    priority it started with, every thread of it, so that its rebuilds, imports and the index it opens never
    keep the console's GUI thread waiting for a CPU. Until then it starts at the console's own priority: the
    console waits for it to listen.
    """
    # Whatever the service creates (a file SQLite or Chroma makes, one a library writes) is the owner's alone.
    os.umask(0o077)
    app = QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
    path = socket_path_for(config, socket_path)
    check_socket_free(path)  # before the home is opened (or created)
    # Handlers go in before anything is opened: a supervisor's SIGTERM that arrives while the
    # home opens or just after the socket listens must still stop cleanly, not kill the process.
    previous = _quit_on_signals(app)
    try:
        memory = Memory.open(config, new_database=new_database, loss="accept" if accept_loss else "refuse")
        accepted = memory.store.accepted_loss
        if accepted is not None:
            print(
                f"jiyi: accepted knowingly (recorded in the event log): {accepted.message}", file=sys.stderr, flush=True
            )
        try:
            problem = _serve_until_quit(app, memory, path, workers=workers, nice=nice)
        finally:
            memory.close()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if problem is not None:
        raise EnvironmentProblem(f"{problem}; stopped so that a supervisor can start the service again")
    print("jiyi: stopped", file=sys.stderr, flush=True)
    return 0


def _quit_on_signals(app: QCoreApplication) -> dict[int, Any]:
    """Make SIGINT and SIGTERM end `app`'s event loop, even one that has not started yet; the previous handlers."""

    def request_stop(_signum: int, _frame: object) -> None:
        # quit() before exec() is lost: Qt documents that exit() does nothing while the event loop
        # is not running (PySide6 6.11 behaves so), so a signal while the home opens would be
        # ignored. A zero timer is delivered as soon as the loop runs.
        QTimer.singleShot(0, app.quit)

    return {s: signal.signal(s, request_stop) for s in stop_signals()}


def _serve_until_quit(app: QCoreApplication, memory: Memory, path: Path, *, workers: int, nice: int) -> str | None:
    """Listen on `path` and serve until the loop quits; the requests under way finish before it returns.

    Returns why the listener failed, when that is what ended the loop.
    """
    host = SocketHost(memory, path, workers=workers)
    host.listener_failed.connect(lambda _problem: app.exit(1))
    vanished: list[str] = []
    watch = _watch_database(app, memory, vanished)
    host.start()
    if nice:  # before the first request is answered (they are, once the loop runs) and the index is opened
        lower_priority(nice)
    # The desk index opens and the model loads now, beside the first requests: the first `memory.recall` or
    # `context.prepare` (an agent's, right after it started this service) then rarely waits for them.
    memory.desk.index.warm()
    if memory.store.read_only is None:  # both write: on a read-only home they would only fail, every round
        memory.learning.start_timer()
        memory.desk.index.start()  # embeds desk items behind the writes
    print(f"jiyi: serving {memory.store.home} on {path} (pid {os.getpid()})", file=sys.stderr, flush=True)
    if memory.store.read_only is not None:
        print(f"jiyi: {memory.store.database_problem()}", file=sys.stderr, flush=True)
    ticker = QTimer()
    ticker.timeout.connect(lambda: None)
    ticker.start(200)  # Python runs its signal handlers only between bytecodes; Qt's wait is not one
    try:
        app.exec()
    finally:
        ticker.stop()
        watch.stop()
        host.stop()
    return host.listener_problem or (vanished[0] if vanished else None)


def _watch_database(app: QCoreApplication, memory: Memory, vanished: list[str]) -> QTimer:
    """Every second, check that the database path still names the file opened; when it does not (moved
    away, removed, replaced), note why in `vanished` and end the loop: writes are refused already (every
    commit checks), and a supervisor restarting the service gets the problem said at start."""
    identity = memory.store.identity

    def check() -> None:
        problem = identity.problem() if identity is not None else None
        if problem is not None and not vanished:
            vanished.append(problem)
            print(f"jiyi: {problem}", file=sys.stderr, flush=True)
            app.exit(1)

    timer = QTimer()
    timer.timeout.connect(check)
    timer.start(DATABASE_WATCH_MS)
    return timer
