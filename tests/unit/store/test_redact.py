"""The sensitive-text filter: every format DESIGN.md names, the words, and its time: linear on any input."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from store.core.redact import Redactor, default_words
from tests.secret_formats import FORMATS, PRIVATE_KEY_BODY, Format

# Each text, and the part of it that must not survive redaction.
SENSITIVE = {
    "mobile": ("给13812345678打电话", "13812345678"),
    "mobile_plus86": ("call +8613900011234 now", "13900011234"),
    "mobile_0086": ("拨 0086 139 0001 1234", "139 0001 1234"),
    "mobile_spaced": ("号码 137 0001 9876 谢谢", "137 0001 9876"),
    "mobile_dashed": ("138-0013-8000", "138-0013-8000"),
    "mobile_wide": ("电话１３８００１３８０００", "１３８００１３８０００"),
    "email": ("发到 someone.name@mail.example.cn", "someone.name@mail.example.cn"),
    "order": ("订单号 A1B2C3D4", "A1B2C3D4"),
    "order_en": ("order #98765", "98765"),
    "code": ("验证码是 482913", "482913"),
    "code_en": ("your code 5531", "5531"),
    "otp": ("OTP 700001", "700001"),
    "check_code": ("校验码800001", "800001"),
    "code_after": ("482913是您的验证码", "482913"),
    "code_after_en": ("731957 is your login code", "731957"),
    "secret": ("api_key=abcd1234", "abcd1234"),
    "token": ("token: xyz", "xyz"),
    "password": ("password=Hunter2Secret!", "Hunter2Secret"),
    "passwd": ("passwd: Tr0ub4dor&3", "Tr0ub4dor"),
    "password_json": ('{"password": "s3cr3t-value"}', "s3cr3t-value"),
    "password_zh": ("我的邮箱密码是abc123xyz", "abc123xyz"),
    "sk_key": ("用 sk-abcdefghijklmnop1234", "sk-abcdefghijklmnop1234"),
    "aws_key": ("key AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
    "aws_secret": (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    "aws_secret_json": (
        '"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    "github_ghp": ("token ghp_" + "a1B2" * 9, "a1B2a1B2a1B2"),
    "github_gho": ("gho_" + "Zz90" * 9, "Zz90Zz90Zz90"),
    "github_pat": ("github_pat_" + "11ABCDEFG0" * 5, "11ABCDEFG0"),
    "bearer": ("Authorization: Bearer abc.def-ghi_123", "abc.def-ghi_123"),
    "jwt": (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "dBjftJeZ4CVPmB92K27uhbUJU1p1r",
    ),
    "base64": ("A" * 130, "A" * 130),
    "private_key_header": ("-----BEGIN RSA PRIVATE KEY-----", "BEGIN RSA PRIVATE KEY"),
    "id_number": ("身份证 11010519491231002X", "11010519491231002X"),
    "id_number_15": ("老身份证 110105491231002", "110105491231002"),
    "card_number": ("卡号 4111 1111 1111 1111", "4111 1111 1111 1111"),
    "card_mastercard": ("card 5555555555554444", "5555555555554444"),
    "card_amex": ("amex 378282246310005", "378282246310005"),
    "word": ("我的支付密码忘了", "支付密码"),
    "word_en": ("my Password is", "Password"),
}
HARMLESS = [
    "微信",
    "打开小红书搜索美食",
    "WeChat",
    "12306",
    "com.tencent.mm",
    "QQ音乐",
    "第3集",
    "版本 10.2.1",
    "订单",
    "I want to order pizza",
    "in order to finish",
    "2024-05-01 12:30",
    "ts 1717171717.25",
    "spin 2000 rpm",
    "barcode 123456",
    "tokens_total=1200",
    "打开设置 找到 WLAN",
    "the quick brown fox jumps over the lazy dog",
    "basic information first",
    "compass: north",
    "bearers of good news",
    "https://example.com:8080/path?x=1",
    "com_example_something_here",
    "discount 100%25 off",
    "I passed the exam",
]


@pytest.fixture
def redactor() -> Redactor:
    return Redactor(default_words())


@pytest.mark.parametrize(("text", "secret"), SENSITIVE.values(), ids=SENSITIVE.keys())
def test_sensitive_text_is_found_and_redacted(redactor: Redactor, text: str, secret: str) -> None:
    assert redactor.is_sensitive(text)
    clean = redactor.redact(text)
    assert "[redacted:" in clean
    assert secret not in clean


@pytest.mark.parametrize("text", HARMLESS)
def test_app_names_and_everyday_text_pass(redactor: Redactor, text: str) -> None:
    assert not redactor.is_sensitive(text)
    assert redactor.redact(text) == text


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("a \u200bsk-proj9Ab12\u200bCd34Ef56Gh78 b", "a \u200b[redacted:api_key] b"),  # the invisible inside goes too
        ("密码就是Zq8wXr5Tm，好的", "[redacted:word]就是[redacted:secret]，好的"),  # the value after the word
        ("卡号 4111 1111 1111 1112 谢谢", "卡号 [redacted:card_number] 谢谢"),  # after its word, Luhn or not
        ("postgres://u:pw1@127.0.0.1/db", "postgres://u:[redacted:password]@127.0.0.1/db"),
        ("x password%3Dabc123 y", "x [redacted:secret] y"),  # an escaped run goes whole
    ],
)
def test_what_goes_and_what_stays(redactor: Redactor, text: str, clean: str) -> None:
    assert redactor.redact(text) == clean


def test_a_listed_word_is_found_through_invisible_characters(redactor: Redactor) -> None:
    assert redactor.is_sensitive("pass\u200bword")
    assert redactor.redact("我的密\u034f码") == "我的[redacted:word]"


def test_id_and_card_numbers_need_a_valid_checksum(redactor: Redactor) -> None:
    assert not redactor.is_sensitive("110105194912310021")  # wrong check digit
    assert not redactor.is_sensitive("4111 1111 1111 1112")  # fails Luhn
    assert not redactor.is_sensitive("990105491231002")  # 15 digits, but no province starts with 99


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("卡号 4111 1111 1111 1111 123", "卡号 [redacted:card_number] 123"),  # then its CVV
        ("card 4111-1111-1111-1111-0925", "card [redacted:card_number]-0925"),  # then its expiry
        ("5 4111 1111 1111 1111", "5 [redacted:card_number]"),  # after a stray digit
    ],
)
def test_a_card_number_is_found_among_other_digit_groups(redactor: Redactor, text: str, clean: str) -> None:
    assert redactor.redact(text) == clean


def test_a_whole_private_key_block_goes_and_the_text_after_it_stays(redactor: Redactor) -> None:
    block = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + PRIVATE_KEY_BODY + "\n-----END OPENSSH PRIVATE KEY-----"
    clean = redactor.redact(f"my key:\n{block}\nthanks")
    assert clean == "my key:\n[redacted:private_key]\nthanks"


def test_an_unterminated_private_key_goes_to_the_end(redactor: Redactor) -> None:
    clean = redactor.redact("-----BEGIN PRIVATE KEY-----\n" + PRIVATE_KEY_BODY[:200])
    assert clean == "[redacted:private_key]"


def test_key_lines_without_their_header_are_redacted(redactor: Redactor) -> None:
    clean = redactor.redact("pasted:\n" + PRIVATE_KEY_BODY + "\nend")
    assert clean == "pasted:\n[redacted:base64]\nend"
    for line in PRIVATE_KEY_BODY.splitlines():
        assert line not in clean


@pytest.mark.parametrize("fmt", FORMATS, ids=[f.name for f in FORMATS])
def test_every_format_of_the_corpus_is_redacted(redactor: Redactor, fmt: Format) -> None:
    for family in (0, 1):
        secret = fmt.make(family)
        clean = redactor.redact(f"前文 {secret.text} 后文")
        assert not [n for n in secret.needles if n in clean], clean
        assert clean.startswith("前文 ") and clean.endswith(" 后文")
        assert redactor.is_sensitive(secret.compact)


def test_redact_keeps_the_rest_of_the_text(redactor: Redactor) -> None:
    assert redactor.redact("call 13812345678 now") == "call [redacted:mobile] now"
    assert redactor.redact("+86 139 0001 1234") == "+[redacted:mobile]"


def test_overlapping_spans_go_together(redactor: Redactor) -> None:
    # The order pattern and the mobile pattern overlap; nothing of either survives.
    clean = redactor.redact("订单 A1 13812345678")
    assert "1381234" not in clean and "5678" not in clean


def test_formats_only_leaves_the_word_list_out(redactor: Redactor) -> None:
    assert redactor.is_sensitive("com.agilebits.onepassword")
    assert not redactor.is_sensitive("com.agilebits.onepassword", words=False)
    assert redactor.is_sensitive("com.pay13812345678.app", words=False)


def test_configured_words_extend_the_list() -> None:
    custom = Redactor(["工资条"])
    assert custom.is_sensitive("看看工资条")
    assert not Redactor().is_sensitive("看看工资条")


# -- time ------------------------------------------------------------------------------

MIB = 1 << 20
# The ratio a linear filter stays under, with room for a loaded machine; a quadratic one is past it
# by orders of magnitude already at 64 KiB (the e-mail pattern took seconds there).
K = 10_000


def _filled(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _best(run: Callable[[], object], times: int) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def _ratio(redactor: Redactor, text: str) -> float:
    """Seconds to redact `text` over seconds for one `str.count` pass over it."""
    counting = _best(lambda: text.count("@"), 5)
    return _best(lambda: redactor.redact(text), 2) / max(counting, 1e-6)


MIXED = "打开微信给张三发消息 open the app, check order status; 版本 10.2.1 第3集 call me 2024-05-01. "
# Inputs that would make one of the rules read a run again from every position inside it.
ADVERSARIAL = {
    "letters": "A",
    "alnum_no_at": "abc123",
    "digits": "1",
    "digit_groups": "4111 ",
    "at_signs": "a@",
    "domain_labels": "ab1.",
    "dashes": "-",
    "key_headers": "-----BEGIN RSA PRIVATE KEY-----",
    "base64_lines": "A" * 64 + "\n",
    "base64_short_runs": "A" * 119 + " ",
    "jwt_starts": "-eyJ",
    "sk_starts": "sk-",
    "assignments": "token=",
    "spaces": " ",
    "listed_words": "密码",
    "wide_digits": "１３８００１３８０００ ",
    "code_words": "code 1234 ",
    "secret_words": "aws secret access key ",
    "order_words": "order ",
    "escapes": "%41",
    "escaped_words": "a%41b ",
    "base64_words": "cGFzc3dvcmQ9 ",
    "password_words": "密码 ",
    "url_userinfo": "://a:",
    "basic_words": "Basic QUJDREVGR0g= ",
    "authorization_basic": "authorization: basic ",
    "wrapped_keys": "sk-abcd\n",
    "zero_width": "\u200ba",
    "card_words": "卡号 1",
    "payment_words": "付款码 1",
    "lookalikes": "\u0412\u0435arer ",
}


@pytest.mark.parametrize("size", [64 * 1024, MIB], ids=["64KiB", "1MiB"])
@pytest.mark.parametrize("unit", ["A", MIXED], ids=["A", "mixed"])
def test_redaction_is_linear_against_a_count_pass(redactor: Redactor, unit: str, size: int) -> None:
    assert _ratio(redactor, _filled(unit, size)) < K


@pytest.mark.parametrize("unit", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_no_rule_backtracks_over_a_run(redactor: Redactor, unit: str) -> None:
    for size in (64 * 1024, 256 * 1024):
        assert _ratio(redactor, _filled(unit, size)) < K, size


def test_redaction_grows_linearly_with_the_text(redactor: Redactor) -> None:
    """Four times the text costs about four times as long (a quadratic filter: sixteen)."""
    small, large = _filled(MIXED + "a@b" + "x" * 300, 128 * 1024), _filled(MIXED + "a@b" + "x" * 300, 512 * 1024)
    assert _best(lambda: redactor.redact(large), 2) < 10 * _best(lambda: redactor.redact(small), 3)
