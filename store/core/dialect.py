"""What differs between the two back ends, as facts a caller asks for instead of naming a back end.

As peewee puts SQL differences on its `Database` classes, each of Jiyi's two
database classes (`JiyiDatabase` for the home's SQLite file,
`JiyiPostgresDatabase` for a shared server) carries one `Dialect`. Domain
modules (`store/appkb`, `store/desk`, `store/episodes`, `store/learning`, ...)
read these facts and never test which back end they run on (an import-linter
contract keeps `store.core.postgres` out of them and a test keeps the
back end's name out of their text); only `store/core` knows the back ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Dialect:
    """The SQL facts of one back end.

    - `name`: "sqlite" or "postgresql" (for people and logs, not for branching).
    - `json_array`: the SQL function building a JSON array of its arguments.
    - `chained_inserts`: an `INSERT ... RETURNING` can feed further inserts in one
      statement (a data-modifying `WITH`); SQLite needs one statement each.
    - `insert_or_replace`: `INSERT OR REPLACE` replaces a row by its key; elsewhere a
      replace is an upsert on the primary key.
    - `pipelined_reads`: several reads can go to the server in one round trip
      (`select_together`); on a file each read is a function call anyway.
    - `draws_numbers_first`: an event's number can be drawn from its sequence
      inside the statement that inserts it (so a transaction's first event names
      it in one round trip); SQLite numbers the row and the id is set after.
    - `sequence_catch_up`: the statement that moves the event sequence past
      explicitly numbered rows (bound to the last number), or None when inserting
      explicit numbers moves it by itself.
    - `shared`: several hosts share the store (other hosts' commits arrive as
      notices; the server, not a file, answers the integrity check).
    - `snapshot_reads`: the statement that makes the transaction just begun read one snapshot throughout
      (a reader that must see its tables agree), or None when a transaction already does.
    """

    name: str
    json_array: str
    chained_inserts: bool
    insert_or_replace: bool
    pipelined_reads: bool
    draws_numbers_first: bool
    sequence_catch_up: str | None
    shared: bool
    snapshot_reads: str | None = None


SQLITE = Dialect(
    name="sqlite",
    json_array="json_array",
    chained_inserts=False,
    insert_or_replace=True,
    pipelined_reads=False,
    draws_numbers_first=False,
    sequence_catch_up=None,
    shared=False,
)

POSTGRESQL = Dialect(
    name="postgresql",
    json_array="json_build_array",
    chained_inserts=True,
    insert_or_replace=False,
    pipelined_reads=True,
    draws_numbers_first=True,
    sequence_catch_up="SELECT setval(pg_get_serial_sequence('event', 'seq'), ?)",
    shared=True,
    snapshot_reads="SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY",
)


def dialect_of(db: Any) -> Dialect:
    """The dialect of `db` (a plain peewee SQLite database, as a test may bind, speaks SQLite's)."""
    found = getattr(db, "dialect", SQLITE)
    return found if isinstance(found, Dialect) else SQLITE
