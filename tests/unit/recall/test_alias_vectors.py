"""The `app_alias` collection (real Chroma, hash embedder) and the resolver's embedding fallback."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from recall import embedders
from recall.alias_vectors import ALIAS, SCOPE, AliasRoute, NameOf, QueryVectors, alias_documents
from recall.embedders import get_embedder
from recall.registry import AppRegistry
from recall.vectors import VectorIndex
from service.config import load_config
from service.memory.memory import Memory

REGISTRY = AppRegistry.from_text(
    "package\tlabel\taliases\n"
    "com.tencent.mm\t微信\tWeChat|weixin\n"
    "com.sankuai.meituan\t美团\t美团外卖\n"
    "com.example.latin\tLatinOnly\t\n",
    "package\tname\ncom.tencent.mm\t绿泡泡\n",
)


def test_documents_follow_the_reference_shape() -> None:
    docs = {d.id: d for d in alias_documents(REGISTRY, [NameOf("外卖神器", "com.sankuai.meituan", "美团")])}
    assert set(docs) == {"com.tencent.mm", "com.sankuai.meituan"}  # no Chinese name: exact matching only
    assert docs["com.tencent.mm"].text == "微信 | 微信 绿泡泡 | 微信 | com.tencent.mm"
    assert "外卖神器" in docs["com.sankuai.meituan"].text


def test_sync_embeds_only_what_changed_and_removes_what_went(tmp_path: Path) -> None:
    embedder = get_embedder("hash")
    route = AliasRoute(VectorIndex(tmp_path, embedder), embedder)
    first = route.sync(alias_documents(REGISTRY, []))
    assert first == {"documents": 2, "embedded": 2, "removed": 0}
    again = route.sync(alias_documents(REGISTRY, [NameOf("外卖神器", "com.sankuai.meituan", "美团")]))
    assert again == {"documents": 2, "embedded": 1, "removed": 0}  # only meituan's text changed
    fewer = route.sync([d for d in alias_documents(REGISTRY, []) if d.id == "com.tencent.mm"])
    assert fewer["removed"] == 1 and route.index.ids(ALIAS, SCOPE) == ["com.tencent.mm"]
    hits = route("绿泡泡")
    assert hits and hits[0][1] == "com.tencent.mm" and hits[0][0] == "微信"


def test_resolution_asks_the_vectors_only_when_nothing_else_knows_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hashed = embedders.CHOICES["hash"]
    loose = replace(hashed, tuning=replace(hashed.tuning, alias_min_similarity=0.0))
    monkeypatch.setitem(embedders.CHOICES, "hash", loose)  # offer every neighbour (the hash model is weak)
    with Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}), REGISTRY) as memory:
        memory.appkb.sync_inventory("p1", [("com.tencent.mm", "微信"), ("com.sankuai.meituan", "美团")])
        known = memory.appkb.resolve_app("微信", device="p1")
        assert known.state == "resolved" and all(c.route != "embedding" for c in known.candidates)
        vague = memory.appkb.resolve_app("量子纠缠", device="p1")
        assert vague.candidates and {c.route for c in vague.candidates} == {"embedding"}
        assert vague.state != "resolved"  # embedding evidence is weak: never resolved on its own
    off = {"JIYI_EMBED_MODEL": "hash", "JIYI_RESOLVE_EMBEDDING": "off"}
    with Memory.open(load_config(home=tmp_path / "h", env=off), REGISTRY) as memory:
        assert memory.appkb.resolve_app("量子纠缠", device="p1").candidates == []


@pytest.fixture
def loose_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    hashed = embedders.CHOICES["hash"]
    loose = replace(hashed, tuning=replace(hashed.tuning, alias_min_similarity=0.0))
    monkeypatch.setitem(embedders.CHOICES, "hash", loose)  # offer every neighbour (the hash model is weak)


def count_queries(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The texts the embedder is asked to embed as queries, call by call."""
    embedder = memory.recall.embedder
    real = embedder.queries
    asked: list[list[str]] = []

    def queries(texts: Sequence[str]) -> np.ndarray:
        asked.append(list(texts))
        return real(texts)

    monkeypatch.setattr(embedder, "queries", queries)
    return asked


@pytest.mark.usefixtures("loose_hash")
def test_an_unknown_name_is_embedded_once_and_a_changed_app_kb_is_still_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    apps = [("com.tencent.mm", "微信"), ("com.sankuai.meituan", "美团")]
    with Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}), REGISTRY) as memory:
        memory.appkb.sync_inventory("p1", apps)
        asked = count_queries(memory, monkeypatch)
        first = memory.appkb.resolve_app("量子纠缠", device="p1")
        assert {c.route for c in first.candidates} == {"embedding"}
        again = memory.appkb.resolve_app("打开量子纠缠", device="p1")  # the same name once normalized
        memory.desk.remember_interaction("i1", user_text="你好", assistant_text="好")  # a write elsewhere
        after_write = memory.appkb.resolve_app("量子纠缠", device="p1")
        assert asked == [["量子纠缠"]]
        packages = [c.package for c in first.candidates]
        assert [c.package for c in again.candidates] == packages == [c.package for c in after_write.candidates]

        memory.appkb.sync_inventory("p1", [*apps, ("com.example.weather", "天气预报")])
        changed = memory.appkb.resolve_app("量子纠缠", device="p1")
        assert "com.example.weather" in {c.package for c in changed.candidates}  # the new App-KB's vectors
        assert asked == [["量子纠缠"]]  # the App-KB changed; the name's vector did not


@pytest.mark.parametrize(
    "name", ["量", "!!!", "？？", "帮我把昨天晚上在小红书上看到的那家火锅店的地址发给我妈妈并提醒她周末别忘了去"]
)
def test_names_that_cannot_be_an_app_never_reach_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    with Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "hash"}), REGISTRY) as memory:
        memory.appkb.sync_inventory("p1", [("com.tencent.mm", "微信")])
        asked = count_queries(memory, monkeypatch)
        assert memory.appkb.resolve_app(name, device="p1").state == "unknown"
        assert asked == []


def test_query_vectors_are_a_bounded_cache_per_embedder() -> None:
    embedder = get_embedder("hash")
    vectors = QueryVectors(embedder, size=2)
    first = vectors("微信")
    vectors("美团")
    assert vectors("微信") is first  # cached
    vectors("淘宝")  # evicts the least recently used: 美团
    assert vectors("微信") is first and len(vectors._cache) == 2
    assert np.allclose(vectors("美团"), embedder.queries(["美团"])[0])
