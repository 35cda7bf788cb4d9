"""The console attached to a running `jiyi serve`: the same pages, over the socket, and the service outlives it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.main_window import MainWindow
from service.client import JiyiClient
from service.config import load_config
from service.remote.attach import find_service
from service.remote.memory import RemoteMemory
from tests.json_reads import dig
from tests.service.conftest import Server, private_folder, start_server


@pytest.fixture
def served() -> Iterator[Server]:
    """A real `jiyi serve` process on a fresh home; it must still be serving, and stop cleanly, after the test."""
    with private_folder() as folder:
        running = start_server(folder / "home", folder / "run" / "jiyi.sock")
        try:
            yield running
        finally:
            assert running.stop() == 0


def agent_writes(socket: Path) -> None:
    """What an agent does over the socket: a device's apps, an alias, one finished run."""
    with JiyiClient(socket, timeout=10, strict=True) as agent:
        agent.sync_inventory("phone1", [{"package": "com.tencent.mm", "label": "微信"}])
        agent.learn_alias("绿泡泡", "com.tencent.mm")
        agent.run_start("r1", "phone1")
        agent.call("run.finish", {"run_id": "r1", "outcome": {"success": True, "goal_text": "给妈妈发微信"}})


@pytest.fixture
def attached(qtbot: QtBot, served: Server, lanes: Lanes, tmp_path: Path) -> Iterator[MainWindow]:
    agent_writes(served.socket)
    config = load_config(home=served.home, env={"JIYI_SOCKET": str(served.socket)})
    found = find_service(config)
    assert found is not None and found[0] == served.socket
    memory = RemoteMemory(config, *found)
    window = MainWindow(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), lanes)
    qtbot.addWidget(window)
    yield window
    window.close()
    memory.close()


def terms(window: MainWindow) -> set[str]:
    model = window.appkb_page.model
    return {model.rows[r].term for r in range(model.rowCount())}


def test_the_console_opens_attached_and_shows_what_agents_wrote(qtbot: QtBot, attached: MainWindow) -> None:
    window = attached
    failures: list[str] = []
    window.lanes.failed.connect(failures.append)
    for page in (window.lessons_page, window.learning_page, window.overview_page, window.recall_page):
        window.page_list.setCurrentRow(window.stack.indexOf(page))
        window.refresh_page()  # every page's reads go through the service
    qtbot.waitUntil(lambda: terms(window) == {"微信", "绿泡泡"}, timeout=10_000)
    qtbot.waitUntil(lambda: window.episodes_page.model.rowCount() == 1, timeout=10_000)
    assert window.episodes_page.model.rows[0].run_id == "r1"
    assert window.mode_label.text() == "已连接到服务"
    assert str(window.memory.attached_to) in window.service_label.text()
    assert window.memory.home == window.memory.config.home_path
    qtbot.wait(500)  # the reloads asked for above: any failure reaches `failed`
    assert failures == []


def test_a_write_from_the_console_lands_in_the_service(qtbot: QtBot, attached: MainWindow, served: Server) -> None:
    editor = attached.appkb_page.editor
    editor.name_edit.setText("小绿")
    editor.package_edit.setText("com.tencent.mm")
    with qtbot.waitSignal(editor.saved, timeout=10_000):
        qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    with JiyiClient(served.socket, timeout=10) as agent:
        answer = agent.resolve_app("小绿", device="phone1")
        history = agent.call("app.alias.history", {"name": "小绿"})
    assert answer["package"] == "com.tencent.mm" and answer["state"] == "resolved"
    assert dig(history, "items", 0, "actor") == "user"  # the person's act, recorded as theirs
    qtbot.waitUntil(lambda: "小绿" in terms(attached), timeout=10_000)


def test_an_agent_write_after_opening_reaches_the_page_by_a_change_notice(
    qtbot: QtBot, attached: MainWindow, served: Server
) -> None:
    window = attached
    qtbot.waitUntil(lambda: terms(window) == {"微信", "绿泡泡"}, timeout=10_000)
    assert isinstance(window.memory, RemoteMemory) and window.memory.notices is not None
    assert window.memory.notices.subscribed.wait(10)
    with JiyiClient(served.socket, timeout=10, strict=True) as agent:
        agent.learn_alias("小蓝书", "com.xingin.xhs")
    # No reload by hand: the service's notice refreshes the page.
    qtbot.waitUntil(lambda: "小蓝书" in terms(window), timeout=10_000)


def test_closing_the_console_leaves_the_service_running(qtbot: QtBot, attached: MainWindow, served: Server) -> None:
    attached.close()
    assert isinstance(attached.memory, RemoteMemory)
    attached.memory.close()
    assert served.alive()
    with JiyiClient(served.socket, timeout=10) as agent:
        assert agent.health()["home"] == str(served.home)


def test_the_console_follows_the_service_through_a_restart(qtbot: QtBot, attached: MainWindow, served: Server) -> None:
    window = attached
    memory = window.memory
    assert isinstance(memory, RemoteMemory) and memory.notices is not None
    qtbot.waitUntil(lambda: terms(window) == {"微信", "绿泡泡"}, timeout=10_000)
    assert memory.notices.subscribed.wait(10)
    assert served.stop() == 0
    qtbot.waitUntil(lambda: not memory.connected, timeout=10_000)
    window.update_service_status()
    assert "已断开" in window.service_label.text()
    restarted = start_server(served.home, served.socket)
    served.process = restarted.process  # the fixture stops (and checks) whichever process serves now
    with JiyiClient(served.socket, timeout=10, strict=True) as agent:
        agent.learn_alias("小蓝书", "com.xingin.xhs")
    # Back on the new service: the reader subscribes again and reloads every page it may have missed.
    qtbot.waitUntil(lambda: memory.connected and "小蓝书" in terms(window), timeout=15_000)


def test_the_episode_browser_pages_by_key_over_the_socket(served: Server) -> None:
    """`RemoteMemory.list_episodes(after=...)` sends `episode.list`'s `after`: the page continues after the
    last run held, whatever an agent archived meanwhile."""
    with JiyiClient(served.socket, timeout=10, strict=True) as agent:
        for i in range(3):
            agent.call("run.finish", {"run_id": f"k{i}", "outcome": {"success": True, "ts_end": 1000.0 + i}})
    config = load_config(home=served.home, env={"JIYI_SOCKET": str(served.socket)})
    found = find_service(config)
    assert found is not None
    memory = RemoteMemory(config, *found)
    try:
        first = memory.runs.list_episodes(limit=2)
        with JiyiClient(served.socket, timeout=10, strict=True) as agent:
            agent.call("run.finish", {"run_id": "newest", "outcome": {"success": True, "ts_end": 9000.0}})
        rest = memory.runs.list_episodes(after=(float(first[-1].ts_end), first[-1].run_id))
        assert [e.run_id for e in first + rest] == ["k2", "k1", "k0"]
    finally:
        memory.close()
