"""`RemoteMemory`: the `MemoryApi` of a home that a running `jiyi serve` owns, reached over its socket.

The console and the commands use it exactly as they use `Memory`: the same
methods, the same result types, the same errors (an error code from the
service becomes the error class a local `Memory` raises). Each thread talks
on its own connection (the console reads on several threads at once); long
operations (rebuilds, dream, import) get a connection with a long timeout.
Listeners hear the service's change notices (`service.remote.notices`).
The rebuilds run as the service's jobs (`docs/protocol.md`, Jobs): this side
starts one, polls it and turns it into the same `progress(done, total)` calls
a local rebuild makes; a `Cancelled` (or Ctrl+C) from the caller cancels the
job. Closing it closes its connections; the service goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from recall.resolve import Resolution
from service.config import Config
from service.memory.appkb import LearnAliasOutcome
from service.memory.bus import Listener
from service.memory.results import DocumentWritten, DreamReport, Health, MaintenanceStatus, Overview, RecallStatistics
from service.remote import wire
from service.remote.channel import JobFollower, Progress, RemoteJobs, Wire, protocol_version
from service.remote.notices import NoticeReader
from store.appkb.entry import AppKbEntry
from store.appkb.history import HistoryItem, UndoResult
from store.appkb.kb import ForgetAliasResult
from store.episodes.archive import EpisodeFilter
from store.interchange.import_source import ImportReport


class RemoteAppKb:
    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

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
        params = {"device": device, "kind": kind, "include_stale": include_stale, "text": text, "order": order}
        if limit is not None:
            result = self._wire.call("app.alias.list", {**params, "limit": limit, "offset": offset})
            return wire.entries(result["entries"])
        rows: list[AppKbEntry] = []
        next_offset: int | None = offset
        while next_offset is not None:  # everything, a page at a time
            result = self._wire.call("app.alias.list", {**params, "limit": 5000, "offset": next_offset})
            rows += wire.entries(result["entries"])
            next_offset = result["next_offset"]
        return rows

    def count_aliases(self) -> int:
        return int(self._wire.call("app.devices")["aliases"])

    def devices(self) -> list[str]:
        return list(self._wire.call("app.devices")["devices"])

    def alias_history(self, name: str, *, limit: int = 500) -> list[HistoryItem]:
        return wire.history_items(self._wire.call("app.alias.history", {"name": name, "limit": limit})["items"])

    def learn_alias(self, name: str, package: str, *, actor: str = "user") -> LearnAliasOutcome:
        return wire.learned(
            self._wire.call("app.alias.learn", {"name": name, "package": package, "actor": actor}, writes=True)
        )

    def forget_alias(self, name: str, *, actor: str = "user") -> ForgetAliasResult:
        return wire.forgotten(self._wire.call("app.alias.forget", {"name": name, "actor": actor}, writes=True))

    def undo_change(self, txn: int, *, actor: str = "user") -> UndoResult:
        return wire.undone(self._wire.call("app.alias.undo", {"change": txn, "actor": actor}, writes=True))

    def resolve_app(self, name: str, *, device: str | None = None) -> Resolution:
        return wire.resolution(self._wire.call("app.resolve", {"name": name, "device": device}))


class RemoteRuns:
    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    @staticmethod
    def _filter(f: EpisodeFilter | None) -> dict[str, Any]:
        f = f or EpisodeFilter()
        return {
            "text": f.text,
            "app": f.app,
            "device": f.device,
            "success": f.success,
            "since": f.since,
            "until": f.until,
            "revoked": f.revoked,
        }

    def list_episodes(
        self,
        f: EpisodeFilter | None = None,
        *,
        limit: int = 100,
        offset: int = 0,
        after: tuple[float, str] | None = None,
    ) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        keyset = {} if after is None else {"after": [after[0], after[1]]}
        while len(rows) < limit:  # the socket pages by at most 1,000
            page = min(1000, limit - len(rows))
            params = {**self._filter(f), **keyset, "limit": page, "offset": offset + len(rows)}
            result = self._wire.call("episode.list", params)
            rows += result["episodes"]
            if result["next_offset"] is None:
                break
        return rows

    def count_episodes(self, f: EpisodeFilter | None = None) -> int:
        return int(self._wire.call("episode.list", {**self._filter(f), "limit": 1, "total": True})["total"])

    def get_episode(self, run_id: str) -> dict[str, Any]:
        return cast(dict[str, Any], self._wire.call("episode.get", {"run_id": run_id}))

    def revoke_episode(self, run_id: str, *, reason: str | None = None, actor: str = "user") -> int:
        return int(
            self._wire.call("episode.revoke", {"run_id": run_id, "reason": reason, "actor": actor}, writes=True)[
                "change"
            ]
        )

    def restore_episode(self, run_id: str, *, actor: str = "user") -> int:
        return int(self._wire.call("episode.restore", {"run_id": run_id, "actor": actor}, writes=True)["change"])


class RemoteRecall:
    def __init__(self, wire_: Wire, jobs: JobFollower) -> None:
        self._wire = wire_
        self._jobs = jobs

    def recall_statistics(self, since: float | None = None, until: float | None = None) -> RecallStatistics:
        return cast(RecallStatistics, self._wire.call("recall.stats", {"since": since, "until": until}))

    def recall_runs(self, since: float, until: float, limit: int = 200) -> list[dict[str, Any]]:
        return list(self._wire.call("recall.runs", {"since": since, "until": until, "limit": limit})["runs"])

    def recall_trace(self, run_id: str) -> dict[str, Any] | None:
        return cast(dict[str, Any] | None, self._wire.call("recall.trace", {"run_id": run_id})["trace"])

    def recall_devices(self) -> list[str]:
        return list(self._wire.call("recall.devices")["devices"])

    def recall_query(self, goal: str, device: str, *, explain: bool = False) -> dict[str, Any]:
        return cast(
            dict[str, Any], self._wire.call("recall.query", {"goal": goal, "device": device, "explain": explain})
        )

    def rebuild_vectors(self, progress: Progress | None = None) -> dict[str, int]:
        return cast(dict[str, int], self._jobs.run("vectors.rebuild", progress))


class RemoteLessons:
    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def add_lesson(
        self, text: str, apps: Sequence[str] = (), *, runs: Sequence[str] = (), actor: str = "user"
    ) -> dict[str, Any]:
        params = {"text": text, "apps": list(apps), "runs": list(runs), "actor": actor}
        return cast(dict[str, Any], self._wire.call("lesson.add", params, writes=True))

    def lesson_runs(self, lesson_id: str) -> dict[str, list[dict[str, Any]]]:
        return cast(dict[str, list[dict[str, Any]]], self._wire.call("lesson.runs", {"lesson_id": lesson_id}))

    def set_lesson_status(self, lesson_id: str, status: str, *, actor: str = "user") -> dict[str, Any]:
        method = {"approved": "lesson.approve", "revoked": "lesson.revoke"}.get(status)
        if method is None:
            raise wire.error_for("invalid_params", "status must be approved or revoked")
        return cast(dict[str, Any], self._wire.call(method, {"lesson_id": lesson_id, "actor": actor}, writes=True))

    def list_lessons(self, status: str | None = None) -> list[dict[str, Any]]:
        return list(self._wire.call("lesson.list", {"status": status})["lessons"])


class RemoteDesk:
    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def maintenance_status(self) -> MaintenanceStatus:
        return cast(MaintenanceStatus, self._wire.call("memory.maintenance.status"))

    def memory_recall(self, query: str, *, limit: int = 8) -> dict[str, Any]:
        return cast(dict[str, Any], self._wire.call("memory.recall", {"query": query, "limit": limit}))

    def list_topics(self, *, text: str | None = None, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        return list(self._wire.call("memory.topic.list", {"text": text, "limit": limit, "offset": offset})["topics"])

    def get_topic(self, topic_id: str, *, limit: int = 50, offset: int = 0) -> dict[str, Any]:
        params = {"topic_id": topic_id, "limit": limit, "offset": offset}
        return cast(dict[str, Any], self._wire.call("memory.topic.get", params))

    def workday_topics(self, workday: str) -> list[dict[str, Any]]:
        return list(self._wire.call("memory.topic.list", {"workday": workday})["topics"])

    def list_workdays(self, *, limit: int = 30, offset: int = 0) -> list[dict[str, Any]]:
        return list(self._wire.call("memory.workday.list", {"limit": limit, "offset": offset})["workdays"])

    def consolidation_log(self, limit: int = 50) -> list[dict[str, Any]]:
        return list(self._wire.call("memory.consolidation.log", {"limit": limit})["entries"])

    def list_facts(
        self,
        *,
        scope: str | None = None,
        status: str | None = None,
        text: str | None = None,
        limit: int = 200,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        params = {"scope": scope, "status": status, "text": text, "limit": limit, "offset": offset}
        return list(self._wire.call("memory.fact.list", params)["facts"])

    def set_fact_status(self, fact_id: str, status: str, *, reason: str = "", actor: str = "user") -> dict[str, Any]:
        params = {"fact_id": fact_id, "status": status, "reason": reason or None, "actor": actor}
        return cast(dict[str, Any], self._wire.call("memory.fact.set_status", params, writes=True))

    def list_skills(self, status: str | None = None, *, limit: int = 200, offset: int = 0) -> list[dict[str, Any]]:
        skills = self._wire.call("memory.skill.list", {"status": status, "audience": "review"})["skills"]
        return list(skills[offset : offset + limit])

    def set_skill_status(
        self, skill_id: str, status: str, *, user_request: str | None = None, actor: str = "user"
    ) -> dict[str, Any]:
        params = {"skill_id": skill_id, "status": status, "user_request": user_request, "actor": actor}
        return cast(dict[str, Any], self._wire.call("memory.skill.set_status", params, writes=True))

    def list_bundles(self, *, kind: str | None = None, limit: int = 200, offset: int = 0) -> list[dict[str, Any]]:
        return list(self._wire.call("bundle.list", {"kind": kind, "limit": limit, "offset": offset})["bundles"])

    def get_bundle(self, bundle_id: str, path: str | None = None) -> dict[str, Any]:
        return cast(dict[str, Any], self._wire.call("bundle.get", {"bundle_id": bundle_id, "path": path}))

    def put_bundle_document(
        self, bundle_id: str, path: str, content: str, *, expected_revision: int, actor: str = "agent"
    ) -> DocumentWritten:
        params = {
            "bundle_id": bundle_id,
            "path": path,
            "content": content,
            "expected_revision": expected_revision,
            "actor": actor,
        }
        return cast(DocumentWritten, self._wire.call("bundle.document.put", params, writes=True))

    def bundle_directory(self, bundle_id: str) -> str:
        return str(self._wire.call("bundle.directory", {"bundle_id": bundle_id})["directory"])


class RemoteDream:
    def __init__(self, wire_: Wire, follower: JobFollower) -> None:
        self._wire = wire_
        self._follower = follower

    def run(
        self, *, full: bool = True, dry_run: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> DreamReport:
        """The pass runs as the service's job; `progress` hears its steps, and a `Cancelled` it raises
        cancels the job between two steps."""
        return cast(DreamReport, self._follower.run("dream", progress, {"full": full, "dry_run": dry_run}))

    def reports(self, limit: int = 20) -> list[dict[str, Any]]:
        return list(self._wire.call("dream.reports", {"limit": limit})["reports"])


class RemoteLearning:
    """The owner's side of learning (seed 003): what the console's learning page reads and decides."""

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def status(self) -> dict[str, Any]:
        return cast(dict[str, Any], self._wire.call("learning.status"))

    def queue(self, state: str | None = None, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        return list(self._wire.call("learning.queue", {"state": state, "limit": limit, "offset": offset})["intents"])

    def intent(self, intent_id: str) -> dict[str, Any]:
        return cast(dict[str, Any], self._wire.call("learning.intent", {"intent_id": intent_id}))

    def failures(self, limit: int = 100) -> list[dict[str, Any]]:
        return list(self._wire.call("learning.failures", {"limit": limit})["intents"])

    def list_records(self, state: str | None = None, limit: int = 200, offset: int = 0) -> list[dict[str, Any]]:
        params = {"state": state, "limit": limit, "offset": offset}
        return list(self._wire.call("learning.records.list", params)["records"])

    def owner_review(self, intent_id: str, verdict: str, reason: str) -> dict[str, Any]:
        params = {"intent_id": intent_id, "verdict": verdict, "reason": reason, "actor": "user"}
        return cast(dict[str, Any], self._wire.call("learning.owner_review", params, writes=True))

    def revoke_record(
        self, record_id: str, request_id: str, reason: str = "", *, actor: str = "user"
    ) -> dict[str, Any]:
        params = {"record_id": record_id, "request_id": request_id, "reason": reason or None, "actor": actor}
        return cast(dict[str, Any], self._wire.call("learning.record.revoke", params, writes=True))

    def edit_record(self, record_id: str, content: str) -> dict[str, Any]:
        params = {"record_id": record_id, "content": content, "actor": "user"}
        return cast(dict[str, Any], self._wire.call("learning.record.edit", params, writes=True))


class RemoteMemory:
    """A home's memory as served by the service listening on `socket_path`. Open with `RemoteMemory.attach`."""

    def __init__(self, config: Config, socket_path: Path, health: dict[str, Any], *, client: str = "console") -> None:
        """`client` is what this side tells the service it is: "console", or "command" for a `jiyi` command."""
        self._config = config
        self.socket_path = socket_path
        self._home = Path(str(health["home"]))
        self._schema_version = int(health["schema_version"])
        self.service_pid = int(health.get("pid") or 0)
        self._wire = Wire(socket_path, hello=client)
        self._follower = JobFollower(self._wire, protocol_version(health.get("protocol")))
        self.jobs = RemoteJobs(self._wire)
        self.integrity: str | None = None
        """SQLite's verdict after the last `rebuild` (the service checks the database after it)."""
        self.appkb = RemoteAppKb(self._wire)
        self.runs = RemoteRuns(self._wire)
        self.recall = RemoteRecall(self._wire, self._follower)
        self.lessons = RemoteLessons(self._wire)
        self.desk = RemoteDesk(self._wire)
        self.dream = RemoteDream(self._wire, self._follower)
        self.learning = RemoteLearning(self._wire)
        self._listeners: list[Listener] = []
        self._listeners_lock = threading.Lock()
        self.notices: NoticeReader | None = None

    @classmethod
    def attach(cls, config: Config, socket_path: Path) -> RemoteMemory:
        """Attach to the service on `socket_path`; `EnvironmentProblem` when nobody answers there."""
        probe = Wire(socket_path)
        try:
            health = probe.call("health")
        finally:
            probe.close()
        return cls(config, socket_path, health)

    @property
    def config(self) -> Config:
        return self._config

    @property
    def home(self) -> Path:
        return self._home

    @property
    def schema_version(self) -> int:
        return self._schema_version

    @property
    def attached_to(self) -> Path | None:
        return self.socket_path

    @property
    def connected(self) -> bool:
        """Whether the service answers change notices now (True until they are asked for)."""
        return self.notices is None or self.notices.is_connected or not self.notices.subscribed.is_set()

    def health(self) -> Health:
        return cast(Health, self._wire.call("health"))

    def overview(self) -> Overview:
        return cast(Overview, self._wire.call("overview"))

    def rebuild(self, progress: Progress | None = None) -> dict[str, int]:
        outcome = self._follower.run("rebuild", progress)
        self.integrity = str(outcome.get("integrity"))
        return cast(dict[str, int], outcome["counts"])

    def service_status(self) -> dict[str, Any]:
        """Who the service serves (`connections`, `by_kind`), `requests_last_minute`, and its running `job`."""
        return cast(dict[str, Any], self._wire.call("service.status"))

    def import_taskwizard(
        self, directory: Path, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, ImportReport]:
        """The service imports (and indexes) the directory as its job; `progress` hears the indexing move.

        Cancelling (the console closing, Ctrl+C) stops following it; the service finishes the import.
        """
        params = {"directory": str(Path(directory).resolve())}
        result = self._follower.run("taskwizard.import", progress, params)
        return {name: ImportReport(**report) for name, report in result.items()}

    def export_taskwizard(self, directory: Path) -> dict[str, dict[str, int]]:
        params = {"directory": str(Path(directory).resolve())}
        return cast(dict[str, dict[str, int]], self._wire.call("taskwizard.export", params, long=True))

    # -- change notices ------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(domain, generation)` (on the notice thread) after every change the service commits."""
        with self._listeners_lock:
            self._listeners.append(listener)
            if self.notices is None:
                self.notices = NoticeReader(self.socket_path, self._notify)
                self.notices.start()

    def remove_listener(self, listener: Listener) -> None:
        with self._listeners_lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def _notify(self, domains: list[str], generation: int) -> None:
        with self._listeners_lock:
            listeners = list(self._listeners)
        for domain in domains:
            for listener in listeners:
                listener(domain, generation)

    def close(self) -> None:
        """Close this side's connections; the service goes on serving."""
        if self.notices is not None:
            self.notices.stop()
            self.notices = None
        self._wire.close()

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
