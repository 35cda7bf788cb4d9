"""The learning queue's and records' rows as the store answers them (seed 003; see `store.core.rows`)."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, UnsetType

from store.core.rows import Row

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
    # A run's goal and outcome, as its writer gave them (Any, as the wire's twin: `service/wire/learning.py`).
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
