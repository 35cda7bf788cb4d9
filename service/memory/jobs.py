"""Long maintenance work run by whoever holds the memory, for any client to follow and cancel: a job.

A job is one rebuild (`vectors.rebuild`, `rebuild`) or one TaskWizard import.
One runs at a time: a second is refused with `Busy`, which names the running
one. A job reports `done`/`total` as its work moves, ends `done` (with the
work's `outcome`), `failed` (with the error's `code` and `message`) or
`cancelled`, and is cancelled only when someone asks (`cancel`): a client
that goes away leaves it running. A job that is not `cancellable` (an import
commits part by part) refuses `cancel` with `Conflict`; only the memory's
own close stops it. Jobs started with `start` run on a thread of their own
and are answered at once; `run` runs one on the caller's thread (the
socket's synchronous methods, for clients that wait for the result). The
last few finished jobs are kept so that a client polling one sees how it
ended.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec

from service.errors import Cancelled
from service.memory.progress import PhaseProgress
from service.ops import upkeep as upkeep_ops
from service.ops.perform import lists, performs
from service.wire.upkeep import JobStatus
from store.core.errors import Busy, Conflict, JiyiError, NotFound

log = logging.getLogger("jiyi.service.memory")

KEPT = 20
"""Finished jobs remembered for the clients that poll them."""

Progress = Callable[[int, int], None]
Work = Callable[[Progress], dict[str, object]]


@dataclass
class Job:
    """One piece of long work: what it is, how far it got and how it ended."""

    job_id: str
    kind: str
    started: float
    done: int = 0
    total: int = 0
    state: str = "running"  # running, done, failed, cancelled
    finished: float | None = None
    outcome: dict[str, object] | None = None
    error: dict[str, str] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    raised: BaseException | None = None  # what the work raised (for `Jobs.run` to raise again)
    cancellable: bool = True
    phase: str | None = None  # the phase its work is in, when it works in named phases
    phase_done: int = 0
    phase_total: int = 0

    def status(self) -> JobStatus:
        """The job as clients see it."""
        return JobStatus(
            job_id=self.job_id,
            kind=self.kind,
            state=self.state,
            done=self.done,
            total=self.total,
            started=self.started,
            finished=self.finished,
            cancel_requested=self.cancel.is_set(),
            cancellable=self.cancellable,
            outcome=self.outcome,
            error=self.error,
            phase=self.phase,
            phase_done=self.phase_done,
            phase_total=self.phase_total,
        )


class Jobs:
    """The memory's jobs: at most one running, the last `KEPT` finished ones remembered."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._numbers = itertools.count(1)
        self._threads: list[threading.Thread] = []

    def start(self, kind: str, work: Work, *, cancellable: bool = True) -> JobStatus:
        """Start `work` on a thread of its own; its status at once. `Busy` while another job runs."""
        job = self._begin(kind, cancellable)
        thread = threading.Thread(target=self._run, args=(job, work), name=f"jiyi-{job.job_id}", daemon=True)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return job.status()

    def run(self, kind: str, work: Work, progress: Progress | None = None) -> dict[str, object]:
        """Run `work` here as a job (others see and may cancel it); its outcome, or what it raised.

        `progress(done, total)` hears it move, as the job's status does; a `Cancelled` it raises cancels the job.
        """
        job = self._begin(kind)
        self._run(job, work, progress)
        if job.state == "done":
            return job.outcome or {}
        raise job.raised if job.raised is not None else Cancelled()

    @performs(upkeep_ops.JOB_STATUS)
    def status(self, job_id: str) -> JobStatus:
        """The job's status; `NotFound` for a job this memory never ran (or has forgotten)."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                raise NotFound(f"no job {job_id!r} (the service remembers its last {KEPT} jobs since it started)")
            return job.status()

    @performs(upkeep_ops.JOB_CANCEL)
    def cancel(self, job_id: str) -> JobStatus:
        """Ask the job to stop at its next step; its status (a finished job stays as it ended)."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                raise NotFound(f"no job {job_id!r} (the service remembers its last {KEPT} jobs since it started)")
            if job.state == "running":
                if not job.cancellable:
                    raise Conflict(
                        f"job {job_id} ({job.kind}) cannot be cancelled: it commits what it read part by part; "
                        "let it finish (job.status follows it)",
                        {"job": msgspec.to_builtins(job.status())},
                    )
                job.cancel.set()
            return job.status()

    @lists(upkeep_ops.JOB_LIST)
    def list(self) -> list[JobStatus]:
        """Every remembered job, the newest first."""
        with self._lock:
            return [job.status() for job in reversed(self._jobs.values())]

    def running(self) -> JobStatus | None:
        """The running job's status, or None."""
        with self._lock:
            job = self._running()
            return job.status() if job is not None else None

    def close(self) -> None:
        """Cancel the running job and wait for it to stop (before the store it works on is closed)."""
        with self._lock:
            for job in self._jobs.values():
                if job.state == "running":
                    job.cancel.set()
            threads, self._threads = self._threads, []
        for thread in threads:
            thread.join()

    # -- inside ------------------------------------------------------------------------------

    def _running(self) -> Job | None:
        return next((j for j in self._jobs.values() if j.state == "running"), None)

    def _begin(self, kind: str, cancellable: bool = True) -> Job:
        with self._lock:
            running = self._running()
            if running is not None:
                raise Busy(
                    f"{running.kind} is running already as job {running.job_id} "
                    f"({running.done}/{running.total}); follow it with job.status or stop it with job.cancel",
                    {"job": msgspec.to_builtins(running.status())},
                )
            job = Job(f"job-{next(self._numbers)}", kind, time.time(), cancellable=cancellable)
            self._jobs[job.job_id] = job
            while len(self._jobs) > KEPT:
                oldest = next(iter(self._jobs))
                if self._jobs[oldest].state == "running":
                    break
                del self._jobs[oldest]
        log.info("job %s (%s) started", job.job_id, kind)
        return job

    def _run(self, job: Job, work: Work, progress: Progress | None = None) -> None:
        """Do the job's work and record how it ended; never raises (what the work raised is kept on the job)."""

        def report(done: int, total: int) -> None:
            job.done, job.total = done, total
            if job.cancel.is_set():
                raise Cancelled()
            if progress is not None:
                progress(done, total)

        def phase(name: str, done: int, total: int) -> None:
            job.phase, job.phase_done, job.phase_total = name, done, total

        try:
            outcome = work(PhaseProgress(report, phase))
        except Cancelled as exc:
            self._end(job, "cancelled", exc)
        except JiyiError as exc:
            self._end(job, "failed", exc, {"code": exc.code, "message": str(exc)})
        except Exception as exc:
            log.exception("job %s (%s) failed", job.job_id, job.kind)
            self._end(job, "failed", exc, {"code": "internal", "message": "the job failed; the log has the details"})
        else:
            job.outcome = outcome
            job.done = job.total  # all of it, also when the last step did not report
            job.phase_done = job.phase_total
            self._end(job, "done")

    def _end(self, job: Job, state: str, exc: BaseException | None = None, error: dict[str, str] | None = None) -> None:
        with self._lock:
            job.state, job.error, job.finished, job.raised = state, error, time.time(), exc
        log.info("job %s (%s) %s", job.job_id, job.kind, state)
