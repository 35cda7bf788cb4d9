"""`Memory`: the one facade. The console and every agent call these methods.

It owns the configuration, the store and the resolver. Writes are serialized
and acknowledged only after their transaction commits; listeners hear about
each committed change (the console refreshes its pages from that).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from jiyi import __version__
from jiyi.recall.episode_recall import RecallResult
from jiyi.recall.registry import AppRegistry, default_registry
from jiyi.recall.resolve import Resolution, ResolverIndex
from jiyi.store import appkb, appkb_history, episodes, recall_stats, taskwizard_appkb, taskwizard_experience
from jiyi.store.appkb import ForgetAliasResult, LearnAliasResult, SyncReport
from jiyi.store.appkb_entry import KINDS, AppKbEntry, is_package_name, normalize_term
from jiyi.store.appkb_history import HistoryItem, UndoResult
from jiyi.store.appkb_projection import DOMAIN as APP_KB
from jiyi.store.atomic_file import write_text
from jiyi.store.database import Store
from jiyi.store.episode_schema import EpisodeOutcome
from jiyi.store.episodes import DOMAIN as EXPERIENCE
from jiyi.store.episodes import EpisodeFilter
from jiyi.store.errors import InvalidInput, NotFound
from jiyi.store.implicit_alias import ImplicitAliasEvidence
from jiyi.store.import_source import ImportReport
from jiyi.store.projections import all_projections
from jiyi.store.redact import Redactor, default_words
from jiyi.store.run_event import ExperienceEvent, check_run_id

from .config import Config
from .recall_service import RecallService

log = logging.getLogger("jiyi.service")

__all__ = ["AppKbEntry", "EpisodeFilter", "HistoryItem", "LaunchOutcome", "Memory", "Resolution", "UndoResult"]

ACTORS = ("user", "agent", "system", "import")
Listener = Callable[[str, int], None]


@dataclass
class LearnAliasOutcome:
    result: LearnAliasResult
    installed_on: list[str]
    missing_on: list[str]

    @property
    def warnings(self) -> list[str]:
        package = self.result.entry.package
        if self.installed_on:
            return []
        if not self.missing_on:
            return [f"no device has synced its apps yet, so {package} could not be checked; saved anyway"]
        return [f"{package} is not installed on any known device; saved anyway"]


@dataclass
class RunState:
    """What Jiyi knows of a run under way (in memory only)."""

    device: str
    started: float
    goal: str = ""
    steps: int = 0
    launched: list[str] = field(default_factory=list)
    recall: RecallResult | None = None


@dataclass
class LaunchOutcome:
    """What a confirmed launch taught the App-KB."""

    successes: int = 0
    learned: list[AppKbEntry] = field(default_factory=list)


class Memory:
    """Everything Jiyi remembers, behind one object. Open with `Memory.open`."""

    def __init__(self, config: Config, store: Store, registry: AppRegistry) -> None:
        self.config = config
        self.store = store
        self.registry = registry
        self.redactor = Redactor([*default_words(), *config.sensitive_words])
        self.evidence = ImplicitAliasEvidence()
        self._write_lock = threading.RLock()
        self._index_lock = threading.Lock()
        self._index: ResolverIndex | None = None
        self._index_seq = -1
        # Everything cached below is valid for one App-KB generation. This process is the
        # only writer of its home (the lock), and every write ends in `_changed`.
        self._generation = 0
        self._index_generation = -1
        self._installed: dict[str, tuple[int, dict[str, str] | None]] = {}
        self._counts: tuple[int, dict[str, object]] | None = None
        self._listeners: list[Listener] = []
        self._runs: dict[str, RunState] = {}
        self.archive_failures = 0
        self.recall = RecallService(config, store, registry)
        self._runs_lock = threading.Lock()
        deny = tuple(config.launch_deny)
        self._deny_exact = frozenset(p for p in deny if not p.endswith("."))
        self._deny_prefix = tuple(p for p in deny if p.endswith("."))

    @classmethod
    def open(cls, config: Config, registry: AppRegistry | None = None) -> Memory:
        """Open the home named by `config` (validated already) and its store."""
        store = Store.open(config.home_path, all_projections())
        return cls(config, store, registry or default_registry())

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- change notification ---------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(domain, txn)` after every committed change."""
        self._listeners.append(listener)

    def _changed(self, domain: str, txn: int) -> None:
        self._generation += 1
        for listener in list(self._listeners):
            try:
                listener(domain, txn)
            except Exception:
                log.exception("a change listener failed")

    # -- App-KB reads ------------------------------------------------------------------

    def list_aliases(
        self,
        *,
        device: str | None = None,
        kind: str | None = None,
        include_stale: bool = True,
        text: str | None = None,
        limit: int | None = None,
        offset: int = 0,
        order: str = "reference",
    ) -> list[AppKbEntry]:
        """App-KB entries, filtered and paged in the store ("reference" or "trust" order)."""
        return appkb.list_entries(
            self.store,
            device=device,
            kind=kind,
            include_stale=include_stale,
            text=text,
            limit=limit,
            offset=offset,
            order=order,
        )

    def count_aliases(self) -> int:
        return appkb.count_entries(self.store)

    def devices(self) -> list[str]:
        return appkb.devices(self.store)

    def installed(self, device: str) -> dict[str, str] | None:
        """Package → label installed on `device` (None when it never synced); cached per generation."""
        generation = self._generation
        cached = self._installed.get(device)
        if cached is not None and cached[0] == generation:
            return cached[1]
        value = appkb.installed(self.store, device)
        self._installed[device] = (generation, value)
        return value

    def alias_history(self, name: str, *, limit: int = 500) -> list[HistoryItem]:
        """Every App-KB change about `name`, newest first."""
        return appkb_history.history(self.store, name, limit=limit)

    # -- App-KB writes -----------------------------------------------------------------

    def learn_alias(self, name: str, package: str, *, actor: str = "user") -> LearnAliasOutcome:
        """`名称=包名`: a global user alias, the highest trust. Warns (but saves) when not installed."""
        self._check_actor(actor)
        self._check_enabled()
        with self._write_lock:
            result = appkb.learn_alias(self.store, name, package, actor=actor, redactor=self.redactor)
        self._changed(APP_KB, result.txn)
        present = appkb.devices_with(self.store, result.entry.package)
        missing = [d for d in self.devices() if d not in present] if not present else []
        return LearnAliasOutcome(result, present, missing)

    def forget_alias(self, name: str, *, actor: str = "user") -> ForgetAliasResult:
        """Remove `name`'s global user and learned aliases; device entries stay."""
        self._check_actor(actor)
        self._check_enabled()
        with self._write_lock:
            result = appkb.forget_alias(self.store, name, actor=actor)
        self._changed(APP_KB, result.txn)
        return result

    def undo_change(self, txn: int, *, actor: str = "user") -> UndoResult:
        """Revert App-KB change `txn` by appending reverting events (undoing an undo redoes)."""
        self._check_actor(actor)
        with self._write_lock:
            result = appkb_history.undo(self.store, txn, actor=actor)
        self._changed(APP_KB, result.txn)
        return result

    def sync_inventory(self, device: str, apps: Sequence[tuple[str, str]], *, actor: str = "agent") -> SyncReport:
        """The device's installed apps (package, label): new ones added, missing ones marked stale."""
        self._check_actor(actor)
        self._check_enabled()
        with self._write_lock:
            report = appkb.sync_inventory(self.store, device, apps, actor=actor, redactor=self.redactor)
        if report.added or report.updated or report.staled:
            self._changed(APP_KB, self.store.last_seq(APP_KB))
        return report

    def note_failed_resolution(self, run_id: str, name: str, message: str) -> list[str]:
        """Keep, for this run only, the packages a failed `launch_app(name)` offered."""
        if not (self.config.app_kb and self.config.implicit_alias):
            return []
        return self.evidence.note_failure(run_id, name, message)

    def confirm_launch(
        self, *, run_id: str, device: str | None, name: str, package: str, actor: str = "agent"
    ) -> LaunchOutcome:
        """The device confirmed `package` launched after the agent asked for `name`.

        Counts a success on matching entries; learns the name from this run's
        failed-resolution evidence (implicit alias) or, when it differs from the
        package's canonical label, by label. Sensitive names are never written.
        """
        self._check_actor(actor)
        outcome = LaunchOutcome()
        if not self.config.app_kb or not is_package_name(package) or not isinstance(name, str) or not name.strip():
            return outcome
        with self._write_lock:
            outcome.successes = appkb.record_success(self.store, name, package, device=device, actor=actor)
            reason = self._why_learn(run_id, device, name, package, outcome.successes)
            if reason is not None:
                label, note = reason
                entry = appkb.learn_observed(
                    self.store, name, package, label=label, note=note, actor=actor, redactor=self.redactor
                )
                if entry is not None:
                    outcome.learned.append(entry)
                    self.evidence.mark_written(run_id, name)
        if outcome.successes or outcome.learned:
            self._changed(APP_KB, self.store.last_seq(APP_KB))
        return outcome

    def _why_learn(
        self, run_id: str, device: str | None, name: str, package: str, successes: int
    ) -> tuple[str, str] | None:
        """(label, evidence note) when a confirmed launch should teach a learned alias.

        Implicit: this run failed to resolve `name` and offered exactly `package`.
        By label: no entry knew the name, and it differs from the package's
        canonical label (the device's, else the registry's). Once per name per run.
        """
        if self.evidence.was_written(run_id, name):
            return None
        if self.config.implicit_alias and name in self.evidence.names_for(run_id, package):
            return package, f"implicit: run<{run_id}>"
        if successes:
            return None
        label = (self.installed(device) or {}).get(package) if device else None
        label = label or self.registry.label_for(package)
        if label and normalize_term(label) != normalize_term(name):
            return label, f"label: run<{run_id}>"
        return None

    def end_run_evidence(self, run_id: str) -> None:
        """Drop the run's implicit-alias evidence (it never outlives the run)."""
        self.evidence.end_run(run_id)

    # -- the run lifecycle -------------------------------------------------------------

    def run_start(
        self,
        run_id: str,
        device: str,
        *,
        goal: str | None = None,
        installed: Sequence[tuple[str, str]] | None = None,
        actor: str = "agent",
    ) -> dict[str, Any]:
        """A run begins on `device`: sync its installed apps (when given) and open its evidence."""
        run_id = check_run_id(run_id)
        if not isinstance(device, str) or not device.strip():
            raise InvalidInput("device must be a non-empty serial")
        if goal is not None and not isinstance(goal, str):
            raise InvalidInput("goal must be text")
        report = self.sync_inventory(device, installed, actor=actor) if installed is not None else None
        state = RunState(device.strip(), time.time(), self.redactor.redact(goal or ""))
        mode = self.config.memory_rag
        if mode != "off" and state.goal.strip():
            state.recall = self._shadow_recall(state.goal, state.device)
        with self._runs_lock:
            self._runs[run_id] = state
        answer: dict[str, Any] = {
            "run_id": run_id,
            "device": state.device,
            "inventory": asdict(report) if report else None,
        }
        # In shadow mode what was recalled is logged only; it never goes back into the agent's context.
        answer["recall"] = {
            "mode": mode,
            "status": state.recall.status if state.recall else "off",
            "latency_ms": state.recall.latency_ms if state.recall else 0.0,
        }
        return answer

    def _shadow_recall(self, goal: str, device: str) -> RecallResult:
        """Recall for a run's goal, failing open."""
        try:
            return self.recall.recall(goal, device, self._generation)
        except Exception as exc:
            self.recall.errors["episode"] += 1
            log.warning("recall failed (the run goes on): %s", exc)
            return RecallResult(self.config.memory_rag, "error", goal, self.config.embed_model, error=str(exc))

    def run_event(
        self,
        event: dict[str, Any],
        *,
        device: str | None = None,
        launch_name: str | None = None,
        failure_message: str | None = None,
        actor: str = "agent",
    ) -> dict[str, Any]:
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
        receipt = ExperienceEvent.coerce(event, device=device, now=time.time(), redactor=self.redactor)
        archived = self._archive(lambda: episodes.record_event(self.store, receipt, actor=actor))
        if run is not None:
            run.steps = max(run.steps, receipt.step)
            confirmed = receipt.tool == "launch_app" and receipt.result_class == "ok" and receipt.app_package
            if confirmed and receipt.app_package not in run.launched:
                run.launched.append(str(receipt.app_package))
        outcome = LaunchOutcome()
        evidence: list[str] = []
        if receipt.tool == "launch_app" and launch_name:
            if receipt.result_class == "ok" and receipt.app_package:
                outcome = self.confirm_launch(
                    run_id=receipt.run_id, device=device, name=launch_name, package=receipt.app_package, actor=actor
                )
            elif receipt.result_class == "error" and failure_message:
                evidence = self.note_failed_resolution(receipt.run_id, launch_name, failure_message)
        return {
            "event": receipt.to_dict(),
            "archived": archived,
            "successes": outcome.successes,
            "learned": [e.to_dict() for e in outcome.learned],
            "evidence": evidence,
        }

    def run_finish(self, run_id: str, outcome: dict[str, Any] | None = None, *, actor: str = "agent") -> dict[str, Any]:
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
        self.end_run_evidence(run_id)
        now = time.time()
        record: dict[str, Any] | None = None
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
            data.setdefault("ts_end", now)
            episode = EpisodeOutcome.coerce(data, self.redactor)
            record = episode.to_dict()
            archived = self._archive(lambda: episodes.record_outcome(self.store, episode, actor=actor))
        evaluation = None
        if record is not None and run is not None and run.recall is not None and run.recall.status != "error":
            actual = run.launched or list(record["apps"])
            evaluation = self._score_recall(run_id, run, record, actual)
        indexed = False
        if archived and record is not None and self.recall.passes_gate(record):
            indexed = self._index_episode(record)
        if archived:
            self._changed(EXPERIENCE, self.store.last_seq(EXPERIENCE))
        return {
            "run_id": run_id,
            "known": run is not None,
            "archived": archived,
            "indexed": indexed,
            "episode": record,
            "recall_evaluation": evaluation,
            "seconds": round(now - run.started, 3) if run else None,
        }

    def _score_recall(
        self, run_id: str, run: RunState, record: dict[str, Any], actual: list[str]
    ) -> dict[str, Any] | None:
        """Score the run's recall against what was really launched and keep the trace (fails open)."""
        assert run.recall is not None
        evaluation = recall_stats.evaluate(run.recall.recalled_apps, run.recall.top1_apps, actual)
        trace = {
            "run_id": run_id,
            "ts": float(record.get("ts_end") or time.time()),
            "device_scope": record.get("device_scope"),
            "mode": run.recall.mode,
            "embedder": run.recall.embedder,
            "recall": run.recall.to_dict(),
            "evaluation": evaluation,
        }
        if not self._archive(lambda: recall_stats.record_evaluation(self.store, trace, actor="system")):
            return None
        return evaluation

    def _index_episode(self, record: dict[str, Any]) -> bool:
        try:
            self.recall.index([record])
        except Exception as exc:
            self.recall.errors["episode"] += 1
            log.warning("indexing %s failed (kept in the archive): %s", record.get("run_id"), exc)
            return False
        return True

    def _archive(self, write: Callable[[], object]) -> bool:
        """Run an archive write, failing open: a failure is logged and counted, not raised."""
        try:
            with self._write_lock:
                write()
        except Exception:
            self.archive_failures += 1
            log.exception("archiving failed (%d so far); the run goes on", self.archive_failures)
            return False
        return True

    # -- episodes ----------------------------------------------------------------------

    def list_episodes(
        self, f: EpisodeFilter | None = None, *, limit: int = 100, offset: int = 0
    ) -> list[dict[str, Any]]:
        """Archived episodes, newest first, filtered and paged in the store."""
        return episodes.list_episodes(self.store, f or EpisodeFilter(), limit=limit, offset=offset)

    def count_episodes(self, f: EpisodeFilter | None = None) -> int:
        return episodes.count_episodes(self.store, f)

    def get_episode(self, run_id: str) -> dict[str, Any]:
        """One episode with its tool-event timeline."""
        return episodes.get_episode(self.store, run_id)

    def revoke_episode(self, run_id: str, *, reason: str | None = None, actor: str = "user") -> int:
        """Keep an episode out of recall (it stays archived); returns the change id."""
        self._check_actor(actor)
        with self._write_lock:
            seq = episodes.set_revoked(self.store, run_id, True, actor=actor, reason=reason)
        self._changed(EXPERIENCE, seq)
        episode = self.get_episode(run_id)
        try:
            self.recall.forget(run_id, episode["device_scope"])
        except Exception as exc:
            log.warning("could not drop the vector of %s (rebuild-vec will): %s", run_id, exc)
        return seq

    def restore_episode(self, run_id: str, *, actor: str = "user") -> int:
        """Let recall use a revoked episode again; returns the change id."""
        self._check_actor(actor)
        with self._write_lock:
            seq = episodes.set_revoked(self.store, run_id, False, actor=actor)
        self._changed(EXPERIENCE, seq)
        episode = self.get_episode(run_id)
        if self.recall.passes_gate(episode):
            self._index_episode(episode)
        return seq

    def archive_episodes(self, outcomes: list[dict[str, Any]], *, actor: str = "import", batch: int = 256) -> int:
        """Archive many finished runs at once (an import, an evaluation's history) and index them in batches."""
        records = [EpisodeOutcome.coerce(o, self.redactor) for o in outcomes]
        for start in range(0, len(records), batch):
            chunk = records[start : start + batch]
            with self._write_lock, self.store.atomic():
                for record in chunk:
                    self.store.append(EXPERIENCE, "episode_outcome", record.to_dict(), actor=actor)
            self.recall.index([r.to_dict() for r in chunk])
        self._changed(EXPERIENCE, self.store.last_seq(EXPERIENCE))
        return len(records)

    # -- recall statistics -------------------------------------------------------------

    def recall_statistics(self, since: float | None = None, until: float | None = None) -> dict[str, Any]:
        """Hit@1, hit rate, contamination and package P/R over a window, with daily series and per package."""
        return {
            "mode": self.config.memory_rag,
            "embedder": self.config.embed_model,
            "window": {"since": since, "until": until},
            "totals": recall_stats.statistics(self.store, since, until),
            "daily": recall_stats.daily(self.store, since, until),
            "packages": recall_stats.per_package(self.store, since, until),
        }

    def recall_runs(self, since: float, until: float, limit: int = 200) -> list[dict[str, Any]]:
        """The runs evaluated in a window, with recalled vs actual apps (newest first)."""
        return recall_stats.runs_between(self.store, since, until, limit)

    def recall_query(self, goal: str, device: str) -> dict[str, Any]:
        """What recall would return for `goal` on `device` now (for people and tools; logs nothing)."""
        if not isinstance(goal, str) or not goal.strip():
            raise InvalidInput("goal must be non-empty text")
        return self.recall.recall(self.redactor.redact(goal), device, self._generation).to_dict()

    def export_recall_stats(self, path: Path) -> dict[str, Any]:
        """Write the reference's `recall_stats.json` (schema_v 2) to `path`."""
        data = recall_stats.stats_file(self.store, dict(self.recall.errors))
        write_text(Path(path), json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", mode=0o600)
        return data

    def rebuild_vectors(self, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """Drop and rebuild the vector index from the archive with the configured embedder."""
        with self._write_lock:
            return self.recall.rebuild(progress)

    def active_runs(self) -> list[str]:
        with self._runs_lock:
            return list(self._runs)

    # -- resolution --------------------------------------------------------------------

    def resolver_index(self) -> ResolverIndex:
        """The resolver's index, kept in step with the App-KB.

        Built once; afterwards only the events since it was last brought up to
        date are applied, so a write costs the index what it changed. Rebuilt in
        full when a third of it is tombstones.
        """
        generation = self._generation
        if self._index is not None and self._index_generation == generation:
            return self._index
        with self._index_lock:
            seq = self.store.last_seq(APP_KB)
            if self._index is None or self._index.dead_share > 0.33:
                entries = appkb.list_entries(self.store, include_stale=False) if self.config.app_kb else []
                self._index = ResolverIndex.build(self.registry, entries)
            elif seq != self._index_seq and self.config.app_kb:
                for event in self.store.events(APP_KB, after=self._index_seq):
                    if event.seq > seq:
                        break
                    self._index.apply_event(event.type, event.payload)
            self._index_seq = seq
            self._index_generation = generation
            return self._index

    def resolve_app(self, name: str, *, device: str | None = None) -> Resolution:
        """Which package `name` means on `device`: resolved, ambiguous or unknown, with candidates."""
        if not isinstance(name, str):
            raise InvalidInput("name must be text")
        if device is not None and (not isinstance(device, str) or not device.strip()):
            raise InvalidInput("device must be a non-empty serial")
        installed = self.installed(device) if device else None
        return self.resolver_index().resolve(
            name,
            device=device,
            installed=set(installed) if installed is not None else None,
            deny=self.launch_denied,
        )

    def launch_denied(self, package: str) -> bool:
        """Whether the launch policy forbids auto-launching `package`."""
        return package in self._deny_exact or package.startswith(self._deny_prefix)

    # -- upkeep, import, export --------------------------------------------------------

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """Drop and rebuild every view from the event log."""
        with self._write_lock:
            counts = self.store.rebuild(progress=progress)
        self._changed(APP_KB, self.store.last_seq(APP_KB))
        return counts

    def import_taskwizard(self, directory: Path) -> dict[str, ImportReport]:
        """Import a TaskWizard `memory/` directory: its `app_kb/` and `experience/` (either may be absent,
        not both; a folder that is itself `app_kb/` or `experience/` works too)."""
        directory = Path(directory)
        parts: dict[str, Callable[[], ImportReport]] = {}
        if (directory / "app_kb").is_dir() or (directory / "kb.json").exists() or (directory / "events.jsonl").exists():
            parts["app_kb"] = lambda: taskwizard_appkb.import_appkb(self.store, directory)
        if (directory / "experience").is_dir():
            parts["experience"] = lambda: taskwizard_experience.import_experience(self.store, directory, self.redactor)
        if directory.name == "experience" and "app_kb" in parts:
            parts = {
                "experience": lambda: taskwizard_experience.import_experience(self.store, directory, self.redactor)
            }
        if not parts:
            raise NotFound(f"{directory} has neither app_kb/ nor experience/ of a TaskWizard memory")
        reports = {}
        with self._write_lock:
            for name, run in parts.items():
                reports[name] = run()
        if any(r.imported for r in reports.values()):
            self._changed(APP_KB, self.store.last_seq())
        return reports

    def export_taskwizard(self, directory: Path) -> dict[str, dict[str, int]]:
        """Write the App-KB and the episode archive as a TaskWizard `memory/` directory."""
        return {
            "app_kb": taskwizard_appkb.export_appkb(self.store, Path(directory)),
            "experience": taskwizard_experience.export_experience(self.store, Path(directory)),
        }

    def health(self) -> dict[str, object]:
        """Version, schema, where things are, counts (counted once per change)."""
        generation, counts = self._generation, self._counts
        if counts is None or counts[0] != generation:
            counts = (
                generation,
                {
                    "schema_version": self.store.schema_version,
                    "app_kb_entries": self.count_aliases(),
                    "events": self.store.count_events(),
                    "episodes": self.count_episodes(),
                    "devices": self.devices(),
                },
            )
            self._counts = counts
        return {
            "version": __version__,
            "pid": os.getpid(),
            "home": str(self.store.home),
            "database": str(self.store.path),
            "rag_mode": self.config.memory_rag,
            "registry_apps": len(self.registry),
            "active_runs": len(self.active_runs()),
            "archive_failures": self.archive_failures,
            **counts[1],
        }

    def health_is_cached(self) -> bool:
        """Whether `health()` would answer without touching the database."""
        return self._counts is not None and self._counts[0] == self._generation

    # -- checks ------------------------------------------------------------------------

    @staticmethod
    def _check_actor(actor: str) -> None:
        if actor not in ACTORS:
            raise InvalidInput(f"actor must be one of {', '.join(ACTORS)}")

    def _check_enabled(self) -> None:
        if not self.config.app_kb:
            raise InvalidInput("the App-KB is off (JIYI_APP_KB=off)")


KIND_NAMES = KINDS
