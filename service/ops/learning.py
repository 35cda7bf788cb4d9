"""The learning pipeline (seed 003): status, scan, the extraction and review leases and their submissions,
the adopted records, and what the owner reads and decides. Every request that changes anything carries a
`request_id` and is idempotent by it."""

from __future__ import annotations

from typing import Annotated, Any

from service.memory.domain import Domain
from service.ops.declare import Args, NoArgs, Operation, Reply, always
from service.ops.fields import MAX_ID, Choice, Document, Integer, Raw, Text, text_key
from service.wire.learning import (
    ExtractionLease,
    ExtractionReceipt,
    LearningIntent,
    LearningIntentDetail,
    LearningRecord,
    LearningStatus,
    RecordRevoked,
    ReviewLease,
    ReviewReceipt,
)
from store.learning.states import INTENT_STATES, RECORD_STATES

RESULT_BYTES = 64 * 1024
REASON_CHARS = 2000
Id = Annotated[str, Text(MAX_ID)]
Reason = Annotated[str, Text(REASON_CHARS)]
Actor = Annotated[str, Choice(("agent", "user"))]
Offset = Annotated[int, Integer()]


class LeaseArgs(Args, frozen=True):
    request_id: Id  # the worker's own id: asking again with it answers the same lease


class ExtractSubmitArgs(Args, frozen=True):
    operation_id: Id
    request_id: Id
    result: Annotated[dict[str, Any] | None, Document(RESULT_BYTES)] = None  # the candidate, or none (a no-op)


class ReviewSubmitArgs(Args, frozen=True):
    review_id: Id
    request_id: Id
    verdict: Annotated[str, Text(32)]
    reason: Reason


class RecordListArgs(Args, frozen=True):
    state: Annotated[str | None, Choice(RECORD_STATES)] = None
    limit: Annotated[int, Integer(1, 1000)] = 200
    offset: Offset = 0
    # Keyset paging: the `[updated, id]` of the last record the client holds; the page starts after it.
    after: Annotated[tuple[str, str] | None, Raw()] = None

    def check(self) -> None:
        text_key(self.after, ("updated", "id"))


class Records(Reply, frozen=True):
    records: list[LearningRecord]


class RecordRevokeArgs(Args, frozen=True):
    record_id: Id
    request_id: Id
    reason: Annotated[str | None, Text(REASON_CHARS)] = None
    actor: Actor = "agent"


class QueueArgs(Args, frozen=True):
    state: Annotated[str | None, Choice(INTENT_STATES)] = None
    limit: Annotated[int, Integer(1, 1000)] = 100
    offset: Offset = 0
    # Keyset paging: the `[updated, intent_id]` of the last intent the client holds; the page starts after it.
    after: Annotated[tuple[str, str] | None, Raw()] = None

    def check(self) -> None:
        text_key(self.after, ("updated", "intent_id"))


class Intents(Reply, frozen=True):
    intents: list[LearningIntent]


class IntentArgs(Args, frozen=True):
    intent_id: Id


class FailuresArgs(Args, frozen=True):
    limit: Annotated[int, Integer(1, 1000)] = 100


class OwnerReviewArgs(Args, frozen=True):
    intent_id: Id
    verdict: Annotated[str, Text(32)]
    reason: Reason
    actor: Actor = "agent"  # only `user` is accepted: the owner's act


class RecordEditArgs(Args, frozen=True):
    record_id: Id
    content: Reason
    actor: Actor = "agent"  # only `user` is accepted: the owner's act


STATUS = Operation(
    "learning.status",
    NoArgs,
    LearningStatus,
    kind="read",
    idempotent=True,
    description="The learning pipeline: the owner's grant, quotas left, cursors, intents by state.",
)
SCAN = Operation(
    "learning.scan",
    NoArgs,
    dict,
    kind="write",
    idempotent=True,
    description="Discover finished work since the cursors and queue it for extraction.",
    changes=frozenset({Domain.LEARNING, Domain.DESK, Domain.LESSONS}),
)
EXTRACT_LEASE = Operation(
    "learning.extract.lease",
    LeaseArgs,
    ExtractionLease,
    kind="write",
    idempotent=True,
    description="Lease the next source to extract a candidate from (the sources' text, within the grant).",
    errors=("busy", "forbidden"),
    changes=frozenset({Domain.LEARNING}),
)
EXTRACT_SUBMIT = Operation(
    "learning.extract.submit",
    ExtractSubmitArgs,
    ExtractionReceipt,
    kind="write",
    idempotent=True,
    description="Submit the candidate extracted from a leased source (at most one; none for a no-op).",
    errors=("not_found", "conflict", "forbidden"),
    changes=frozenset({Domain.LEARNING, Domain.DESK, Domain.LESSONS}),
)
REVIEW_LEASE = Operation(
    "learning.review.lease",
    LeaseArgs,
    ReviewLease,
    kind="write",
    idempotent=True,
    description="Lease the next candidate to review independently, with its original sources.",
    errors=("busy", "forbidden"),
    changes=frozenset({Domain.LEARNING}),
)
REVIEW_SUBMIT = Operation(
    "learning.review.submit",
    ReviewSubmitArgs,
    ReviewReceipt,
    kind="write",
    idempotent=True,
    description="Submit a review's verdict and reason; an approved candidate is adopted inside the grant.",
    errors=("not_found", "conflict", "forbidden"),
    changes=frozenset({Domain.LEARNING, Domain.DESK, Domain.LESSONS}),
)
RECORDS_LIST = Operation(
    "learning.records.list",
    RecordListArgs,
    Records,
    kind="read",
    idempotent=True,
    description="The records learning adopted, by state.",
    aliases=("learning.record.list",),
)
RECORD_REVOKE = Operation(
    "learning.record.revoke",
    RecordRevokeArgs,
    RecordRevoked,
    kind="write",
    idempotent=True,
    description="Revoke an adopted record (its fact or experience stops reaching tasks). The owner's act.",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.LEARNING, Domain.DESK, Domain.LESSONS}),
    person=always("revoking an adopted record"),
)
QUEUE = Operation(
    "learning.queue",
    QueueArgs,
    Intents,
    kind="read",
    idempotent=True,
    description="The learning intents, by state, for the owner's page.",
)
INTENT = Operation(
    "learning.intent",
    IntentArgs,
    LearningIntentDetail,
    kind="read",
    idempotent=True,
    description="One learning intent with its sources, candidate, reviews and outcome.",
    errors=("not_found",),
)
FAILURES = Operation(
    "learning.failures",
    FailuresArgs,
    Intents,
    kind="read",
    idempotent=True,
    description="The intents that failed, newest first.",
)
OWNER_REVIEW = Operation(
    "learning.owner_review",
    OwnerReviewArgs,
    ReviewReceipt,
    kind="write",
    idempotent=True,
    description="The owner reviews a candidate in the reviewer's place.",
    errors=("not_found", "conflict", "forbidden"),
    changes=frozenset({Domain.LEARNING, Domain.DESK, Domain.LESSONS}),
    person=always("the owner's review"),
)
RECORD_EDIT = Operation(
    "learning.record.edit",
    RecordEditArgs,
    LearningRecord,
    kind="write",
    idempotent=True,
    description="The owner edits an adopted record's content (it becomes the owner's).",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.LEARNING, Domain.DESK, Domain.LESSONS}),
    person=always("editing an adopted record"),
)

OPERATIONS = (
    STATUS,
    SCAN,
    EXTRACT_LEASE,
    EXTRACT_SUBMIT,
    REVIEW_LEASE,
    REVIEW_SUBMIT,
    RECORDS_LIST,
    RECORD_REVOKE,
    QUEUE,
    INTENT,
    FAILURES,
    OWNER_REVIEW,
    RECORD_EDIT,
)
