"""The desk memory in and out in open formats (docs/interchange.md), declared in `service/ops/interchange.py`.

Each waits for its work on the caller's connection (a long method); the same work started as a job of the
same kind (`job.start`) is `service/memory/job_kinds.py`'s too, so that a client follows its progress and
gets the same report as the job's outcome.
"""

from __future__ import annotations

from service.memory import job_kinds
from service.memory.memory import Memory
from service.memory.rows import KindReport
from service.ops import interchange
from service.ops.interchange import DeskExported, DeskFolderArgs, DeskImported, FactsImportArgs
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("interchange")


@TABLE.op(interchange.DESK_EXPORT, long=True)
def desk_export(memory: Memory, args: DeskFolderArgs, _context: CallContext) -> DeskExported:
    return job_kinds.export_desk(memory, args.path)


@TABLE.op(interchange.DESK_IMPORT, long=True)
def desk_import(memory: Memory, args: DeskFolderArgs, _context: CallContext) -> DeskImported:
    job_kinds.check_budget(memory)
    return job_kinds.import_desk(memory, args.path)


@TABLE.op(interchange.FACTS_IMPORT, long=True)
def facts_import(memory: Memory, args: FactsImportArgs, _context: CallContext) -> KindReport:
    job_kinds.check_budget(memory)
    return job_kinds.import_facts(memory, args.system, args.path, args.scope)
