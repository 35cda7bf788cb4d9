"""Reads of one request run side by side: a few reader threads per open store, each with its own connection.

`memory.recall` searches four kinds (turns, task cards, topics, facts), each a full-text search and a
nearest-vector query. SQLite and Chroma let go of the GIL while they search, so on a machine of two cores
the kinds searched at once answer in about two thirds of the time one after another
(`bench/memory_recall.py`). On SQLite each reader thread opens its own connection to the file (WAL:
readers never wait for the writer); on a PostgreSQL server each would hold a connection for the host's
life, so there the reads run one after another, on the caller's thread, when their answer is asked for.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from store.core.dialect import dialect_of

T = TypeVar("T")

READERS = 3
"""Reader threads per open store: with the caller's own thread, the four kinds recall searches at once."""
CLOSE_WAIT = 30.0
"""Seconds closing waits for every reader to be free before it closes the connections it can."""


class Readers:
    """The reader threads of one open store (started when first asked, stopped by `close`)."""

    def __init__(self, db: Any) -> None:
        self._db = db
        self._side_by_side = not dialect_of(db).shared
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._busy = 0  # reads started on the readers and not yet answered

    def aside(self, read: Callable[[], T]) -> Callable[[], T]:
        """Start `read` on a reader thread now; the function returned waits for its answer (or raises its error).

        `read` runs on the calling thread instead, when its answer is asked for: inside a transaction of that
        thread (a reader's own connection would not see the transaction's writes), on a server, once the store
        is closing, and when every reader is busy (another request's reads): a read never queues behind
        another request's, so requests served at once are no slower than one after another.
        """
        if self._db.in_transaction():
            return read
        with self._lock:
            if not self._side_by_side or self._closed or self._busy >= READERS:
                return read
            if self._pool is None:
                self._pool = ThreadPoolExecutor(READERS, thread_name_prefix="jiyi-reader")
            self._busy += 1
            return self._pool.submit(self._read, read).result

    def _read(self, read: Callable[[], T]) -> T:
        try:
            return read()
        finally:
            with self._lock:
                self._busy -= 1

    def close(self) -> None:
        """Wait for the reads under way, close each reader's connection on its own thread, and stop the threads.

        A connection is only closed by the thread that holds it (peewee keeps one per thread); left to the
        thread's end, it would wait for the garbage collector, holding the file (and its WAL) after the store
        closed. One closing task per reader, meeting at a barrier, reaches every thread exactly once.
        """
        with self._lock:
            pool, self._pool, self._closed = self._pool, None, True
        if pool is None:
            return
        meet = threading.Barrier(READERS, timeout=CLOSE_WAIT)

        def close_here() -> None:
            # A reader still busy after CLOSE_WAIT breaks the barrier: the others close what they hold.
            with contextlib.suppress(threading.BrokenBarrierError):
                meet.wait()
            self._db.close()

        for _ in range(READERS):
            pool.submit(close_here)
        pool.shutdown(wait=True)
