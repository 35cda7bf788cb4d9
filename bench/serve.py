"""A `jiyi serve` for the benchmarks: started on a home and a socket, ready once it answers `health`, stopped
cleanly (SIGTERM), and killed when it does not start or does not stop.

The tests start theirs with `tests/service/conftest.py`; a benchmark imports nothing of `tests/` (nor pytest),
so it starts the service it measures here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from service import person_key
from service.client import JiyiClient

# What the `jiyi` command runs.
_MAIN = "import sys; from gui.main import main; sys.exit(main())"
# A deadline for start-up, not a claim about its speed: on a loaded 2-core machine, `jiyi serve` took over
# 30 s to import and listen.
START_TIMEOUT = 90.0
STOP_TIMEOUT = 30.0


@dataclass
class Served:
    """A running `jiyi serve`; `with` stops it at the end."""

    process: subprocess.Popen[bytes]
    socket: Path
    home: Path

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """Stop it as a person would (SIGTERM) and wait for it; one still running after `timeout` s is killed
        (said on stderr). Its exit status: 0 when it stopped cleanly."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            print(f"jiyi serve on {self.socket} did not stop within {timeout:g} s: killed", file=sys.stderr)
            return self.process.wait(timeout=timeout)

    def person_client(self, timeout: float = 60.0) -> JiyiClient:
        """A client that acts as the person, for what only the person may ask (an import, a forget): it presents
        the key the service wrote in its home (`service/person_key.py`), as the console and the commands do.
        A service that writes none (an older checkout) takes it as an agent's."""
        key = person_key.read_or_none(self.home)
        hello = {} if key is None else {"person_key": key}
        return JiyiClient(self.socket, timeout=timeout, hello="command", hello_params=lambda: hello)

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start(
    home: Path,
    sock: Path,
    *extra: str,
    env: Mapping[str, str] | None = None,
    before: str = "",
    code: Path | None = None,
    log: Path | None = None,
    timeout: float = START_TIMEOUT,
) -> Served:
    """`jiyi serve --home home --socket sock *extra`, once it answers `health` on `sock`.

    `env` gives its `JIYI_*` settings (the caller's own `JIYI_*` are left out: the benchmark decides them);
    `before` is Python run in its process first (to switch something off, for a baseline); `code` is a checkout
    whose code it runs instead of this one (with this environment's packages, from that folder); `log` receives
    its stderr, appended (else it is discarded). One that exits first (`RuntimeError`) or does not answer
    within `timeout` s (`TimeoutError`) is killed, not left behind.
    """
    environment = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")} | dict(env or {})
    first = f"import sys; sys.path.insert(0, {str(code)!r})" if code is not None else ""
    program = "\n".join(part for part in (first, before, _MAIN) if part)
    # -P: the working folder is not put first on the import path (the `jiyi` command's path: the packages').
    command = [sys.executable, "-P", "-c", program, "serve", "--home", str(home), "--socket", str(sock), *extra]
    with open(log or os.devnull, "ab") as stderr:
        process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=stderr, cwd=code)
    served = Served(process, sock, home)
    try:
        _wait_for_health(served, timeout, log)
    except BaseException:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT)
        raise
    return served


def _wait_for_health(served: Served, timeout: float, log: Path | None) -> None:
    deadline = time.monotonic() + timeout
    seen = f"; its stderr is in {log}" if log is not None else ""
    with JiyiClient(served.socket, timeout=10) as client:
        while True:
            if not served.alive():
                raise RuntimeError(f"jiyi serve exited with {served.process.returncode} before it answered{seen}")
            if client.request("health").get("ok"):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"jiyi serve did not answer health on {served.socket} within {timeout:g} s{seen}")
            time.sleep(0.05)
