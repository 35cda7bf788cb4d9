"""`Memory`: the one facade. The console and every agent call these methods.

It owns the configuration, the store and the resolver. Writes are serialized
and acknowledged only after their transaction commits; listeners hear about
each committed change (the console refreshes its pages from that).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from recall.registry import AppRegistry, default_registry
from recall.resolve import Resolution, ResolverIndex
from service import __version__
from service.config import Config
from service.memory.desk import DeskMemory
from service.memory.recall_service import RecallService
from service.memory.runs import LaunchOutcome, RunsAndEpisodes, RunState
from store.appkb import history as appkb_history
from store.appkb import kb as appkb
from store.appkb.entry import KINDS, AppKbEntry, is_package_name, normalize_term
from store.appkb.history import HistoryItem, UndoResult
from store.appkb.implicit_alias import ImplicitAliasEvidence
from store.appkb.kb import ForgetAliasResult, LearnAliasResult, SyncReport
from store.appkb.projection import DOMAIN as APP_KB
from store.core.database import Store
from store.core.errors import InvalidInput, NotFound
from store.core.redact import Redactor, default_words
from store.episodes.archive import EpisodeFilter
from store.interchange import taskwizard_appkb, taskwizard_experience
from store.interchange.import_source import ImportReport
from store.projections import all_projections

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


class Memory(RunsAndEpisodes, DeskMemory):
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
        self._init_desk()

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
        present = set(installed) if installed is not None else None
        index = self.resolver_index()
        result = index.resolve(name, device=device, installed=present, deny=self.launch_denied)
        if result.state != "unknown" or result.candidates or result.not_installed or not result.normalized:
            return result
        if self.config.resolve_embedding == "off":
            return result
        # Nothing knows the name: ask the alias vectors (weak evidence: candidates, never `resolved`).
        try:
            route = self.recall.alias_route(self._generation)
        except Exception as exc:  # the model or the index is unusable: the fast answer stands
            log.warning("the embedding route is unavailable: %s", exc)
            return result
        return index.resolve(name, device=device, installed=present, deny=self.launch_denied, embedding=route)

    def launch_denied(self, package: str) -> bool:
        """Whether the launch policy forbids auto-launching `package`."""
        return package in self._deny_exact or package.startswith(self._deny_prefix)

    # -- upkeep, import, export --------------------------------------------------------

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """Drop and rebuild every view from the event log, then write back any missing bundle file."""
        with self._write_lock:
            counts = self.store.rebuild(progress=progress)
            restored = self.restore_bundle_files()
        if restored:
            counts["bundle_files_restored"] = restored
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
                    "desk": self.desk_counts(),
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
