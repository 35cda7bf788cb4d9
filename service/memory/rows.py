"""The rows the console shows, as frozen typed structures: what the facade answers and the socket sends.

The desk's, episodes', lessons', recall's and learning's rows are built by the store where it reads them
(`store/desk/rows.py`, `store/episodes/rows.py`, `store/learning/rows.py`, re-exported here); what is still
built as a JSON object is turned into one of these once (`row(...)`). The operations declare them as their
results (`service/ops/`), the remote `Memory` decodes them straight from the socket, and the console reads
attributes.

Field names and order are the wire's: encoding a row gives the bytes the store's
object gave. A field a row may lack is `UNSET` (left out of the JSON, as before).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Required, TypedDict, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

from store.core.rows import Row
from store.desk.rows import (
    Bundle,
    BundleDetail,
    ConsolidationEntry,
    Document,
    DocumentEntry,
    Fact,
    FactEvidence,
    Skill,
    TaskCard,
    Topic,
    TopicDetail,
    TopicSegment,
    TopicTurn,
    Workday,
)
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

if TYPE_CHECKING:  # types only: a command attached to a service imports rows without the store's models
    from store.learning import adoption as store_adoption

# The store's rows, re-exported beside the facade's own (the names the console and the operations import).
__all__ = [
    "Bundle",
    "BundleDetail",
    "CandidateTarget",
    "ConsolidationEntry",
    "DailyRecallPoint",
    "Document",
    "DocumentEntry",
    "Episode",
    "EpisodeDetail",
    "Fact",
    "FactEvidence",
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
    "Skill",
    "TaskCard",
    "ToolEventRow",
    "Topic",
    "TopicDetail",
    "TopicSegment",
    "TopicTurn",
    "Workday",
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


# -- learning (seed 003): the pipeline's status and a verdict's receipt -------------------------


class GrantExtraction(Row, frozen=True):
    """The grant's extraction part: the owner, the extraction authority and its bounds."""

    owner: str
    authority_id: str
    expires_at: str
    max_extractions: int
    max_pending: int
    lookback: int  # seconds
    policy: str
    max_input_bytes: int
    max_output_tokens: int
    timeout: int  # seconds
    model: str | None


class GrantReview(Row, frozen=True):
    authority_id: str
    admissions: int


class GrantAdoption(Row, frozen=True):
    authority_id: str
    kinds: list[str]
    operations: list[str]
    max_records: int
    max_bytes: int
    ttl: int  # seconds


class GrantShown(Row, frozen=True):
    """The owner's grant as `learning.status` shows it: who, until when, and its three parts."""

    id: str
    owner: str
    expires_at: str
    extraction: GrantExtraction
    review: GrantReview
    adoption: GrantAdoption


class Quota(Row, frozen=True):
    used: int
    limit: int
    left: int  # never renewed


class OpenLeases(Row, frozen=True):
    operations: list[str]  # extraction leases
    reviews: list[str]


class LearningStatus(Row, frozen=True):
    """The learning pipeline now (`learning.status`): the grant, its fingerprints (configured and stored), the
    quotas used and left, the cursors, the intents by state, the open leases."""

    enabled: bool
    state: str  # active / stopped
    stopped_because: str | None
    grant: GrantShown | None
    fingerprints: dict[str, str] | None  # part -> sha256 of the configured grant's part
    stored_fingerprints: dict[str, str] | None  # as registered with the grant
    quotas: dict[str, Quota] | None  # extractions / reviews / mutations / bytes
    cursors: dict[str, int]  # feed -> the event seq scanned up to
    log_seq: int
    queue: dict[str, int]  # intents by state, every state
    pending: int
    max_pending: int | None
    records: int  # active adopted records
    open_leases: OpenLeases


class Adopted(Row, frozen=True, tag_field="outcome", tag="adopted"):
    """Adoption made the approved candidate a record."""

    record: LearningRecord


class AdoptionRefused(Row, frozen=True, tag_field="outcome", tag="refused"):
    """Adoption re-checked the grant, the sources and the target, and refused (nothing changed but the quota)."""

    reason: str


class AdoptionSkipped(Row, frozen=True, tag_field="outcome", tag="skipped"):
    """There was nothing to adopt: the intent is no longer approved (adopted by an earlier request)."""

    reason: str


Adoption = Adopted | AdoptionRefused | AdoptionSkipped
"""What adoption did after an approving verdict, tagged by `outcome`."""


def adoption_of(outcome: store_adoption.Adoption) -> Adoption:
    """The store's `{"adopted": record}`, `{"refused": why}` or `{"skipped": why}` as an `Adoption`."""
    if "adopted" in outcome:
        return Adopted(record=row(LearningRecord, outcome["adopted"]))
    if "refused" in outcome:
        return AdoptionRefused(reason=str(outcome["refused"]))
    return AdoptionSkipped(reason=str(outcome["skipped"]))


class ExtractionLease(TypedDict, total=False):
    """What `learning.extract.lease` hands a worker: the source to extract from, or `empty` (alone) when
    nothing waits. Built by the store and kept in its ledger, so a lost reply is answered the same again."""

    empty: bool  # true when nothing waits
    operation_id: str  # what the submission names
    # The store's `Snapshot` (store/learning/extraction.py: the source as stored, redacted, the policy, the
    # records it may touch, the deadline), as a plain object here: that module needs the database.
    snapshot: dict[str, Any]


class ExtractionReceipt(TypedDict, total=False):
    """What `learning.extract.submit` answers: accepted with its `outcome`, or not (`reason`: it came late)."""

    accepted: Required[bool]
    outcome: str  # "candidate" or "noop"
    reason: str  # why it was not accepted


class ReviewLease(TypedDict, total=False):
    """What `learning.review.lease` hands a reviewer: a candidate with its sources as stored, or `empty`
    (alone) when nothing waits."""

    empty: bool  # true when nothing waits
    review_id: str  # what the verdict names
    candidate: dict[str, object]  # the candidate as the extractor submitted it
    sources: list[dict[str, object]]  # each source as stored (redacted)
    feed: str  # completion / objective
    policy: str  # the owner's learning policy
    deadline: str  # ISO 8601: a verdict after it is late


class ReviewReceipt(Row, frozen=True):
    """A verdict's receipt (`learning.review.submit`, `learning.owner_review`).

    Accepted: `verdict`, `intent_id`, `intent_state`, and after an approval `adoption`. A late verdict:
    `accepted` false and `reason`. `record` and `adoption_refused` repeat `adoption` for the clients of
    protocol 1.5 and before, which read the outcome by which of the two is present."""

    accepted: bool
    verdict: str | UnsetType = UNSET
    intent_id: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET  # why a verdict was not accepted
    intent_state: str | None = None  # None: a late verdict's intent is not known
    record: LearningRecord | UnsetType = UNSET  # = adoption.record when adopted
    adoption_refused: str | UnsetType = UNSET  # = adoption.reason when refused
    adoption: Adoption | None = None  # None: no approval to adopt (a rejection, a late verdict)


class RecordRevoked(Row, frozen=True):
    """What `learning.record.revoke` did: revoked the record, or not (`reason`: it was no longer active)."""

    revoked: bool
    record_id: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET


# -- dream -----------------------------------------------------------------------------------


# One step of a dream pass: `step`, `ok` (or `error`), and what that step says of its work (`count`,
# `changes`, `removed`/`added`, `calibrations`…): each step's own keys (docs/dream.md), read by name.
DreamStep = dict[str, object]


class DreamRecord(Row, frozen=True, rename={"pass_": "pass"}):
    """A real dream pass as stored (`dream.reports`): its steps in order, and each step's count by name."""

    ts: float
    pass_: str  # full / light (`pass` on the wire)
    dry_run: bool  # always False: a dry run is not stored
    steps: list[DreamStep]  # each `step`, `ok`, and its own counts and changes (or `error`)
    changed: bool
    summary: dict[str, int]  # step -> what it changed


# -- interchange -------------------------------------------------------------------------------


class KindReport(Row, frozen=True):
    """What an import did with one kind of record: `reasons` names the first 20 refusals (`refused` counts them all)."""

    added: int
    skipped: int  # already in the home, the same
    refused: int
    reasons: list[str]


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
    outcome: dict[str, object] | None  # what the work answers (its own method's result)
    error: dict[str, str] | None  # {"code", "message"} when it failed
    phase: str | None = None  # an import's phase: reading, writing, indexing (None: work of one phase)
    phase_done: int = 0  # how far that phase got
    phase_total: int = 0
