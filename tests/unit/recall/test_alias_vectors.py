"""The `app_alias` collection (real Chroma, hash embedder) and the resolver's embedding fallback."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from recall import embedders
from recall.alias_vectors import ALIAS, SCOPE, AliasRoute, NameOf, alias_documents
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
