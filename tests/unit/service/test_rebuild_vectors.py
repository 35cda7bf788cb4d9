"""`rebuild-vec` while agents write: writers are answered mid-rebuild, and the index ends exactly as the archive."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from recall.embedders import Embedder
from recall.episode_recall import EPISODE, episode_document
from service.config import load_config
from service.memory.memory import Memory
from store.episodes import recall_terms
from store.episodes.episode_filter import EpisodeFilter

GOALS = ["在小红书搜索火锅店", "美团点外卖", "打开京东买一台电视机", "用高德地图导航回家"]
PACKAGES = ["com.xingin.xhs", "com.sankuai.meituan", "com.jingdong.app.mall", "com.autonavi.minimap"]


class HeldEmbedder:
    """The hash embedder, except that the rebuild's second embedding call waits until the test lets it go.

    Only the thread named `rebuilder` is held: the writers' own calls pass straight through.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.slug = getattr(inner, "slug", "x")
        self.calls = 0
        self.reached = threading.Event()
        self.release = threading.Event()

    @property
    def id(self) -> str:
        return self.inner.id

    @property
    def dim(self) -> int:
        return self.inner.dim

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.queries(texts)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        if threading.current_thread().name == "rebuilder":
            self.calls += 1
            if self.calls == 2:
                self.reached.set()
                assert self.release.wait(60), "the test never let the rebuild go on"
        return self.inner.passages(texts)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    opened = Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}))
    now = time.time()
    opened.runs.archive_episodes(
        [
            {
                "run_id": f"e{i:04d}",
                "ts_end": now - 3600 + i,
                "device_scope": "device:d1",
                "goal_text": GOALS[i % 4],
                "apps": [PACKAGES[i % 4]],
                "success": True,
                "steps": 1 if i % 10 == 9 else 3,  # every tenth below the gate: archived, never indexed
            }
            for i in range(600)
        ]
    )
    yield opened
    opened.close()


def indexed(memory: Memory) -> list[str]:
    return sorted(memory.recall.engine.index.ids(EPISODE, "device:d1"))


def should_hold(memory: Memory) -> list[str]:
    live = memory.runs.list_episodes(EpisodeFilter(revoked=False), limit=10_000)
    return sorted(str(r["run_id"]) for r in live if memory.recall.passes_gate(r))


def finish(memory: Memory, run_id: str, goal: str, package: str) -> dict[str, Any]:
    memory.runs.run_start(run_id, "d1", goal=goal)
    return dict(memory.runs.run_finish(run_id, {"success": True, "apps": [package], "steps": 4}))


def test_writers_are_answered_mid_rebuild_and_the_index_ends_as_the_archive(memory: Memory) -> None:
    index = memory.recall.engine.index
    held = HeldEmbedder(index.embedder)
    index.embedder = held
    outcome: dict[str, Any] = {}

    def rebuild() -> None:
        outcome["result"] = memory.recall.rebuild_vectors()

    rebuilder = threading.Thread(target=rebuild, name="rebuilder")
    rebuilder.start()
    try:
        assert held.reached.wait(60), "the rebuild never reached its second slice"
        # The rebuild is held inside its second slice (e0256…e0511, read before any of this): the first
        # slice is indexed, the rest not yet. Each call below returns while the rebuild is still under way.
        before = finish(memory, "a-early", GOALS[0], PACKAGES[0])  # sorts before every page: only its writer
        after = finish(memory, "z-late", GOALS[1], PACKAGES[1])  # sorts after: its writer and the last page
        memory.runs.revoke_episode("e0004")  # indexed by the first slice, then revoked
        memory.runs.revoke_episode("e0300")  # read as live by the held slice, revoked before it is written
        memory.runs.revoke_episode("e0550")  # revoked before its slice is read
        finish(memory, "e0301", GOALS[2], PACKAGES[2])  # a new outcome for a run the held slice read
        memory.runs.revoke_episode("a-early")  # finished and revoked during the rebuild
        assert rebuilder.is_alive() and "result" not in outcome
        assert before["archived"] and after["archived"] and after["indexed"]
    finally:
        held.release.set()
        rebuilder.join(120)
    assert not rebuilder.is_alive()
    result = outcome["result"]
    assert result["reconciled"] >= 5

    expected = should_hold(memory)
    assert "z-late" in expected and "a-early" not in expected and "e0300" not in expected
    ids = indexed(memory)
    assert ids == expected  # every live indexable run, each once, and nothing else
    assert sorted(recall_terms.run_ids(memory.store, "device:d1")) == expected
    # The vector of the run re-finished mid-rebuild is its new outcome's, not the one the slice read.
    collection = index.collection(EPISODE, "device:d1", create=False)
    assert collection is not None
    got = collection.get(ids=["e0301"], include=["metadatas"])
    assert got["metadatas"][0]["source_hash"] == _episode_hash(memory, "e0301")


def _episode_hash(memory: Memory, run_id: str) -> str:
    record = memory.recall.for_index(memory.runs.get_episode(run_id))
    return episode_document(record).source_hash


def test_a_rebuild_alone_indexes_every_live_episode_through_the_gate(memory: Memory) -> None:
    memory.runs.revoke_episode("e0010")
    seen: list[tuple[int, int]] = []
    result = memory.recall.rebuild_vectors(progress=lambda done, total: seen.append((done, total)))
    assert indexed(memory) == should_hold(memory)
    assert len(indexed(memory)) == 599 - 60  # 600, less one revoked, less the 60 below the gate
    assert seen[-1] == (599, 599) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert result["reconciled"] == 0 and result["episodes"] == 599
