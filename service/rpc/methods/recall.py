"""Shadow recall (query, statistics, scored runs) and the lessons that `on`-mode recall hands out."""

from __future__ import annotations

from service.memory.memory import Memory
from service.memory.recall_rows import RecallAnswer
from service.memory.results import RecallStatistics
from service.memory.rows import Lesson, LessonRuns
from service.ops import recall
from service.ops.declare import NoArgs
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("recall and lessons")


@TABLE.op(recall.QUERY)
def recall_query(memory: Memory, args: recall.RecallQueryArgs, _context: CallContext) -> RecallAnswer:
    return memory.recall.recall_query(args.goal, args.device, explain=args.explain)


@TABLE.op(recall.STATS)
def recall_stats(memory: Memory, args: recall.WindowArgs, _context: CallContext) -> RecallStatistics:
    return memory.recall.recall_statistics(args.since, args.until)


@TABLE.op(recall.RUNS)
def recall_runs(memory: Memory, args: recall.RecallRunsArgs, _context: CallContext) -> recall.RecallRuns:
    assert args.since is not None and args.until is not None  # RecallRunsArgs.check
    return recall.RecallRuns(runs=memory.recall.recall_runs(args.since, args.until, args.limit))


@TABLE.op(recall.TRACE)
def recall_trace(memory: Memory, args: recall.TraceArgs, _context: CallContext) -> recall.RecallTrace:
    return recall.RecallTrace(run_id=args.run_id, trace=memory.recall.recall_trace(args.run_id))


@TABLE.op(recall.DEVICES)
def recall_devices(memory: Memory, _args: NoArgs, _context: CallContext) -> recall.RecallDevices:
    return recall.RecallDevices(devices=memory.recall.recall_devices())


@TABLE.op(recall.LESSON_ADD)
def lesson_add(memory: Memory, args: recall.LessonAddArgs, _context: CallContext) -> Lesson:
    return memory.lessons.add_lesson(args.text, args.apps or [], runs=args.runs or [], actor=args.actor)


@TABLE.op(recall.LESSON_LIST)
def lesson_list(memory: Memory, args: recall.LessonListArgs, _context: CallContext) -> recall.Lessons:
    return recall.Lessons(lessons=memory.lessons.list_lessons(args.status))


@TABLE.op(recall.LESSON_RUNS)
def lesson_runs(memory: Memory, args: recall.LessonArgs, _context: CallContext) -> LessonRuns:
    return memory.lessons.lesson_runs(args.lesson_id)


@TABLE.op(recall.LESSON_APPROVE)
def lesson_approve(memory: Memory, args: recall.LessonStatusArgs, _context: CallContext) -> Lesson:
    return memory.lessons.set_lesson_status(args.lesson_id, "approved", actor="user")  # the person's (declared)


@TABLE.op(recall.LESSON_REVOKE)
def lesson_revoke(memory: Memory, args: recall.LessonStatusArgs, _context: CallContext) -> Lesson:
    return memory.lessons.set_lesson_status(args.lesson_id, "revoked", actor="user")  # the person's (declared)
