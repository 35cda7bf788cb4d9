"""Lost data is never silent: a real `jiyi serve` killed (`kill -9`) after acknowledged writes, its database
then made to hold less (the WAL cut to half, garbled or deleted; a server that lost the newest commits), and
started again. It refuses (exit 3) naming how many events are missing and the ways forward, `jiyi doctor`
fails on it, and `jiyi serve --accept-loss` goes on knowingly, the loss recorded in the event log."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from service.client import JiyiClient
from service.config import load_config
from store.core.acknowledged import DOMAIN, LOSS_ACCEPTED, MARK_NAME, Mark
from store.core.connect import connect_database
from tests.conftest import open_store
from tests.service.conftest import JIYI, Server

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("kills the service with SIGKILL (Unix only)", allow_module_level=True)

pytestmark = pytest.mark.slow  # each test starts `jiyi serve` four times


def environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")} | {"JIYI_EMBED_MODEL": "hash"}


def jiyi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JIYI, *args], env=environment(), capture_output=True, text=True, timeout=180)


def write_and_kill(launch: Callable[..., Server], home: Path, sock: Path) -> int:
    """Acknowledged writes of every kind the loss hides (App-KB aliases, turns, bundle documents), then
    `kill -9`; the newest event acknowledged, as the home's mark holds it."""
    server = launch(home, sock, env={"JIYI_EMBED_MODEL": "hash"})
    with JiyiClient(sock, timeout=60) as client:
        for i in range(12):
            assert client.learn_alias(f"别名{i}", "com.tencent.mm")["stored"]
            assert client.remember_interaction(f"turn-{i}", f"第{i}件事", "好的")["stored"]
            assert client.put_document("project/p", f"d{i}.md", f"文档{i}", 0)["revision"] == 1
    server.stop(signal.SIGKILL)
    return Mark.decode((home / MARK_NAME).read_bytes()).seq


def newest_in_file(database: Path) -> int:
    """The newest event SQLite finds in a copy of the file and its WAL (as the next open would recover it)."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "copy.sqlite3"
        shutil.copy(database, copy)
        wal = Path(f"{database}-wal")
        if wal.exists():
            shutil.copy(wal, f"{copy}-wal")
        db = sqlite3.connect(copy)
        try:
            return int(db.execute("SELECT coalesce(max(seq), 0) FROM event").fetchone()[0])
        finally:
            db.close()


def damage(wal: Path, how: str) -> None:
    if how == "truncate":
        os.truncate(wal, wal.stat().st_size // 2)
    elif how == "garble":
        data = bytearray(wal.read_bytes())
        middle = len(data) // 2
        data[middle : middle + 8192] = bytes((b ^ 0x5A) for b in data[middle : middle + 8192])
        wal.write_bytes(bytes(data))
    else:
        wal.unlink()


def doctor_says(report: str) -> str:
    """`jiyi doctor`'s line about the acknowledged changes (on a shared store without a Chroma server its
    vectors' line fails too, whatever else holds)."""
    (line,) = [row for row in report.splitlines() if row.split()[1:2] == ["acknowledged"]]
    return line


def refused_then_accepted(launch: Callable[..., Server], home: Path, sock: Path, count: str) -> None:
    """The refusal and the doctor's report name `count`; accepting records it; the service then serves."""
    refused = jiyi("serve", "--home", str(home), "--socket", str(sock))
    assert refused.returncode == 3, refused.stderr
    said = refused.stderr.strip().splitlines()[-1]
    assert f"{count} acknowledged are missing" in said
    assert "`jiyi doctor`" in said and "from a backup" in said and "`jiyi serve --accept-loss`" in said
    assert "Traceback" not in refused.stderr
    doctor = jiyi("doctor", "--home", str(home))
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    line = doctor_says(doctor.stdout)
    assert line.startswith("FAIL") and f"{count} acknowledged are missing" in line
    server = launch(home, sock, "--accept-loss", env={"JIYI_EMBED_MODEL": "hash"})
    with JiyiClient(sock, timeout=60) as client:
        assert client.learn_alias("之后", "com.tencent.mm")["stored"]
    assert server.stop() == 0
    line = doctor_says(jiyi("doctor", "--home", str(home)).stdout)
    assert line.startswith("ok") and "1 loss accepted knowingly" in line
    store = open_store(home)
    try:
        (event,) = store.events(DOMAIN, types=[LOSS_ACCEPTED])
        assert count.endswith(f"{event.payload['missing']} of the {event.payload['acknowledged_seq']} events")
    finally:
        store.close()


@pytest.mark.sqlite_only
@pytest.mark.parametrize("how", ["truncate", "garble", "delete"])
def test_a_wal_damaged_after_kill_9_is_refused_reported_and_accepted_knowingly(
    short_dir: Path, launch: Callable[..., Server], how: str
) -> None:
    """Up to 106 of 152 events (and every bundle document) were gone, yet `jiyi serve` served and `jiyi
    doctor` passed."""
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    acknowledged = write_and_kill(launch, home, sock)
    database = home / "jiyi.sqlite3"
    assert newest_in_file(database) == acknowledged  # kill -9 lost nothing: the WAL holds every commit
    damage(Path(f"{database}-wal"), how)
    held = newest_in_file(database)
    assert held < acknowledged
    refused_then_accepted(launch, home, sock, f"{acknowledged - held} of the {acknowledged} events")


@pytest.mark.sqlite_only
def test_a_wal_checkpointed_by_a_clean_stop_and_deleted_loses_nothing(
    short_dir: Path, launch: Callable[..., Server]
) -> None:
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    server = launch(home, sock, env={"JIYI_EMBED_MODEL": "hash"})
    with JiyiClient(sock, timeout=60) as client:
        for i in range(10):
            assert client.learn_alias(f"别名{i}", "com.tencent.mm")["stored"]
    assert server.stop() == 0  # the last connection checkpoints the WAL into the file
    Path(f"{home / 'jiyi.sqlite3'}-wal").unlink(missing_ok=True)
    server = launch(home, sock, env={"JIYI_EMBED_MODEL": "hash"})
    assert server.stop() == 0
    doctor = jiyi("doctor", "--home", str(home))
    assert doctor.returncode == 0 and doctor_says(doctor.stdout).startswith("ok"), doctor.stdout


@pytest.mark.postgresql_only
def test_a_server_that_lost_acknowledged_commits_is_refused_reported_and_accepted_knowingly(
    short_dir: Path, launch: Callable[..., Server]
) -> None:
    """The server owns durability; restored from a backup or failed over to a replica without the newest
    commits, it holds less than the host acknowledged, and the host says so."""
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    acknowledged = write_and_kill(launch, home, sock)
    settings = load_config(home=home, env={})
    db = connect_database(home, settings.database_url, settings.database_password())
    try:
        db.execute_sql("DELETE FROM event WHERE seq > ?", (acknowledged - 5,))
    finally:
        db.close()
    refused_then_accepted(launch, home, sock, f"up to 5 of the {acknowledged} events")


@pytest.mark.postgresql_only
def test_hosts_sharing_one_store_start_again_after_kill_9(short_dir: Path, launch: Callable[..., Server]) -> None:
    """Each host's mark is what it acknowledged: the others' writes since never make it refuse."""
    homes = [short_dir / f"h{n}" for n in range(3)]
    socks = [short_dir / f"r{n}" / "jiyi.sock" for n in range(3)]
    for sock in socks:
        sock.parent.mkdir(mode=0o700)
    servers = [launch(home, sock, env={"JIYI_EMBED_MODEL": "hash"}) for home, sock in zip(homes, socks, strict=True)]
    for round_ in range(2):
        for n, sock in enumerate(socks):
            with JiyiClient(sock, timeout=60) as client:
                for i in range(5):
                    assert client.learn_alias(f"别名{round_}-{n}-{i}", "com.tencent.mm")["stored"]
        servers[round_].stop(signal.SIGKILL)
        servers[round_] = launch(homes[round_], socks[round_], env={"JIYI_EMBED_MODEL": "hash"})
    for server in servers:
        assert server.stop() == 0
    for home in homes:
        assert doctor_says(jiyi("doctor", "--home", str(home)).stdout).startswith("ok")
