"""Background work goes on while an agent keeps writing (issue 36 §5): a real `jiyi serve` on a home holding a
backlog of unindexed turns, an agent remembering turns at a steady rate through the stdlib client the whole
time. The desk index's lag shrinks while the writes go on, and an import started as a job returns while they
go on. Real SQLite or PostgreSQL, real Chroma, the hash embedder (the model is not under test: what is, is that
the work is scheduled at all). The deadlines are for a loaded 2-core machine, not claims about speed: the tests
assert progress.

Before: the index's thread waited for half a second without a desk write (a minute at most) before each batch,
holding the lock every drain takes; at a few writes a second that was one batch a minute, the lag grew, and an
import's job, which indexes what it imported before it answers, waited behind that lock until the writes stopped.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from service.client import JiyiClient
from service.config import load_config
from service.memory.group import run_group
from service.memory.memory import Memory
from tests.json_reads import dig
from tests.service.conftest import Server
from tests.service.inprocess import person_client

HASH = {"JIYI_EMBED_MODEL": "hash"}
RATE = 20.0  # the agent's turns a second: steady, never half a second apart, yet far below what a host takes
BACKLOG = 3000  # unindexed turns in the home when the service starts
DEADLINE = 240.0  # seconds: a deadline for a loaded 2-core CI machine, not a claim about speed


def fill_backlog(home: Path, turns: int) -> None:
    """`turns` remembered turns in `home`, none of them embedded (no index thread runs in this process)."""
    with Memory.open(load_config(home=home, env=HASH)) as memory:
        for start in range(0, turns, 500):
            calls = [
                (lambda n=n: memory.desk.remember_interaction(f"old-{n}", user_text=f"积压的第{n}句", ts=n * 60.0))
                for n in range(start, min(turns, start + 500))
            ]
            run_group(memory.parts, calls)


@dataclass
class Agent:
    """Remembers `RATE` turns a second by the clock until stopped; what was acknowledged, and when."""

    socket: Path
    acked: list[float] = field(default_factory=list)  # monotonic times of acknowledged writes
    refused: list[object] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with JiyiClient(self.socket, timeout=DEADLINE) as client:
            began, n = time.monotonic(), 0
            while not self.stop.wait(max(0.0, began + n / RATE - time.monotonic())):
                reply = client.remember_interaction(f"now-{n}", f"这是第{n}句新话", "好的")
                if reply["stored"]:
                    self.acked.append(time.monotonic())
                else:
                    self.refused.append(reply)
                n += 1

    def wait_for(self, count: int) -> None:
        """Until `count` writes were acknowledged (a failure past the deadline)."""
        deadline = time.monotonic() + DEADLINE
        while len(self.acked) < count:
            assert not self.refused, self.refused
            assert time.monotonic() < deadline, f"{len(self.acked)} of {count} writes acknowledged"
            time.sleep(0.05)


@contextmanager
def writing(socket: Path) -> Iterator[Agent]:
    agent = Agent(socket)
    thread = threading.Thread(target=agent.run, daemon=True)
    thread.start()
    try:
        agent.wait_for(5)  # the writes flow
        yield agent
    finally:
        agent.stop.set()
        thread.join(timeout=DEADLINE)


def lag(client: JiyiClient) -> int:
    value = dig(client.health(), "desk", "index_lag")
    assert isinstance(value, int)
    return value


def served_with_backlog(home: Path, short_dir: Path, launch: Callable[..., Server]) -> Server:
    fill_backlog(home, BACKLOG)
    return launch(home, short_dir / "run" / "jiyi.sock", env=HASH)


def test_the_index_lag_shrinks_while_an_agent_keeps_writing(
    home: Path, short_dir: Path, launch: Callable[..., Server]
) -> None:
    server = served_with_backlog(home, short_dir, launch)
    with JiyiClient(server.socket, timeout=DEADLINE) as client, writing(server.socket) as agent:
        start = lag(client)
        assert start >= BACKLOG // 3, "the index had embedded its backlog before the agent wrote: nothing to show"
        readings = [start]
        deadline = time.monotonic() + DEADLINE
        while readings[-1] > start // 4 and time.monotonic() < deadline:
            time.sleep(0.5)
            readings.append(lag(client))
        reached = time.monotonic()
        agent.wait_for(len(agent.acked) + 5)  # and the agent still writes
    assert readings[-1] <= start // 4, f"the lag went {start} -> {readings[-1]} while the agent wrote"
    # bounded all along (it may rise while a batch is embedded: a loaded machine's batch can take seconds)
    assert max(readings) < 2 * start
    assert agent.acked[-1] > reached and not agent.refused
    assert server.stop() == 0


def test_an_import_job_returns_while_an_agent_keeps_writing(
    home: Path, short_dir: Path, launch: Callable[..., Server], tmp_path: Path
) -> None:
    memories = [{"id": f"m{n}", "memory": f"Alex prefers tea in meeting room {n}"} for n in range(200)]
    file = tmp_path / "mem0.json"
    file.write_text(json.dumps({"results": memories}), encoding="utf-8")
    server = served_with_backlog(home, short_dir, launch)
    with person_client(server.socket, server.home, timeout=DEADLINE) as client, writing(server.socket) as agent:
        job = client.call("job.start", {"kind": "facts.import", "system": "mem0", "file": str(file)})
        deadline = time.monotonic() + DEADLINE
        status = client.call("job.status", {"job_id": job["job_id"]}, read=True)
        while status["state"] == "running" and time.monotonic() < deadline:
            time.sleep(0.5)
            status = client.call("job.status", {"job_id": job["job_id"]}, read=True)
        ended = time.monotonic()
        agent.wait_for(len(agent.acked) + 5)  # and the agent still writes
    assert status["state"] == "done", f"the job was {status['state']} at {status['done']}/{status['total']}"
    outcome = status["outcome"]
    assert isinstance(outcome, dict) and outcome["added"] == 200
    # one count: the 200 memories written, then their 400 items (turn and fact) embedded before it answered, with
    # what the agent wrote while they were written, but not the backlog older than the import
    done, total = dig(status, "done"), dig(status, "total")
    assert isinstance(done, int) and done == total and 200 + 400 <= done < 200 + 400 + BACKLOG
    assert agent.acked[-1] > ended and not agent.refused
    assert server.stop() == 0
