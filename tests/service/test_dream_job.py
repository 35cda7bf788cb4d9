"""A dream pass as the service's job, over a real socket: an attached console or command hears its steps,
a preview stores nothing, and a cancel stops it between two steps.

A real `Memory` (hash embedder) behind an in-process `SocketHost` (the `host` and `remote` fixtures of
`conftest.py`); the clients run on a thread while the test thread runs the host's loop.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from service.client import JiyiClient, Reply
from service.config import Config
from service.errors import Cancelled
from service.memory.dream import STEPS, _Pass
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.rpc.host import SocketHost
from tests.service.inprocess import in_thread


@pytest.fixture
def hashed(hashed_config: Config) -> Iterator[Memory]:
    memory = Memory.open(hashed_config)
    memory.appkb.sync_inventory("d1", [("com.tencent.mm", "微信")])
    memory.appkb.learn_alias("绿泡泡", "com.tencent.mm")
    yield memory
    memory.close()


def test_an_attached_dream_reports_each_step_and_its_report_is_stored(
    qtbot: QtBot, hashed: Memory, remote: RemoteMemory
) -> None:
    heard: list[tuple[int, int]] = []
    report = in_thread(qtbot, lambda: remote.dream.run(full=True, progress=lambda d, t: heard.append((d, t))))
    assert [step["step"] for step in report["steps"]] == list(STEPS) and report["seq"] > 0
    assert heard[-1] == (len(STEPS), len(STEPS)) and all(total == len(STEPS) for _, total in heard)
    job = hashed.jobs.list()[0]
    assert job.kind == "dream" and job.state == "done" and job.cancellable is True
    assert [r.ts for r in hashed.dream.reports()] == [report["ts"]]


def test_a_previewed_dream_stores_nothing_and_a_cancelled_one_stops_between_steps(
    qtbot: QtBot, hashed: Memory, remote: RemoteMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    preview = in_thread(qtbot, lambda: remote.dream.run(full=True, dry_run=True))
    assert preview["dry_run"] is True and "seq" not in preview and hashed.dream.reports() == []
    ran: list[str] = []
    fold = _Pass.fold

    def held_fold(self: _Pass) -> dict[str, Any]:
        # The fourth step waits until the follower asked to cancel (or 20 s): the cancel lands mid-pass.
        deadline = time.monotonic() + 20
        while not hashed.jobs.list()[0].cancel_requested and time.monotonic() < deadline:
            time.sleep(0.01)
        ran.append("fold")
        return fold(self)

    monkeypatch.setattr(_Pass, "fold", held_fold)

    def reconcile(_self: _Pass) -> dict[str, Any]:
        ran.append("index_reconcile")
        return {}

    monkeypatch.setattr(_Pass, "index_reconcile", reconcile)

    def stop_once_under_way(done: int, _total: int) -> None:
        if done >= 3:
            raise Cancelled()

    def cancelled() -> BaseException | None:
        try:
            remote.dream.run(full=True, progress=stop_once_under_way)
        except Cancelled as exc:
            return exc
        return None

    assert isinstance(in_thread(qtbot, cancelled), Cancelled)
    job = hashed.jobs.list()[0]
    assert job.kind == "dream" and job.state == "cancelled" and job.done == 4, job
    assert ran == ["fold"]  # stopped before the next step
    assert hashed.dream.reports() == []  # a pass cut short stores no report


def test_a_dream_job_checks_its_params(qtbot: QtBot, hashed: Memory, host: SocketHost) -> None:
    def ask() -> list[Reply]:
        with JiyiClient(host.path, timeout=10) as agent:
            return [
                agent.request("job.start", {"kind": "dream", "full": "yes"}),
                agent.request("job.start", {"kind": "dream", "directory": "/tmp"}),
            ]

    for refused in in_thread(qtbot, ask):
        assert refused["error"]["code"] == "invalid_params", refused
    assert hashed.jobs.list() == []
