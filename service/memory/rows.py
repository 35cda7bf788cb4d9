"""The rows the console shows, as frozen typed structures: what the facade answers and the socket sends.

The store builds its rows as JSON objects (they are also replayed, indexed and
exported); the facade turns each into one of these once (`row(...)`), the
operations declare them as their results (`service/ops/`), the remote `Memory`
decodes them straight from the socket, and the console reads attributes.

Field names and order are the wire's: encoding a row gives the bytes the store's
object gave. A field a row may lack is `UNSET` (left out of the JSON, as before).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

T = TypeVar("T", bound=msgspec.Struct)


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """A row the console shows: frozen, decoded once at the socket."""


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


# -- episodes ----------------------------------------------------------------------------------


class Episode(Row, frozen=True, kw_only=True):
    """An archived run: the reference's `episode_outcome` record and whether it is revoked (`episode.list`).

    The archive keeps each record with its keys sorted, so its fields are in that order here (then `revoked`).
    The fields the reference added over time are `UNSET` on a record written before them (and left out of
    its JSON, as the record has none)."""

    apps: list[str]
    capabilities: dict[str, str] | UnsetType = UNSET
    day_of_week: int
    deliverable_path: str | UnsetType | None = UNSET
    device_scope: str
    goal_text: str
    injected_lessons: list[str] | UnsetType = UNSET
    injected_procedures: list[str] | UnsetType = UNSET
    reason: str
    run_id: str
    schema_v: int
    steps: int
    success: bool
    takeover: str | None
    time_of_day: str  # night / morning / afternoon / evening
    tokens_by_role: dict[str, int]
    tokens_total: int
    ts_end: float
    ts_start: float
    type: str  # "episode_outcome"
    verifier: str  # pass / fail / skipped
    warnings: int
    revoked: bool


class ToolEventRow(Row, frozen=True):
    """One tool receipt of a run's timeline."""

    step: int
    ts: float
    tool: str
    result_class: str
    app_package: str | None
    intent: str | None
    note: str | None


class EpisodeDetail(Episode, frozen=True, kw_only=True):
    """An archived run with its tool-event timeline, in step order (`episode.get`)."""

    events: list[ToolEventRow]

    def listed(self) -> Episode:
        """The run as `episode.list` lists it (without its timeline)."""
        fields = {name: getattr(self, name) for name in Episode.__struct_fields__}
        return Episode(**fields)


# -- learning (seed 003) -----------------------------------------------------------------------


class CandidateTarget(Row, frozen=True):
    """The adopted record a candidate updates or removes, at the version the extractor read."""

    id: str
    version: int


class LearningCandidate(Row, frozen=True):
    """What an extractor proposed from one source (`store.learning.candidate.Candidate`), its keys sorted as
    the intent keeps them."""

    content: str
    kind: str  # fact / lesson / procedure / skill_draft
    operation: str  # add / update / remove
    quotations: list[str]  # verbatim from the source
    target: CandidateTarget | UnsetType = UNSET  # an update's or removal's record


class LearningIntent(Row, frozen=True):
    """One source waiting for, or through, extraction, review and adoption (`learning.queue`)."""

    intent_id: str
    grant_id: str
    feed: str
    source_kind: str  # interaction / task / run
    source_id: str
    source_fp: str
    state: str
    reason: str
    candidate: LearningCandidate | None
    queued: str
    updated: str


class LearningSource(Row, frozen=True):
    """A source as stored now: the turns an extractor saw and a reviewer re-reads."""

    kind: str
    id: str
    ts: str
    turns: list[dict[str, str]]  # {"role", "text"}
    objective: dict[str, Any] | None  # a run's goal and outcome, as its writer gave them
    retracted: bool
    fingerprint: str


class IntentOperation(Row, frozen=True):
    operation_id: str
    state: str
    reason: str
    created: str


class IntentReview(Row, frozen=True):
    review_id: str
    reviewer: str  # "owner", or a reviewer worker's name
    state: str
    reason: str
    created: str


class LearningIntentDetail(LearningIntent, frozen=True, kw_only=True):
    """An intent with its source as stored now, its extraction leases and its reviews (`learning.intent`)."""

    source: LearningSource | None
    source_changed: bool
    operations: list[IntentOperation]
    reviews: list[IntentReview]


class LearningRecord(Row, frozen=True):
    """An adopted record with its provenance (`learning.records.list`)."""

    id: str
    version: int
    kind: str
    content: str
    state: str  # active / removed / revoked / expired
    managed: bool  # learning may still replace it (not edited by the owner, its target intact)
    target: str  # fact:<id> / lesson:<id> / skill:<id>
    provenance: dict[str, Any]  # sources, quotations, review and grant, as adoption wrote them
    expires_at: str
    created: str
    updated: str
    reason: str


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


def adoption_of(outcome: dict[str, Any]) -> Adoption:
    """The store's `{"adopted": record}`, `{"refused": why}` or `{"skipped": why}` as an `Adoption`."""
    if "adopted" in outcome:
        return Adopted(record=row(LearningRecord, outcome["adopted"]))
    if "refused" in outcome:
        return AdoptionRefused(reason=str(outcome["refused"]))
    return AdoptionSkipped(reason=str(outcome["skipped"]))


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


# -- lessons ---------------------------------------------------------------------------------


class Lesson(Row, frozen=True):
    """A lesson (or a procedure card imported from TaskWizard) and its status (`lesson.list`)."""

    lesson_id: str
    text: str
    apps: list[str]  # the packages it is about
    status: str  # proposed / approved / revoked (and TaskWizard's own)
    kind: str
    version: int
    created: str
    updated: str


class LessonRun(Row, frozen=True):
    """A run a lesson was learned from or given to; an unarchived run has only its id."""

    run_id: str
    archived: bool
    goal_text: str | UnsetType = UNSET
    ts_end: float | UnsetType = UNSET
    success: bool | UnsetType = UNSET


class LessonRuns(Row, frozen=True):
    """The runs a lesson was learned from and the runs it was given to (`lesson.runs`)."""

    learned_from: list[LessonRun]
    given_to: list[LessonRun]


# -- recall ------------------------------------------------------------------------------------


class DailyRecallPoint(Row, frozen=True):
    """One local day of scored shadow recall: its counters and rates (the recall page's charts)."""

    day: str  # YYYY-MM-DD, local
    evaluations: int
    recall_runs: int
    hits: int
    hit_at_1_count: int
    contaminated_runs: int
    package_true_positives: int
    package_predictions: int
    package_actuals: int
    hit_rate: float
    hit_at_1: float
    conditional_hit_rate: float
    contaminated_run_rate: float
    package_precision: float
    package_recall: float
    abstain_rate: float


# -- dream -----------------------------------------------------------------------------------


class DreamRecord(Row, frozen=True, rename={"pass_": "pass"}):
    """A real dream pass as stored (`dream.reports`): its steps in order, and each step's count by name."""

    ts: float
    pass_: str  # full / light (`pass` on the wire)
    dry_run: bool  # always False: a dry run is not stored
    steps: list[dict[str, Any]]  # each `step`, `ok`, and its own counts and changes (or `error`)
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
    outcome: dict[str, Any] | None  # what the work answers (its own method's result)
    error: dict[str, str] | None  # {"code", "message"} when it failed
