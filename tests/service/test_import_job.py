"""A TaskWizard import as the service's job, over a real socket: an attached console or command follows
it as it indexes, nobody can cancel it half-way, and a client that stops following leaves it to finish.

A real `Memory` (the hash embedder: the model is not under test) behind an in-process `SocketHost`; the
clients run on a thread while the test thread runs the host's loop. The runs are on two devices, so the
import indexes them in two batches, and `Gate` can hold it between them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from service.client import JiyiClient, Reply
from service.config import Config
from service.errors import Cancelled
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.rpc.host import SocketHost
from tests.json_reads import dig
from tests.service.inprocess import in_thread, person_client
from tests.service.jobs_setup import Gate
from tests.unit.service.test_import_index import GOALS, outcome, taskwizard_dir

RUNS = 12  # six on each of two devices: two batches of indexing


@pytest.fixture
def hashed(hashed_config: Config) -> Iterator[Memory]:
    memory = Memory.open(hashed_config)
    yield memory
    memory.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    records = [outcome(i, *GOALS[i % 2], device="phone1" if i < RUNS // 2 else "phone2") for i in range(RUNS)]
    return taskwizard_dir(tmp_path, records)


def test_an_attached_import_reports_its_indexing_and_recall_finds_the_runs(
    qtbot: QtBot, hashed: Memory, remote: RemoteMemory, folder: Path
) -> None:
    seen: list[tuple[int, int]] = []
    reports = in_thread(qtbot, lambda: remote.import_taskwizard(folder, lambda d, t: seen.append((d, t))))
    assert reports["experience"].imported == RUNS and reports["experience"].skipped == 0
    assert seen and seen[-1] == (RUNS, RUNS) and all(total == RUNS for _, total in seen)
    job = hashed.jobs.list()[0]
    assert job.kind == "taskwizard.import" and job.state == "done" and job.cancellable is False
    assert job.outcome is not None
    experience = job.outcome["experience"]
    assert isinstance(experience, dict) and experience["imported"] == RUNS
    found = in_thread(qtbot, lambda: remote.recall.recall_query("点一份黄焖鸡外卖", "phone2"))
    assert "com.sankuai.meituan" in str(found)


def test_an_import_cannot_be_cancelled_and_a_follower_that_stops_leaves_it_to_finish(
    qtbot: QtBot,
    hashed: Memory,
    host: SocketHost,
    remote: RemoteMemory,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = Gate(hashed, monkeypatch)  # holds the second device's batch until released

    def stop_following(_done: int, _total: int) -> None:
        raise Cancelled()  # what the console's progress does when it closes

    def follow_then_stop() -> BaseException | None:
        try:
            remote.import_taskwizard(folder, stop_following)
        except Cancelled as exc:
            return exc
        return None

    assert isinstance(in_thread(qtbot, follow_then_stop), Cancelled)
    job = hashed.jobs.list()[0]
    assert job.state == "running" and not job.cancel_requested  # the follower left; the job goes on

    def cancel() -> Reply:
        with JiyiClient(host.path, timeout=10) as agent:
            return agent.request("job.cancel", {"job_id": job.job_id})

    refused = in_thread(qtbot, cancel)
    assert refused["error"]["code"] == "conflict" and job.job_id in refused["error"]["message"]
    assert dig(refused["error"].get("data"), "job", "cancellable") is False
    gate.release()
    qtbot.waitUntil(lambda: hashed.jobs.status(job.job_id).state == "done", timeout=20_000)
    assert hashed.recall.state()["episode_vectors"] == RUNS


def test_an_import_job_checks_its_directory(qtbot: QtBot, hashed: Memory, host: SocketHost, tmp_path: Path) -> None:
    def ask() -> list[Reply]:
        with person_client(host.path, hashed.store.home) as agent:  # an import is the person's: as the console
            return [
                agent.request("job.start", {"kind": "taskwizard.import"}),
                agent.request("job.start", {"kind": "taskwizard.import", "directory": "memory"}),
                agent.request("job.start", {"kind": "rebuild", "directory": str(tmp_path)}),
                agent.request("job.start", {"kind": "taskwizard.import", "directory": str(tmp_path / "none")}),
            ]

    no_directory, relative, stray, missing = in_thread(qtbot, ask)
    for refused in (no_directory, relative, stray):
        assert refused["error"]["code"] == "invalid_params", refused
    assert "directory" in no_directory["error"]["message"] and "absolute" in relative["error"]["message"]
    assert "directory" in stray["error"]["message"]  # a rebuild takes no directory: nothing started
    started = str(dig(missing.get("result"), "job_id"))
    qtbot.waitUntil(lambda: hashed.jobs.status(started).state != "running", timeout=10_000)
    ended = hashed.jobs.status(started)
    assert ended.state == "failed" and ended.error is not None and ended.error["code"] == "not_found", ended
    assert len(hashed.jobs.list()) == 1  # the refused starts started nothing
