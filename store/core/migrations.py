"""Versioned schema migrations of the truth tables, tracked in `PRAGMA user_version`.

View tables are not migrated: a projection whose definition changed is dropped
and rebuilt from the event log (see `projection.py`).
"""

from __future__ import annotations

from collections.abc import Callable

from peewee import SqliteDatabase

from store.core.errors import SchemaTooNew


def _v1_event_log(db: SqliteDatabase) -> None:
    db.execute_sql(
        "CREATE TABLE IF NOT EXISTS event ("
        " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
        " ts TEXT NOT NULL, domain TEXT NOT NULL, type TEXT NOT NULL,"
        " schema_v INTEGER NOT NULL DEFAULT 1, actor TEXT NOT NULL,"
        " payload TEXT NOT NULL, txn INTEGER, subject TEXT)"
    )
    db.execute_sql("CREATE INDEX IF NOT EXISTS event_domain_subject ON event (domain, subject)")
    db.execute_sql("CREATE INDEX IF NOT EXISTS event_txn ON event (txn)")
    db.execute_sql("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _v2_domain_seq_index(db: SqliteDatabase) -> None:
    """A domain's newest event in one index probe (each write asks for it)."""
    db.execute_sql("CREATE INDEX IF NOT EXISTS event_domain_seq ON event (domain, seq)")


MIGRATIONS: list[Callable[[SqliteDatabase], None]] = [_v1_event_log, _v2_domain_seq_index]
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: SqliteDatabase) -> int:
    """Return the database's schema version (0 for a new file)."""
    return int(db.execute_sql("PRAGMA user_version").fetchone()[0])


def migrate(db: SqliteDatabase) -> list[int]:
    """Bring the schema up to `SCHEMA_VERSION`; return the versions applied.

    Raises `SchemaTooNew` when the file was written by a newer Jiyi: opening it
    could lose what that version stored.
    """
    current = schema_version(db)
    if current > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"the database has schema version {current}, newer than this Jiyi knows "
            f"({SCHEMA_VERSION}); upgrade Jiyi to open it"
        )
    applied = []
    for version in range(current + 1, SCHEMA_VERSION + 1):
        with db.atomic("IMMEDIATE"):
            MIGRATIONS[version - 1](db)
            db.execute_sql(f"PRAGMA user_version = {version}")
        applied.append(version)
    return applied
