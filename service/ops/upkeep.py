"""The whole home: the overview, dream passes, TaskWizard import and export, and the long work run as jobs
(rebuilds, an import or export, a dream pass) that clients start, follow and cancel."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from service.memory.domain import EVERY_DOMAIN, Domain
from service.ops.declare import Args, NoArgs, Operation, Person, Reply, always
from service.ops.fields import MAX_ID, Boolean, Choice, Integer, Text
from service.ops.interchange import MAX_PATH_BYTES, SCOPES, SYSTEMS, check_absolute
from service.wire.results import DreamReport, Overview
from service.wire.upkeep import DreamRecord, JobStatus
from store.core.errors import InvalidInput

JOB_KINDS = ("rebuild", "vectors.rebuild", "taskwizard.import", "dream", "desk.export", "desk.import", "facts.import")
"""What a job may be, by the name of the method that does the same work and waits for it."""
JOB_PARAMS: dict[str, tuple[str, ...]] = {
    "rebuild": (),
    "vectors.rebuild": (),
    "taskwizard.import": ("directory", "replaces"),
    "dream": ("full", "dry_run"),
    "desk.export": ("directory",),
    "desk.import": ("directory",),
    "facts.import": ("system", "file", "scope"),
}
"""The params each kind of job takes (beside `kind`)."""
IMPORT_KINDS = ("taskwizard.import", "desk.import", "facts.import")
"""The jobs that import: the person's act, as the methods of the same names."""
Directory = Annotated[str, Text(MAX_PATH_BYTES, MAX_PATH_BYTES)]


def _check_directory(directory: str) -> None:
    check_absolute("directory", directory)


class DreamArgs(Args, frozen=True):
    full: Annotated[bool, Boolean()] = True  # the full pass (folds and evicts), not the light one
    dry_run: Annotated[bool, Boolean()] = False  # list every change and make none


class DreamReportsArgs(Args, frozen=True):
    limit: Annotated[int, Integer(1, 500)] = 20


class DreamReports(Reply, frozen=True):
    reports: list[DreamRecord]


class DirectoryArgs(Args, frozen=True):
    directory: Directory  # an absolute path on the service's machine

    def check(self) -> None:
        _check_directory(self.directory)

    @property
    def path(self) -> Path:
        return Path(self.directory).expanduser()


class JobStartArgs(Args, frozen=True):
    kind: Annotated[str | None, Choice(JOB_KINDS)] = None
    directory: Annotated[str | None, Text(MAX_PATH_BYTES, MAX_PATH_BYTES)] = None  # `taskwizard.import`, `desk.*`
    full: Annotated[bool | None, Boolean()] = None  # `dream` (default true)
    dry_run: Annotated[bool | None, Boolean()] = None  # `dream` (default false)
    system: Annotated[str | None, Choice(SYSTEMS)] = None  # `facts.import`
    file: Annotated[str | None, Text(MAX_PATH_BYTES, MAX_PATH_BYTES)] = None  # `facts.import`
    scope: Annotated[str | None, Choice(SCOPES)] = None  # `facts.import` (default: each memory's own)
    replaces: Annotated[str | None, Text(MAX_PATH_BYTES, MAX_PATH_BYTES)] = None  # `taskwizard.import`: the old folder

    def check(self) -> None:
        if self.kind is None:
            raise InvalidInput(f"params.kind is required: one of {', '.join(JOB_KINDS)}")
        taken = JOB_PARAMS[self.kind]
        for name in ("directory", "full", "dry_run", "system", "file", "scope", "replaces"):
            if name not in taken and getattr(self, name) is not None:
                raise InvalidInput(f"unknown parameter {name!r}")
        for name in ("directory", "system", "file"):
            if name in taken and getattr(self, name) is None:
                raise InvalidInput(f"params.{name} is required")
        for name in ("directory", "file", "replaces"):
            value = getattr(self, name)
            if value is not None:
                check_absolute(name, value)


def _imports(args: JobStartArgs) -> bool:
    return args.kind in IMPORT_KINDS


class JobArgs(Args, frozen=True):
    job_id: Annotated[str, Text(MAX_ID)]


class JobList(Reply, frozen=True):
    jobs: list[JobStatus]


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
    description="Import a TaskWizard `memory/` directory (App-KB, episodes, recall scorecard, lessons) and index it. "
    "The person's act.",
    errors=("not_found", "forbidden"),
    changes=frozenset({Domain.APP_KB, Domain.EXPERIENCE, Domain.RECALL, Domain.LESSONS}),
    person=always("importing a TaskWizard memory (its user aliases and approved lessons are the person's)"),
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
    JobStatus,
    kind="write",
    idempotent=False,
    description="Start long work (a rebuild, an import, a dream pass) as a job and get its id at once. "
    "An import is the person's act.",
    errors=("busy", "forbidden"),
    changes=EVERY_DOMAIN,
    person=Person("an import", _imports, f"for kind {', '.join(IMPORT_KINDS)}"),
)
JOB_STATUS = Operation(
    "job.status",
    JobArgs,
    JobStatus,
    kind="read",
    idempotent=True,
    description="How far a job got, and its outcome or error once it ended.",
    errors=("not_found",),
)
JOB_CANCEL = Operation(
    "job.cancel",
    JobArgs,
    JobStatus,
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
