"""A desk import through a real `jiyi serve`, killed (`kill -9`) while it runs, is in the home whole or not at all
once the home is open again: killed while it was read, nothing of it; killed while it was being published (in
slices, so that other clients' writes go on), the rest is published when the home opens next."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.config import load_config
from service.memory.memory import Memory
from store.interchange import desk_format
from tests.conftest import open_store
from tests.service.conftest import Server
from tests.service.inprocess import person_client

TURNS = 6000
HASHED = {"JIYI_EMBED_MODEL": "hash"}


def big_export(root: Path, turns: int) -> Path:
    """A desk export of `turns` interactions (written directly in the format: its making is not under test)."""
    kinds: dict[str, Any] = {kind: [] for kind in desk_format.KINDS}
    kinds["interactions"] = [
        {
            "interaction_id": f"turn-{n:06d}",
            "ts": "2026-03-02T09:00:00+00:00",
            "epoch": 1772442000.0,
            "workday": "2026-03-02",
            "source": "desktop",
            "user_text": f"第{n}次问：构建为什么失败",
            "assistant_text": f"第{n % 97}号构建机磁盘已满",
            "task_id": None,
        }
        for n in range(turns)
    ]
    desk_format.write_export(root, kinds, "2026-03-09T00:00:00+00:00", "test")
    return root


def kill_when(server: Server, export: Path, ready: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Start the import as the service's job and `kill -9` the service as soon as its status is `ready`."""
    with person_client(server.socket, server.home, timeout=60) as client:  # an import is the person's
        status = client.call("job.start", {"kind": "desk.import", "directory": str(export)})
        deadline = time.monotonic() + 300  # a deadline for a loaded machine, not a claim about speed
        while not ready(status):
            assert status["state"] == "running" and time.monotonic() < deadline, status
            time.sleep(0.002)
            status = client.call("job.status", {"job_id": status["job_id"]})
    server.process.kill()
    server.process.wait(timeout=30)
    return status


def turns_in(home: Path) -> tuple[int, list[str]]:
    """The home's interactions and the publishes it keeps a place for, read without opening `Memory` (which
    would finish them)."""
    store = open_store(home)
    try:
        count = store.db.execute_sql("SELECT COUNT(*) FROM desk_interaction").fetchone()[0]
        keys = store.db.execute_sql("SELECT key FROM meta WHERE key LIKE 'import-publishing:%'").fetchall()
        return int(count), [str(k[0]) for k in keys]
    finally:
        store.close()


def test_an_import_killed_while_it_is_published_is_whole_when_the_home_opens_again(
    launch: Callable[..., Server], short_dir: Path, tmp_path: Path
) -> None:
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    export = big_export(tmp_path / "export", TURNS)
    server = launch(home, sock, env=HASHED)

    def publishing(status: dict[str, Any]) -> bool:
        return status.get("phase") == "writing" and 0 < status["phase_done"] < status["phase_total"]

    kill_when(server, export, publishing)
    count, pending = turns_in(home)
    assert 0 < count < TURNS and len(pending) == 1  # part of it published, and where it stood kept
    with Memory.open(load_config(home=home, env=HASHED)) as memory:
        assert memory.store.db.execute_sql("SELECT COUNT(*) FROM desk_interaction").fetchone() == (TURNS,)
    assert turns_in(home) == (TURNS, [])
    assert list((home / "imports").iterdir()) == []  # the staging file went with its last slice


def test_an_import_killed_while_it_is_read_leaves_nothing(
    launch: Callable[..., Server], short_dir: Path, tmp_path: Path
) -> None:
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    export = big_export(tmp_path / "export", TURNS)
    server = launch(home, sock, env=HASHED)

    def reading(status: dict[str, Any]) -> bool:
        return status.get("phase") == "reading" and status["phase_done"] > 0

    kill_when(server, export, reading)
    assert turns_in(home) == (0, [])
    with Memory.open(load_config(home=home, env=HASHED)) as memory:
        assert memory.store.db.execute_sql("SELECT COUNT(*) FROM desk_interaction").fetchone() == (0,)
    assert list((home / "imports").iterdir()) == []  # what was staged is thrown away


@pytest.mark.sqlite_only  # the size budget counts the home's database file; a server's database is not in the home
def test_a_home_over_its_budget_opens_with_an_import_left_half_written_and_finishes_it_later(
    launch: Callable[..., Server], short_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    server = launch(home, sock, env=HASHED)

    def publishing(status: dict[str, Any]) -> bool:
        return status.get("phase") == "writing" and 0 < status["phase_done"] < status["phase_total"]

    kill_when(server, big_export(tmp_path / "export", TURNS), publishing)
    count, _pending = turns_in(home)
    # With a size budget it reaches half-way, the rest cannot be written: the home opens all the same (reads go
    # on), says so, and keeps the import's place.
    with caplog.at_level("WARNING"), Memory.open(load_config(home=home, env={**HASHED, "JIYI_MAX_HOME_MB": "1"})):
        pass
    assert "an import stopped half-way could not be finished yet" in caplog.text
    now, pending = turns_in(home)
    assert count <= now < TURNS and len(pending) == 1
    with Memory.open(load_config(home=home, env=HASHED)):  # room again: finished
        pass
    assert turns_in(home) == (TURNS, [])
