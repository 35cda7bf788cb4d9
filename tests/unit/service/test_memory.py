"""`Memory`: the learning paths of a run, resolution against the store, and change notices."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import load_config
from service.errors import InvalidInput
from service.memory.memory import Memory

MESSAGE = "launch_app 失败：未找到“小红薯”。可能的包名：com.xingin.xhs, com.xingin.xhs.lite"


def learned_terms(memory: Memory) -> set[tuple[str, str]]:
    return {(e.term, e.package) for e in memory.appkb.list_aliases(kind="learned")}


def test_implicit_alias_is_learned_from_a_failed_then_confirmed_launch(memory: Memory) -> None:
    memory.appkb.sync_inventory("d1", [("com.xingin.xhs", "小红书")])
    assert memory.appkb.note_failed_resolution("r1", "小红薯", MESSAGE) == ["com.xingin.xhs", "com.xingin.xhs.lite"]
    outcome = memory.appkb.confirm_launch(run_id="r1", device="d1", name="小红薯", package="com.xingin.xhs")
    assert [(e.term, e.label, e.kind, e.confidence) for e in outcome.learned] == [
        ("小红薯", "com.xingin.xhs", "learned", 0.9)
    ]
    event = list(memory.store.events("app_kb"))[-1]
    assert event.payload["evidence_note"] == "implicit: run<r1>"
    # once per run
    again = memory.appkb.confirm_launch(run_id="r1", device="d1", name="小红薯", package="com.xingin.xhs")
    assert again.learned == [] and again.successes == 1


def test_implicit_evidence_never_outlives_its_run(memory: Memory) -> None:
    memory.appkb.note_failed_resolution("r1", "小红薯", MESSAGE)
    memory.appkb.end_run_evidence("r1")
    outcome = memory.appkb.confirm_launch(run_id="r1", device=None, name="小红薯", package="com.xingin.xhs")
    assert outcome.learned[0].label == "小红书"  # learned by label, not by the dropped evidence
    memory.appkb.note_failed_resolution("r2", "红书呀", MESSAGE)
    other_run = memory.appkb.confirm_launch(run_id="r3", device=None, name="红书呀", package="com.xingin.xhs")
    assert all(e.label != "com.xingin.xhs" for e in other_run.learned)


def test_implicit_evidence_must_name_exactly_the_launched_package(memory: Memory) -> None:
    memory.appkb.note_failed_resolution("r1", "某应用", "候选：com.example.one")
    outcome = memory.appkb.confirm_launch(run_id="r1", device=None, name="某应用", package="com.example.two")
    assert outcome.learned == []  # no canonical label for com.example.two either
    assert learned_terms(memory) == set()


def test_implicit_alias_off_writes_nothing(tmp_path: Path) -> None:
    config = load_config(home=tmp_path / "h", env={"JIYI_IMPLICIT_ALIAS": "off"})
    with Memory.open(config) as memory:
        assert memory.appkb.note_failed_resolution("r1", "小红薯", MESSAGE) == []
        memory.appkb.confirm_launch(run_id="r1", device=None, name="小红薯", package="com.example.nolabel")
        assert learned_terms(memory) == set()


def test_app_kb_off_writes_nothing(tmp_path: Path) -> None:
    with Memory.open(load_config(home=tmp_path / "h", env={"JIYI_APP_KB": "off"})) as memory:
        outcome = memory.appkb.confirm_launch(run_id="r1", device=None, name="绿泡泡", package="com.tencent.mm")
        assert outcome.learned == [] and memory.appkb.count_aliases() == 0
        with pytest.raises(InvalidInput, match="JIYI_APP_KB=off"):
            memory.appkb.learn_alias("绿泡泡", "com.tencent.mm")


def test_learned_by_label_when_the_spoken_name_differs(memory: Memory) -> None:
    memory.appkb.sync_inventory("d1", [("com.tencent.mm", "微信")])
    same = memory.appkb.confirm_launch(run_id="r1", device="d1", name="微信", package="com.tencent.mm")
    assert same.learned == [] and same.successes == 1
    other = memory.appkb.confirm_launch(run_id="r1", device="d1", name="绿色聊天", package="com.tencent.mm")
    assert [(e.term, e.label, e.success_count) for e in other.learned] == [("绿色聊天", "微信", 1)]
    resolved = memory.appkb.resolve_app("绿色聊天", device="d1")
    assert (resolved.state, resolved.package) == ("resolved", "com.tencent.mm")


def test_sensitive_spoken_names_are_never_written(memory: Memory) -> None:
    memory.appkb.note_failed_resolution("r1", "13812345678", MESSAGE)
    outcome = memory.appkb.confirm_launch(run_id="r1", device=None, name="13812345678", package="com.xingin.xhs")
    assert outcome.learned == [] and memory.appkb.count_aliases() == 0


def test_resolution_sees_edits_at_once(memory: Memory) -> None:
    memory.appkb.sync_inventory("d1", [("com.tencent.mm", "微信"), ("com.tencent.wework", "企业微信")])
    assert memory.appkb.resolve_app("老板的软件", device="d1").state == "unknown"
    memory.appkb.learn_alias("老板的软件", "com.tencent.wework")
    assert memory.appkb.resolve_app("老板的软件", device="d1").package == "com.tencent.wework"
    memory.appkb.forget_alias("老板的软件")
    assert memory.appkb.resolve_app("老板的软件", device="d1").package is None


def test_learn_alias_warns_when_no_device_has_the_app(memory: Memory) -> None:
    memory.appkb.sync_inventory("d1", [("com.tencent.mm", "微信")])
    assert memory.appkb.learn_alias("外卖", "me.ele").warnings
    assert not memory.appkb.learn_alias("绿泡泡", "com.tencent.mm").warnings


def test_listeners_hear_each_committed_change(memory: Memory) -> None:
    heard: list[tuple[str, int]] = []
    memory.add_listener(lambda domain, txn: heard.append((domain, txn)))
    result = memory.appkb.learn_alias("绿泡泡", "com.tencent.mm")
    memory.appkb.undo_change(result.result.txn)
    assert [d for d, _ in heard] == ["app_kb", "app_kb"]
    assert heard[0][1] == result.result.txn


def test_bad_arguments_are_refused(memory: Memory) -> None:
    with pytest.raises(InvalidInput):
        memory.appkb.resolve_app(123)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        memory.appkb.resolve_app("微信", device="")
    with pytest.raises(InvalidInput, match="actor"):
        memory.appkb.learn_alias("x", "com.a.b", actor="robot")


def test_health_reports_counts(memory: Memory) -> None:
    memory.appkb.sync_inventory("d1", [("com.tencent.mm", "微信")])
    health = memory.health()
    assert health["app_kb_entries"] == 1 and health["devices"] == ["d1"] and health["rag_mode"] == "shadow"


def test_the_resolver_index_follows_edits_incrementally(memory: Memory) -> None:
    """After many edits the incrementally kept index answers exactly as a fresh one."""
    import random

    from recall.resolve import ResolverIndex

    rng = random.Random(3)
    names = ["微信", "绿泡泡", "小红书", "红书", "淘宝", "外卖", "老板的软件"]
    packages = ["com.tencent.mm", "com.xingin.xhs", "com.taobao.taobao", "me.ele", "com.tencent.wework"]
    memory.appkb.sync_inventory("d1", [(p, rng.choice(names)) for p in packages])
    first = memory.appkb.resolver_index()
    for _ in range(120):
        action = rng.random()
        name, package = rng.choice(names), rng.choice(packages)
        if action < 0.4:
            memory.appkb.learn_alias(name, package)
        elif action < 0.6:
            memory.appkb.forget_alias(name)
        elif action < 0.8:
            memory.appkb.sync_inventory("d1", [(p, rng.choice(names)) for p in rng.sample(packages, 3)])
        else:
            memory.appkb.confirm_launch(run_id="r", device="d1", name=name, package=package)
        memory.appkb.resolver_index()
    kept = memory.appkb.resolver_index()
    assert kept is first  # updated in place, never rebuilt
    fresh = ResolverIndex.build(memory.registry, memory.appkb.list_aliases(include_stale=False))
    installed = set(memory.appkb.installed("d1") or {})
    for name in [*names, "weixin", "hongshu", "waimai"]:
        a = kept.resolve(name, device="d1", installed=installed).to_dict()
        b = fresh.resolve(name, device="d1", installed=installed).to_dict()
        a.pop("elapsed_ms"), b.pop("elapsed_ms")
        assert a == b, name


def test_a_resolve_is_warm_only_while_its_index_and_route_are_current(tmp_path: Path) -> None:
    """The socket answers a warm resolve on its own thread, so warm must never mean "about to load a model"."""
    with Memory.open(load_config(home=tmp_path / "home", env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        assert not memory.appkb.resolve_is_warm()  # nothing built yet
        memory.appkb.resolve_app("不存在的应用xyz")  # an unknown name: builds the index and the embedding route
        assert memory.appkb.resolve_is_warm()
        memory.appkb.learn_alias("绿泡泡", "com.tencent.mm")
        assert not memory.appkb.resolve_is_warm()  # the App-KB moved on: the next resolve brings the index up
        assert memory.appkb.resolve_app("绿泡泡").package == "com.tencent.mm"
        memory.appkb.resolve_app("不存在的应用xyz")
        assert memory.appkb.resolve_is_warm()
