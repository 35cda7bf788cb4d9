"""The desk's rows as the store answers them (seed 002; see `store.core.rows`): built where the store reads
them; the facade hands them over as the wire's (`service/wire/desk.py`). A field a row may lack is `UNSET`.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, UnsetType

from store.core.rows import Row

# -- facts, skills, topics, workdays ------------------------------------------------------------


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
    user_request: str  # an agent's activation: the user's words it quoted from their turn
    request_interaction_id: str | None = None  # and the turn in which the user asked (the change records both)


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
    """A task card, the one type of it: the card the store reads and the line a desk export writes
    (`task_cards.jsonl`, docs/interchange.md). The wire's card (`service/wire/desk.py`) leaves `epoch` out."""

    task_id: str
    title: str
    status: str
    result: str
    schedule_id: str | None
    run_id: str | None
    interaction_id: str | None
    source: str
    ts: str
    epoch: float  # when it was completed, in seconds (what orders the cards; `ts` says it as text)
    workday: str


class TopicTurn(Row, frozen=True):
    """One turn as the store reads it (`interactions.turn_row`)."""

    interaction_id: str
    ts: str
    workday: str
    source: str
    user_text: str
    assistant_text: str
    task_id: str | None
    topic_id: str | None


class StoredTopic(Row, frozen=True):
    """A topic with every field it has (the start of `TopicDetail` and `RecalledTopic`)."""

    topic_id: str
    title: str
    summary: str
    kind: str
    task_ids: list[str]
    first_workday: str
    last_workday: str
    interactions: int
    updated: str


class TopicDetail(StoredTopic, frozen=True):
    """A topic, its daily segments, its task cards and one page of its turns (`topic.get`)."""

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


# -- consolidation and bundles ---------------------------------------------------------------


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


# -- recall (`memory.recall`; `transition.assess` and `context.prepare` read the same) --------


class Signals(Row, frozen=True):
    """Why a related item ranks where it does: its full-text rank and BM25, its dense rank and similarity, and
    how far that similarity stands above what this memory and unrelated text give the question."""

    fused: float  # the fused value that orders the answer (the best item 1.0)
    fts_rank: int | None  # None: full text did not find it
    bm25: float | None
    dense_rank: int | None  # None: not among the question's nearest vectors (or the index took no part)
    similarity: float | None
    standing: float | None  # deviations above the question's background in this memory
    above_unrelated: float | None = None  # deviations above the question's similarity to unrelated text
    neighbour_of: str | UnsetType = UNSET  # admitted as the neighbour (the turn before or after) of this item


class RecalledTurn(TopicTurn, frozen=True, kw_only=True):
    """A turn in the answer: `related` (with `score` and `signals`) or `recent`."""

    score: float | UnsetType = UNSET
    signals: Signals | UnsetType = UNSET
    why: str  # related / recent


class RecalledCard(TaskCard, frozen=True, kw_only=True):
    """A task card in the answer: `related` (with `score` and `signals`) or `recent`."""

    score: float | UnsetType = UNSET
    signals: Signals | UnsetType = UNSET
    why: str  # related / recent


class RelatedCard(TaskCard, frozen=True, kw_only=True):
    """A task card related to a new message (`transition.assess`): how plainly (`score`) and why (`signals`)."""

    score: float
    signals: Signals


class DocumentRef(Row, frozen=True):
    path: str
    revision: int


class RecalledBundle(Row, frozen=True):
    """A bundle of a recalled scheduled task, or named like the query, with its documents' paths."""

    bundle_id: str
    key: str
    title: str
    updated: str
    documents: list[DocumentRef]
    score: float  # word overlap with the query


class WorkdayTopic(Row, frozen=True):
    topic_id: str
    title: str
    kind: str
    segment: str  # the topic's summary of that day


class RecentWorkday(Row, frozen=True):
    """A recent workday and the topics it touched (the first few of `total_topics`)."""

    workday: str
    topics: list[WorkdayTopic]
    total_topics: int


class LatestSegment(Row, frozen=True):
    workday: str
    summary: str


class RecalledTopic(StoredTopic, frozen=True):
    """A topic related to the query, with its latest daily segment."""

    score: float
    signals: Signals
    latest_segment: LatestSegment | None


class CoreFact(Row, frozen=True):
    """An active profile fact: always in the answer (the newest few)."""

    fact_id: str
    scope: str
    profile_kind: str | None
    project: str | None
    content: str
    status: str
    status_reason: str
    first_workday: str
    updated: str
    workdays: list[str]


class RelatedFact(CoreFact, frozen=True):
    """An active project or environment fact related to the query."""

    score: float
    signals: Signals


class RelevantSkill(Skill, frozen=True, kw_only=True):
    """An active skill named like the query."""

    score: float
