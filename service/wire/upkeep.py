"""Upkeep on the wire: a dream pass as stored, what an import did with each kind, a job as its clients see it."""

from __future__ import annotations

from service.wire.row import Row

# -- dream -----------------------------------------------------------------------------------


# One step of a dream pass: `step`, `ok` (or `error`), and what that step says of its work (`count`,
# `changes`, `removed`/`added`, `calibrations`…): each step's own keys (docs/dream.md), read by name.
DreamStep = dict[str, object]


class DreamRecord(Row, frozen=True, rename={"pass_": "pass"}):
    """A real dream pass as stored (`dream.reports`): its steps in order, and each step's count by name."""

    ts: float
    pass_: str  # full / light (`pass` on the wire)
    dry_run: bool  # always False: a dry run is not stored
    steps: list[DreamStep]  # each `step`, `ok`, and its own counts and changes (or `error`)
    changed: bool
    summary: dict[str, int]  # step -> what it changed


# -- interchange -------------------------------------------------------------------------------


class KindReport(Row, frozen=True):
    """What an import did with one kind of record: `reasons` names the first 20 refusals (`refused` counts them all)."""

    added: int
    skipped: int  # already in the home, the same
    refused: int
    reasons: list[str]


# -- jobs --------------------------------------------------------------------------------------


class JobStatus(Row, frozen=True):
    """A job as its clients see it: how far it got, and its outcome or error once it ended (`job.status`)."""

    job_id: str
    kind: str  # rebuild / vectors.rebuild / taskwizard.import / dream
    state: str  # running / done / failed / cancelled
    done: int
    total: int
    started: float
    finished: float | None
    cancel_requested: bool
    cancellable: bool
    outcome: dict[str, object] | None  # what the work answers (its own method's result)
    error: dict[str, str] | None  # {"code", "message"} when it failed
    phase: str | None = None  # an import's phase: reading, writing, indexing (None: work of one phase)
    phase_done: int = 0  # how far that phase got
    phase_total: int = 0
