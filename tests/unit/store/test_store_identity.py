"""The store's id (schema 6): written once at creation, gained in place by a store at schema 5 (no view
rebuilt), the same for every opening of the store, and a move's target gets its own."""

from __future__ import annotations

import re
from pathlib import Path

from store.core.database import Store
from store.core.identity import STORE_ID_KEY
from store.core.migrations import SCHEMA_VERSION
from store.core.relocate import copy_events
from store.projections import all_projections
from tests.conftest import open_store


def test_a_new_store_has_an_id_that_every_later_opening_reads(home: Path, store: Store) -> None:
    assert store.schema_version == SCHEMA_VERSION == 6
    first = store.store_id
    assert first is not None and re.fullmatch(r"[0-9a-f]{32}", first)
    store.close()
    again = open_store(home)  # another host of the same database reads the same row
    try:
        assert again.store_id == first
    finally:
        again.close()


def test_a_store_at_schema_5_gains_its_id_in_place_and_keeps_its_views(home: Path) -> None:
    store = open_store(home)
    store.db.execute_sql("DELETE FROM meta WHERE key = ?", (STORE_ID_KEY,))
    store.db.execute_sql("UPDATE schema_version SET version = 5")
    if store.db.backend != "postgresql":
        store.db.execute_sql("PRAGMA user_version = 5")
    assert store.schema_version == 5
    store.close()
    migrated = open_store(home)
    try:
        assert migrated.schema_version == SCHEMA_VERSION
        assert migrated.store_id is not None and re.fullmatch(r"[0-9a-f]{32}", migrated.store_id)
        assert migrated.rebuilt_on_open == []  # only the id was added: no view replayed
        kept = migrated.store_id
    finally:
        migrated.close()
    reopened = open_store(home)
    try:
        assert reopened.store_id == kept  # written once: a second migration pass never replaces it
    finally:
        reopened.close()


def test_a_moved_store_is_another_store_to_the_vector_server(tmp_path: Path, store: Store) -> None:
    target_home = tmp_path / "target"
    target_home.mkdir(mode=0o700)
    target = Store.open(target_home, all_projections())
    try:
        before = target.store_id
        copy_events(store.db, target.db)
        assert target.db.execute_sql("SELECT value FROM meta WHERE key = ?", (STORE_ID_KEY,)).fetchone()[0] == before
        assert before != store.store_id  # the copy names its own collections: `jiyi rebuild-vec` fills them
    finally:
        target.close()
