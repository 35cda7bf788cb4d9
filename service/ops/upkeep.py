"""The whole home: the overview, dream passes, TaskWizard import and export, and the long work run as jobs
(rebuilds, an import, a dream pass) that clients start, follow and cancel."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from service.memory.domain import EVERY_DOMAIN, Domain
from service.memory.results import DreamReport, Overview
from service.ops.declare import Args, NoArgs, Operation, Reply
from service.ops.fields import MAX_ID, Boolean, Choice, Integer, Text
from store.core.errors import InvalidInput

MAX_PATH_BYTES = 4096
JOB_KINDS = ("rebuild", "vectors.rebuild", "taskwizard.import", "dream")
"""What a job may be, by the name of the method that does the same work and waits for it."""
JOB_PARAMS: dict[str, tuple[str, ...]] = {
    "rebuild": (),
    "vectors.rebuild": (),
    "taskwizard.import": ("directory",),
    "dream": ("full", "dry_run"),
}
"""The params each kind of job takes (beside `kind`)."""
Directory = Annotated[str, Text(MAX_PATH_BYTES, MAX_PATH_BYTES)]


def _check_directory(directory: str) -> None:
    if not Path(directory).expanduser().is_absolute():
        raise InvalidInput("params.directory must be an absolute path (the service's working folder is not yours)")


class DreamArgs(Args, frozen=True):
    full: Annotated[bool, Boolean()] = True  # the full pass (folds and evicts), not the light one
    dry_run: Annotated[bool, Boolean()] = False  # list every change and make none


class DreamReportsArgs(Args, frozen=True):
    limit: Annotated[int, Integer(1, 500)] = 20


class DreamReports(Reply, frozen=True):
    reports: list[dict[str, Any]]


class DirectoryArgs(Args, frozen=True):
    directory: Directory  # an absolute path on the service's machine

    def check(self) -> None:
        _check_directory(self.directory)

    @property
    def path(self) -> Path:
        return Path(self.directory).expanduser()


class JobStartArgs(Args, frozen=True):
    kind: Annotated[str | None, Choice(JOB_KINDS)] = None
    directory: Annotated[str | None, Text(MAX_PATH_BYTES, MAX_PATH_BYTES)] = None  # `taskwizard.import`
    full: Annotated[bool | None, Boolean()] = None  # `dream` (default true)
    dry_run: Annotated[bool | None, Boolean()] = None  # `dream` (default false)

    def check(self) -> None:
        if self.kind is None:
            raise InvalidInput(f"params.kind is required: one of {', '.join(JOB_KINDS)}")
        taken = JOB_PARAMS[self.kind]
        for name in ("directory", "full", "dry_run"):
            if name not in taken and getattr(self, name) is not None:
                raise InvalidInput(f"unknown parameter {name!r}")
        if self.kind == "taskwizard.import":
            if self.directory is None:
                raise InvalidInput("params.directory is required")
            _check_directory(self.directory)


class JobArgs(Args, frozen=True):
    job_id: Annotated[str, Text(MAX_ID)]


class JobList(Reply, frozen=True):
    jobs: list[dict[str, Any]]


OVERVIEW = Operation(
    "overview",
    NoArgs,
    Overview,
    kind="read",
    idempotent=True,
    description="What the console's overview shows: health, the vector index, recall quality, the last dream, errors.",
)
DREAM_RUN = Operation(
    "dream.run",
    DreamArgs,
    DreamReport,
    kind="write",
    idempotent=False,
    description="A consolidation pass (alias corrections, clean-up, episode folding), answered when done; "
    "`dry_run` lists what it would change.",
    errors=("busy",),
    changes=frozenset({Domain.APP_KB}),
)
DREAM_REPORTS = Operation(
    "dream.reports",
    DreamReportsArgs,
    DreamReports,
    kind="read",
    idempotent=True,
    description="The reports of earlier dream passes, newest first.",
)
IMPORT = Operation(
    "taskwizard.import",
    DirectoryArgs,
    dict,
    kind="write",
    idempotent=True,
    description="Import a TaskWizard `memory/` directory (App-KB, episodes, recall scorecard, lessons) and index it.",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.APP_KB, Domain.EXPERIENCE, Domain.RECALL, Domain.LESSONS}),
)
EXPORT = Operation(
    "taskwizard.export",
    DirectoryArgs,
    dict,
    kind="read",
    idempotent=True,
    description="Write this memory as a TaskWizard `memory/` directory (changes the directory, not the memory).",
    errors=("forbidden",),
)
REBUILD = Operation(
    "rebuild",
    NoArgs,
    dict,
    kind="write",
    idempotent=True,
    description="Rebuild every view from the event log as a job, and wait for it.",
    errors=("busy", "conflict"),
    changes=EVERY_DOMAIN,
)
VECTORS_REBUILD = Operation(
    "vectors.rebuild",
    NoArgs,
    dict,
    kind="write",
    idempotent=True,
    description="Index every live episode and alias again with the configured embedder, as a job, and wait.",
    errors=("busy", "conflict"),
)
JOB_START = Operation(
    "job.start",
    JobStartArgs,
    dict,
    kind="write",
    idempotent=False,
    description="Start long work (a rebuild, an import, a dream pass) as a job and get its id at once.",
    errors=("busy",),
    changes=EVERY_DOMAIN,
)
JOB_STATUS = Operation(
    "job.status",
    JobArgs,
    dict,
    kind="read",
    idempotent=True,
    description="How far a job got, and its outcome or error once it ended.",
    errors=("not_found",),
)
JOB_CANCEL = Operation(
    "job.cancel",
    JobArgs,
    dict,
    kind="read",  # it commits nothing itself: the job it stops does or does not
    idempotent=True,
    description="Cancel a job (it stops at its next step); an import cannot be cancelled.",
    errors=("not_found", "conflict"),
)
JOB_LIST = Operation(
    "job.list",
    NoArgs,
    JobList,
    kind="read",
    idempotent=True,
    description="The jobs this service ran or runs.",
)

OPERATIONS = (
    OVERVIEW,
    DREAM_RUN,
    DREAM_REPORTS,
    IMPORT,
    EXPORT,
    REBUILD,
    VECTORS_REBUILD,
    JOB_START,
    JOB_STATUS,
    JOB_CANCEL,
    JOB_LIST,
)
