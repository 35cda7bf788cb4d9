"""The sensitive-text filter: every format DESIGN.md names, the words, and its time: linear on any input."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from store.core.redaction.redactor import Redactor, default_words
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
        ("验证码（482913）好", "[redacted:code]好"),  # the bracket the code opened goes with it
        ("（验证码482913）", "（[redacted:code]）"),  # a bracket around the whole stays
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


# Secrets said in plain words (issue 36): each value must go, whatever is said around it.
SAID = [
    ("my password is Hunter2x", "Hunter2x"),
    ("My password is hunter22.", "hunter22"),
    ("the password for github is Gh7pass9", "Gh7pass9"),
    ("The password for my bank account is sunshine", "sunshine"),
    ("my wifi password is Wf3net8", "Wf3net8"),
    ("the root password is Rt9xk2", "Rt9xk2"),
    ("the MCP token is mcpTok77zz", "mcpTok77zz"),
    ("the MCP token is abcdefghij", "abcdefghij"),
    ("secret Sc4ret9x", "Sc4ret9x"),
    ("user admin pass Pa55w0rd", "Pa55w0rd"),
    ("user admin pass letmein", "letmein"),
    ("username: admin, password: opensesame", "opensesame"),
    ("login with admin / Lg8in7x", "Lg8in7x"),
    ("login with admin / letmein", "letmein"),
    ("sign in as root:toor1234", "toor1234"),
    ("Use the password Up3wd9 to log in", "Up3wd9"),
    ("use the password marmalade to log in", "marmalade"),
    ("use admin / Pw9x2 to log in", "Pw9x2"),
    ("I changed my password to marmalade yesterday", "marmalade"),
    ("set the wifi password to Hx7pQ2wLk", "Hx7pQ2wLk"),
    ("Hx7pQ2wLk is my wifi password", "Hx7pQ2wLk"),
    ("the password, by the way, is marmalade", "marmalade"),
    ('the password is "correct horse battery"', "correct horse battery"),
    ("the password is now Nw8pQ2xZ", "Nw8pQ2xZ"),
    ("the password has been changed to Cg7pQ2xZ", "Cg7pQ2xZ"),
    ("wifi pass is marmalade", "marmalade"),
    ("the api key is abcdefghijkl", "abcdefghijkl"),
    ("my secret key is Sk9pQ2xZw", "Sk9pQ2xZw"),
    ("the client secret is clientsecretvalue", "clientsecretvalue"),
    ("the token for the API is Tk9pQ2xZw", "Tk9pQ2xZw"),
    ("curl -u admin:Hx7pQ2wLk https://x.cn", "Hx7pQ2wLk"),
    ("basic auth admin:Hx7pQ2wLk", "Hx7pQ2wLk"),
    ("ssh admin:Hx7pQ2wLk@10.0.0.5", "Hx7pQ2wLk"),
    ("mysql -u root -pHx7pQ2wLk", "Hx7pQ2wLk"),
    ("我的邮箱密码改成了 Ml5pwd8", "Ml5pwd8"),
    ("路由器的管理密码 Rt5adm9 记一下", "Rt5adm9"),
    ("token 是 Tk8zz9q", "Tk8zz9q"),
    ("token 是 abcdefgh", "abcdefgh"),
    ("密码是sunshine", "sunshine"),
    ("wifi密码是 marmalade，记一下", "marmalade"),
    ("邮箱的密码我上周改成了 marmalade", "marmalade"),
    ("密码暂时设为 Hx7pQ2wLk", "Hx7pQ2wLk"),
    ("你的初始密码为abc12345，请尽快修改", "abc12345"),
    ("账号 admin 密码 letmein", "letmein"),
    ("用户名admin，密码Hx7pQ2wLk", "Hx7pQ2wLk"),
    ("账号密码是 admin / letmein", "letmein"),
    ("用 admin/Hx7pQ2wLk 登录", "Hx7pQ2wLk"),
    ("开机密码是“芝麻开门”", "芝麻开门"),
    ("口令是天王盖地虎", "天王盖地虎"),
    ("Hx7pQ2wLk 是我的密码", "Hx7pQ2wLk"),
    ("入会密码设置为“111111”", "111111"),
    ("api key 是 abcdefghijkl", "abcdefghijkl"),
    ("QQ邮箱授权码是 abcdefghijklmnop", "abcdefghijklmnop"),
    ("提取码：a1b2", "a1b2"),
    ("the router admin is admin / Wombat99zz", "Wombat99zz"),
    ("root:Hx7pQ2wLk", "Hx7pQ2wLk"),
    ("my pin number is 4821", "4821"),
    ("What is the wifi password? It is sunshine22", "sunshine22"),
    ("enter marmalade as the password", "marmalade"),
    ("log in as admin with password marmalade", "marmalade"),
    ("password for wifi 'HomeNet' is Hx7pQ2wLk", "Hx7pQ2wLk"),
    ("Password (case sensitive): marmalade", "marmalade"),
    ("my password used to be marmalade", "marmalade"),
    ("the login for the NAS is admin / marmalade", "marmalade"),
    ("the shared secret is marmalade", "marmalade"),
    ("the safe combination is 12-34-56", "12-34-56"),
    ("密码忘了，重置成 marmalade 了", "marmalade"),
    ("token给你：marmalade", "marmalade"),
    ("密码letmein", "letmein"),
    ("CVV: 123", "123"),
    ("SSN 123-45-6789", "123-45-6789"),
    # The six formats of round 4.
    ("HK passport no. K12345678", "K12345678"),
    ("香港护照号码是：K12345678", "K12345678"),
    ("passport number: E12345678", "E12345678"),
    ("https://api.telegram.org/bot123456789:AAHqTcvCH1vGWJxfSeofSAs0K5PALDsawQx/getMe", "AAHqTcvCH1vGWJxfSeofSAs0K5"),
    ("wechat pay 1345-6789-0123-4567-89", "1345-6789-0123-4567-89"),
    ("BasicYWRtaW46SHg3cFEyd0xr", "YWRtaW46SHg3cFEyd0xr"),
    ("验证码（482913）", "482913"),
    ("您的验证码是[482913]", "482913"),
    ("HKID A123456(3)", "A123456(3)"),
]
# Ordinary text that names a secret without giving one: every word stays (the listed words aside).
ORDINARY = [
    "the password policy is strict",
    "密码学是一门学科",
    "I forgot my password yesterday",
    "token 是什么意思",
    "the secret to success is patience",
    "a token of appreciation is nice",
    "the password is wrong",
    "the password is too short",
    "my password is the same as before",
    "the password is 8 characters long",
    "the key is to relax",
    "Use the password manager to log in",
    "Please enter your password to continue",
    "sign in with email/password",
    "the secret is out",
    "your password is case-sensitive",
    "密码是多少",
    "密码错误",
    "密码要包含字母和数字",
    "请输入密码",
    "密码为空",
    "密码是6位数字",
    "支付密码输入页面",
    "口令是什么",
    "token 过期了",
    "the wifi password is on the fridge",
    "that pass is closed for winter",
    "Having a strong team/support is key",
    "tokens_total=1200",
    "login: 10:30 tomorrow",
    "the combination of skills is rare",
    "with password authentication",
    "enter password again",
    "use it as the password",
    "密码不对，是不是输错了",
    "admin: Jane will help",
    "https://x.cn/admin/dashboard",
    "see /admin/settings and root: the top",
]


@pytest.mark.parametrize(("text", "value"), SAID, ids=[text for text, _ in SAID])
def test_a_secret_said_in_plain_words_goes(redactor: Redactor, text: str, value: str) -> None:
    clean = redactor.redact(f"前文 {text} 后文")
    assert value not in clean and value.lower() not in clean.lower(), clean
    assert clean.startswith("前文 ") and clean.endswith(" 后文")
    assert redactor.is_sensitive(text, words=False)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_words_about_secrets_stay(redactor: Redactor, text: str) -> None:
    assert redactor.find(text, words=False) == []


def test_only_the_value_goes(redactor: Redactor) -> None:
    assert redactor.redact("the MCP token is mcpTok77zz, thanks") == "the MCP token is [redacted:secret], thanks"
    assert redactor.redact("token 是 Tk8zz9q，记住") == "token 是 [redacted:secret]，记住"
    assert (
        redactor.redact("the password for github is hunter22") == "the [redacted:word] for github is [redacted:secret]"
    )


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
    # Secrets said in words: words with no value, links with no value, nested phrases, pairs, runs of words.
    "said_words_no_value": "password for ",
    "said_links": "password is ",
    "said_nested": "the password for the password for the ",
    "said_zh_links": "密码是",
    "said_zh_phrase": "口令是",
    "said_en_word_zh_link": "token 是 ",
    "said_pairs": "user a pass ",
    "said_login_pairs": "login with a/",
    "said_zh_pairs": "账号密码是 a/",
    "said_assignments": "token=",
    "said_before_words": "ab12 is my password ",
    "said_words_run_together": "passwordpassword",
    "said_tokens_run_together": "tokentoken",
    "said_mysql": "mysql -pX ",
    "said_curl": "-u a:b ",
    "said_at_host": "a:b1@x.cn ",
    "said_quotes": 'password is "',
    "said_known_users": "admin / root:",
}


@pytest.mark.parametrize("size", [64 * 1024, MIB], ids=["64KiB", "1MiB"])
@pytest.mark.parametrize("unit", ["A", MIXED], ids=["A", "mixed"])
def test_redaction_is_linear_against_a_count_pass(redactor: Redactor, unit: str, size: int) -> None:
    assert _ratio(redactor, _filled(unit, size)) < K


@pytest.mark.parametrize("unit", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_no_rule_backtracks_over_a_run(redactor: Redactor, unit: str) -> None:
    for size in (64 * 1024, 256 * 1024):
        assert _ratio(redactor, _filled(unit, size)) < K, size


@pytest.mark.parametrize(
    "unit",
    [MIXED + "a@b" + "x" * 300, "the password for the password for ", "密码是", "user a pass ", "token=token="],
    ids=["mixed", "said_nested", "said_zh_links", "said_pairs", "said_assignments"],
)
def test_redaction_grows_linearly_with_the_text(redactor: Redactor, unit: str) -> None:
    """Eight times the text costs about eight times as long (a quadratic filter: sixty-four); the bound of 24
    leaves room for a busy machine's noise, which made a bound of 10 over four times the text fail now and then."""
    small, large = _filled(unit, 64 * 1024), _filled(unit, 512 * 1024)
    assert _best(lambda: redactor.redact(large), 2) < 24 * _best(lambda: redactor.redact(small), 3)
