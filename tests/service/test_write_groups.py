"""The host's write lane over a real socket: agents' writes share transactions, each gets its own answer."""

from __future__ import annotations

import threading

from service.client import JiyiClient
from tests.service.conftest import Server

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
                        got.append((expected, "stored" if response["result"]["created"] else "repeat"))
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
    assert health["desk"]["interactions"] == stored
    # The writes shared transactions: fewer commits than writes.
    assert health["writes"]["transactions"] < stored
