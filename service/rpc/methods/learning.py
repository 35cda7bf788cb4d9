"""The learning pipeline's socket methods (seed 003): status, scan, the extraction and review leases and
their submissions, the adopted records. Every request that changes anything carries a `request_id` and is
idempotent by it; declared in `service/ops/learning.py`, and `docs/protocol.md` documents each method."""

from __future__ import annotations

from service.memory.memory import Memory
from service.memory.rows import (
    ExtractionLease,
    ExtractionReceipt,
    LearningIntentDetail,
    LearningRecord,
    LearningStatus,
    RecordRevoked,
    ReviewLease,
    ReviewReceipt,
)
from service.ops import learning as ops
from service.ops.declare import NoArgs
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable
from store.core.errors import InvalidInput

TABLE = MethodTable("learning")


@TABLE.op(ops.STATUS)
def learning_status(memory: Memory, _args: NoArgs, _context: CallContext) -> LearningStatus:
    return memory.learning.status()


@TABLE.op(ops.SCAN)
def learning_scan(memory: Memory, _args: NoArgs, _context: CallContext) -> dict[str, object]:
    return dict(memory.learning.scan())


@TABLE.op(ops.EXTRACT_LEASE)
def extract_lease(memory: Memory, args: ops.LeaseArgs, _context: CallContext) -> ExtractionLease:
    return memory.learning.extract_lease(args.request_id)


@TABLE.op(ops.EXTRACT_SUBMIT)
def extract_submit(memory: Memory, args: ops.ExtractSubmitArgs, _context: CallContext) -> ExtractionReceipt:
    return memory.learning.extract_submit(args.operation_id, args.request_id, args.result)


@TABLE.op(ops.REVIEW_LEASE)
def review_lease(memory: Memory, args: ops.LeaseArgs, _context: CallContext) -> ReviewLease:
    return memory.learning.review_lease(args.request_id, reviewer="worker")


@TABLE.op(ops.REVIEW_SUBMIT)
def review_submit(memory: Memory, args: ops.ReviewSubmitArgs, _context: CallContext) -> ReviewReceipt:
    return memory.learning.review_submit(args.review_id, args.request_id, args.verdict, args.reason)


@TABLE.op(ops.RECORDS_LIST)
def records_list(memory: Memory, args: ops.RecordListArgs, _context: CallContext) -> ops.Records:
    return ops.Records(
        records=memory.learning.list_records(args.state, limit=args.limit, offset=args.offset, after=args.after)
    )


# What the owner decides is the person's alone (the declarations): the dispatcher let only the person through.


@TABLE.op(ops.RECORD_REVOKE)
def record_revoke(memory: Memory, args: ops.RecordRevokeArgs, _context: CallContext) -> RecordRevoked:
    return memory.learning.revoke_record(args.record_id, args.request_id, args.reason or "", actor="user")


# What the owner's learning page reads, for a console attached to the service.


@TABLE.op(ops.QUEUE)
def learning_queue(memory: Memory, args: ops.QueueArgs, _context: CallContext) -> ops.Intents:
    return ops.Intents(
        intents=memory.learning.queue(args.state, limit=args.limit, offset=args.offset, after=args.after)
    )


@TABLE.op(ops.INTENT)
def learning_intent(memory: Memory, args: ops.IntentArgs, _context: CallContext) -> LearningIntentDetail:
    return memory.learning.intent(args.intent_id)


@TABLE.op(ops.FAILURES)
def learning_failures(memory: Memory, args: ops.FailuresArgs, _context: CallContext) -> ops.Intents:
    return ops.Intents(intents=memory.learning.failures(args.limit))


@TABLE.op(ops.OWNER_REVIEW)
def learning_owner_review(memory: Memory, args: ops.OwnerReviewArgs, _context: CallContext) -> ReviewReceipt:
    return memory.learning.owner_review(args.intent_id, args.verdict, args.reason)


@TABLE.op(ops.RECORD_EDIT)
def learning_record_edit(memory: Memory, args: ops.RecordEditArgs, _context: CallContext) -> LearningRecord:
    if not args.content.strip():
        raise InvalidInput("params.content must be non-empty text")
    return memory.learning.edit_record(args.record_id, args.content)
