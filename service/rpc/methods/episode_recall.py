"""Episode recall (`recall.*`): the one handler that adapts, a run's trace wrapped in its reply."""

from __future__ import annotations

from service.memory.memory import Memory
from service.ops import episode_recall as recall
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("episode recall")


@TABLE.op(recall.TRACE)
def recall_trace(memory: Memory, args: recall.TraceArgs, _context: CallContext) -> recall.RecallTrace:
    return recall.RecallTrace(run_id=args.run_id, trace=memory.recall.recall_trace(args.run_id))
