"""How desk recall orders what full-text search and dense retrieval found, what it keeps, and how it scores it.

Two ranked lists of one kind (interactions, task cards, topics or facts) come
in: the full-text hits by BM25 and the nearest vectors by cosine similarity.

**Order.** Each item's fused value is a weighted sum, `WEIGHT` × its BM25 and
(1 − `WEIGHT`) × its similarity, each scaled to 0..1 over the question's
candidates (an item one list did not find takes that list's lowest value). A
question mostly in Chinese weighs BM25 less, `WEIGHT_CHINESE`: bigrams match
paraphrase poorly (叫车/打车), so meaning must carry it. Reciprocal-rank fusion
(`Params.method = "rrf"`) was measured against it and found less (docs/desk-memory.md).
Without vectors the order is BM25's. Items said within a day or month the
question names ("on 9 November, 2022") come first (`question.periods`). When
the question asks for what something is now or came to (`question.asks_latest`),
of two items that say nearly the same thing (their vectors' similarity at least
`LATEST_RESEMBLANCE`) and score within `LATEST_MARGIN` of each other, the later
one comes first: the rescheduled meeting before the first date.

**Neighbours.** The answer is often the turn after the one that matches ("shall
we go hiking on Saturday?" — "yes, 8 am at the east gate"). Each related turn
lends `NEIGHBOUR` of its fused value to the turns stored just before and after
it when they were said within the same sitting (`sql.SITTING_GAP`); such a turn
counts as related and says `neighbour_of`.

**What counts as related** (with dense retrieval on), an item that
* stands at least `ABOVE_UNRELATED` deviations above the question's similarity
  to unrelated text (`above_unrelated`, from the embedder's yardstick,
  `recall.unrelated`): meaning on a fixed scale, the same in a memory of six
  turns as in one of a hundred thousand;
* or stands `STANDING_FLOOR` deviations above the question's background in this
  memory (`standing`: its similarities past the nearest few, once a kind holds
  enough items to tell): what stands out here though the embedder finds it only
  loosely similar (a paraphrase sharing no word);
* or holds at least `COVERAGE_FLOOR` of the query's terms, each weighed by its
  rarity, terms memory never holds counted as the rarest (`coverage`);
* or is the neighbour of such an item;
and is not more than `WITHIN` deviations below the best related item's
`above_unrelated` (a question with a clear answer does not drag in everything
loosely about the same things). Without vectors (degraded) every full-text hit
counts, and equally related hits (the same query terms held) come newest first.
Runs of one task (task cards of one schedule, or of one title) that hold the
same query terms are equally related whatever each run's result says: they
come together where the best of them stands, newest first, with its score —
the last run of a daily check is what "之前…怎么样了" asks about.

**Score** (`score`, 0..1, the same scale in every memory): the larger of the
item's meaning, 1 / (1 + e^−(above_unrelated − `ABOVE_UNRELATED`)), 0.5 at the
threshold, and its `coverage`, 0.5 at its threshold; a neighbour's at least
`NEIGHBOUR` × its lender's. So an item scores 0.5 or more when it is related on
its own evidence; one related only by standing out in this memory, or as a
neighbour, may score less. The order is by the fused value (which the signals'
`fused` gives, the best 1.0), not by the score: words, meaning, neighbours and
dates all place an item, while the score says how plainly it is related.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from msgspec import UNSET

from store.desk.rows import Signals

R = TypeVar("R")  # the row a candidate stands for (a turn, a task card, a topic, a fact)

RRF_K = 60
FUSION = "weighted"  # or "rrf"; measured against each other in docs/desk-memory.md
WEIGHT = 0.6
WEIGHT_CHINESE = 0.2
SIMILARITY_TIE = 0.02
SHARE_TIE = 0.2
COVERAGE_FLOOR = 0.5
STANDING_FLOOR = 3.0
ABOVE_UNRELATED = 2.5
WITHIN = 2.5
NEIGHBOUR = 0.6
LATEST_RESEMBLANCE = 0.92
LATEST_MARGIN = 0.2
PERIOD_FIRST = 10.0  # added to the fused value of an item said in a period the question names: it comes first
LATEST_AMONG = 10  # the first items the later of two statements may overtake

# (keys) -> the similarity of each two of them, by their vectors (`hybrid.Dense.resemblance`)
Resemblance = Callable[[list[str]], dict[tuple[str, str], float]]
# an item's row -> the task it is a run of (task cards: their schedule or title), None for an item of its own
RunOf = Callable[[R], str | None]


@dataclass
class Candidate(Generic[R]):
    """One item found by either list, with why it was found."""

    key: str
    row: R
    epoch: float
    fts_rank: int | None = None
    bm25: float | None = None
    share: float = 0.0  # the share of the query's terms the item holds, among those memory holds (full-text hits)
    coverage: float = 0.0  # the same counting every query term, those memory lacks as the rarest
    held: frozenset[str] = frozenset()  # which terms
    dense_rank: int | None = None
    similarity: float | None = None
    standing: float | None = None  # the similarity in deviations above the query's background here (`hybrid`)
    above: float | None = None  # the similarity in deviations above the query's similarity to unrelated text
    fused: float = 0.0
    score: float = 0.0  # how plainly it is related, on a fixed scale (the module docstring)
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
    neighbour: float = NEIGHBOUR  # the part of a turn's fused value its neighbours in the same sitting get
    coverage: float = COVERAGE_FLOOR
    standing: float = STANDING_FLOOR
    above: float = ABOVE_UNRELATED
    within: float | None = WITHIN  # None: no item is left out for standing far below the best
    latest_resemblance: float = LATEST_RESEMBLANCE
    latest_margin: float = LATEST_MARGIN


DEFAULT = Params()


@dataclass(frozen=True)
class Floor:
    """What an item needs to count as related (see the module docstring); not `active`: every hit counts
    (full text alone, as before hybrid retrieval)."""

    active: bool

    def admits(self, candidate: Candidate[R], params: Params = DEFAULT) -> bool:
        if not self.active:
            return True
        if candidate.above is not None and candidate.above >= params.above:
            return True
        if candidate.standing is not None and candidate.standing >= params.standing:
            return True
        return candidate.fts_rank is not None and candidate.coverage >= params.coverage


def fuse(
    candidates: list[Candidate[R]],
    limit: int,
    floor: Floor,
    params: Params = DEFAULT,
    adjacent: dict[str, list[Candidate[R]]] | None = None,
    *,
    periods: Sequence[tuple[float, float]] = (),
    resemblance: Resemblance | None = None,
    run_of: RunOf[R] | None = None,
) -> list[Candidate[R]]:
    """The best `limit` related candidates, best first, each with `fused`, `score` and `signals` filled in.

    `adjacent`: per candidate key, the turns said just before and after it in the same sitting (candidates
    themselves or not); a related candidate lends them `params.neighbour` of its fused value. `periods`: the
    spans of time the question names (`question.periods`). `resemblance`: given when the question asks for the
    latest value (`question.asks_latest`), it tells which items say nearly the same thing. `run_of`: which task
    an item is a run of (the runs of one task come together, newest first).
    """
    if params.method == "weighted" and any(c.similarity is not None for c in candidates):
        _weighted(candidates, params)
    else:
        for c in candidates:
            c.fused = sum(1.0 / (RRF_K + rank) for rank in (c.fts_rank, c.dense_rank) if rank is not None)
    kept = [c for c in candidates if floor.admits(c, params)]
    if adjacent and params.neighbour > 0:
        kept = _lend(kept, adjacent, params.neighbour)
    if not kept:
        return []
    if floor.active and params.within is not None:
        kept = _within(kept, params.within)
    best = max(c.fused for c in kept)
    for c in kept:
        c.fused = round(c.fused / best, 3)
    value = {c.key: c.fused + (PERIOD_FIRST if _said_in(c, periods) else 0.0) for c in kept}
    kept.sort(key=lambda c: (-value[c.key], -c.epoch))
    if not floor.active:
        kept = _newest_first_among_ties(kept)
    elif resemblance is not None:
        kept = _later_first(kept, value, resemblance, params)
    if run_of is not None:
        kept = _runs_together(kept, run_of)
    ordered = kept[:limit]
    _score(ordered, params)
    if run_of is not None:
        _runs_scored_alike(ordered, run_of)
    for c in ordered:
        c.signals = Signals(
            fused=c.fused,
            fts_rank=c.fts_rank,
            bm25=None if c.bm25 is None else round(c.bm25, 3),
            dense_rank=c.dense_rank,
            similarity=None if c.similarity is None else round(c.similarity, 4),
            standing=c.standing,
            above_unrelated=None if c.above is None else round(c.above, 2),
            neighbour_of=UNSET if c.neighbour_of is None else c.neighbour_of,
        )
    return ordered


def _said_in(c: Candidate[R], periods: Sequence[tuple[float, float]]) -> bool:
    return any(start <= c.epoch < end for start, end in periods)


def _lend(kept: list[Candidate[R]], adjacent: dict[str, list[Candidate[R]]], share: float) -> list[Candidate[R]]:
    """Each related candidate's neighbours score at least `share` of its fused value (and so count as related)."""
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
            out.append(n)  # admitted as the neighbour of a related turn
            n.fused = max(n.fused, offer)
        else:
            n.fused = offer
        n.neighbour_of = source
    return out


def _within(kept: list[Candidate[R]], within: float) -> list[Candidate[R]]:
    """Leave out what stands more than `within` deviations below the best item's `above` (a neighbour is
    judged by its lender's; an item whose similarity is unknown, not yet embedded, stays)."""
    by_key = {c.key: c for c in kept}

    def above(c: Candidate[R]) -> float | None:
        lender = by_key.get(c.neighbour_of) if c.neighbour_of is not None else None
        values = [v for v in (c.above, lender.above if lender is not None else None) if v is not None]
        return max(values) if values else None

    known = [v for v in (above(c) for c in kept) if v is not None]
    if not known:
        return kept
    bar = max(known) - within
    return [c for c in kept if (v := above(c)) is None or v >= bar]


def _later_first(
    ordered: list[Candidate[R]], value: dict[str, float], resemblance: Resemblance, params: Params
) -> list[Candidate[R]]:
    """Among the first `LATEST_AMONG` items, a later one that says nearly what an earlier-placed one says and
    scores within `latest_margin` of it takes its place (the question asks for the latest value)."""
    head = ordered[:LATEST_AMONG]
    pairs = resemblance([c.key for c in head])
    if not pairs:
        return ordered
    for n, earlier in enumerate(head):
        for later in head[n + 1 :]:
            if (
                later.epoch > earlier.epoch
                and value[later.key] >= value[earlier.key] - params.latest_margin
                and pairs.get((earlier.key, later.key), 0.0) >= params.latest_resemblance
            ):
                value[later.key] = max(value[later.key], value[earlier.key] + 1e-6)
    return sorted(head, key=lambda c: -value[c.key]) + ordered[LATEST_AMONG:]


def _run(c: Candidate[R], run_of: RunOf[R]) -> tuple[str, frozenset[str]] | None:
    task = run_of(c.row)
    return None if task is None else (task, c.held)


def _runs_together(ordered: list[Candidate[R]], run_of: RunOf[R]) -> list[Candidate[R]]:
    """The runs of one task holding the same query terms, together where the first of them stands, newest first
    and valued as it."""
    runs: dict[tuple[str, frozenset[str]], list[Candidate[R]]] = {}
    for c in ordered:
        if (key := _run(c, run_of)) is not None:
            runs.setdefault(key, []).append(c)
    out: list[Candidate[R]] = []
    for c in ordered:
        key = _run(c, run_of)
        if key is None:
            out.append(c)
        elif runs[key][0] is c:
            for member in runs[key]:
                member.fused = c.fused
            out.extend(sorted(runs[key], key=lambda r: -r.epoch))
    return out


def _runs_scored_alike(ordered: list[Candidate[R]], run_of: RunOf[R]) -> None:
    """Runs of one task (holding the same query terms) take the best run's score: equally related."""
    best: dict[tuple[str, frozenset[str]], float] = {}
    for c in ordered:
        if (key := _run(c, run_of)) is not None:
            best[key] = max(best.get(key, 0.0), c.score)
    for c in ordered:
        if (key := _run(c, run_of)) is not None:
            c.score = best[key]


def _score(ordered: list[Candidate[R]], params: Params) -> None:
    """Each item's `score` (the module docstring): meaning on the yardstick's scale, or words, or as a neighbour."""
    by_key = {c.key: c for c in ordered}
    for c in ordered:
        meaning = 0.0 if c.above is None else 1.0 / (1.0 + math.exp(-(c.above - params.above)))
        words = c.coverage if c.fts_rank is not None else 0.0
        c.score = max(meaning, words)
    for c in ordered:
        lender = by_key.get(c.neighbour_of) if c.neighbour_of is not None else None
        if lender is not None:
            c.score = max(c.score, params.neighbour * lender.score)
    for c in ordered:
        c.score = round(c.score, 3)


def _weighted(candidates: list[Candidate[R]], params: Params) -> None:
    """`weight` × BM25 plus (1 − `weight`) × similarity, each scaled to 0..1 over the candidates (an item one
    list did not find takes that list's lowest value: an item full text found whose similarity was read
    afterwards still counts as not found by meaning, so the two lists weigh as they ranked)."""
    bm25 = [c.bm25 for c in candidates if c.bm25 is not None]
    sims = [c.similarity for c in candidates if c.similarity is not None and c.dense_rank is not None]
    low_b, high_b = (min(bm25), max(bm25)) if bm25 else (0.0, 0.0)
    if params.bm25_low == "zero":
        low_b = 0.0
    low_s, high_s = (min(sims), max(sims)) if sims else (0.0, 0.0)
    for c in candidates:
        b = ((c.bm25 if c.bm25 is not None else low_b) - low_b) / (high_b - low_b) if high_b > low_b else 0.0
        similarity = c.similarity if c.similarity is not None and c.dense_rank is not None else low_s
        s = (similarity - low_s) / (high_s - low_s) if high_s > low_s else 0.0
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
