"""`RemoteInterchange`: the desk export and imports (`service.memory.desk_interchange`) of a home that a
running service owns, each run as the service's job (`service/ops/interchange.py`) and followed for progress.

Paths are sent absolute but not resolved: a symlink stays a symlink, so the service refuses it as a home
of its own would. Cancelling (Ctrl+C) an import stops following it; the service finishes it.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from service.ops.interchange import DeskExported, DeskImported
from service.remote.channel import JobFollower, JobParams, Progress
from service.wire.upkeep import KindReport


def _absolute(path: Path) -> str:
    return str(Path(path).expanduser().absolute())


class RemoteInterchange:
    """The same methods, arguments and answers as `DeskInterchange`, over the socket."""

    def __init__(self, follower: JobFollower) -> None:
        self._follower = follower

    def export_desk(self, directory: Path) -> dict[str, int]:
        outcome = self._follower.run("desk.export", None, {"directory": _absolute(directory)})
        return msgspec.convert(outcome, DeskExported).counts

    def import_desk(
        self,
        directory: Path,
        progress: Progress | None = None,
        indexing: Progress | None = None,
        writing: Progress | None = None,
    ) -> dict[str, KindReport]:
        """Each callback hears its phase of the job (`_phases`): the records read, written, then the desk items
        the service indexed before it answered."""
        params: JobParams = {"directory": _absolute(directory)}
        outcome = self._follower.run("desk.import", progress, params, _phases(progress, writing, indexing))
        return msgspec.convert(outcome, DeskImported).reports

    def import_foreign(
        self,
        system: str,
        path: Path,
        *,
        scope: str | None = None,
        progress: Progress | None = None,
        indexing: Progress | None = None,
        writing: Progress | None = None,
    ) -> KindReport:
        params: JobParams = {"system": system, "file": _absolute(path)}
        if scope is not None:
            params["scope"] = scope
        outcome = self._follower.run("facts.import", progress, params, _phases(progress, writing, indexing))
        return msgspec.convert(outcome, KindReport)


def _phases(reading: Progress | None, writing: Progress | None, indexing: Progress | None) -> dict[str, Progress]:
    """The callbacks of an import's phases by the name its job's status gives them. With only `reading` given,
    none: it hears the job's one count over every phase (as from a service that names no phases)."""
    if writing is None and indexing is None:
        return {}
    named = {"reading": reading, "writing": writing, "indexing": indexing}
    return {name: heard for name, heard in named.items() if heard is not None}
