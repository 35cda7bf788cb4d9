"""SQLite's environment errors told apart from bugs by result code, on real SQLite files.

A full disk is SQLite's own SQLITE_FULL, produced here portably by capping the
connection's `max_page_count`: the database then cannot grow, exactly as on a
full file system.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
from peewee import OperationalError

from store.appkb import kb as appkb
from store.appkb.entry import AppKbEntry
from store.core.database import Store
from store.core.errors import StorageProblem, storage_problem
from store.core.home import DB_NAME

# SQLite's result codes and pragmas; tests/unit/store/test_postgres.py covers the server's failures.
pytestmark = pytest.mark.sqlite_only

NOW = "2026-11-01T00:00:00+00:00"


def _entry(term: str, package: str = "com.tencent.mm") -> AppKbEntry:
    return AppKbEntry(term, term, package, "learned", "global", 0.9, 1, NOW, NOW)


def fill_up(store: Store) -> None:
    """Let the database grow no further than it is now (SQLite answers SQLITE_FULL past that)."""
    pages = store.db.execute_sql("PRAGMA page_count").fetchone()[0]
    store.db.execute_sql(f"PRAGMA max_page_count = {pages}")


def big_entries(start: int, count: int) -> list[AppKbEntry]:
    return [_entry(f"{'很长的名字' * 40}{i}") for i in range(start, start + count)]


def test_a_full_disk_is_a_storage_problem_and_keeps_what_was_committed(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    for i in range(5):
        with store.atomic():
            appkb._upsert(store, _entry(f"别名{i}"), actor="user")
    fill_up(store)
    with pytest.raises(StorageProblem, match="disk holding the database is full") as raised:
        for entry in big_entries(0, 200):
            with store.atomic():
                appkb._upsert(store, entry, actor="user")
    assert raised.value.sqlite_code == "SQLITE_FULL"
    assert raised.value.code == "unavailable"
    assert not store.db.sqlite_transaction_open()
    # SQLite had rolled the transaction back itself; a second ROLLBACK would have hidden SQLITE_FULL.
    assert "cannot rollback" not in caplog.text
    terms = {e.term for e in appkb.list_entries(store)}
    assert {f"别名{i}" for i in range(5)} <= terms
    assert store.integrity_check() == "ok"
    store.db.execute_sql("PRAGMA max_page_count = 1073741823")
    with store.atomic():
        appkb._upsert(store, _entry("磁盘空了以后"), actor="user")
    assert "磁盘空了以后" in {e.term for e in appkb.list_entries(store)}


def test_a_full_disk_inside_a_savepoint_is_still_a_storage_problem(store: Store) -> None:
    with store.atomic():
        appkb._upsert(store, _entry("先有的"), actor="user")
    fill_up(store)
    with pytest.raises(StorageProblem, match="full"), store.atomic():
        for entry in big_entries(0, 200):
            with store.atomic():  # nested: a savepoint SQLite has dropped with the transaction
                appkb._upsert(store, entry, actor="user")
    assert "先有的" in {e.term for e in appkb.list_entries(store)}
    assert store.integrity_check() == "ok"


def test_another_connection_holding_the_lock_is_a_storage_problem(store: Store, home: Path) -> None:
    other = sqlite3.connect(home / DB_NAME, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        store.db.execute_sql("PRAGMA busy_timeout = 0")
        with pytest.raises(StorageProblem, match="another connection") as raised, store.atomic():
            appkb._upsert(store, _entry("抢锁"), actor="user")
        assert raised.value.sqlite_code == "SQLITE_BUSY"
    finally:
        other.execute("ROLLBACK")
        other.close()
    with store.atomic():
        appkb._upsert(store, _entry("抢锁"), actor="user")


def test_a_read_only_database_is_a_storage_problem(tmp_path: Path) -> None:
    path = tmp_path / "ro.sqlite3"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    readonly = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        with pytest.raises(sqlite3.OperationalError) as raised:
            readonly.execute("INSERT INTO t VALUES (1)")
    finally:
        readonly.close()
    problem = storage_problem(raised.value)
    assert problem is not None and problem.sqlite_code == "SQLITE_READONLY"


def test_a_bug_in_sql_stays_a_bug(store: Store, caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(OperationalError, match="no such table") as raised:
        store.db.execute_sql("SELECT * FROM no_such_table")
    assert storage_problem(raised.value) is None
    with caplog.at_level(logging.WARNING), pytest.raises(OperationalError, match="no such column"), store.atomic():
        store.db.execute_sql("UPDATE event SET no_such_column = 1")
    assert not store.db.sqlite_transaction_open()
