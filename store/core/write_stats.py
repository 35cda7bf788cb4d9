"""How this process's write transactions spend their time: waiting for the write lock, holding it.

The write lock is SQLite's file lock (`BEGIN IMMEDIATE`) or, on a shared
PostgreSQL store, the advisory lock every write transaction takes. A write
that waits long for it is bound by the other writers (on any host); one that
holds it long makes the others wait. Counted for `health` (`writes`) and for
`bench/scale_out.py`, which tells lock-bound from CPU-bound with them.
"""

from __future__ import annotations

import threading
from typing import TypedDict


class WriteTotals(TypedDict):
    """Totals since the store opened (times in milliseconds)."""

    transactions: int  # committed write transactions
    lock_wait_ms: float  # from BEGIN until the write lock was held (one round trip included)
    lock_held_ms: float  # from holding the lock until the commit returned
    statements: int  # round trips to a database server while holding it (0 on SQLite: no server)


class WriteStats:
    """Thread-safe totals of committed write transactions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals = WriteTotals(transactions=0, lock_wait_ms=0.0, lock_held_ms=0.0, statements=0)

    def record(self, wait_s: float, held_s: float, statements: int) -> None:
        """Count one committed transaction."""
        with self._lock:
            self._totals["transactions"] += 1
            self._totals["lock_wait_ms"] += wait_s * 1000
            self._totals["lock_held_ms"] += held_s * 1000
            self._totals["statements"] += statements

    def snapshot(self) -> WriteTotals:
        with self._lock:
            totals = WriteTotals(**self._totals)
        totals["lock_wait_ms"] = round(totals["lock_wait_ms"], 3)
        totals["lock_held_ms"] = round(totals["lock_held_ms"], 3)
        return totals
