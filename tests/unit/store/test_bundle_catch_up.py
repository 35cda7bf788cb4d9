"""A host's bundle mirror catches up with the shared database after missed change notices (no `jiyi rebuild`).

Two homes share one real PostgreSQL database, as two machines would. In one
process peewee binds the view models to the store opened last, so the host
that writes is always the one opened last (see test_postgres.py).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service.config import Config, load_config, save_settings
from service.memory.memory import Memory
from store.core import change_feed
from store.desk.bundle_catch_up import MARK_NAME
from tests.postgres_server import PostgresServer

pytestmark = pytest.mark.postgresql_only


def _config(home: Path, url: str, server: PostgresServer) -> Config:
    home.mkdir(mode=0o700, exist_ok=True)
    save_settings(home, {"database_url": url, "database_password_file": str(server.password_file)})
    return load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})


@pytest.fixture
def homes(postgres: PostgresServer, database_url: str, tmp_path: Path) -> Iterator[tuple[Config, Config]]:
    yield _config(tmp_path / "b", database_url, postgres), _config(tmp_path / "a", database_url, postgres)


@pytest.fixture
def opened() -> Iterator[Callable[[Config], Memory]]:
    """`opened(config)`: a memory closed at the end, in the order they were opened (as test_postgres.py's hosts)."""
    memories: list[Memory] = []

    def open_memory(config: Config) -> Memory:
        memories.append(Memory.open(config))
        return memories[-1]

    yield open_memory
    for memory in memories:
        memory.close()


def _file(memory: Memory, bundle_id: str, path: str) -> Path:
    return Path(memory.bundles.bundle_directory(bundle_id)) / path


def _backend_gone(postgres: PostgresServer, pid: int) -> None:
    """Terminate a server process and wait until it has exited (a dying backend could still take a notice)."""
    with postgres.admin() as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        deadline = time.monotonic() + 10
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
            assert time.monotonic() < deadline, "the terminated backend did not exit"
            time.sleep(0.02)


class _Heard:
    """The newest desk event a host's listeners heard of (a host mirrors bundle files before they hear)."""

    def __init__(self, memory: Memory) -> None:
        self._newest = 0
        self._changed = threading.Condition()
        memory.add_listener(self._on_change)

    def _on_change(self, domain: str, seq: int) -> None:
        if domain == "desk":
            with self._changed:
                self._newest = max(self._newest, seq)
                self._changed.notify_all()

    def up_to(self, seq: int, timeout: float = 10) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._newest >= seq, timeout)


def _resynced(memory: Memory) -> threading.Semaphore:
    """Released each time `memory` tells its listeners that everything may have changed (after a reconnect)."""
    heard = threading.Semaphore(0)
    domains = set(memory.store.domains)
    told: set[str] = set()

    def listener(domain: str, seq: int) -> None:
        told.add(domain)
        if told >= domains:
            told.clear()
            heard.release()

    memory.add_listener(listener)
    return heard


def test_a_put_missed_while_the_notice_connection_was_down_is_mirrored_after_it_reconnects(
    homes: tuple[Config, Config],
    postgres: PostgresServer,
    opened: Callable[[Config], Memory],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # B listens again only after A's puts: they must be missed, not heard on the new connection.
    monkeypatch.setattr(change_feed, "RETRY_SECONDS", 3.0)
    config_b, config_a = homes
    b, a = opened(config_b), opened(config_a)
    heard = _Heard(b)
    a.bundles.put_bundle_document("project/shared", "plan.md", "第一版", expected_revision=0)
    a.bundles.put_bundle_document("project/shared", "notes.md", "B 会在外面改", expected_revision=0)
    assert heard.up_to(a.store.last_seq("desk")), "B never heard A's puts"  # B mirrors before its listeners hear
    plan, notes = _file(b, "project/shared", "plan.md"), _file(b, "project/shared", "notes.md")
    assert notes.read_text("utf-8") == "B 会在外面改"
    notes.write_text("B 的人在外面改的", "utf-8")  # an outside edit on a document A will change
    resynced = _resynced(b)
    pid = b.feed_backend_pid
    assert pid is not None
    _backend_gone(postgres, pid)
    a.bundles.put_bundle_document("project/shared", "plan.md", "第二版", expected_revision=1)
    a.bundles.put_bundle_document("project/shared", "notes.md", "A 的第二版", expected_revision=1)
    a.bundles.put_bundle_document("project/shared", "new.md", "断线时新建", expected_revision=0)
    assert b.feed_backend_pid in (pid, None), "B listened again before A's puts: they were not missed"
    assert resynced.acquire(timeout=20), "B did not listen again"
    assert b.feed_backend_pid not in (None, pid)
    assert plan.read_text("utf-8") == "第二版"  # refreshed: an older revision is a stale mirror
    assert _file(b, "project/shared", "new.md").read_text("utf-8") == "断线时新建"
    assert notes.read_text("utf-8") == "A 的第二版"
    [kept] = list(notes.parent.glob("notes.md.outside-*"))
    assert kept.read_text("utf-8") == "B 的人在外面改的"  # the outside edit is kept, not lost
    assert not list(plan.parent.glob("plan.md.outside-*"))


def test_a_host_stopped_while_another_wrote_catches_up_when_it_opens_again(homes: tuple[Config, Config]) -> None:
    config_b, config_a = homes
    with Memory.open(config_b) as b:
        b.bundles.put_bundle_document("project/p", "plan.md", "B 写的第一版", expected_revision=0)
        b.bundles.put_bundle_document("project/p", "mine.md", "B 在外面改过", expected_revision=0)
        b.bundles.put_bundle_document("project/p", "same.md", "没人改", expected_revision=0)
        folder = Path(b.bundles.bundle_directory("project/p"))
    (folder / "mine.md").write_text("B 的人离线时改的", "utf-8")  # changed outside, and A never touches it
    same_written = (folder / "same.md").stat().st_mtime_ns
    with Memory.open(config_a) as a:
        a.bundles.put_bundle_document("project/p", "plan.md", "A 写的第二版", expected_revision=1)
        a.bundles.put_bundle_document("project/p", "plan.md", "A 写的第三版", expected_revision=2)
        a.bundles.put_bundle_document("project/q", "other.md", "B 没见过的资料夹", expected_revision=0)
        last = a.store.last_seq("desk")
    with Memory.open(config_b) as b:
        assert (folder / "plan.md").read_text("utf-8") == "A 写的第三版"
        assert not list(folder.glob("plan.md.outside-*"))
        assert _file(b, "project/q", "other.md").read_text("utf-8") == "B 没见过的资料夹"
        assert (folder / "mine.md").read_text("utf-8") == "B 的人离线时改的"  # no newer revision: left alone
        assert (folder / "same.md").stat().st_mtime_ns == same_written  # unchanged documents are not rewritten
        mark = json.loads((b.bundles.bundle_files.root / MARK_NAME).read_text("utf-8"))
        assert mark == {"database": b.store.location, "desk_seq": last, "written": {}}  # its own puts passed


def test_a_missing_file_is_written_again_and_a_mark_from_another_database_is_ignored(
    homes: tuple[Config, Config],
) -> None:
    config_b, _ = homes
    with Memory.open(config_b) as b:
        b.bundles.put_bundle_document("project/p", "plan.md", "第一版", expected_revision=0)
        plan = _file(b, "project/p", "plan.md")
        mark = b.bundles.bundle_files.root / MARK_NAME
        location = b.store.location
    plan.unlink()
    with Memory.open(config_b):
        assert plan.read_text("utf-8") == "第一版"
    plan.write_text("一个旧镜像", "utf-8")
    # The mark of another database (the home moved): its event numbers say nothing here, so every put is checked.
    seq = json.loads(mark.read_text("utf-8"))["desk_seq"]
    mark.write_text(json.dumps({"database": "postgresql://x@elsewhere:5432/db", "desk_seq": seq}), "utf-8")
    with Memory.open(config_b) as b:
        assert b.store.location == location
        assert plan.read_text("utf-8") == "第一版"
        [kept] = list(plan.parent.glob("plan.md.outside-*"))  # never a stored revision: kept as an outside edit
        assert kept.read_text("utf-8") == "一个旧镜像"


def test_the_feed_names_the_server_process_it_listens_on(
    homes: tuple[Config, Config], postgres: PostgresServer
) -> None:
    config_b, _ = homes
    with Memory.open(config_b) as b, postgres.admin() as admin:
        pid = b.feed_backend_pid
        row = admin.execute("SELECT application_name FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
        assert row == ("jiyi-feed",)
