"""App-KB semantics (docs/cli.md, App-KB aliases) over a real store."""

from __future__ import annotations

import contextlib
import random

import pytest

from store.appkb import history as appkb_history
from store.appkb import kb as appkb
from store.appkb.entry import AppKbEntry, normalize_term
from store.core.database import Store
from store.core.errors import Conflict, InvalidInput, NotFound, SensitiveContent
from store.core.redaction.redactor import Redactor
from tests.conftest import put_entries

NOW = "2026-11-01T00:00:00+00:00"
EARLY = "2025-01-01T00:00:00+00:00"


def learned(term: str, package: str, first_seen: str = NOW) -> AppKbEntry:
    return AppKbEntry(term, package, package, "learned", "global", 0.9, 1, first_seen, NOW)


def kinds_and_packages(store: Store, term: str) -> set[tuple[str, str, str]]:
    return {(e.kind, e.package, e.scope) for e in appkb.entries_for_term(store, term)}


def test_learn_alias_replaces_global_learned_and_user_but_not_device(store: Store, redactor: Redactor) -> None:
    appkb.sync_inventory(store, "d1", [("com.tencent.mm", "小红书")], actor="agent", redactor=redactor)
    put_entries(store, learned("小红书", "com.old.app", EARLY), actor="agent")
    put_entries(store, AppKbEntry("小红书", "x", "com.other.app", "user", "global", 1.0, 0, NOW, NOW), actor="user")
    result = appkb.learn_alias(store, "小红书", "com.xingin.xhs", actor="user", redactor=redactor)
    assert result.changed
    assert {(r.kind, r.package) for r in result.replaced} == {("learned", "com.old.app"), ("user", "com.other.app")}
    assert kinds_and_packages(store, "小红书") == {
        ("user", "com.xingin.xhs", "global"),
        ("device", "com.tencent.mm", "device:d1"),
    }
    entry = result.entry
    assert (entry.term, entry.label, entry.confidence, entry.success_count) == ("小红书", "小红书", 1.0, 0)
    assert entry.first_seen == EARLY  # the earlier first_seen of what it replaced
    event = list(store.events("app_kb"))[-1]
    assert event.type == "alias_user_set" and event.payload["changed"] is True
    assert sorted(r["package"] for r in event.payload["replaced"]) == ["com.old.app", "com.other.app"]


def test_learn_alias_again_logs_unchanged(store: Store, redactor: Redactor) -> None:
    appkb.learn_alias(store, "绿泡泡", "com.tencent.mm", actor="user", redactor=redactor)
    again = appkb.learn_alias(store, "绿 泡泡", "com.tencent.mm", actor="user", redactor=redactor)
    assert not again.changed
    events = list(store.events("app_kb"))
    assert [e.payload["changed"] for e in events] == [True, False]
    assert len(appkb.list_entries(store)) == 1


def test_learn_alias_matches_terms_by_normalized_form(store: Store, redactor: Redactor) -> None:
    appkb.learn_alias(store, "WeChat", "com.tencent.mm", actor="user", redactor=redactor)
    appkb.learn_alias(store, "ｗｅ ｃｈａｔ", "com.other.chat", actor="user", redactor=redactor)
    assert [(e.term, e.package) for e in appkb.list_entries(store)] == [("ｗｅ ｃｈａｔ", "com.other.chat")]


@pytest.mark.parametrize(
    ("name", "package", "error"),
    [
        ("", "com.tencent.mm", InvalidInput),
        ("   ", "com.tencent.mm", InvalidInput),
        ("微信", "notapackage", InvalidInput),
        ("微信", "com..mm", InvalidInput),
        ("微信", "1com.tencent", InvalidInput),
        ("x" * 65, "com.tencent.mm", InvalidInput),
        ("我的密码", "com.tencent.mm", SensitiveContent),
        ("13812345678", "com.tencent.mm", SensitiveContent),
        ("me@example.com", "com.tencent.mm", SensitiveContent),
        ("token=abc123", "com.tencent.mm", SensitiveContent),
        ("a\x00b", "com.tencent.mm", InvalidInput),
    ],
)
def test_bad_or_sensitive_aliases_are_refused_and_nothing_is_lost(
    store: Store, redactor: Redactor, name: str, package: str, error: type[Exception]
) -> None:
    appkb.learn_alias(store, "绿泡泡", "com.tencent.mm", actor="user", redactor=redactor)
    before = (appkb.list_entries(store), store.count_events())
    with pytest.raises(error):
        appkb.learn_alias(store, name, package, actor="user", redactor=redactor)
    assert (appkb.list_entries(store), store.count_events()) == before


def test_forget_alias_removes_user_and_learned_and_keeps_device(store: Store, redactor: Redactor) -> None:
    appkb.sync_inventory(store, "d1", [("com.xingin.xhs", "小红书")], actor="agent", redactor=redactor)
    put_entries(store, learned("小红书", "com.old.app"), actor="agent")
    appkb.learn_alias(store, "小红书", "com.xingin.xhs", actor="user", redactor=redactor)
    put_entries(store, learned("小红书", "com.again.app"), actor="agent")
    result = appkb.forget_alias(store, "小红书", actor="user", redactor=redactor)
    assert {(r.kind, r.package) for r in result.removed} == {("user", "com.xingin.xhs"), ("learned", "com.again.app")}
    assert kinds_and_packages(store, "小红书") == {("device", "com.xingin.xhs", "device:d1")}


def test_forget_alias_with_nothing_to_forget_is_still_logged(store: Store, redactor: Redactor) -> None:
    result = appkb.forget_alias(store, "不存在", actor="user", redactor=redactor)
    assert result.removed == []
    event = list(store.events("app_kb"))[-1]
    assert (event.type, event.payload["removed"], event.payload["term"]) == ("alias_forgotten", [], "不存在")


def test_inventory_sync_marks_missing_apps_stale_and_never_deletes(store: Store, redactor: Redactor) -> None:
    first = appkb.sync_inventory(
        store, "d1", [("com.tencent.mm", "微信"), ("com.taobao.taobao", "淘宝")], actor="agent", redactor=redactor
    )
    assert (first.added, first.staled) == (2, 0)
    appkb.record_success(store, "微信", "com.tencent.mm", device="d1", actor="agent")
    second = appkb.sync_inventory(store, "d1", [("com.taobao.taobao", "淘宝")], actor="agent", redactor=redactor)
    assert (second.added, second.unchanged, second.staled) == (0, 1, 1)
    wechat = next(e for e in appkb.list_entries(store) if e.package == "com.tencent.mm")
    assert wechat.stale and wechat.success_count == 1
    assert appkb.installed(store, "d1") == {"com.taobao.taobao": "淘宝"}
    third = appkb.sync_inventory(
        store, "d1", [("com.tencent.mm", "微信"), ("com.taobao.taobao", "淘宝")], actor="agent", redactor=redactor
    )
    assert third.updated == 1
    back = next(e for e in appkb.list_entries(store) if e.package == "com.tencent.mm")
    assert not back.stale and back.success_count == 1 and back.first_seen == wechat.first_seen


def test_unchanged_resync_writes_no_events(store: Store, redactor: Redactor) -> None:
    apps = [("com.tencent.mm", "微信"), ("com.taobao.taobao", "淘宝")]
    appkb.sync_inventory(store, "d1", apps, actor="agent", redactor=redactor)
    count = store.count_events()
    report = appkb.sync_inventory(store, "d1", apps, actor="agent", redactor=redactor)
    assert report.unchanged == 2 and store.count_events() == count


def test_inventory_sync_rejects_bad_rows_and_bad_serials(store: Store, redactor: Redactor) -> None:
    report = appkb.sync_inventory(
        store,
        "d1",
        [("not a package", "x"), ("com.ok.app", ""), ("com.ok.two", "13812345678")],
        actor="agent",
        redactor=redactor,
    )
    assert report.rejected == ["not a package"]
    labels = {e.package: e.label for e in appkb.list_entries(store)}
    assert labels == {"com.ok.app": "com.ok.app", "com.ok.two": "com.ok.two"}  # empty or sensitive label → package
    with pytest.raises(InvalidInput, match="serial"):
        appkb.sync_inventory(store, "has space", [], actor="agent", redactor=redactor)


def test_inventories_are_kept_per_device(store: Store, redactor: Redactor) -> None:
    appkb.sync_inventory(store, "d1", [("com.tencent.mm", "微信")], actor="agent", redactor=redactor)
    appkb.sync_inventory(store, "d2", [("com.taobao.taobao", "淘宝")], actor="agent", redactor=redactor)
    assert appkb.devices(store) == ["d1", "d2"]
    assert [e.package for e in appkb.list_entries(store, device="d1")] == ["com.tencent.mm"]
    assert appkb.installed(store, "d3") is None


def test_record_success_counts_only_matching_live_entries(store: Store, redactor: Redactor) -> None:
    appkb.sync_inventory(store, "d1", [("com.tencent.mm", "微信")], actor="agent", redactor=redactor)
    appkb.sync_inventory(store, "d2", [("com.tencent.mm", "微信")], actor="agent", redactor=redactor)
    assert appkb.record_success(store, "微信", "com.tencent.mm", device="d1", actor="agent") == 1
    assert appkb.record_success(store, "微信", "com.other.app", device="d1", actor="agent") == 0
    by_scope = {e.scope: e for e in appkb.list_entries(store)}
    assert by_scope["device:d1"].success_count == 1 and by_scope["device:d1"].last_success
    assert by_scope["device:d2"].success_count == 0 and by_scope["device:d2"].last_success is None


def test_learn_observed_skips_package_names_and_sensitive_names(store: Store, redactor: Redactor) -> None:
    kwargs = {"label": "微信", "note": "label: run<r1>", "actor": "agent", "redactor": redactor}
    assert appkb.learn_observed(store, "com.tencent.mm", "com.tencent.mm", **kwargs) is None  # type: ignore[arg-type]
    assert appkb.learn_observed(store, "验证码123456", "com.tencent.mm", **kwargs) is None  # type: ignore[arg-type]
    entry = appkb.learn_observed(store, "绿泡泡", "com.tencent.mm", **kwargs)  # type: ignore[arg-type]
    assert entry is not None and (entry.kind, entry.confidence, entry.success_count, entry.scope) == (
        "learned",
        0.9,
        1,
        "global",
    )
    assert list(store.events("app_kb"))[-1].payload["evidence_note"] == "label: run<r1>"


def test_packages_named_in_a_failure_message() -> None:
    message = "未找到应用“小红薯”。候选：com.xingin.xhs, com.xingin.xhs.lite；或 com.xingin.xhs。"
    assert appkb.packages_named_in(message) == ["com.xingin.xhs", "com.xingin.xhs.lite"]


def test_history_lists_every_change_of_a_name_newest_first(store: Store, redactor: Redactor) -> None:
    put_entries(store, learned("绿泡泡", "com.old.app"), actor="agent")
    appkb.learn_alias(store, "绿泡泡", "com.tencent.mm", actor="user", redactor=redactor)
    appkb.learn_alias(store, "别的", "com.tencent.mm", actor="user", redactor=redactor)
    appkb.forget_alias(store, "绿泡泡", actor="user", redactor=redactor)
    items = appkb_history.history(store, "绿泡泡")
    assert [i.type for i in items] == ["alias_forgotten", "alias_user_set", "upsert"]
    assert [i.actor for i in items] == ["user", "user", "agent"]


def test_undo_restores_what_a_user_edit_replaced_and_redo_reapplies(store: Store, redactor: Redactor) -> None:
    put_entries(store, learned("绿泡泡", "com.old.app", EARLY), actor="agent")
    before = appkb.entries_for_term(store, "绿泡泡")
    edit = appkb.learn_alias(store, "绿泡泡", "com.tencent.mm", actor="user", redactor=redactor)
    after = appkb.entries_for_term(store, "绿泡泡")
    undone = appkb_history.undo(store, edit.txn, actor="user")
    assert appkb.entries_for_term(store, "绿泡泡") == before
    assert [e.package for e in undone.removed] == ["com.tencent.mm"]
    assert [e.package for e in undone.restored] == ["com.old.app"]
    events = list(store.events("app_kb", txn=undone.txn))
    assert all(e.payload["undo_of"] == edit.txn for e in events)
    appkb_history.undo(store, undone.txn, actor="user")  # redo
    assert appkb.entries_for_term(store, "绿泡泡") == after


def test_undo_after_a_later_change_is_a_conflict(store: Store, redactor: Redactor) -> None:
    first = appkb.learn_alias(store, "绿泡泡", "com.tencent.mm", actor="user", redactor=redactor)
    appkb.learn_alias(store, "绿泡泡", "com.other.app", actor="user", redactor=redactor)
    count = store.count_events()
    with pytest.raises(Conflict, match="undo that first"):
        appkb_history.undo(store, first.txn, actor="user")
    assert store.count_events() == count


def test_undo_of_nothing(store: Store, redactor: Redactor) -> None:
    with pytest.raises(NotFound):
        appkb_history.undo(store, 999, actor="user")
    forgot = appkb.forget_alias(store, "无", actor="user", redactor=redactor)
    with pytest.raises(InvalidInput, match="nothing to undo"):
        appkb_history.undo(store, forgot.txn, actor="user")


def test_rebuild_reproduces_the_view_after_random_edits(store: Store, redactor: Redactor) -> None:
    rng = random.Random(7)
    names = ["微信", "绿泡泡", "小红书", "WeChat", "淘宝"]
    packages = ["com.tencent.mm", "com.xingin.xhs", "com.taobao.taobao", "com.other.app"]
    txns = []
    for _ in range(300):
        action = rng.choice(["learn", "forget", "sync", "success", "observe", "undo"])
        name, package = rng.choice(names), rng.choice(packages)
        if action == "learn":
            txns.append(appkb.learn_alias(store, name, package, actor="user", redactor=redactor).txn)
        elif action == "forget":
            appkb.forget_alias(store, name, actor="user", redactor=redactor)
        elif action == "sync":
            apps = [(p, rng.choice(names)) for p in rng.sample(packages, rng.randint(0, 4))]
            appkb.sync_inventory(
                store, rng.choice(["d1", "d2"]), apps, actor="agent", redactor=redactor, touch_after_hours=0
            )
        elif action == "success":
            appkb.record_success(store, name, package, device="d1", actor="agent")
        elif action == "observe":
            appkb.learn_observed(store, name, package, label=name, note="", actor="agent", redactor=redactor)
        elif txns:
            with contextlib.suppress(Conflict, InvalidInput):
                appkb_history.undo(store, rng.choice(txns), actor="user")
    live = appkb.list_entries(store)
    store.rebuild()
    assert appkb.list_entries(store) == live
    assert len({normalize_term(e.term) for e in live}) > 1


def test_trust_order_lists_user_then_device_then_learned(store: Store, redactor: Redactor) -> None:
    appkb.sync_inventory(store, "d1", [("com.tencent.mm", "微信")], actor="agent", redactor=redactor)
    put_entries(store, learned("红书", "com.xingin.xhs"), actor="agent")
    appkb.learn_alias(store, "绿泡泡", "com.tencent.mm", actor="user", redactor=redactor)
    assert [e.kind for e in appkb.list_entries(store, order="trust")] == ["user", "device", "learned"]
    assert [e.kind for e in appkb.list_entries(store)] == ["device", "learned", "user"]  # the reference's order
    with pytest.raises(InvalidInput, match="order"):
        appkb.list_entries(store, order="random")


def test_text_filter_matches_pinyin_too(store: Store, redactor: Redactor) -> None:
    appkb.sync_inventory(
        store, "d1", [("com.tencent.mm", "微信"), ("com.xingin.xhs", "小红书")], actor="agent", redactor=redactor
    )
    assert [e.package for e in appkb.list_entries(store, text="weixin")] == ["com.tencent.mm"]
    assert [e.package for e in appkb.list_entries(store, text="xhs")] == ["com.xingin.xhs"]
    assert [e.package for e in appkb.list_entries(store, text="红书")] == ["com.xingin.xhs"]


@pytest.mark.parametrize("order", ["reference", "trust"])
def test_keyset_pages_neither_repeat_nor_skip_an_entry_while_aliases_arrive(
    store: Store, redactor: Redactor, order: str
) -> None:
    """Paged after the last entry held (its storage key), every entry comes once in the listing's order,
    even when aliases are learned between two pages (one sorting before the page boundary, one after), and
    among entries of one name (微信 from d1's inventory and the user's own)."""
    apps = [("com.tencent.mm", "微信"), ("com.taobao.taobao", "淘宝"), ("com.xingin.xhs", "小红书")]
    appkb.sync_inventory(store, "d1", apps, actor="agent", redactor=redactor)
    appkb.sync_inventory(store, "d2", apps[:1], actor="agent", redactor=redactor)
    for name, package in [("WeChat", "com.tencent.mm"), ("微信", "com.tencent.mm"), ("小红薯", "com.xingin.xhs")]:
        appkb.learn_alias(store, name, package, actor="user", redactor=redactor)
    before = [e.key for e in appkb.list_entries(store, order=order)]
    assert len(before) == len(set(before)) == 7  # 微信 twice on d1's list (device, user): the kind breaks the tie
    held = [e.key for e in appkb.list_entries(store, order=order, limit=3)]
    boundary = held[-1]
    # Between two pages, aliases arrive: 0微信 sorts first among the user's, 龙 last of all names.
    for name in ("0微信", "龙"):
        appkb.learn_alias(store, name, "com.tencent.mm", actor="user", redactor=redactor)
    now = [e.key for e in appkb.list_entries(store, order=order)]
    while page := appkb.list_entries(store, order=order, limit=3, after=held[-1]):
        held += [e.key for e in page]
    assert held == before[:3] + now[now.index(boundary) + 1 :]  # after the boundary: the listing as it is now
    assert len(held) == len(set(held)) and set(before) <= set(held)  # nothing twice, nothing held skipped
    assert ("龙", "com.tencent.mm", "user", "global") in held


def test_a_keyset_page_in_trust_order_is_not_shifted_by_an_alias_learned_before_it(
    store: Store, redactor: Redactor
) -> None:
    apps = [(f"com.example.app{i}", f"应用{i}") for i in range(6)]
    appkb.sync_inventory(store, "d1", apps, actor="agent", redactor=redactor)
    first = appkb.list_entries(store, order="trust", limit=3)
    appkb.learn_alias(store, "0号", "com.example.app0", actor="user", redactor=redactor)  # the user's come first
    by_key = appkb.list_entries(store, order="trust", limit=3, after=first[-1].key)
    by_offset = appkb.list_entries(store, order="trust", limit=3, offset=3)
    assert [e.term for e in first + by_key] == [f"应用{i}" for i in range(6)]
    assert by_offset[0].key == first[-1].key  # what keyset paging avoids: the row already shown, again
