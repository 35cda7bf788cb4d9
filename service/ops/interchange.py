"""The desk memory in and out in open formats (docs/interchange.md): export and import a desk export, and
import the memory of the reference MCP memory server or of mem0 as facts. Each is also a job kind of the
same name (`job.start`), so a client follows its progress; its report is the job's outcome.

A path is one on the service's machine, which runs as the same user: it must be absolute (the service's
working folder is not the client's), and the store refuses a symlink and a file where a folder is expected
(or the reverse) before anything is read or written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from service.memory.domain import Domain
from service.ops.declare import Args, Operation, Reply, always
from service.ops.fields import Choice, Text
from service.wire.upkeep import KindReport
from store.core.errors import InvalidInput

MAX_PATH_BYTES = 4096
SYSTEMS = ("mcp-memory", "mem0")
"""The systems whose memory `facts.import` reads: the reference MCP memory server's `memory.jsonl`, mem0's export."""
SCOPES = ("profile", "project", "environment")
"""An imported fact's scope: `profile` (a kind from the memory's categories) and `project` are active at once,
`environment` a candidate until a second workday; none given, each memory's own (a mem0 user's memory is a
profile fact, another a project fact; every MCP memory server observation a project fact)."""
Path_ = Annotated[str, Text(MAX_PATH_BYTES, MAX_PATH_BYTES)]


def check_absolute(name: str, value: str) -> None:
    """Refuse a relative path, naming the parameter."""
    if not Path(value).expanduser().is_absolute():
        raise InvalidInput(f"params.{name} must be an absolute path (the service's working folder is not yours)")


class DeskFolderArgs(Args, frozen=True):
    directory: Path_  # an absolute path on the service's machine: the export's folder

    def check(self) -> None:
        check_absolute("directory", self.directory)

    @property
    def path(self) -> Path:
        return Path(self.directory).expanduser()


class FactsImportArgs(Args, frozen=True):
    system: Annotated[str, Choice(SYSTEMS)]
    file: Path_  # an absolute path on the service's machine: the other system's file
    scope: Annotated[str | None, Choice(SCOPES)] = None

    def check(self) -> None:
        check_absolute("file", self.file)

    @property
    def path(self) -> Path:
        return Path(self.file).expanduser()


class DeskExported(Reply, frozen=True):
    counts: dict[str, int]  # each kind's records written, in the format's order


class DeskImported(Reply, frozen=True):
    reports: dict[str, KindReport]  # by kind, in the order the import wrote them


DESK_EXPORT = Operation(
    "desk.export",
    DeskFolderArgs,
    DeskExported,
    kind="read",  # it changes the folder, not the memory
    idempotent=True,
    description="Write the whole desk memory as a desk export (JSON Lines, one file per kind, and a manifest) "
    "into a folder that is missing, empty or holds an earlier desk export.",
    errors=("not_found", "forbidden"),
)
DESK_IMPORT = Operation(
    "desk.import",
    DeskFolderArgs,
    DeskImported,
    kind="write",
    idempotent=True,
    changes=frozenset({Domain.DESK, Domain.LEARNING}),
    description="Check a desk export whole, then import it (all of it or none: written in short slices that "
    "let other writes through) and index it; per kind what was added, skipped (already here) and refused. "
    "The person's act.",
    errors=("not_found", "forbidden", "busy"),
    person=always("importing a desk export (its facts' and skills' decisions are the person's)"),
)
FACTS_IMPORT = Operation(
    "facts.import",
    FactsImportArgs,
    KindReport,
    kind="write",
    idempotent=True,
    changes=frozenset({Domain.DESK, Domain.LEARNING}),
    description="Import the MCP memory server's `memory.jsonl` or mem0's export JSON as facts (each with its "
    "source text as evidence); what was added, skipped and refused. The person's act.",
    errors=("not_found", "forbidden", "busy"),
    person=always("importing another system's memory as facts"),
    aliases=("memory.fact.import",),
)

OPERATIONS = (DESK_EXPORT, DESK_IMPORT, FACTS_IMPORT)
