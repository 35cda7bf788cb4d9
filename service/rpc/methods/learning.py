"""The learning pipeline's socket methods (seed 003): status, scan, the extraction and review leases and
their submissions, the adopted records. Every request that changes anything carries a `request_id` and is
idempotent by it; declared in `service/ops/learning.py`, and `docs/protocol.md` documents each method."""

from __future__ import annotations

from service.memory.memory import Memory
from service.memory.rows import (
    LearningRecord,
    RecordRevoked,
)
from service.ops import learning as ops
from service.ops.declare import NoArgs
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable
from store.core.errors import InvalidInput

TABLE = MethodTable("learning")


@TABLE.op(ops.SCAN)
def learning_scan(memory: Memory, _args: NoArgs, _context: CallContext) -> dict[str, object]:
    return dict(memory.learning.scan())


# What the owner decides is the person's alone (the declarations): the dispatcher let only the person through.


@TABLE.op(ops.RECORD_REVOKE)
def record_revoke(memory: Memory, args: ops.RecordRevokeArgs, _context: CallContext) -> RecordRevoked:
    return memory.learning.revoke_record(args.record_id, args.request_id, args.reason or "", actor="user")


# What the owner's learning page reads, for a console attached to the service.


@TABLE.op(ops.RECORD_EDIT)
def learning_record_edit(memory: Memory, args: ops.RecordEditArgs, _context: CallContext) -> LearningRecord:
    if not args.content.strip():
        raise InvalidInput("params.content must be non-empty text")
    return memory.learning.edit_record(args.record_id, args.content)
