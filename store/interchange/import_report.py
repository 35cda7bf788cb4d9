"""`ImportReport`: what an import did, skipped and found damaged (a plain record, importable without the
database: the commands attached to a service decode the service's reports into it)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("jiyi.store.interchange")


@dataclass
class ImportReport:
    source: str
    imported: int = 0
    skipped: int = 0
    already_imported: bool = False
    known: int = 0  # lines of a rewritten log that were already in the store
    removed: int = 0  # entries a rewritten App-KB log no longer has, deleted (they came only from it)
    rewritten: bool = False  # the log's already-imported part changed since the last import
    moved_from: str | None = None  # the place this directory was imported from before (known by its content)
    recognised: str | None = None  # what this log was taken for and why (a move, a compaction, --replaces)
    suggestion: str | None = None  # when it could not tell (a copy?): what the person may say (--replaces)
    problems: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)  # views (episodes.json, kb.json...) unreadable: rebuilt

    def damaged_view(self, path: Path, why: str, then: str = "rebuilt from events.jsonl") -> None:
        """Say that the view at `path` cannot be read, and what comes of it (`then`), as the reference's reader
        logs it before it rebuilds the view from the log."""
        note = f"{path.parent.name}/{path.name} is damaged ({why}); {then}"
        self.damaged.append(note)
        log.warning("%s: %s", path, note)

    def skip(self, where: str, why: str) -> None:
        self.skipped += 1
        if len(self.problems) < 20:
            self.problems.append(f"{where}: {why}")
