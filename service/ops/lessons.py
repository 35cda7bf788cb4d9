"""Lessons on the wire (`lesson.*`): short advice proposed by anyone, approved only by a person, handed out by
`on`-mode episode recall (`service.ops.episode_recall`); performed by `service.memory.lessons.LessonService`."""

from __future__ import annotations

from typing import Annotated

from service.memory.domain import Domain
from service.ops.declare import Args, Operation, Reply, always, as_user
from service.ops.fields import MAX_NAME, Choice, Strings, Text
from service.wire.episodes import Lesson, LessonRuns

MAX_LESSON_APPS = 50  # the packages a lesson is about
MAX_LESSON_RUNS = 50  # the runs it was learned from
LessonId = Annotated[str, Text(80)]
Actor = Annotated[str, Choice(("agent", "user"))]


class LessonAddArgs(Args, frozen=True):
    text: Annotated[str, Text(2000)]
    apps: Annotated[list[str] | None, Strings(MAX_LESSON_APPS, MAX_NAME)] = None
    runs: Annotated[list[str] | None, Strings(MAX_LESSON_RUNS, 128)] = None
    actor: Actor = "agent"


class LessonListArgs(Args, frozen=True):
    status: Annotated[str | None, Choice(("proposed", "approved", "revoked"))] = None


class Lessons(Reply, frozen=True):
    lessons: list[Lesson]


class LessonArgs(Args, frozen=True):
    lesson_id: LessonId


class LessonStatusArgs(Args, frozen=True):
    lesson_id: LessonId
    actor: Actor = "agent"


LESSON_ADD = Operation(
    "lesson.add",
    LessonAddArgs,
    Lesson,
    kind="write",
    idempotent=False,
    description="Propose a lesson about some apps, learned from some runs; agents get it in `on` mode only "
    "after a person approves it.",
    errors=("forbidden",),
    changes=frozenset({Domain.LESSONS}),
    person=as_user("a lesson in the person's name", "an agent proposes one: send actor agent, or no actor"),
)
LESSON_LIST = Operation(
    "lesson.list",
    LessonListArgs,
    Lessons,
    kind="read",
    idempotent=True,
    description="Lessons, optionally of one status (proposed, approved, revoked).",
)
LESSON_RUNS = Operation(
    "lesson.runs",
    LessonArgs,
    LessonRuns,
    kind="read",
    idempotent=True,
    description="The runs a lesson was learned from and the runs it was given to.",
    errors=("not_found",),
)
LESSON_APPROVE = Operation(
    "lesson.approve",
    LessonStatusArgs,
    Lesson,
    kind="write",
    idempotent=True,
    description="Approve a lesson: the person's act; an agent is refused.",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.LESSONS}),
    person=always("approving a lesson"),
)
LESSON_REVOKE = Operation(
    "lesson.revoke",
    LessonStatusArgs,
    Lesson,
    kind="write",
    idempotent=True,
    description="Take a lesson away: agents no longer get it. The person's act.",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.LESSONS}),
    person=always("revoking a lesson"),
)

OPERATIONS = (LESSON_ADD, LESSON_LIST, LESSON_RUNS, LESSON_APPROVE, LESSON_REVOKE)
