"""The recall answers as typed rows (`service/wire/recall.py`) send what the store and recall built:
the same keys, in the same order, the same values; an older trace without the newer fields still reads."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from service.config import load_config
from service.memory.memory import Memory
from service.wire.recall import DeskRecall, RunTrace
from service.wire.row import row
from store.desk import retrieval
from store.episodes import recall_stats

DAY = "2026-11-{:02d}T02:00:00Z"


@pytest.fixture
def hashed(tmp_path: Path) -> Iterator[Memory]:
    with Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        yield memory


def encoded(value: msgspec.Struct) -> Any:
    return json.loads(msgspec.json.encode(value))


def shapes(items: list[dict[str, Any]]) -> set[tuple[str, ...]]:
    """Each distinct key order among `items` (a related item has `score` and `signals`, a recent one not)."""
    return {tuple(item) for item in items}


def test_the_desk_recall_row_sends_the_stores_keys_in_the_stores_order(hashed: Memory) -> None:
    turns = ["UFO 构建检查通过了", "周末去香山爬山", "给妈妈买生日礼物", "UFO 构建又失败了", "明天交周报"]
    for n, text in enumerate(turns, start=1):
        hashed.desk.remember_interaction(f"i{n}", user_text=text, assistant_text="好的", ts=DAY.format(n))
    hashed.desk.complete_task(
        "k1", title="UFO 构建检查", status="failed", result="磁盘已满", schedule_id="ufo", run_id="ufo-1"
    )
    hashed.desk.complete_task("k2", title="早间新闻", status="succeeded", result="6 条")
    answer = hashed.desk.memory_recall("UFO 构建", limit=1)  # one related item each, the rest recent
    assert isinstance(answer, DeskRecall)
    assert (answer.interactions[0].why, answer.interactions[0].interaction_id) == ("related", "i4")
    sent = encoded(answer)
    recalled = retrieval.recall(hashed.store, "UFO 构建", retrieval.RecallLimits(1, hashed.config.core_facts))
    store = msgspec.to_builtins(dataclasses.asdict(recalled))
    assert list(sent) == [*store, "retrieval", "degraded", "latency_ms"]
    # The store's task card keeps its `epoch` (it orders and exports the card); the wire's leaves it out.
    for card in store["task_cards"]:
        del card["epoch"]
    for key in ("interactions", "task_cards", "bundles", "recent_workdays"):
        assert shapes(sent[key]) == shapes(store[key]), key
    assert {why for why in (i["why"] for i in sent["interactions"])} == {"related", "recent"}
    assert "score" not in sent["interactions"][-1] and "signals" not in sent["interactions"][-1]  # recent
    assert sent["bundles"][0]["bundle_id"] == "schedule/ufo"
    # decoded at the socket, the row is the one the facade answered
    assert msgspec.json.decode(msgspec.json.encode(answer), type=DeskRecall) == answer


def test_a_trace_and_a_probe_send_what_recall_kept_and_answered(hashed: Memory) -> None:
    for n in range(3):
        hashed.runs.run_start(f"r{n}", "d1", goal="打开微信给妈妈发消息")
        launch = {
            "run_id": f"r{n}",
            "step": 1,
            "tool": "launch_app",
            "result_class": "ok",
            "app_package": "com.tencent.mm",
        }
        hashed.runs.run_event(launch)
        hashed.runs.run_finish(f"r{n}", {"success": True, "apps": ["com.tencent.mm"], "steps": 3})
    stored = recall_stats.trace_of(hashed.store, "r2")
    trace = hashed.recall.recall_trace("r2")
    assert stored is not None and trace is not None
    kept: dict[str, Any] = json.loads(json.dumps(stored))  # as the store keeps it, read as JSON
    sent = encoded(trace)
    assert list(sent) == list(kept) and list(sent["evaluation"]) == list(kept["evaluation"])  # kept sorted
    assert sent == kept
    assert hashed.recall.recall_runs(0, 2e9)[0] == trace  # newest first
    probe = hashed.recall.recall_query("打开微信", "d1", explain=True)
    answered = hashed.recall.recall("打开微信", "d1", hashed.parts.generation, explain=True).to_dict()
    assert list(encoded(probe)) == list(answered)
    assert "considered" not in encoded(hashed.recall.recall_query("打开微信", "d1"))  # explained only
    # a trace an older Jiyi kept, before `embedder`, `device_scope`, `degraded` and `confidence`
    older = {k: v for k, v in kept.items() if k not in ("embedder", "device_scope")}
    older["recall"] = {k: v for k, v in kept["recall"].items() if k not in ("degraded", "confidence")}
    read = row(RunTrace, older)
    assert read.embedder is msgspec.UNSET and read.recall.confidence is msgspec.UNSET
    assert encoded(read) == older
