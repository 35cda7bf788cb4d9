"""Bulk ingest against the per-run path: the same episodes both ways give the same archive, counts and vectors."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from recall.episode_recall import EPISODE
from service.config import load_config
from service.memory.memory import Memory
from store.core.errors import InvalidInput
from store.episodes import recall_terms
from store.episodes.archive import episode_view

HASH = {"JIYI_EMBED_MODEL": "hash", "JIYI_MEMORY_RAG": "off"}
APPS = ["com.tencent.mm", "com.xingin.xhs", "com.sankuai.meituan", "tv.danmaku.bili"]
GOALS = ["给妈妈发消息说晚点到", "搜索火锅的做法", "点一份奶茶外卖", "看看老王更新的视频", "导航去机场", ""]


def sample_runs(n: int, seed: int = 3) -> list[dict[str, Any]]:
    """Finished runs as an agent would report them: tool receipts, then an outcome (some below the gate)."""
    rng = random.Random(seed)
    runs = []
    for i in range(n):
        run_id, device, app = f"run-{i:03d}", rng.choice(["p1", "p2"]), rng.choice(APPS)
        start = 1_700_000_000.0 + i * 600
        steps = rng.randint(1, 5)
        events = [
            {
                "run_id": run_id,
                "step": s,
                "ts": start + s,
                "tool": "launch_app" if s == 1 else rng.choice(["tap", "swipe", "type_text"]),
                "result_class": rng.choice(["ok", "ok", "error"]),
                "app_package": app if s == 1 else None,
                "note": f"第{s}步" if rng.random() < 0.3 else None,
            }
            for s in range(1, steps + 1)
        ]
        outcome = {
            "run_id": run_id,
            "ts_start": start,
            "ts_end": start + 60,
            "device_scope": f"device:{device}",
            "goal_text": rng.choice(GOALS),
            "apps": [app],
            "success": rng.random() < 0.8,
            "reason": "finished",
            "steps": steps,
            "verifier": "pass",
        }
        runs.append({"events": events, "outcome": outcome})
    return runs


def open_memory(home: Path) -> Memory:
    return Memory.open(load_config(home=home, env=HASH))


def per_run_ingest(memory: Memory, runs: list[dict[str, Any]]) -> None:
    """The live path: `run.start`, a `run.event` per receipt, `run.finish` with the outcome."""
    for run in runs:
        outcome = run["outcome"]
        memory.runs.run_start(outcome["run_id"], outcome["device_scope"].removeprefix("device:"), goal="")
        for event in run["events"]:
            memory.runs.run_event(event)
        memory.runs.run_finish(outcome["run_id"], outcome)


def term_tables(memory: Memory) -> dict[str, list[tuple[Any, ...]]]:
    db = memory.store.db
    return {t: sorted(db.execute_sql(f"SELECT * FROM {t}").fetchall()) for t in recall_terms.TABLES}


def vector_ids(memory: Memory) -> dict[str, list[str]]:
    index = memory.recall.engine.index
    return {scope: sorted(index.ids(EPISODE, scope)) for scope in sorted(index.scopes(EPISODE))}


def experience_payloads(memory: Memory) -> list[dict[str, Any]]:
    return [e.payload for e in memory.store.events("experience")]


def snapshot(memory: Memory, run_ids: list[str]) -> dict[str, Any]:
    """What a home holds of its runs: the log, the view, some timelines, term counts, vectors, a recall.

    Taken while the home is the only one open: peewee's view models are bound to the last store opened.
    """
    answer = msgspec.to_builtins(memory.recall.recall_query("搜索火锅的做法", "p1"))
    del answer["latency_ms"]
    return {
        "log": experience_payloads(memory),
        "view": episode_view(memory.store),
        "timelines": [memory.runs.get_episode(r) for r in run_ids],
        "terms": term_tables(memory),
        "vectors": vector_ids(memory),
        "recall": answer,
    }


def test_bulk_ingest_gives_what_the_per_run_path_gives(tmp_path: Path) -> None:
    runs = sample_runs(120)
    sample = ["run-000", "run-057", "run-119"]
    with open_memory(tmp_path / "per-run") as memory:
        per_run_ingest(memory, runs)
        one_by_one = snapshot(memory, sample)
    with open_memory(tmp_path / "bulk") as memory:
        report = memory.ingest.ingest_runs(runs, batch=50)  # three transactions, the last one short
        bulk = snapshot(memory, sample)
    assert report["runs"] == 120
    assert report["events"] == sum(len(r["events"]) for r in runs)
    gated = [r for r in runs if r["outcome"]["goal_text"] and r["outcome"]["steps"] >= 2]
    assert 0 < report["indexed"] == len(gated) < 120
    assert bulk == one_by_one
    assert len(bulk["view"]) == 120 and len(bulk["log"]) == 120 + report["events"]
    assert bulk["terms"]["recall_term_doc"] and bulk["recall"]["status"] == "ok"  # not empty on both sides
    assert sum(len(ids) for ids in bulk["vectors"].values()) == len(gated)


def test_a_later_outcome_of_a_revoked_run_stays_revoked_in_bulk_as_one_by_one(tmp_path: Path) -> None:
    first, again = sample_runs(2)
    again["outcome"] = {**again["outcome"], "run_id": "run-000", "goal_text": "改过的目标"}
    again["events"] = []
    views = []
    for name in ("per-run", "bulk"):
        with open_memory(tmp_path / name) as memory:
            memory.ingest.ingest_runs([first])
            memory.runs.revoke_episode("run-000", reason="错的")
            if name == "per-run":
                per_run_ingest(memory, [again])
            else:
                memory.ingest.ingest_runs([again, again])  # the same run twice in one batch: the last listing wins
            views.append(episode_view(memory.store))
            assert memory.runs.get_episode("run-000").revoked is True
            assert memory.runs.get_episode("run-000").goal_text == "改过的目标"
    assert views[0] == views[1]


def test_a_bad_run_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    with open_memory(tmp_path / "h") as memory:
        runs = sample_runs(5)
        runs[3]["events"][0]["run_id"] = "another-run"
        with pytest.raises(InvalidInput, match=r"run 3 \('run-003'\): an event names another run"):
            memory.ingest.ingest_runs(runs)
        runs[3] = {"events": []}
        with pytest.raises(InvalidInput, match="run 3: needs an outcome object"):
            memory.ingest.ingest_runs(runs)
        runs[3] = {"outcome": {"run_id": "bad\nid"}}
        with pytest.raises(InvalidInput, match=r"run 3 \('bad\\nid'\): run_id must be printable"):
            memory.ingest.ingest_runs(runs)
        assert memory.runs.count_episodes() == 0
        assert memory.store.count_events("experience") == 0


def test_ingest_tells_the_console_once(tmp_path: Path) -> None:
    with open_memory(tmp_path / "h") as memory:
        heard: list[str] = []
        memory.add_listener(lambda domain, txn: heard.append(domain))
        memory.ingest.ingest_runs(sample_runs(30), batch=10)
        assert heard == ["experience"]
        assert memory.recall.state()["lagging"] == 0
