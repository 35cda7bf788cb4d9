"""Bulk ingest: many finished runs archived and indexed at once (an import, `jiyi demo`, a benchmark).

The same records, views, term counts and vectors as reporting each run
through `run.event` and `run.finish` (tests/unit/service/test_ingest.py holds
the two side by side), at a fraction of the cost: events go into the log in
large transactions (`Store.append_many`), goals are embedded and added to
Chroma in batches (`VectorIndex.upsert`), and the term counts are summed in
memory and written once per batch (`recall_terms.put`). Unlike a live run it
fails closed: every run is validated before anything is written, and a
problem names the run and writes nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence

from service.memory.episode_recall import EpisodeRecallService
from service.memory.parts import Parts
from service.wire.results import IngestReport
from store.core.errors import InvalidInput
from store.episodes import archive as episodes
from store.episodes import recall_stats
from store.episodes.archive import DOMAIN as EXPERIENCE
from store.episodes.run_event import ExperienceEvent
from store.episodes.schema import EpisodeOutcome

log = logging.getLogger("jiyi.service.memory")
Progress = Callable[[int, int], None]
BATCH = 5000  # runs per transaction and per indexing pass


class IngestService:
    """Archive and index finished runs in bulk."""

    def __init__(self, parts: Parts, recall: EpisodeRecallService) -> None:
        self.parts = parts
        self.store = parts.store
        self.recall = recall

    def ingest_runs(
        self,
        runs: Sequence[Mapping[str, object]],
        *,
        actor: str = "import",
        batch: int = BATCH,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Archive finished runs — each `{"outcome": {...}, "events": [tool receipts]}` — and index those
        through the quality gate. Outcomes and events are validated as `run.finish` and `run.event` validate
        them; events take the device of their run's outcome. Returns what was written.
        """
        if batch < 1:
            raise InvalidInput("batch must be at least 1")
        records = [_records(i, run) for i, run in enumerate(runs)]
        report: IngestReport = {"runs": 0, "events": 0, "indexed": 0, "seconds": 0.0}
        started = time.perf_counter()
        for start in range(0, len(records), batch):
            chunk = records[start : start + batch]
            flat = [record for run in chunk for record in run]
            with self.parts.writes:
                episodes.record_many(self.store, flat, actor=actor)
            # Indexed after the commit, as `run.finish` does: the archive is the truth, the index derived.
            outcomes = [run[-1] for run in chunk]
            report["indexed"] += sum(1 for o in outcomes if self.recall.passes_gate(o))
            self.recall.index(outcomes)
            report["runs"] += len(chunk)
            report["events"] += len(flat) - len(chunk)
            if progress:
                progress(report["runs"], len(records))
        if records:
            self.parts.changed(EXPERIENCE)
        report["seconds"] = round(time.perf_counter() - started, 3)
        return report

    def record_evaluations(self, traces: Sequence[dict[str, object]], *, actor: str = "system") -> int:
        """Keep many runs' scored recall traces (as `run.finish` keeps one) in one transaction."""
        if not traces:
            return 0
        with self.parts.writes, self.store.atomic():
            self.store.append_many(recall_stats.DOMAIN, [("recall_evaluated", t) for t in traces], actor=actor)
        self.parts.changed(recall_stats.DOMAIN)
        return len(traces)


def _records(i: int, run: Mapping[str, object]) -> list[dict[str, object]]:
    """A run's validated records: its tool events, then its outcome (last)."""
    if not isinstance(run, dict) or not isinstance(run.get("outcome"), dict):
        raise InvalidInput(f"run {i}: needs an outcome object")
    try:
        outcome = EpisodeOutcome.coerce(run["outcome"]).to_dict()
        events = run.get("events", [])
        if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
            raise InvalidInput("events must be a list of objects")
        device = str(outcome["device_scope"]).removeprefix("device:")
        now = time.time()
        receipts = [ExperienceEvent.coerce(e, device=device, now=now).to_dict() for e in events]
    except InvalidInput as exc:
        raise InvalidInput(f"run {i} ({run['outcome'].get('run_id')!r}): {exc}") from None
    if any(r["run_id"] != outcome["run_id"] for r in receipts):
        raise InvalidInput(f"run {i} ({outcome['run_id']!r}): an event names another run")
    return [*receipts, outcome]
