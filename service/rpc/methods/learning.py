"""`learning.record.edit`: the one learning method that adapts. Its content is checked after the person's
check (an agent is refused `forbidden` before anything is said of its params), so not in its params' `check`.
Declared in `service/ops/learning.py`."""

from __future__ import annotations

from service.memory.memory import Memory
from service.ops import learning
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable
from service.wire.learning import LearningRecord
from store.core.errors import InvalidInput

TABLE = MethodTable("learning")


@TABLE.op(learning.RECORD_EDIT)
def learning_record_edit(memory: Memory, args: learning.RecordEditArgs, _context: CallContext) -> LearningRecord:
    if not args.content.strip():
        raise InvalidInput("params.content must be non-empty text")
    return memory.learning.edit_record(args.record_id, args.content)
