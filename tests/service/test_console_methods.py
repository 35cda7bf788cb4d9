"""The socket methods an attached console or command needs, and the change notices it follows."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from pytestqt.qtbot import QtBot

from service.client import JiyiClient
from service.memory.memory import Memory
from service.rpc.dispatch import Dispatcher
from service.rpc.host import SocketHost
from tests.service.inprocess import in_thread, read_lines
from tests.service.test_limits import answer, refused

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("talks to the service over a Unix socket (Unix only)", allow_module_level=True)


@pytest.fixture
def dispatcher(memory: Memory) -> Dispatcher:
    return Dispatcher(memory)


def test_a_fact_is_set_by_a_person_only(dispatcher: Dispatcher, memory: Memory) -> None:
    assert answer(dispatcher, "interaction.remember", {"interaction_id": "i1", "user_text": "以后回答简短一点"})["ok"]
    fact = {
        "scope": "profile",
        "profile_kind": "communication",
        "content": "用户希望回答简短",
        "evidence": [{"interaction_id": "i1", "quote": "回答简短一点"}],
    }
    assert answer(dispatcher, "memory.maintenance.commit", {"facts": [fact]})["ok"]
    listed = answer(dispatcher, "memory.fact.list", {"status": "active"})["result"]
    fact_id = listed["facts"][0]["fact_id"]
    assert listed["next_offset"] is None
    events = memory.store.count_events()
    refused(answer(dispatcher, "memory.fact.set_status", {"fact_id": fact_id, "status": "inactive"}), "forbidden")
    assert memory.store.count_events() == events
    done = answer(dispatcher, "memory.fact.set_status", {"fact_id": fact_id, "status": "inactive"}, person=True)
    assert done["result"]["status"] == "inactive"
    assert memory.facts.get_fact(fact_id).status == "inactive"


def test_topics_workdays_and_the_log_page_like_the_store(dispatcher: Dispatcher, memory: Memory) -> None:
    for i in range(3):
        answer(dispatcher, "interaction.remember", {"interaction_id": f"i{i}", "user_text": f"问题{i}"})
    topics = [
        {"title": f"话题{i}", "kind": "chat", "interaction_ids": [f"i{i}"], "segment": f"聊了{i}"} for i in range(3)
    ]
    assert answer(dispatcher, "memory.maintenance.commit", {"topics": topics})["ok"]
    first = answer(dispatcher, "memory.topic.list", {"limit": 2})["result"]
    rest = answer(dispatcher, "memory.topic.list", {"limit": 2, "offset": first["next_offset"]})["result"]
    titles = [t["title"] for t in first["topics"] + rest["topics"]]
    assert sorted(titles) == ["话题0", "话题1", "话题2"] and rest["next_offset"] is None
    day = answer(dispatcher, "memory.workday.list", {})["result"]["workdays"][0]["workday"]
    assert len(answer(dispatcher, "memory.topic.list", {"workday": day})["result"]["topics"]) == 3
    refused(answer(dispatcher, "memory.topic.list", {"workday": day, "text": "话题"}), "invalid_params", "workday")
    log = answer(dispatcher, "memory.consolidation.log", {"limit": 5})["result"]["entries"]
    assert log == msgspec.to_builtins(memory.maintenance.consolidation_log(5))  # the rows as the wire carries them


def test_the_whole_home_methods_answer_as_the_facade(dispatcher: Dispatcher, memory: Memory, tmp_path: Path) -> None:
    answer(dispatcher, "app.inventory.sync", {"device": "p1", "apps": [{"package": "com.tencent.mm", "label": "微信"}]})
    assert answer(dispatcher, "app.devices", {})["result"] == {"devices": ["p1"], "aliases": 1}
    overview = answer(dispatcher, "overview", {})["result"]
    assert overview["app_kb_entries"] == 1 and "index" in overview and "recall_quality" in overview
    rebuilt = answer(dispatcher, "rebuild", {})["result"]
    assert rebuilt["integrity"] == "ok" and rebuilt["counts"]["app_kb"] >= 1
    preview = answer(dispatcher, "dream.run", {"dry_run": True})["result"]
    assert preview["dry_run"] is True and answer(dispatcher, "dream.reports", {})["result"] == {"reports": []}
    refused(answer(dispatcher, "taskwizard.export", {"directory": "relative/dir"}), "invalid_params", "absolute")
    counts = answer(dispatcher, "taskwizard.export", {"directory": str(tmp_path / "tw")})["result"]
    assert counts["app_kb"] and (tmp_path / "tw" / "app_kb").is_dir()
    assert answer(dispatcher, "recall.trace", {"run_id": "nope"})["result"] == {"run_id": "nope", "trace": None}
    directory = answer(dispatcher, "bundle.directory", {"bundle_id": "project/p"})["result"]["directory"]
    assert directory == memory.bundles.bundle_directory("project/p")


@pytest.fixture
def host(qtbot: QtBot, memory: Memory, short_dir: Path) -> Iterator[SocketHost]:
    served = SocketHost(memory, short_dir / "run" / "jiyi.sock", workers=2, idle_timeout=0.3)
    served.start()
    yield served
    served.stop()


def test_a_subscriber_hears_each_burst_of_changes_and_is_never_idle_closed(qtbot: QtBot, host: SocketHost) -> None:
    subscriber = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    subscriber.settimeout(10)
    subscriber.connect(str(host.path))
    try:
        subscriber.sendall(b'{"id": 1, "method": "changes.subscribe"}\n')
        answered = json.loads(in_thread(qtbot, lambda: read_lines(subscriber, 1))[0])
        assert answered["ok"] and answered["result"]["generation"] == 0
        qtbot.wait(600)  # twice the idle timeout: a subscriber waits for notices, it is not idle
        assert host.subscriber_count == 1

        def agent() -> list[bytes]:
            with JiyiClient(host.path, timeout=10, strict=True) as client:
                client.learn_alias("绿泡泡", "com.tencent.mm")
                client.learn_alias("小蓝书", "com.xingin.xhs")
            return read_lines(subscriber, 1)

        notice = json.loads(in_thread(qtbot, agent)[0])
        assert notice["notice"] == "changed" and notice["domains"] == ["app_kb"] and notice["generation"] >= 1
        assert "id" not in notice and "ok" not in notice
    finally:
        subscriber.close()
    qtbot.waitUntil(lambda: host.subscriber_count == 0, timeout=5000)
