"""The home's database file, faulted as a local process or a disk would, under a real `jiyi serve`:
deleted or emptied while the home still holds memory, a page garbled mid-file, moved away while serving."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import JIYI, Server, send_lines

pytestmark = pytest.mark.sqlite_only  # about the SQLite file itself


def call(server: Server, method: str, params: dict[str, Any], request_id: object = 1) -> dict[str, Any]:
    [line] = send_lines(server.socket, [json.dumps({"id": request_id, "method": method, "params": params}).encode()])
    answer: dict[str, Any] = json.loads(line)
    return answer


def serve_once(home: Path, sock: Path, *extra: str) -> subprocess.CompletedProcess[bytes]:
    """`jiyi serve` expected to refuse to start: its exit code and what it said."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    command = [JIYI, "serve", "--home", str(home), "--socket", str(sock), *extra]
    return subprocess.run(command, env=env, capture_output=True, timeout=120)


def fill(server: Server, n: int = 150) -> None:
    """Interactions (enough pages to garble one), and a bundle document (a file under bundles/)."""
    lines = [
        json.dumps(
            {
                "id": i,
                "method": "interaction.remember",
                "params": {"interaction_id": f"i{i}", "user_text": f"第 {i} 次对话 " * 40, "assistant_text": "好"},
            }
        ).encode()
        for i in range(n)
    ]
    assert all(json.loads(line)["ok"] for line in send_lines(server.socket, lines))
    put = {"bundle_id": "project/p", "path": "a.md", "content": "# 计划\n", "expected_revision": 0}
    assert call(server, "bundle.document.put", put)["ok"]


@pytest.mark.parametrize("fault", ["deleted", "emptied"])
def test_a_home_with_memory_but_no_database_is_refused_until_asked_for_a_new_one(
    short_dir: Path, launch: Callable[..., Server], fault: str
) -> None:
    """Deleted or truncated to 0 bytes, the database used to come back as an empty home beside the old
    bundle files; now `jiyi serve` refuses to start (exit 3), says what is missing and how to restore,
    and starts a new database only with `--new-database`."""
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    server = launch(home, sock)
    fill(server, 3)
    assert server.stop() == 0
    db = home / "jiyi.sqlite3"
    if fault == "deleted":
        for name in ("jiyi.sqlite3", "jiyi.sqlite3-wal", "jiyi.sqlite3-shm"):
            (home / name).unlink(missing_ok=True)
    else:
        os.truncate(db, 0)
    done = serve_once(home, sock)
    err = done.stderr.decode()
    assert done.returncode == 3, err
    state = "is missing" if fault == "deleted" else "is empty (0 bytes)"
    assert f"{db} {state}" in err and "bundles/" in err and "--new-database" in err and "backup" in err
    assert "Traceback" not in err
    assert (db.exists() and db.stat().st_size == 0) if fault == "emptied" else not db.exists()
    server = launch(home, sock, "--new-database")
    assert call(server, "interaction.remember", {"interaction_id": "n1", "user_text": "重新开始"})["ok"]
    assert server.stop() == 0
    assert db.stat().st_size > 0 and (home / "bundles").is_dir()


def test_a_garbled_page_is_found_at_open_and_writes_are_refused_naming_it(
    short_dir: Path, launch: Callable[..., Server]
) -> None:
    """A page overwritten mid-file: the service used to start and acknowledge writes into a malformed
    database. Now `quick_check` at open finds it: every write answers `unavailable` naming the damage and
    what to do, the file is not written, and `jiyi doctor` fails on SQLite's `integrity_check`."""
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    server = launch(home, sock)
    fill(server)
    assert server.stop() == 0
    db = home / "jiyi.sqlite3"
    pages = db.stat().st_size // 4096
    assert pages > 40
    with db.open("r+b") as f:
        f.seek(pages // 2 * 4096)
        f.write(b"\xa5" * 4096)
    before = db.read_bytes()
    server = launch(home, sock)
    answer = call(server, "interaction.remember", {"interaction_id": "after", "user_text": "损坏之后"})
    assert answer["ok"] is False and answer["error"]["code"] == "unavailable"
    message = answer["error"]["message"]
    assert f"{db} is damaged" in message and "restore" in message and "btreeInitPage" in message
    put = {"bundle_id": "project/p", "path": "a.md", "content": "# 改\n", "expected_revision": 1}
    assert call(server, "bundle.document.put", put)["error"]["code"] == "unavailable"
    health = call(server, "health", {})
    assert health["ok"] and health["result"]["database_problem"].startswith(f"the database {db} is damaged")
    assert server.stop() == 0
    assert db.read_bytes() == before  # nothing was written into the damaged file
    env = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")}
    doctor = subprocess.run([JIYI, "doctor", "--home", str(home)], env=env, capture_output=True, timeout=120)
    out = doctor.stdout.decode()
    assert doctor.returncode == 1 and "FAIL  database" in out and "integrity_check damaged" in out, out


def test_a_database_moved_away_while_serving_takes_no_write_and_the_service_exits(
    short_dir: Path, launch: Callable[..., Server]
) -> None:
    """Moved while serving, the database used to take acknowledged writes into the moved inode, and a
    new empty `jiyi.sqlite3` (0644) appeared. Now no write is acknowledged, none creates a file, and the
    service exits non-zero for its supervisor."""
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    server = launch(home, sock)
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    assert "Umask:\t0077" in status  # what the service creates is the owner's alone
    fill(server, 3)
    db, moved = home / "jiyi.sqlite3", short_dir / "moved.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{db}{suffix}").exists():
            shutil.move(f"{db}{suffix}", f"{moved}{suffix}")
    answers = []
    for i in range(20):
        try:
            answers.append(call(server, "interaction.remember", {"interaction_id": f"m{i}", "user_text": "搬走以后"}))
        except OSError:
            break  # the service has exited
    assert answers and all(not a["ok"] and a["error"]["code"] == "unavailable" for a in answers), answers
    assert "was removed or moved away" in answers[0]["error"]["message"]
    deadline = time.monotonic() + 30
    while server.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server.stop() == 3
    assert not db.exists()  # never created lazily
    import sqlite3

    with sqlite3.connect(moved) as conn:
        stored = {row[0] for row in conn.execute("SELECT interaction_id FROM desk_interaction")}
    assert not any(name.startswith("m") for name in stored)
