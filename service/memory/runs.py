"""Runs and the episode archive as a service of `Memory`: start, events, finish, and browsing what was kept.

A run's evidence lives in memory until it ends; its episode, its tool events
and its scored shadow recall are archived as they arrive. Archiving fails
open: a failure is logged and counted, never raised into the agent's run.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from recall.episode_recall import RecallResult
from service.memory.appkb import AppKbService, LaunchOutcome
from service.memory.calibration import CalibrationService
from service.memory.dream import DreamService
from service.memory.episode_recall import EpisodeRecallService
from service.memory.parts import Parts, check_actor
from service.memory.procedure_recall import Pick, ProcedureRecall, RunCards
from service.ops import runs as runs_ops
from service.ops.perform import holds, performs
from service.wire.episodes import Episode, EpisodeDetail, Evaluation
from service.wire.results import RunEventReceipt, RunFinished, RunStarted
from service.wire.row import all_of, of
from store.appkb import alias_correction
from store.core.errors import EnvironmentProblem, InvalidInput
from store.episodes import archive as episodes
from store.episodes import lessons, recall_stats
from store.episodes.archive import DOMAIN as EXPERIENCE
from store.episodes.episode_filter import EpisodeFilter
from store.episodes.run_event import ExperienceEvent, check_run_id
from store.episodes.schema import EpisodeOutcome

log = logging.getLogger("jiyi.service.memory")

# Runs under way live in memory until their `run.finish`. An agent that dies mid-run never sends it,
# and a hostile client can start runs without end: past this many, the run that started longest ago
# is abandoned (its evidence dropped, a finish sent later still archives what it reports).
MAX_RUNS_UNDER_WAY = 4096
# What one run keeps in memory for its light dream and its outcome: bounded however long it runs.
MAX_OBSERVED_PER_RUN = 1000
MAX_LAUNCHED_PER_RUN = 64


@dataclass
class RunState:
    """What Jiyi knows of a run under way (in memory only)."""

    device: str
    started: float
    goal: str = ""
    steps: int = 0
    launched: list[str] = field(default_factory=list)
    recall: RecallResult | None = None
    lessons: list[str] = field(default_factory=list)
    observed: list[dict[str, object]] = field(default_factory=list)
    cards: RunCards = field(default_factory=lambda: RunCards(""))


class RunService:
    """Runs under way, and the archive of finished ones."""

    def __init__(
        self,
        parts: Parts,
        appkb: AppKbService,
        recall: EpisodeRecallService,
        dream: DreamService,
        calibration: CalibrationService,
    ) -> None:
        self.parts = parts
        self.config, self.store, self.redactor = parts.config, parts.store, parts.redactor
        self.appkb = appkb
        self.recall = recall
        self.dream = dream
        self.calibration = calibration
        self.archive_failures = 0
        # Called with the run id after a run's outcome is archived (learning scans its cursors then).
        self.finished: list[Callable[[str], None]] = []
        self._runs: dict[str, RunState] = {}
        self._runs_lock = threading.Lock()
        self.abandoned_runs = 0  # runs dropped unfinished to keep MAX_RUNS_UNDER_WAY
        self.procedures = ProcedureRecall(parts, recall)

    # -- the run lifecycle -------------------------------------------------------------

    @performs(runs_ops.RUN_START)
    def run_start(
        self,
        run_id: str,
        device: str,
        *,
        goal: str | None = None,
        installed: Sequence[tuple[str, str]] | None = None,
        actor: str = "agent",
    ) -> RunStarted:
        """A run begins on `device`: sync its installed apps (when given) and open its evidence."""
        run_id = check_run_id(run_id)
        if not isinstance(device, str) or not device.strip():
            raise InvalidInput("device must be a non-empty serial")
        if goal is not None and not isinstance(goal, str):
            raise InvalidInput("goal must be text")
        report = self.appkb.sync_inventory(device, installed, actor=actor) if installed is not None else None
        # The goal becomes the episode's goal_text as given; recall (whose trace is kept) reads it redacted.
        state = RunState(device.strip(), time.time(), goal or "")
        mode = self.config.memory_rag
        state.cards = RunCards(self.redactor.redact(state.goal))
        if mode != "off" and state.goal.strip():
            state.recall = self._shadow_recall(state.cards.goal, state.device)
        picks = self.procedures.run_start(state.cards, state.device, state.recall)
        if picks:
            self._archive(lambda: self.procedures.record(run_id, picks))
        with self._runs_lock:
            self._runs.pop(run_id, None)  # a restarted run id goes to the back of the line
            self._runs[run_id] = state
            abandoned = self._abandon_past_limit()
        for old in abandoned:
            self.appkb.end_run_evidence(old)
        answer: RunStarted = {
            "run_id": run_id,
            "device": state.device,
            "inventory": asdict(report) if report else None,
            # In shadow mode what was recalled is logged only; it never goes back into the agent's context.
            "recall": {
                "mode": mode,
                "status": state.recall.status if state.recall else "off",
                "latency_ms": state.recall.latency_ms if state.recall else 0.0,
            },
        }
        if mode == "on":
            # `on` gives the agent approved lessons only, never the recalled episodes themselves.
            likely = state.recall.recalled_apps if state.recall else []
            given = lessons.for_run(self.store, likely)
            state.lessons = [lesson.lesson_id for lesson in given]
            answer["lessons"] = [{"lesson_id": g.lesson_id, "text": g.text} for g in given]
        return answer

    def _abandon_past_limit(self) -> list[str]:
        """Drop the runs that started longest ago while more than MAX_RUNS_UNDER_WAY are under way (lock held)."""
        abandoned: list[str] = []
        while len(self._runs) > MAX_RUNS_UNDER_WAY:
            old = next(iter(self._runs))  # insertion order is start order
            del self._runs[old]
            abandoned.append(old)
        if abandoned:
            self.abandoned_runs += len(abandoned)
            log.warning(
                "%d runs under way: abandoned %d that started longest ago (first %s) without their run.finish",
                MAX_RUNS_UNDER_WAY,
                len(abandoned),
                abandoned[0],
            )
        return abandoned

    def _shadow_recall(self, goal: str, device: str) -> RecallResult:
        """Recall for a run's goal, failing open."""
        try:
            # Explained: the trace keeps every candidate weighed, below the threshold too, for calibration.
            return self.recall.recall(goal, device, self.parts.generation, explain=True)
        except Exception as exc:
            self.recall.note_error("episode", exc)
            log.warning("recall failed (the run goes on): %s", exc)
            return RecallResult(self.config.memory_rag, "error", goal, self.recall.embedder_id, error=str(exc))

    @performs(runs_ops.RUN_EVENT)
    def run_event(
        self,
        event: dict[str, object],
        *,
        device: str | None = None,
        launch_name: str | None = None,
        failure_message: str | None = None,
        actor: str = "agent",
    ) -> RunEventReceipt:
        """One tool receipt of a run.

        `launch_name` is the name the agent asked `launch_app` for (kept only for
        this call); with a confirmed launch (`result_class` ok and `app_package`)
        it counts a success and may teach a learned alias; with a failed one and
        its `failure_message`, the packages the message offered become this run's
        implicit-alias evidence. Returns the event as validated and what it taught.
        """
        if not isinstance(event, dict):
            raise InvalidInput("event must be an object")
        run_id = event.get("run_id")
        with self._runs_lock:
            run = self._runs.get(run_id) if isinstance(run_id, str) else None
        device = device or (run.device if run else None)
        receipt = ExperienceEvent.coerce(event, device=device, now=time.time())
        confirmed = receipt.tool == "launch_app" and receipt.result_class == "ok" and bool(receipt.app_package)
        # A confirmed launch selects the app's procedure card; it is counted with the receipt, in its transaction.
        pick = self.procedures.launched(run.cards, run.device, str(receipt.app_package)) if run and confirmed else None
        archived = self._archive(lambda: self._record_receipt(receipt, pick, actor))
        if run is not None:
            run.steps = max(run.steps, receipt.step)
            if confirmed and receipt.app_package not in run.launched and len(run.launched) < MAX_LAUNCHED_PER_RUN:
                run.launched.append(str(receipt.app_package))
        self._observe(receipt, launch_name, event.get("note"), actor)
        outcome = LaunchOutcome()
        evidence: list[str] = []
        if receipt.tool == "launch_app" and launch_name:
            if receipt.result_class == "ok" and receipt.app_package:
                outcome = self.appkb.confirm_launch(
                    run_id=receipt.run_id, device=device, name=launch_name, package=receipt.app_package, actor=actor
                )
            elif receipt.result_class == "error" and failure_message:
                evidence = self.appkb.note_failed_resolution(receipt.run_id, launch_name, failure_message)
        return {
            "event": receipt.to_dict(),
            "archived": archived,
            "successes": outcome.successes,
            "learned": [e.to_dict() for e in outcome.learned],
            "evidence": evidence,
        }

    def _record_receipt(self, receipt: ExperienceEvent, pick: Pick | None, actor: str) -> None:
        with self.store.atomic():
            episodes.record_event(self.store, receipt, actor=actor)
            if pick is not None:
                self.procedures.record(receipt.run_id, [pick])

    def _observe(self, receipt: ExperienceEvent, launch_name: str | None, note: object, actor: str) -> None:
        """Keep the evidence alias correction needs: launches and backs, with only the marker word of the note."""
        if not (self.config.app_kb and self.config.alias_overwrite) or receipt.tool not in ("launch_app", "back"):
            return
        folded = note.casefold() if isinstance(note, str) else ""
        marker = next((word for word in self.config.alias_overwrite_notes if word.casefold() in folded), None)
        term = launch_name.strip() if receipt.tool == "launch_app" and launch_name else None
        if term and (self.redactor.is_sensitive(term) or len(term) > 64):
            term = None  # a sensitive term is blanked
        run = self._runs.get(receipt.run_id)
        kept = run.observed if run is not None and len(run.observed) < MAX_OBSERVED_PER_RUN else []
        self._archive(
            lambda: kept.append(
                alias_correction.record_observation(
                    self.store,
                    run_id=receipt.run_id,
                    step=receipt.step,
                    tool=receipt.tool,
                    success=receipt.result_class == "ok",
                    term=term,
                    package=receipt.app_package,
                    marker=marker,
                    actor=actor,
                )
            )
        )

    @performs(runs_ops.RUN_FINISH)
    def run_finish(self, run_id: str, outcome: dict[str, object] | None = None, *, actor: str = "agent") -> RunFinished:
        """The run ended: archive its `episode_outcome` and drop its evidence.

        Fields the outcome leaves out are filled from what Jiyi saw of the run
        (start time, device, goal, confirmed launches as `apps`, steps); when no
        outcome is given for a known run, one is archived with `success: false`
        and reason `not_reported`. Archiving fails open: a failure is logged and
        counted, never raised into the agent's run.
        """
        run_id = check_run_id(run_id)
        if outcome is not None and not isinstance(outcome, dict):
            raise InvalidInput("outcome must be an object")
        with self._runs_lock:
            run = self._runs.pop(run_id, None)
        self.appkb.end_run_evidence(run_id)
        now = time.time()
        record: dict[str, object] | None = None
        episode: EpisodeOutcome | None = None
        archived = False
        if outcome is not None or run is not None:
            data = dict(outcome or {"success": False, "reason": "not_reported"})
            data["run_id"] = run_id
            if run is not None:
                data.setdefault("ts_start", run.started)
                data.setdefault("device_scope", f"device:{run.device}")
                data.setdefault("goal_text", run.goal)
                data.setdefault("apps", list(run.launched))
                data.setdefault("steps", run.steps)
                data.setdefault("injected_lessons", list(run.lessons))
            data.setdefault("ts_end", now)
            episode = EpisodeOutcome.coerce(data)
            record = episode.to_dict()
            archived = self._archive(lambda: episodes.record_outcome(self.store, episode, actor=actor))
        evaluation = None
        if episode is not None and run is not None and run.recall is not None and run.recall.status != "error":
            # The reference's definition: only confirmed launch receipts count, never the outcome's `apps`.
            actual = list(run.launched)
            evaluation = self._score_recall(run_id, run, episode, actual)
        indexed = False
        if archived and record is not None and self.recall.passes_gate(record):
            indexed = self._index_episode(record)
        if archived:
            self.parts.changed(EXPERIENCE)
            for listener in self.finished:
                listener(run_id)
        if run is not None and self.config.dream == "auto":
            self._light_dream(run_id, run)
        return {
            "run_id": run_id,
            "known": run is not None,
            "archived": archived,
            "indexed": indexed,
            "episode": record,
            "recall_evaluation": evaluation,
            "seconds": round(now - run.started, 3) if run else None,
        }

    def _light_dream(self, run_id: str, run: RunState) -> None:
        """After a run: correct aliases from its evidence and merge duplicates; never deletes; fails open."""
        try:
            self.dream.run(full=False, dry_run=False, run_evidence={run_id: run.observed})
        except Exception as exc:
            log.warning("the light dream after %s failed (the run is archived all the same): %s", run_id, exc)

    def _score_recall(
        self, run_id: str, run: RunState, episode: EpisodeOutcome, actual: list[str]
    ) -> Evaluation | None:
        """Score the run's recall against what was really launched and keep the trace (fails open)."""
        assert run.recall is not None
        mentioned = [a for c in run.recall.candidates if c.source == "mention" for a in c.apps]
        evaluation = recall_stats.evaluate(run.recall.recalled_apps, run.recall.top1_apps, actual, mentioned)
        trace: dict[str, object] = {
            "run_id": run_id,
            "ts": episode.ts_end or time.time(),
            "device_scope": episode.device_scope,
            "mode": run.recall.mode,
            "embedder": run.recall.embedder,
            "recall": run.recall.to_dict(),
            "evaluation": evaluation,
        }
        if not self._archive(lambda: recall_stats.record_evaluation(self.store, trace, actor="system")):
            return None
        self.parts.changed(recall_stats.DOMAIN)
        self.calibration.observe(trace)  # returns at once: the device is recalibrated in the background
        return evaluation

    def _index_episode(self, record: Mapping[str, object]) -> bool:
        try:
            self.recall.index([record])
        except Exception as exc:
            self.recall.note_error("episode", exc)
            log.warning("indexing %s failed (kept in the archive): %s", record.get("run_id"), exc)
            return False
        return True

    def _archive(self, write: Callable[[], object]) -> bool:
        """Run an archive write, failing open: a failure is logged and counted, not raised."""
        try:
            with self.parts.writes:
                write()
        except EnvironmentProblem as exc:
            # A full disk or a spent budget is the machine's state, not a bug: no traceback for it.
            self.archive_failures += 1
            log.warning("archiving failed (%d so far); the run goes on: %s", self.archive_failures, exc)
            return False
        except Exception:
            self.archive_failures += 1
            log.exception("archiving failed (%d so far); the run goes on", self.archive_failures)
            return False
        return True

    # -- episodes ----------------------------------------------------------------------

    def list_episodes(
        self,
        f: EpisodeFilter | None = None,
        *,
        limit: int = 100,
        offset: int = 0,
        after: tuple[float, str] | None = None,
    ) -> list[Episode]:
        """Archived episodes, newest first, filtered and paged in the store; `after` (the `(ts_end, run_id)` of
        the last row shown) pages by key, so rows inserted meanwhile shift nothing."""
        return all_of(
            Episode, episodes.list_episodes(self.store, f or EpisodeFilter(), limit=limit, offset=offset, after=after)
        )

    def count_episodes(self, f: EpisodeFilter | None = None) -> int:
        return episodes.count_episodes(self.store, f)

    @performs(runs_ops.EPISODE_LIST)
    def episode_page(
        self,
        *,
        text: str | None = None,
        app: str | None = None,
        device: str | None = None,
        success: bool | None = None,
        since: float | None = None,
        until: float | None = None,
        revoked: bool | None = None,
        limit: int = 100,
        offset: int = 0,
        after: Sequence[float | str] | None = None,
        total: bool = False,
    ) -> runs_ops.EpisodePage:
        """A page of `list_episodes` for these filters, with the count of every episode they keep if `total`."""
        f = EpisodeFilter(text=text, app=app, device=device, success=success, since=since, until=until, revoked=revoked)
        key = None if after is None else (float(after[0]), str(after[1]))
        rows = self.list_episodes(f, limit=limit + 1, offset=offset, after=key)
        return runs_ops.EpisodePage(
            episodes=rows[:limit],
            next_offset=offset + limit if len(rows) > limit else None,
            total=self.count_episodes(f) if total else None,
        )

    @performs(runs_ops.EPISODE_GET)
    def get_episode(self, run_id: str) -> EpisodeDetail:
        """One episode with its tool-event timeline."""
        return of(EpisodeDetail, episodes.get_episode(self.store, run_id))

    @holds(runs_ops.EPISODE_REVOKE, fixed={"actor": "user"}, also={"revoked": True})
    def revoke_episode(self, run_id: str, *, reason: str | None = None, actor: str = "user") -> int:
        """Keep an episode out of recall (it stays archived); returns the change id.

        The reason is a person's or agent's note, not part of the episode: it is redacted.
        """
        check_actor(actor)
        if reason is not None and not isinstance(reason, str):
            raise InvalidInput("reason must be text")
        with self.parts.writes:
            seq = episodes.set_revoked(
                self.store, run_id, True, actor=actor, reason=self.redactor.redact(reason) if reason else None
            )
        self.parts.changed(EXPERIENCE, seq)
        episode = episodes.get_episode(self.store, run_id)
        try:
            self.recall.forget(run_id, episode.device_scope)
        except Exception as exc:
            log.warning("could not drop the vector of %s (rebuild-vec will): %s", run_id, exc)
        return seq

    @holds(runs_ops.EPISODE_RESTORE, fixed={"actor": "user"}, also={"revoked": False})
    def restore_episode(self, run_id: str, *, actor: str = "user") -> int:
        """Let recall use a revoked episode again; returns the change id."""
        check_actor(actor)
        with self.parts.writes:
            seq = episodes.set_revoked(self.store, run_id, False, actor=actor)
        self.parts.changed(EXPERIENCE, seq)
        episode = episodes.current_records(self.store, [run_id]).get(run_id)
        if episode is not None and self.recall.passes_gate(episode):
            self._index_episode(episode)
        return seq

    def archive_episodes(
        self, outcomes: Sequence[Mapping[str, object]], *, actor: str = "import", batch: int = 256, index: bool = True
    ) -> int:
        """Archive many finished runs at once (an evaluation's history, tests) and index them in batches
        (unless `index` is false: the overview then reports the index lagging, `index_missing` catches up)."""
        records = [EpisodeOutcome.coerce(o) for o in outcomes]
        for start in range(0, len(records), batch):
            chunk = records[start : start + batch]
            with self.parts.writes:
                episodes.record_many(self.store, [r.to_dict() for r in chunk], actor=actor)
            if index:
                self.recall.index([r.to_dict() for r in chunk])
        self.parts.changed(EXPERIENCE)
        return len(records)

    def active_runs(self) -> list[str]:
        with self._runs_lock:
            return list(self._runs)
