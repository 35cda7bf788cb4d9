"""`jiyi serve --parent-pid`: the console's private service ends when the console does, however it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# A process that follows the process named by argv[1] (by the kernel, or by polling when argv[2] is "poll"),
# says its pid on stdout, and would then sleep for a minute.
FOLLOWER = """
import os, sys, time
import service.follow_parent as follow
if sys.argv[2] == "poll":
    follow._ask_kernel = lambda: False
    follow.POLL_S = 0.05
follow.follow_parent(int(sys.argv[1]))
print(os.getpid(), flush=True)
time.sleep(60)
"""

# A parent that starts the follower, passes its pid on, then ends as told (exit, or SIGKILL of itself).
PARENT = """
import os, signal, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(os.getpid()), sys.argv[2]], stdout=subprocess.PIPE)
print(child.stdout.readline().decode().strip(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as status:
            return status.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[3])
    return {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see the follower end")
@pytest.mark.parametrize("how", ["kernel", "poll"])
def test_a_follower_ends_when_its_parent_is_killed(how: str) -> None:
    if sys.platform == "win32":
        pytest.skip("kills with SIGKILL (Unix only)")
    parent = subprocess.run(
        [sys.executable, "-c", PARENT, FOLLOWER, how], capture_output=True, text=True, timeout=60, env=env()
    )
    assert parent.returncode == -signal.SIGKILL
    follower = int(parent.stdout.strip())
    deadline = time.monotonic() + 10
    while not gone(follower):
        assert time.monotonic() < deadline, "the follower outlived its parent"
        time.sleep(0.05)


def test_a_follower_whose_parent_already_ended_stops_at_once() -> None:
    """The race: the parent died before the follower asked the kernel; no signal would ever come."""
    # The follower's parent is this process: told to follow another one, it finds itself already orphaned.
    ended = os.getpid() + 1
    started = subprocess.run(
        [sys.executable, "-c", FOLLOWER, str(ended), "kernel"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env(),
    )
    assert started.returncode == -signal.SIGTERM and started.stdout == ""
