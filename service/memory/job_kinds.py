"""What each kind of job does (`job.start`, `service.ops.upkeep.JOB_KINDS`), on a `Memory`.

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
one transaction each, cannot be cancelled. The folder and file checks (no
symlink, a folder or a file as expected) are the store's, made before anything
is read or written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import msgspec

from service.errors import Cancelled
from service.memory.jobs import Progress
from service.memory.memory import Memory
from service.memory.progress import phased
from service.ops.interchange import DeskExported, DeskImported
from service.ops.upkeep import JobStartArgs
from service.wire.upkeep import JobStatus, KindReport
from store.core.errors import Conflict

Work = Callable[[Progress], dict[str, object]]

PHASES = ("reading", "writing", "indexing")
"""An import's phases, as a job's status names them: the records read and checked, written, indexed."""


def check_budget(memory: Memory) -> None:
    """A pass that writes is refused up front past the home's size budget (as every write is)."""
    if memory.store.budget is not None:
        memory.store.budget.check()


def export_desk(memory: Memory, directory: Path) -> DeskExported:
    return DeskExported(counts=memory.interchange.export_desk(directory))


def import_desk(memory: Memory, directory: Path, progress: Progress | None = None) -> DeskImported:
    """`progress` (a job's) counts the records read, then written, then the desk items indexed (`phased`)."""
    reading, writing, indexing = phased(progress, PHASES)
    return DeskImported(reports=memory.interchange.import_desk(directory, reading, indexing, writing))


def import_facts(
    memory: Memory, system: str, path: Path, scope: str | None, progress: Progress | None = None
) -> KindReport:
    """`progress` (a job's) counts the memories read, then written, then the facts indexed (`phased`)."""
    reading, writing, indexing = phased(progress, PHASES)
    return memory.interchange.import_foreign(
        system, path, scope=scope, progress=reading, indexing=indexing, writing=writing
    )


def _export_work(memory: Memory, args: JobStartArgs) -> Work:
    assert args.directory is not None  # JobStartArgs.check
    directory = Path(args.directory).expanduser()
    return lambda _progress: msgspec.to_builtins(export_desk(memory, directory))


def _import_work(memory: Memory, args: JobStartArgs) -> Work:
    assert args.directory is not None  # JobStartArgs.check
    directory = Path(args.directory).expanduser()
    check_budget(memory)
    return lambda progress: msgspec.to_builtins(import_desk(memory, directory, progress))


def _facts_work(memory: Memory, args: JobStartArgs) -> Work:
    assert args.system is not None and args.file is not None  # JobStartArgs.check
    system, path, scope = args.system, Path(args.file).expanduser(), args.scope
    check_budget(memory)
    return lambda progress: msgspec.to_builtins(import_facts(memory, system, path, scope, progress))


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
    "desk.export": _export_work,
    "desk.import": _import_work,
    "facts.import": _facts_work,
}
"""What a job may be (`service.ops.upkeep.JOB_KINDS`), by the name of the method that does the same work
and waits for it; each takes its own params (an import its `directory`)."""

CHECK_THEMSELVES = frozenset({"dream", "desk.export", "desk.import", "facts.import"})
"""Kinds that check the home's size budget themselves, when they write (the others are checked at start)."""

UNSTOPPABLE = frozenset({"taskwizard.import", "desk.import", "facts.import"})
"""Kinds whose work commits as it goes, so that a cancel would leave half of it: `job.cancel` is refused."""


def start(memory: Memory, args: JobStartArgs) -> JobStatus:
    """Start a job of `args.kind` (its status at once)."""
    assert args.kind is not None  # JobStartArgs.check
    work = KINDS[args.kind](memory, args)
    if args.kind not in CHECK_THEMSELVES:
        check_budget(memory)
    return memory.jobs.start(args.kind, work, cancellable=args.kind not in UNSTOPPABLE)


def wait(memory: Memory, kind: str) -> dict[str, object]:
    """Run a rebuild as a job and wait for it; a cancel from another client answers `conflict`."""
    work = KINDS[kind](memory, JobStartArgs(kind=kind))
    check_budget(memory)
    try:
        return memory.jobs.run(kind, work)
    except Cancelled:
        raise Conflict(f"the {kind} was cancelled by a client (job.cancel) before it finished") from None
