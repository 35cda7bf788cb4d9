"""App-KB clean-up for dream: merging duplicates and evicting what is stale and weak (docs/cli.md, Dream).

Merge: entries of one kind and scope for one package whose terms are the same
once normalized ("WeChat", "wechat") become one, keeping the earliest
first_seen, the latest last_seen and last_success, and the summed successes.
Evict (full pass only): entries that are stale or unseen for 90 days *and*
below confidence 0.5 — device and user entries (1.0) and learned ones (0.9)
never reach that threshold. Device reconciliation (missing apps → stale)
already happens at every inventory sync.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from store.appkb.entry import AppKbEntry
from store.appkb.kb import list_entries
from store.appkb.projection import DOMAIN
from store.core import clock
from store.core.database import Store

EVICT_CONFIDENCE = 0.5
EVICT_UNSEEN_DAYS = 90


@dataclass(frozen=True)
class Merge:
    kept: AppKbEntry
    removed: list[AppKbEntry]


def plan_merges(store: Store) -> list[Merge]:
    groups: dict[tuple[str, str, str, str], list[AppKbEntry]] = defaultdict(list)
    for entry in list_entries(store):
        groups[(entry.term_norm, entry.package, entry.kind, entry.scope)].append(entry)
    merges = []
    for entries in groups.values():
        if len(entries) < 2:
            continue
        entries.sort(key=lambda e: clock.parse_iso(e.first_seen))
        successes = [e.last_success for e in entries if e.last_success]
        kept = entries[0].with_(
            success_count=sum(e.success_count for e in entries),
            last_seen=max((e.last_seen for e in entries), key=clock.parse_iso),
            last_success=max(successes, key=clock.parse_iso) if successes else None,
            stale=all(e.stale for e in entries),
        )
        merges.append(Merge(kept, entries[1:]))
    return merges


def plan_evictions(store: Store, now: float) -> list[AppKbEntry]:
    cutoff = now - EVICT_UNSEEN_DAYS * 86400
    return [
        e
        for e in list_entries(store)
        if e.confidence < EVICT_CONFIDENCE and (e.stale or clock.parse_iso(e.last_seen).timestamp() < cutoff)
    ]


def apply_merges(store: Store, merges: list[Merge], *, actor: str) -> None:
    now = clock.iso_now()
    with store.atomic():
        for merge in merges:
            for gone in merge.removed:
                store.append(DOMAIN, "delete", {"entry": gone.to_dict(), "ts": now, "dream": "merge"}, actor=actor)
            store.append(DOMAIN, "upsert", {"entry": merge.kept.to_dict(), "ts": now, "dream": "merge"}, actor=actor)


def apply_evictions(store: Store, entries: list[AppKbEntry], *, actor: str) -> None:
    now = clock.iso_now()
    with store.atomic():
        for entry in entries:
            store.append(DOMAIN, "delete", {"entry": entry.to_dict(), "ts": now, "dream": "evict"}, actor=actor)
