"""Maintenance leases: batches of unfiled interactions handed to a planner, kept in the database.

In the database, not in one process's memory, so every host sharing a store
sees every lease: two planners on two hosts never get the same interactions,
and a lease taken on one host can be committed through another. A lease is
operational state (it expires), not memory: it is not an event. Its clock is
the wall clock (`expires` in Unix seconds), which the hosts share.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass

from store.core.database import Store
from store.desk import topics
from store.desk.models import Interaction

_TABLE = (
    "CREATE TABLE IF NOT EXISTS desk_lease (batch_id TEXT PRIMARY KEY, interaction_ids TEXT NOT NULL, "
    "rowids TEXT NOT NULL, expires DOUBLE PRECISION NOT NULL)"
)


@dataclass(frozen=True)
class Lease:
    """A maintenance batch handed to a planner until `expires` (Unix seconds)."""

    batch_id: str
    interaction_ids: list[str]
    rows: list[int]
    expires: float


def _ensure(store: Store) -> None:
    store.db.execute_sql(_TABLE)


def live(store: Store) -> list[Lease]:
    """The leases that have not expired. Only reads (a read-only home answers it too): the expired ones are cleared
    when a batch is next taken or a lease returned."""
    if not store.db.table_exists("desk_lease"):
        return []  # no batch was ever leased here (the table is made with the first)
    rows = store.db.execute_sql(
        "SELECT batch_id, interaction_ids, rowids, expires FROM desk_lease WHERE expires > ?", (time.time(),)
    ).fetchall()
    return [Lease(b, json.loads(i), json.loads(r), float(e)) for b, i, r, e in rows]


def _live(store: Store) -> list[Lease]:
    _ensure(store)
    store.db.execute_sql("DELETE FROM desk_lease WHERE expires <= ?", (time.time(),))
    rows = store.db.execute_sql("SELECT batch_id, interaction_ids, rowids, expires FROM desk_lease").fetchall()
    return [Lease(b, json.loads(i), json.loads(r), float(e)) for b, i, r, e in rows]


def take(store: Store, limit: int, seconds: int) -> tuple[Lease | None, list[Interaction]]:
    """Lease the oldest unfiled interactions no live lease holds (None when there are none)."""
    with store.db.atomic("IMMEDIATE"):  # under the write lock: two planners, on any hosts, take turns
        leased = {row for lease in _live(store) for row in lease.rows}
        rows = topics.unarchived(store, limit, exclude=leased)
        if not rows:
            return None, []
        ids, rowids = [r.interaction_id for r in rows], [r.id for r in rows]
        lease = Lease("batch_" + secrets.token_hex(8), ids, rowids, time.time() + seconds)
        store.db.execute_sql(
            "INSERT INTO desk_lease (batch_id, interaction_ids, rowids, expires) VALUES (?, ?, ?, ?)",
            (lease.batch_id, json.dumps(lease.interaction_ids), json.dumps(lease.rows), lease.expires),
        )
    return lease, rows


def find(store: Store, batch_id: str) -> Lease | None:
    """The live lease `batch_id`, if any."""
    return next((lease for lease in live(store) if lease.batch_id == batch_id), None)


def drop(store: Store, batch_id: str) -> None:
    with store.db.atomic("IMMEDIATE"):
        _ensure(store)
        store.db.execute_sql("DELETE FROM desk_lease WHERE batch_id = ?", (batch_id,))


def expire(store: Store, batch_id: str) -> None:
    """End a lease now (as if its planner had crashed and its time ran out)."""
    with store.db.atomic("IMMEDIATE"):
        _ensure(store)
        store.db.execute_sql("UPDATE desk_lease SET expires = 0 WHERE batch_id = ?", (batch_id,))
