"""The real console on a real X server: `jiyi` opens its window through Qt's xcb plugin and closes cleanly.

The other GUI tests run offscreen; this one is what a person gets from `make run`, so a library the xcb
plugin needs and the machine lacks fails here, not on the user's desktop.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.service.learning_setup import write_grant

JIYI = str(Path(sys.executable).parent / "jiyi")


@dataclass(frozen=True)
class Display:
    name: str
    server: subprocess.Popen[bytes]
    log: Path

    def state(self) -> str:
        """Whether the display's server still runs and what it said: a console that cannot connect names the cause."""
        alive = "running" if self.server.poll() is None else f"exited with {self.server.returncode}"
        return f"Xvfb on {self.name} {alive}; its log: {self.log.read_text(errors='replace').strip() or '(empty)'}"


@pytest.fixture
def display(tmp_path: Path) -> Iterator[Display]:
    """A private Xvfb display (`make test` installs Xvfb)."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None or shutil.which("xwininfo") is None:
        pytest.skip("Xvfb and xwininfo are not installed here (make test installs xvfb and x11-utils)")
    read, write = os.pipe()
    log = tmp_path / "xvfb.log"
    with log.open("wb") as stderr:
        server = subprocess.Popen(
            [xvfb, "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            pass_fds=(write,),
            stderr=stderr,
        )
    os.close(write)
    try:
        with os.fdopen(read) as announced:
            number = announced.readline().strip()  # Xvfb writes its display number once it accepts clients
        assert number, f"Xvfb did not start: {log.read_text(errors='replace')}"
        display = Display(f":{number}", server, log)
        deadline = time.monotonic() + 10
        while subprocess.run(
            ["xwininfo", "-root", "-display", display.name], capture_output=True, timeout=10
        ).returncode:
            assert time.monotonic() < deadline, f"the display takes no client: {display.state()}"
            time.sleep(0.1)
        yield display
    finally:
        server.terminate()
        server.wait(timeout=10)


def window_ids(display: str) -> str:
    return subprocess.run(
        ["xwininfo", "-root", "-tree", "-display", display], capture_output=True, text=True, timeout=10
    ).stdout


@pytest.mark.slow
@pytest.mark.xdist_group("real_console")  # one display at a time: two servers never race for a display number
@pytest.mark.parametrize("learning", [False, True], ids=["plain", "with-a-learning-grant"])
def test_the_console_opens_its_window_and_closes_on_sigterm(display: Display, tmp_path: Path, learning: bool) -> None:
    if learning:  # the console then scans on its learning timer too, and stops it on the way out
        write_grant(tmp_path / "home")
    run = Path(tempfile.mkdtemp(prefix="jy", dir="/tmp"))  # a socket path must stay short
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JIYI_", "QT_QPA_"))}
    env.update(DISPLAY=display.name, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
    env.update(JIYI_SOCKET=str(run / "jiyi.sock"), JIYI_EMBED_MODEL="hash")
    console = subprocess.Popen(
        [JIYI, "--home", str(tmp_path / "home")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        home = str(tmp_path / "home")
        while home not in window_ids(display.name):  # the main window (titled by its home), not the start-up splash
            assert console.poll() is None, f"{console.communicate()[1].decode(errors='replace')}\n{display.state()}"
            assert time.monotonic() < deadline, "the console's window never appeared"
            time.sleep(0.2)
        # The window shows while the console's private child starts; the agent service is up soon after.
        while not (run / "jiyi.sock").exists():
            assert console.poll() is None, f"{console.communicate()[1].decode(errors='replace')}\n{display.state()}"
            assert time.monotonic() < deadline, "the console's private service never listened"
            time.sleep(0.1)
        console.send_signal(signal.SIGTERM)
        _out, err = console.communicate(timeout=30)
        assert console.returncode == 0, err.decode(errors="replace")
        assert "Traceback" not in err.decode(errors="replace")
        assert "Jiyi" not in window_ids(display.name)
        assert not (run / "jiyi.sock").exists()  # the service stopped with the window
    finally:
        if console.poll() is None:
            console.kill()
            console.wait()
        shutil.rmtree(run, ignore_errors=True)
