"""The store's file safety, lock, migrations, event log and views, on real SQLite files."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from store.appkb import kb as appkb
from store.appkb.entry import AppKbEntry
from store.core.database import Store
from store.core.errors import EnvironmentProblem, HomeLocked, SchemaTooNew, UnsafePath
from store.core.home import DB_NAME
from store.core.migrations import SCHEMA_VERSION
from store.core.redaction.redactor import Redactor
from store.projections import all_projections

NOW = "2026-11-01T00:00:00+00:00"


def _entry(term: str, package: str, kind: str = "learned") -> AppKbEntry:
    return AppKbEntry(term, term, package, kind, "global", 0.9, 1, NOW, NOW)


@pytest.mark.sqlite_only  # the database file and its WAL in the home
def test_new_home_and_files_are_private(store: Store, home: Path) -> None:
    with store.atomic():
        appkb._upsert(store, _entry("微信", "com.tencent.mm"), actor="user")
    assert (home.stat().st_mode & 0o777) == 0o700
    for suffix in ("", "-wal", "-shm"):
        path = Path(f"{home / DB_NAME}{suffix}")
        assert path.exists(), suffix
        assert (path.stat().st_mode & 0o777) == 0o600, suffix


@pytest.mark.sqlite_only  # makes the home itself
def test_open_home_is_refused_with_the_fix(home: Path) -> None:
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)
    with pytest.raises(UnsafePath, match="chmod 700"):
        Store.open(home, all_projections())


@pytest.mark.sqlite_only  # the database file in the home
def test_symlinked_database_is_refused(home: Path, tmp_path: Path) -> None:
    home.mkdir(mode=0o700)
    target = tmp_path / "elsewhere.sqlite3"
    target.write_bytes(b"")
    os.chmod(target, 0o600)
    (home / DB_NAME).symlink_to(target)
    with pytest.raises(UnsafePath, match="symlink"):
        Store.open(home, all_projections())


def test_hard_linked_database_is_refused(home: Path, tmp_path: Path) -> None:
    Store.open(home, all_projections()).close()
    os.link(home / DB_NAME, tmp_path / "copy.sqlite3")
    with pytest.raises(UnsafePath, match="hard links"):
        Store.open(home, all_projections())


def test_database_readable_by_others_is_refused(home: Path) -> None:
    Store.open(home, all_projections()).close()
    os.chmod(home / DB_NAME, 0o644)
    with pytest.raises(UnsafePath, match="chmod 600"):
        Store.open(home, all_projections())


def test_home_that_is_a_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(EnvironmentProblem, match="not a directory"):
        Store.open(path, all_projections())


def test_home_under_a_file_cannot_be_created(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(EnvironmentProblem, match="cannot create home"):
        Store.open(tmp_path / "file" / "home", all_projections())


def test_second_opener_in_process_is_told_the_owner(store: Store, home: Path) -> None:
    with pytest.raises(HomeLocked, match=f"pid {os.getpid()}"):
        Store.open(home, all_projections())


def test_second_process_is_told_the_owner(store: Store, home: Path) -> None:
    code = (
        "import sys\nfrom store.core.database import Store\n"
        "try:\n    Store.open(sys.argv[1])\nexcept Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(home)], capture_output=True, text=True, check=True).stdout
    assert out.startswith("HomeLocked")
    assert f"pid {os.getpid()}" in out


def test_lock_is_released_on_close(home: Path) -> None:
    Store.open(home, all_projections()).close()
    Store.open(home, all_projections()).close()


def test_newer_schema_is_refused(home: Path) -> None:
    Store.open(home, all_projections()).close()
    with sqlite3.connect(home / DB_NAME) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNew, match="upgrade Jiyi"):
        Store.open(home, all_projections())


def test_append_outside_a_transaction_is_a_bug(store: Store) -> None:
    with pytest.raises(RuntimeError, match="atomic"):
        store.append("app_kb", "upsert", {"entry": _entry("x", "com.a.b").to_dict()}, actor="user")


def test_a_failed_transaction_leaves_nothing(store: Store) -> None:
    with pytest.raises(ZeroDivisionError), store.atomic():
        appkb._upsert(store, _entry("微信", "com.tencent.mm"), actor="user")
        _ = 1 / 0
    assert store.count_events() == 0
    assert appkb.list_entries(store) == []


def test_events_of_one_transaction_share_its_id(store: Store) -> None:
    with store.atomic() as txn:
        appkb._upsert(store, _entry("a", "com.a.a"), actor="user")
        appkb._upsert(store, _entry("b", "com.b.b"), actor="user")
    events = list(store.events("app_kb"))
    assert [e.txn for e in events] == [txn.id, txn.id] == [events[0].seq, events[0].seq]


def test_dropped_view_is_rebuilt_on_open(home: Path, redactor: Redactor) -> None:
    store = Store.open(home, all_projections())
    appkb.sync_inventory(
        store, "d1", [("com.tencent.mm", "微信"), ("com.taobao.taobao", "淘宝")], actor="agent", redactor=redactor
    )
    appkb.learn_alias(store, "绿泡泡", "com.tencent.mm", actor="user", redactor=redactor)
    before = appkb.list_entries(store)
    store.db.execute_sql("DROP TABLE app_entry")
    store.close()
    reopened = Store.open(home, all_projections())
    try:
        assert reopened.rebuilt_on_open == ["app_kb"]
        assert appkb.list_entries(reopened) == before
    finally:
        reopened.close()


def test_view_behind_the_log_is_rebuilt_on_open(home: Path, redactor: Redactor) -> None:
    store = Store.open(home, all_projections())
    appkb.learn_alias(store, "绿泡泡", "com.tencent.mm", actor="user", redactor=redactor)
    before = appkb.list_entries(store)
    store.db.execute_sql("DELETE FROM app_entry")
    store.db.execute_sql("UPDATE meta SET value = '{\"version\": 1, \"seq\": 0}' WHERE key = 'view:app_kb'")
    store.close()
    reopened = Store.open(home, all_projections())
    try:
        assert reopened.rebuilt_on_open == ["app_kb"]
        assert appkb.list_entries(reopened) == before
    finally:
        reopened.close()


def test_rebuild_reports_progress_and_keeps_the_view(store: Store, redactor: Redactor) -> None:
    apps = [(f"com.example.app{i}", f"应用{i}") for i in range(1200)]
    appkb.sync_inventory(store, "d1", apps, actor="agent", redactor=redactor)
    before = appkb.list_entries(store)
    seen: list[tuple[int, int]] = []
    counts = store.rebuild(progress=lambda done, total: seen.append((done, total)))
    assert counts == {"app_kb": 1200, "experience": 0, "recall": 0, "lessons": 0, "desk": 0, "learning": 0}
    assert seen[-1] == (1200, 1200) and len(seen) >= 3
    assert appkb.list_entries(store) == before
    assert store.integrity_check() == "ok"


ACK_WRITER = """
import sys
from pathlib import Path
from store.core.database import Store
from store.projections import all_projections
from store.appkb import kb as appkb
from store.core.redaction.redactor import Redactor
store = Store.open(Path(sys.argv[1]), all_projections())
i = 0
while True:
    appkb.learn_alias(store, f"别名{i}", "com.tencent.mm", actor="user", redactor=Redactor())
    print(i, flush=True)
    i += 1
"""


def test_acknowledged_writes_survive_kill_9(home: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", ACK_WRITER, str(home)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    acknowledged = []
    for line in process.stdout:
        acknowledged.append(int(line))
        if len(acknowledged) >= 40:
            break
    process.kill()
    process.wait()
    process.stdout.close()
    store = Store.open(home, all_projections())
    try:
        terms = {e.term for e in appkb.list_entries(store)}
        assert {f"别名{i}" for i in acknowledged} <= terms
        assert store.integrity_check() == "ok"
    finally:
        store.close()
