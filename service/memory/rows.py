"""The rows the console shows, as frozen typed structures: what the facade answers and the socket sends.

The episodes', lessons', recall's and learning's rows are built by the store where it reads them
(`store/episodes/rows.py`, `store/learning/rows.py`, re-exported here). The desk's rows are built as JSON
objects (they are also replayed, indexed and exported); the facade turns each into one of these once
(`row(...)`). The operations declare them as their results (`service/ops/`), the remote `Memory` decodes
them straight from the socket, and the console reads attributes.

Field names and order are the wire's: encoding a row gives the bytes the store's
object gave. A field a row may lack is `UNSET` (left out of the JSON, as before).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from store.core.rows import Row
from store.episodes.rows import (
    DailyRecallPoint,
    Episode,
    EpisodeDetail,
    Lesson,
    LessonRun,
    LessonRuns,
    ToolEventRow,
)
from store.learning.rows import (
    CandidateTarget,
    IntentOperation,
    IntentReview,
    LearningCandidate,
    LearningIntent,
    LearningIntentDetail,
    LearningRecord,
    LearningSource,
)

# The store's rows, re-exported beside the facade's own (the names the console and the operations import).
__all__ = [
    "CandidateTarget",
    "DailyRecallPoint",
    "Episode",
    "EpisodeDetail",
    "IntentOperation",
    "IntentReview",
    "LearningCandidate",
    "LearningIntent",
    "LearningIntentDetail",
    "LearningRecord",
    "LearningSource",
    "Lesson",
    "LessonRun",
    "LessonRuns",
    "Row",
    "ToolEventRow",
]

T = TypeVar("T", bound=msgspec.Struct)


def row(kind: type[T], data: object) -> T:
    """`data` (the store's JSON object) as a `kind`; a field it lacks or mistypes is a bug, raised here."""
    return msgspec.convert(data, kind)


def rows(kind: type[T], data: Iterable[object]) -> list[T]:
    """Each of `data` as a `kind`."""
    return msgspec.convert(list(data), list[kind])  # type: ignore[valid-type]


def value_of(record: object, name: str) -> object:
    """The field `name` of `record` (None when it has none, or it is unset): what a table column shows."""
    value = getattr(record, name, None)
    return None if value is UNSET else value


# -- desk: facts, skills, topics, workdays, bundles ---------------------------------------------


class FactEvidence(Row, frozen=True):
    source_kind: str  # interaction / task
    source_id: str
    speaker: str  # user / assistant / task
    quote: str
    workday: str
    counts: bool  # independent evidence (user words or a task result), not a restatement


class Fact(Row, frozen=True):
    """A long-term fact with its evidence (`fact.list`, `fact.set_status`)."""

    fact_id: str
    scope: str  # profile / project / environment
    profile_kind: str | None
    project: str | None
    content: str
    status: str  # candidate / active / inactive
    status_reason: str
    workdays: list[str]  # workdays with independent evidence
    first_workday: str
    updated: str
    evidence: list[FactEvidence]


class Skill(Row, frozen=True):
    """A skill draft or an activated skill (`skill.list`, `skill.set_status`)."""

    skill_id: str
    name: str
    text: str
    status: str  # draft / active / disabled / rejected
    source_interaction_id: str | None
    source_quote: str  # the user's guidance it came from, verbatim
    created: str
    updated: str
    decided_by: str
    user_request: str


class Topic(Row, frozen=True, kw_only=True, omit_defaults=True):
    """A topic as `topic.list` lists it; listed for one workday it has that day's `segment` and no
    `task_ids` nor `updated`."""

    topic_id: str
    title: str
    summary: str
    kind: str  # task / chat / discussion
    task_ids: list[str] | UnsetType = UNSET
    first_workday: str
    last_workday: str
    interactions: int
    updated: str | UnsetType = UNSET
    segment: str | UnsetType = UNSET  # listed for one workday: that day's summary


class TopicSegment(Row, frozen=True):
    workday: str
    summary: str
    updated: str


class TaskCard(Row, frozen=True):
    """A task card linked to a topic (the store's `card_dict`)."""

    task_id: str
    title: str
    status: str
    result: str
    schedule_id: str | None
    run_id: str | None
    interaction_id: str | None
    source: str
    ts: str
    workday: str


class TopicTurn(Row, frozen=True):
    """One interaction of a topic (the store's `interaction_dict`)."""

    interaction_id: str
    ts: str
    workday: str
    source: str
    user_text: str
    assistant_text: str
    task_id: str | None
    topic_id: str | None


class TopicDetail(Row, frozen=True):
    """A topic, its daily segments, its task cards and one page of its turns (`topic.get`)."""

    topic_id: str
    title: str
    summary: str
    kind: str
    task_ids: list[str]
    first_workday: str
    last_workday: str
    interactions: int
    updated: str
    segments: list[TopicSegment]
    tasks: list[TaskCard]
    items: list[TopicTurn]
    next_offset: int | None


class Workday(Row, frozen=True):
    """A workday with activity (`workday.list`)."""

    workday: str
    interactions: int
    segments: int  # topics with a segment that day
    reviewed: bool  # whether its daily review ran


class ConsolidationEntry(Row, frozen=True):
    """One line of the consolidation log (`consolidation.log`)."""

    ts: str
    kind: str
    workday: str | None
    summary: str
    detail: dict[str, Any]  # the writer's own detail (redacted when recorded)
    actor: str


class DocumentEntry(Row, frozen=True):
    """A bundle document as listed (no content)."""

    path: str
    revision: int
    updated: str
    actor: str


class Document(Row, frozen=True):
    """A bundle document with its content and the state of its mirrored file."""

    path: str
    revision: int
    updated: str
    actor: str
    content: str
    file: str  # its mirrored file: same / missing / edited_outside / unsafe / unwritable


class Bundle(Row, frozen=True):
    """A bundle folder with its documents (`bundle.list`)."""

    bundle_id: str  # "<kind>/<key>"
    kind: str
    key: str
    title: str
    created: str
    updated: str
    documents: list[DocumentEntry]


class BundleDetail(Row, frozen=True):
    """A bundle with its documents' contents (`bundle.get`)."""

    bundle_id: str
    kind: str
    key: str
    title: str
    created: str
    updated: str
    directory: str  # where its files are mirrored
    documents: list[Document]


# -- jobs --------------------------------------------------------------------------------------


class JobStatus(Row, frozen=True):
    """A job as its clients see it: how far it got, and its outcome or error once it ended (`job.status`)."""

    job_id: str
    kind: str  # rebuild / vectors.rebuild / taskwizard.import / dream
    state: str  # running / done / failed / cancelled
    done: int
    total: int
    started: float
    finished: float | None
    cancel_requested: bool
    cancellable: bool
    outcome: dict[str, Any] | None  # what the work answers (its own method's result)
    error: dict[str, str] | None  # {"code", "message"} when it failed
