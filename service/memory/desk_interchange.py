"""The desk memory in and out in open formats, as part of the `Memory` facade: Jiyi's own desk export
(`store.interchange.desk_format`) and the memory of the reference MCP memory server and of mem0
(`store.interchange.foreign_memory`). docs/interchange.md describes the formats.

An import is prepared without the write lock and published in short slices (`store.interchange.staged_import`):
other clients' writes go on while it runs, and the home holds all of it or none of it. One that a stop cut
short while it was published is finished when the home is opened next (`resume`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from service import __version__
from service.memory.bundles import BundleService
from service.memory.desk import DeskService
from service.memory.parts import Parts
from service.wire.row import row as typed_row
from service.wire.upkeep import KindReport
from store.core import clock
from store.core.errors import os_problem
from store.desk.projection import DOMAIN as DESK
from store.interchange import desk_export, desk_format, desk_import, foreign_memory, staged_import
from store.learning.projection import DOMAIN as LEARNING

log = logging.getLogger("jiyi.service.memory")

Progress = Callable[[int, int], None]


class DeskInterchange:
    """`export_desk`, `import_desk`, `import_foreign`; each import answers what it added, skipped and refused."""

    def __init__(self, parts: Parts, desk: DeskService, bundles: BundleService) -> None:
        self.parts = parts
        self.desk = desk  # its index takes what an import added
        self.bundles = bundles

    @property
    def staging(self) -> Path:
        """The home's folder of imports being prepared or published."""
        return self.parts.config.home_path / staged_import.FOLDER

    def export_desk(self, directory: Path) -> dict[str, int]:
        """Write the whole desk memory to `directory` (files 0600, the manifest last); each kind's count.

        Refuses a folder holding anything but an earlier desk export (`InvalidInput`), and answers
        `EnvironmentProblem` when it cannot be written.
        """
        root = Path(directory)
        desk_format.check_target(root)
        records = desk_export.export_records(self.parts.store)
        try:
            return desk_format.write_export(root, records, clock.iso_now(), __version__)
        except OSError as exc:
            raise os_problem(exc, f"the export folder {root}") from None

    def import_desk(
        self,
        directory: Path,
        progress: Progress | None = None,
        indexing: Progress | None = None,
        writing: Progress | None = None,
    ) -> dict[str, KindReport]:
        """Check the export at `directory` whole (nothing is written when anything is wrong with it), then
        prepare and publish it; per kind {added, skipped, refused, reasons}. `progress` hears the records
        read, `writing` those written, `indexing` the desk index embedding them (so `memory.recall` finds them
        at once)."""
        self.parts.store.check_writable()  # a read-only home is said so before anything is read
        self.resume()
        export = desk_format.read_export(Path(directory))
        since = self.parts.store.last_seq()  # the index then embeds what the import queued, not an older backlog
        reports = desk_import.import_export(
            self.parts.store,
            self.parts.redactor,
            export,
            folder=self.staging,
            lock=self.parts.writes,
            committed=self.committed,
            progress=progress,
            publishing=writing,
        )
        self._after_import(sum(r.added for r in reports.values()), indexing, since)
        return {kind: typed_row(KindReport, asdict(report)) for kind, report in reports.items()}

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
        """Import another system's memory file (`mcp-memory` or `mem0`) as facts; {added, skipped, refused,
        reasons}. The file is read and checked whole first: a malformed one writes nothing. `scope` None:
        each memory's own (a mem0 user's memory is a profile fact), else project."""
        self.parts.store.check_writable()
        self.resume()
        since = self.parts.store.last_seq()
        report = foreign_memory.import_memories(
            self.parts.store,
            self.parts.redactor,
            system,
            Path(path),
            folder=self.staging,
            lock=self.parts.writes,
            committed=self.committed,
            scope=scope,
            progress=progress,
            publishing=writing,
        )
        self._after_import(report.added, indexing, since)
        return typed_row(KindReport, asdict(report))

    def resume(self) -> list[str]:
        """Finish an import a stop cut short while it was published, and throw away one stopped before (nothing
        of it is in the home); what was done, said for the log."""
        if self.parts.store.read_only is not None:
            return []
        said = staged_import.resume(
            self.parts.store, self.staging, lock=self.parts.writes, actor=desk_import.ACTOR, committed=self.committed
        )
        if said:
            self._after_import(1, None)
        return said

    def committed(self, domains: set[str]) -> None:
        """A slice of an import committed (this one's or a TaskWizard import's): its domains changed (the
        pages and caches follow it)."""
        for domain in sorted(domains):
            self.parts.changed(domain)

    def _after_import(self, added: int, indexing: Progress | None, since: int | None = None) -> None:
        """Tell the listeners, mirror the bundles' files and embed what the import queued (by the events after
        `since`: not a backlog older than it, nor the turns other clients write after it, which the index's
        thread takes) before the import answers, so that `memory.recall` finds it at once."""
        if not added:
            return
        self.parts.changed(DESK)
        self.parts.changed(LEARNING)
        self.bundles.catch_up_mirror()  # the imported documents' files (an edit made outside is kept beside)
        try:
            self.desk.index.drain(indexing, since=since)
        except Exception as exc:
            log.warning("the desk index did not take the import yet: %s", exc)
