"""Dream: consolidation between runs (seed 000, reference §5).

The full pass, in the reference's order: alias overwrites, clean-up (merge,
eviction), episode folding, index reconcile. The light pass that
`JIYI_DREAM=auto` runs after each run corrects aliases from that run's
evidence and merges duplicates; it never deletes. Every step fails open and
says what it did; `dry_run` lists every change without making it. Each real
pass stores its report as an event (domain `dream`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from recall.episode_recall import EPISODE, episode_document
from service.memory.parts import Parts
from service.memory.recall_service import RecallService
from store.appkb import alias_correction
from store.appkb import cleanup as appkb_cleanup
from store.core.errors import InvalidInput
from store.episodes import folding, recall_terms

log = logging.getLogger("jiyi.service")
DOMAIN = "dream"


def _step(report: dict[str, Any], name: str, work: Callable[[], dict[str, Any]]) -> None:
    try:
        report["steps"].append({"step": name, "ok": True, **work()})
    except Exception as exc:
        log.warning("dream step %s failed (the pass goes on): %s", name, exc)
        report["steps"].append({"step": name, "ok": False, "error": str(exc)})


class DreamService:
    """Consolidation passes over the App-KB, the archive and the index, and their reports."""

    def __init__(self, parts: Parts, recall: RecallService) -> None:
        self.parts = parts
        self.recall = recall

    def run(
        self,
        *,
        full: bool = True,
        dry_run: bool = False,
        run_evidence: dict[str, list[dict[str, Any]]] | None = None,
        actor: str = "system",
    ) -> dict[str, Any]:
        """One pass (`full`, or the light one after a run with that run's evidence); `dry_run` previews every
        change. Returns (and, unless `dry_run`, stores) its report."""
        return _run_pass(self.parts, self.recall, full=full, dry_run=dry_run, run_evidence=run_evidence, actor=actor)

    def reports(self, limit: int = 20) -> list[dict[str, Any]]:
        """The stored reports of real passes, newest first."""
        found = [event.payload for event in self.parts.store.events(DOMAIN, types=["dream_report"])]
        return found[::-1][:limit]


def _run_pass(
    parts: Parts,
    recall: RecallService,
    *,
    full: bool,
    dry_run: bool,
    run_evidence: dict[str, list[dict[str, Any]]] | None,
    actor: str,
) -> dict[str, Any]:
    """One dream pass; the steps are closures over one report so that each fails open on its own
    (longer than most functions here for that reason)."""
    config = parts.config
    if config.dream == "off":
        raise InvalidInput("dream is off (JIYI_DREAM=off)")
    store, now = parts.store, time.time()
    report: dict[str, Any] = {"ts": now, "pass": "full" if full else "light", "dry_run": dry_run, "steps": []}

    def overwrites() -> dict[str, Any]:
        if not config.alias_overwrite:
            return {"skipped": "JIYI_ALIAS_OVERWRITE=off"}
        signatures = None if run_evidence is None else alias_correction.signatures_in(run_evidence)
        done = alias_correction.correct(store, dry_run=dry_run, actor=actor, signatures=signatures)
        changes = [c.to_dict() for c in done if c.action == "overwrite"]
        return {
            "count": len(changes),
            "changes": changes,
            "skipped": [c.to_dict() for c in done if c.action != "overwrite"],
        }

    def merge() -> dict[str, Any]:
        merges = appkb_cleanup.plan_merges(store)
        if not dry_run and merges:
            appkb_cleanup.apply_merges(store, merges, actor=actor)
        return {
            "count": len(merges),
            "changes": [{"kept": m.kept.to_dict(), "removed": [e.to_dict() for e in m.removed]} for m in merges],
        }

    def evict() -> dict[str, Any]:
        doomed = appkb_cleanup.plan_evictions(store, now)
        if not dry_run and doomed:
            appkb_cleanup.apply_evictions(store, doomed, actor=actor)
        return {"count": len(doomed), "changes": [e.to_dict() for e in doomed]}

    def fold() -> dict[str, Any]:
        record = folding.plan_folding(
            store, keep=config.episode_keep, archive_days=config.episode_archive_days, now=now
        )
        if record is None:
            return {"count": 0}
        if not dry_run:
            folding.fold(store, {k: v for k, v in record.items() if k != "device_scopes"}, actor=actor)
        return {"count": len(record["run_ids"]), "run_ids": record["run_ids"][:200], "aggregates": record["aggregates"]}

    def reconcile() -> dict[str, Any]:
        index = recall.engine.index
        live = recall.live_episodes()
        removed = added = 0
        for scope in set(index.scopes(EPISODE)) | set(live):
            indexed = set(index.ids(EPISODE, scope))
            wanted = live.get(scope, {})
            extra = sorted(indexed - set(wanted))
            missing = [wanted[r] for r in sorted(set(wanted) - indexed)]
            removed, added = removed + len(extra), added + len(missing)
            if not dry_run:
                index.delete(EPISODE, scope, extra)
                index.upsert(EPISODE, scope, [episode_document(m) for m in missing])
        wanted_ids = {scope: set(rows) for scope, rows in live.items()}
        counted_ids = {scope: set(recall_terms.run_ids(store, scope)) for scope in recall_terms.scopes(store)}
        drifted = wanted_ids != {s: ids for s, ids in counted_ids.items() if ids} or not recall_terms.consistent(store)
        if drifted and not dry_run:
            recall.rebuild_terms()
        return {"removed": removed, "added": added, "term_counts_rebuilt": drifted}

    with parts.writes:
        _step(report, "alias_overwrites", overwrites)
        _step(report, "merge", merge)
        if full:
            _step(report, "evict", evict)
            _step(report, "fold", fold)
            _step(report, "index_reconcile", reconcile)
        report["changed"] = any(s.get("count") or s.get("removed") or s.get("added") for s in report["steps"])
        if not dry_run and (full or report["changed"]):
            with store.atomic():
                summary = {s["step"]: s.get("count", s.get("removed", 0)) for s in report["steps"]}
                report["seq"] = store.append(DOMAIN, "dream_report", {**report, "summary": summary}, actor=actor).seq
    if not dry_run and report["changed"]:
        parts.changed("app_kb")
    return report
