"""Rebuilds as the service's jobs, over a real socket: progress to any client, cancel, one at a time, who is connected.

A real `Memory` (the hash embedder: the model is not under test) behind an
in-process `SocketHost`; the clients (`RemoteMemory`, the agent client) run on
a thread while the test thread runs the host's loop. Where a test needs the
rebuild held half-way, the indexing of each batch waits on a gate.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from service.client import JiyiClient, JsonObject, Reply
from service.config import Config
from service.errors import Busy, Cancelled
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.rpc.host import SocketHost
from tests.json_reads import dig, items, obj
from tests.service.inprocess import in_thread
from tests.service.jobs_setup import EPISODES, Gate, episodes


@pytest.fixture
def hashed(hashed_config: Config) -> Iterator[Memory]:
    memory = Memory.open(hashed_config)
    memory.runs.archive_episodes(episodes(EPISODES))
    yield memory
    memory.close()


def test_a_remote_rebuild_reports_progress_up_to_its_total(
    qtbot: QtBot, hashed: Memory, remote: RemoteMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[int, int]] = []
    gate = Gate(hashed, monkeypatch)
    # Each batch waits until the client has seen the one before, so every step reaches the client.
    gate.passes = lambda batches: any(done >= (batches - 1) * 256 for done, _ in seen)
    result = in_thread(qtbot, lambda: remote.recall.rebuild_vectors(progress=lambda d, t: seen.append((d, t))))
    assert result["episodes"] == EPISODES and result["embedded"] == EPISODES
    moves = sorted(set(seen), key=seen.index)
    assert [done for done, _ in moves] == [256, 512, EPISODES]
    assert all(total == EPISODES for _, total in moves) and seen[-1] == (EPISODES, EPISODES)
    assert hashed.recall.state()["episode_vectors"] == EPISODES
    assert hashed.jobs.list()[0].state == "done"


def test_cancelling_stops_the_job_and_a_later_rebuild_completes_the_index(
    qtbot: QtBot, hashed: Memory, remote: RemoteMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(hashed, monkeypatch)
    gate.passes = lambda _batches: bool(hashed.jobs.list()[0].cancel_requested)  # held until cancelled

    def cancel_at_first_report(_done: int, _total: int) -> None:
        raise Cancelled()

    def rebuild() -> BaseException | None:
        try:
            remote.recall.rebuild_vectors(progress=cancel_at_first_report)
        except Cancelled as exc:
            return exc
        return None

    assert isinstance(in_thread(qtbot, rebuild), Cancelled)
    job = hashed.jobs.list()[0]
    assert job.state == "cancelled" and job.done == 512 and gate.batches == 2
    assert hashed.recall.state()["episode_vectors"] < EPISODES  # a partial index, as a local cancel leaves
    gate.release()
    result = in_thread(qtbot, lambda: remote.recall.rebuild_vectors())
    assert result["episodes"] == EPISODES
    assert hashed.recall.state()["episode_vectors"] == EPISODES
    found = in_thread(qtbot, lambda: remote.recall.recall_query("给妈妈发消息 7", "d1"))
    assert "com.tencent.mm" in str(found)


def test_a_second_rebuild_is_refused_busy_naming_the_running_job(
    qtbot: QtBot, hashed: Memory, host: SocketHost, remote: RemoteMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(hashed, monkeypatch)

    def start_two() -> tuple[Reply, Reply, Reply]:
        with JiyiClient(host.path, timeout=10) as agent:
            first = agent.request("job.start", {"kind": "vectors.rebuild"})
            assert gate.held.wait(10)
            second = agent.request("job.start", {"kind": "rebuild"})
            waiting = agent.request("vectors.rebuild")  # the old, waiting call is one of the jobs too
        return first, second, waiting

    first, second, waiting = in_thread(qtbot, start_two)
    job_id = str(dig(first.get("result"), "job_id"))
    assert first["ok"] and dig(first.get("result"), "state") == "running"
    for refused in (second, waiting):
        assert refused["error"]["code"] == "busy" and job_id in refused["error"]["message"]
        assert dig(refused["error"].get("data"), "job", "job_id") == job_id
    with pytest.raises(Busy, match=job_id):
        in_thread(qtbot, lambda: remote.rebuild())
    gate.release()
    qtbot.waitUntil(lambda: hashed.jobs.status(job_id).state == "done", timeout=20_000)


def test_a_client_that_leaves_does_not_cancel_its_job_and_others_follow_it(
    qtbot: QtBot, hashed: Memory, host: SocketHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(hashed, monkeypatch)

    def start_and_leave() -> str:
        with JiyiClient(host.path, timeout=10, hello="command") as cli:
            started = cli.request("job.start", {"kind": "vectors.rebuild"})
        return str(dig(started.get("result"), "job_id"))

    job_id = in_thread(qtbot, start_and_leave)
    assert gate.held.wait(10)
    qtbot.waitUntil(lambda: host.connection_count == 0, timeout=10_000)
    gate.release()

    def follow() -> list[JsonObject]:
        seen: list[JsonObject] = []
        with JiyiClient(host.path, timeout=10) as other:
            while not seen or seen[-1]["state"] == "running":
                seen.append(obj(other.request("job.status", {"job_id": job_id}).get("result")))
                time.sleep(0.05)
            listed = items(other.request("job.list").get("result"), "jobs")
        assert dig(listed, 0, "job_id") == job_id
        return seen

    seen = in_thread(qtbot, follow)
    assert seen[-1]["state"] == "done" and seen[-1]["done"] == seen[-1]["total"] == EPISODES
    assert dig(seen[-1], "outcome", "episodes") == EPISODES and not seen[-1]["cancel_requested"]


def test_job_methods_refuse_what_they_cannot_do(qtbot: QtBot, host: SocketHost) -> None:
    def ask() -> list[Reply]:
        with JiyiClient(host.path, timeout=10) as agent:
            return [
                agent.request("job.status", {"job_id": "job-99"}),
                agent.request("job.cancel", {"job_id": "job-99"}),
                agent.request("job.start", {"kind": "backup"}),
                agent.request("job.start", {}),
            ]

    unknown, cancel_unknown, bad_kind, no_kind = in_thread(qtbot, ask)
    assert unknown["error"]["code"] == cancel_unknown["error"]["code"] == "not_found"
    assert "job-99" in unknown["error"]["message"]
    assert bad_kind["error"]["code"] == no_kind["error"]["code"] == "invalid_params"
    assert "vectors.rebuild" in bad_kind["error"]["message"] and "kind" in no_kind["error"]["message"]


def test_service_status_counts_connections_by_kind_and_names_the_running_job(
    qtbot: QtBot, hashed: Memory, host: SocketHost, remote: RemoteMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(hashed, monkeypatch)

    def look() -> Any:  # a `service.ops.status.ServiceStatus`
        with (
            JiyiClient(host.path, timeout=10) as agent,
            JiyiClient(host.path, timeout=10, hello="command") as command,
        ):
            agent.health()  # an agent that never names itself
            command.request("job.start", {"kind": "vectors.rebuild"})
            assert gate.held.wait(10)
            return remote.service_status()

    status = in_thread(qtbot, look)
    assert status["connections"] == 3
    assert status["by_kind"] == {"agent": 1, "console": 1, "command": 1, "worker": 0}
    assert status["requests_last_minute"] >= 4  # attach's health, the agent's, job.start, this one
    assert status["job"].kind == "vectors.rebuild" and status["job"].state == "running"
    gate.release()
    qtbot.waitUntil(lambda: hashed.jobs.running() is None, timeout=20_000)


def test_closing_the_memory_stops_a_running_job(hashed: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(hashed, monkeypatch)
    gate.passes = lambda _batches: bool(hashed.jobs.list()[0].cancel_requested)
    job = hashed.jobs.start("vectors.rebuild", lambda progress: dict(hashed.recall.rebuild_vectors(progress)))
    assert gate.held.wait(10)
    hashed.jobs.close()  # what Memory.close does first
    assert hashed.jobs.status(job.job_id).state == "cancelled"


def test_ctrl_c_in_a_command_following_a_job_cancels_it(
    qtbot: QtBot, hashed: Memory, remote: RemoteMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(hashed, monkeypatch)
    gate.passes = lambda _batches: bool(hashed.jobs.list()[0].cancel_requested)

    def interrupted(_done: int, _total: int) -> None:
        raise KeyboardInterrupt  # what Ctrl+C raises in `jiyi rebuild-vec` while its bar is fed

    def rebuild() -> BaseException | None:
        try:
            remote.recall.rebuild_vectors(progress=interrupted)
        except KeyboardInterrupt as exc:
            return exc
        return None

    assert isinstance(in_thread(qtbot, rebuild), KeyboardInterrupt)
    assert hashed.jobs.list()[0].state == "cancelled"
