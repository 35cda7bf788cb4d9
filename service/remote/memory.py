"""`RemoteMemory`: the `MemoryApi` of a home that a running `jiyi serve` owns, reached over its socket.

The console and the commands use it exactly as they use `Memory`: the same
methods, the same result types, the same errors (an error code from the
service becomes the error class a local `Memory` raises). A facade method
bound to the operation it performs is called as `performed(Facade.method)`
(`service/remote/calls.py`); the others, which adapt, are written here. Each thread talks
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
from typing import TYPE_CHECKING, Any

import msgspec

from recall.verdict import Resolution
from service import person_key
from service.client import Json, JsonObject
from service.config import Config
from service.memory.bus import Listener
from service.memory.recall_rows import RunTrace
from service.memory.results import (
    DocumentWritten,
    DreamReport,
    Health,
    LearnAliasOutcome,
    RecallStatistics,
)
from service.memory.rows import (
    BundleDetail,
    Episode,
    Fact,
    LearningRecord,
    Lesson,
    RecordRevoked,
    ReviewReceipt,
    Skill,
    Topic,
)
from service.ops import appkb as ops
from service.ops import desk, lessons, runs, status, upkeep
from service.ops import episode_recall as recall
from service.ops import learning as learn
from service.ops import maintenance as maint
from service.ops.appkb import AliasEntry, AliasPage, ForgetArgs, HistoryArgs, LearnArgs, ListArgs, ResolveArgs, UndoArgs
from service.ops.runs import EpisodeListArgs, RestoreArgs, RevokeArgs
from service.remote import wire
from service.remote.calls import Deferred, performed
from service.remote.channel import JobFollower, JobParams, Progress, RemoteJobs, Wire, protocol_version
from service.remote.interchange import RemoteInterchange
from service.remote.notices import NoticeReader
from store.appkb.entry import AppKbEntry, EntryKey
from store.appkb.results import ForgetAliasResult, HistoryItem, LearnAliasResult, UndoResult
from store.core.errors import EnvironmentProblem
from store.episodes.episode_filter import EpisodeFilter
from store.interchange.import_report import ImportReport

if TYPE_CHECKING:  # the facade's classes as mypy reads them; at run time named only (see service/remote/calls.py)
    from service.memory.desk import DeskService
    from service.memory.dream import DreamService
    from service.memory.episode_recall import EpisodeRecallService
    from service.memory.learning import LearningService
    from service.memory.lessons import LessonService
    from service.memory.memory import Memory
    from service.memory.runs import RunService
else:
    DeskService = Deferred("service.memory.desk", "DeskService")
    DreamService = Deferred("service.memory.dream", "DreamService")
    LearningService = Deferred("service.memory.learning", "LearningService")
    LessonService = Deferred("service.memory.lessons", "LessonService")
    Memory = Deferred("service.memory.memory", "Memory")
    EpisodeRecallService = Deferred("service.memory.episode_recall", "EpisodeRecallService")
    RunService = Deferred("service.memory.runs", "RunService")


class RemoteAppKb:
    """The App-KB's operations, each a call of its declaration (`service.ops.appkb`)."""

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
        after: EntryKey | None = None,
    ) -> list[AppKbEntry]:
        def page(limit: int, offset: int, after: EntryKey | None = None) -> AliasPage:
            args = ListArgs(
                device=device,
                kind=kind,
                include_stale=include_stale,
                text=text,
                limit=limit,
                offset=offset,
                order=order,
                after=after,
            )
            return self._wire.invoke(ops.LIST, args)

        if limit is not None:
            return _entries(page(limit, offset, after).entries)
        rows: list[AppKbEntry] = []
        next_offset: int | None = offset
        while next_offset is not None:  # everything, a page at a time
            result = page(5000, next_offset)
            rows += _entries(result.entries)
            next_offset = result.next_offset
        return rows

    def count_aliases(self) -> int:
        return self._wire.invoke(ops.DEVICES).aliases

    def devices(self) -> list[str]:
        return self._wire.invoke(ops.DEVICES).devices

    def alias_history(self, name: str, *, limit: int = 500) -> list[HistoryItem]:
        items = self._wire.invoke(ops.HISTORY, HistoryArgs(name=name, limit=limit)).items
        return [HistoryItem(i.seq, i.ts, i.actor, i.type, i.change, i.payload) for i in items]

    def learn_alias(self, name: str, package: str, *, actor: str = "user") -> LearnAliasOutcome:
        r = self._wire.invoke(ops.LEARN, LearnArgs(name=name, package=package, actor=actor))
        result = LearnAliasResult(r.changed, _entry(r.entry), _entries(r.replaced), r.change)
        outcome = LearnAliasOutcome(result, r.installed_on, r.missing_on)
        outcome.notes = [w for w in r.warnings if w not in outcome.installation()]
        return outcome

    def forget_alias(self, name: str, *, actor: str = "user") -> ForgetAliasResult:
        r = self._wire.invoke(ops.FORGET, ForgetArgs(name=name, actor=actor))
        return ForgetAliasResult(term=r.term, removed=_entries(r.removed), txn=r.change)

    def undo_change(self, txn: int, *, actor: str = "user") -> UndoResult:
        r = self._wire.invoke(ops.UNDO, UndoArgs(change=txn, actor=actor))
        return UndoResult(
            txn=r.change, reverted_txn=r.reverted, removed=_entries(r.removed), restored=_entries(r.restored)
        )

    def resolve_app(self, name: str, *, device: str | None = None) -> Resolution:
        # The wire's result has `Resolution`'s own field names: decoded into it directly.
        return self._wire.invoke_as(ops.RESOLVE, ResolveArgs(name=name, device=device), Resolution)


def _entry(row: AliasEntry) -> AppKbEntry:
    return msgspec.convert(row, AppKbEntry, from_attributes=True)


def _entries(rows: list[AliasEntry]) -> list[AppKbEntry]:
    return [_entry(row) for row in rows]


class RemoteRuns:
    """The episode archive's operations, each a call of its declaration (`service.ops.runs`)."""

    get_episode = performed(RunService.get_episode)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    @staticmethod
    def _filter(f: EpisodeFilter | None, **page: Any) -> EpisodeListArgs:
        f = f or EpisodeFilter()
        return EpisodeListArgs(
            text=f.text,
            app=f.app,
            device=f.device,
            success=f.success,
            since=f.since,
            until=f.until,
            revoked=f.revoked,
            **page,
        )

    def list_episodes(
        self,
        f: EpisodeFilter | None = None,
        *,
        limit: int = 100,
        offset: int = 0,
        after: tuple[float, str] | None = None,
    ) -> list[Episode]:
        rows: list[Episode] = []
        while len(rows) < limit:  # the socket pages by at most 1,000
            page = min(1000, limit - len(rows))
            args = self._filter(f, limit=page, offset=offset + len(rows), after=after)
            result = self._wire.invoke(runs.EPISODE_LIST, args)
            rows += result.episodes
            if result.next_offset is None:
                break
        return rows

    def count_episodes(self, f: EpisodeFilter | None = None) -> int:
        return self._wire.invoke(runs.EPISODE_LIST, self._filter(f, limit=1, total=True)).total or 0

    def revoke_episode(self, run_id: str, *, reason: str | None = None, actor: str = "user") -> int:
        return self._wire.invoke(runs.EPISODE_REVOKE, RevokeArgs(run_id=run_id, reason=reason, actor=actor)).change

    def restore_episode(self, run_id: str, *, actor: str = "user") -> int:
        return self._wire.invoke(runs.EPISODE_RESTORE, RestoreArgs(run_id=run_id, actor=actor)).change


class RemoteRecall:
    """Episode recall's operations, each a call of its declaration (`service.ops.episode_recall`)."""

    recall_runs = performed(EpisodeRecallService.recall_runs)
    recall_devices = performed(EpisodeRecallService.recall_devices)
    recall_query = performed(EpisodeRecallService.recall_query)

    def __init__(self, wire_: Wire, jobs: JobFollower) -> None:
        self._wire = wire_
        self._jobs = jobs

    def recall_statistics(self, since: float | None = None, until: float | None = None) -> RecallStatistics:
        """Written out, not `performed`: `jiyi recall-stats` through a running service reads no facade module
        (tests/cli/test_startup.py)."""
        return self._wire.invoke(recall.STATS, recall.WindowArgs(since=since, until=until))

    def recall_trace(self, run_id: str) -> RunTrace | None:
        return self._wire.invoke(recall.TRACE, recall.TraceArgs(run_id=run_id)).trace

    def rebuild_vectors(self, progress: Progress | None = None) -> dict[str, int]:
        return msgspec.convert(self._jobs.run("vectors.rebuild", progress), dict[str, int])


class RemoteLessons:
    """The lessons' operations, each a call of its declaration (`service.ops.lessons`)."""

    lesson_runs = performed(LessonService.lesson_runs)
    list_lessons = performed(LessonService.list_lessons)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def add_lesson(
        self, text: str, apps: Sequence[str] = (), *, runs: Sequence[str] = (), actor: str = "user"
    ) -> Lesson:
        args = lessons.LessonAddArgs(text=text, apps=list(apps), runs=list(runs), actor=actor)
        return self._wire.invoke(lessons.LESSON_ADD, args)

    def set_lesson_status(self, lesson_id: str, status: str, *, actor: str = "user") -> Lesson:
        operation = {"approved": lessons.LESSON_APPROVE, "revoked": lessons.LESSON_REVOKE}.get(status)
        if operation is None:
            raise wire.error_for("invalid_params", "status must be approved or revoked")
        return self._wire.invoke(operation, lessons.LessonStatusArgs(lesson_id=lesson_id, actor=actor))


class RemoteDesk:
    """The desk memory's operations, each a call of its declaration (`service.ops.desk`, `.maintenance`)."""

    maintenance_status = performed(DeskService.maintenance_status)
    memory_recall = performed(DeskService.memory_recall)
    get_topic = performed(DeskService.get_topic)
    list_workdays = performed(DeskService.list_workdays)
    consolidation_log = performed(DeskService.consolidation_log)
    list_facts = performed(DeskService.list_facts)
    set_skill_status = performed(DeskService.set_skill_status)
    list_bundles = performed(DeskService.list_bundles)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def list_topics(self, *, text: str | None = None, limit: int = 100, offset: int = 0) -> list[Topic]:
        return self._wire.invoke(maint.TOPIC_LIST, maint.TopicListArgs(text=text, limit=limit, offset=offset)).topics

    def workday_topics(self, workday: str) -> list[Topic]:
        return self._wire.invoke(maint.TOPIC_LIST, maint.TopicListArgs(workday=workday)).topics

    def set_fact_status(self, fact_id: str, status: str, *, reason: str = "", actor: str = "user") -> Fact:
        args = maint.FactStatusArgs(fact_id=fact_id, status=status, reason=reason or None, actor=actor)
        return self._wire.invoke(maint.FACT_SET_STATUS, args)

    def list_skills(self, status: str | None = None, *, limit: int = 200, offset: int = 0) -> list[Skill]:
        skills = self._wire.invoke(maint.SKILL_LIST, maint.SkillListArgs(status=status, audience="review")).skills
        return skills[offset : offset + limit]

    def get_bundle(self, bundle_id: str, path: str | None = None) -> BundleDetail:
        return self._wire.invoke(desk.BUNDLE_GET, desk.BundleGetArgs(bundle_id=bundle_id, path=path))

    def put_bundle_document(
        self, bundle_id: str, path: str, content: str, *, expected_revision: int, actor: str = "agent"
    ) -> DocumentWritten:
        args = desk.DocumentPutArgs(
            bundle_id=bundle_id, path=path, content=content, expected_revision=expected_revision, actor=actor
        )
        return self._wire.invoke(desk.DOCUMENT_PUT, args)

    def bundle_directory(self, bundle_id: str) -> str:
        return self._wire.invoke(desk.BUNDLE_DIRECTORY, desk.BundleArgs(bundle_id=bundle_id)).directory


class RemoteDream:
    reports = performed(DreamService.reports)

    def __init__(self, wire_: Wire, follower: JobFollower) -> None:
        self._wire = wire_
        self._follower = follower

    def run(
        self, *, full: bool = True, dry_run: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> DreamReport:
        """The pass runs as the service's job; `progress` hears its steps, and a `Cancelled` it raises
        cancels the job between two steps."""
        return msgspec.convert(self._follower.run("dream", progress, {"full": full, "dry_run": dry_run}), DreamReport)


class RemoteLearning:
    """The owner's side of learning (seed 003): what the console's learning page reads and decides,
    each a call of its declaration (`service.ops.learning`)."""

    status = performed(LearningService.status)
    queue = performed(LearningService.queue)
    intent = performed(LearningService.intent)
    failures = performed(LearningService.failures)
    list_records = performed(LearningService.list_records)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def owner_review(self, intent_id: str, verdict: str, reason: str) -> ReviewReceipt:
        args = learn.OwnerReviewArgs(intent_id=intent_id, verdict=verdict, reason=reason, actor="user")
        return self._wire.invoke(learn.OWNER_REVIEW, args)

    def revoke_record(self, record_id: str, request_id: str, reason: str = "", *, actor: str = "user") -> RecordRevoked:
        args = learn.RecordRevokeArgs(record_id=record_id, request_id=request_id, reason=reason or None, actor=actor)
        return self._wire.invoke(learn.RECORD_REVOKE, args)

    def edit_record(self, record_id: str, content: str) -> LearningRecord:
        args = learn.RecordEditArgs(record_id=record_id, content=content, actor="user")
        return self._wire.invoke(learn.RECORD_EDIT, args)


class RemoteMemory:
    """A home's memory as served by the service listening on `socket_path`. Open with `RemoteMemory.attach`."""

    overview = performed(Memory.overview)

    def __init__(self, config: Config, socket_path: Path, health: JsonObject, *, client: str = "console") -> None:
        """`client` is what this side tells the service it is: "console", or "command" for a `jiyi` command."""
        self._config = config
        self.socket_path = socket_path
        self._home = Path(str(health["home"]))
        self._schema_version = _whole(health["schema_version"])
        self.service_pid = _whole(health.get("pid") or 0)
        read_only = health.get("read_only")  # a service before protocol 1.8 does not say (it is then writable)
        self._read_only = read_only if isinstance(read_only, str) else None
        # The console and the commands act as the person: each connection presents the person's key, which the
        # service wrote in its home (`service/person_key.py`). Agents' clients never read it.
        self._wire = Wire(socket_path, hello=client, person=lambda: person_key.read_or_none(self._home))
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
        self.interchange = RemoteInterchange(self._follower)
        self._listeners: list[Listener] = []
        self._listeners_lock = threading.Lock()
        self.notices: NoticeReader | None = None

    @classmethod
    def attach(cls, config: Config, socket_path: Path, *, client: str = "console") -> RemoteMemory:
        """Attach to the service on `socket_path`; `EnvironmentProblem` when nobody answers there. The probe
        says what it is too: unnamed, it counted as an agent's request in the service's status."""
        probe = Wire(socket_path, hello=client)
        try:
            health = probe.call("health")
        finally:
            probe.close()
        if not isinstance(health, dict):
            raise EnvironmentProblem(f"the service on {socket_path} answered health with {type(health).__name__}")
        return cls(config, socket_path, health, client=client)

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
    def read_only(self) -> str | None:
        return self._read_only

    @property
    def attached_to(self) -> Path | None:
        return self.socket_path

    @property
    def connected(self) -> bool:
        """Whether the service answers change notices now (True until they are asked for)."""
        return self.notices is None or self.notices.is_connected or not self.notices.subscribed.is_set()

    def health(self) -> Health:
        return self._wire.invoke(status.HEALTH)

    def rebuild(self, progress: Progress | None = None) -> dict[str, int]:
        outcome = self._follower.run("rebuild", progress)
        self.integrity = str(outcome.get("integrity"))
        return msgspec.convert(outcome["counts"], dict[str, int])

    def service_status(self) -> status.ServiceStatus:
        """Who the service serves (`connections`, `by_kind`), `requests_last_minute`, and its running `job`."""
        return self._wire.invoke(status.SERVICE_STATUS)

    def import_taskwizard(
        self, directory: Path, progress: Callable[[int, int], None] | None = None, replaces: Path | None = None
    ) -> dict[str, ImportReport]:
        """The service imports (and indexes) the directory as its job; `progress` hears the indexing move.

        Cancelling (the console closing, Ctrl+C) stops following it; the service finishes the import.
        """
        params: JobParams = {"directory": str(Path(directory).resolve())}
        if replaces is not None:
            params["replaces"] = str(Path(replaces).expanduser().absolute())  # it may be gone: not resolved
        result = self._follower.run("taskwizard.import", progress, params)
        return msgspec.convert(result, dict[str, ImportReport])

    def export_taskwizard(self, directory: Path) -> dict[str, dict[str, int]]:
        args = upkeep.DirectoryArgs(directory=str(Path(directory).resolve()))
        exported: type[dict[str, dict[str, int]]] = dict
        return self._wire.invoke_as(upkeep.EXPORT, args, exported, long=True)

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


def _whole(value: Json) -> int:
    """A whole number the service's `health` holds (a number, or its text)."""
    if isinstance(value, int | float | str):
        return int(value)
    raise EnvironmentProblem(f"the service's health holds {value!r} where a number belongs")
