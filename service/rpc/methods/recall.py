"""Shadow recall (query, statistics, scored runs) and the lessons that `on`-mode recall hands out."""

from __future__ import annotations

from service.memory.memory import Memory
from service.memory.rows import Lesson
from service.ops import recall
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("recall and lessons")


@TABLE.op(recall.TRACE)
def recall_trace(memory: Memory, args: recall.TraceArgs, _context: CallContext) -> recall.RecallTrace:
    return recall.RecallTrace(run_id=args.run_id, trace=memory.recall.recall_trace(args.run_id))


@TABLE.op(recall.LESSON_ADD)
def lesson_add(memory: Memory, args: recall.LessonAddArgs, _context: CallContext) -> Lesson:
    return memory.lessons.add_lesson(args.text, args.apps or [], runs=args.runs or [], actor=args.actor)
