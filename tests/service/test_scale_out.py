"""Two `jiyi serve` hosts, each with its own home, sharing one PostgreSQL database and one `chroma run` server."""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service.client import JiyiClient
from service.config import load_config, save_settings
from store.appkb import kb as appkb
from store.core.database import Store
from store.projections import all_projections
from tests.chroma_server import chroma_server
from tests.json_reads import dig
from tests.postgres_server import PostgresServer
from tests.service.conftest import Server

# Starts servers (seconds): once, on one worker.
pytestmark = [pytest.mark.slow, pytest.mark.postgresql_only, pytest.mark.xdist_group("scale_out")]
AGENTS = 8


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with chroma_server(tmp_path_factory.mktemp("chroma")) as url:
        yield url


@pytest.fixture
def start_host(
    short_dir: Path, launch: Callable[..., Server], database_url: str, postgres: PostgresServer, chroma_url: str
) -> Callable[[str], Server]:
    """`start_host(name)`: a `jiyi serve` with its own home and socket on the shared database and Chroma."""

    def start(name: str) -> Server:
        env = {
            "JIYI_DATABASE_URL": database_url,
            "JIYI_DATABASE_PASSWORD_FILE": str(postgres.password_file),
            "JIYI_CHROMA_URL": chroma_url,
            "JIYI_EMBED_MODEL": "hash",
        }
        return launch(short_dir / name / "home", short_dir / name / "jiyi.sock", env=env)

    return start


def _open_shared(home: Path, database_url: str, postgres: PostgresServer) -> Store:
    home.mkdir(mode=0o700, parents=True)
    save_settings(home, {"database_url": database_url, "database_password_file": str(postgres.password_file)})
    config = load_config(home=home, env={})
    return Store.open(home, all_projections(), database_url=config.database_url, password=config.database_password())


def test_eight_agents_on_each_of_two_hosts_keep_every_acknowledged_write_exactly_once_through_a_kill(
    start_host: Callable[[str], Server], database_url: str, postgres: PostgresServer, short_dir: Path
) -> None:
    hosts = {"a": start_host("a"), "b": start_host("b")}
    acked: list[tuple[str, str]] = []  # (kind, key)
    lock = threading.Lock()
    stop = threading.Event()
    writing = {name: threading.Event() for name in hosts}

    def agent(host: str, number: int) -> None:
        with JiyiClient(hosts[host].socket, timeout=30) as client:
            i = 0
            while not stop.is_set() and i < 400:
                key = f"{host}{number}-{i}"
                if i % 3 == 2:
                    result, kind = client.learn_alias(f"共享{key}", "com.tencent.mm"), "alias"
                else:
                    result, kind = client.remember_interaction(key, f"{key} 提醒我买牛奶", "好的"), "interaction"
                if result["stored"]:
                    with lock:
                        acked.append((kind, key))
                    writing[host].set()
                elif not hosts[host].alive():
                    return  # the host was killed: this agent's client degrades, as it does today
                i += 1

    agents = [threading.Thread(target=agent, args=(h, n)) for h in hosts for n in range(AGENTS)]
    for thread in agents:
        thread.start()
    try:
        assert writing["a"].wait(30) and writing["b"].wait(30)
        time.sleep(0.5)
        hosts["a"].stop(signal.SIGKILL)  # mid-write: its agents are sending as fast as they can
        before = len([k for k in acked if k[1].startswith("b")])
        deadline = time.monotonic() + 30  # b goes on acknowledging: wait for its next write, not a fixed second
        while len([k for k in acked if k[1].startswith("b")]) <= before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len([k for k in acked if k[1].startswith("b")]) > before, "host b stopped serving when a was killed"
    finally:
        stop.set()
        for thread in agents:
            thread.join()
    assert hosts["b"].stop() == 0
    store = _open_shared(short_dir / "check", database_url, postgres)
    try:
        interactions = Counter(
            e.payload["interaction_id"] for e in store.events("desk", types=["interaction_remembered"])
        )
        assert all(n == 1 for n in interactions.values())  # nothing twice
        assert {key for kind, key in acked if kind == "interaction"} <= set(interactions)  # nothing acknowledged lost
        aliases = {e.term for e in appkb.list_entries(store, kind="learned")}  # an agent teaches learned names
        assert {f"共享{key}" for kind, key in acked if kind == "alias"} <= aliases
        assert store.rebuilt_on_open == []  # the views were current: no half-applied write survived the kill
    finally:
        store.close()


def test_a_document_put_raced_across_hosts_is_won_by_exactly_one(start_host: Callable[[str], Server]) -> None:
    hosts = [start_host("a"), start_host("b")]
    for revision in range(10):
        barrier = threading.Barrier(2)
        outcomes: list[str] = []

        def put(
            server: Server,
            revision: int = revision,
            barrier: threading.Barrier = barrier,
            outcomes: list[str] = outcomes,
        ) -> None:
            with JiyiClient(server.socket, timeout=30) as client:
                client.health()  # connected before the race starts
                barrier.wait()
                answer = client.put_document("project/shared", "plan.md", f"{server.home} {revision}", revision)
            outcomes.append("won" if answer.get("stored") else str(dig(answer, "error", "code")))

        threads = [threading.Thread(target=put, args=(server,)) for server in hosts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes) == ["conflict", "won"], revision
    # Host a's health is cached until a change reaches its bus; b's writes must reach it (LISTEN/NOTIFY),
    # a notice arriving a moment after b's answer.
    with JiyiClient(hosts[0].socket) as a, JiyiClient(hosts[1].socket) as b:
        assert _events_seen(a, 1 + 10)  # the bundle, then ten puts
        assert b.put_document("project/shared", "plan.md", "b writes last", 10)["stored"]
        assert _events_seen(a, 12)
    for server in hosts:
        assert server.stop() == 0


def _events_seen(client: JiyiClient, count: int, timeout: float = 10.0) -> bool:
    """Whether the host behind `client` reports `count` events within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while client.health()["events"] != count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
