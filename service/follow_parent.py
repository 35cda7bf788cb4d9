"""A process that ends with its parent: the console's private `jiyi serve` (`--parent-pid`).

The console starts a service for its home and that service must not outlive it,
even when the console is killed (SIGKILL leaves it no chance to stop the child).
On Linux the kernel sends the child SIGTERM when its parent dies
(PR_SET_PDEATHSIG); elsewhere a thread polls the parent. Either way the service
then stops as on any SIGTERM: the requests under way finish, the socket goes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
import sys
import threading
import time

log = logging.getLogger("jiyi.service.private")

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
POLL_S = 1.0


def follow_parent(parent_pid: int) -> None:
    """Make this process receive SIGTERM when `parent_pid`, its parent, ends; SIGTERM now if it already has."""
    if not (sys.platform.startswith("linux") and _ask_kernel()):
        threading.Thread(target=_poll, args=(parent_pid,), name="jiyi-follow-parent", daemon=True).start()
    # The parent may have died before the kernel was asked (a console killed while Python started
    # this process): this process was then handed to another parent, and no signal will come.
    if os.getppid() != parent_pid:
        log.warning("the process that started this service (pid %d) has ended; stopping", parent_pid)
        os.kill(os.getpid(), signal.SIGTERM)


def _ask_kernel() -> bool:
    """PR_SET_PDEATHSIG(SIGTERM): sent when the thread that started this process ends. The console starts
    its service from its main thread, whose end is the console's end."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) == 0:
            return True
        log.warning("prctl(PR_SET_PDEATHSIG) failed (errno %d); polling the parent instead", ctypes.get_errno())
    except (OSError, AttributeError) as exc:
        log.warning("prctl is not available (%s); polling the parent instead", exc)
    return False


def _poll(parent_pid: int) -> None:
    """Once a second: a parent that ended leaves its child to another parent (init, a subreaper)."""
    while os.getppid() == parent_pid:
        time.sleep(POLL_S)
    log.warning("the process that started this service (pid %d) has ended; stopping", parent_pid)
    os.kill(os.getpid(), signal.SIGTERM)
