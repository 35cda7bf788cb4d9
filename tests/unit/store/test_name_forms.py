"""Normalization and pinyin keys."""

from __future__ import annotations

import pytest

from recall.pinyin_keys import pinyin_key
from store.core.name_forms import normalize


@pytest.mark.parametrize(
    ("raw", "norm"),
    [
        ("微信", "微信"),
        ("ＷｅＣｈａｔ", "wechat"),
        ("We Chat", "wechat"),
        ("淘寶", "淘宝"),
        ("嗶哩嗶哩", "哔哩哔哩"),
        ("打开微信", "微信"),
        ("微信app", "微信"),
        ("WeChat App", "wechat"),
        ("whatsapp", "whatsapp"),
        ("网易云音乐客户端", "网易云音乐"),
        ("应用宝", "应用宝"),
        ("  ", ""),
    ],
)
def test_normalize(raw: str, norm: str) -> None:
    assert normalize(raw).norm == norm


def test_alnum_variant_keeps_letters_digits_and_chinese() -> None:
    assert normalize("QQ·音乐!").alnum == "qq音乐"


def test_pinyin_keys_keep_latin_runs_whole() -> None:
    key = pinyin_key(normalize("QQ音乐").alnum)
    assert key is not None and (key.full, key.initials) == ("qqyinyue", "qqyy")
    assert pinyin_key("wechat") is None
    assert pinyin_key("威信") == pinyin_key("微信")
