"""Bundle events whose names climb out of the bundles folder, inserted straight into the event log (as a
restored or migrated database, or another host on a shared store, would hold them), are refused when the
log is replayed: counted, reported by `jiyi doctor` and `health`, never written to a file or the view.

The home lies five folders deep in the test's folder, so that every escape attempted here would land
inside it (and be seen) rather than somewhere else on the machine.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import Config, load_config, save_settings
from service.memory.memory import Memory
from store.core import clock
from store.core.database import Store
from store.core.errors import UnsafePath
from store.desk.bundle_files import BundleFiles
from store.desk.projection import DOMAIN
from tests.conftest import open_store
from tests.postgres_server import PostgresServer

ESCAPES = [
    ("bundle_created", {"bundle_id": "project/../../../../outside/b1", "kind": "project", "key": "x", "title": "x"}),
    ("bundle_document_put", {"bundle_id": "project/../../../../outside/b1", "path": "notes.md"}),
    ("bundle_document_put", {"bundle_id": "project/p", "path": "../../../../../outside/p2.md"}),
    ("bundle_document_put", {"bundle_id": "project/p", "path": "runs/../../../../../../outside/summary.md"}),
    ("bundle_document_put", {"bundle_id": "project/p", "path": "/outside/absolute.md"}),
    ("bundle_document_put", {"bundle_id": "project/..", "path": "up.md"}),
    ("bundle_document_put", {"bundle_id": "schedule/a\\..\\..", "path": "state.json"}),
]
PUTS = sum(1 for kind, _ in ESCAPES if kind == "bundle_document_put")


@pytest.fixture
def deep_config(home: Path, tmp_path: Path) -> Config:
    """A home at <tmp>/a/b/c/d/home (its config.toml, pointing at the test's database, copied along)."""
    deep = tmp_path / "a" / "b" / "c" / "d" / "home"
    deep.mkdir(parents=True, mode=0o700)
    if (home / "config.toml").exists():
        shutil.copy2(home / "config.toml", deep / "config.toml")
    return load_config(home=deep, env={"JIYI_EMBED_MODEL": "hash"})


@pytest.fixture
def deep(deep_config: Config) -> Iterator[Memory]:
    memory = Memory.open(deep_config)
    yield memory
    memory.close()


def insert_events(store: Store, events: list[tuple[str, dict[str, str]]]) -> None:
    """Write events into the log with plain SQL, as another program would: no check, no projection."""
    with store.db.atomic():
        for event_type, payload in events:
            body = {"revision": 1, "content": "越界了", **payload}
            store.db.execute_sql(
                "INSERT INTO event (ts, domain, type, schema_v, actor, payload, txn, subject) VALUES (?,?,?,?,?,?,?,?)",
                (clock.iso_now(), DOMAIN, event_type, 1, "agent", json.dumps(body, ensure_ascii=False), None, None),
            )


def files_outside(root: Path, home: Path) -> list[Path]:
    """Everything under `root` (the test's folder) that is not in the home."""
    return [p for p in root.rglob("*") if home not in p.parents and p != home and p not in home.parents]


def _assert_refused_everywhere(memory: Memory, tmp_path: Path, refused: int) -> None:
    home = memory.store.home
    assert files_outside(tmp_path / "a", home) == [], "a file was written outside the home"
    assert not any("outside" in p.parts for p in home.rglob("*"))
    assert [b.bundle_id for b in memory.bundles.list_bundles()] == ["project/p"]
    paths = [d.path for d in memory.bundles.get_bundle("project/p").documents]
    assert paths == ["notes.md"]
    assert memory.health()["desk"]["bundle_events_refused"] == refused
    check = next(c for c in memory.doctor() if c.name == "bundle events")
    assert not check.ok and f"{refused} refused" in check.detail and "not a bundle document path" in check.detail
    assert (Path(memory.bundles.bundle_directory("project/p")) / "notes.md").read_text("utf-8") == "好的"


def test_events_climbing_out_of_the_bundles_folder_are_refused_by_jiyi_rebuild(
    deep: Memory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    deep.bundles.put_bundle_document("project/p", "notes.md", "好的", expected_revision=0)
    assert next(c for c in deep.doctor() if c.name == "bundle events").ok
    insert_events(deep.store, ESCAPES)

    counts = deep.rebuild()
    assert counts["bundle_events_refused"] == len(ESCAPES)
    assert "bundle_files_failed" not in counts
    _assert_refused_everywhere(deep, tmp_path, len(ESCAPES))
    assert "refused" in caplog.text

    # The refused events stay in the log (nothing is deleted), and a second rebuild refuses them again.
    assert deep.rebuild()["bundle_events_refused"] == len(ESCAPES)
    _assert_refused_everywhere(deep, tmp_path, len(ESCAPES))


def test_a_home_opened_on_a_log_with_climbing_events_writes_nothing_outside(
    deep_config: Config, tmp_path: Path
) -> None:
    with Memory.open(deep_config) as memory:
        memory.bundles.put_bundle_document("project/p", "notes.md", "好的", expected_revision=0)
    # As a restored backup or another host would have it: the events are in the log, the view behind it.
    store = open_store(deep_config.home_path)
    try:
        insert_events(store, ESCAPES)
    finally:
        store.close()
    (deep_config.bundles_path / ".jiyi-mirror.json").unlink()  # the catch-up replays every put in the log
    with Memory.open(deep_config) as memory:  # the view is rebuilt on open, then the mirror catches up
        _assert_refused_everywhere(memory, tmp_path, len(ESCAPES))


@pytest.mark.parametrize("by_descriptor", [True, False], ids=["descriptors", "by-path"])  # by path: Windows
def test_the_mirror_refuses_every_path_that_is_not_a_plain_name_below_it(tmp_path: Path, by_descriptor: bool) -> None:
    files = BundleFiles(tmp_path / "home" / "bundles", by_descriptor=by_descriptor)
    for bundle_id, path in [
        ("project/p", "../../x.md"),
        ("project/p", "runs/../../../x/summary.md"),
        ("project/../..", "x.md"),
        ("project/p", "/etc/x.md"),
        ("project//p", "x.md"),
        ("project/p", "./x.md"),
        ("project/p", "a\\..\\..\\x.md"),
        ("project/p", "x\x00.md"),
    ]:
        with pytest.raises(UnsafePath, match="not a path inside the bundles folder"):
            files.write(bundle_id, path, "x", None)
        assert files.state(bundle_id, path, "x") == "unsafe"
    assert list(tmp_path.rglob("*")) == []  # not even the bundles folder was made


@pytest.mark.parametrize("by_descriptor", [True, False], ids=["descriptors", "by-path"])  # by path: Windows
def test_a_folder_swapped_for_a_link_is_not_followed(tmp_path: Path, by_descriptor: bool) -> None:
    files = BundleFiles(tmp_path / "home" / "bundles", by_descriptor=by_descriptor)
    files.write("project/p", "notes.md", "一", None)
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = tmp_path / "home" / "bundles" / "project" / "p"
    shutil.rmtree(folder)
    folder.symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePath, match="symlink"):
        files.write("project/p", "notes.md", "二", None)
    (tmp_path / "home" / "bundles" / "project").rename(tmp_path / "home" / "bundles" / "gone")
    (tmp_path / "home" / "bundles" / "project").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePath, match="symlink"):
        files.write("project/q", "notes.md", "三", None)
    assert list(outside.iterdir()) == []


@pytest.mark.postgresql_only
def test_another_hosts_climbing_put_is_not_mirrored_when_its_notice_arrives(
    postgres: PostgresServer, database_url: str, tmp_path: Path
) -> None:
    configs = []
    for name in ("a", "b"):
        home = tmp_path / name / "1" / "2" / "3" / "4" / "home"
        home.mkdir(parents=True, mode=0o700)
        save_settings(home, {"database_url": database_url, "database_password_file": str(postgres.password_file)})
        configs.append(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"}))
    # In one process peewee binds the view models to the store opened last: B, the host that writes; they
    # are closed in the order they were opened (as test_postgres.py's hosts).
    a, b = Memory.open(configs[0]), Memory.open(configs[1])
    try:
        heard: list[int] = []
        ready = threading.Condition()

        def listener(domain: str, seq: int) -> None:
            with ready:
                heard.append(seq)
                ready.notify_all()

        a.add_listener(listener)  # A mirrors another host's puts before its listeners hear of them
        with b.store.atomic():  # another host writing through the store itself, past the socket's checks
            for event_type, payload in ESCAPES:
                b.store.append(DOMAIN, event_type, {"revision": 1, "content": "越界了", **payload}, actor="agent")
        b.bundles.put_bundle_document("project/p", "notes.md", "好的", expected_revision=0)
        last = b.store.last_seq(DOMAIN)
        with ready:
            assert ready.wait_for(lambda: heard and max(heard) >= last, timeout=20), "A never heard B's puts"
        assert (Path(a.bundles.bundle_directory("project/p")) / "notes.md").read_text("utf-8") == "好的"
        homes = (a.store.home, b.store.home)
        stray = [p for p in tmp_path.rglob("*") if not any(h == p or h in p.parents or p in h.parents for h in homes)]
        assert stray == [], "a file was written outside the homes"
        assert not [p for p in tmp_path.rglob("*") if "outside" in p.parts]
        assert b.health()["desk"]["bundle_events_refused"] == len(ESCAPES)  # B's own view refused them too
    finally:
        a.close()
        b.close()
