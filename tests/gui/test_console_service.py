"""The console attached to the agent service: an agent's write over the socket shows up on the open page.

The service is a real `SocketHost` over a real `Memory` that the test runs on the console's loop (as `jiyi
serve` would run it in its own process); the window works through `RemoteMemory`, as the console does."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.main_window import MainWindow
from service.client import JiyiClient
from service.memory.memory import Memory
from service.remote.memory import RemoteMemory
from service.rpc.host import SocketHost
from tests.service.inprocess import in_thread


@pytest.fixture
def hosted(
    qtbot: QtBot, memory: Memory, lanes: Lanes, socket_path: Path, tmp_path: Path
) -> Iterator[tuple[MainWindow, SocketHost]]:
    """The console's window attached to the service on `socket_path`."""
    host = SocketHost(memory, socket_path)
    host.start()
    remote = in_thread(qtbot, lambda: RemoteMemory.attach(memory.config, socket_path))
    window = MainWindow(remote, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    yield window, host
    window.close()
    host.stop()  # first: a read the page still has in flight ends at once
    remote.close()
    lanes.shutdown()


def run_agent(qtbot: QtBot, agent: Callable[[], None]) -> None:
    """Run `agent` on its own thread (a separate client) while the GUI thread keeps serving."""
    worker = threading.Thread(target=agent)
    worker.start()
    qtbot.waitUntil(lambda: not worker.is_alive(), timeout=10_000)
    worker.join()


def test_an_agent_write_over_the_socket_refreshes_the_page(
    qtbot: QtBot, hosted: tuple[MainWindow, SocketHost], socket_path: Path
) -> None:
    window, host = hosted
    replies: list[Mapping[str, object]] = []

    def agent() -> None:
        with JiyiClient(socket_path, timeout=10) as client:
            replies.append(client.sync_inventory("phone1", [{"package": "com.tencent.mm", "label": "微信"}]))
            replies.append(client.learn_alias("绿泡泡", "com.tencent.mm"))
            replies.append(client.resolve_app("绿泡泡", device="phone1"))

    run_agent(qtbot, agent)
    assert len(replies) == 3 and replies[1]["stored"] is True and replies[2]["package"] == "com.tencent.mm"
    terms = lambda: {window.appkb_page.model.rows[r].term for r in range(window.appkb_page.model.rowCount())}  # noqa: E731
    qtbot.waitUntil(lambda: terms() == {"微信", "绿泡泡"}, timeout=5000)
    window.update_service_status()  # the service's counts come in the read lane
    qtbot.waitUntil(lambda: "3 次/分钟" in window.service_label.text(), timeout=5000)
    assert str(socket_path) in window.service_label.text()
    window.close()
    host.stop()
    assert not socket_path.exists()


def test_desk_pages_follow_an_agent_over_the_socket(
    qtbot: QtBot, hosted: tuple[MainWindow, SocketHost], socket_path: Path
) -> None:
    window, _host = hosted
    done: list[Mapping[str, object]] = []

    def agent() -> None:
        with JiyiClient(socket_path, timeout=10) as client:
            done.append(client.remember_interaction("t1", "以后周报先给我看", "好的"))
            done.append(client.complete_task("k1", "周报", "succeeded", schedule_id="weekly", run_id="r1"))
            plan = client.call("memory.maintenance.plan", {})
            skills = [
                {"name": "周报先审", "text": "先给用户看", "source_interaction_id": "t1", "quote": "周报先给我看"}
            ]
            done.append(
                client.call(
                    "memory.maintenance.commit",
                    {
                        "batch_id": plan["batch_id"],
                        "topics": [{"title": "周报", "interaction_ids": ["t1"]}],
                        "skills": skills,
                    },
                )
            )

    run_agent(qtbot, agent)
    assert len(done) == 3
    # No reload by hand: the change feed refreshes the pages.
    qtbot.waitUntil(lambda: window.bundles_page.tree.topLevelItemCount() == 1, timeout=5000)
    top = window.bundles_page.tree.topLevelItem(0)
    assert top is not None and "周报" in top.text(0)
    qtbot.waitUntil(lambda: [r.name for r in window.skills_page.model.rows] == ["周报先审"], timeout=5000)
    qtbot.waitUntil(lambda: window.topics_page.days.rowCount() == 1, timeout=5000)


def test_a_run_link_on_the_recall_page_opens_the_episode_browser(
    qtbot: QtBot, hosted: tuple[MainWindow, SocketHost], memory: Memory
) -> None:
    window, _host = hosted
    memory.runs.run_start("linked", "phone1", goal="随便看看")
    memory.runs.run_finish("linked", {"success": True, "apps": ["com.xingin.xhs"], "steps": 3})
    with qtbot.waitSignal(window.episodes_page.detail_shown, timeout=10_000) as shown:
        window.recall_page.probe.run_requested.emit("linked")
    assert shown.args == ["linked"] and window.stack.currentWidget() is window.episodes_page
    assert "随便看看" in window.episodes_page.detail.toPlainText()


def test_the_window_title_names_the_home_once(qtbot: QtBot, memory: Memory, lanes: Lanes, tmp_path: Path) -> None:
    """Qt appends the display name (记忆 Jiyi) to a window's title: the title itself must not hold it too."""
    from PySide6.QtWidgets import QApplication

    QApplication.setApplicationDisplayName("记忆 Jiyi")
    try:
        window = MainWindow(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
        qtbot.addWidget(window)
        assert window.windowTitle() == str(memory.store.home)
        assert QApplication.applicationDisplayName() not in window.windowTitle()
    finally:
        QApplication.setApplicationDisplayName("")
