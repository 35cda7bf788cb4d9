"""Long work, waited for on the caller's connection (the host runs it off the request workers): the rebuilds,
a dream pass, a TaskWizard import, a desk export or import and an import of another system's facts; and
`job.start`, which starts the same work as a job to be followed (`service/memory/job_kinds.py` says what each
kind does, so that a job's outcome is the method's result). Named exceptions: each checks the home's size
budget first, or waits for its job. Declared in `service/ops/upkeep.py` and `service/ops/interchange.py`.
"""

from __future__ import annotations

from dataclasses import asdict

from service.memory import job_kinds
from service.memory.memory import Memory
from service.ops import interchange, upkeep
from service.ops.declare import NoArgs
from service.ops.interchange import DeskExported, DeskFolderArgs, DeskImported, FactsImportArgs
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable
from service.wire.results import DreamReport
from service.wire.upkeep import JobStatus, KindReport

TABLE = MethodTable("long work")


@TABLE.op(upkeep.REBUILD, long=True)
def rebuild(memory: Memory, _args: NoArgs, _context: CallContext) -> dict[str, object]:
    return job_kinds.wait(memory, "rebuild")


@TABLE.op(upkeep.VECTORS_REBUILD, long=True)
def vectors_rebuild(memory: Memory, _args: NoArgs, _context: CallContext) -> dict[str, object]:
    return job_kinds.wait(memory, "vectors.rebuild")


@TABLE.op(upkeep.JOB_START)
def job_start(memory: Memory, args: upkeep.JobStartArgs, _context: CallContext) -> JobStatus:
    return job_kinds.start(memory, args)


@TABLE.op(upkeep.DREAM_RUN, long=True)
def dream_run(memory: Memory, args: upkeep.DreamArgs, _context: CallContext) -> DreamReport:
    if not args.dry_run:
        job_kinds.check_budget(memory)
    return memory.dream.run(full=args.full, dry_run=args.dry_run)


@TABLE.op(upkeep.IMPORT, long=True)
def taskwizard_import(
    memory: Memory, args: upkeep.DirectoryArgs, _context: CallContext
) -> dict[str, dict[str, object]]:
    job_kinds.check_budget(memory)
    return {name: asdict(report) for name, report in memory.import_taskwizard(args.path).items()}


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
