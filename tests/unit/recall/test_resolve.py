"""App-name resolution decisions: precision first, and always explained."""

from __future__ import annotations

import pytest

from recall.registry import AppRegistry, default_registry
from recall.resolve import ResolverIndex
from recall.verdict import Resolution
from store.appkb.entry import AppKbEntry

NOW = "2026-11-01T00:00:00+00:00"
INSTALLED = [
    ("com.tencent.mm", "微信"),
    ("com.taobao.taobao", "淘宝"),
    ("com.ss.android.ugc.aweme", "抖音"),
    ("com.ss.android.ugc.aweme.lite", "抖音极速版"),
    ("tv.danmaku.bili", "哔哩哔哩"),
    ("com.eg.android.AlipayGphone", "支付宝"),
    ("com.android.settings", "设置"),
    ("com.android.chrome", "Chrome"),
    ("com.chinamobile.mcloud", "中国移动云盘"),
    ("com.greenpoint.android.mc10086.activity", "中国移动"),
]


def device(package: str, label: str, serial: str = "d1") -> AppKbEntry:
    return AppKbEntry(label, label, package, "device", f"device:{serial}", 1.0, 0, NOW, NOW)


def alias(term: str, package: str, kind: str) -> AppKbEntry:
    return AppKbEntry(term, term, package, kind, "global", 1.0 if kind == "user" else 0.9, 0, NOW, NOW)


@pytest.fixture
def index() -> ResolverIndex:
    return ResolverIndex.build(default_registry(), [device(p, label) for p, label in INSTALLED])


def resolve(index: ResolverIndex, name: str, **kwargs: object) -> Resolution:
    kwargs.setdefault("device", "d1")
    kwargs.setdefault("installed", {p for p, _ in INSTALLED})
    return index.resolve(name, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "package", "evidence"),
    [
        ("微信", "com.tencent.mm", "exact_label"),
        ("WeChat", "com.tencent.mm", "exact_alias"),
        ("ｗｅｃｈａｔ", "com.tencent.mm", "exact_alias"),
        ("打开微信", "com.tencent.mm", "exact_label"),
        ("淘寶", "com.taobao.taobao", "exact_label"),
        ("B站", "tv.danmaku.bili", "exact_alias"),
        ("绿泡泡", "com.tencent.mm", "exact_alias"),
        ("com.tencent.mm", "com.tencent.mm", "exact_package"),
        ("chrome", "com.android.chrome", "exact_label"),
        ("中国移动云盘", "com.chinamobile.mcloud", "exact_label"),
    ],
)
def test_strong_exact_names_resolve(index: ResolverIndex, name: str, package: str, evidence: str) -> None:
    result = resolve(index, name)
    assert (result.state, result.package) == ("resolved", package)
    assert result.candidates[0].evidence == evidence and result.candidates[0].strong


@pytest.mark.parametrize(
    ("name", "package", "evidence"),
    [
        ("weixin", "com.tencent.mm", "pinyin_full"),
        ("威信", "com.tencent.mm", "pinyin_full"),
        ("zfb", "com.eg.android.AlipayGphone", "pinyin_initials"),
        ("支付包", "com.eg.android.AlipayGphone", "pinyin_full"),
        ("微信读书", "com.tencent.mm", "fuzzy"),
    ],
)
def test_weak_evidence_ranks_but_never_auto_launches(
    index: ResolverIndex, name: str, package: str, evidence: str
) -> None:
    result = resolve(index, name)
    assert result.state != "resolved" and result.package is None
    assert result.candidates[0].package == package
    assert result.candidates[0].evidence == evidence and not result.candidates[0].strong


def test_an_app_that_is_not_installed_is_never_resolved(index: ResolverIndex) -> None:
    result = resolve(index, "小红书")
    assert result.state == "unknown" and result.reason == "not_installed"
    assert result.not_installed[0].package == "com.xingin.xhs"
    assert all(c.installed for c in result.candidates)


@pytest.mark.parametrize("name", ["asdfgh", "今天天气怎么样", "", "   ", "打开"])
def test_nonsense_is_never_resolved(index: ResolverIndex, name: str) -> None:
    assert resolve(index, name).state != "resolved"


def test_name_shared_by_editions_is_settled_by_what_is_installed() -> None:
    registry = AppRegistry.from_text(
        "package\tlabel\taliases\ncom.ss.android.ugc.aweme\t抖音\t\ncom.ss.android.ugc.aweme.lite\t抖音\t\n"
    )
    index = ResolverIndex.build(registry, [])
    both = index.resolve("抖音", installed={"com.ss.android.ugc.aweme", "com.ss.android.ugc.aweme.lite"})
    assert (both.state, both.reason) == ("ambiguous", "low_margin")
    only_lite = index.resolve("抖音", installed={"com.ss.android.ugc.aweme.lite"})
    assert (only_lite.state, only_lite.package) == ("resolved", "com.ss.android.ugc.aweme.lite")


def test_user_alias_beats_a_device_label_on_the_same_name() -> None:
    entries = [device("com.tencent.mm", "微信"), alias("微信", "com.tencent.wework", "user")]
    index = ResolverIndex.build(default_registry(), entries)
    result = index.resolve("微信", device="d1", installed={"com.tencent.mm", "com.tencent.wework"})
    assert (result.state, result.package) == ("resolved", "com.tencent.wework")
    assert result.candidates[0].source == "user"


def test_device_label_beats_a_learned_alias_on_the_same_name() -> None:
    entries = [device("com.ss.android.ugc.aweme", "抖音"), alias("抖音", "com.ss.android.ugc.aweme.lite", "learned")]
    index = ResolverIndex.build(AppRegistry({}), entries)
    result = index.resolve("抖音", device="d1", installed={"com.ss.android.ugc.aweme", "com.ss.android.ugc.aweme.lite"})
    assert (result.state, result.package) == ("resolved", "com.ss.android.ugc.aweme")


def test_two_learned_aliases_for_one_name_are_ambiguous() -> None:
    entries = [alias("小黄", "com.sankuai.meituan", "learned"), alias("小黄", "me.ele", "learned")]
    result = ResolverIndex.build(AppRegistry({}), entries).resolve("小黄")
    assert (result.state, result.reason) == ("ambiguous", "low_margin")


def test_device_entries_of_another_device_do_not_apply(index: ResolverIndex) -> None:
    other = ResolverIndex.build(AppRegistry({}), [device("com.example.secret", "秘密应用", serial="d2")])
    assert other.resolve("秘密应用", device="d1").state == "unknown"
    assert other.resolve("秘密应用", device="d2").package == "com.example.secret"


def test_launch_policy_blocks_auto_launch_but_keeps_the_explanation(index: ResolverIndex) -> None:
    result = resolve(index, "支付宝", deny=lambda package: package.startswith("com.eg."))
    assert (result.state, result.reason, result.package) == ("unknown", "launch_policy", None)
    assert result.candidates[0].package == "com.eg.android.AlipayGphone"


def test_unique_package_segment_is_strong_only_when_unique() -> None:
    registry = AppRegistry.from_text(
        "package\tlabel\taliases\ncom.example.notebook\t笔记\t\ncom.other.notebook\t本子\t\n"
    )
    index = ResolverIndex.build(registry, [])
    assert index.resolve("notebook", installed={"com.example.notebook"}).state == "resolved"
    assert index.resolve("notebook", installed={"com.example.notebook", "com.other.notebook"}).state != "resolved"


def test_successes_and_recency_raise_the_prior() -> None:
    fresh = AppKbEntry("小黄", "小黄", "com.a.a", "learned", "global", 0.9, 30, NOW, NOW, last_success=NOW)
    cold = AppKbEntry("小黄", "小黄", "com.b.b", "learned", "global", 0.9, 0, NOW, NOW)
    result = ResolverIndex.build(AppRegistry({}), [cold, fresh]).resolve("小黄")
    assert result.candidates[0].package == "com.a.a"
    assert result.candidates[0].prior > result.candidates[1].prior


def test_every_answer_explains_itself(index: ResolverIndex) -> None:
    data = resolve(index, "weixin").to_dict()
    assert set(data) >= {"state", "reason", "candidates", "not_installed", "normalized"}
    first = data["candidates"][0]  # type: ignore[index]
    assert set(first) >= {"package", "evidence", "similarity", "prior", "score", "route", "installed", "strong"}
    assert len(data["candidates"]) <= 10  # type: ignore[arg-type]
