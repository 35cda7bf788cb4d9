"""Lessons (`lesson.*`): the one handler that adapts, a proposal's optional lists given as empty ones."""

from __future__ import annotations

from service.memory.memory import Memory
from service.memory.rows import Lesson
from service.ops import lessons
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("lessons")


@TABLE.op(lessons.LESSON_ADD)
def lesson_add(memory: Memory, args: lessons.LessonAddArgs, _context: CallContext) -> Lesson:
    return memory.lessons.add_lesson(args.text, args.apps or [], runs=args.runs or [], actor=args.actor)
