"""The shipped registry's pinyin keys (resources/registry_pinyin.tsv) are what pypinyin says of its names."""

from __future__ import annotations

from importlib import resources

from recall.pinyin_keys import SHIPPED_FILE, computed_key, pinyin_key, registry_names, shipped_table


def test_the_shipped_keys_are_the_registrys_names_as_pypinyin_reads_them() -> None:
    # Stale after the registry or pypinyin changed: `python -m recall.pinyin_keys` writes it again.
    shipped = resources.files("resources").joinpath(SHIPPED_FILE).read_text("utf-8")
    assert shipped == shipped_table(registry_names())


def test_a_name_outside_the_registry_is_read_by_pypinyin() -> None:
    assert pinyin_key("绿泡泡") == computed_key("绿泡泡")
    assert (pinyin_key("绿泡泡").full, pinyin_key("绿泡泡").initials) == ("lvpaopao", "lpp")  # type: ignore[union-attr]
    assert pinyin_key("微信") == computed_key("微信")  # from the table
    assert pinyin_key("wechat") is None
