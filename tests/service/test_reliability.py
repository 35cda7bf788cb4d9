"""Reliability over a real socket and real files: fuzzing, concurrent writers, SIGKILL."""

from __future__ import annotations

import contextlib
import json
import random
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service.client import JiyiClient
from store.appkb import kb as appkb
from store.appkb.entry import normalize_term
from tests.conftest import open_store
from tests.service.conftest import Server

pytestmark = pytest.mark.slow  # each test runs a server for tens of seconds

METHODS = [
    "health",
    "app.resolve",
    "app.alias.learn",
    "app.alias.forget",
    "app.alias.list",
    "run.event",
    "app.inventory.sync",
]


def malformed(rng: random.Random, index: int) -> bytes:
    """One bad (or oddly shaped) request line; never blank, never containing a newline."""
    kind = index % 10
    if kind == 0:
        line = bytes(rng.randrange(256) for _ in range(rng.randint(1, 300)))
    elif kind == 1:
        good = json.dumps({"id": index, "method": rng.choice(METHODS), "params": {"name": "微信"}}).encode()
        line = good[: rng.randint(1, len(good) - 1)]
    elif kind == 2:
        wrong: object = rng.choice([[], 7, "x", None, {"a": [1]}, 3.5, True])
        line = json.dumps({"id": index, "method": rng.choice(METHODS), "params": wrong}).encode()
    elif kind == 3:
        line = json.dumps({"id": index, "method": "no." + str(rng.random()), "params": {}}).encode()
    elif kind == 4:
        depth = rng.choice([100, 1000, 5000, 50000])
        line = b'{"id": 1, "method": "app.resolve", "params": {"name": ' + b"[" * depth + b"]" * depth + b"}}"
    elif kind == 5:
        line = b'{"id": 1, "method": "app.resolve", "params": {"name": "\xc3\x28\xa0\xa1"}}'
    elif kind == 6:
        value: object = rng.choice([123, [], {}, None, True, "x" * 5000, "\u0000", "😀" * 10])
        key = rng.choice(["name", "package", "device", "limit", "apps", "event", "change"])
        line = json.dumps({"id": index, "method": rng.choice(METHODS), "params": {key: value}}).encode()
    elif kind == 7:
        line = json.dumps({"id": {"nested": index}, "method": "health"}).encode()
    elif kind == 8:
        line = json.dumps([index, "health"]).encode()
    else:
        line = json.dumps(
            {"id": index, "method": "app.alias.learn", "params": {"name": f"名{index}", "package": "com.a.b"}}
        ).encode()
    line = line.replace(b"\n", b" ")
    return line if line.strip() else b"x"


def exchange(path: Path, lines: list[bytes]) -> list[dict[str, object]]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(60)
        sock.connect(str(path))
        sock.sendall(b"".join(line + b"\n" for line in lines))
        data = b""
        while data.count(b"\n") < len(lines):
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    return [json.loads(line) for line in data.splitlines()]


def test_ten_thousand_malformed_inputs_never_take_the_server_down(server: Server) -> None:
    rng = random.Random(1234)
    lines = [malformed(rng, i) for i in range(10_000)]
    answered = 0
    for start in range(0, len(lines), 500):
        batch = lines[start : start + 500]
        responses = exchange(server.socket, batch)
        assert len(responses) == len(batch)
        assert all(isinstance(r, dict) and isinstance(r.get("ok"), bool) for r in responses)
        answered += len(responses)
    for _ in range(5):  # lines over the limit: answered with an error, then closed
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(30)
            sock.connect(str(server.socket))
            with contextlib.suppress(OSError):
                sock.sendall(b"{" * ((1 << 20) + 10))
            reply = b""
            while True:
                try:
                    chunk = sock.recv(1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                reply += chunk
            assert b"invalid_request" in reply
    assert answered == 10_000
    with JiyiClient(server.socket) as client:
        assert client.health()["pid"] == server.process.pid
    assert server.stop() == 0
    store = open_store(server.home)
    try:
        assert store.integrity_check() == "ok"
    finally:
        store.close()


def test_sixteen_writers_lose_and_duplicate_nothing(server: Server) -> None:
    acked: dict[str, list[str]] = {"learn": [], "forget": [], "sync": []}
    lock = threading.Lock()
    errors: list[object] = []

    def writer(number: int) -> None:
        rng = random.Random(number)
        with JiyiClient(server.socket, timeout=60) as client:
            for i in range(500):
                roll = rng.random()
                if roll < 0.7:
                    name = f"并发{number}-{i}"
                    result, kind = client.learn_alias(name, "com.tencent.mm"), "learn"
                elif roll < 0.8:
                    name = f"忘记{number}-{i}"
                    result, kind = client.forget_alias(name), "forget"
                else:
                    name = f"com.t{number}.app{i}"
                    result = client.sync_inventory(f"dev{number}", [{"package": name, "label": f"应用{number}-{i}"}])
                    kind = "sync"
                if result["stored"]:
                    with lock:
                        acked[kind].append(name)
                else:
                    errors.append(result)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sum(len(v) for v in acked.values()) == 16 * 500
    assert server.stop() == 0
    store = open_store(server.home)
    try:
        # An agent's alias is a learned one (docs/protocol.md, The person's authority), written as an upsert.
        learned = {e.term: e for e in appkb.list_entries(store, kind="learned")}
        for name in acked["learn"]:
            assert name in learned
            events = [e for e in store.events("app_kb", subject=normalize_term(name))]
            assert [e.type for e in events] == ["upsert"]
        for name in acked["forget"]:
            events = [e for e in store.events("app_kb", subject=normalize_term(name))]
            assert [e.type for e in events] == ["alias_forgotten"]
        devices = {e.package for e in appkb.list_entries(store, kind="device")}
        assert set(acked["sync"]) <= devices
        assert store.integrity_check() == "ok"
    finally:
        store.close()


def test_a_write_storm_killed_twenty_times_keeps_every_acknowledged_write(
    short_dir: Path, launch: Callable[..., Server]
) -> None:
    home, sock = short_dir / "home", short_dir / "run" / "jiyi.sock"
    rng = random.Random(99)
    acked: list[str] = []
    lock = threading.Lock()
    for cycle in range(20):
        server = launch(home, sock)
        stop, storming = threading.Event(), threading.Event()

        def storm(
            writer: int, cycle: int = cycle, stop: threading.Event = stop, storming: threading.Event = storming
        ) -> None:
            with JiyiClient(sock, timeout=10) as client:
                i = 0
                while not stop.is_set():
                    name = f"风暴{cycle}-{writer}-{i}"
                    if client.learn_alias(name, "com.tencent.mm")["stored"]:
                        with lock:
                            acked.append(name)
                        storming.set()
                    elif client.health().get("ok") is False:
                        return
                    i += 1

        writers = [threading.Thread(target=storm, args=(w,)) for w in range(4)]
        for thread in writers:
            thread.start()
        try:
            # Kill at a random moment once writes are being acknowledged, so each cycle kills a storm under way.
            assert storming.wait(timeout=30), f"cycle {cycle}: no write was acknowledged"
            time.sleep(rng.uniform(0.0, 0.4))
            server.stop(signal.SIGKILL)
        finally:
            stop.set()
            for thread in writers:
                thread.join()
    store = open_store(home)
    try:
        assert store.integrity_check() == "ok"
        learned = {e.term for e in appkb.list_entries(store, kind="learned")}  # an agent's aliases
        missing = [name for name in acked if name not in learned]
        assert missing == []
    finally:
        store.close()
