"""Maintenance of the desk memory: plan a batch, commit topics, facts and skill drafts; read topics,
workdays, facts and skills; a person's decisions on facts and skills."""

from __future__ import annotations

from typing import Annotated

from service.memory.domain import Domain
from service.ops.declare import Args, NoArgs, Operation, Person, Reply, always
from service.ops.fields import MAX_ID, Choice, Integer, Items, Text
from service.wire.desk import ConsolidationEntry, Fact, Skill, Topic, TopicDetail, Workday
from service.wire.results import MaintenancePlan, MaintenanceStatus
from store.core.errors import InvalidInput
from store.desk import fact_terms

# Items one commit may carry; each item's fields are capped where they are checked (store.desk).
MAX_COMMIT_ITEMS = {"topics": 500, "facts": 200, "skills": 50}
SKILL_STATUSES = ("draft", "active", "disabled", "rejected")
Id = Annotated[str, Text(MAX_ID)]
Offset = Annotated[int, Integer()]
Actor = Annotated[str, Choice(("agent", "user"))]


class PlanArgs(Args, frozen=True):
    limit: Annotated[int, Integer(1, 500)] = 50
    lease_seconds: Annotated[int | None, Integer(10, 86_400)] = None


class CommitArgs(Args, frozen=True):
    batch_id: Annotated[str | None, Text(64)] = None  # the plan's batch
    # Each item's fields are the desk store's to check (`store/desk`), and it names what is wrong.
    topics: Annotated[list[dict[str, object]] | None, Items(MAX_COMMIT_ITEMS["topics"])] = None
    facts: Annotated[list[dict[str, object]] | None, Items(MAX_COMMIT_ITEMS["facts"])] = None
    skills: Annotated[list[dict[str, object]] | None, Items(MAX_COMMIT_ITEMS["skills"])] = None
    note: Annotated[str | None, Text(2000)] = None

    def request(self) -> dict[str, object]:
        """The commit as the desk service takes it."""
        return {
            "batch_id": self.batch_id,
            "topics": self.topics or [],
            "facts": self.facts or [],
            "skills": self.skills or [],
            "note": self.note,
        }


class TopicArgs(Args, frozen=True):
    topic_id: Id
    limit: Annotated[int, Integer(1, 500)] = 50
    offset: Offset = 0


class SkillListArgs(Args, frozen=True):
    status: Annotated[str | None, Choice(SKILL_STATUSES)] = None
    audience: Annotated[str, Choice(("executor", "review"))] = "executor"  # executors read active skills only

    def check(self) -> None:
        if self.audience == "executor" and self.status not in (None, "active"):
            raise InvalidInput("executors read active skills only; pass audience: review to read drafts")


class Skills(Reply, frozen=True):
    skills: list[Skill]
    audience: str


class SkillArgs(Args, frozen=True):
    skill_id: Id


class SkillStatusArgs(Args, frozen=True):
    skill_id: Id
    status: Annotated[str, Choice(SKILL_STATUSES)]
    user_request: Annotated[str | None, Text(500)] = None  # what the user asked, quoted from their turn
    interaction_id: Annotated[str | None, Text(MAX_ID)] = None  # the user's turn in which they asked
    actor: Actor = "agent"

    @property
    def on_request(self) -> bool:
        """Seed 002's one path for an agent: activating a draft on the user's request, named by their turn."""
        return self.actor != "user" and self.status == "active" and bool(self.interaction_id and self.user_request)


def _decided_by_person(args: SkillStatusArgs) -> bool:
    return not args.on_request


class TopicListArgs(Args, frozen=True):
    text: Annotated[str | None, Text(256)] = None
    workday: Annotated[str | None, Text(10)] = None  # that day's topics (YYYY-MM-DD), neither text nor offset
    limit: Annotated[int, Integer(1, 1000)] = 100
    offset: Offset = 0

    def check(self) -> None:
        if self.workday is not None and (self.text is not None or self.offset):
            raise InvalidInput("params.workday lists that day's topics: give neither text nor offset with it")


class TopicPage(Reply, frozen=True):
    topics: list[Topic]
    next_offset: int | None


class WorkdayListArgs(Args, frozen=True):
    limit: Annotated[int, Integer(1, 1000)] = 30
    offset: Offset = 0


class WorkdayPage(Reply, frozen=True):
    workdays: list[Workday]
    next_offset: int | None


class LogArgs(Args, frozen=True):
    limit: Annotated[int, Integer(1, 1000)] = 50


class ConsolidationLog(Reply, frozen=True):
    entries: list[ConsolidationEntry]


class FactListArgs(Args, frozen=True):
    scope: Annotated[str | None, Choice(fact_terms.SCOPES)] = None
    status: Annotated[str | None, Choice(fact_terms.STATUSES)] = None
    text: Annotated[str | None, Text(256)] = None
    limit: Annotated[int, Integer(1, 1000)] = 200
    offset: Offset = 0


class FactPage(Reply, frozen=True):
    facts: list[Fact]
    next_offset: int | None


class FactStatusArgs(Args, frozen=True):
    fact_id: Id
    status: Annotated[str, Choice(("active", "inactive"))]
    reason: Annotated[str | None, Text(500)] = None
    actor: Actor = "agent"  # only `user` is accepted: a person decides


STATUS = Operation(
    "memory.maintenance.status",
    NoArgs,
    MaintenanceStatus,
    kind="read",
    idempotent=True,
    description="The desk memory's backlog: unfiled turns, idle time, the previous workday's review, leased batches.",
)
PLAN = Operation(
    "memory.maintenance.plan",
    PlanArgs,
    MaintenancePlan,
    kind="write",
    idempotent=False,
    description="Lease a batch of unfiled turns to file into topics, facts and skill drafts (then commit it).",
    changes=frozenset({Domain.DESK}),
)
COMMIT = Operation(
    "memory.maintenance.commit",
    CommitArgs,
    dict,
    kind="write",
    idempotent=True,
    description="Commit a leased batch: its topics, facts with evidence and skill drafts.",
    errors=("conflict", "not_found", "forbidden"),
    changes=frozenset({Domain.DESK}),
)
TOPIC_GET = Operation(
    "memory.topic.get",
    TopicArgs,
    TopicDetail,
    kind="read",
    idempotent=True,
    description="One topic with its turns, a page at a time.",
    errors=("not_found",),
)
SKILL_LIST = Operation(
    "memory.skill.list",
    SkillListArgs,
    Skills,
    kind="read",
    idempotent=True,
    description="Skills: the active ones for an executor; drafts too for `audience: review`.",
)
SKILL_GET = Operation(
    "memory.skill.get",
    SkillArgs,
    Skill,
    kind="read",
    idempotent=True,
    description="One skill with its steps and evidence.",
    errors=("not_found",),
)
SKILL_SET_STATUS = Operation(
    "memory.skill.set_status",
    SkillStatusArgs,
    Skill,
    kind="write",
    idempotent=True,
    description="Activate, disable or reject a skill: the person's decision. An agent may only activate a draft "
    "the user asked for in their latest turn: `interaction_id` names that turn, `user_request` quotes their words "
    "from it (recorded with the change, shown in the console with one click to revert).",
    errors=("not_found", "forbidden", "conflict"),
    changes=frozenset({Domain.DESK}),
    person=Person(
        "a skill's status",
        _decided_by_person,
        "unless an agent activates a draft the user asked for (interaction_id and user_request)",
        "an agent may activate a draft only when the user asked for it in their latest turn: remember that turn, "
        "then send status active with its interaction_id and the user's words from it as user_request",
    ),
)
TOPIC_LIST = Operation(
    "memory.topic.list",
    TopicListArgs,
    TopicPage,
    kind="read",
    idempotent=True,
    description="Topics, most recently active first, by text; or one workday's topics.",
)
WORKDAY_LIST = Operation(
    "memory.workday.list",
    WorkdayListArgs,
    WorkdayPage,
    kind="read",
    idempotent=True,
    description="Workdays (03:30 Asia/Shanghai to 03:30), newest first, with their reviews.",
)
CONSOLIDATION_LOG = Operation(
    "memory.consolidation.log",
    LogArgs,
    ConsolidationLog,
    kind="read",
    idempotent=True,
    description="The consolidations recorded, newest first.",
)
FACT_LIST = Operation(
    "memory.fact.list",
    FactListArgs,
    FactPage,
    kind="read",
    idempotent=True,
    description="Long-term facts with their verbatim evidence, by scope, status or text.",
)
FACT_SET_STATUS = Operation(
    "memory.fact.set_status",
    FactStatusArgs,
    Fact,
    kind="write",
    idempotent=True,
    description="Confirm or deactivate a fact by hand: the person's decision.",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.DESK}),
    person=always("confirming or retiring a fact by hand"),
)

OPERATIONS = (
    STATUS,
    PLAN,
    COMMIT,
    TOPIC_GET,
    SKILL_LIST,
    SKILL_GET,
    SKILL_SET_STATUS,
    TOPIC_LIST,
    WORKDAY_LIST,
    CONSOLIDATION_LOG,
    FACT_LIST,
    FACT_SET_STATUS,
)
