"""The shipped registry's pinyin keys (resources/registry_pinyin.tsv) are what pypinyin says of its names."""

from __future__ import annotations

from importlib import resources

from recall.pinyin_keys import (
    SHIPPED_FILE,
    _written,
    pinyin_key,
    registry_names,
    remember_written,
    shipped_table,
)
from service.memory.memory import Memory
from store.appkb.kb import name_keys
from store.core.pinyin import computed_key


def test_the_shipped_keys_are_the_registrys_names_as_pypinyin_reads_them() -> None:
    # Stale after the registry or pypinyin changed: `python -m recall.pinyin_keys` writes it again.
    shipped = resources.files("resources").joinpath(SHIPPED_FILE).read_text("utf-8")
    assert shipped == shipped_table(registry_names())


def test_a_name_outside_the_registry_is_read_by_pypinyin() -> None:
    assert pinyin_key("绿泡泡") == computed_key("绿泡泡")
    assert (pinyin_key("绿泡泡").full, pinyin_key("绿泡泡").initials) == ("lvpaopao", "lpp")  # type: ignore[union-attr]
    assert pinyin_key("微信") == computed_key("微信")  # from the table
    assert pinyin_key("wechat") is None


def test_the_keys_the_app_kb_wrote_are_the_keys_pypinyin_gives(memory: Memory) -> None:
    """The view keeps each name's key as the resolver asks for it (by normalized name: 老板的软件 is asked for
    as 老板的), so that a one-shot resolve over the App-KB loads no pypinyin."""
    for name in ("小蓝鸟", "饿了吗", "老板的软件", "打开小红车", "WX助手", "wechat"):
        memory.appkb.learn_alias(name, "com.tencent.mm", actor="user")
    written = name_keys(memory.store)
    remember_written(written)
    assert set(written) == {"小蓝鸟", "饿了吗", "老板的", "小红车", "wx助手"}  # a Latin name has no key
    for alnum in written:
        assert _written[alnum] == computed_key(alnum), alnum
        assert pinyin_key(alnum) == computed_key(alnum), alnum


def test_a_view_without_the_keys_is_resolved_with_pypinyin(memory: Memory) -> None:
    """A view an older Jiyi wrote, read as it is (a read-only home), has no app_name_key: its names are read by
    pypinyin, with the same answers."""
    memory.appkb.learn_alias("老板的软件", "com.tencent.wework", actor="user")
    memory.store.db.execute_sql('DROP TABLE "app_name_key"')
    assert name_keys(memory.store) == {}
    top = memory.appkb.resolve_app("laobande").candidates[0]
    assert (top.package, top.route) == ("com.tencent.wework", "pinyin")
