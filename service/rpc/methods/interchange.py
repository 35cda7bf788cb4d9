"""The desk memory in and out in open formats (docs/interchange.md), declared in `service/ops/interchange.py`.

Each waits for its work on the caller's connection (a long method); the same work started as a job of the
same kind (`job.start`) is built here too (`WORKS`), so that a client follows its progress and gets the same
report as the job's outcome. The folder and file checks (no symlink, a folder or a file as expected) are the
store's, made before anything is read or written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from service.memory.jobs import Progress
from service.memory.memory import Memory
from service.memory.progress import phased
from service.memory.rows import KindReport
from service.ops import interchange
from service.ops.interchange import DeskExported, DeskFolderArgs, DeskImported, FactsImportArgs
from service.ops.upkeep import JobStartArgs
from service.rpc.context import CallContext
from service.rpc.methods.upkeep import check_budget
from service.rpc.registry import MethodTable

TABLE = MethodTable("interchange")

Work = Callable[[Progress], dict[str, object]]


def export_desk(memory: Memory, directory: Path) -> DeskExported:
    return DeskExported(counts=memory.interchange.export_desk(directory))


PHASES = ("reading", "writing", "indexing")
"""An import's phases, as a job's status names them: the records read and checked, written, indexed."""


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


@TABLE.op(interchange.DESK_EXPORT, long=True)
def desk_export(memory: Memory, args: DeskFolderArgs, _context: CallContext) -> DeskExported:
    return export_desk(memory, args.path)


@TABLE.op(interchange.DESK_IMPORT, long=True)
def desk_import(memory: Memory, args: DeskFolderArgs, _context: CallContext) -> DeskImported:
    check_budget(memory)
    return import_desk(memory, args.path)


@TABLE.op(interchange.FACTS_IMPORT, long=True)
def facts_import(memory: Memory, args: FactsImportArgs, _context: CallContext) -> KindReport:
    check_budget(memory)
    return import_facts(memory, args.system, args.path, args.scope)


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


WORKS: dict[str, Callable[[Memory, JobStartArgs], Work]] = {
    interchange.DESK_EXPORT.name: _export_work,
    interchange.DESK_IMPORT.name: _import_work,
    interchange.FACTS_IMPORT.name: _facts_work,
}
"""The job kinds of this module (`service.ops.upkeep.JOB_KINDS`): each does what its method does, its
outcome the method's result. An import is one transaction whose index catch-up follows: not cancellable."""
