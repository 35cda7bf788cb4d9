"""The SQLite connection of a store: peewee's database, telling environment errors apart from bugs.

As qutebrowser's `sql.py` does, errors are split by SQLite's result code: the
machine or the file at fault (disk full, I/O error, locked, read-only,
damaged) is an `EnvironmentProblem` the user can act on, answered
`unavailable`; anything else is a bug in Jiyi's SQL and stays peewee's error.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from peewee import DatabaseError, SqliteDatabase, _savepoint

from store.core.dialect import SQLITE, Dialect
from store.core.errors import StorageProblem, storage_problem


class JiyiDatabase(SqliteDatabase):
    """peewee's SQLite database, telling environment errors apart from bugs.

    An error SQLite reports for the machine or the file (disk full, I/O error,
    locked, read-only, damaged; see `storage_problem`) is raised as
    `StorageProblem`, so callers answer `unavailable` rather than `internal`;
    any other error stays peewee's own (a bug). And a transaction SQLite has
    already rolled back is not rolled back a second time. Its `dialect` says
    what its SQL can do (see `dialect.py`); the methods both database classes
    answer (`round_trips`, `transaction_failed`, `close_all`, `integrity_check`) keep
    callers from asking which one they hold.
    """

    backend = "sqlite"
    dialect: Dialect = SQLITE

    def execute_sql(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        try:
            return super().execute_sql(sql, params)  # type: ignore[no-untyped-call]  # untyped in peewee's stub
        except DatabaseError as exc:
            raise _classified(exc) from exc

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run `sql` once per row of parameters (one statement, many rows)."""
        try:
            self.cursor().executemany(sql, rows)
        except sqlite3.DatabaseError as exc:
            problem = storage_problem(exc)
            if problem is None:
                raise
            raise problem from exc

    def begin(self, lock_type: str | None = None) -> None:
        try:
            super().begin(lock_type)
        except DatabaseError as exc:
            raise _classified(exc) from exc

    def commit(self) -> None:
        try:
            super().commit()
        except DatabaseError as exc:
            raise _classified(exc) from exc

    def rollback(self) -> None:
        # On SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM (and SQLITE_BUSY at COMMIT) SQLite may roll the
        # whole transaction back by itself; a ROLLBACK then fails with "cannot rollback - no
        # transaction is active", and that error would replace the one that explains what happened.
        if self.sqlite_transaction_open():
            super().rollback()

    def round_trips(self) -> int:
        """Statements sent to a server: none (the file is read in this process)."""
        return 0

    def transaction_failed(self) -> bool:
        """Whether this thread's transaction can only be rolled back: SQLite rolls such a one back itself."""
        return False

    def close_all(self) -> None:
        """Close the connection (one per store: the store's threads share it through peewee's state)."""
        if not self.is_closed():
            self.close()

    def listener_connection(self) -> Any:
        """A file is not shared: no other host's commits are heard (`dialect.shared` is false)."""
        raise TypeError("an SQLite store hears no other hosts: it has no listener connection")

    def integrity_check(self, location: str) -> str:
        """SQLite's own verdict on the file: 'ok' when sound, else what it found (its first 20 problems)."""
        try:
            rows = [str(row[0]) for row in self.execute_sql("PRAGMA integrity_check(20)").fetchall()]
        except (sqlite3.DatabaseError, StorageProblem) as exc:  # so damaged that the check itself fails
            return f"damaged: {exc}"
        return "; ".join(rows) or "no verdict"

    def savepoint(self) -> _savepoint:
        return _Savepoint(self)

    def sqlite_transaction_open(self) -> bool:
        """Whether SQLite itself has a transaction open on this thread's connection (not peewee's bookkeeping)."""
        return not self.is_closed() and bool(self.connection().in_transaction)


class _Savepoint(_savepoint):
    """A savepoint that is not rolled back after SQLite has rolled back the whole transaction (it is gone then)."""

    def rollback(self, begin: bool = True) -> None:
        if isinstance(self.db, JiyiDatabase) and not self.db.sqlite_transaction_open():
            return
        super().rollback(begin)


def _classified(exc: DatabaseError) -> Exception:
    """`exc` as a `StorageProblem` when the environment caused it, else `exc` itself."""
    return storage_problem(exc) or exc
