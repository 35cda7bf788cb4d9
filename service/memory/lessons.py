"""Lessons as a service of `Memory`: proposed by anyone, approved only by a person, given to agents in `on` mode."""

from __future__ import annotations

from collections.abc import Sequence

from service.memory.parts import Parts, check_actor
from service.ops import lessons as lesson_ops
from service.ops.perform import lists, performs
from service.wire.episodes import Lesson, LessonRuns
from service.wire.row import all_of, of
from store.core.errors import Forbidden, InvalidInput
from store.episodes import lessons

STATUSES = lessons.STATUSES


class LessonService:
    """Propose, approve, revoke and list lessons."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    @performs(lesson_ops.LESSON_ADD)
    def add_lesson(
        self, text: str, apps: Sequence[str] | None = (), *, runs: Sequence[str] | None = (), actor: str = "user"
    ) -> Lesson:
        """Propose a lesson for `apps`, learned from `runs` (agents get it in `on` mode only after a person
        approves it); None is no apps or runs."""
        check_actor(actor)
        apps, runs = apps or (), runs or ()
        with self.parts.writes:
            lesson = lessons.add(self.parts.store, text, apps, actor=actor, redactor=self.parts.redactor, runs=runs)
        self.parts.changed(lessons.DOMAIN)
        return of(Lesson, lesson)

    @performs(lesson_ops.LESSON_APPROVE, fixed={"status": "approved", "actor": "user"})
    @performs(lesson_ops.LESSON_REVOKE, fixed={"status": "revoked", "actor": "user"})
    def set_lesson_status(self, lesson_id: str, status: str, *, actor: str = "user") -> Lesson:
        """Approve or revoke a lesson. Approval is a person's act: agents cannot approve."""
        check_actor(actor)
        if status == "approved" and actor != "user":
            raise Forbidden("only a person approves lessons (approve it in the console or with the CLI)")
        with self.parts.writes:
            lesson = lessons.set_status(self.parts.store, lesson_id, status, actor=actor)
        self.parts.changed(lessons.DOMAIN)
        return of(Lesson, lesson)

    @performs(lesson_ops.LESSON_RUNS)
    def lesson_runs(self, lesson_id: str) -> LessonRuns:
        """The runs a lesson was learned from and the runs it was given to (`store.episodes.lessons.runs_of`)."""
        return of(LessonRuns, lessons.runs_of(self.parts.store, lesson_id))

    @staticmethod
    def statuses() -> tuple[str, ...]:
        """Every status a lesson can have: Jiyi's proposed / approved / revoked and the ones of lessons and
        procedure cards imported from TaskWizard (needs_review, auto_approved, superseded)."""
        return STATUSES

    @lists(lesson_ops.LESSON_LIST)
    def list_lessons(self, status: str | None = None) -> list[Lesson]:
        """Lessons, optionally of one status."""
        if status is not None and status not in STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(STATUSES)}")
        return all_of(Lesson, lessons.list_lessons(self.parts.store, status))
