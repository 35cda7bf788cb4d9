"""Several `jiyi serve` hosts starting at the same moment on an empty PostgreSQL database: each creates and
migrates the schema under an advisory lock, so every one of them opens its socket and serves."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from store.core.postgres import JiyiPostgresDatabase, connect_postgres
from store.episodes import recall_calibration
from tests.postgres_server import SUPERUSER, PostgresServer
from tests.service.conftest import JIYI, Server, point_at, send_lines, wait_for_socket

pytestmark = pytest.mark.postgresql_only

HOSTS = 4
ROUNDS, RACERS = 40, 4


@pytest.mark.slow
def test_hosts_started_together_on_an_empty_database_all_serve(
    short_dir: Path, database_url: str, postgres: PostgresServer
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    servers: list[Server] = []
    logs = []
    try:
        for n in range(HOSTS):
            home, sock, log = short_dir / f"h{n}" / "home", short_dir / f"h{n}" / "jiyi.sock", short_dir / f"h{n}.log"
            point_at(home, database_url, postgres)
            logs.append(log)
            with log.open("wb") as err:
                command = [JIYI, "serve", "--home", str(home), "--socket", str(sock)]
                servers.append(Server(subprocess.Popen(command, env=env, stdout=err, stderr=err), sock, home))
        for server, log in zip(servers, logs, strict=True):
            try:
                wait_for_socket(server.socket, server.process)
            except RuntimeError:
                pytest.fail(f"a host did not start: {log.read_text()}")
        for n, server in enumerate(servers):
            request = {
                "id": 1,
                "method": "app.alias.learn",
                "params": {"name": f"微信{n}", "package": "com.tencent.mm"},
            }
            [answer] = send_lines(server.socket, [json.dumps(request).encode()])
            assert json.loads(answer)["ok"], answer
        for server in servers:
            assert server.stop() == 0
        for log in logs:
            assert "Traceback" not in log.read_text()
    finally:
        for server in servers:
            if server.alive():
                server.process.kill()
                server.process.wait(timeout=30)


def test_tables_created_at_the_same_instant_by_several_connections_never_collide(
    database_url: str, postgres: PostgresServer
) -> None:
    """What made a host fail to start: `CREATE TABLE IF NOT EXISTS` outside the write lock, from two hosts
    at once, fails in one of them (PostgreSQL does not hold `IF NOT EXISTS` against a concurrent creation:
    `duplicate key value violates unique constraint "pg_type_typname_nsp_index"`; 25 of 40 rounds here
    before). Now every schema change outside a transaction takes the advisory write lock."""
    failures: list[str] = []
    for round_ in range(ROUNDS):
        dbs = [
            connect_postgres(database_url, user=SUPERUSER, password=postgres.password, description="race")
            for _ in range(RACERS)
        ]
        for db in dbs:
            db.connect()
        barrier = threading.Barrier(RACERS)
        statement = recall_calibration._TABLE.replace("recall_calibration", f"recall_calibration_{round_}")

        def create(db: JiyiPostgresDatabase, barrier: threading.Barrier, statement: str) -> None:
            barrier.wait(timeout=30)
            try:
                db.execute_sql(statement)
            except Exception as exc:
                failures.append(str(exc).splitlines()[0])

        threads = [threading.Thread(target=create, args=(db, barrier, statement)) for db in dbs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        for db in dbs:
            db.close_all()
    assert failures == []
