"""The two durable cursors over the event log.

- completion: finished desk interactions (with the user's words) and task
  cards that answer one; facts are discovered by completion time.
- objective: run outcomes with a verifier's verdict and task cards with a
  result; experiences are discovered when the objective arrives, which may
  be long after the completion.

Each intent row and the cursor's advance are committed in one transaction.
At `max_pending` open intents the cursor stops where it is (backpressure)
and the next scan goes on from there. A correction (a task card completed
again with other text, a run's outcome replaced) stops the open intents of
the old version and queues the new one; a retraction (a revoked run) stops
its open intents and revokes what was adopted from it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypedDict

from store.core import clock
from store.core.database import Store
from store.core.projection import EventRecord
from store.learning import records, sources, sql
from store.learning.grant import Grant
from store.learning.models import LearningCursor
from store.learning.projection import DOMAIN
from store.learning.states import PENDING

FEEDS: dict[str, tuple[str, ...]] = {
    "completion": ("interaction_remembered", "task_completed"),
    "objective": ("episode_outcome", "task_completed", "episode_revoked"),
}
BATCH = 2000  # events read per transaction
SKIP_AHEAD = 1000  # events of other kinds a cursor jumps over at once when none is its own


class ScanCounts(TypedDict):
    """What one scan did: sources queued, intents stopped or revoked, events read, and whether the queue was
    full (`backpressure`)."""

    added: int
    stopped: int
    revoked: int
    read: int
    backpressure: bool


class ScanAnswer(ScanCounts):
    """What `learning.scan` answers: the scan's counts and where each feed's cursor stands now."""

    cursors: dict[str, int]  # by feed


@dataclass
class ScanReport:
    added: int = 0
    stopped: int = 0
    revoked: int = 0
    read: int = 0
    backpressure: bool = False

    def to_dict(self) -> ScanCounts:
        return {
            "added": self.added,
            "stopped": self.stopped,
            "revoked": self.revoked,
            "read": self.read,
            "backpressure": self.backpressure,
        }


def cursor(feed: str) -> int:
    row = sql.one(LearningCursor._meta.database, "SELECT seq FROM learning_cursor WHERE feed = ?", [feed])
    return int(row["seq"]) if row else 0


def intent_id(grant: Grant, feed: str, source: sources.Source) -> str:
    key = f"{grant.id}\x1f{feed}\x1f{source.kind}\x1f{source.source_id}\x1f{source.fingerprint}"
    return "int_" + hashlib.sha256(key.encode()).hexdigest()[:20]


def scan(store: Store, grant: Grant, *, actor: str = "system") -> ScanReport:
    """Advance both cursors as far as the queue allows; answers what was added."""
    report = ScanReport()
    cutoff = clock.now().timestamp() - grant.lookback
    for feed in FEEDS:
        while _scan_batch(store, grant, feed, cutoff, report, actor=actor):
            pass
    return report


def _events(store: Store, feed: str, after: int) -> Iterator[EventRecord]:
    for event in store.events(None, after=after, types=FEEDS[feed], batch=BATCH):
        if event.domain in ("desk", "experience"):
            yield event


def _scan_batch(store: Store, grant: Grant, feed: str, cutoff: float, report: ScanReport, *, actor: str) -> bool:
    """One transaction's worth of events; True when there may be more to read."""
    types = FEEDS[feed]
    start = cursor(feed)
    newer = store.db.execute_sql(
        f"SELECT seq FROM event WHERE seq > ? AND type IN ({sql.marks(types)}) ORDER BY seq LIMIT 1",
        [start, *types],
    ).fetchone()
    if newer is None:
        # Nothing of this feed since the cursor: no transaction at all (the service scans every minute and per
        # lease). Past a long stretch of other events the cursor jumps over them, so the next look is short.
        last = store.last_seq()
        if last - start >= SKIP_AHEAD:
            with store.atomic():
                store.append(DOMAIN, "cursor_advanced", {"feed": feed, "seq": last}, actor=actor)
        return False
    pending = store.db.execute_sql(
        f"SELECT COUNT(*) FROM learning_intent WHERE state IN ({sql.marks(PENDING)})", PENDING
    ).fetchone()[0]
    if pending >= grant.max_pending:
        report.backpressure = True  # the cursor waits where it is
        return False
    with store.atomic():
        last = start
        # The open intents (at most `max_pending`), by source: the per-event check needs no query.
        open_by_source: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for row in sql.rows(
            store.db,
            "SELECT intent_id, source_kind, source_id, source_fp FROM learning_intent "
            f"WHERE state IN ({sql.marks(PENDING)})",
            PENDING,
        ):
            open_by_source.setdefault((row["source_kind"], row["source_id"]), []).append(
                (row["intent_id"], row["source_fp"])
            )
        more = False
        if sum(len(v) for v in open_by_source.values()) >= grant.max_pending:
            report.backpressure = True
            return False
        for number, event in enumerate(_events(store, feed, start)):
            if number >= BATCH:
                more = True
                break
            if sum(len(v) for v in open_by_source.values()) >= grant.max_pending:
                report.backpressure = True
                break
            _consume(store, grant, feed, event, cutoff, report, open_by_source, actor=actor)
            last = event.seq
            report.read += 1
        if last != start:
            store.append(DOMAIN, "cursor_advanced", {"feed": feed, "seq": last}, actor=actor)
    return more


def _source_key(event: EventRecord) -> tuple[str, str] | None:
    p = event.payload
    if event.type == "interaction_remembered" and isinstance(p.get("interaction_id"), str):
        return "interaction", p["interaction_id"]
    if event.type == "task_completed" and isinstance(p.get("task_id"), str):
        return "task", p["task_id"]
    if event.type in ("episode_outcome", "episode_revoked") and isinstance(p.get("run_id"), str):
        return "run", p["run_id"]
    return None


def _when(event: EventRecord) -> float:
    """When the source happened (its own time where it carries one), for the lookback window."""
    p = event.payload
    for key in ("epoch", "ts_end"):
        value = p.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value)
    return clock.parse_iso(event.ts).timestamp()


def _wanted(feed: str, source: sources.Source) -> bool:
    if source.retracted:
        return False
    if feed == "completion":
        return any(t["role"] == "user" for t in source.turns)
    return source.objective is not None


def _consume(
    store: Store,
    grant: Grant,
    feed: str,
    event: EventRecord,
    cutoff: float,
    report: ScanReport,
    open_by_source: dict[tuple[str, str], list[tuple[str, str]]],
    *,
    actor: str,
) -> None:
    """Look at one event: queue its source, stop what it revised or retracted (keeping `open_by_source` current)."""
    key = _source_key(event)
    if key is None:
        return
    kind, source_id = key
    if feed == "completion" and kind == "task" and not event.payload.get("interaction_id"):
        return
    if event.type != "episode_revoked" and _when(event) < cutoff:
        return  # outside the lookback window
    source = sources.read(kind, source_id)
    if source is None or source.retracted:
        _stop_open(store, key, None, "the source was retracted", report, open_by_source, actor=actor)
        if event.type == "episode_revoked":
            report.revoked += records.revoke_from_source(store, kind, source_id, actor=actor)
        return
    _stop_open(store, key, source.fingerprint, "the source was revised", report, open_by_source, actor=actor)
    if not _wanted(feed, source):
        return
    new_id = intent_id(grant, feed, source)
    if sql.one(store.db, "SELECT intent_id FROM learning_intent WHERE intent_id = ?", [new_id]) is not None:
        return
    store.append(
        DOMAIN,
        "intent_queued",
        {
            "intent_id": new_id,
            "grant_id": grant.id,
            "feed": feed,
            "source_kind": kind,
            "source_id": source_id,
            "source_fp": source.fingerprint,
            "source_ts": source.ts,
        },
        actor=actor,
    )
    open_by_source.setdefault(key, []).append((new_id, source.fingerprint))
    report.added += 1


def _stop_open(
    store: Store,
    key: tuple[str, str],
    keep_fp: str | None,
    reason: str,
    report: ScanReport,
    open_by_source: dict[tuple[str, str], list[tuple[str, str]]],
    *,
    actor: str,
) -> None:
    """Stop the open intents of a source other than its version `keep_fp`."""
    kept = []
    for open_id, fp in open_by_source.get(key, []):
        if keep_fp is not None and fp == keep_fp:
            kept.append((open_id, fp))
            continue
        store.append(
            DOMAIN, "intent_stopped", {"intent_id": open_id, "state": "stopped", "reason": reason}, actor=actor
        )
        report.stopped += 1
    if kept:
        open_by_source[key] = kept
    else:
        open_by_source.pop(key, None)
