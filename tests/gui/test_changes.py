"""The change feed: an agent's commit reaches the GUI thread as one signal, and a closed feed stops listening."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.changes import ChangeFeed
from service.memory.memory import Memory


def test_a_commit_arrives_as_one_signal_and_a_deleted_feed_stops_listening(qtbot: QtBot, memory: Memory) -> None:
    before = memory.parts.bus.listener_count
    feed = ChangeFeed(memory, delay_ms=10)
    assert memory.parts.bus.listener_count == before + 1
    with qtbot.waitSignal(feed.changed, timeout=5000) as changed:
        memory.appkb.learn_alias("小黄", "com.sankuai.meituan", actor="agent")
    assert changed.args == [{"app_kb"}]
    with qtbot.waitSignal(feed.destroyed, timeout=5000):
        feed.deleteLater()
    assert memory.parts.bus.listener_count == before
