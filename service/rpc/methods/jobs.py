"""Long work as jobs: start one and get its id at once, follow it, cancel it (`service/memory/jobs.py`).

`rebuild` and `vectors.rebuild` are the same work for clients that wait for the
result on their connection; they run as jobs too, so other clients see their
progress, may cancel them, and cannot start a second rebuild meanwhile. A
TaskWizard import started as a job (`kind` `taskwizard.import`, with its
`directory`) reports how many imported runs are indexed; it cannot be
cancelled, since each part it imports is committed as it goes. A dream pass
(`kind` `dream`, with `full` and `dry_run` as `dream.run` takes them)
reports its steps, and a cancel stops it between two.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from service.errors import Cancelled
from service.memory.jobs import Progress
from service.memory.memory import Memory
from service.rpc.methods.upkeep import directory_param
from service.rpc.params import MAX_ID, Params
from service.rpc.registry import MethodTable
from store.core.errors import Conflict, InvalidInput

TABLE = MethodTable("jobs")


Work = Callable[[Progress], dict[str, Any]]


def _rebuild_views(memory: Memory, _p: Params) -> Work:
    def work(progress: Progress) -> dict[str, Any]:
        counts = memory.rebuild(progress=progress)
        return {"counts": counts, "integrity": memory.store.integrity_check()}

    return work


def _rebuild_vectors(memory: Memory, _p: Params) -> Work:
    def work(progress: Progress) -> dict[str, Any]:
        return dict(memory.recall.rebuild_vectors(progress=progress))

    return work


def _import_taskwizard(memory: Memory, p: Params) -> Work:
    directory = directory_param(p)

    def work(progress: Progress) -> dict[str, Any]:
        return {name: asdict(report) for name, report in memory.import_taskwizard(directory, progress).items()}

    return work


def _dream(memory: Memory, p: Params) -> Work:
    full, dry_run = p.boolean("full", True), p.boolean("dry_run", False)
    if not dry_run:
        _check_budget(memory)  # a preview writes nothing: it is answered over the budget too

    def work(progress: Progress) -> dict[str, Any]:
        return dict(memory.dream.run(full=full, dry_run=dry_run, progress=progress))

    return work


KINDS: dict[str, Callable[[Memory, Params], Work]] = {
    "rebuild": _rebuild_views,
    "vectors.rebuild": _rebuild_vectors,
    "taskwizard.import": _import_taskwizard,
    "dream": _dream,
}
"""What a job may be, by the name of the method that does the same work and waits for it; each reads its
own params (an import its `directory`)."""

UNSTOPPABLE = frozenset({"taskwizard.import"})
"""Kinds whose work commits as it goes, so that a cancel would leave half of it: `job.cancel` is refused."""


def _check_budget(memory: Memory) -> None:
    """A rebuild is refused up front past the home's size budget (as every write is)."""
    if memory.store.budget is not None:
        memory.store.budget.check()


def _always(_memory: Memory) -> bool:
    return True


def _run(memory: Memory, kind: str, p: Params) -> dict[str, Any]:
    """Run a rebuild as a job and wait for it; a cancel from another client answers `conflict`."""
    work = KINDS[kind](memory, p)
    p.done()
    _check_budget(memory)
    try:
        return memory.jobs.run(kind, work)
    except Cancelled:
        raise Conflict(f"the {kind} was cancelled by a client (job.cancel) before it finished") from None


@TABLE.method("rebuild", writes=True, long=True)
def rebuild(memory: Memory, p: Params) -> dict[str, Any]:
    return _run(memory, "rebuild", p)


@TABLE.method("vectors.rebuild", writes=True, long=True)
def vectors_rebuild(memory: Memory, p: Params) -> dict[str, Any]:
    return _run(memory, "vectors.rebuild", p)


@TABLE.method("job.start", writes=True)
def job_start(memory: Memory, p: Params) -> dict[str, Any]:
    kind = p.choice("kind", tuple(KINDS))
    if kind is None:
        raise InvalidInput(f"params.kind is required: one of {', '.join(KINDS)}")
    work = KINDS[kind](memory, p)
    p.done()
    if kind != "dream":  # a dream checks the budget itself, unless it is a preview
        _check_budget(memory)
    return memory.jobs.start(kind, work, cancellable=kind not in UNSTOPPABLE)


# Answered on the loop: a job's status is in memory, and a client polls it often.
@TABLE.method("job.status", instant=_always)
def job_status(memory: Memory, p: Params) -> dict[str, Any]:
    job_id = p.text("job_id", max_chars=MAX_ID)
    p.done()
    return memory.jobs.status(job_id)


@TABLE.method("job.cancel", instant=_always)
def job_cancel(memory: Memory, p: Params) -> dict[str, Any]:
    job_id = p.text("job_id", max_chars=MAX_ID)
    p.done()
    return memory.jobs.cancel(job_id)


@TABLE.method("job.list", instant=_always)
def job_list(memory: Memory, p: Params) -> dict[str, Any]:
    p.done()
    return {"jobs": memory.jobs.list()}
