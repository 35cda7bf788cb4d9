"""The PostgreSQL connection of a shared store: peewee's database made to speak Jiyi's SQL.

Everything backend-specific lives here, in `fulltext.py` and in the facts of
`dialect.py` (which the domain modules ask instead of naming a back end), so
any peewee model (and the few hand-written statements of the hot paths)
works on both:

- Jiyi's own SQL is written with `?` placeholders (SQLite's); they become
  psycopg's `%s` here, once per distinct statement.
- A write transaction (`atomic("IMMEDIATE")`, what every store write takes)
  holds one transaction-scoped advisory lock, as SQLite's `BEGIN IMMEDIATE`
  holds the file's write lock: writers from every host take turns, so each
  check-then-write (an expected revision, a lease, a quota, an idempotency
  key) sees what the previous writer committed, and event numbers are
  committed in order (a reader that has seen event n never misses an
  earlier one committing later).
- The full-text tables (`FTS5Model`s on SQLite) are plain tables with a
  `tsvector` column over the same tokens (the `simple` configuration) and a
  GIN index.
- The server going away (shutdown, network, too many connections) is an
  `EnvironmentProblem` answered `unavailable`; the connection is dropped and
  the next request connects again, so service resumes without a restart.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from peewee import DatabaseError, InterfaceError, PostgresqlDatabase
from playhouse.sqlite_ext import FTS5Model

from store.core.dialect import POSTGRESQL, Dialect
from store.core.errors import StorageProblem

log = logging.getLogger("jiyi.store.pg")

# The key of the advisory lock every write transaction holds (any constant: Jiyi owns its database).
WRITE_LOCK_KEY = 0x4A495949  # "JIYI"
# SQLSTATE classes that say the server or the network is at fault, not Jiyi's SQL.
_ENVIRONMENT_STATES = {
    "08": "the connection to the database server failed",
    "53": "the database server ran out of resources (disk, memory or connections)",
    "57": "the database server is shutting down or not accepting connections",
    "58": "the database server hit an I/O error",
}


class JiyiPostgresDatabase(PostgresqlDatabase):
    """peewee's PostgreSQL database (psycopg 3) for a Jiyi store; see the module's docstring."""

    backend = "postgresql"
    dialect: Dialect = POSTGRESQL

    def __init__(self, database: str, *, description: str, **kwargs: Any) -> None:
        # SQLite's integers are 64-bit and its floats double: so are the columns here (peewee's defaults
        # would be 32-bit INTEGER and single-precision REAL, which rounds a Unix time to minutes).
        types = {"AUTO": "BIGSERIAL", "INT": "BIGINT", "FLOAT": "DOUBLE PRECISION"}
        super().__init__(database, field_types=types, **kwargs)
        self.description = description
        # peewee keeps one connection per thread; the store's close must close every one of them.
        self._opened: list[Any] = []
        self._opened_lock = threading.Lock()
        self._trips = threading.local()

    def round_trips(self) -> int:
        """How many statements this thread has sent to the server (the write statistics count them)."""
        return int(getattr(self._trips, "count", 0))

    def _trip(self) -> None:
        self._trips.count = getattr(self._trips, "count", 0) + 1

    def _connect(self) -> Any:
        conn = super()._connect()  # type: ignore[misc]  # peewee's stubs leave out the hook
        with self._opened_lock:
            self._opened = [c for c in self._opened if not c.closed] + [conn]
        return conn

    def close_all(self) -> None:
        """Close every thread's connection (the store is closing; no thread may use it afterwards)."""
        with contextlib.suppress(Exception):
            self.close()
        with self._opened_lock:
            opened, self._opened = self._opened, []
        for conn in opened:
            with contextlib.suppress(Exception):
                conn.close()

    def execute_sql(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        if not self.in_transaction() and _changes_schema(sql):
            # Outside a write transaction, a CREATE would race another host's: PostgreSQL's `IF NOT EXISTS`
            # does not hold against a concurrent creation (`Key (typname, typnamespace)=(…) already exists`).
            # Under the write lock, the second host finds the first one's table.
            with self.atomic("IMMEDIATE"):
                return self._execute_sql(sql, params)
        return self._execute_sql(sql, params)

    def _execute_sql(self, sql: str, params: Sequence[Any] | None) -> Any:
        self._drop_dead_connection()
        self._trip()
        try:
            return super().execute_sql(_format_style(sql), params)  # type: ignore[no-untyped-call]  # untyped in the stub
        except (DatabaseError, InterfaceError) as exc:
            raise self._classified(exc) from exc

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run `sql` once per row of parameters (one statement, many rows)."""
        self._drop_dead_connection()
        self._trip()
        try:
            self.cursor().executemany(_format_style(sql), rows)
        except Exception as exc:
            problem = self._classified(exc)
            if problem is exc:
                raise
            raise problem from exc

    def begin(self, isolation_level: str | None = None) -> None:
        """BEGIN; a write transaction (SQLite's "IMMEDIATE") also takes the store's write lock."""
        self._drop_dead_connection()
        self._trip()
        try:
            if isolation_level in ("IMMEDIATE", "EXCLUSIVE"):
                # One round trip for both (no parameters: the simple protocol takes two statements).
                self.cursor().execute(f"BEGIN; SELECT pg_advisory_xact_lock({int(WRITE_LOCK_KEY)})")
            else:
                super().begin(isolation_level)
        except Exception as exc:  # psycopg's own errors too: the statement above bypasses peewee's wrapper
            problem = self._classified(exc)
            if problem is exc:
                raise
            raise problem from exc

    def commit(self) -> None:
        self._trip()
        try:
            super().commit()
        except (DatabaseError, InterfaceError) as exc:
            raise self._classified(exc) from exc

    def rollback(self) -> None:
        # A connection the server dropped has rolled back by itself; a ROLLBACK on it would only
        # replace the error that explains what happened.
        if self._connection_broken():
            return
        try:
            super().rollback()
        except (DatabaseError, InterfaceError) as exc:
            raise self._classified(exc) from exc

    def transaction_failed(self) -> bool:
        """Whether this thread's transaction was aborted by a failed statement (only a rollback helps)."""
        import psycopg  # the driver is loaded only for a PostgreSQL store

        conn = self._local_state.conn
        return conn is not None and conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR

    def listener_connection(self) -> Any:
        """A connection of its own, in autocommit, for LISTEN (the change feed's thread holds it)."""
        import psycopg  # the driver is loaded only for a PostgreSQL store

        params = {k: v for k, v in self.connect_params.items() if k != "application_name"}
        return psycopg.connect(self.database, autocommit=True, application_name="jiyi-feed", **params)

    def integrity_check(self, location: str) -> str:
        """'ok' when the server answers a trivial query (a file's integrity check has no server equivalent)."""
        return "ok" if server_now_ok(self) else f"the database server {location} does not answer"

    def select_together(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[tuple[list[str], list[Any]]]:
        """Run read statements in one round trip (psycopg's pipeline mode): each one's column names and rows."""
        self._drop_dead_connection()
        try:
            conn = self.connection()
            cursors = []
            with conn.pipeline():
                for sql, params in statements:
                    cursor = conn.cursor()
                    cursor.execute(_format_style(sql), list(params))
                    cursors.append(cursor)
            return [([d[0] for d in c.description], c.fetchall()) for c in cursors]
        except Exception as exc:  # psycopg's own errors: the statements above bypass peewee's wrapper
            problem = self._classified(exc)
            if problem is exc:
                raise
            raise problem from exc

    def create_tables(self, models: Iterable[type[Any]], **options: Any) -> None:
        models = list(models)
        super().create_tables([m for m in models if not issubclass(m, FTS5Model)], **options)
        for model in models:
            if issubclass(model, FTS5Model):
                self._create_search_table(model)

    def _create_search_table(self, model: type[FTS5Model]) -> None:
        """A full-text table: rowid, the token columns, and their `tsvector` (GIN-indexed)."""
        name = model._meta.table_name
        columns = [f.column_name for f in model._meta.sorted_fields if f.column_name != "rowid"]
        text = " || ' ' || ".join(f"coalesce({c}, '')" for c in columns)
        self.execute_sql(
            f"CREATE TABLE IF NOT EXISTS {name} (rowid BIGINT PRIMARY KEY, "
            + "".join(f"{c} TEXT, " for c in columns)
            + f"tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', {text})) STORED)"
        )
        self.execute_sql(f"CREATE INDEX IF NOT EXISTS {name}_tsv ON {name} USING GIN (tsv)")

    # -- the server going away -----------------------------------------------------------

    @property
    def _local_state(self) -> Any:
        """peewee's per-thread connection state (untyped in its stubs)."""
        return vars(self)["_state"]

    def _connection_broken(self) -> bool:
        conn = self._local_state.conn
        return conn is not None and bool(getattr(conn, "closed", False) or getattr(conn, "broken", False))

    def _drop_dead_connection(self) -> None:
        """Forget a connection the server dropped (outside a transaction): the next call connects again."""
        if not self._local_state.closed and self._connection_broken() and not self.in_transaction():
            with contextlib.suppress(Exception):
                self._local_state.conn.close()
            self._local_state.reset()

    def _classified(self, exc: Exception) -> Exception:
        """`exc` as a `StorageProblem` when the server or the network caused it, else `exc` itself."""
        state = _sqlstate(exc)
        reason = _ENVIRONMENT_STATES.get(state[:2]) if state else None
        if reason is None and (self._connection_broken() or _is_connection_failure(exc)):
            reason = "the database server cannot be reached"
        if reason is None:
            return exc
        return StorageProblem(
            f"the database is unavailable: {reason} ({self.description}: {_first_line(exc)}); "
            "Jiyi connects again on the next request",
            f"PG_{state or 'CONNECTION'}",
        )


def _sqlstate(exc: BaseException) -> str:
    """The SQLSTATE of `exc` or of the psycopg error it wraps ("" when there is none)."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        state = getattr(current, "sqlstate", None)
        if isinstance(state, str) and state:
            return state
        todo.extend(arg for arg in getattr(current, "args", ()) if isinstance(arg, BaseException))
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return ""


def _is_connection_failure(exc: BaseException) -> bool:
    """Whether psycopg failed to connect or lost the connection (those errors carry no SQLSTATE)."""
    import psycopg  # the driver is loaded only for a PostgreSQL store

    current: BaseException | None = exc
    for _ in range(5):
        if current is None:
            return False
        if isinstance(current, psycopg.OperationalError | psycopg.InterfaceError) and not getattr(
            current, "sqlstate", None
        ):
            return True
        wrapped = [a for a in getattr(current, "args", ()) if isinstance(a, BaseException)]
        current = wrapped[0] if wrapped else current.__cause__
    return False


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _changes_schema(sql: str) -> bool:
    """Whether `sql` creates, alters or drops part of the schema (a table, an index, a type)."""
    return sql.lstrip()[:6].upper() in ("CREATE", "ALTER ", "DROP T", "DROP I")


@functools.lru_cache(maxsize=4096)
def _format_style(sql: str) -> str:
    """Jiyi's `?` placeholders as psycopg's `%s` (and a literal `%` as `%%`), outside quoted text.

    Statements peewee built already use `%s` and pass through untouched.
    SQLite's storage hint `WITHOUT ROWID` means nothing here and is dropped,
    and a table's REAL column (8 bytes in SQLite) is DOUBLE PRECISION here
    (PostgreSQL's REAL has 4, and would round a Unix time to minutes).
    """
    sql = sql.replace(" WITHOUT ROWID", "")
    if sql.lstrip().upper().startswith("CREATE TABLE"):
        sql = re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)
    if "%s" in sql or ("?" not in sql and "%" not in sql):
        return sql
    out: list[str] = []
    quote = ""
    for char in sql:
        if quote:
            if char == quote:
                quote = ""
            out.append("%%" if char == "%" else char)
        elif char in ("'", '"'):
            quote = char
            out.append(char)
        elif char == "?":
            out.append("%s")
        elif char == "%":
            out.append("%%")
        else:
            out.append(char)
    return "".join(out)


def connect_postgres(url: str, *, user: str, password: str | None, description: str) -> JiyiPostgresDatabase:
    """A `JiyiPostgresDatabase` for `url` (not connected yet); the password is passed apart from the URL."""
    params: dict[str, str | int] = {"user": user, "connect_timeout": 10, "application_name": "jiyi"}
    if password is not None:
        params["password"] = password
    return JiyiPostgresDatabase(url, description=description, **params)


def server_now_ok(db: JiyiPostgresDatabase) -> bool:
    """Whether a trivial query succeeds (the store's `integrity_check` on a server)."""
    try:
        return bool(db.execute_sql("SELECT 1").fetchone()[0] == 1)
    except StorageProblem:
        log.warning("the database server did not answer a check")
        return False
