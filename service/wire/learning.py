"""The learning pipeline's rows on the wire (seed 003): the queue's intents and their sources, adopted
records, the pipeline's status, leases handed to workers and the receipts of their submissions.

The store reads its own rows (`store/learning/rows.py`); the facade hands them over as these (`wire.row.of`).
"""

from __future__ import annotations

from typing import Any, Required, TypedDict

from msgspec import UNSET, UnsetType

from service.wire.row import Row

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
    # A run's goal and outcome, as its writer gave them (Any, not object: msgspec's JSON Schema has no `object`).
    objective: dict[str, Any] | None
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


# -- the pipeline's status and a verdict's receipt ---------------------------------------------


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
