"""Episode recall as the service runs it: the phone agent's shadow recall of past runs (`recall.*` on the
wire) over the embedder, the vector index and the mention index (`recall/episode_recall.py`). The desk's
`memory.recall` is another thing: `DeskService.memory_recall` (`desk.py`).

Everything heavy loads lazily on first use (never at start-up, never on the
GUI thread). The mention index follows the App-KB by generation; the alias
route by the App-KB's last event, so writes elsewhere never make it reconcile
the collection again, and its query vectors outlive it.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from recall.alias_vectors import AliasRoute, NameOf, QueryVectors, alias_documents
from recall.embedders import Embedder, get_embedder
from recall.episode_recall import EPISODE, EpisodeRecall, MentionIndex, RecallResult, episode_document, outcome_apps
from recall.remote_embedder import RemoteEmbedder, read_key, remote_id
from recall.shipped_aliases import with_shipped_vectors
from recall.term_ownership import goal_terms
from recall.vectors import Document, VectorIndex
from service.memory.parts import Parts
from service.memory.progress import phased
from service.ops import episode_recall as recall_ops
from service.ops.perform import holds, lists, performs
from service.wire.episodes import DailyRecallPoint
from service.wire.recall import CalibrationCurve, RecallAnswer, RunTrace
from service.wire.results import PackageStatistics, RecallStatistics
from service.wire.row import all_of
from service.wire.row import row as typed_row
from service.wire.row import rows as typed_rows
from store.appkb import kb as appkb
from store.core.errors import InvalidInput
from store.core.home.atomic_file import write_text
from store.episodes import archive as episodes
from store.episodes import recall_stats, recall_terms
from store.episodes.episode_filter import EpisodeFilter
from store.episodes.run_event import check_run_id

log = logging.getLogger("jiyi.service.memory")
Progress = Callable[[int, int], None]


class Thresholds(Protocol):
    """Where recall gets each device's threshold (`service.memory.calibration.CalibrationService`)."""

    def threshold_for(self, device: str) -> float:
        """The threshold recall uses on `device` now."""
        ...

    def current(self, device: str | None = None) -> list[CalibrationCurve]:
        """Each device's calibration as kept (one device's, when named)."""
        ...


class EpisodeRecallService:
    """Shadow recall, episode indexing and index upkeep for one home."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.config, self.store, self.registry = parts.config, parts.store, parts.registry
        self._lock = threading.Lock()
        self._engine: EpisodeRecall | None = None
        self._opener: threading.Thread | None = None  # opening the index for `state(wait=False)`
        self._opener_failed = False
        self._opener_lock = threading.Lock()
        self._mentions: tuple[int, MentionIndex] | None = None
        self._installed: dict[str, tuple[int, frozenset[str] | None]] = {}
        self._aliases: tuple[int, AliasRoute] | None = None
        self._aliases_lock = threading.Lock()
        self._query_vectors: QueryVectors | None = None
        self._vectors_path = str(self.store.home / "vectors" / "chroma.sqlite3")
        self._indexable: tuple[int, int] | None = None  # (generation, count) for `index_problem`, asked per `health`
        # Each device's calibrated threshold (`Memory` plugs in its `CalibrationService`); None: the embedder's own.
        self.thresholds: Thresholds | None = None
        self._degraded = 0
        self._degraded_lock = threading.Lock()
        # Whether the home's own vector index was gone when the home opened while the archive held runs to
        # index (Chroma recreates a deleted one empty, and recall would then silently find none by meaning).
        self._vectors_lost = (
            not self.config.chroma_url
            and not self._vectors_file().is_file()
            and episodes.count_indexable(self.store, self.config.index_min_steps) > 0
        )
        # Run after `rebuild` dropped every collection (the desk index fills its own again), each with `progress`.
        self.after_rebuild: list[Callable[[Progress | None], dict[str, int]]] = []

    @property
    def errors(self) -> dict[str, int]:
        """Recall failures per namespace, as persisted (a fresh process reads the same counts), and
        `embedding_unavailable`: the recalls this process answered without the embedding server."""
        with self._degraded_lock:
            degraded = self._degraded
        return {**recall_stats.error_counts(self.store), "embedding_unavailable": degraded}

    def note_error(self, namespace: str, exc: BaseException) -> None:
        """Count one failure of a recall namespace as an event; failing to count is only logged."""
        try:
            with self.parts.writes:
                recall_stats.record_selection_error(self.store, namespace, type(exc).__name__, actor="system")
        except Exception as err:
            log.warning("could not count a %s recall failure: %s", namespace, err)

    @property
    def embedder(self) -> Embedder:
        return self.engine.embedder

    @property
    def scoring(self) -> str:
        """What the threshold is held against (recall.confidence), without loading the embedder."""
        return str(self.config.recall_scoring)

    @property
    def embedder_id(self) -> str:
        """The embedder recall uses, without loading it: the served model with `JIYI_EMBED_URL`."""
        return remote_id(self.config.embed_model_name) if self.config.embed_url else str(self.config.embed_model)

    def _new_embedder(self) -> Embedder:
        if not self.config.embed_url:
            return get_embedder(self.config.embed_model)
        key = read_key(self.config.embed_key_file) if self.config.embed_key_file else None
        return RemoteEmbedder(
            self.config.embed_url, self.config.embed_model_name, key, timeout=float(self.config.embed_timeout)
        )

    @property
    def engine(self) -> EpisodeRecall:
        with self._lock:
            if self._engine is None:
                embedder = self._new_embedder()
                index = VectorIndex(self.store.home, embedder, self.config.chroma_url, self.store.store_id)
                terms: Any = self._term_stats
                if self.store.read_only is not None:  # read as they are; a home that never had them goes without
                    terms = terms if recall_terms.current(self.store) else None
                elif not recall_terms.ensure(self.store):
                    self.rebuild_terms()
                self._engine = EpisodeRecall(index, embedder, terms=terms, scoring=self.scoring)
            return self._engine

    def _term_stats(self, scope: str, terms: Sequence[str], packages: Sequence[str] | None) -> recall_terms.TermStats:
        return recall_terms.stats(self.store, scope, terms, packages)

    def mentions(self, generation: int) -> MentionIndex:
        """Names owned by one package: registry aliases and the App-KB's live names."""
        cached = self._mentions
        if cached is not None and cached[0] == generation:
            return cached[1]
        names = [(name, package) for name, package, _ in self.registry.names()]
        names += [(e.term, e.package) for e in appkb.list_entries(self.store, include_stale=False)]
        index = MentionIndex(names)
        self._mentions = (generation, index)
        return index

    def alias_route_is_ready(self, appkb_seq: int) -> bool:
        """Whether `alias_route(appkb_seq)` would answer at once (the model loaded, the route reconciled)."""
        cached = self._aliases
        return cached is not None and cached[0] == appkb_seq

    def alias_route(self, appkb_seq: int) -> AliasRoute:
        """The resolver's embedding route over the `app_alias` collection, reconciled with the App-KB as of its
        event `appkb_seq` (made once per App-KB state; one thread reconciles while the others wait for it)."""
        cached = self._aliases
        if cached is not None and cached[0] == appkb_seq:
            return cached[1]
        with self._aliases_lock:
            cached = self._aliases
            if cached is not None and cached[0] == appkb_seq:
                return cached[1]
            route = self._new_alias_route()
            self.sync_aliases(route)
            self._aliases = (appkb_seq, route)
            return route

    def _new_alias_route(self) -> AliasRoute:
        engine = self.engine
        if self._query_vectors is None or self._query_vectors.embedder is not engine.embedder:
            self._query_vectors = QueryVectors(engine.embedder)
        return AliasRoute(engine.index, engine.embedder, self._query_vectors)

    def sync_aliases(self, route: AliasRoute | None = None) -> dict[str, int]:
        """Reconcile the `app_alias` collection with the registry and the App-KB's live names."""
        route = route or self._new_alias_route()
        names = [NameOf(e.term, e.package, e.label) for e in appkb.list_entries(self.store, include_stale=False)]
        return route.sync(with_shipped_vectors(route.embedder.id, alias_documents(self.registry, names)))

    def recall(self, goal: str, device: str, generation: int, *, explain: bool = False) -> RecallResult:
        """One recall for a new task (the caller decides what the agent may see)."""
        mode = self.config.memory_rag
        threshold = self.thresholds.threshold_for(device) if self.thresholds else None
        installed = self.installed(device, generation)
        result = self.engine.recall(
            goal,
            device,
            self.mentions(generation),
            mode=mode,
            explain=explain,
            threshold=threshold,
            installed=installed,
        )
        if result.degraded:
            with self._degraded_lock:
                self._degraded += 1
            log.warning("recall went by app mentions and keywords only: %s", result.degraded)
        return result

    def recall_many(
        self, goals: Sequence[str], device: str, generation: int, *, explain: bool = False
    ) -> list[RecallResult]:
        """`recall` for many goals on one device at once (one embedding call, one index query)."""
        mode = self.config.memory_rag
        threshold = self.thresholds.threshold_for(device) if self.thresholds else None
        installed = self.installed(device, generation)
        return self.engine.recall_many(
            goals,
            device,
            self.mentions(generation),
            mode=mode,
            explain=explain,
            threshold=threshold,
            installed=installed,
        )

    def installed(self, device: str, generation: int) -> frozenset[str] | None:
        """The device's installed packages as the App-KB last synced them (None: never synced)."""
        cached = self._installed.get(device)
        if cached is not None and cached[0] == generation:
            return cached[1]
        apps = appkb.installed(self.store, device)
        packages = frozenset(apps) if apps is not None else None
        if len(self._installed) > 64:
            self._installed.clear()
        self._installed[device] = (generation, packages)
        return packages

    def passes_gate(self, outcome: Mapping[str, object]) -> bool:
        """The quality gate for an outcome record (see `gate`)."""
        steps = outcome.get("steps", 0)
        return self.gate(str(outcome.get("goal_text", "")), int(steps) if isinstance(steps, int | float) else 0)

    def gate(self, goal_text: str, steps: int) -> bool:
        """The quality gate: a goal, and at least `index_min_steps` steps."""
        return bool(goal_text.strip()) and steps >= self.config.index_min_steps

    def for_index(self, outcome: Mapping[str, object]) -> dict[str, object]:
        """An episode as the index may hold it: the archive keeps the goal and reason verbatim, the vector
        store and the term counts (derived, outside the archive) hold them redacted."""
        redact = self.parts.redactor.redact
        return {
            **outcome,
            "goal_text": redact(str(outcome.get("goal_text", ""))),
            "reason": redact(str(outcome.get("reason", ""))),
        }

    def index(self, outcomes: Sequence[Mapping[str, object]]) -> int:
        """Index episodes that pass the gate (vectors and term counts), per device; returns how many were embedded."""
        by_scope: dict[str, list[Document]] = {}
        gated = [self.for_index(o) for o in outcomes if self.passes_gate(o)]
        for outcome in gated:
            by_scope.setdefault(str(outcome.get("device_scope")), []).append(episode_document(outcome))
        embedded = sum(self.engine.index.upsert(EPISODE, scope, docs) for scope, docs in by_scope.items())
        recall_terms.put(self.store, [term_document(o) for o in gated])
        return embedded

    def index_missing(self, progress: Progress | None = None, batch: int = 5000) -> int:
        """Index, in bulk, every live episode through the gate that has no vector yet (after an import, an
        ingest cut short, or a home an older Jiyi imported into); returns how many were indexed."""
        index, min_steps = self.engine.index, self.config.index_min_steps
        owed = max(0, episodes.count_indexable(self.store, min_steps) - self.state().get("episode_vectors", 0))
        done = 0
        for scope in episodes.indexable_scopes(self.store, min_steps):
            held = set(index.ids(EPISODE, scope))
            for page in episodes.indexable_pages(self.store, min_steps, scope, batch):
                missing = [row for row in page if row["run_id"] not in held]
                if missing:
                    self.index(missing)
                    done += len(missing)
                    if progress:
                        progress(done, max(owed, done))
        return done

    def forget(self, run_id: str, device_scope: str) -> None:
        """Take an episode out of the index, vector and term counts (revoked, folded or deleted)."""
        self.engine.index.delete(EPISODE, device_scope, [run_id])
        recall_terms.remove(self.store, device_scope, [run_id])

    def devices(self) -> list[str]:
        """Serials of the devices recall has past runs of (indexed episodes)."""
        return sorted(scope.removeprefix("device:") for scope in recall_terms.scopes(self.store))

    def _live_pages(self) -> Iterator[list[dict[str, object]]]:
        """The episodes the index should hold (live and through the gate), a page at a time (by run id)."""
        for rows in episodes.live_pages(self.store, 1000):
            yield [row for row in rows if self.passes_gate(row)]

    def live_episodes(self) -> dict[str, dict[str, dict[str, object]]]:
        """Every episode the index should hold, by device scope and run id."""
        live: dict[str, dict[str, dict[str, object]]] = {}
        for rows in self._live_pages():
            for row in rows:
                live.setdefault(str(row["device_scope"]), {})[str(row["run_id"])] = row
        return live

    def rebuild_terms(self) -> int:
        """Count the terms of every live episode again (no embedding); returns how many episodes."""
        started = time.perf_counter()
        recall_terms.clear(self.store)
        counted = 0
        for rows in self._live_pages():
            recall_terms.put(self.store, [term_document(self.for_index(row)) for row in rows])
            counted += len(rows)
        recall_terms.mark_built(self.store)
        log.info("counted the terms of %d episodes in %.1f s", counted, time.perf_counter() - started)
        return counted

    def rebuild(self, progress: Progress | None = None, batch: int = 256) -> dict[str, int]:
        """Drop every vector collection and index every live episode again with the current embedder, while
        agents go on writing: the write lock (`parts.writes`) is held only for moments, never across embedding.

        Why the index ends equal to the live indexable episodes, whatever was written meanwhile:

        1. `start`, the newest `experience` event, is read under the write lock, so no write is half
           committed: every change up to `start` is visible to the reads that follow.
        2. The collections and term counts are dropped, then the live episodes are read in keyset pages
           (`run_id > last`, one short query each) and indexed. A run none of whose events is newer than
           `start` reads the same in every page, so it ends indexed iff it is live and passes the gate.
           Upserts are keyed by run id, so a run also indexed by its writer is held once.
        3. A run with an event after `start` (finished, revoked, restored, folded meanwhile) may have been
           read before that event. Each is reconciled: its current row is read and it is indexed or
           forgotten to match. Passes run unlocked until they catch up, then one last pass over every run
           changed since `start` runs under the write lock, when nothing is half committed (on PostgreSQL a
           lower seq can commit after a higher one, so the last pass does not trust an unlocked cursor).
           An unchanged vector is not embedded again (its source hash matches), so that pass is short.
        4. Writes after the lock is released index or forget their own runs, as always.

        Until it finishes, recall sees a partial index (and may abstain), as with any rebuild.
        """
        index = self.engine.index
        index.reopen_if_gone()  # `vectors/` deleted under the open index: rebuild into a fresh one
        with self.parts.writes:
            start = self.store.last_seq(episodes.DOMAIN)
        dropped = index.drop_all()
        recall_terms.clear(self.store)
        total = episodes.count_episodes(self.store, EpisodeFilter(revoked=False))
        done, embedded = 0, 0
        # One count for the episodes, then each index filled after them (the desk's): a bar moves on, never back.
        episodes_progress, *after = phased(progress, 1 + len(self.after_rebuild))
        for rows in episodes.live_pages(self.store, batch):
            embedded += self.index(rows)
            done += len(rows)
            if episodes_progress:
                episodes_progress(done, max(total, done))
        cursor = start
        for _ in range(8):  # catch up unlocked; writers who never pause are left to the locked pass
            changed, last = episodes.runs_changed_after(self.store, cursor)
            if not changed:
                break
            embedded += self._reconcile(changed)
            cursor = last
        with self.parts.writes:
            changed, _ = episodes.runs_changed_after(self.store, start)
            embedded += self._reconcile(changed)
        recall_terms.mark_built(self.store)
        self._aliases = None
        aliases = self.sync_aliases()
        more: dict[str, int] = {}
        for then, then_progress in zip(self.after_rebuild, after, strict=True):
            more.update(then(then_progress))
        return {
            **more,
            "collections_dropped": dropped,
            "episodes": done,
            "embedded": embedded,
            "reconciled": len(changed),
            "alias_documents": aliases["documents"],
        }

    def _reconcile(self, run_ids: set[str]) -> int:
        """Make the index hold each of `run_ids` exactly as the archive has it now; returns how many were embedded."""
        if not run_ids:
            return 0
        current = episodes.current_records(self.store, sorted(run_ids))
        live = [r for r in current.values() if not r["revoked"] and self.passes_gate(r)]
        keep = {str(r["run_id"]): str(r.get("device_scope")) for r in live}
        for scope in set(self.engine.index.scopes(EPISODE)) | set(recall_terms.scopes(self.store)):
            gone = sorted(r for r in run_ids if keep.get(r) != scope)
            self.engine.index.delete(EPISODE, scope, gone)
            recall_terms.remove(self.store, scope, [r for r in gone if r not in keep])
        return self.index(live)

    def state(self, *, wait: bool = True) -> dict[str, Any]:
        """The index as health reports it, opening it if needed.

        With `wait` False (the console's overview), an index that is not open yet is not waited for: it is said
        to be opening (`{"embedder", "opening": True}`) at once, and opened on a thread of its own unless one
        opens it already (as `jiyi serve` does as it starts); opening it imports Chroma and loads the model,
        seconds that the overview's first figures need not wait. When that opening failed, this opens it
        again and says why, as with `wait`.
        """
        if not wait and not self._index_is_open() and self._opening_aside():
            return {"embedder": self.embedder_id, "opening": True}
        try:
            index = self.engine.index
            scopes = index.scopes(EPISODE)
            count = sum(index.count(EPISODE, s) for s in scopes)
            indexable = episodes.count_indexable(self.store, self.config.index_min_steps)
            return {
                "embedder": self.embedder_id,
                "episode_vectors": count,
                "indexable_episodes": indexable,
                # Episodes recall should find but cannot: an import not indexed, an ingest cut short.
                "lagging": max(0, indexable - count),
                "ok": True,
            }
        except Exception as exc:
            return {"embedder": self.embedder_id, "ok": False, "problem": str(exc)}

    def close(self) -> None:
        """Wait for an index being opened for `state` (opening reads the store: done before the store closes)."""
        with self._opener_lock:
            opener, self._opener = self._opener, None
        if opener is not None:
            opener.join(timeout=30)

    def _index_is_open(self) -> bool:
        engine = self._engine
        return engine is not None and engine.index.is_open

    def _opening_aside(self) -> bool:
        """Whether a thread opens the index now (started here unless one runs); False when the last one failed
        (the caller then opens it itself, and says why it cannot)."""
        with self._opener_lock:
            if self._opener is not None and self._opener.is_alive():
                return True
            if self._opener_failed:
                self._opener_failed = False
                return False
            self._opener = threading.Thread(target=self._open_index, name="jiyi-recall-open", daemon=True)
            self._opener.start()
            return True

    def _open_index(self) -> None:
        try:
            self.engine.index.client  # noqa: B018  # opening it is the point
        except Exception as exc:  # said by the next `state`, which opens it again in the caller's thread
            log.info("the vector index did not open: %s", exc)
            with self._opener_lock:
                self._opener_failed = True

    # -- what people and tools ask of recall ------------------------------------------

    @performs(recall_ops.STATS)
    def recall_statistics(self, since: float | None = None, until: float | None = None) -> RecallStatistics:
        """Hit@1, hit rate, contamination and package P/R over a window, with daily series and per package."""
        days = recall_stats.daily(self.store, since, until)
        return {
            "mode": self.config.memory_rag,
            "embedder": self.embedder_id,
            "window": {"since": since, "until": until},
            "totals": recall_stats.statistics(self.store, since, until, days=days),
            "daily": all_of(DailyRecallPoint, days),
            "packages": self._labelled(recall_stats.per_package(self.store, since, until)),
            "calibration": self.thresholds.current() if self.thresholds else [],
        }

    def _labelled(self, packages: list[recall_stats.PackageRecall]) -> list[PackageStatistics]:
        """Each package's statistics with `label`: the name a device's inventory gives it (None when none does)."""
        labels = appkb.device_labels(self.store, [p["package"] for p in packages])
        return [{**p, "label": labels.get(p["package"])} for p in packages]

    @lists(recall_ops.RUNS)
    def recall_runs(self, since: float, until: float, limit: int = 200) -> list[RunTrace]:
        """The runs evaluated in a window, with recalled vs actual apps (newest first)."""
        return typed_rows(RunTrace, recall_stats.runs_between(self.store, since, until, limit))

    @holds(recall_ops.TRACE)
    def recall_trace(self, run_id: str) -> RunTrace | None:
        """What recall offered at the start of `run_id` and how it scored (None when there was no recall)."""
        trace = recall_stats.trace_of(self.store, check_run_id(run_id))
        return None if trace is None else typed_row(RunTrace, trace)

    @lists(recall_ops.DEVICES)
    def recall_devices(self) -> list[str]:
        """The devices recall has past runs of, for choosing one to ask about."""
        return self.devices()

    @performs(recall_ops.QUERY)
    def recall_query(self, goal: str, device: str, *, explain: bool = False) -> RecallAnswer:
        """What recall would return for `goal` on `device` now (for people and tools; logs nothing).

        `explain` adds `considered` (every app weighed, below the threshold too) and `threshold`.
        """
        if not isinstance(goal, str) or not goal.strip():
            raise InvalidInput("goal must be non-empty text")
        if not isinstance(device, str) or not device.strip():
            raise InvalidInput("device must be non-empty text")
        goal = self.parts.redactor.redact(goal)
        return typed_row(
            RecallAnswer, self.recall(goal, device.strip(), self.parts.generation, explain=explain).to_dict()
        )

    def export_recall_stats(self, path: Path) -> dict[str, Any]:
        """Write the reference's `recall_stats.json` (schema_v 2) to `path`."""
        data = recall_stats.stats_file(self.store)
        write_text(Path(path), json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", mode=0o600)
        return data

    def rebuild_vectors(self, progress: Progress | None = None) -> dict[str, int]:
        """Drop and rebuild the vector index from the archive with the configured embedder (writers go on
        meanwhile: see `rebuild`)."""
        counts = self.rebuild(progress)
        self._vectors_lost = False
        return counts

    def _vectors_file(self) -> Path:
        return Path(self._vectors_path)

    def _count_indexable(self) -> int:
        """`episodes.count_indexable`, counted again only after a change (health asks it on every call)."""
        generation, cached = self.parts.generation, self._indexable
        if cached is not None and cached[0] == generation:
            return cached[1]
        count = episodes.count_indexable(self.store, self.config.index_min_steps)
        self._indexable = (generation, count)
        return count

    def index_problem(self) -> str | None:
        """Why recall cannot find past runs by meaning: the home's vector index deleted (now, or before the
        home opened, and recreated empty since) while the archive holds runs to index; None otherwise (or
        when the index lives on a Chroma server, which `jiyi doctor` asks)."""
        if self.config.chroma_url:
            return None
        present = os.path.isfile(self._vectors_path)
        if present and not self._vectors_lost:
            return None
        indexable = self._count_indexable()
        if not indexable:
            return None
        when = "is missing" if not present else "was missing when the home opened (recreated empty)"
        return (
            f"the vector index {self._vectors_file().parent} {when}: "
            f"recall cannot find the {indexable} archived runs by meaning; "
            "run `jiyi rebuild-vec` to rebuild it from the archive"
        )


def term_document(outcome: Mapping[str, object]) -> recall_terms.TermDoc:
    """An episode as the term counts hold it: its device, apps and goal terms."""
    apps = tuple(outcome_apps(outcome))
    return recall_terms.TermDoc(
        str(outcome["run_id"]),
        str(outcome.get("device_scope", "device:unknown")),
        apps,
        tuple(goal_terms(str(outcome.get("goal_text", "")))),
    )
