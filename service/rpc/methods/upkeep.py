"""The whole home: the overview, dream passes, TaskWizard import and export.

These are the console's and the commands' operations, offered on the socket so
that a console or a `jiyi` command attached to a running service can do what
they would do on a home of their own. They take long (seconds to minutes):
a client gives them a long timeout. The rebuilds are jobs (`service/rpc/methods/jobs.py`), and an
import may be started as one to be followed. Declared in `service/ops/upkeep.py`.
"""

from __future__ import annotations

from dataclasses import asdict

from service.memory import job_kinds
from service.memory.memory import Memory
from service.memory.results import DreamReport
from service.ops import upkeep
from service.rpc.context import CallContext
from service.rpc.registry import MethodTable

TABLE = MethodTable("upkeep")


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


@TABLE.op(upkeep.EXPORT, long=True)
def taskwizard_export(memory: Memory, args: upkeep.DirectoryArgs, _context: CallContext) -> dict[str, dict[str, int]]:
    return dict(memory.export_taskwizard(args.path))
