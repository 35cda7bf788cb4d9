"""The App-KB as a service of `Memory`: aliases, inventories, launches and name resolution.

Reads are cached per change-bus generation; writes are serialized by the
shared write lock and published on the bus after they commit.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from recall.alias_vectors import worth_embedding
from recall.pinyin_keys import remember_written
from recall.resolve import ResolverIndex
from recall.verdict import Resolution
from service.memory.alias_outcome import LearnAliasOutcome
from service.memory.episode_recall import EpisodeRecallService
from service.memory.parts import Parts, check_actor
from service.ops import appkb as appkb_ops
from service.ops.perform import converts, lists, pages, performs, prepares, prepares_converted
from service.wire.appkb import SyncReport
from store.appkb import alias_correction
from store.appkb import history as appkb_history
from store.appkb import kb as appkb
from store.appkb.entry import ALIAS_KINDS, AppKbEntry, is_package_name, normalize_term, parse_assignment
from store.appkb.implicit_alias import ImplicitAliasEvidence
from store.appkb.projection import DOMAIN as APP_KB
from store.appkb.results import ForgetAliasResult, HistoryItem, UndoResult
from store.core.errors import Conflict, InvalidInput
from store.core.names import clean_name

log = logging.getLogger("jiyi.service.memory")

_LEARNED_NOTE = (
    "stored as a learned alias (an agent's): below the device's own labels; the person's user aliases come from "
    "the console or jiyi alias learn"
)


@dataclass
class LaunchOutcome:
    """What a confirmed launch taught the App-KB."""

    successes: int = 0
    learned: list[AppKbEntry] = field(default_factory=list)


class AppKbService:
    """The App-KB's reads, writes and the resolver kept in step with it."""

    def __init__(self, parts: Parts, recall: EpisodeRecallService) -> None:
        self.parts = parts
        self.config, self.store, self.redactor = parts.config, parts.store, parts.redactor
        self.registry = parts.registry
        self.recall = recall
        self.evidence = ImplicitAliasEvidence()
        self._index_lock = threading.Lock()
        self._index: ResolverIndex | None = None
        self._index_seq = -1
        self._current: tuple[int, ResolverIndex, int] | None = None  # (bus generation, index, App-KB seq)
        self._installed: dict[str, tuple[int, dict[str, str] | None]] = {}
        deny = tuple(parts.config.launch_deny)
        self._deny_exact = frozenset(p for p in deny if not p.endswith("."))
        self._deny_prefix = tuple(p for p in deny if p.endswith("."))

    # -- App-KB reads ------------------------------------------------------------------

    @pages(appkb_ops.LIST, row=appkb_ops.AliasEntry)
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
        after: Sequence[str] | None = None,
    ) -> list[AppKbEntry]:
        """App-KB entries, filtered and paged in the store ("reference" or "trust" order); `after` (the last
        entry's storage key) pages by key, as `store.appkb.kb.list_entries` says.

        A user or learned alias is stored with itself as its label; here it carries the app's
        own label instead (what a device's inventory shows, else the registry's), so that
        外卖 reads 外卖 → 美团, not 外卖 → 外卖.
        """
        entries = appkb.list_entries(
            self.store,
            device=device,
            kind=kind,
            include_stale=include_stale,
            text=text,
            limit=limit,
            offset=offset,
            order=order,
            after=None if after is None else (after[0], after[1], after[2], after[3]),
        )
        return self._with_app_labels(entries)

    def _with_app_labels(self, entries: list[AppKbEntry]) -> list[AppKbEntry]:
        named = {e.package for e in entries if e.kind in ("user", "learned") and e.label == e.term}
        if not named:
            return entries
        labels = appkb.device_labels(self.store, sorted(named))
        for package in named:
            labels.setdefault(package, self.parts.registry.label_for(package) or "")
        return [
            replace(e, label=labels[e.package] or e.label) if e.kind in ("user", "learned") and e.label == e.term else e
            for e in entries
        ]

    def count_aliases(self) -> int:
        return appkb.count_entries(self.store)

    def devices(self) -> list[str]:
        return appkb.devices(self.store)

    @performs(appkb_ops.DEVICES)
    def inventory(self) -> appkb_ops.Devices:
        """The devices that synced their apps, and how many entries the App-KB holds."""
        return appkb_ops.Devices(devices=self.devices(), aliases=self.count_aliases())

    def installed(self, device: str) -> dict[str, str] | None:
        """Package → label installed on `device` (None when it never synced); cached per generation."""
        generation = self.parts.generation
        cached = self._installed.get(device)
        if cached is not None and cached[0] == generation:
            return cached[1]
        value = appkb.installed(self.store, device)
        self._installed[device] = (generation, value)
        return value

    @lists(appkb_ops.HISTORY, row=appkb_ops.HistoryRow)
    def alias_history(self, name: str, *, limit: int = 500) -> list[HistoryItem]:
        """Every App-KB change about `name`, newest first."""
        return appkb_history.history(self.store, name, limit=limit)

    # -- App-KB writes -----------------------------------------------------------------

    def learn_alias(self, name: str, package: str, *, actor: str = "user") -> LearnAliasOutcome:
        """`名称=包名`. The person's (actor `user`): a global user alias, the highest trust, which may take the place
        of a device's label (the outcome says so). An agent's: a learned alias, below the device's own list, refused
        (`Conflict`) for a name that already names another app. Warns (but saves) when not installed."""
        return self.prepare_learn_alias(name, package, actor=actor)()

    @prepares_converted(appkb_ops.LEARN)
    def prepare_learn_alias(
        self, name: str | None, package: str | None, *, assignment: str | None = None, actor: str = "user"
    ) -> Callable[[], LearnAliasOutcome]:
        """`learn_alias` in two steps: checked now (refused here when it must be), and the returned call
        writes it. A host prepares writes while another group of writes holds the write lock. `assignment`
        (`名称=包名`) gives the name and the package instead."""
        if assignment is not None:
            name, package = parse_assignment(assignment)
        if name is None or package is None:
            raise InvalidInput("give a name and a package, or an assignment 名称=包名")
        check_actor(actor)
        self._check_enabled()
        self._refuse_lookalike(name, package)
        person = actor == "user"
        if not person:
            appkb.check_package(package)  # what is malformed is said first: `invalid_params` before a conflict
            appkb.check_name(name, self.redactor)
            self._refuse_named_elsewhere(name, package)

        def write() -> LearnAliasOutcome:
            with self.parts.writes:
                if person:
                    result = appkb.learn_alias(self.store, name, package, actor=actor, redactor=self.redactor)
                else:
                    result = appkb.teach_alias(self.store, name, package, actor=actor, redactor=self.redactor)
            self.parts.changed(APP_KB, result.txn)
            present = appkb.devices_with(self.store, result.entry.package)
            missing = [d for d in self.devices() if d not in present] if not present else []
            notes = self._overrides(result.entry.term, package) if person else [_LEARNED_NOTE]
            return LearnAliasOutcome(result, present, missing, notes)

        return write

    def _elsewhere(self, name: str, package: str) -> list[str]:
        """How `name` already names another app than `package`: a device's label, the registry's name or the
        person's alias, each said once ("微信 is com.tencent.mm's label on phone1")."""
        if not isinstance(name, str) or not isinstance(package, str):
            return []
        said: dict[str, None] = {}
        for record in self.resolver_index().names_elsewhere(clean_name(name), package.strip()):
            if record.source == "device":
                where = f"{record.package}'s label on {record.scope.removeprefix('device:')}"
            elif record.source == "user":
                where = f"the person's alias for {record.package}"
            else:
                where = f"the app registry's name for {record.package}"
            said.setdefault(f"{record.text!r} is {where}", None)
        return list(said)

    def _refuse_named_elsewhere(self, name: object, package: object) -> None:
        """An agent's alias never takes a name that already names another app: refused, naming it."""
        if not isinstance(name, str) or not isinstance(package, str):
            return
        elsewhere = self._elsewhere(name, package)
        if elsewhere:
            raise Conflict(
                f"name {clean_name(name)!r} already names another app ({'; '.join(elsewhere)}); an agent's alias "
                "never overrides it, so nothing was stored. Only the person sets a user alias over it (the console "
                "or jiyi alias learn)",
                {"named": elsewhere},
            )

    def _overrides(self, term: str, package: str) -> list[str]:
        """What the person's user alias takes the place of (said in the outcome, never silently)."""
        return [f"{said}; this user alias takes its place" for said in self._elsewhere(term, package)]

    def _refuse_lookalike(self, name: object, package: object) -> None:
        """Refuse a name drawn like a known name of another app (`WеChat` with a Cyrillic е for a package
        that is not WeChat's): it would take over what the owner reads as the other name."""
        if not isinstance(name, str):
            return
        other = self.resolver_index().lookalike_of(name)
        if other is not None and other.package != package:
            raise InvalidInput(
                f"name {name!r} looks like the known name {other.text!r} ({other.package}) but is spelled with "
                "letters of another script; it is not stored"
            )

    def forget_alias(self, name: str, *, actor: str = "user") -> ForgetAliasResult:
        """Remove `name`'s global user and learned aliases; device entries stay."""
        return self.prepare_forget_alias(name, actor=actor)()

    @prepares_converted(appkb_ops.FORGET)
    def prepare_forget_alias(self, name: str, *, actor: str = "user") -> Callable[[], ForgetAliasResult]:
        """`forget_alias` in two steps, as `prepare_learn_alias`. The person's (actor `user`) removes the name's
        user and learned aliases; an agent's only learned ones, and is `Forbidden` where the person's alias is."""
        check_actor(actor)
        self._check_enabled()
        kinds = ALIAS_KINDS if actor == "user" else frozenset({"learned"})

        def write() -> ForgetAliasResult:
            with self.parts.writes:
                result = appkb.forget_alias(self.store, name, actor=actor, redactor=self.redactor, kinds=kinds)
            self.parts.changed(APP_KB, result.txn)
            return result

        return write

    @converts(appkb_ops.UNDO, fixed={"actor": "user"})
    def undo_change(self, change: int, *, actor: str = "user") -> UndoResult:
        """Revert App-KB change `change` by appending reverting events (undoing an undo redoes)."""
        check_actor(actor)
        with self.parts.writes:
            result = appkb_history.undo(self.store, change, actor=actor)
        self.parts.changed(APP_KB, result.txn)
        return result

    def sync_inventory(self, device: str, apps: Sequence[tuple[str, str]], *, actor: str = "agent") -> SyncReport:
        """The device's installed apps (package, label): new ones added, missing ones marked stale."""
        return self.prepare_sync_inventory(device, apps, actor=actor)()

    @prepares(appkb_ops.SYNC)
    def prepare_sync_inventory(
        self, device: str, apps: Sequence[tuple[str, str]], *, actor: str = "agent"
    ) -> Callable[[], SyncReport]:
        """`sync_inventory` in two steps, as `prepare_learn_alias`."""
        check_actor(actor)
        self._check_enabled()

        def write() -> SyncReport:
            with self.parts.writes:
                report = appkb.sync_inventory(self.store, device, apps, actor=actor, redactor=self.redactor)
            if report.added or report.updated or report.staled:
                self.parts.changed(APP_KB)
            return SyncReport(**dataclasses.asdict(report))  # the wire's

        return write

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
        check_actor(actor)
        outcome = LaunchOutcome()
        if not self.config.app_kb or not is_package_name(package) or not isinstance(name, str) or not name.strip():
            return outcome
        with self.parts.writes:
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
            self.parts.changed(APP_KB)
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
        index = self.resolver_index()
        other = index.lookalike_of(name)
        if other is not None and other.package != package:
            return None  # a look-alike of another app's name is never learned
        if index.names_elsewhere(name, package):
            return None  # nor a name another app bears (its label, the registry's name, the person's alias)
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
        return self._resolver()[0]

    def _resolver(self) -> tuple[ResolverIndex, int]:
        """The resolver's index and the App-KB event it is up to date with."""
        generation = self.parts.generation
        current = self._current  # one tuple, so generation, index and seq are read together
        if current is not None and current[0] == generation:
            return current[1], current[2]
        with self._index_lock:
            seq = self.store.last_seq(APP_KB)
            if self._index is None or self._index.dead_share > 0.33:
                entries = appkb.list_entries(self.store, include_stale=False) if self.config.app_kb else []
                if entries:  # the view's pinyin of their names: no pypinyin to load for them
                    remember_written(appkb.name_keys(self.store))
                self._index = ResolverIndex.build(self.registry, entries)
            elif seq != self._index_seq and self.config.app_kb:
                for event in self.store.events(APP_KB, after=self._index_seq):
                    if event.seq > seq:
                        break
                    self._index.apply_event(event.type, event.payload)
            self._index_seq = seq
            self._current = (generation, self._index, seq)
            return self._index, seq

    def resolve_is_warm(self) -> bool:
        """Whether `resolve_app` would answer from memory: the index is current and, when unknown names fall
        back to the embedding route, that route is loaded and reconciled (a new name then costs one query
        embedding, cached afterwards). The socket answers such a resolve on its own thread, with no worker."""
        current = self._current
        if current is None or current[0] != self.parts.generation:
            return False
        return self.config.resolve_embedding == "off" or self.recall.alias_route_is_ready(current[2])

    @converts(appkb_ops.RESOLVE)
    def resolve_app(self, name: str, *, device: str | None = None) -> Resolution:
        """Which package `name` means on `device`: resolved, ambiguous or unknown, with candidates."""
        if not isinstance(name, str):
            raise InvalidInput("name must be text")
        if device is not None and (not isinstance(device, str) or not device.strip()):
            raise InvalidInput("device must be a non-empty serial")
        installed = self.installed(device) if device else None
        present = set(installed) if installed is not None else None
        index, appkb_seq = self._resolver()
        result = index.resolve(name, device=device, installed=present, deny=self.launch_denied)
        if result.state != "unknown" or result.candidates or result.not_installed or not result.normalized:
            return result
        if self.config.resolve_embedding == "off" or not worth_embedding(result.normalized):
            return result
        # Nothing knows the name: ask the alias vectors (weak evidence: candidates, never `resolved`).
        try:
            route = self.recall.alias_route(appkb_seq)
        except Exception as exc:  # the model or the index is unusable: the fast answer stands
            log.warning("the embedding route is unavailable: %s", exc)
            return result
        return index.resolve(name, device=device, installed=present, deny=self.launch_denied, embedding=route)

    def launch_denied(self, package: str) -> bool:
        """Whether the launch policy forbids auto-launching `package`."""
        return package in self._deny_exact or package.startswith(self._deny_prefix)

    def correct_aliases(self, *, dry_run: bool = False) -> list[dict[str, Any]]:
        """Find wrong-launch signatures in the evidence and overwrite the wrong learned aliases (or preview it)."""
        with self.parts.writes:
            corrections = alias_correction.correct(self.store, dry_run=dry_run)
        if not dry_run and any(c.action == "overwrite" for c in corrections):
            self.parts.changed(APP_KB)
        return [c.to_dict() for c in corrections]

    def _check_enabled(self) -> None:
        if not self.config.app_kb:
            raise InvalidInput("the App-KB is off (JIYI_APP_KB=off)")
