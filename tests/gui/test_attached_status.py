"""The attached console shows who the service serves, and follows and cancels a rebuild the service runs.

A real `Memory` (hash embedder) behind an in-process `SocketHost` on the
console's loop; the console is attached to it through `RemoteMemory`, as it is
to a `jiyi serve`. Where the rebuild must be held half-way, a gate holds the
indexing of each batch (`tests/service/jobs_setup.py`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.main_window import MainWindow
from service.client import JiyiClient
from service.config import load_config
from service.errors import Cancelled
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.rpc.host import SocketHost
from tests.json_reads import dig
from tests.service.inprocess import in_thread
from tests.service.jobs_setup import EPISODES, Gate, episodes
from tests.unit.service.test_import_index import GOALS, outcome, taskwizard_dir


@pytest.fixture
def hashed(tmp_path: Path) -> Iterator[Memory]:
    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    memory.runs.archive_episodes(episodes(EPISODES))
    yield memory
    memory.close()


@pytest.fixture
def attached(
    qtbot: QtBot, hashed: Memory, lanes: Lanes, socket_path: Path, tmp_path: Path
) -> Iterator[tuple[MainWindow, SocketHost]]:
    host = SocketHost(hashed, socket_path)
    host.start()
    memory = in_thread(qtbot, lambda: RemoteMemory.attach(hashed.config, socket_path))
    window = MainWindow(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    yield window, host
    window.close()
    # The host answers on this thread's loop: stopped first, a read the page still has in flight ends at
    # once instead of waiting out its timeout while `lanes.shutdown()` holds the loop.
    host.stop()
    memory.close()
    lanes.shutdown()


def test_the_attached_status_bar_counts_the_services_connections_and_agents(
    qtbot: QtBot, attached: tuple[MainWindow, SocketHost], socket_path: Path
) -> None:
    window, host = attached
    agent = JiyiClient(socket_path, timeout=10)
    try:
        assert in_thread(qtbot, agent.health)["home"] == str(window.memory.home)  # an agent, connected
        # A poll asked before the agent's request may answer first: the status shown after it counts that request.
        seen: list[dict[str, Any]] = []
        window.service_status_shown.connect(seen.append)
        window.update_service_status()
        qtbot.waitUntil(lambda: any(s["requests_by_kind"]["agent"] for s in seen), timeout=10_000)
        status = next(s for s in seen if s["requests_by_kind"]["agent"])
        assert status["by_kind"]["agent"] == 1 and status["by_kind"]["console"] >= 1  # its notices, at least
        assert status["connections"] >= 2 and status["requests_last_minute"] >= 2
        assert status["requests_by_kind"]["agent"] == 1, status  # the agent's health; the console's own are apart
        text = window.service_label.text()
        assert text.startswith(f"服务 {socket_path} · ")
        assert "智能体 1 个，1 次/分钟" in text and f"控制台连接 {status['by_kind']['console']} 个" in text
        assert window.mode_label.text() == "已连接到服务"
    finally:
        agent.close()
    # The agent left: the next poll says so.
    qtbot.waitUntil(lambda: host.presence.snapshot()["by_kind"]["agent"] == 0, timeout=10_000)
    with qtbot.waitSignal(window.service_status_shown, timeout=10_000):
        window.update_service_status()
    assert "智能体 0 个" in window.service_label.text()


def test_the_upkeep_page_follows_and_cancels_a_rebuild_the_service_runs(
    qtbot: QtBot, attached: tuple[MainWindow, SocketHost], hashed: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    window, _host = attached
    page = window.upkeep_page
    gate = Gate(hashed, monkeypatch)
    gate.passes = lambda _batches: bool(hashed.jobs.list()[0].cancel_requested)  # held until cancelled
    values: list[int] = []
    page.progress.valueChanged.connect(values.append)
    qtbot.mouseClick(page.vectors_button, Qt.MouseButton.LeftButton)
    assert page.cancel_button.isEnabled() and not page.vectors_button.isEnabled()
    # The service's progress reaches the bar: the first batch of the rebuild, of all the episodes.
    qtbot.waitUntil(lambda: page.progress.value() == 256 and page.progress.maximum() == EPISODES, timeout=15_000)
    assert hashed.jobs.running() is not None
    with qtbot.waitSignal(page.rebuild_finished, timeout=15_000) as finished:
        qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    assert finished.args[0] == "vectors" and isinstance(finished.args[1], Cancelled)
    assert hashed.jobs.list()[0].state == "cancelled"  # the service's job stopped, not only the page
    assert page.rebuild_label.text().startswith("已取消") and page.vectors_button.isEnabled()
    assert 256 in values
    # The next rebuild from the page completes the index.
    gate.release()
    with qtbot.waitSignal(page.rebuild_finished, timeout=20_000) as finished:
        qtbot.mouseClick(page.vectors_button, Qt.MouseButton.LeftButton)
    assert finished.args[1]["episodes"] == EPISODES
    assert page.rebuild_label.text().startswith("重建完成")
    assert hashed.recall.state()["episode_vectors"] == EPISODES
    assert [job.state for job in hashed.jobs.list()] == ["done", "cancelled"]


def test_the_views_rebuild_from_an_attached_console_reports_done(
    qtbot: QtBot, attached: tuple[MainWindow, SocketHost], hashed: Memory
) -> None:
    page = attached[0].upkeep_page
    started = time.time()
    with qtbot.waitSignal(page.rebuild_finished, timeout=20_000) as finished:
        qtbot.mouseClick(page.views_button, Qt.MouseButton.LeftButton)
    which, outcome = finished.args
    assert which == "views" and outcome["experience"] >= EPISODES  # events replayed into the episode views
    job = hashed.jobs.list()[0]
    assert job.kind == "rebuild" and job.state == "done" and job.started >= started
    assert hashed.runs.count_episodes() == EPISODES


def test_a_rebuild_a_command_started_shows_on_the_page_and_can_be_cancelled_there(
    qtbot: QtBot, attached: tuple[MainWindow, SocketHost], hashed: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    window, host = attached
    page = window.upkeep_page
    gate = Gate(hashed, monkeypatch)
    gate.passes = lambda _batches: bool(hashed.jobs.list()[0].cancel_requested)  # held until cancelled

    def command_starts_a_rebuild() -> str:
        with JiyiClient(host.path, timeout=10, hello="command") as command:  # as `jiyi rebuild-vec` does
            return str(dig(command.request("job.start", {"kind": "vectors.rebuild"}).get("result"), "job_id"))

    job_id = in_thread(qtbot, command_starts_a_rebuild)
    window.show()
    window.page_list.setCurrentRow(window.stack.indexOf(page))  # the page, shown, watches the service's jobs
    qtbot.waitUntil(lambda: page.progress.value() == 256 and job_id in page.rebuild_label.text(), timeout=15_000)
    assert page.progress.maximum() == EPISODES and "由别处启动" in page.rebuild_label.text()
    assert page.cancel_button.isEnabled() and not page.vectors_button.isEnabled()
    with qtbot.waitSignal(page.job_followed, timeout=15_000, check_params_cb=lambda job: job is None):
        qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    assert hashed.jobs.status(job_id).state == "cancelled"
    assert page.rebuild_label.text() == f"重建向量索引（{job_id}）已取消"
    assert page.vectors_button.isEnabled() and not page.cancel_button.isEnabled()


def test_an_import_from_the_attached_console_runs_as_the_services_job_that_nobody_cancels(
    qtbot: QtBot,
    attached: tuple[MainWindow, SocketHost],
    hashed: Memory,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    window, _host = attached
    gate = Gate(hashed, monkeypatch)  # holds the second device's batch of the import's indexing
    records = [outcome(i, *GOALS[i % 2], device="phone1" if i < 6 else "phone2") for i in range(12)]
    folder = taskwizard_dir(tmp_path / "tw", records)
    maintenance, appkb = window.upkeep_page, window.appkb_page
    window.show()
    window.page_list.setCurrentRow(window.stack.indexOf(maintenance))  # it watches the service's jobs
    with qtbot.waitSignal(appkb.transferred, timeout=30_000) as imported:
        appkb.import_from(folder)
        qtbot.waitUntil(lambda: appkb.import_progress.value() == 6, timeout=15_000)  # one device indexed
        assert "6/12" in appkb.count_label.text()
        qtbot.waitUntil(lambda: "导入 TaskWizard" in maintenance.rebuild_label.text(), timeout=15_000)
        assert not maintenance.cancel_button.isEnabled() and not maintenance.vectors_button.isEnabled()
        assert window.work_closing_stops() == []  # the service finishes the import whatever this console does
        gate.release()
    assert "运行档案：导入 12 条" in imported.args[0]
    job = hashed.jobs.list()[0]
    assert job.kind == "taskwizard.import" and job.state == "done"
