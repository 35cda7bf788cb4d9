"""Observations for calibration from a device's past runs alone: each run's goal recalled against the others.

A device with few scored recalls still has its past successful runs. Each is
asked as a new task would be, with itself left out of the nearest episodes
and of the term counts, and its confidence in its top app (recall.confidence) is judged against its own apps.
On a history of mostly one run per app this sees mostly "no relevant history"
cases and so picks a stricter threshold than the device's real mix of tasks
would (docs/recall.md, Calibration): the device's own evaluations replace it
as soon as there are enough.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from recall.calibration import Observation
from recall.confidence import confidence, rank
from recall.episode_recall import EPISODE, FETCH, EpisodeRecall, TermSource
from recall.term_ownership import goal_terms
from recall.vectors import Hit
from store.episodes.recall_terms import TermStats

BATCH = 64  # runs whose nearest episodes are asked in one index call


@dataclass(frozen=True)
class PastRun:
    """An indexed past run: its id, its goal (as the index holds it, redacted) and its apps."""

    run_id: str
    goal: str
    apps: tuple[str, ...]


def without(stats: TermStats, terms: Sequence[str], apps: Sequence[str]) -> TermStats:
    """`stats` with one run (of `terms` and `apps`) taken out of the counts."""
    own = set(terms)
    df = {t: n - (t in own) for t, n in stats.df.items()}
    owners = {t: {p: n - (t in own and p in apps) for p, n in by_app.items()} for t, by_app in stats.owners.items()}
    return TermStats(
        max(0, stats.documents - 1),
        {t: n for t, n in df.items() if n > 0},
        {t: {p: n for p, n in by_app.items() if n > 0} for t, by_app in owners.items()},
    )


def observations(
    engine: EpisodeRecall, scope: str, runs: Sequence[PastRun], now: float | None = None
) -> list[Observation]:
    """One observation per run: its goal recalled over the scope's other runs."""
    now = time.time() if now is None else now
    # One index call per batch of runs: one call per run was most of a recalibration's time (15k queries, 43 s
    # of the instruction split's prequential evaluation; bench/leave_one_out.py).
    nearest: list[list[Hit]] = []
    for start in range(0, len(runs), BATCH):
        batch = runs[start : start + BATCH]
        vectors = engine.vectors([run.goal for run in batch])
        nearest.extend(engine.index.query_many(EPISODE, scope, vectors, FETCH + 1))
    return [observation(engine, scope, run, found, now) for run, found in zip(runs, nearest, strict=True)]


def observation(engine: EpisodeRecall, scope: str, run: PastRun, found: Sequence[Hit], now: float) -> Observation:
    """`run`'s goal recalled over `found` (its nearest episodes, itself among them or not), itself and its own
    terms left out: the confidence in its top app, judged against its apps."""
    hits = [h for h in found if h.id != run.run_id]
    terms_of: TermSource | None = None
    if engine.terms is not None:
        terms_of = _leaving_out(engine.terms, goal_terms(run.goal), run.apps)
    weighed = [c for c in engine.weigh(run.goal, hits[:FETCH], now, scope, terms_of) if c.source == "episode"]
    sure = confidence(rank(weighed, engine.scoring), engine.scoring, engine.lead_weight)
    if sure is None:
        return Observation(None, False, False)
    apps = set(sure.top_app)
    return Observation(sure.value, bool(apps & set(run.apps)), bool(apps - set(run.apps)))


def _leaving_out(base: TermSource, own_terms: Sequence[str], apps: Sequence[str]) -> TermSource:
    def counts(scope: str, terms: Sequence[str], packages: Sequence[str] | None) -> TermStats:
        return without(base(scope, terms, packages), own_terms, apps)

    return counts
