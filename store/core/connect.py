"""Connect to a store's database: the home's SQLite file (private, in WAL mode) or a PostgreSQL server."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from peewee import DatabaseError

from store.core.connection import JiyiDatabase
from store.core.database_file import sqlite_uri
from store.core.database_url import DatabaseTarget, parse_database_url
from store.core.errors import EnvironmentProblem, InvalidInput, UnsafePath
from store.core.home import DB_NAME, check_private_file, platform
from store.core.postgres import JiyiPostgresDatabase, connect_postgres

PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "busy_timeout": 10_000,
    "synchronous": "full",
}


def connect_database(home: Path, database_url: str, password: str | None) -> JiyiDatabase | JiyiPostgresDatabase:
    """A bare connection to the database `database_url` names for `home` (no lock, no views): for moving a store."""
    try:
        target = parse_database_url(database_url)
    except ValueError as exc:
        raise InvalidInput(f"database URL: {exc}") from None
    return connect_target(home, target, password)


def connect_target(
    home: Path, target: DatabaseTarget, password: str | None, *, read_only: bool = False
) -> JiyiDatabase | JiyiPostgresDatabase:
    """Connect to the database `target` names for `home`: its SQLite file or a PostgreSQL server.
    `read_only`: the home's file system takes no writes (`connect_read_only`)."""
    if not target.shared:
        path = target.path or home / DB_NAME
        return connect_read_only(path) if read_only else connect_sqlite(path)
    url = "postgresql" + target.url[target.url.index(":") :]
    db = connect_postgres(url, user=target.user, password=password, description=target.describe())
    try:
        db.connect()
    except (DatabaseError, EnvironmentProblem) as exc:
        db.close()
        if isinstance(exc, EnvironmentProblem):
            raise
        raise EnvironmentProblem(f"cannot open database {target.describe()}: {exc}") from exc
    return db


def connect_sqlite(path: Path) -> JiyiDatabase:
    """Connect to `path` with Jiyi's pragmas after checking the files are private.

    A missing file is created here, once, private; every connection (one per thread, opened when first
    used) then opens it `mode=rw`: a file moved away while serving is an error, never a new empty file.
    """
    for suffix, what in (("", "database"), ("-wal", "WAL file"), ("-shm", "shared-memory file")):
        check_private_file(Path(f"{path}{suffix}"), what)
    if not path.exists():
        try:
            fd = platform.open_file(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            raise UnsafePath(f"database {path} appeared while opening; refusing to race") from None
        except OSError as exc:
            raise EnvironmentProblem(f"cannot create database {path}: {exc.strerror}") from exc
        os.close(fd)
    db = JiyiDatabase(sqlite_uri(path), pragmas=PRAGMAS, uri=True)
    try:
        db.connect()
        mode = db.execute_sql("PRAGMA journal_mode").fetchone()[0]
    except (sqlite3.DatabaseError, DatabaseError, EnvironmentProblem) as exc:
        db.close()
        raise EnvironmentProblem(f"cannot open database {path}: {exc}{_full_disk_hint(path)}") from exc
    if str(mode).lower() != "wal":
        db.close()
        raise EnvironmentProblem(f"database {path} refused WAL mode (got {mode})")
    for suffix, what in (("-wal", "WAL file"), ("-shm", "shared-memory file")):
        check_private_file(Path(f"{path}{suffix}"), what)
    return db


def connect_read_only(path: Path) -> JiyiDatabase:
    """Connect to `path` on a read-only home for reading only.

    SQLite opens a WAL database read-only only when its `-shm` can be used; on a
    read-only file system it cannot, so a database whose WAL is empty (closed
    cleanly: everything is in the file) is opened `immutable`. One whose WAL
    still holds writes is refused: reading the file alone would show an older state.
    """
    for suffix, what in (("", "database"), ("-wal", "WAL file"), ("-shm", "shared-memory file")):
        check_private_file(Path(f"{path}{suffix}"), what)
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise EnvironmentProblem(
            f"cannot read database {path}: the home is read-only and its WAL file still holds writes "
            "(the last process did not close it); open the home once where it is writable"
        )
    # Not `query_only`: reads keep their temporary tables (the full-text vocabulary) in the connection's temp schema.
    pragmas = {"foreign_keys": 1, "busy_timeout": PRAGMAS["busy_timeout"]}
    db = JiyiDatabase(sqlite_uri(path, read_only=True), pragmas=pragmas, uri=True)
    try:
        db.connect()
    except (sqlite3.DatabaseError, DatabaseError, EnvironmentProblem) as exc:
        db.close()
        raise EnvironmentProblem(f"cannot read database {path}: {exc}") from exc
    return db


def _full_disk_hint(path: Path) -> str:
    """ " (the disk holding it is full; …)" when it is: SQLite reports a full disk on opening as an I/O error."""
    try:
        full = platform.out_of_space(path.parent)
    except OSError:
        return ""
    return " (the disk holding it is full; free some space)" if full else ""
