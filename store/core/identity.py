"""The store's identity: a random id written once into `meta`, the same for every host of the store.

Two homes (two SQLite files, two PostgreSQL databases) pointed at one Chroma
server name their collections by it, so neither reads nor drops the other's
vectors (`recall.vectors`); hosts sharing one store read the same id and so
share its collections. A new store gets it at creation and an older one in
place (schema 6, `store.core.migrations`); `jiyi migrate --to` gives the
target its own (the copy is another store to the vector server: run
`jiyi rebuild-vec` there, as after any move).
"""

from __future__ import annotations

import uuid
from typing import Any

STORE_ID_KEY = "store_id"


def write_store_id(db: Any) -> None:
    """Give the store its id unless it has one (under the migration's write lock: every host agrees)."""
    db.execute_sql(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (STORE_ID_KEY, uuid.uuid4().hex)
    )


def read_store_id(db: Any) -> str | None:
    """The store's id (32 hex digits), or None for a store not migrated to schema 6 (a damaged file opened
    for reading only)."""
    row = db.execute_sql("SELECT value FROM meta WHERE key = ?", (STORE_ID_KEY,)).fetchone()
    return str(row[0]) if row else None
