"""Shadow recall (query, statistics, scored runs) and the lessons that `on`-mode recall hands out."""

from __future__ import annotations

from typing import Annotated

from service.memory.domain import Domain
from service.memory.recall_rows import RecallAnswer, RunTrace
from service.memory.results import RecallStatistics
from service.memory.rows import Lesson, LessonRuns
from service.ops.declare import Args, NoArgs, Operation, Reply, always, as_user
from service.ops.fields import MAX_NAME, Boolean, Choice, Epoch, Integer, Strings, Text
from store.core.errors import InvalidInput

MAX_LESSON_APPS = 50  # the packages a lesson is about
MAX_LESSON_RUNS = 50  # the runs it was learned from
LessonId = Annotated[str, Text(80)]
Actor = Annotated[str, Choice(("agent", "user"))]
Since = Annotated[float | None, Epoch()]


class RecallQueryArgs(Args, frozen=True):
    goal: Annotated[str, Text(8192)]
    device: Annotated[str, Text(128)]
    explain: Annotated[bool, Boolean()] = False  # every app weighed, below the threshold too


class WindowArgs(Args, frozen=True):
    since: Since = None
    until: Since = None


class RecallRunsArgs(Args, frozen=True):
    since: Since = None
    until: Since = None
    limit: Annotated[int, Integer(1, 1000)] = 200

    def check(self) -> None:
        if self.since is None or self.until is None:
            raise InvalidInput("params.since and params.until are required")


class RecallRuns(Reply, frozen=True):
    runs: list[RunTrace]  # recalled vs actual apps, newest first


class TraceArgs(Args, frozen=True):
    run_id: Annotated[str, Text(128)]


class RecallTrace(Reply, frozen=True):
    run_id: str
    trace: RunTrace | None  # None: the run had no recall


class RecallDevices(Reply, frozen=True):
    devices: list[str]


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


QUERY = Operation(
    "recall.query",
    RecallQueryArgs,
    RecallAnswer,
    kind="read",
    idempotent=True,
    description="What recall would return for a goal on a device now, and why; logs nothing, scores nothing.",
)
STATS = Operation(
    "recall.stats",
    WindowArgs,
    RecallStatistics,
    kind="read",
    idempotent=True,
    description="Recall quality over a window (epoch seconds): hit@1, contamination, package precision and "
    "recall, by day and by package, and each device's calibration.",
)
RUNS = Operation(
    "recall.runs",
    RecallRunsArgs,
    RecallRuns,
    kind="read",
    idempotent=True,
    description="The runs whose recall was scored between `since` and `until`, with what was recalled and "
    "what the agent really launched.",
)
TRACE = Operation(
    "recall.trace",
    TraceArgs,
    RecallTrace,
    kind="read",
    idempotent=True,
    description="What recall offered at the start of one run and how it was scored.",
)
DEVICES = Operation(
    "recall.devices",
    NoArgs,
    RecallDevices,
    kind="read",
    idempotent=True,
    description="The devices recall has past runs of.",
)
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

OPERATIONS = (QUERY, STATS, RUNS, TRACE, DEVICES, LESSON_ADD, LESSON_LIST, LESSON_RUNS, LESSON_APPROVE, LESSON_REVOKE)
