"""Moving a store to another database (`jiyi migrate --to URL`): its event log is copied, its views replayed.

The event log is the truth, so a move copies events only, with their
numbers, in batches of one transaction each; the views on the other side
are rebuilt from them. A move interrupted half-way resumes where the target
stops (after checking that what the target holds is the start of this log).
It is verified by the event count of every domain and by a checksum of every
view, computed the same way on both sides after a replay. The store's id
(`store.core.identity`) is not copied: the target is another store, with its
own collections on a Chroma server (the old database may still be opened).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from playhouse.sqlite_ext import FTS5Model

from store.core.dialect import dialect_of
from store.core.errors import Conflict
from store.core.migrations import migrate
from store.core.models import tuples
from store.core.projection import Projection

Progress = Callable[[int, int], None]
BATCH = 1000
_COLUMNS = "seq, ts, domain, type, schema_v, actor, payload, txn, subject"


@dataclass(frozen=True)
class CopyReport:
    """How a copy went: events already there (a resumed move), events copied now, the log's length."""

    resumed_at: int
    copied: int
    total: int


def copy_events(source_db: Any, target_db: Any, progress: Progress | None = None) -> CopyReport:
    """Copy every event of `source_db` missing from `target_db` (same numbers); resumable.

    Refused with `Conflict` when the target holds events that are not this
    log's first ones (another store's, or a different history).
    """
    migrate(target_db)
    total = int(source_db.execute_sql("SELECT count(*) FROM event").fetchone()[0])
    last = target_db.execute_sql(f"SELECT {_COLUMNS} FROM event ORDER BY seq DESC LIMIT 1").fetchone()
    resumed_at = 0
    if last is not None:
        resumed_at = int(last[0])
        mine = source_db.execute_sql(f"SELECT {_COLUMNS} FROM event WHERE seq = ?", (resumed_at,)).fetchone()
        if mine is None or tuple(mine) != tuple(last):
            raise Conflict(
                f"the target database already holds events, and its event {resumed_at} is not this store's; "
                "move into an empty database"
            )
    done = int(source_db.execute_sql("SELECT count(*) FROM event WHERE seq <= ?", (resumed_at,)).fetchone()[0])
    copied, after = 0, resumed_at
    while True:
        rows = source_db.execute_sql(
            f"SELECT {_COLUMNS} FROM event WHERE seq > ? ORDER BY seq LIMIT ?", (after, BATCH)
        ).fetchall()
        if not rows:
            break
        with target_db.atomic("IMMEDIATE"):
            target_db.execute_many(f"INSERT INTO event ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", rows)
        copied += len(rows)
        after = int(rows[-1][0])
        if progress is not None:
            progress(done + copied, total)
    catch_up = dialect_of(target_db).sequence_catch_up
    if catch_up and after:
        # Explicit numbers do not move a server's identity sequence: the next append must follow the copied log.
        target_db.execute_sql(catch_up, (after,))
    return CopyReport(resumed_at, copied, total)


def domain_counts(db: Any) -> dict[str, int]:
    """Events per domain."""
    rows = db.execute_sql("SELECT domain, count(*) FROM event GROUP BY domain").fetchall()
    return {str(domain): int(n) for domain, n in rows}


def view_checksum(db: Any, projections: Sequence[Projection]) -> str:
    """A SHA-256 over every row of every view table (search tables aside: each back end keeps its own form).

    Values are read through the models (a SQLite 0/1 and a PostgreSQL boolean
    read the same), rows in primary-key order.
    """
    digest = hashlib.sha256()
    for projection in sorted(projections, key=lambda p: p.domain):
        models = [m for m in projection.models if not issubclass(m, FTS5Model)]
        with db.bind_ctx(models, bind_refs=False, bind_backrefs=False):
            for model in sorted(models, key=lambda m: m._meta.table_name):
                digest.update(model._meta.table_name.encode())
                fields = model._meta.sorted_fields
                order = list(model._meta.get_primary_keys()) or fields
                for row in tuples(model.select(*fields).order_by(*order)):
                    digest.update(json.dumps([_plain(v) for v in row], ensure_ascii=False).encode())
    return digest.hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return value
