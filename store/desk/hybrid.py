"""One kind's related items: full-text hits by BM25 and the desk index's nearest vectors, fused.

The store holds no vectors and calls no model: the service hands in a
`Dense` (the query embedded once, the Chroma collections behind it), or None
when there is none (no embedder, an endpoint down: full text alone answers,
and the service says the result is degraded). See `fusion` for the order and
the relevance floor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from store.core.database import Store
from store.desk import fts, fusion

FTS_POOL = 40  # full-text hits read per kind before fusing
DENSE_POOL = 40  # nearest vectors read per kind
BACKGROUND_FROM = 5  # the query's background similarity: its nearest items past the first few


class Dense(Protocol):
    """The query's nearest items in the desk index (the service's `DeskIndex.searcher`)."""

    def nearest(self, kind: str, k: int) -> list[tuple[str, float]]:
        """(key, cosine similarity) of the `k` nearest items of `kind`, best first (empty when unavailable)."""
        ...


Rows = Callable[[Sequence[Any]], dict[Any, dict[str, Any]]]
# keys -> (key, row) of the items said just before and after each, in the same sitting
Neighbours = Callable[[Sequence[str]], list[tuple[str, dict[str, Any]]]]
NEIGHBOURS_OF = 10  # the candidates (by either list's rank) whose neighbours are read


def related(
    store: Store,
    table: str,
    kind: str,
    query: str,
    limit: int,
    *,
    newest: int | None,
    dense: Dense | None,
    by_rowid: Rows,
    by_key: Rows,
    key: str,
    epoch: Callable[[dict[str, Any]], float],
    neighbours: Neighbours | None = None,
    params: fusion.Params = fusion.DEFAULT,
) -> list[dict[str, Any]]:
    """The best `limit` items of `kind` for `query`, each with `score` (fused, the best 1.0) and `signals`.

    `by_rowid` reads rows by their search-table rowid, `by_key` by their own id (`key` names that column);
    either leaves out rows that may not be recalled (an inactive fact). `neighbours` (turns only) reads the
    items said just before and after the given ones (see `fusion.Params.neighbour`).
    """
    if limit <= 0:
        return []
    if fts.mostly_chinese(query):
        params = replace(params, weight=params.weight_chinese)
    found, floor = gather(
        store,
        table,
        kind,
        query,
        limit,
        newest=newest,
        dense=dense,
        by_rowid=by_rowid,
        by_key=by_key,
        key=key,
        epoch=epoch,
    )
    adjacent = (
        _adjacent(found, neighbours, epoch, key)
        if neighbours is not None and floor.active and params.neighbour > 0
        else {}
    )
    return [
        {**c.row, "score": c.fused, "signals": c.signals}
        for c in fusion.fuse(found, limit, floor, params, adjacent=adjacent)
    ]


def gather(
    store: Store,
    table: str,
    kind: str,
    query: str,
    limit: int,
    *,
    newest: int | None,
    dense: Dense | None,
    by_rowid: Rows,
    by_key: Rows,
    key: str,
    epoch: Callable[[dict[str, Any]], float],
    pool: int | None = None,
) -> tuple[list[fusion.Candidate], fusion.Floor]:
    """Every candidate either list found (`pool` of each, default `FTS_POOL` / `DENSE_POOL`), with its signals,
    and the floor that applies to them (active when the query's background similarity could be told)."""
    fts_pool = pool or max(FTS_POOL, limit * 4)
    dense_pool = pool or max(DENSE_POOL, limit * 4)
    scored = fts.FtsTable(store.db, table).ranked(query, fts_pool, newest)
    rows = by_rowid([s.rowid for s in scored]) if scored else {}
    found: dict[str, fusion.Candidate] = {}
    for rank, s in enumerate((s for s in scored if s.rowid in rows), start=1):
        row = rows[s.rowid]
        found[row[key]] = fusion.Candidate(
            row[key], row, epoch(row), fts_rank=rank, bm25=s.bm25, share=round(s.share, 3), held=s.held
        )
    near = dense.nearest(kind, dense_pool) if dense is not None else []
    spread = _spread([similarity for _, similarity in near])
    missing = [k for k, _ in near if k not in found]
    more = by_key(missing) if missing else {}
    rank = 0
    for k, similarity in near:
        candidate = found.get(k)
        if candidate is None:
            fetched = more.get(k)
            if fetched is None:
                continue  # gone from the views, or not recallable (the index catches up)
            candidate = found[k] = fusion.Candidate(k, fetched, epoch(fetched))
        rank += 1
        candidate.dense_rank, candidate.similarity = rank, similarity
        if spread is not None:
            candidate.standing = round((similarity - spread[0]) / spread[1], 2)
    return list(found.values()), fusion.Floor(active=spread is not None)


def _adjacent(
    found: list[fusion.Candidate],
    neighbours: Neighbours,
    epoch: Callable[[dict[str, Any]], float],
    key: str,
) -> dict[str, list[fusion.Candidate]]:
    """The neighbours of the best candidates, as candidates (the found ones themselves where they were found)."""
    best = [
        c.key
        for c in found
        if (c.fts_rank is not None and c.fts_rank <= NEIGHBOURS_OF)
        or (c.dense_rank is not None and c.dense_rank <= NEIGHBOURS_OF)
    ]
    if not best:
        return {}
    by_key = {c.key: c for c in found}
    out: dict[str, list[fusion.Candidate]] = {}
    for of, row in neighbours(best):
        n = by_key.get(row[key])
        if n is None:
            n = by_key[row[key]] = fusion.Candidate(row[key], row, epoch(row))
        out.setdefault(of, []).append(n)
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
