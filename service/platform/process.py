"""A process's priority, its own process group, and how it is asked to stop, on Unix and on Windows.

- **Its own process group** (the console's private service): `start_new_session` would also do on Unix, but a
  session of its own takes as much CPU as the console's whole session where the kernel groups sessions (Linux
  autogroups), so Unix gets `process_group=0`; Windows gets `CREATE_NEW_PROCESS_GROUP`, which is also what lets
  the parent send it Ctrl+Break.
- **Asked to stop**: SIGTERM on Unix; on Windows, Ctrl+Break to the child's group (`CTRL_BREAK_EVENT`), which
  Python raises as SIGBREAK, since SIGTERM there is `TerminateProcess` and leaves no time to drain.
- **A lower priority** (`jiyi serve --nice N`): `nice` on Unix, every thread of the process on Linux; on Windows
  the process's priority class, below normal for any N > 0 (Windows has classes, not 40 levels).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import NamedTuple

CREATE_NEW_PROCESS_GROUP = 0x00000200
"""Windows's `subprocess.CREATE_NEW_PROCESS_GROUP` (named here so the Linux tests can check the Windows branch)."""

BELOW_NORMAL_PRIORITY_CLASS = 0x00004000
"""Windows's `subprocess.BELOW_NORMAL_PRIORITY_CLASS`: the class a `--nice`d service runs in there."""


class Group(NamedTuple):
    """`subprocess.Popen`'s `creationflags` and `process_group` that start a child in a process group of its own."""

    creationflags: int
    process_group: int | None


def own_group(platform: str = sys.platform) -> Group:
    """How to start a child in a process group of its own: `Popen(..., creationflags=g.creationflags,
    process_group=g.process_group)`."""
    if platform == "win32":
        return Group(CREATE_NEW_PROCESS_GROUP, None)  # `process_group` is for POSIX only
    return Group(0, 0)


def stop_signal(platform: str = sys.platform) -> int:
    """What `Popen.send_signal` sends to ask a child started with `own_group` to stop in order."""
    if platform == "win32":
        return 1  # CTRL_BREAK_EVENT: Python raises it in the child as SIGBREAK
    return int(signal.SIGTERM)


def stop_signals() -> tuple[signal.Signals, ...]:
    """The signals on which `jiyi serve` stops in order (closing its connections first)."""
    if sys.platform == "win32":
        return (signal.SIGINT, signal.SIGTERM, signal.SIGBREAK)
    return (signal.SIGINT, signal.SIGTERM)


def lower_priority(by: int) -> None:
    """Run this process `by` nice levels below where it runs now, every thread of it, before and after (Unix);
    on Windows, in the below-normal priority class."""
    if by <= 0:
        return
    if sys.platform == "win32":
        import ctypes

        kernel = ctypes.windll.kernel32
        kernel.SetPriorityClass(kernel.GetCurrentProcess(), BELOW_NORMAL_PRIORITY_CLASS)
        return
    os.nice(by)
    # On Linux a thread's priority is its own and a new thread takes its creator's: the threads started from
    # here on (workers, jobs, Chroma's) take this one's; those some import started already are set one by one.
    tasks = Path("/proc/self/task")
    if tasks.is_dir():
        target = os.getpriority(os.PRIO_PROCESS, 0)
        for task in tasks.iterdir():
            with contextlib.suppress(OSError):  # ended meanwhile
                os.setpriority(os.PRIO_PROCESS, int(task.name), target)
