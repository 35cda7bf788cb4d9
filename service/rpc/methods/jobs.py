"""Long work as jobs: start one and get its id at once, follow it, cancel it (`service/memory/jobs.py`).

`rebuild` and `vectors.rebuild` are the same work for clients that wait for the
result on their connection; they run as jobs too, so other clients see their
progress, may cancel them, and cannot start a second rebuild meanwhile. A
TaskWizard import started as a job (`kind` `taskwizard.import`, with its
`directory`) reports how many imported runs are indexed; it cannot be
cancelled, since each part it imports is committed as it goes. A dream pass
(`kind` `dream`, with `full` and `dry_run` as `dream.run` takes them)
reports its steps, and a cancel stops it between two. A desk export or
import and an import of another system's facts (`desk.export`, `desk.import`,
`facts.import`) answer their method's result as the outcome; the imports,
one transaction each, cannot be cancelled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from service.errors import Cancelled
from service.memory.jobs import Progress
from service.memory.memory import Memory
from service.memory.rows import JobStatus
from service.ops import upkeep
from service.ops.declare import NoArgs
from service.ops.upkeep import JobArgs, JobStartArgs
from service.rpc.context import CallContext
from service.rpc.methods import interchange
from service.rpc.methods.upkeep import check_budget
from service.rpc.registry import MethodTable
from store.core.errors import Conflict

TABLE = MethodTable("jobs")


Work = Callable[[Progress], dict[str, object]]


def _rebuild_views(memory: Memory, _args: JobStartArgs) -> Work:
    def work(progress: Progress) -> dict[str, object]:
        counts = memory.rebuild(progress=progress)
        return {"counts": counts, "integrity": memory.store.integrity_check()}

    return work


def _rebuild_vectors(memory: Memory, _args: JobStartArgs) -> Work:
    def work(progress: Progress) -> dict[str, object]:
        return dict(memory.recall.rebuild_vectors(progress=progress))

    return work


def _import_taskwizard(memory: Memory, args: JobStartArgs) -> Work:
    assert args.directory is not None  # JobStartArgs.check
    directory = Path(args.directory).expanduser()
    replaces = Path(args.replaces).expanduser() if args.replaces is not None else None

    def work(progress: Progress) -> dict[str, object]:
        reports = memory.import_taskwizard(directory, progress, replaces)
        return {name: asdict(report) for name, report in reports.items()}

    return work


def _dream(memory: Memory, args: JobStartArgs) -> Work:
    full = True if args.full is None else args.full
    dry_run = False if args.dry_run is None else args.dry_run
    if not dry_run:
        check_budget(memory)  # a preview writes nothing: it is answered over the budget too

    def work(progress: Progress) -> dict[str, object]:
        return dict(memory.dream.run(full=full, dry_run=dry_run, progress=progress))

    return work


KINDS: dict[str, Callable[[Memory, JobStartArgs], Work]] = {
    "rebuild": _rebuild_views,
    "vectors.rebuild": _rebuild_vectors,
    "taskwizard.import": _import_taskwizard,
    "dream": _dream,
    **interchange.WORKS,
}
"""What a job may be (`service.ops.upkeep.JOB_KINDS`), by the name of the method that does the same work
and waits for it; each takes its own params (an import its `directory`). The desk export and imports
are built in `service/rpc/methods/interchange.py`."""

UNSTOPPABLE = frozenset({"taskwizard.import", "desk.import", "facts.import"})
"""Kinds whose work commits as it goes, so that a cancel would leave half of it: `job.cancel` is refused."""


def _always(_memory: Memory) -> bool:
    return True


def _run(memory: Memory, kind: str) -> dict[str, object]:
    """Run a rebuild as a job and wait for it; a cancel from another client answers `conflict`."""
    work = KINDS[kind](memory, JobStartArgs(kind=kind))
    check_budget(memory)
    try:
        return memory.jobs.run(kind, work)
    except Cancelled:
        raise Conflict(f"the {kind} was cancelled by a client (job.cancel) before it finished") from None


@TABLE.op(upkeep.REBUILD, long=True)
def rebuild(memory: Memory, _args: NoArgs, _context: CallContext) -> dict[str, object]:
    return _run(memory, "rebuild")


@TABLE.op(upkeep.VECTORS_REBUILD, long=True)
def vectors_rebuild(memory: Memory, _args: NoArgs, _context: CallContext) -> dict[str, object]:
    return _run(memory, "vectors.rebuild")


@TABLE.op(upkeep.JOB_START)
def job_start(memory: Memory, args: JobStartArgs, _context: CallContext) -> JobStatus:
    assert args.kind is not None  # JobStartArgs.check
    work = KINDS[args.kind](memory, args)
    if args.kind not in ("dream", *interchange.WORKS):  # these check the budget themselves when they write
        check_budget(memory)
    return memory.jobs.start(args.kind, work, cancellable=args.kind not in UNSTOPPABLE)


# Answered on the loop: a job's status is in memory, and a client polls it often.
@TABLE.op(upkeep.JOB_STATUS, instant=_always)
def job_status(memory: Memory, args: JobArgs, _context: CallContext) -> JobStatus:
    return memory.jobs.status(args.job_id)


@TABLE.op(upkeep.JOB_CANCEL, instant=_always)
def job_cancel(memory: Memory, args: JobArgs, _context: CallContext) -> JobStatus:
    return memory.jobs.cancel(args.job_id)


@TABLE.op(upkeep.JOB_LIST, instant=_always)
def job_list(memory: Memory, _args: NoArgs, _context: CallContext) -> upkeep.JobList:
    return upkeep.JobList(jobs=memory.jobs.list())
