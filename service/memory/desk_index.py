"""Desk indexing behind the acknowledged write, and the dense half of desk recall.

`interaction.remember` (and every other desk write) commits its row, its
search row and its entry in `desk_embed_queue` in one transaction and is
acknowledged then; embedding happens afterwards, here, in batches: on a
thread of its own once `start` was called (the service and the console do),
or when someone calls `drain` (an evaluation, an import, `rebuild-vec`). The
thread takes its share of the time beside the writes (`index_share`) and
stands aside while someone drains. The queue's length is the index lag
(`desk.index_lag` in health, the overview and `jiyi doctor`).

Recall asks `dense()` for the query's searcher. It answers None, with the
reason, when dense retrieval cannot take part: the index was never opened in
this process, the embedder is missing or its endpoint down. Full text then
answers alone and the result says `degraded` and why; nothing is lost, the
queue keeps what waits to be embedded.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from recall.desk_index import DeskIndex, Item, Searcher
from service.memory.index_share import IndexShare
from service.memory.parts import Parts
from store.desk import embed_queue
from store.desk.projection import DOMAIN as DESK

log = logging.getLogger("jiyi.service.memory")
Progress = Callable[[int, int], None]

BATCH = 64  # items embedded per model call: the model's own batch speed, without holding much text
LAGGING = 500  # a lag above this many items makes recall say it is degraded (recent turns miss meaning)
RETRY_AFTER = 30.0  # seconds the thread waits after a failed batch (the embedder's endpoint down)
IDLE_WAKE = 5.0  # seconds between looks at the queue when no change was heard (another host's writes)
# While someone drains the queue explicitly (an import's job indexing what it imported, `rebuild-vec`: work that
# is waited for) the thread stands aside; it looks again after this many seconds. Beside the writes it takes its
# share of the time (`service.memory.index_share`).
STAND_ASIDE = 0.1


class DeskIndexer:
    """The desk index for one home: filled behind writes, asked by recall (see the module docstring)."""

    def __init__(self, parts: Parts, open_index: Callable[[], tuple[Any, Any]]) -> None:
        self.parts = parts
        self._open_index = open_index  # -> (VectorIndex, Embedder), loading the model: never on the GUI thread
        self._index: DeskIndex | None = None
        self._lock = threading.Lock()
        self._drain_lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.problem: str | None = None  # why the last attempt to open or fill the index failed
        self.embedded = 0  # items this process embedded
        # The lag as last counted (by `lag`, after each batch): health reads it without touching the database.
        self.known_lag: int | None = None
        self._share = IndexShare()  # when the thread's next batch may start beside the writes
        self._drains = 0  # explicit drains under way (the thread stands aside)
        # Embeds recall's questions while the full text is read (one thread: the model runs one query at a time).
        self._ahead: ThreadPoolExecutor | None = None

    # -- the index ------------------------------------------------------------------------

    def open(self) -> DeskIndex:
        """The index, opened (and the embedder loaded) on first use; raises what opening raised."""
        with self._lock:
            if self._index is None:
                try:
                    index, embedder = self._open_index()
                except Exception as exc:
                    self.problem = f"{type(exc).__name__}: {exc}"
                    raise
                self._index = DeskIndex(index, embedder)
                self.problem = None
            return self._index

    @property
    def opened(self) -> bool:
        return self._index is not None

    def lag(self) -> int:
        """Items waiting to be embedded (counted now)."""
        self.known_lag = embed_queue.lag(self.parts.store)
        return self.known_lag

    def dense(self, query: str) -> tuple[Searcher | None, str | None]:
        """The query's searcher over the index, or None and why dense retrieval cannot answer now.

        The query is embedded on a thread of its own while the caller reads the full text; if that fails, the
        searcher finds nothing and `failed` says why (the caller then answers as degraded).
        """
        if self._index is None:
            return None, self.problem or "the desk index is not open in this process (full text only)"
        with self._lock:
            if self._ahead is None:
                self._ahead = ThreadPoolExecutor(1, thread_name_prefix="jiyi-desk-query")
            ahead = self._ahead
        return self._index.searcher(query, ahead), None

    @staticmethod
    def failed(searcher: Searcher | None) -> str | None:
        """Why `searcher` (from `dense`, used) found nothing: its query could not be embedded, or the index could not
        be read; else None."""
        if searcher is None:
            return None
        if searcher.problem is not None:
            log.warning("desk recall went by full text only: %s", searcher.problem)
            return f"the embedder failed: {searcher.problem}"
        if searcher.unreadable is not None:
            log.warning("desk recall went by full text only: %s", searcher.unreadable)
            return f"the desk index could not be read: {searcher.unreadable}"
        return None

    # -- filling it -------------------------------------------------------------------------

    def drain(
        self,
        progress: Progress | None = None,
        batch: int = BATCH,
        limit: int | None = None,
        *,
        since: int | None = None,
    ) -> int:
        """Embed what the queue holds now, `batch` items at a time (or its first `limit` items); returns how many
        were embedded. `since` (an event's seq) keeps to what the events after it queued: an import's own items,
        not a backlog older than it. What writes queue meanwhile is left to the thread, which stands aside until
        this returns (see `STAND_ASIDE`). `progress(done, total)` hears after each batch."""
        self.open()
        upto = self.parts.store.last_seq()  # what is queued now: writes going on beside it do not make it longer
        with self._lock:
            self._drains += 1
        try:
            return self._fill(progress, batch, limit, since, upto)
        finally:
            with self._lock:
                self._drains -= 1
            self._wake.set()  # the thread goes on with what is left

    def _fill(
        self,
        progress: Progress | None,
        batch: int,
        limit: int | None,
        since: int | None,
        upto: int | None,
        pace: Callable[[], bool] | None = None,
    ) -> int:
        """Embed the entries queued by the events after `since` up to `upto` (None: any), batch by batch; `pace()`
        is asked before each (the thread's share: False when it is stopping)."""
        index = self.open()
        store = self.parts.store
        done = embedded = 0
        total = embed_queue.lag(store, since, upto)
        while limit is None or done < limit:
            if pace is not None and not pace():
                break
            with self._drain_lock:  # one batch at a time: two drains never take the same entries
                began, held = time.monotonic(), store.write_stats.snapshot()["lock_held_ms"]
                queued = embed_queue.take(store, batch, since, upto)
                if not queued:
                    break
                read = embed_queue.texts(store, queued)
                embedded += index.put([Item(t.kind, t.key, t.text, t.epoch) for t in read.found])
                for kind in embed_queue.KINDS:
                    index.forget(kind, [t.key for t in read.withdrawn if t.kind == kind])
                held = (store.write_stats.snapshot()["lock_held_ms"] - held) / 1000  # the writes', meanwhile
                with self.parts.writes:
                    embed_queue.done(store, queued)
                took = time.monotonic() - began
            done += len(queued)
            self.embedded += len(read.found)
            self._share.worked(took, held, behind=self.lag() > LAGGING)
            if read.gone:
                log.info("%d queued desk items were gone from the views", len(read.gone))
                self.sweep({q.kind for q in read.gone})
            if progress:
                progress(done, max(total, done))
        return embedded

    def sweep(self, kinds: set[str] | None = None) -> int:
        """Remove the vectors of items no longer in the views, or withdrawn from recall (of `kinds`, default
        all); returns how many went. A queued item found gone names only its row, not its key: its vector is
        found by comparing the index's keys with the views'."""
        index = self.open()
        removed = 0
        for kind in sorted(kinds or embed_queue.KINDS):
            stale = index.keys(kind) - embed_queue.keys(self.parts.store, kind)
            index.forget(kind, sorted(stale))
            removed += len(stale)
        if removed:
            log.info("removed %d desk vectors of items gone from the views", removed)
        return removed

    def rebuild(self, progress: Progress | None = None) -> dict[str, int]:
        """Drop the desk collections, queue every searchable item again and embed them all (`rebuild-vec`)."""
        index = self.open()
        dropped = index.drop()
        with self.parts.writes:
            queued = embed_queue.queue_everything(self.parts.store)
        embedded = self.drain(progress)
        return {"desk_collections_dropped": dropped, "desk_items": queued, "desk_embedded": embedded}

    # -- the thread ---------------------------------------------------------------------------

    def start(self) -> None:
        """Fill the index on a thread of its own from now on, woken by each desk change (the service calls this)."""
        if self._thread is not None:
            return
        self.parts.add_listener(self._heard)
        self._thread = threading.Thread(target=self._run, name="jiyi-desk-index", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            self.parts.remove_listener(self._heard)
            thread.join(timeout=10)
        with self._lock:
            ahead, self._ahead = self._ahead, None
        if ahead is not None:
            ahead.shutdown(wait=True)

    def _heard(self, domain: str, _txn: object) -> None:
        if domain == DESK:
            self._share.heard_write()
            self._wake.set()

    def _pace(self) -> bool:
        """Before each of the thread's batches: wait while someone drains the queue explicitly, and rest for its
        share beside the writes (`IndexShare`); False when it is stopping."""
        while not self._stopping.is_set():
            rest = STAND_ASIDE if self._drains else self._share.wait()
            if not rest:
                return True
            self._stopping.wait(rest)
        return False

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                self._fill(None, BATCH, None, None, None, self._pace)
            except Exception as exc:  # a thread of its own: every failure is logged, kept and retried
                self.problem = f"{type(exc).__name__}: {exc}"
                log.warning("the desk index could not embed (retrying in %.0f s): %s", RETRY_AFTER, exc)
                self._stopping.wait(RETRY_AFTER)
                continue
            self._wake.wait(IDLE_WAKE)

    def state(self) -> dict[str, Any]:
        """The index as health, the overview and `jiyi doctor` show it."""
        return {
            "index_lag": self.lag(),
            "open": self.opened,
            "running": self._thread is not None,
            "embedded_here": self.embedded,
            "problem": self.problem,
        }
