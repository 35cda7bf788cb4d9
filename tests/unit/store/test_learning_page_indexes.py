"""The learning page's paging indexes (schema 5): on a new home and on one migrated from schema 4, and read in
index order (newest first, by key) without sorting the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.core.database import Store
from store.core.migrations import LEARNING_PAGE_INDEXES, SCHEMA_VERSION
from store.learning import queue, records
from tests.conftest import open_store

# What the learning page asks for: a state's rows or all of them, newest first, after the last row it holds.
PAGES = {
    "learning_intent": "SELECT intent_id FROM learning_intent {where} ORDER BY updated DESC, intent_id LIMIT 50",
    "learning_record": "SELECT record_id FROM learning_record {where} ORDER BY updated DESC, record_id LIMIT 50",
}
WHERES = [
    "",
    "WHERE state = 'active'",
    "WHERE (updated < '2026-06' OR (updated = '2026-06' AND {id} > 'x'))",
    "WHERE state = 'active' AND (updated < '2026-06' OR (updated = '2026-06' AND {id} > 'x'))",
]


def _names(store: Store) -> set[str]:
    tables = {table for table, _ in LEARNING_PAGE_INDEXES.values()}
    return {index.name for table in tables for index in store.db.get_indexes(table)} & set(LEARNING_PAGE_INDEXES)


def _fill(store: Store, rows: int = 300) -> None:
    """Intents and records straight into the view tables: this is about their indexes, not how rows get there."""
    for n in range(rows):
        updated = f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}T00:00:00Z"
        state = ("active", "removed", "revoked")[n % 3]
        store.db.execute_sql(
            "INSERT INTO learning_intent (intent_id, grant_id, feed, source_kind, source_id, source_fp, source_ts,"
            " state, reason, candidate, queued, updated) VALUES (?, 'g', 'objective', 'interaction', ?, 'fp', ?,"
            " ?, '', NULL, ?, ?)",
            (f"i{n:04d}", f"s{n}", updated, state, updated, updated),
        )
        store.db.execute_sql(
            "INSERT INTO learning_record (record_id, version, grant_id, kind, content, state, managed, target_ref,"
            " provenance, bytes, expires_at, created, updated, reason) VALUES (?, 1, 'g', 'fact.profile', 'c', ?,"
            " TRUE, 'fact:x', '{}', 1, '9999', ?, ?, '')",
            (f"r{n:04d}", state, updated, updated),
        )


def test_a_new_home_has_the_learning_page_indexes(store: Store) -> None:
    assert store.schema_version == SCHEMA_VERSION
    assert _names(store) == set(LEARNING_PAGE_INDEXES)


@pytest.mark.sqlite_only  # the query plan is SQLite's; the indexes themselves are checked on both back ends
def test_each_page_is_read_in_index_order_without_a_sort(store: Store) -> None:
    _fill(store)
    for table, statement in PAGES.items():
        id_column = "intent_id" if table == "learning_intent" else "record_id"
        for where in WHERES:
            sql = statement.format(where=where.format(id=id_column))
            plan = " | ".join(row[-1] for row in store.db.execute_sql(f"EXPLAIN QUERY PLAN {sql}").fetchall())
            assert f"INDEX {table}_" in plan and "TEMP B-TREE" not in plan, (sql, plan)


def test_a_home_at_schema_4_gets_them_in_place_and_pages_the_same(home: Path) -> None:
    store = open_store(home)
    _fill(store)
    for name in LEARNING_PAGE_INDEXES:
        store.db.execute_sql(f"DROP INDEX IF EXISTS {name}")
    store.db.execute_sql("UPDATE schema_version SET version = 4")
    if store.db.backend != "postgresql":
        store.db.execute_sql("PRAGMA user_version = 4")
    assert store.schema_version == 4 and _names(store) == set()
    before = _pages(store)
    store.close()
    migrated = open_store(home)
    try:
        assert migrated.schema_version == SCHEMA_VERSION and _names(migrated) == set(LEARNING_PAGE_INDEXES)
        assert migrated.rebuilt_on_open == []  # the views were kept: only indexes were added
        assert _pages(migrated) == before
    finally:
        migrated.close()


def _pages(store: Store) -> dict[str, list[str]]:
    """Every page of active intents and of all records, as the learning page asks for them (by key)."""
    out: dict[str, list[str]] = {"intents": [], "records": []}
    after: tuple[str, str] | None = None
    while page := queue.intents("active", 40, 0, after):
        out["intents"] += [row.intent_id for row in page]
        after = (page[-1].updated, page[-1].intent_id)
    after = None
    while found := records.list_records(store.db, None, 40, 0, after):
        out["records"] += [row.id for row in found]
        after = (found[-1].updated, found[-1].id)
    return out
