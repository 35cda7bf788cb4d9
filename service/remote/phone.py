"""The phone agent's memory (seed 000) of a home that a running service owns: `RemoteAppKb`, `RemoteRuns`,
`RemoteRecall` and `RemoteLessons`, the remote sides of `AppKbService`, `RunService`, `EpisodeRecallService`
and `LessonService` (`service/memory/`).

A facade method bound to its operation is `performed(Facade.method)` (`service/remote/calls.py`); the
others, which adapt, are written here, each a call of its declaration (`service.ops.appkb`, `.runs`,
`.episode_recall`, `.lessons`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from recall.verdict import Resolution
from service.memory.alias_outcome import LearnAliasOutcome
from service.ops import appkb as ops
from service.ops import episode_recall as recall
from service.ops import lessons, runs
from service.ops.runs import EpisodeListArgs
from service.remote import wire
from service.remote.calls import Deferred, performed
from service.remote.channel import JobFollower, Progress, Wire
from service.wire.episodes import Episode, Lesson
from service.wire.results import RecallStatistics
from store.appkb.entry import AppKbEntry, EntryKey
from store.appkb.results import ForgetAliasResult
from store.episodes.episode_filter import EpisodeFilter

if TYPE_CHECKING:  # the facade's classes as mypy reads them; at run time named only (see service/remote/calls.py)
    from service.memory.appkb import AppKbService
    from service.memory.episode_recall import EpisodeRecallService
    from service.memory.lessons import LessonService
    from service.memory.runs import RunService
else:
    AppKbService = Deferred("service.memory.appkb", "AppKbService")
    EpisodeRecallService = Deferred("service.memory.episode_recall", "EpisodeRecallService")
    LessonService = Deferred("service.memory.lessons", "LessonService")
    RunService = Deferred("service.memory.runs", "RunService")


class RemoteAppKb:
    """The App-KB's operations, each a call of its declaration (`service.ops.appkb`)."""

    alias_history = performed(AppKbService.alias_history)
    undo_change = performed(AppKbService.undo_change)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def resolve_app(self, name: str, *, device: str | None = None) -> Resolution:
        """Written out, not `performed`: `jiyi resolve` through a running service reads no facade module
        (tests/cli/test_startup.py)."""
        return self._wire.invoke(ops.RESOLVE, ops.ResolveArgs(name=name, device=device)).back()

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
        """A page of `limit` entries; with no limit, every entry (a page of 5,000 at a time)."""
        args = ops.ListArgs(device=device, kind=kind, include_stale=include_stale, text=text, order=order)
        rows: list[AppKbEntry] = []
        next_offset: int | None = offset
        while next_offset is not None:
            page = min(limit - len(rows), 5000) if limit is not None else 5000
            result = self._wire.invoke(
                ops.LIST, msgspec.structs.replace(args, limit=page, offset=next_offset, after=after)
            )
            rows += [entry.back() for entry in result.entries]
            next_offset = None if limit is not None and len(rows) >= limit else result.next_offset
            after = None  # a key starts the first page only
        return rows

    def count_aliases(self) -> int:
        return self._wire.invoke(ops.DEVICES).aliases

    def devices(self) -> list[str]:
        return self._wire.invoke(ops.DEVICES).devices

    def learn_alias(self, name: str, package: str, *, actor: str = "user") -> LearnAliasOutcome:
        return self._wire.invoke(ops.LEARN, ops.LearnArgs(name=name, package=package, actor=actor)).back()

    def forget_alias(self, name: str, *, actor: str = "user") -> ForgetAliasResult:
        return self._wire.invoke(ops.FORGET, ops.ForgetArgs(name=name, actor=actor)).back()


class RemoteRuns:
    """The episode archive's operations, each a call of its declaration (`service.ops.runs`)."""

    get_episode = performed(RunService.get_episode)
    revoke_episode = performed(RunService.revoke_episode)
    restore_episode = performed(RunService.restore_episode)

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


class RemoteRecall:
    """Episode recall's operations, each a call of its declaration (`service.ops.episode_recall`)."""

    recall_runs = performed(EpisodeRecallService.recall_runs)
    recall_devices = performed(EpisodeRecallService.recall_devices)
    recall_query = performed(EpisodeRecallService.recall_query)
    recall_trace = performed(EpisodeRecallService.recall_trace)

    def __init__(self, wire_: Wire, jobs: JobFollower) -> None:
        self._wire = wire_
        self._jobs = jobs

    def recall_statistics(self, since: float | None = None, until: float | None = None) -> RecallStatistics:
        """Written out, not `performed`: `jiyi recall-stats` through a running service reads no facade module
        (tests/cli/test_startup.py)."""
        return self._wire.invoke(recall.STATS, recall.WindowArgs(since=since, until=until))

    def rebuild_vectors(self, progress: Progress | None = None) -> dict[str, int]:
        return msgspec.convert(self._jobs.run("vectors.rebuild", progress), dict[str, int])


class RemoteLessons:
    """The lessons' operations, each a call of its declaration (`service.ops.lessons`)."""

    lesson_runs = performed(LessonService.lesson_runs)
    list_lessons = performed(LessonService.list_lessons)
    add_lesson = performed(LessonService.add_lesson)

    def __init__(self, wire_: Wire) -> None:
        self._wire = wire_

    def set_lesson_status(self, lesson_id: str, status: str, *, actor: str = "user") -> Lesson:
        operation = {"approved": lessons.LESSON_APPROVE, "revoked": lessons.LESSON_REVOKE}.get(status)
        if operation is None:
            raise wire.error_for("invalid_params", "status must be approved or revoked")
        return self._wire.invoke(operation, lessons.LessonStatusArgs(lesson_id=lesson_id, actor=actor))
