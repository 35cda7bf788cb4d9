"""The console hosts the agent service: an agent's write over the socket shows up on the open page."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from jiyi.gui.main_window import MainWindow
from jiyi.service.client import JiyiClient
from jiyi.service.host import SocketHost
from jiyi.service.memory import Memory


@pytest.fixture
def socket_path() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="jyg", dir="/tmp"))
    os.chmod(folder, 0o700)
    yield folder / "jiyi.sock"
    shutil.rmtree(folder, ignore_errors=True)


def test_an_agent_write_over_the_socket_refreshes_the_page(
    qtbot: QtBot, memory: Memory, socket_path: Path, tmp_path: Path
) -> None:
    host = SocketHost(memory, socket_path)
    host.start()
    window = MainWindow(memory, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat), host)
    qtbot.addWidget(window)
    replies: list[dict[str, object]] = []

    def agent() -> None:
        with JiyiClient(socket_path, timeout=10) as client:
            replies.append(client.sync_inventory("phone1", [{"package": "com.tencent.mm", "label": "微信"}]))
            replies.append(client.learn_alias("绿泡泡", "com.tencent.mm"))
            replies.append(client.resolve_app("绿泡泡", device="phone1"))

    worker = threading.Thread(target=agent)
    worker.start()
    qtbot.waitUntil(lambda: len(replies) == 3, timeout=10_000)
    worker.join()
    assert replies[1]["stored"] is True and replies[2]["package"] == "com.tencent.mm"
    terms = lambda: {window.appkb_page.model.rows[r].term for r in range(window.appkb_page.model.rowCount())}  # noqa: E731
    qtbot.waitUntil(lambda: terms() == {"微信", "绿泡泡"}, timeout=5000)
    window.update_service_status()
    assert str(socket_path) in window.service_label.text() and "3 次/分钟" in window.service_label.text()
    window.close()
    host.stop()
    assert not socket_path.exists()
