"""The console's private service: a `jiyi serve` child for a home no service owns, ending with the console.

The memory's heavy work (a vector rebuild, an import, agents' runs) then
happens in the child. The console process does only socket I/O and drawing:
Chroma's embedded client holds Python's GIL inside its Rust calls for up to
~0.5 s, which inside the console's own process froze the window as long.

The child listens on the home's configured socket, so agents reach it exactly
as they reached a console hosting the service. Its stderr goes to
`<home>/console-service.log` (overwritten at each start), quoted when it fails.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.client import JsonObject
from service.config import ENV_PREFIX, PASSWORD_ENV, SETTINGS, Config
from service.errors import Cancelled
from service.platform.process import own_group, stop_signal
from service.program import program_command
from service.remote.attach import configured_socket, find_service
from store.core.errors import EnvironmentProblem
from store.core.home import platform, prepare_home, read_only_reason

log = logging.getLogger("jiyi.service.remote")

PRIVATE_NICE = 10
"""How much lower the private service's CPU priority is than the console's (its threads and, where the kernel
groups sessions, its session's group). Its vector rebuilds and imports keep both cores busy; at the same
priority the console's GUI thread waited up to 0.2 s for a CPU (100k home, docs/console-speed.md)."""

LOG_NAME = "console-service.log"
START_S = 60.0  # a fresh home serves in ~1 s; a large one's migration takes longer; a stuck child is given up
STOP_S = 10.0  # the child finishes the requests under way (its drain) within this, else it is killed
POLL_S = 0.05


class ServiceDidNotStart(EnvironmentProblem):
    """The private service exited or did not answer in time; the message carries its own last words.

    `exit_code` is the child's (it refused the home, the socket or its settings: starting it again changes
    nothing until the person does), None when it did not answer in time (it may be migrating a large home)."""

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class PrivateService:
    """A running `jiyi serve` this process started for `config`'s home; `stop()` ends it."""

    def __init__(
        self, process: subprocess.Popen[bytes], socket_path: Path, log_path: Path, owner: str = "the console"
    ) -> None:
        self.process = process
        self.socket_path = socket_path
        self.log_path = log_path
        self.owner = owner  # who started it, as the log names it: "the console", "jiyi mcp"

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    @classmethod
    def start(
        cls, config: Config, *, owner: str = "the console", timeout_s: float = START_S
    ) -> tuple[PrivateService, JsonObject]:
        """Start the child and wait until it answers `health` for the home: the service and that health.

        `owner` names who starts it in the log ("the console", "jiyi mcp"). Raises `ServiceDidNotStart` with
        the child's reason when it exits or does not answer within `timeout_s` (it is killed then); nothing is
        left running.
        """
        service = cls.spawn(config, owner=owner)
        try:
            health = service.wait_until_ready(config, timeout_s=timeout_s)
        except BaseException:
            service.stop(grace_s=0)
            raise
        return service, health

    @classmethod
    def spawn(cls, config: Config, *, owner: str = "the console") -> PrivateService:
        """Start the child and return at once (`wait_until_ready` waits for it): the console shows its window
        while the child starts. Raises `EnvironmentProblem` when the home cannot hold its log."""
        home = prepare_home(config.home_path)  # the child would create it too; its log lives there
        socket_path = configured_socket(config)
        log_path = home / LOG_NAME
        if read_only_reason(home) is not None:  # a read-only home serves reads; its child's log goes elsewhere
            fd, name = tempfile.mkstemp(prefix="jiyi-service-", suffix=".log")  # private (0600), a new file
            os.close(fd)
            log_path = Path(name)
        # `jiyi serve` of this very program: a frozen build's executable, the installed script, or its module.
        command = [*program_command(), "serve", "--home", str(home), "--socket", str(socket_path)]
        command += ["--parent-pid", str(os.getpid()), "--nice", str(PRIVATE_NICE)]
        fd = platform.open_file(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        group = own_group()
        with os.fdopen(fd, "wb") as stderr:
            # Its own process group: Ctrl+C in the console's terminal reaches the console, which then stops
            # the child in order (closing its connections first), instead of both at once. Not its own
            # session: where the kernel groups sessions for CPU (Linux autogroups), a session of its own
            # would take as much CPU as the console's whole session, its nice ordering it only among itself;
            # in the console's group it runs after the GUI thread.
            process = subprocess.Popen(
                command,
                env=child_environment(config),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                creationflags=group.creationflags,
                process_group=group.process_group,
            )
        log.info("starting a private service for %s (pid %d) on %s", owner, process.pid, socket_path)
        return cls(process, socket_path, log_path, owner)

    def wait_until_ready(
        self, config: Config, *, timeout_s: float = START_S, stop: Callable[[], bool] = lambda: False
    ) -> JsonObject:
        """Wait until the child answers `health` for `config`'s home; that health. Raises `ServiceDidNotStart`
        when it exits or does not answer within `timeout_s` (it is left to `stop()` then), `Cancelled` as soon
        as `stop()` says so (the console closed while it started)."""
        deadline = time.monotonic() + timeout_s
        while True:
            if self.process.poll() is not None:
                code = self.process.returncode
                raise ServiceDidNotStart(f"jiyi serve exited ({code}): {self.last_words()}", exit_code=code)
            with contextlib.suppress(OSError):
                found = find_service(config)
                if found is not None and found[1].get("pid") == self.pid:
                    log.info("the private service of %s (pid %d) answers on %s", self.owner, self.pid, self.socket_path)
                    return found[1]
            if stop():
                raise Cancelled(f"stopped waiting for the private service of {self.owner} (pid {self.pid})")
            if time.monotonic() >= deadline:
                raise ServiceDidNotStart(f"jiyi serve did not answer within {timeout_s:g} s: {self.last_words()}")
            time.sleep(POLL_S)

    def stop(self, grace_s: float = STOP_S) -> int:
        """SIGTERM, wait up to `grace_s` for its drain, else kill; its exit code. A socket file a killed
        child left behind is removed (a child that stopped removed its own)."""
        if self.process.poll() is None:
            self.process.send_signal(stop_signal())
        try:
            code = self.process.wait(grace_s)
        except subprocess.TimeoutExpired:
            if grace_s:
                log.warning(
                    "the private service of %s (pid %d) did not stop in %g s; killed", self.owner, self.pid, grace_s
                )
            self.process.kill()
            code = self.process.wait()
        if code != 0:
            _remove_if_stale(self.socket_path)  # killed, it could not remove its socket itself
        return code

    def last_words(self) -> str:
        """The last lines the child wrote to its log (its reason, when it failed)."""
        try:
            lines = self.log_path.read_text("utf-8", errors="replace").strip().splitlines()
        except OSError:
            return "(no log)"
        return " / ".join(lines[-3:]) or "(no output)"


def _remove_if_stale(path: Path) -> None:
    """Remove the socket file at `path` if nobody listens on it: never one a live server holds (a child
    that exited by itself may have been refused the socket because another server serves it)."""
    if sys.platform == "win32":
        return  # a named pipe is no file: it goes with its server
    with contextlib.suppress(OSError):
        if not stat.S_ISSOCK(path.lstat().st_mode):
            return
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
        except ConnectionRefusedError:
            path.unlink()
        finally:
            probe.close()


def child_environment(config: Config) -> dict[str, str]:
    """This process's environment, its `JIYI_*` settings replaced by `config`'s own (those not from a default
    or the home's config.toml, which the child reads itself): the child serves the home as `config` says."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(ENV_PREFIX)}
    for setting in SETTINGS:
        if setting.name not in ("home", "socket") and config.sources.get(setting.name) in ("env", "flag"):
            env[setting.env] = _as_text(config.values[setting.name])
    if config.password is not None:
        env[PASSWORD_ENV] = config.password
    return env


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list | tuple):
        return ",".join(str(item) for item in value)
    return str(value)
