"""How desk recall orders what full-text search and dense retrieval found, and what it keeps.

Two ranked lists of one kind (interactions, task cards, topics or facts) come
in: the full-text hits by BM25 and the nearest vectors by cosine similarity.
Each item's fused score is a weighted sum, `WEIGHT` × its BM25 and
(1 − `WEIGHT`) × its similarity, each scaled to 0..1 over the question's
candidates (an item one list did not find takes that list's lowest value).
A question mostly in Chinese weighs BM25 less, `WEIGHT_CHINESE`: bigrams
match paraphrase poorly (叫车/打车), so meaning must carry it; measured on the
Chinese sets, @1 0.905 → 0.952 and 0.68 → 0.76 at equal @5 (1.0), while
LoCoMo's English questions lose @5/@10 below 0.5.
Reciprocal-rank fusion (`Params.method = "rrf"`: the sum of `1 / (RRF_K + rank)`)
was measured against it on the same data: the weighted sum found more
(docs/desk-memory.md), since it keeps how much better the first hits are,
which ranks throw away. Without vectors the order is BM25's (the rank form).
Scores are then scaled so the best item is 1.0.

Neighbours: the answer is often the turn after the one that matches ("shall
we go hiking on Saturday?" — "yes, 8 am at the east gate"). Each admitted
turn lends `NEIGHBOUR` of its score to the turns stored just before and after
it when they were said within the same sitting (`sql.SITTING_GAP`); such a
turn counts as related and says `neighbour_of`. Measured on four LoCoMo
conversations (bench/desk_recall_tuning.py, which chose it for every one held
out): @5 0.727 → 0.779, @10 0.748 → 0.842, the Chinese sets' @5 0.96 → 1.0;
what it costs is a few
more related items for unanswerable questions (2.2 → 2.8 on the Chinese sets).

Recency only breaks ties: consecutive items as related as the first of them
form a run that is ordered newest first. As related: similarities within
`SIMILARITY_TIE`, and the same query terms held or rarity-weighted shares
within `SHARE_TIE` (without vectors: the same terms held). Eight runs of one
daily check, told apart only by their length, come newest first; so does the
later statement of a value that changed (a meeting moved, a dose raised),
which says nearly what the earlier one said. RRF's own scores are ranks, so
they are never what is compared.

The relevance floor: with dense retrieval on, an item counts as related only
when its similarity stands at least `STANDING_FLOOR` deviations above the
query's background (its similarities past the nearest few: an embedder's
cosines bunch differently per language and per question, so no cosine alone
says "related"), or when full-text search found it holding at least
`FTS_FLOOR_SHARE` of the query's terms that memory holds at all, each weighed
by its rarity, or as the neighbour of such an item. So a question about
something never said gets few "related" items, instead of the ten least
unrelated ones. The floor costs recall @10 on answerable questions (items
below it are not returned), so once one item passes it, items scoring at
least `NEAR_BEST` of that item's score pass too (`Params.near_best`; 1 turns
it off); that and a lower standing trade the two differently, measured in
docs/desk-memory.md. Without vectors
(degraded) every full-text hit counts, as before hybrid retrieval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from msgspec import UNSET

from store.desk.rows import Signals

R = TypeVar("R")  # the row a candidate stands for (a turn, a task card, a topic, a fact)

RRF_K = 60
FUSION = "weighted"  # or "rrf"; measured against each other in docs/desk-memory.md
WEIGHT = 0.5
WEIGHT_CHINESE = 0.3
SIMILARITY_TIE = 0.02
SHARE_TIE = 0.2
FTS_FLOOR_SHARE = 0.5
STANDING_FLOOR = 3.0
NEIGHBOUR = 0.6
NEAR_BEST = 0.8  # chosen in docs/desk-memory.md (the floor's trade-off): @10 0.842 -> 0.850 on LoCoMo


@dataclass
class Candidate(Generic[R]):
    """One item found by either list, with why it was found."""

    key: str
    row: R
    epoch: float
    fts_rank: int | None = None
    bm25: float | None = None
    share: float = 0.0  # the share of the query's terms the item holds (full-text hits)
    held: frozenset[str] = frozenset()  # which terms
    dense_rank: int | None = None
    similarity: float | None = None
    standing: float | None = None  # the similarity in deviations above the query's background (`hybrid`)
    fused: float = 0.0
    neighbour_of: str | None = None  # the key of the turn whose score it borrowed (`Params.neighbour`)
    signals: Signals | None = None  # filled in by `fuse`

    @property
    def scored(self) -> Signals:
        """Its signals, once `fuse` kept it (what an answer's `signals` say)."""
        assert self.signals is not None, "only a fused candidate has signals"
        return self.signals


@dataclass(frozen=True)
class Params:
    """How two lists are fused (the module docstring; each constant measured in docs/desk-memory.md)."""

    method: str = FUSION  # "weighted" or "rrf"
    weight: float = WEIGHT  # BM25's part of the weighted sum; the similarity's is 1 - weight
    weight_chinese: float = WEIGHT_CHINESE  # the same for a question mostly in Chinese (`hybrid.related`)
    bm25_low: str = "min"  # an item full text did not find scores the hits' lowest BM25 ("min") or 0 ("zero")
    neighbour: float = NEIGHBOUR  # the part of a turn's score its neighbours in the same sitting get
    share: float = FTS_FLOOR_SHARE
    standing: float = STANDING_FLOOR
    near_best: float = NEAR_BEST  # once one item passes the floor, items scoring this part of the best pass (1: off)


DEFAULT = Params()


@dataclass(frozen=True)
class Floor:
    """What an item needs to count as related (see the module docstring); not `active`: every hit counts
    (full text alone, as before hybrid retrieval)."""

    active: bool

    def admits(self, candidate: Candidate[R], params: Params = DEFAULT) -> bool:
        if not self.active:
            return True
        if candidate.standing is not None and candidate.standing >= params.standing:
            return True
        return candidate.fts_rank is not None and candidate.share >= params.share


def fuse(
    candidates: list[Candidate[R]],
    limit: int,
    floor: Floor,
    params: Params = DEFAULT,
    adjacent: dict[str, list[Candidate[R]]] | None = None,
) -> list[Candidate[R]]:
    """The best `limit` admitted candidates, best first, each with `fused` (0..1) and `signals` filled in.

    `adjacent`: per candidate key, the turns said just before and after it in the same sitting (candidates
    themselves or not); an admitted candidate lends them `params.neighbour` of its score (see `Params`).
    """
    if params.method == "weighted" and any(c.similarity is not None for c in candidates):
        _weighted(candidates, params)
    else:
        for c in candidates:
            c.fused = sum(1.0 / (RRF_K + rank) for rank in (c.fts_rank, c.dense_rank) if rank is not None)
    kept = [c for c in candidates if floor.admits(c, params)]
    if kept and params.near_best < 1.0:
        bar = params.near_best * max(c.fused for c in kept)
        kept += [c for c in candidates if c.fused >= bar and not floor.admits(c, params)]
    if adjacent and params.neighbour > 0:
        kept = _lend(kept, adjacent, params.neighbour)
    if not kept:
        return []
    best = max(c.fused for c in kept)
    for c in kept:
        c.fused = round(c.fused / best, 3)
    kept.sort(key=lambda c: (-c.fused, -c.epoch))
    ordered = _newest_first_among_ties(kept)[:limit]
    for c in ordered:
        c.signals = Signals(
            fused=c.fused,
            fts_rank=c.fts_rank,
            bm25=None if c.bm25 is None else round(c.bm25, 3),
            dense_rank=c.dense_rank,
            similarity=None if c.similarity is None else round(c.similarity, 4),
            standing=c.standing,
            neighbour_of=UNSET if c.neighbour_of is None else c.neighbour_of,
        )
    return ordered


def _lend(kept: list[Candidate[R]], adjacent: dict[str, list[Candidate[R]]], share: float) -> list[Candidate[R]]:
    """Each admitted candidate's neighbours score at least `share` of its score (and so count as related)."""
    by_key = {c.key: c for c in kept}
    lent: dict[str, tuple[float, str]] = {}
    for c in kept:
        for n in adjacent.get(c.key, ()):
            offer = share * c.fused
            if offer > max(n.fused if n.key in by_key else 0.0, lent.get(n.key, (0.0, ""))[0]):
                lent[n.key] = (offer, c.key)
    out = list(kept)
    pool = {n.key: n for c in kept for n in adjacent.get(c.key, ())}
    for key, (offer, source) in lent.items():
        n = by_key.get(key) or pool[key]
        if key not in by_key:
            out.append(n)  # admitted as the neighbour of an admitted turn
            n.fused = max(n.fused, offer)
        else:
            n.fused = offer
        n.neighbour_of = source
    return out


def _weighted(candidates: list[Candidate[R]], params: Params) -> None:
    """`weight` × BM25 plus (1 − `weight`) × similarity, each scaled to 0..1 over the candidates (an item one
    list did not find takes that list's lowest value)."""
    bm25 = [c.bm25 for c in candidates if c.bm25 is not None]
    sims = [c.similarity for c in candidates if c.similarity is not None]
    low_b, high_b = (min(bm25), max(bm25)) if bm25 else (0.0, 0.0)
    if params.bm25_low == "zero":
        low_b = 0.0
    low_s, high_s = (min(sims), max(sims)) if sims else (0.0, 0.0)
    for c in candidates:
        b = ((c.bm25 if c.bm25 is not None else low_b) - low_b) / (high_b - low_b) if high_b > low_b else 0.0
        s = (
            ((c.similarity if c.similarity is not None else low_s) - low_s) / (high_s - low_s)
            if high_s > low_s
            else 0.0
        )
        c.fused = params.weight * b + (1 - params.weight) * s + 1e-9  # never 0: the best is scaled to 1.0


def _ties(head: Candidate[R], other: Candidate[R]) -> bool:
    """Equally related: as near by meaning, and holding the same terms or as much of the query's weight."""
    if head.similarity is None or other.similarity is None:
        return head.held == other.held and head.similarity is None and other.similarity is None
    if abs(head.similarity - other.similarity) > SIMILARITY_TIE:
        return False
    return head.held == other.held or abs(head.share - other.share) <= SHARE_TIE


def _newest_first_among_ties(ordered: list[Candidate[R]]) -> list[Candidate[R]]:
    """Runs of items tied with the run's first (`_ties`), each run ordered newest first and scored as its first
    (equally related items say so by an equal score)."""
    out: list[Candidate[R]] = []
    run: list[Candidate[R]] = []

    def close() -> None:
        for c in run:
            c.fused = run[0].fused
        out.extend(sorted(run, key=lambda r: -r.epoch))
        run.clear()

    for c in ordered:
        if run and not _ties(run[0], c):
            close()
        run.append(c)
    close()
    return out
