"""One kind's related items: full-text hits by BM25 and the desk index's nearest vectors, fused.

The store holds no vectors and calls no model: the service hands in a
`Dense` (the query embedded once, the Chroma collections behind it), or None
when there is none (no embedder, an endpoint down: full text alone answers,
and the service says the result is degraded). See `fusion` for the order and
the relevance floor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Generic, Protocol, TypeVar

from store.core.database import Store
from store.desk import fts, fusion, question

FTS_POOL = 40  # full-text hits read per kind before fusing
DENSE_POOL = 40  # nearest vectors read per kind
BACKGROUND_FROM = 5  # the query's background similarity: its nearest items past the first few


class Dense(Protocol):
    """The query's nearest items in the desk index (the service's `DeskIndex.searcher`)."""

    def nearest(self, kind: str, k: int) -> list[tuple[str, float]]:
        """(key, cosine similarity) of the `k` nearest items of `kind`, best first (empty when unavailable)."""
        ...

    def unrelated(self) -> tuple[float, float] | None:
        """The mean and deviation of the query's similarity to unrelated text (None: not known)."""
        ...

    def similarities(self, kind: str, keys: Sequence[str]) -> dict[str, float]:
        """The query's similarity to each of `keys` (those the index holds)."""
        ...

    def resemblance(self, kind: str, keys: Sequence[str]) -> dict[tuple[str, str], float]:
        """The similarity of each two of `keys` to each other (pairs of items the index holds)."""
        ...


R = TypeVar("R")  # one kind's row as its readers build it

# The rows of these search-table rowids, by rowid (leaving out rows that may not be recalled).
ByRowid = Callable[[Sequence[int]], dict[int, R]]
# The rows of these keys (the items' own ids), by key.
ByKey = Callable[[Sequence[str]], dict[str, R]]
# keys -> (key, row) of the items said just before and after each, in the same sitting
Neighbours = Callable[[Sequence[str]], list[tuple[str, R]]]
NEIGHBOURS_OF = 10  # the candidates (by either list's rank) whose neighbours are read


@dataclass(frozen=True)
class Kind(Generic[R]):
    """One kind of recallable item as retrieval reads it.

    `table` is its full-text search table and `name` its collection in the desk index. `by_rowid` reads rows by
    their search-table rowid, `by_key` by their own id (`key` reads it from a row); either leaves out rows that
    may not be recalled (an inactive fact). `epoch` is when a row was said or last changed. `neighbours` (turns
    only) reads the items said just before and after the given ones (see `fusion.Params.neighbour`); `run_of`
    (task cards only) says which task an item is a run of (see `fusion.fuse`).
    """

    table: str
    name: str
    by_rowid: ByRowid[R]
    by_key: ByKey[R]
    key: Callable[[R], str]
    epoch: Callable[[R], float]
    neighbours: Neighbours[R] | None = None
    run_of: fusion.RunOf[R] | None = None


def related(
    store: Store,
    of: Kind[R],
    query: str,
    limit: int,
    *,
    newest: int | None,
    dense: Dense | None,
    params: fusion.Params = fusion.DEFAULT,
) -> list[fusion.Candidate[R]]:
    """The best `limit` related items of kind `of` for `query`, each with `fused` (the best 1.0), `score` and
    `signals` (`newest`: the search table's newest rowid, as the caller's snapshot saw it)."""
    if limit <= 0:
        return []
    if fts.mostly_chinese(query):
        params = replace(params, weight=params.weight_chinese)
    latest: fusion.Resemblance | None = None
    if dense is not None and question.asks_latest(query):

        def latest(keys: list[str]) -> dict[tuple[str, str], float]:
            return dense.resemblance(of.name, keys)

    found, floor = gather(store, of, query, limit, newest=newest, dense=dense, above=params.above)
    adjacent = adjacent_to(found, of) if of.neighbours is not None and floor.active and params.neighbour > 0 else {}
    return fusion.fuse(
        found,
        limit,
        floor,
        params,
        adjacent=adjacent,
        periods=question.periods(query),
        resemblance=latest,
        run_of=of.run_of,
    )


def gather(
    store: Store,
    of: Kind[R],
    query: str,
    limit: int,
    *,
    newest: int | None,
    dense: Dense | None,
    pool: int | None = None,
    above: float = fusion.ABOVE_UNRELATED,
) -> tuple[list[fusion.Candidate[R]], fusion.Floor]:
    """Every candidate either list found (`pool` of each, default `FTS_POOL` / `DENSE_POOL`), with its signals,
    and the floor that applies to them (active when dense retrieval took part and either the query's
    similarity to unrelated text or its background here is known). When even the last of the nearest stands
    `above` deviations above unrelated text, the best `limit` full-text hits that are not among the nearest get
    their similarity read too: whether they count as related by meaning is then known."""
    fts_pool = pool or max(FTS_POOL, limit * 4)
    nearest = pool or dense_pool(limit)
    scored = fts.FtsTable(store.db, of.table).ranked(query, fts_pool, newest)
    rows = of.by_rowid([s.rowid for s in scored]) if scored else {}
    found: dict[str, fusion.Candidate[R]] = {}
    for rank, s in enumerate((s for s in scored if s.rowid in rows), start=1):
        row = rows[s.rowid]
        found[of.key(row)] = fusion.Candidate(
            of.key(row),
            row,
            of.epoch(row),
            fts_rank=rank,
            bm25=s.bm25,
            share=round(s.share, 3),
            held=s.held,
            coverage=round(s.coverage, 3),
        )
    near = dense.nearest(of.name, nearest) if dense is not None else []
    spread = _spread([similarity for _, similarity in near])
    unrelated = dense.unrelated() if dense is not None and near else None
    missing = [k for k, _ in near if k not in found]
    more = of.by_key(missing) if missing else {}
    rank = 0
    for k, similarity in near:
        candidate = found.get(k)
        if candidate is None:
            fetched = more.get(k)
            if fetched is None:
                continue  # gone from the views, or not recallable (the index catches up)
            candidate = found[k] = fusion.Candidate(k, fetched, of.epoch(fetched))
        rank += 1
        candidate.dense_rank = rank
        _measure(candidate, similarity, spread, unrelated)
    # Full-text hits beyond the nearest are less similar than the last of them: they can pass the floor by
    # meaning only when that one stands above unrelated text (a memory where much is near the question).
    if (
        dense is not None
        and unrelated is not None
        and len(near) >= nearest
        and (near[-1][1] - unrelated[0]) / unrelated[1] >= above
    ):
        among = {k for k, _ in near}
        words_only = [c.key for c in found.values() if c.fts_rank is not None and c.key not in among]
        for k, similarity in dense.similarities(of.name, words_only[:limit]).items():
            _measure(found[k], similarity, spread, unrelated)
    return list(found.values()), fusion.Floor(active=bool(near) and (spread is not None or unrelated is not None))


def _measure(
    candidate: fusion.Candidate[R],
    similarity: float,
    spread: tuple[float, float] | None,
    unrelated: tuple[float, float] | None,
) -> None:
    """`candidate`'s similarity, and how far it stands above this memory's background and above unrelated text."""
    candidate.similarity = similarity
    if spread is not None:
        candidate.standing = round((similarity - spread[0]) / spread[1], 2)
    if unrelated is not None:
        candidate.above = round((similarity - unrelated[0]) / unrelated[1], 2)


def dense_pool(limit: int) -> int:
    """How many nearest vectors of each kind `gather` reads for a recall of `limit` items."""
    return max(DENSE_POOL, limit * 4)


def adjacent_to(found: list[fusion.Candidate[R]], of: Kind[R]) -> dict[str, list[fusion.Candidate[R]]]:
    """The neighbours of the best candidates, as candidates (the found ones themselves where they were found)."""
    if of.neighbours is None:
        return {}
    best = [
        c.key
        for c in found
        if (c.fts_rank is not None and c.fts_rank <= NEIGHBOURS_OF)
        or (c.dense_rank is not None and c.dense_rank <= NEIGHBOURS_OF)
    ]
    if not best:
        return {}
    by_key = {c.key: c for c in found}
    out: dict[str, list[fusion.Candidate[R]]] = {}
    for near, row in of.neighbours(best):
        n = by_key.get(of.key(row))
        if n is None:
            n = by_key[of.key(row)] = fusion.Candidate(of.key(row), row, of.epoch(row))
        out.setdefault(near, []).append(n)
    return out


def _spread(similarities: list[float]) -> tuple[float, float] | None:
    """The mean and deviation of the query's similarities past its few nearest (None: too few to tell).

    An embedder's cosines bunch differently per language and per query ("what did she say" is near everything);
    how far an item stands above the query's own background says more than its cosine alone.
    """
    background = similarities[BACKGROUND_FROM:]
    if len(background) < 8:
        return None
    mean = sum(background) / len(background)
    deviation = (sum((s - mean) ** 2 for s in background) / len(background)) ** 0.5
    return mean, max(deviation, 1e-6)
