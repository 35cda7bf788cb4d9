"""The home's size budget: how much disk the database and the bundle files may take.

One client writing in a loop must not fill the disk. Past the budget, writes
are refused with `HomeOverBudget` (the socket answers `unavailable`) while
reads go on. Measuring is cheap: the database, its WAL and shared-memory
files and the bundle folders are measured once, then the estimate grows by
what each committed write appended; they are measured again every
`REMEASURE_WRITES` writes or `REMEASURE_SECONDS`, never per request.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypedDict

from store.core.errors import HomeOverBudget

MB = 1024 * 1024
REMEASURE_WRITES = 200
REMEASURE_SECONDS = 30.0
# A write appends its event and updates its view, and a bundle document is mirrored to a file too: the
# estimate counts each event's payload twice until the next measurement says what it really took.
GROWTH_PER_PAYLOAD_BYTE = 2


class HomeSize(TypedDict):
    """What `health` says of the home's size: `bytes` used (the last estimate), the budget (None: no budget)."""

    bytes: int
    budget_bytes: int | None
    over_budget: bool


def measure(files: Sequence[Path], folders: Sequence[Path]) -> int:
    """The bytes of `files` and of every regular file under `folders` (symlinks are not followed)."""
    total = 0
    for path in files:
        with contextlib.suppress(OSError):  # not there (yet): no bytes
            total += os.lstat(path).st_size
    todo = [str(folder) for folder in folders]
    while todo:
        try:
            entries = list(os.scandir(todo.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                todo.append(entry.path)
            elif stat.S_ISREG(info.st_mode):
                total += info.st_size
    return total


class HomeBudget:
    """The size budget of one home (`limit_bytes` 0: no budget, the size is still reported).

    Thread-safe: writes check and count under the store's write lock, `health`
    reads the size from any thread.
    """

    def __init__(
        self,
        limit_bytes: int,
        files: Sequence[Path],
        folders: Sequence[Path],
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit_bytes = limit_bytes
        self._files, self._folders, self._clock = tuple(files), tuple(folders), clock
        self._lock = threading.Lock()
        self._estimate: int | None = None
        self._measured_at = 0.0
        self._writes_since = 0

    def _refresh(self) -> int:
        """The estimate, measured again first when it is missing or stale (call with the lock held)."""
        stale = self._writes_since >= REMEASURE_WRITES or self._clock() - self._measured_at >= REMEASURE_SECONDS
        if self._estimate is None or stale:
            self._estimate = measure(self._files, self._folders)
            self._measured_at, self._writes_since = self._clock(), 0
        return self._estimate

    def size(self) -> HomeSize:
        """The home's size as last estimated (measured when stale) and the budget."""
        with self._lock:
            used = self._refresh()
        limit = self.limit_bytes or None
        return {"bytes": used, "budget_bytes": limit, "over_budget": limit is not None and used >= limit}

    def check(self) -> None:
        """Refuse a write (`HomeOverBudget`) when the home has reached its budget; reads never ask."""
        if not self.limit_bytes:
            return
        with self._lock:
            used = self._refresh()
        if used >= self.limit_bytes:
            budget_mb = self.limit_bytes // MB
            raise HomeOverBudget(
                f"the home has reached its size budget of {budget_mb} MB (JIYI_MAX_HOME_MB): it holds "
                f"{used / MB:.1f} MB in its database and bundle files. Reads still work; writes are refused "
                "until JIYI_MAX_HOME_MB is raised (0: no budget) and the home is opened again",
                {"bytes": used, "budget_bytes": self.limit_bytes},
            )

    def wrote(self, payload_bytes: int) -> None:
        """Count one committed write that appended `payload_bytes` of event payload."""
        with self._lock:
            if self._estimate is not None:
                self._estimate += payload_bytes * GROWTH_PER_PAYLOAD_BYTE
            self._writes_since += 1
