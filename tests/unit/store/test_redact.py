"""The sensitive-text filter: every pattern the reference names, plus IDs, cards, keys and words."""

from __future__ import annotations

import pytest

from store.core.redact import Redactor, default_words

SENSITIVE = {
    "mobile": "给13812345678打电话",
    "email": "发到 someone.name@mail.example.cn",
    "order": "订单号 A1B2C3D4",
    "order_en": "order #98765",
    "code": "验证码是 482913",
    "code_en": "your code 5531",
    "secret": "api_key=abcd1234",
    "token": "token: xyz",
    "sk_key": "用 sk-abcdefghijklmnop1234",
    "bearer": "Authorization: Bearer abc.def-ghi_123",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    "base64": "A" * 130,
    "private_key": "-----BEGIN RSA PRIVATE KEY-----",
    "id_number": "身份证 11010519491231002X",
    "card_number": "卡号 4111 1111 1111 1111",
    "word": "我的支付密码忘了",
    "word_en": "my Password is",
}
HARMLESS = ["微信", "打开小红书搜索美食", "WeChat", "12306", "com.tencent.mm", "QQ音乐", "第3集", "版本 10.2.1", "订单"]


@pytest.fixture
def redactor() -> Redactor:
    return Redactor(default_words())


@pytest.mark.parametrize("text", SENSITIVE.values(), ids=SENSITIVE.keys())
def test_sensitive_text_is_found_and_redacted(redactor: Redactor, text: str) -> None:
    assert redactor.is_sensitive(text)
    assert "[redacted:" in redactor.redact(text)


@pytest.mark.parametrize("text", HARMLESS)
def test_app_names_and_everyday_text_pass(redactor: Redactor, text: str) -> None:
    assert not redactor.is_sensitive(text)
    assert redactor.redact(text) == text


def test_id_and_card_numbers_need_a_valid_checksum(redactor: Redactor) -> None:
    assert not redactor.is_sensitive("110105194912310021")  # wrong check digit
    assert not redactor.is_sensitive("4111 1111 1111 1112")  # fails Luhn


def test_redact_keeps_the_rest_of_the_text(redactor: Redactor) -> None:
    assert redactor.redact("call 13812345678 now") == "call [redacted:mobile] now"


def test_configured_words_extend_the_list() -> None:
    custom = Redactor(["工资条"])
    assert custom.is_sensitive("看看工资条")
    assert not Redactor().is_sensitive("看看工资条")
