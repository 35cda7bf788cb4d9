"""The host's write lane over a real socket: agents' writes share transactions, each gets its own answer."""

from __future__ import annotations

import random
import signal
import threading
from collections.abc import Callable
from pathlib import Path

from service.client import JiyiClient, Reply
from store.desk.projection import DOMAIN as DESK
from tests.conftest import open_store
from tests.json_reads import dig, items
from tests.service.conftest import Server
from tests.service.inprocess import person_client

AGENTS = 8
WRITES = 30


def test_concurrent_agents_writes_share_transactions_and_each_gets_its_own_answer(server: Server) -> None:
    """Refused writes (a conflicting repeat, a turn with no text) are answered as such, in the middle of
    groups, and take nothing of the others down; every write answered as stored is there exactly once."""
    replies: dict[str, list[tuple[str, object]]] = {}
    failures: list[BaseException] = []

    def agent(name: str) -> None:
        got: list[tuple[str, object]] = []
        try:
            with JiyiClient(server.socket, timeout=60) as client:
                for i in range(WRITES):
                    if i % 5 == 4:  # the first turn, told again with other text: a conflict
                        params = {"interaction_id": f"{name}-0", "user_text": "换了的话"}
                        expected = "conflict"
                    elif i % 7 == 6:  # no text at all: refused
                        params, expected = {"interaction_id": f"{name}-{i}"}, "invalid_params"
                    else:
                        params, expected = {"interaction_id": f"{name}-{i}", "user_text": f"{name} 第{i}次"}, "stored"
                    response = client.request("interaction.remember", params)
                    if response["ok"]:
                        got.append((expected, "stored" if dig(response.get("result"), "created") else "repeat"))
                    else:
                        got.append((expected, response["error"]["code"]))
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            failures.append(exc)
        replies[name] = got

    agents = [threading.Thread(target=agent, args=(f"a{a}",)) for a in range(AGENTS)]
    for thread in agents:
        thread.start()
    for thread in agents:
        thread.join()
    assert not failures
    for got in replies.values():
        assert [answer for _, answer in got] == [expected for expected, _ in got]
    stored = sum(1 for got in replies.values() for expected, _ in got if expected == "stored")
    with JiyiClient(server.socket, timeout=60) as client:
        health = client.health()
    assert dig(health, "desk", "interactions") == stored
    # The writes shared transactions: fewer commits than writes.
    assert int(str(dig(health, "writes", "transactions"))) < stored


def test_agents_alias_writes_share_transactions_and_each_keeps_its_own_change(server: Server) -> None:
    """Aliases learned by agents at once share commits, yet each is a change of its own: its own `change`
    number, one undo taking back that alias only; a refused one (not a package name) takes nothing down."""
    replies: dict[str, list[tuple[str, Reply]]] = {}
    failures: list[BaseException] = []

    def agent(name: str) -> None:
        got: list[tuple[str, Reply]] = []
        try:
            with JiyiClient(server.socket, timeout=60) as client:
                for i in range(WRITES):
                    package = "not a package" if i % 6 == 5 else f"com.{name}.app{i}"
                    params = {"name": f"别名{name}{i}", "package": package}
                    got.append((f"别名{name}{i}", client.request("app.alias.learn", params)))
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            failures.append(exc)
        replies[name] = got

    agents = [threading.Thread(target=agent, args=(f"a{a}",)) for a in range(AGENTS)]
    for thread in agents:
        thread.start()
    for thread in agents:
        thread.join()
    assert not failures
    learned = {alias: reply for got in replies.values() for alias, reply in got if reply["ok"]}
    refused = [reply for got in replies.values() for _, reply in got if not reply["ok"]]
    assert len(learned) == AGENTS * (WRITES - WRITES // 6) and len(refused) == AGENTS * (WRITES // 6)
    assert {reply["error"]["code"] for reply in refused} == {"invalid_params"}
    changes = [dig(reply.get("result"), "change") for reply in learned.values()]
    assert len(set(changes)) == len(changes)  # each write its own change
    # The undo is the person's: asked as the console asks it (docs/protocol.md, The person's authority).
    with person_client(server.socket, server.home, timeout=60) as client:
        health = client.health()
        assert int(str(dig(health, "writes", "transactions"))) < len(learned)  # but they shared transactions
        undone, change = "别名a03", dig(learned["别名a03"].get("result"), "change")
        assert client.request("app.alias.undo", {"change": change})["ok"]
        listed = client.request("app.alias.list", {"kind": "learned", "limit": 500}).get("result")  # agents
        names = {dig(e, "term") for e in items(listed, "entries")}
    assert names == set(learned) - {undone}


def test_a_host_killed_mid_group_keeps_every_acknowledged_write_exactly_once(
    short_dir: Path, launch: Callable[..., Server]
) -> None:
    """SIGKILL while groups commit: a write answered as stored is there once; one never answered may be
    there or not (its group may have committed just before the kill), never half."""
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    rng = random.Random(19)
    acked: list[str] = []
    lock = threading.Lock()
    for cycle in range(6):
        server = launch(home, sock)
        stop, storming = threading.Event(), threading.Event()

        def storm(
            agent: int, cycle: int = cycle, stop: threading.Event = stop, storming: threading.Event = storming
        ) -> None:
            with JiyiClient(sock, timeout=10) as client:
                i = 0
                while not stop.is_set():
                    key = f"k{cycle}-{agent}-{i}"
                    result = client.remember_interaction(key, f"{key} 提醒我买牛奶", "好的")
                    if result.get("created"):
                        with lock:
                            acked.append(key)
                        storming.set()
                    elif result.get("ok") is False:
                        return
                    i += 1

        agents = [threading.Thread(target=storm, args=(a,)) for a in range(AGENTS)]
        for thread in agents:
            thread.start()
        try:
            assert storming.wait(timeout=30), f"cycle {cycle}: no write was acknowledged"
            stop.wait(rng.uniform(0.0, 0.4))
            server.stop(signal.SIGKILL)
        finally:
            stop.set()
            for thread in agents:
                thread.join()
    store = open_store(home)
    try:
        assert store.integrity_check() == "ok"
        kept = [e.payload["interaction_id"] for e in store.events(DESK, types=["interaction_remembered"])]
        assert len(kept) == len(set(kept))
        assert set(acked) <= set(kept)
        assert store.rebuilt_on_open == []  # the views' bookkeeping committed with each group
    finally:
        store.close()
