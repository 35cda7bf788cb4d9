"""`Memory`: the one facade. The console and every agent reach memory through it.

It opens the store and composes one service per domain, as Anki's
`Collection` composes its managers: `appkb`, `runs`, `lessons`, `recall`,
`desk`, `maintenance`, `facts`, `skills`, `bundles`, `learning`, `context`,
`dream`. They share one `Parts` (configuration, store, redactor, write lock)
and one change bus. Writes are serialized and
acknowledged only after their transaction commits; listeners hear about each
committed change (the console refreshes its pages from that).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

from recall.registry import AppRegistry, default_registry
from recall.verdict import Resolution
from service import __version__
from service.config import Config
from service.memory.alias_outcome import LearnAliasOutcome
from service.memory.appkb import AppKbService, LaunchOutcome
from service.memory.bundles import BundleService
from service.memory.bus import Listener
from service.memory.calibration import CalibrationService
from service.memory.context import ContextService
from service.memory.desk import DeskService
from service.memory.desk_interchange import DeskInterchange
from service.memory.doctor import Check, run_checks
from service.memory.domain import Domain
from service.memory.dream import DreamService
from service.memory.episode_recall import EpisodeRecallService
from service.memory.facts import FactService
from service.memory.ingest import IngestService
from service.memory.jobs import Jobs
from service.memory.learning import LearningService
from service.memory.lessons import LessonService
from service.memory.maintenance import MaintenanceService
from service.memory.parts import Parts
from service.memory.runs import RunService
from service.memory.skills import SkillService
from service.ops import upkeep as upkeep_ops
from service.ops.perform import performs
from service.wire.results import Health, Overview, StoreCounts
from store.appkb.entry import AppKbEntry
from store.appkb.results import HistoryItem, UndoResult
from store.core.acknowledged import LossPolicy
from store.core.budget import MB, HomeBudget, HomeSize
from store.core.database import Store
from store.core.errors import EnvironmentProblem, InvalidInput, NotFound, StorageProblem, os_problem
from store.core.hosts import register_host
from store.core.redaction.redactor import Redactor, default_words
from store.desk.projection import DOMAIN as DESK
from store.episodes import recall_stats
from store.episodes.archive import episode_key
from store.episodes.episode_filter import EpisodeFilter
from store.interchange import taskwizard_appkb, taskwizard_experience, taskwizard_lessons, taskwizard_recall
from store.interchange.import_report import ImportReport
from store.interchange.import_source import export_root, refuse_links, replaced_logs
from store.interchange.staged_import import StagedTo
from store.projections import all_projections

_IMPORTED_INTO = {
    "app_kb": Domain.APP_KB,
    "experience": Domain.EXPERIENCE,
    "recall_stats": Domain.RECALL,
    "lessons": Domain.LESSONS,
}
"""The domain each part of a TaskWizard import writes."""
TASKWIZARD_LOGS = ("app_kb", "experience", "lessons")
"""The parts of a TaskWizard import read from a growing log (`--replaces` names where they were)."""

log = logging.getLogger("jiyi.service.memory")

# What the console needs to name the facade's results (it may not import `store` itself).
__all__ = [
    "AppKbEntry",
    "EpisodeFilter",
    "HistoryItem",
    "HomeSize",
    "LaunchOutcome",
    "LearnAliasOutcome",
    "Memory",
    "Resolution",
    "UndoResult",
    "episode_key",
]

OVERVIEW_DAYS = 30  # the window of the overview's recall quality


class Memory:
    """Everything Jiyi remembers, behind one object. Open with `Memory.open`."""

    def __init__(self, config: Config, store: Store, registry: AppRegistry) -> None:
        store.budget = HomeBudget(
            config.max_home_mb * MB,
            # A server's database is not in the home: only the bundle mirrors count then.
            files=[store.path, *(Path(f"{store.path}{suffix}") for suffix in ("-wal", "-shm"))] if store.path else [],
            folders=[config.bundles_path],
        )
        self.parts = Parts(config, store, registry, Redactor([*default_words(), *config.sensitive_words]))
        self.recall = EpisodeRecallService(self.parts)
        self.calibration = CalibrationService(self.parts, self.recall)
        self.recall.thresholds = self.calibration
        self.appkb = AppKbService(self.parts, self.recall)
        self.dream = DreamService(self.parts, self.recall, self.calibration)
        self.runs = RunService(self.parts, self.appkb, self.recall, self.dream, self.calibration)
        self.ingest = IngestService(self.parts, self.recall)
        self.lessons = LessonService(self.parts)
        self.bundles = BundleService(self.parts)
        self.desk = DeskService(
            self.parts, self.bundles, lambda: (self.recall.engine.index, self.recall.engine.embedder)
        )
        self.maintenance = MaintenanceService(self.parts)
        self.facts = FactService(self.parts)
        self.skills = SkillService(self.parts)
        self.recall.after_rebuild.append(self.desk.index.rebuild)
        self.learning = LearningService(self.parts)
        # the desk memory in and out (open formats)
        self.interchange = DeskInterchange(self.parts, self.desk, self.bundles)
        self.runs.finished.append(self.learning.scan_after_run)
        self.context = ContextService(self.parts, self.desk, self.bundles, self.learning)
        self.jobs = Jobs()  # the rebuilds clients start, follow and cancel (socket: job.*)
        self._taskwizard_import = threading.Lock()
        self._counts: tuple[int, StoreCounts] | None = None
        # On a shared store, other hosts' commits reach the bus too (the console refreshes, caches drop).
        self._feed = store.change_feed(self._remote_change, self._everything_changed)
        if store.target.shared:
            register_host(store.db, self.host_id, self._host_record())
        # Before any put judges a file "edited outside": the files catch up with the log. On a shared store
        # (listening already) what other hosts put while this host was stopped, the rest comes by notice; on
        # any store a put whose file a kill -9 or a full disk kept from it (left older, or missing). A read-only
        # home's files stay as they are (nothing can be written there).
        if store.read_only is None and store.loss is None:  # a store opened to report a loss takes no writes
            self.bundles.catch_up_mirror()
            # An import a stop cut short while it was published is finished before anything else is written;
            # one that cannot be now (the home over its size budget, a full disk) waits, said in the log.
            try:
                self.interchange.resume()
            except EnvironmentProblem as exc:
                log.warning("an import stopped half-way could not be finished yet: %s", exc)

    @property
    def host_id(self) -> str:
        """This host and home, as the shared store's host list names it."""
        return f"{socket.gethostname()}:{self.store.home}"

    def _host_record(self) -> dict[str, str]:
        return {
            "chroma_url": self.config.chroma_url,
            "embed_model": self.config.embed_model,
            "version": __version__,
            "database": self.store.location,
        }

    @property
    def feed_backend_pid(self) -> int | None:
        """The server process this host's change notices come through (None: not shared, or not listening)."""
        return self._feed.backend_pid if self._feed is not None else None

    def doctor(self) -> list[Check]:
        """Whether this host can serve its memory, and whether the hosts sharing it agree (`jiyi doctor`)."""
        checks = run_checks(self.parts, self.recall.index_problem())
        desk = self.desk.index.state()
        detail = f"{desk['index_lag']} items not yet embedded" + (f"; {desk['problem']}" if desk["problem"] else "")
        checks.append(Check("desk index", desk["problem"] is None, detail))
        return checks

    def _remote_change(self, domain: str, seq: int, types: frozenset[str]) -> None:
        """Another host committed: this host's files follow (bundle mirrors), then its listeners hear of it."""
        if domain == DESK and "bundle_document_put" in types:
            self.bundles.mirror_remote(seq)
        self.parts.changed(domain, seq)

    def _everything_changed(self) -> None:
        """Change notices may have been missed (the feed's connection dropped): catch up, tell every domain."""
        try:
            self.bundles.catch_up_mirror()
        except StorageProblem as exc:  # the server went away again: the feed reconnects, and this runs again then
            log.warning("the bundle mirror could not catch up with the database: %s", exc)
        for domain in self.store.domains:
            self.parts.changed(domain)

    @classmethod
    def open(
        cls,
        config: Config,
        registry: AppRegistry | None = None,
        *,
        new_database: bool = False,
        loss: LossPolicy = "refuse",
    ) -> Memory:
        """Open the home named by `config` (validated already) and its store (`new_database`, and what to do
        when the database holds less than the home acknowledged, `loss`: see `Store.open`)."""
        store = Store.open(
            config.home_path,
            all_projections(),
            database_url=config.database_url,
            password=config.database_password(),
            new_database=new_database,
            loss=loss,
        )
        return cls(config, store, registry or default_registry())

    @property
    def config(self) -> Config:
        return self.parts.config

    @property
    def store(self) -> Store:
        return self.parts.store

    @property
    def registry(self) -> AppRegistry:
        return self.parts.registry

    @property
    def redactor(self) -> Redactor:
        return self.parts.redactor

    @property
    def home(self) -> Path:
        return self.store.home

    @property
    def schema_version(self) -> int:
        return self.store.schema_version

    @property
    def read_only(self) -> str | None:
        return self.store.read_only

    @property
    def attached_to(self) -> Path | None:
        """None: this memory is opened here, not reached through a service's socket."""
        return None

    def close(self) -> None:
        """Stop the running job, shut learning down (admission closed, open leases cancelled and persisted),
        then close the store."""
        self.jobs.close()
        self.desk.index.stop()
        if self._feed is not None:
            self._feed.stop()
            self._feed = None
        self.bundles.mirror.stop_retrying()
        if not self.store.db.is_closed():
            self.learning.shutdown()
            self.bundles.close()
        self.calibration.close()
        self.recall.close()
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(domain, txn)` after every committed change."""
        self.parts.add_listener(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop calling `listener` (a window that closes while the memory lives on)."""
        self.parts.remove_listener(listener)

    # -- the whole home ------------------------------------------------------------------

    def health(self) -> Health:
        """Version, schema, where things are, counts (counted once per change)."""
        generation, counts = self.parts.generation, self._counts
        if counts is None or counts[0] != generation:
            counts = (
                generation,
                {
                    "schema_version": self.store.schema_version,
                    "app_kb_entries": self.appkb.count_aliases(),
                    "events": self.store.count_events(),
                    "episodes": self.runs.count_episodes(),
                    "devices": self.appkb.devices(),
                    "desk": self.desk.desk_counts(),
                    "home_size": self.home_size(),
                },
            )
            self._counts = counts
        return {
            "version": __version__,
            "pid": os.getpid(),
            "home": str(self.store.home),
            "database": self.store.location,
            "rag_mode": self.config.memory_rag,
            "registry_apps": len(self.registry),
            "active_runs": len(self.runs.active_runs()),
            "abandoned_runs": self.runs.abandoned_runs,
            "archive_failures": self.runs.archive_failures,
            "writes": self.store.write_stats.snapshot(),
            "database_problem": self.store.database_problem(),
            "read_only": self.store.read_only,
            "vector_index_problem": self.recall.index_problem(),
            **counts[1],
            # the desk index drains without a change of generation: its lag as last counted
            "desk": {**counts[1]["desk"], "index_lag": self.desk.index.known_lag or 0},
        }

    def home_size(self) -> HomeSize:
        """How many bytes the home's database and bundle files take, and its budget (`JIYI_MAX_HOME_MB`).

        An estimate, measured again every so many writes or seconds; past the
        budget every write is refused (`HomeOverBudget`) and reads go on.
        """
        assert self.store.budget is not None
        return self.store.budget.size()

    @property
    def generation(self) -> int:
        """How many changes this memory has committed (and heard of, from other hosts of a shared store):
        what a cached read compares, and what change notices carry."""
        return self.parts.bus.generation

    def health_is_cached(self) -> bool:
        """Whether `health()` would answer without touching the database."""
        return self._counts is not None and self._counts[0] == self.parts.generation

    @performs(upkeep_ops.OVERVIEW)
    def overview(self) -> Overview:
        """What the console's overview shows: health, the vector index, recall quality over the last
        `OVERVIEW_DAYS`, the last dream, recent errors.

        Never waits for the vector index (Chroma, the model): until it is open, `index` says it is opening
        (`EpisodeRecallService.state`), and the console asks again. Call it off the GUI thread all the same.
        """
        health = self.health()
        reports = self.dream.reports(1)
        since = time.time() - OVERVIEW_DAYS * 86400
        return {
            **health,
            "embedder": self.recall.embedder_id,
            "index": self.recall.state(wait=False),
            "desk_index": self.desk.index.state(),
            "recall_quality": {"days": OVERVIEW_DAYS, **recall_stats.statistics(self.store, since, None)},
            # each device's threshold, where it came from and when (the curves are on the recall page)
            "recall_calibration": [c.listed() for c in self.calibration.current()],
            "last_dream": reports[0] if reports else None,
            "errors": {"archive_failures": self.runs.archive_failures, "recall": dict(self.recall.errors)},
        }

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """Drop and rebuild every view from the event log, then write back any missing bundle file."""
        with self.parts.writes:
            counts = self.store.rebuild(progress=progress)
            mirrored = self.bundles.restore_bundle_files()
        if mirrored.written:
            counts["bundle_files_restored"] = mirrored.written
        if mirrored.failed:
            counts["bundle_files_failed"] = mirrored.failed
        if self.desk.index.opened:  # vectors of items the rebuilt views no longer hold (a restored backup)
            counts["desk_vectors_removed"] = self.desk.index.sweep()
        refused = self.desk.desk_counts()["bundle_events_refused"] + mirrored.refused
        if refused:
            counts["bundle_events_refused"] = refused  # names leading outside the bundles folder: never written
        for domain in self.store.domains:  # every view was rebuilt: every page reloads
            self.parts.changed(domain)
        return counts

    # -- TaskWizard interchange ----------------------------------------------------------

    def import_taskwizard(
        self, directory: Path, progress: Callable[[int, int], None] | None = None, replaces: Path | None = None
    ) -> dict[str, ImportReport]:
        """Import a TaskWizard `memory/` directory: its `app_kb/`, `experience/`, `experience/recall_stats.json`
        (or `recall_stats.json`, where older directories have it) and `lessons/` (any may be absent, not all;
        a folder that is itself `app_kb/` or `experience/` works too).

        Importing again adds only what TaskWizard appended since (docs/cli.md). Imported runs are indexed
        for recall (in bulk; `progress` hears how many of them). A directory moved and compacted since it was
        imported is known by its lineage (the report says what it was taken for and why); `replaces` names
        the folder it was imported from outright (`jiyi import taskwizard DIR --replaces OLD`).
        """
        directory = Path(directory)
        if not directory.exists():
            raise NotFound(f"{directory} does not exist: give TaskWizard's memory/ folder")
        if not directory.is_dir():
            raise InvalidInput(f"{directory} is not a folder: give TaskWizard's memory/ folder")
        # Every link is refused before anything is read, so a refused import has imported nothing.
        inside = ["app_kb/events.jsonl", "app_kb/kb.json", "experience/events.jsonl", "experience/episodes.json"]
        inside += ["lessons/events.jsonl", "lessons/lessons.json", "lessons/distill_state.json"]
        refuse_links(*(directory / name for name in ("app_kb", "experience", "lessons", taskwizard_recall.FILE)))
        refuse_links(*(directory / name for name in [*inside, f"experience/{taskwizard_recall.FILE}"]))
        parts: dict[str, Callable[[], ImportReport]] = {}
        redactor = self.parts.redactor
        self.store.check_writable()  # a read-only home is said so before anything is read
        old = replaced_logs(Path(replaces), TASKWIZARD_LOGS) if replaces is not None else {}
        # Each log is prepared without the write lock and written in short slices (`staged_import`): other
        # clients' writes go on meanwhile, and a part is in the home whole or not at all.
        staged = StagedTo(self.interchange.staging, self.parts.writes, self.interchange.committed)
        if (directory / "app_kb").is_dir() or (directory / "kb.json").exists() or (directory / "events.jsonl").exists():
            parts["app_kb"] = lambda: taskwizard_appkb.import_appkb(
                self.store, directory, redactor=redactor, replaces=old.get("app_kb"), staged=staged
            )
        if (directory / "experience").is_dir():
            parts["experience"] = lambda: taskwizard_experience.import_experience(
                self.store, directory, replaces=old.get("experience"), staged=staged
            )
        if directory.name == "experience" and "app_kb" in parts:
            parts = {
                "experience": lambda: taskwizard_experience.import_experience(
                    self.store, directory, replaces=old.get("experience"), staged=staged
                )
            }
        if taskwizard_recall.stats_path(directory) is not None:
            parts["recall_stats"] = lambda: taskwizard_recall.import_recall_stats(self.store, directory)
        if (directory / "lessons" / "events.jsonl").exists() or (directory / "lessons").is_symlink():
            parts["lessons"] = lambda: taskwizard_lessons.import_lessons(
                self.store, directory, redactor=redactor, replaces=old.get("lessons"), staged=staged
            )
        if not parts:
            raise NotFound(f"{directory} has none of app_kb/, experience/, recall_stats.json, lessons/ of TaskWizard")
        reports = {}
        # One TaskWizard import at a time (a job and the waiting method alike): two would read the same lines
        # as new. The scorecard is one event, written under the lock as any write.
        with self._taskwizard_import:
            self.interchange.resume()
            for name, run in parts.items():
                if name == "recall_stats":
                    with self.parts.writes:
                        reports[name] = run()
                else:
                    reports[name] = run()
        for name, report in reports.items():
            if report.imported or report.removed:  # a rewrite may only take entries away
                self.parts.changed(_IMPORTED_INTO[name])
        if "experience" in reports:
            # Recall finds imported runs at once: their goals are embedded and counted in bulk (this also
            # catches up runs an earlier import left unindexed), 250 at a time: a page's vectors go to Chroma
            # in one upsert, which holds the interpreter for about a second a thousand (measured), and its term
            # counts are one write transaction: short enough for other clients' writes to go on between two.
            self.recall.index_missing(progress, batch=250)
        return reports

    @performs(upkeep_ops.EXPORT)
    def export_taskwizard(self, directory: Path | str) -> dict[str, dict[str, int]]:
        """Write the App-KB, the episode archive, the recall scorecard and the lessons as a TaskWizard
        `memory/` directory.

        Raises `InvalidInput` when `directory` is a file or a link, and `EnvironmentProblem`
        when it cannot be written (no permission, a full disk).
        """
        root = export_root(Path(directory))
        try:
            return {
                "app_kb": taskwizard_appkb.export_appkb(self.store, root),
                "experience": taskwizard_experience.export_experience(self.store, root),
                "recall_stats": taskwizard_recall.export_recall_stats(self.store, root),
                "lessons": taskwizard_lessons.export_lessons(self.store, root),
            }
        except OSError as exc:
            raise os_problem(exc, f"the export folder {root}") from None


PARTS: dict[str, type] = {
    "": Memory,
    "appkb": AppKbService,
    "runs": RunService,
    "recall": EpisodeRecallService,
    "lessons": LessonService,
    "desk": DeskService,
    "maintenance": MaintenanceService,
    "facts": FactService,
    "skills": SkillService,
    "bundles": BundleService,
    "context": ContextService,
    "learning": LearningService,
    "dream": DreamService,
    "jobs": Jobs,
}
"""The facade's parts by their attribute of `Memory` ("": the facade itself): the classes whose methods
perform the socket's operations (`service/ops/perform.py`)."""
