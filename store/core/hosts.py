"""The hosts that share a store: each one's settings that must agree, recorded in the database itself.

Operational state, not memory: a host upserts its own row when it opens the
store (no event), so `jiyi doctor` on any host can tell whether all of them
use the same Chroma server, the same embedder and the same Jiyi.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict, cast

from store.core import clock


class Host(TypedDict):
    """A host's row: what it uses, as it recorded it (an older Jiyi's may lack a field), its id and when it
    last opened the store."""

    chroma_url: NotRequired[str]
    embed_model: NotRequired[str]
    version: NotRequired[str]
    database: NotRequired[str]
    host_id: str
    seen: str


_TABLE = "CREATE TABLE IF NOT EXISTS jiyi_host (host_id TEXT PRIMARY KEY, record TEXT NOT NULL, seen TEXT NOT NULL)"


def register_host(db: Any, host_id: str, record: Mapping[str, str]) -> None:
    """Record (or refresh) what host `host_id` uses (`Host`'s settings: chroma_url, embed_model, ...)."""
    with db.atomic("IMMEDIATE"):
        db.execute_sql(_TABLE)
        db.execute_sql(
            "INSERT INTO jiyi_host (host_id, record, seen) VALUES (?, ?, ?) "
            "ON CONFLICT (host_id) DO UPDATE SET record = excluded.record, seen = excluded.seen",
            (host_id, json.dumps(record, sort_keys=True), clock.iso_now()),
        )


def list_hosts(db: Any) -> list[Host]:
    """Every host that opened this store: its record, with `host_id` and when it was last `seen`."""
    if "jiyi_host" not in db.get_tables():
        return []
    rows = db.execute_sql("SELECT host_id, record, seen FROM jiyi_host ORDER BY host_id").fetchall()
    # A record is the JSON object `register_host` wrote.
    return [cast(Host, {**json.loads(record), "host_id": host_id, "seen": seen}) for host_id, record, seen in rows]
