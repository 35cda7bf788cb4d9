"""Long work as jobs (`service/memory/job_kinds.py` says what each kind does): the rebuilds, which wait
for their job, and `job.start`; a job's status, cancel and the list are the facade's (`Jobs`)."""

from __future__ import annotations

from service.memory import job_kinds
from service.memory.memory import Memory
from service.memory.rows import JobStatus
from service.ops import upkeep
from service.ops.declare import NoArgs
from service.ops.upkeep import JobStartArgs
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("jobs")


@TABLE.op(upkeep.REBUILD, long=True)
def rebuild(memory: Memory, _args: NoArgs, _context: CallContext) -> dict[str, object]:
    return job_kinds.wait(memory, "rebuild")


@TABLE.op(upkeep.VECTORS_REBUILD, long=True)
def vectors_rebuild(memory: Memory, _args: NoArgs, _context: CallContext) -> dict[str, object]:
    return job_kinds.wait(memory, "vectors.rebuild")


@TABLE.op(upkeep.JOB_START)
def job_start(memory: Memory, args: JobStartArgs, _context: CallContext) -> JobStatus:
    return job_kinds.start(memory, args)
