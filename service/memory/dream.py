"""Dream: consolidation between runs (`jiyi dream` in docs/cli.md, `JIYI_DREAM` in docs/configuration.md).

The full pass, in TaskWizard's order: alias overwrites, clean-up (merge,
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
from dataclasses import dataclass
from typing import Any

from recall.episode_recall import EPISODE, episode_document
from service.memory.calibration import CalibrationService
from service.memory.domain import Domain
from service.memory.episode_recall import EpisodeRecallService
from service.memory.names import DREAM_STEPS
from service.memory.parts import Parts
from service.ops import upkeep as upkeep_ops
from service.ops.perform import lists
from service.wire.results import DreamReport
from service.wire.row import rows as typed_rows
from service.wire.upkeep import DreamRecord, DreamStep
from store.appkb import alias_correction
from store.appkb import cleanup as appkb_cleanup
from store.core.errors import InvalidInput
from store.episodes import folding, recall_terms

log = logging.getLogger("jiyi.service.memory")
DOMAIN = "dream"

# The steps in the order a pass runs them; the light pass runs the first two only.
FOLD_SHOWN = 200  # runs a fold preview describes (the count says how many there are)
STEPS = DREAM_STEPS
LIGHT_STEPS = STEPS[:2]

StepReport = DreamStep


class DreamService:
    """Consolidation passes over the App-KB, the archive and the index, and their reports."""

    def __init__(self, parts: Parts, recall: EpisodeRecallService, calibration: CalibrationService) -> None:
        self.parts = parts
        self.recall = recall
        self.calibration = calibration

    def run(
        self,
        *,
        full: bool = True,
        dry_run: bool = False,
        run_evidence: dict[str, list[dict[str, Any]]] | None = None,
        actor: str = "system",
        progress: Callable[[int, int], None] | None = None,
    ) -> DreamReport:
        """One pass (`full`, or the light one after a run with that run's evidence); `dry_run` previews every
        change. Returns (and, unless `dry_run`, stores) its report: `steps` in order, each `ok` or with its
        `error`, `changed`, and the stored event's `seq`.

        `progress(done, total)` hears the steps go by (before each, and once at the end); a `Cancelled` it
        raises stops the pass between two steps: the steps done are kept, and no report is stored.
        """
        if self.parts.config.dream == "off":
            raise InvalidInput("dream is off (JIYI_DREAM=off)")
        dream = _Pass(
            self.parts, self.recall, self.calibration, dry_run=dry_run, run_evidence=run_evidence, actor=actor
        )
        store = self.parts.store
        with self.parts.writes:
            names = STEPS if full else LIGHT_STEPS
            steps = []
            for done, name in enumerate(names):
                if progress is not None:
                    progress(done, len(names))
                steps.append(dream.step(name))
            if progress is not None:
                progress(len(names), len(names))
            report: DreamReport = {
                "ts": dream.now,
                "pass": "full" if full else "light",
                "dry_run": dry_run,
                "steps": steps,
                "changed": any(s.get("count") or s.get("removed") or s.get("added") for s in steps),
            }
            if not dry_run and (full or report["changed"]):
                summary = {s["step"]: s.get("count", s.get("removed", 0)) for s in report["steps"]}
                with store.atomic():
                    report["seq"] = store.append(
                        DOMAIN, "dream_report", {**report, "summary": summary}, actor=actor
                    ).seq
        if not dry_run and report["changed"]:
            self.parts.changed(Domain.APP_KB)
        return report

    @lists(upkeep_ops.DREAM_REPORTS)
    def reports(self, limit: int = 20) -> list[DreamRecord]:
        """The stored reports of real passes, newest first."""
        found = [event.payload for event in self.parts.store.events(DOMAIN, types=["dream_report"])]
        return typed_rows(DreamRecord, found[::-1][:limit])


@dataclass
class _Pass:
    """One pass's steps; each returns what it did (or would do, in a dry run)."""

    parts: Parts
    recall: EpisodeRecallService
    calibration: CalibrationService
    dry_run: bool
    run_evidence: dict[str, list[dict[str, Any]]] | None
    actor: str

    def __post_init__(self) -> None:
        self.now = time.time()

    def step(self, name: str) -> StepReport:
        """Run step `name`, failing open: an error is reported in the step, and the pass goes on."""
        work: Callable[[], StepReport] = getattr(self, name)
        try:
            return {"step": name, "ok": True, **work()}
        except Exception as exc:
            log.warning("dream step %s failed (the pass goes on): %s", name, exc)
            return {"step": name, "ok": False, "error": str(exc)}

    def alias_overwrites(self) -> StepReport:
        if not self.parts.config.alias_overwrite:
            return {"skipped": "JIYI_ALIAS_OVERWRITE=off"}
        evidence = self.run_evidence
        signatures = None if evidence is None else alias_correction.signatures_in(evidence)
        done = alias_correction.correct(self.parts.store, dry_run=self.dry_run, actor=self.actor, signatures=signatures)
        changes = [c.to_dict() for c in done if c.action == "overwrite"]
        return {
            "count": len(changes),
            "changes": changes,
            "skipped": [c.to_dict() for c in done if c.action != "overwrite"],
        }

    def merge(self) -> StepReport:
        merges = appkb_cleanup.plan_merges(self.parts.store)
        if not self.dry_run and merges:
            appkb_cleanup.apply_merges(self.parts.store, merges, actor=self.actor)
        return {
            "count": len(merges),
            "changes": [{"kept": m.kept.to_dict(), "removed": [e.to_dict() for e in m.removed]} for m in merges],
        }

    def evict(self) -> StepReport:
        doomed = appkb_cleanup.plan_evictions(self.parts.store, self.now)
        if not self.dry_run and doomed:
            appkb_cleanup.apply_evictions(self.parts.store, doomed, actor=self.actor)
        return {"count": len(doomed), "changes": [e.to_dict() for e in doomed]}

    def fold(self) -> StepReport:
        config = self.parts.config
        record = folding.plan_folding(
            self.parts.store, keep=config.episode_keep, archive_days=config.episode_archive_days, now=self.now
        )
        if record is None:
            return {"count": 0}
        if not self.dry_run:
            folding.fold(self.parts.store, {k: v for k, v in record.items() if k != "device_scopes"}, actor=self.actor)
        done: StepReport = {
            "count": len(record["run_ids"]),
            "run_ids": record["run_ids"][:200],
            "aggregates": record["aggregates"],
        }
        if self.dry_run:
            # A preview shows which runs by what they were (goals redacted: the preview is not the archive);
            # a real pass's report is stored, so it keeps the ids alone.
            shown = folding.describe_runs(self.parts.store, record["run_ids"])[:FOLD_SHOWN]
            redact = self.parts.redactor.redact
            done["episodes"] = [{**e, "goal_text": redact(e["goal_text"])} for e in shown]
        return done

    def index_reconcile(self) -> StepReport:
        """Make the vector index and the term counts hold exactly the live episodes."""
        store, index = self.parts.store, self.recall.engine.index
        live = self.recall.live_episodes()
        removed = added = 0
        for scope in set(index.scopes(EPISODE)) | set(live):
            indexed = set(index.ids(EPISODE, scope))
            wanted = live.get(scope, {})
            extra = sorted(indexed - set(wanted))
            missing = [wanted[r] for r in sorted(set(wanted) - indexed)]
            removed, added = removed + len(extra), added + len(missing)
            if not self.dry_run:
                index.delete(EPISODE, scope, extra)
                index.upsert(EPISODE, scope, [episode_document(self.recall.for_index(m)) for m in missing])
        wanted_ids = {scope: set(rows) for scope, rows in live.items()}
        counted_ids = {scope: set(recall_terms.run_ids(store, scope)) for scope in recall_terms.scopes(store)}
        drifted = wanted_ids != {s: ids for s, ids in counted_ids.items() if ids} or not recall_terms.consistent(store)
        if drifted and not self.dry_run:
            self.recall.rebuild_terms()
        return {"removed": removed, "added": added, "term_counts_rebuilt": drifted}

    def recalibrate(self) -> StepReport:
        """Choose every device's recall threshold again from all its evidence (docs/recall.md, Calibration)."""
        if self.dry_run:
            return {"devices": len(self.calibration.devices())}
        done = self.calibration.calibrate()
        return {  # no "count": a threshold is derived, nothing the App-KB or the archive holds changed
            "devices": len(done),
            "calibrations": [
                {"device": c.device, "threshold": c.threshold, "source": c.source, "sample_size": c.sample_size}
                for c in done
            ],
        }
