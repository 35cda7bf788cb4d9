"""Opening the store of a home: finding or creating its database, and checking it before anything is written.

`open_store` (what `Store.open` runs) takes the home (a private directory of
ours, owned by this process alone), finds its database (the home's SQLite
file or a shared PostgreSQL server), checks the files, the schema and the
home's record of the last change it acknowledged, and hands back the store:
writable, or reading only (a read-only home, a damaged file, a loss being
reported), each said by the store itself (`Store.database_problem`). The
`Store` keeps the log and its views; this module only decides how it opens.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from store.core import acknowledged, model_binding
from store.core.acknowledged import LossPolicy, MarkFile
from store.core.connect import connect_target
from store.core.connection import JiyiDatabase
from store.core.database_file import FileIdentity, damaged_message, quick_check, require_database
from store.core.database_url import DatabaseTarget, parse_database_url
from store.core.errors import EnvironmentProblem, InvalidInput
from store.core.freed_memory import wipe_freed_memory
from store.core.home import DB_NAME, HomeLock, prepare_home, read_only_reason
from store.core.migrations import SCHEMA_VERSION, migrate, schema_version
from store.core.postgres import JiyiPostgresDatabase
from store.core.projection import Projection

log = logging.getLogger("jiyi.store")


class Opening(model_binding.Binder, Protocol):
    """What opening asks of the store it opens (`store.core.database.Store`, which imports this module)."""

    location: str
    identity: FileIdentity | None
    damaged: str | None
    read_only: str | None

    def open_views(self, projections: Sequence[Projection]) -> None:
        """Bind the models and keep each view, checked against the log and rebuilt when it is not current."""

    def open_views_unchecked(self, projections: Sequence[Projection]) -> None:
        """Bind the models and read the views as they are (checking or rebuilding one would write)."""


Opened = TypeVar("Opened", bound=Opening)
Make = Callable[[Path, JiyiDatabase | JiyiPostgresDatabase, HomeLock, DatabaseTarget], Opened]


def open_store(
    make: Make[Opened],
    home: Path,
    projections: Sequence[Projection] = (),
    *,
    database_url: str = "",
    password: str | None = None,
    new_database: bool = False,
    loss: LossPolicy = "refuse",
) -> Opened:
    """Open (creating if needed) the store of `home`, made by `make(home, db, lock, target)`.

    `database_url` (see `database_url.py`) puts the database elsewhere:
    empty for the home's own SQLite file, `postgresql://...` for a server
    several hosts share (`password` goes to the server, never in the URL).
    Checks, in order: the home is a private directory of ours; no other
    process on this host owns it; an SQLite database and its WAL/SHM are
    private regular files with one link; a home holding memory
    (`bundles/`, `vectors/`) has its database file, unless `new_database`
    says to start over (see `database_file`); the schema is not newer than
    ours. Then runs SQLite's `quick_check` (a damaged file opens for
    reading only: `damaged` says why, and writes are refused), migrates
    and checks every view, rebuilding any that is missing or inconsistent.
    Last, it compares the database with the home's record of the last change
    it acknowledged (`store.core.acknowledged`): one that holds less is
    refused (`ChangesMissing`), or, as `loss` says, opened to report it
    (writes refused) or accepted (the loss recorded as an event). A missing
    database the home acknowledged changes in is refused unless
    `new_database` or an accepted loss says to start over.
    """
    try:
        target = parse_database_url(database_url)
    except ValueError as exc:
        raise InvalidInput(f"database URL: {exc}") from None
    wipe_freed_memory()  # before any text of the home is read (see `freed_memory`)
    home = prepare_home(home)
    read_only = read_only_reason(home)
    lock = HomeLock(home)
    lock.acquire(read_only=read_only is not None)
    marks: MarkFile | None = None
    try:
        marks = MarkFile(home, read_only=read_only is not None)
        sqlite_path = None if target.shared else (target.path or home / DB_NAME)
        location = str(sqlite_path) if sqlite_path is not None else target.describe()
        where = acknowledged.where_of(home, location, shared=sqlite_path is None)
        gone = None
        if sqlite_path is not None and not _holds_bytes(sqlite_path):
            gone = acknowledged.missing_database(marks.mark, where=where, location=location)
        starting_over = new_database or (gone is not None and loss == "accept")
        new = sqlite_path is not None and require_database(
            home, sqlite_path, new_database=starting_over, acknowledged=gone.acknowledged if gone else None
        )
        if gone is not None and not starting_over:
            raise acknowledged.refuse(gone)
        db = connect_target(home, target, password, read_only=read_only is not None)
        store = make(home, db, lock, target)
        store.read_only = read_only
        try:
            if sqlite_path is not None:
                _check_file(store, sqlite_path)
            if store.damaged or read_only is not None:
                if store.damaged:
                    log.error("%s", store.damaged)
                elif read_only is not None:
                    require_current_schema(db, read_only)
                store.open_views_unchecked(projections)
                acknowledged.judge(store, marks, where, loss)  # takes no writes: compared, never moved
                marks.close()
                model_binding.opened(store)
                return store
            applied = migrate(db)
            if new:
                log.info("created a new home at %s (schema %s)", home, SCHEMA_VERSION)
            elif applied:
                log.info("migrated %s from schema %s to %s", store.location, applied[0] - 1, applied[-1])
            store.open_views(projections)
            # A database gone and started over (`new_database`, or accepted): recorded as accepted.
            acknowledged.settle(store, marks, where, loss if gone is None else "accept", gone)
        except BaseException:
            db.close()
            raise
    except BaseException:
        if marks is not None:
            marks.close()
        lock.release()
        raise
    model_binding.opened(store)
    return store


def require_current_schema(db: JiyiDatabase | JiyiPostgresDatabase, read_only: str) -> None:
    """A read-only home (`read_only` says why) opens only at this Jiyi's schema: a migration would write."""
    found = schema_version(db)
    if found != SCHEMA_VERSION:
        newer = "newer than this Jiyi knows" if found > SCHEMA_VERSION else "older than this Jiyi's"
        raise EnvironmentProblem(
            f"{read_only}: its database has schema version {found}, {newer} ({SCHEMA_VERSION}), and "
            "cannot be migrated there; open it with the Jiyi that wrote it, or once where it is writable"
        )


def _check_file(store: Opening, path: Path) -> None:
    """Note the file's identity, and whether SQLite finds it sound."""
    store.identity = FileIdentity.of(path)
    found = quick_check(store.db)
    store.damaged = damaged_message(path, found) if found else None


def _holds_bytes(path: Path) -> bool:
    """Whether the SQLite file at `path` exists and is not empty (what `require_database` counts as a database)."""
    try:
        return path.lstat().st_size > 0
    except FileNotFoundError:
        return False
